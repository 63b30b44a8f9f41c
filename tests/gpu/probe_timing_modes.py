"""GPU experiment (not part of the product): why host-bound bench rows swing between runs.

In the tenth session, one tg_rms_norm row (4096x8192) came out at 0.58 in fp16 and 1.71 in bf16 in
the same run, each side's five do_bench medians falling near either 44 or 75 us. This prints, per
suite entry and bench case, the raw times behind such a row:

- the device time of do_bench's L2 flush (a 256 MB memset before every timed call) and of one
  call (events around it, host work excluded as far as the queue allows), and the host time of
  one call (a loop of calls without synchronizing): when host time per call is close to flush +
  call device time, do_bench's events measure sometimes the device and sometimes the host;
- ROUNDS alternating do_bench runs per side (rep 30 ms), unpinned and with the timing thread pinned
  to one CPU (os.sched_setaffinity), all times listed, so a bimodal side shows as two clusters.

    python tests/gpu/probe_timing_modes.py tg_rms_norm:2 tg_flash_decode:1 tg_dropout:0
"""
import os
import sys

import torch
import triton
from triton.testing import do_bench

sys.path.insert(0, ".")
from tests.gpu.probe_entries import entry_modules, gpu_setup  # noqa: E402
from translator.harness.bench import host_us  # noqa: E402 (the bench's: garbage collector paused)
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.suite import entry_bench_cases  # noqa: E402
from translator.harness.verify import make_args, select_dtypes  # noqa: E402

ROUNDS = 8


def device_us(fn, n=20):
    """Median device time of fn() with events around each call, the queue kept full by a 2 ms
    sleep kernel first (so host launch work is hidden)."""
    times = []
    for _ in range(n):
        torch.cuda._sleep(2_000_000)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return sorted(times)[n // 2]


def rounds(fa, fb):
    a, b = [], []
    for k in range(ROUNDS):
        for side, f in ((b, fb), (a, fa)) if k % 2 else ((a, fa), (b, fb)):
            side.append(do_bench(f, rep=30, return_mode="median") * 1e3)
    return a, b


def fmt(xs):
    return " ".join(f"{x:.1f}" for x in xs)


def main():
    gpu_setup()
    cache = triton.runtime.driver.active.get_empty_cache_for_benchmark()
    flush = device_us(lambda: cache.zero_())
    print(f"L2 flush (256 MB memset): device {flush:.1f} us, host {host_us(lambda: cache.zero_()):.1f} us",
          flush=True)
    cpus = sorted(os.sched_getaffinity(0))
    for arg in sys.argv[1:]:
        name, which, entry, _, orig, sp, trans = entry_modules(arg)
        for dt in select_dtypes(sp, entry.get("dtypes"))[:2]:
            for case in entry_bench_cases(entry, sp, which):
                args = make_args(sp, case, dt, 0, "cuda")
                a1, a2 = clone_args(args), clone_args(args)
                fc, ft = (lambda: getattr(orig, sp.entry)(*a1)), (lambda: getattr(trans, sp.entry)(*a2))
                print(f"== {name} {case} {str(dt)[6:]}", flush=True)
                for side, f in (("cuTile", fc), ("Triton", ft)):
                    print(f"  {side}: device {device_us(f):.1f} us/call, host {host_us(f):.1f} us/call", flush=True)
                c, t = rounds(fc, ft)
                print(f"  unpinned do_bench us  cuTile [{fmt(c)}]  Triton [{fmt(t)}]", flush=True)
                old = os.sched_getaffinity(0)
                os.sched_setaffinity(0, {cpus[-1]})
                try:
                    c, t = rounds(fc, ft)
                finally:
                    os.sched_setaffinity(0, old)
                print(f"  pinned (cpu {cpus[-1]}) do_bench us  cuTile [{fmt(c)}]  Triton [{fmt(t)}]", flush=True)


if __name__ == "__main__":
    main()
