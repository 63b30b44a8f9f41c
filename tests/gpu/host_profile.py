"""GPU experiment (not part of the product): where the host time of a call goes, cuTile vs Triton.

    source .gpu/setup.sh; export PYTHONPATH=$PWD/.corpus/src:$PYTHONPATH
    python tests/gpu/host_profile.py flash_decode:0 mla_decoding:2 examples/concat.py:0 --profile

An argument is a TileGym op (`.corpus/src/tilegym/ops/cutile/<op>.py` with its spec in
tests/gpu/tilegym/) or an example file (its C2T_SPEC), then `:` and bench_cases indices. For each
case and side it prints microseconds per call: `host` (the Python call alone: 300 calls queued
without a sync), `wall` (the same 300 calls until the device is done) and `device` (a CUDA-graph
replay, harness.bench.graph_time_ms). A short kernel is host-bound when host > device.
`--profile` adds a cProfile of 300 translated calls (the 25 functions with the most own time);
`--first` profiles the translated side's first call (compiles and config searches) before that.
"""
import cProfile
import io
import pstats
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / ".corpus" / "src")]

import torch  # noqa: E402

from translator.harness.bench import graph_time_ms  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.spec import load_spec  # noqa: E402
from translator.harness.verify import make_args, raise_cutile_compiler_timeout, set_cuda_allocator  # noqa: E402

N = 300


def per_call(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(N):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    return (t1 - t0) / N * 1e6, (t2 - t0) / N * 1e6


def load(target):
    if target.endswith(".py"):
        path, spec = ROOT / target, None
    else:
        path, spec = ROOT / ".corpus/src/tilegym/ops/cutile" / f"{target}.py", \
            ROOT / "tests/gpu/tilegym" / f"{target}_spec.py"
    orig = load_module(path)
    sp = load_spec(orig, spec)
    code, _ = translate(path)
    mod, _ = load_translated(code, path)
    rebind_cutile_imports(mod)
    return orig, mod, sp


def main(argv):
    profile = "--profile" in argv
    first = "--first" in argv
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()
    for arg in [a for a in argv if not a.startswith("--")]:
        target, _, which = arg.partition(":")
        orig, mod, sp = load(target)
        cases = sp.bench_cases or sp.gpu_cases or sp.cases
        for i in ([int(x) for x in which.split(",")] if which else range(len(cases))):
            case, dt = cases[i], getattr(torch, sp.dtypes[0])
            args = make_args(sp, case, dt, 0, "cuda")
            row = [f"{target} {case} {sp.dtypes[0]}"]
            if first:       # the Triton side's first call (compiles, searches), profiled by cumulative time
                f = getattr(mod, sp.entry)
                pr = cProfile.Profile()
                t0 = time.perf_counter()
                pr.enable()
                f(*args)
                torch.cuda.synchronize()
                pr.disable()
                print(f"first Triton call: {time.perf_counter() - t0:.2f} s", flush=True)
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats("cumtime").print_stats(40)
                print("\n".join(s.getvalue().splitlines()[:60]), flush=True)
            for side, m in (("cuTile", orig), ("Triton", mod)):
                f = getattr(m, sp.entry)
                for _ in range(3):
                    f(*args)
                host, wall = per_call(lambda: f(*args))
                dev = graph_time_ms(lambda: f(*args))
                row.append(f"{side}: host {host:.1f} wall {wall:.1f} device "
                           f"{dev * 1e3 if dev else float('nan'):.1f} us")
            print(" | ".join(row), flush=True)
            if profile:
                f = getattr(mod, sp.entry)
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(N):
                    f(*args)
                pr.disable()
                torch.cuda.synchronize()
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
                print("\n".join(s.getvalue().splitlines()[:45]), flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main(sys.argv[1:])
