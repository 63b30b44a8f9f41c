"""CPU experiment (not part of the product; no GPU): host microseconds of the generated host code
with the kernel launches stubbed out, i.e. the launcher and batching bookkeeping alone.

    python tests/gpu/host_cost_cpu.py

- concat (examples/concat.py, translated at start): 8 parts through the batched launcher (_C2TBatch) vs one
  launcher call per part;
- one launcher call of a kernel with 5 rank-4 arrays, ints and a float through the cached launch
  path (_c2t_run) with a stand-in compiled kernel, then the same call from the launch memo
  (_c2t_memo, with stand-ins for torch's current device and stream queries), its lookup in C
  (templates/launch_memo.c) and in Python, and how the C path's time splits between the C lookup,
  _c2t_memo's Python around it and the launcher's own Python;
- concat's batched launcher with a stand-in compiled kernel, launch memo off and on;
- with a TileGym checkout in $TILEGYM_SRC (default .corpus/src): TileGym's flash_decode entry
  (B=1 KV=4096) on CPU tensors, cuTile original (ct.launch stubbed) against translation, through
  the launch memo (stand-in compiled kernels and device queries) and with _c2t_run stubbed;
  torch.cuda's device queries faked; the same for TileGym's persistent bmm (B=16 1024^3, its
  search's cache filled with its first config), and TileGym's matmul, tiled and persistent, at
  128x8192x8192.
Numbers depend on the machine; compare variants within one run.
"""
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import torch  # noqa: E402
import triton  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

from kernel_util import build  # noqa: E402


class _Compiled:
    """Stands in for the CompiledKernel JITFunction.run returns: its launcher does nothing."""
    function, packed_metadata = 1, 2

    def launch_metadata(self, *args):
        return None

    def run(self, *args):
        pass


def stand_in_compiled():
    """A stand-in compiled kernel, with a stand-in driver for the device and stream queries."""
    triton.runtime.driver._active = types.SimpleNamespace(get_current_device=lambda: 0,
                                                          get_current_stream=lambda device: 0)
    return _Compiled()


def per_call_us(fn, n=3000):
    for _ in range(200):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def concat_module():
    """examples/concat.py translated now (the golden file leaves the launch memo out)."""
    return build((ROOT / "examples/concat.py").read_text(), Path(tempfile.mkdtemp()))


