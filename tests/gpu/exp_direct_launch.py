"""GPU experiment (not part of the product): does the direct launch (`launch_direct` in
templates/launch_memo.c: cuLaunchKernelEx from the memo's C lookup, on by default since the
fourteenth session, C2T_CU_LAUNCH=0 to turn it off) write the same bytes as Triton 3.6's C launcher,
and what does it save? Results: docs/gpu-runs/direct-launch-2026-11-30.md.

This times, for each launch a suite entry makes through a generated launcher (by name or through a
kernel object's c2t_launch):

  memo            the launcher call, from the memo, its entry switched to Triton's launcher
  triton-launch   Triton's launcher alone, with the memo's recorded argument list
  memo+direct     the launcher call from the memo, its entry switched to the direct launch

and checks that the direct launch writes the same bytes as Triton's launcher: each tensor argument
(also inside lists) is an output when the launch writes over a poison (NaN; a sentinel for
integers) or changes it from what it held (in place); pure outputs are poisoned before both runs,
in-place ones start from their saved contents. From the project root on the GPU machine:

    source .gpu/setup.sh; export TILEGYM_SRC=.corpus/src
    python tests/gpu/exp_direct_launch.py tg_flash_decode:0 tg_rms_norm:0
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_launch_cost as P  # noqa: E402  (puts the project and TileGym on sys.path)


def main():
    P.set_cuda_allocator("cuda")
    for arg in [a for a in sys.argv[1:] if not a.startswith("--")]:
        try:
            entry_launches(arg)
        except Exception as exc:    # noqa: BLE001 - one entry's failure is reported, the others run
            print(f"== {arg}: {type(exc).__name__}: {exc}", flush=True)


def entry_launches(arg):
    name, _, which = arg.partition(":")
    entry = next(e for e in P.C2T_SUITE if e["name"] == name)
    path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"), "tilegym"))
    orig, sp, trans, _, _ = P.load_modules(path, entry.get("spec"), None, "gpu")
    dt = P.select_dtypes(sp, entry.get("dtypes"))[0]
    for case in P.entry_bench_cases(entry, sp, which):
        args = P.make_args(sp, case, dt, 0, "cuda")
        f1 = getattr(trans, sp.entry)
        a1 = P.clone_args(args)
        f1(*a1)
        f1(*a1)                 # compiled and recorded in the memo
        torch.cuda.synchronize()
        print(f"== {name} {case} {str(dt)[6:]}", flush=True)
        for launcher, largs, lkw in P.record_launchers(lambda: f1(*a1)):
            launcher(*largs, **lkw)
            report(launcher, largs, lkw)


_SENTINEL = -0x5A5A5A5B          # (fits int32; int8/int16/uint8 take its low bits)


def flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from flat(v)
        else:
            yield v


def as_bytes(t):
    return t.contiguous().view(torch.uint8) if t.dim() else t.reshape(1).view(torch.uint8)


def poison(t):
    if t.is_floating_point():
        t.fill_(float("nan"))
    else:
        t.fill_(torch.tensor(_SENTINEL, dtype=torch.int64).to(t.dtype).item())


def poisoned(t):
    if t.is_floating_point():
        return torch.isnan(t)
    return t == torch.tensor(_SENTINEL, dtype=torch.int64).to(t.dtype).item()


def compiled_of(function):
    for m in P.translated_modules():
        for kernel, compiled in m._C2T_COMPILED.values():
            if getattr(compiled, "function", None) == function:
                return compiled
    return None


def memo_entry_of(launcher, largs, lkw):
    """The module, memo list and index of the entry this launcher call hits, and the argument list
    of its launch, found by spying on the entries' calls."""
    for m in P.translated_modules():
        for entries in m._C2T_MEMO.values():
            for i, e in enumerate(entries):
                seen = []       # (the spy only records: that launch is skipped)
                entries[i] = e[:1] + ((lambda *argv: seen.append(argv)),) + e[2:]
                try:
                    launcher(*largs, **lkw)
                finally:
                    entries[i] = e
                if seen:
                    return m, entries, i, seen[0]
    return None, None, None, None


