"""GPU experiment (not part of the product): why a bench row's CUDA-graph replay time differs from
its do_bench time. TileGym unsloth geglu [8, 4096, 8192] fp16 took 0.396 ms per call by do_bench
and 0.504 ms by graph replay on the Triton side (cuTile: 0.431 and 0.457), though both time one
elementwise kernel of about 0.4 ms, where host work cannot matter.

For each side this prints do_bench, the bench's graph replay (`graph_time_ms`: Triton's
do_bench_cudagraph, which captures the call on a side stream, unrolled), and the kernels the
profiler sees, with their mean device time, in three settings: calls on the current stream, one
graph replay of a single captured call, and a replay of the unrolled graph of 10 calls; and, without
the profiler, 10 calls back to back timed by events, in 5 rounds.

    python tests/gpu/probe_graph_replay.py tg_unsloth_geglu:1 tg_unsloth_swiglu:1
"""
import collections
import sys

import torch
from torch.profiler import ProfilerActivity, profile
from triton.testing import do_bench

sys.path.insert(0, ".")
from tests.gpu.probe_entries import back_to_back_us, entry_modules, gpu_setup  # noqa: E402
from translator.harness.bench import graph_time_ms  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.suite import entry_bench_cases  # noqa: E402
from translator.harness.verify import make_args, select_dtypes  # noqa: E402


def kernels(run):
    """{kernel name: (calls, mean device us)} of what run() launches, by the profiler."""
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    acc = collections.defaultdict(list)
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            acc[ev.name[:60]].append(ev.device_time)
    return {k: (len(v), sum(v) / len(v)) for k, v in acc.items()}


def captured(fn, calls):
    """A CUDA graph of `calls` calls of fn, captured on a side stream as do_bench_cudagraph does."""
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        torch.cuda.synchronize()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
    torch.cuda.synchronize()
    return g


def show(label, ks):
    body = "; ".join(f"{k} x{n} {us:.1f} us" for k, (n, us) in sorted(ks.items()))
    print(f"    {label}: {body}", flush=True)


def main():
    gpu_setup()
    for arg in sys.argv[1:]:
        name, which, entry, _, orig, sp, trans = entry_modules(arg)
        for dt in select_dtypes(sp, entry.get("dtypes"))[1:2]:
            for case in entry_bench_cases(entry, sp, which):
                args = make_args(sp, case, dt, 0, "cuda")
                print(f"== {name} {case} {str(dt)[6:]}", flush=True)
                for side, mod in (("cuTile", orig), ("Triton", trans)):
                    a = clone_args(args)
                    f = (lambda m=mod, a=a: getattr(m, sp.entry)(*a))
                    ms = do_bench(f, return_mode="median")
                    gms = graph_time_ms(f)
                    print(f"  {side}: do_bench {ms * 1e3:.1f} us, graph replay {gms * 1e3:.1f} us", flush=True)
                    b2b = " ".join(f"{x:.1f}" for x in back_to_back_us(f))
                    print(f"    10 calls back to back, 5 rounds (events, no profiler): {b2b} us per call", flush=True)
                    show("stream, 3 calls", kernels(lambda: [f() for _ in range(3)]))
                    g1 = captured(f, 1)
                    show("graph of 1 call, 3 replays", kernels(lambda: [g1.replay() for _ in range(3)]))
                    g10 = captured(f, 10)
                    show("graph of 10 calls, 1 replay", kernels(g10.replay))
                    del g1, g10
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
