"""GPU experiment (not part of the product): what one kernel launch costs the host, per layer, for
the launches a suite entry makes. The entry is called once on each side with the launches
recorded; then each recorded launch is replayed alone, N times back to back, and the host time per
launch (before the synchronize) is printed for:

  cuTile    ct.launch(stream, grid, kernel, args)              cuTile's whole launch
  c2t_run   _c2t_run(kernel, grid, args, **options)            the translation's cached launch path
  triton    kernel[grid](*args, **options)                     Triton's own dispatch
  raw       compiled.run(grid, stream, function, ..., *args)   Triton's C launcher alone
  raw-int   the same with each tensor passed as its data_ptr() int (the C launcher then skips
            its per-pointer cuPointerGetAttribute call)
  raw-int-s the same with the descriptor scratch allocator returning one cached buffer (only for
            kernels with global scratch, i.e. in-kernel tensor descriptors)

and each generated launcher call (launch_<kernel>(grid, ...), what TileGym's host code calls in place
of ct.launch) with the launch memo (_c2t_memo, its lookup in C: templates/launch_memo.c), with the
memo looking launches up in Python (before the thirteenth session), with the memo checking array
layouts in Python (what it did before torch's TensorGuards check), and without the memo.

and, for the whole entry call, host time per call on each side (profile_split's `host`), so that
entry - launches = the host code around the launches (TileGym's, and the launcher's argument
flattening on the Triton side).

    python tests/gpu/probe_launch_cost.py tg_mla_decoding:3 tg_flash_decode:0 ex_vector_add:0
    python tests/gpu/probe_launch_cost.py --triton-first tg_flash_decode:0   (entry calls timed in the
                                           other order, to tell a side's cost from a process state)

The thread count is printed too: a busy Python thread takes the GIL from the timed one.
"""
import os
import sys
import threading

import torch

sys.path.insert(0, ".")
sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
from tests.gpu.suite import C2T_SUITE  # noqa: E402
from translator.harness.bench import host_us as bench_host_us  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.suite import entry_bench_cases  # noqa: E402
from translator.harness.verify import (load_modules, make_args, raise_cutile_compiler_timeout,  # noqa: E402
                                      select_dtypes, set_cuda_allocator)

N = 300


def host_us(fn, n=N):
    """Host microseconds per call, N calls without synchronizing (the bench's own loop, garbage
    collector paused)."""
    return bench_host_us(fn, n)


def record_cutile(fn):
    import cuda.tile as ct
    seen, real = [], ct.launch

    def rec(stream, grid, kernel, args):
        seen.append((stream, grid, kernel, args))
        return real(stream, grid, kernel, args)
    ct.launch = rec
    try:
        fn()
    finally:
        ct.launch = real
    return seen, real


def translated_modules():
    # (`in vars(m)`, not hasattr: torch.ops namespaces answer any attribute)
    return [m for m in list(sys.modules.values()) if "_c2t_run" in vars(m) and "_C2T_COMPILED" in vars(m)]


def record_launchers(fn):
    """The generated launchers' calls (launch_<kernel>(grid, *args, stream=...)) an entry call makes,
    by name or through a kernel object's `c2t_launch` (host code that picks its kernel at run time
    launches through _c2t_launch, which calls that attribute)."""
    seen, reals, objects = [], [], []
    for m in translated_modules():
        for name in [n for n in vars(m) if n.startswith("launch_") and callable(getattr(m, n))]:
            real = getattr(m, name)
            reals.append((m, name, real))

            def rec(*args, _real=real, **kw):
                seen.append((_real, args, kw))
                return _real(*args, **kw)
            setattr(m, name, rec)
            for obj in list(vars(m).values()):
                if getattr(obj, "c2t_launch", None) is real:
                    objects.append((obj, real))
                    obj.c2t_launch = rec
    try:
        fn()
    finally:
        for m, name, real in reals:
            setattr(m, name, real)
        for obj, real in objects:
            obj.c2t_launch = real
    return seen


