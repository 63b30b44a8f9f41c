"""GPU experiment (not part of the product): for the rows of the bench suite that fall short, is the
time spent on the host (launch work) or in the kernels? For each case, both sides (cuTile original
and its translation) are run 50 times back to back and measured three ways:

  host    host time per call of 50 calls issued back to back, before the synchronize (the
          Python call alone while the device catches up);
  wall    the same 50 calls up to the synchronize (about max(host work, GPU work) per call);
  gpu     the sum of the CUDA kernels' own durations per call (torch.profiler), with their names;
  bench   do_bench's median (what the suite reports; the L2 is flushed before each call).

    python tests/gpu/profile_split.py tg_flash_decode:0 tg_rms_norm:0 ex_concat   (GPU)
    python tests/gpu/profile_split.py --cprofile tg_rope:0      (also: where the host time of each
                                                                 side goes, by function; with
                                                                 --cumtime: sorted by cumulative time)
    python tests/gpu/profile_split.py --first tg_group_gemm:0   (also: the translation's first call,
                                                                 compiles and config searches, profiled)

An argument is a suite entry name (tests/gpu/suite.py), optionally `:k` for its k-th bench case
only (of the entry's own bench cases, where it takes some of its spec's); each case runs in the entry's first dtype.
"""
import cProfile
import io
import os
import pstats
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile
from triton.testing import do_bench

sys.path.insert(0, ".")
sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
from tests.gpu.suite import C2T_SUITE  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.suite import entry_bench_cases  # noqa: E402
from translator.harness.verify import (load_modules, make_args, raise_cutile_compiler_timeout,  # noqa: E402
                                      select_dtypes, set_cuda_allocator)


def measure(fn, n=50):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / n * 1e6
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            kernels[ev.name] = kernels.get(ev.name, 0.0) + ev.device_time / n
    bench = do_bench(fn, return_mode="median") * 1e3
    return host, wall, sum(kernels.values()), bench, kernels


def host_profile(fn, n=200, sort="tottime", top=22):
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats(sort).print_stats(top)
    return "\n".join("      " + line for line in s.getvalue().splitlines()[6:] if line.strip())


def main():
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()      # TileGym's 5 s (group_gemm) runs out on a fresh machine
    with_cprofile, first = "--cprofile" in sys.argv, "--first" in sys.argv
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
            if first:
                fn, a = getattr(trans, sp.entry), clone_args(args)
                t0 = time.perf_counter()
                prof = host_profile(lambda: fn(*a), n=1, sort="cumtime", top=40)
                print(f"  Triton first call {time.perf_counter() - t0:.2f} s:\n{prof}", flush=True)
            for side, mod in (("cuTile", orig), ("Triton", trans)):
                fn = getattr(mod, sp.entry)
                a = clone_args(args)
                host, wall, gpu, bench, kernels = measure(lambda: fn(*a))
                top = ", ".join(f"{k[:60]} {v:.1f}" for k, v in sorted(kernels.items(), key=lambda kv: -kv[1])[:4])
                print(f"  {side:6s} host {host:8.1f} | wall {wall:8.1f} us/call | gpu {gpu:8.1f} us/call | "
                      f"do_bench {bench:8.1f} us"
                      f" | {top}", flush=True)
                if with_cprofile:
                    print(host_profile(lambda: fn(*a), sort="cumtime" if "--cumtime" in sys.argv else "tottime",
                                       top=40 if "--cumtime" in sys.argv else 22), flush=True)


if __name__ == "__main__":
    main()