def report(launcher, largs, lkw):
    label = f"  {launcher.__name__[7:]:40.40s}"
    m, entries, i, argv = memo_entry_of(launcher, largs, lkw)
    if argv is None:
        print(f"{label} no memo hit")
        return
    recorded = entries[i]
    compiled = compiled_of(argv[4]) if len(argv) > 13 else None
    launch = getattr(getattr(compiled, "run", None), "launch", None)
    ok = compiled is not None and (type(recorded[1]) is tuple or recorded[1] == launch)
    spec = m._c2t_cu_launch(compiled, compiled.run, len(recorded[3])) if ok else None
    if spec is None or m._C2T_MEMO_C is None or getattr(m._C2T_MEMO_C, "ABI", 0) < 3:
        print(f"{label} skipped (not Triton 3.6's launcher, a signature the direct launch does not pack, or no C lookup)")
        return
    # the entry as recorded with the direct launch off (Triton's launcher) and on
    entry = recorded[:1] + (launch,) + recorded[2:]
    direct = recorded[:1] + (spec,) + recorded[2:]
    entries[i] = entry
    try:
        compare(label, launcher, largs, lkw, entries, i, entry, direct, argv)
    finally:
        entries[i] = recorded


def compare(label, launcher, largs, lkw, entries, i, entry, direct, argv):
    # the same bytes: the outputs are the tensors Triton's launch writes (each poisoned in turn, the
    # others as they were: the launch overwrites an output's poison); all restored after. Floating
    # tensors are poisoned with NaN, integer ones with a value no kernel here writes; tensors in
    # list arguments count too.
    tensors = [t for t in flat(list(largs) + list(lkw.values()))
               if isinstance(t, torch.Tensor) and (t.is_floating_point() or (t.dtype != torch.bool and not t.is_complex()))]
    saved = [t.clone() for t in tensors]

    def restore():
        for u, s in zip(tensors, saved):
            u.copy_(s)

    def run(call):
        call()
        torch.cuda.synchronize()

    # outputs: tensors the launch writes over a poison or changes from what they held; in place:
    # outputs whose result depends on what they held (those start from their saved contents in the
    # comparison, the others poisoned)
    outs, in_place = [], set()
    for k, t in enumerate(tensors):
        run(lambda: entry[1](*argv))
        from_saved = t.clone()
        restore()
        poison(t)
        run(lambda: entry[1](*argv))
        if not poisoned(t).all() or not torch.equal(as_bytes(from_saved), as_bytes(saved[k])):
            outs.append(k)
            if not torch.equal(as_bytes(t), as_bytes(from_saved)):
                in_place.add(k)
        restore()

    def prepare():
        restore()
        for k in outs:
            if k not in in_place:
                poison(tensors[k])

    prepare()
    run(lambda: entry[1](*argv))
    ref = [tensors[k].clone() for k in outs]
    moved = all(not torch.equal(as_bytes(tensors[k]), as_bytes(saved[k])) for k in in_place)
    prepare()
    entries[i] = direct
    try:
        run(lambda: launcher(*largs, **lkw))
        same = all(torch.equal(as_bytes(tensors[k]), as_bytes(r)) for k, r in zip(outs, ref))
    finally:
        entries[i] = entry
        restore()
    # host us per call, the two entries alternating (3 rounds, the lowest of each)
    t_direct = t_memo = t_triton = float("inf")
    for _ in range(3):
        entries[i] = direct
        try:
            t_direct = min(t_direct, P.host_us(lambda: launcher(*largs, **lkw)))
        finally:
            entries[i] = entry
        t_memo = min(t_memo, P.host_us(lambda: launcher(*largs, **lkw)))
        t_triton = min(t_triton, P.host_us(lambda: entry[1](*argv)))
    torch.cuda.synchronize()
    print(f"{label} memo {t_memo:6.1f} | triton-launch {t_triton:6.1f} | memo+direct {t_direct:6.1f} us "
          f"({len(entry[3])} args, {len(outs)} outputs, {len(in_place)} in place{'' if moved else ' (one left as it was)'}: "
          f"{'SAME BYTES' if same and outs else 'DIFFERENT' if outs else 'none found'})",
          flush=True)


if __name__ == "__main__":
    main()