def no_memo():
    """Switch the launch memo off in every translated module (returns the undo)."""
    mods = [m for m in translated_modules() if "_c2t_memo" in vars(m)]
    reals = [(m, m._c2t_memo) for m in mods]
    for m in mods:
        m._c2t_memo = lambda *a, **k: ()

    def undo():
        for m, real in reals:
            m._c2t_memo = real
    return undo


def python_layout_check():
    """Make the launch memo check layouts in Python instead of with torch's TensorGuards (the
    memo is emptied, so the next launch records with that check); returns the undo."""
    mods = [m for m in translated_modules() if "_C2T_TENSOR_GUARDS" in vars(m)]
    reals = [(m, m._C2T_TENSOR_GUARDS) for m in mods]
    for m in mods:
        m._C2T_TENSOR_GUARDS = None
        m._C2T_MEMO.clear()

    def undo():
        for m, real in reals:
            m._C2T_TENSOR_GUARDS = real
            m._C2T_MEMO.clear()
    return undo


def python_lookup():
    """Make the launch memo look launches up in Python instead of its C lookup (templates/
    launch_memo.c); returns the undo."""
    mods = [m for m in translated_modules() if "_C2T_MEMO_C" in vars(m)]
    reals = [(m, m._C2T_MEMO_C) for m in mods]
    for m in mods:
        m._C2T_MEMO_C = None

    def undo():
        for m, real in reals:
            m._C2T_MEMO_C = real
    return undo


def c_lookup_built():
    """Whether every translated module with a launch memo built its C lookup."""
    return all(m._C2T_MEMO_C is not None for m in translated_modules() if "_C2T_MEMO_C" in vars(m))


def record_triton(fn):
    mods = translated_modules()
    seen, reals = [], {}
    undo = no_memo()        # (with the memo, repeated launches do not reach _c2t_run)
    for m in mods:
        real = reals[m] = m._c2t_run

        def rec(kernel, grid, args, _real=real, c2t_memo=None, **options):
            seen.append((_real, kernel, grid, args, options))
            return _real(kernel, grid, args, **options)
        m._c2t_run = rec
    try:
        fn()
    finally:
        undo()
        for m, real in reals.items():
            m._c2t_run = real
    return seen


def micro():
    """Host costs of the calls the cached launch path makes per launch."""
    import triton
    drv = triton.runtime.driver.active
    x = torch.empty(16, device="cuda")
    for label, fn in (("driver.active.get_current_device()", lambda: drv.get_current_device()),
                      ("torch.cuda.current_device()", torch.cuda.current_device),
                      ("driver.active.get_current_stream(0)", lambda: drv.get_current_stream(0)),
                      ("torch._C._cuda_getCurrentRawStream(0)", lambda: torch._C._cuda_getCurrentRawStream(0)),
                      ("torch.cuda.is_current_stream_capturing()", torch.cuda.is_current_stream_capturing),
                      ("torch.empty(4096, int8, cuda)", lambda: torch.empty(4096, dtype=torch.int8, device="cuda")),
                      ("t.data_ptr()", x.data_ptr), ("t.get_device()", x.get_device)):
        print(f"  micro {label:45s} {host_us(fn, 3000):6.2f} us")