def concat_costs():
    m = concat_module()
    m._c2t_run = lambda kernel, grid, args, **options: None
    parts = [torch.randn(4096 * (k + 1) // 7 + k) for k in range(8)]

    def unbatched():
        out = torch.empty(sum(t.shape[0] for t in parts))
        start = 0
        for t in parts:
            m.launch_copy_kernel((m._c2t_host_cdiv(t.shape[0], 1024),), t, out[start:start + t.shape[0]], 1024)
            start += t.shape[0]
    print(f"concat of 8 parts, batched:   {per_call_us(lambda: m.concat(parts)):.1f} us (launches stubbed)")
    print(f"concat of 8 parts, unbatched: {per_call_us(unbatched):.1f} us (launches stubbed)")


SRC = """
@ct.kernel
def k5(a, b, c, d, e, n: int, m: int, s: float, T: ConstInt):
    i = ct.bid(0)
    t = ct.load(a, index=(i, 0, 0, 0), shape=(1, 1, 1, T)) + ct.load(b, index=(i, 0, 0, 0), shape=(1, 1, 1, T))
    t = t + ct.load(c, index=(i, 0, 0, 0), shape=(1, 1, 1, T)) + ct.load(d, index=(i, 0, 0, 0), shape=(1, 1, 1, T))
    ct.store(e, index=(i, 0, 0, 0), tile=t * s + n + m)
"""


def launcher_cost():
    mod = build(SRC, Path(tempfile.mkdtemp()))

    compiled = stand_in_compiled()
    kernel = JITFunction(mod.k5.fn)
    kernel.run = lambda *args, grid, warmup, **kw: compiled
    mod.k5 = kernel
    ts = [torch.empty(4, 8, 16, 32) for _ in range(5)]
    us = per_call_us(lambda: mod.launch_k5((4,), *ts, 7, 100, 0.5, 32), n=20000)
    print(f"launcher + cached launch path, 5 rank-4 arrays ({len(mod.k5.arg_names)} kernel arguments): {us:.1f} us")
    mod._C2T_CUDA = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda d: 0)
    us = per_call_us(lambda: mod.launch_k5((4,), *ts, 7, 100, 0.5, 32), n=20000)
    c_lookup, mod._C2T_MEMO_C = mod._C2T_MEMO_C, None
    us_py = per_call_us(lambda: mod.launch_k5((4,), *ts, 7, 100, 0.5, 32), n=20000)
    mod._C2T_MEMO_C = c_lookup
    print(f"the same launch from the launch memo: {us:.1f} us with its lookup in C ({'built' if c_lookup else 'NOT BUILT'}), "
          f"{us_py:.1f} us in Python ({sum(map(len, mod._C2T_MEMO.values()))} memo entry)")
    if c_lookup is not None:
        # where that launch's time goes: the C lookup and launch alone, with the arguments
        # _c2t_memo passes it (device 0, stream 0, the module's TMA mode), then _c2t_memo around it
        arrays, tma = tuple(ts), (mod._C2T_TMA_MODE,)
        assert c_lookup.memo(mod._C2T_MEMO, "k5", (4,), 0, tma, (32,), (), arrays, (7, 100, 0.5), (), 0) is True
        c_us = per_call_us(lambda: c_lookup.memo(mod._C2T_MEMO, "k5", (4,), 0, tma, (32,), (), arrays,
                                                 (7, 100, 0.5), (), 0), n=20000)
        memo_us = per_call_us(lambda: mod._c2t_memo("k5", (4,), None, arrays, (7, 100, 0.5), (32,)), n=20000)
        print(f"  of which the C lookup and launch alone {c_us:.1f} us, _c2t_memo's Python around it "
              f"{memo_us - c_us:.1f} us, the launcher's own Python {us - memo_us:.1f} us")


def concat_memo_costs():
    """concat's batched launches with a stand-in compiled kernel, launch memo off and on."""
    m = concat_module()
    compiled = stand_in_compiled()
    for name in ("copy_kernel", "copy_kernel_batch4"):
        k = JITFunction(getattr(m, name).fn)
        k.run = lambda *args, grid, warmup, **kw: compiled
        setattr(m, name, k)
    parts = [torch.randn(4096 * (k + 1) // 7 + k) for k in range(8)]
    print(f"concat of 8 parts, batched, memo off: {per_call_us(lambda: m.concat(parts)):.1f} us (stand-in kernel)")
    m._C2T_CUDA = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda d: 0)
    us = per_call_us(lambda: m.concat(parts))
    c_lookup, m._C2T_MEMO_C = m._C2T_MEMO_C, None
    us_py = per_call_us(lambda: m.concat(parts))
    m._C2T_MEMO_C = c_lookup
    print(f"concat of 8 parts, batched, memo on:  {us:.1f} us with its lookup in C "
          f"({'built' if c_lookup else 'NOT BUILT'}), {us_py:.1f} us in Python (stand-in kernel)")


def tilegym_host(op, label, make_call, prepare=None):
    """Host microseconds of a TileGym entry on CPU tensors: cuTile's original (ct.launch stubbed)
    against its translation through the launch memo (stand-in compiled kernels and device
    queries) with the memo's lookup in C and in Python, and with _c2t_run stubbed. `make_call(m)`:
    the call on module m; `prepare(m)`: fills what a GPU run would have filled (a search's cache)."""
    import os
    import cuda.tile as ct
    src = os.environ.get("TILEGYM_SRC", str(ROOT / ".corpus/src"))
    path = Path(src) / f"tilegym/ops/cutile/{op}.py"
    if not path.is_file():
        print(f"{op}: no TileGym at {src} (set TILEGYM_SRC)")
        return
    if src not in sys.path:
        sys.path.insert(0, src)
    torch.cuda.get_device_properties = lambda *a, **k: types.SimpleNamespace(multi_processor_count=132)
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    class Stream:               # torch.cuda.Stream's stand-in: the current stream of device 0
        cuda_stream, device_index = 0, 0
    torch.cuda.Stream = Stream
    torch.cuda.current_stream = lambda *a, **k: Stream()
    torch._C._cuda_getCurrentRawStream = lambda device: 0
    from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate
    orig = load_module(path)
    trans, _ = load_translated(translate(path)[0], path)
    rebind_cutile_imports(trans)
    ct.launch = lambda *a, **k: None
    for m in (orig, trans):
        if prepare:
            prepare(m)
    modules = [m for m in list(sys.modules.values())
               if isinstance(m, types.ModuleType) and "_c2t_run" in vars(m) and "_C2T_MEMO" in vars(m)]
    # the translation's launches through the launch memo, as on the GPU: real JITFunctions (their
    # globals as Triton records them at compile time) with a stand-in compiled kernel, and stand-ins
    # for torch's device and stream queries
    compiled = stand_in_compiled()
    saved = []
    for m in modules:
        saved.append((m, m._c2t_run, m._C2T_CUDA))
        m._C2T_CUDA = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda d: 0)
        for name, obj in list(vars(m).items()):
            if isinstance(obj, JITFunction):       # kernels (dual variants too) and their helpers
                kernel = JITFunction(obj.fn)
                kernel.cache_key                # Triton records the globals a kernel reads here
                kernel.run = lambda *args, grid, warmup, **kw: compiled
                setattr(m, name, kernel)
                for other in vars(m).values():  # kernel objects the host code holds (replace_hints)
                    if getattr(other, "c2t_kernel", None) is obj:
                        other.c2t_kernel = kernel
    call_orig, call_trans = make_call(orig), make_call(trans)
    t0 = per_call_us(call_orig)
    t2 = per_call_us(call_trans)
    lookups = [(m, m._C2T_MEMO_C) for m in modules]
    for m, _ in lookups:
        m._C2T_MEMO_C = None
    t3 = per_call_us(call_trans)
    for m, c_lookup in lookups:
        m._C2T_MEMO_C = c_lookup
    entries = sum(len(e) for m in modules for e in m._C2T_MEMO.values())
    for m, run, cuda in saved:
        m._c2t_run = lambda kernel, grid, args, **options: None
        m._C2T_CUDA = cuda          # CPU torch: no device query, so no memo
    t1 = per_call_us(call_trans)
    for m, run, cuda in saved:
        m._c2t_run = run
    print(f"TileGym {label} host code: cuTile {t0:.1f} us (ct.launch stubbed), translation "
          f"{t2:.1f} us through the launch memo with its lookup in C, {t3:.1f} us with the lookup in Python "
          f"({entries} entries; stand-in kernels), {t1:.1f} us with _c2t_run stubbed (CPU tensors: no memo)")


def flash_decode_host():
    q = torch.randn(1, 32, 1, 128, dtype=torch.bfloat16)
    k, v = torch.randn(1, 8, 4096, 128, dtype=torch.bfloat16), torch.randn(1, 8, 4096, 128, dtype=torch.bfloat16)
    tilegym_host("flash_decode", "flash_decode B=1 KV=4096", lambda m: lambda: m.fmha_decode(q, k, v, 0.1))


def bmm_host():
    """The persistent bmm after its search (the tune cache holds the first sm90 config)."""
    a, b = torch.randn(16, 1024, 1024, dtype=torch.float16), torch.randn(16, 1024, 1024, dtype=torch.float16)

    def prepare(m):
        cfg = next(iter(m._bmm_autotune_configs()))
        m._bmm_tune_cache[(16, 1024, 1024, 1024, False, False, a.dtype, str(a.device))] = (
            cfg, m._static_persistent_bmm_kernel.replace_hints(num_ctas=cfg.num_ctas, occupancy=cfg.occupancy))
    tilegym_host("bmm", "persistent bmm B=16 1024^3", lambda m: lambda: m.bmm(a, b), prepare)


def matmul_host():
    """TileGym's matmul, tiled and static-persistent, on the skinny shape after their searches (the
    tune caches hold the first sm90 config)."""
    a, b = torch.empty(128, 8192, dtype=torch.float16), torch.empty(8192, 8192, dtype=torch.float16)

    def prepare(m):
        cfg = next(iter(m._matmul_autotune_configs()))
        m._matmul_tune_cache[(128, 8192, 8192, a.dtype, str(a.device))] = (
            cfg, m._matmul_kernel.replace_hints(num_ctas=cfg.num_ctas, occupancy=cfg.occupancy))
        cfg = next(iter(m._static_persistent_matmul_autotune_configs()))
        m._static_persistent_matmul_tune_cache[(128, 8192, 8192, False, False, a.dtype, str(a.device))] = (
            cfg, m._static_persistent_matmul_kernel.replace_hints(num_ctas=cfg.num_ctas, occupancy=cfg.occupancy))
    for sp in (False, True):
        tilegym_host("matmul", f"matmul 128x8192x8192 static_persistent={sp}",
                     lambda m: lambda: m.matmul(a, b, static_persistent=sp), prepare)


if __name__ == "__main__":
    concat_costs()
    launcher_cost()
    concat_memo_costs()
    flash_decode_host()
    bmm_host()
    matmul_host()