def main():
    set_cuda_allocator("cuda")
    if "--micro" in sys.argv:
        micro()
    raise_cutile_compiler_timeout()
    triton_first = "--triton-first" in sys.argv
    for arg in [a for a in sys.argv[1:] if not a.startswith("--")]:
        name, _, which = arg.partition(":")
        entry = next(e for e in C2T_SUITE if e["name"] == name)
        path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"),
                                                                 "tilegym"))
        orig, sp, trans, _, _ = load_modules(path, entry.get("spec"), None, "gpu")
        dt = select_dtypes(sp, entry.get("dtypes"))[0]
        cases = entry_bench_cases(entry, sp, which)     # `:k`: the entry's k-th bench case
        for case in cases:
            args = make_args(sp, case, dt, 0, "cuda")
            print(f"== {name} {case} {str(dt)[6:]}", flush=True)
            f0, f1 = getattr(orig, sp.entry), getattr(trans, sp.entry)
            a0, a1 = clone_args(args), clone_args(args)
            f0(*a0), f1(*a1)            # compiles, tuning
            torch.cuda.synchronize()
            if triton_first:
                t1, t0 = host_us(lambda: f1(*a1)), host_us(lambda: f0(*a0))
            else:
                t0, t1 = host_us(lambda: f0(*a0)), host_us(lambda: f1(*a1))
            print(f"  entry call   cuTile {t0:7.1f} us | Triton {t1:7.1f} us ({'Triton' if triton_first else 'cuTile'} "
                  f"timed first; threads: {', '.join(t.name for t in threading.enumerate())})")
            cu, ct_launch = record_cutile(lambda: f0(*a0))
            for stream, grid, kernel, kargs in cu:
                t = host_us(lambda: ct_launch(stream, grid, kernel, kargs))
                print(f"  cuTile  {getattr(kernel, '__name__', kernel)!s:40.40s} grid {grid}: ct.launch {t:7.1f} us "
                      f"({len(kargs)} args)")
            for launcher, largs, lkw in record_launchers(lambda: f1(*a1)):
                t_memo = host_us(lambda: launcher(*largs, **lkw))
                built = c_lookup_built()
                undo = python_lookup()
                t_pyl = host_us(lambda: launcher(*largs, **lkw))
                undo()
                undo = python_layout_check()
                t_py = host_us(lambda: launcher(*largs, **lkw))
                undo()
                launcher(*largs, **lkw)         # records again with torch's check
                undo = no_memo()
                t_full = host_us(lambda: launcher(*largs, **lkw))
                undo()
                print(f"  Triton  {launcher.__name__[7:]:40.40s} launcher: with memo {t_memo:7.1f} "
                      f"({'C lookup' if built else 'C LOOKUP NOT BUILT'}) | memo looking up in Python {t_pyl:7.1f} | "
                      f"memo checking layouts in Python {t_py:7.1f} | without {t_full:7.1f} us")
            for run, kernel, grid, kargs, options in record_triton(lambda: f1(*a1)):
                t_run = host_us(lambda: run(kernel, grid, kargs, **options))
                t_jit = host_us(lambda: kernel[grid](*kargs, **options))
                compiled = kernel[grid](*kargs, **options)
                g = tuple(grid) + (1,) * (3 - len(grid))
                stream = torch.cuda.current_stream().cuda_stream
                t_raw = host_us(lambda: compiled.run(g[0], g[1], g[2], stream, compiled.function,
                                                     compiled.packed_metadata, None, None, None, *kargs))
                ints = tuple(a.data_ptr() if isinstance(a, torch.Tensor) else a for a in kargs)
                t_int = host_us(lambda: compiled.run(g[0], g[1], g[2], stream, compiled.function,
                                                     compiled.packed_metadata, None, None, None, *ints))
                extra = ""
                if compiled.metadata.global_scratch_size:
                    import triton
                    from triton.runtime import _allocation
                    before = _allocation._allocator.get()
                    buf = torch.empty(1 << 22, dtype=torch.int8, device="cuda")
                    triton.set_allocator(lambda size, align, s, _b=buf: _b)
                    t_s = host_us(lambda: compiled.run(g[0], g[1], g[2], stream, compiled.function,
                                                       compiled.packed_metadata, None, None, None, *ints))
                    triton.set_allocator(before)
                    extra = f" | raw-int-s {t_s:7.1f}"
                n_t = sum(isinstance(a, torch.Tensor) for a in kargs)
                print(f"  Triton  {kernel.__name__:40.40s} grid {grid}: c2t_run {t_run:7.1f} | triton {t_jit:7.1f} | "
                      f"raw {t_raw:7.1f} | raw-int {t_int:7.1f}{extra} us ({len(kargs)} args, {n_t} tensors; "
                      f"scratch {compiled.metadata.global_scratch_size} B)")


if __name__ == "__main__":
    main()
