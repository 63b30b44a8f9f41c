"""cuda.tile.tune as the shim serves it: exhaustive_search over the translation's launches.

Each config is launched once (to compile), then timed: by `_tune._benchmark(stream, grid, kernel,
args)` (this process: one warm-up launch, then the mean of 3), or, with `single_run_timeout_sec`,
by `_tune.benchmark_with_timeout(...)` (also `_tune_utils`'), which runs the same in a child process
(tune_worker.py) and kills it when the launches run past the limit: a config whose kernel never
finishes is reported as a TileLaunchTimeoutError failure, as cuTile reports it, instead of hanging
the search. The child gets copies of the arguments, and what its launches write is copied back
(not when it was killed); the limit counts from the child's start-up being done, so the first
launch's compile is in it.
Both are looked up at each call, where tests that fake timings replace them. Configs that fail
are listed in `failures`; no L2 flush, and no Top-K convergence (each config is timed once).
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

from .capture import ShimUndefinedName
from .kernel import ShimKernel, ShimTranslationError, ShimCaptureError

_REPEATS = 3


class TileLaunchTimeoutError(RuntimeError):
    """A benchmarked launch ran past `single_run_timeout_sec`."""


class Measurement:
    def __init__(self, config, mean_us, num_samples, error_margin_us=0.0):
        self.config, self.mean_us, self.num_samples, self.error_margin_us = config, mean_us, num_samples, error_margin_us

    def __repr__(self):
        return f"Measurement(config={self.config!r}, mean_us={self.mean_us:.2f})"


class TuningResult:
    __class_getitem__ = classmethod(lambda cls, item: cls)     # (TuningResult[T] in annotations)

    def __init__(self, best, successes, failures):
        self.best, self.successes, self.failures = best, tuple(successes), tuple(failures)

    def __str__(self):
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        lines += [f"{'*' if m is self.best else ' '} {m.config}: {m.mean_us:.1f} us"
                  for m in sorted(self.successes, key=lambda m: m.mean_us)]
        lines += [f"    {c}: {t.__name__}: {msg.splitlines()[0] if msg else ''}" for c, t, msg in self.failures]
        return "\n".join(lines)


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def benchmark(stream, grid, kernel, args) -> float:
    """Mean microseconds of a launch (after one warm-up launch), in this process."""
    kernel.launch(stream, tuple(grid), tuple(args))
    _sync()
    t0 = time.perf_counter()
    for _ in range(_REPEATS):
        kernel.launch(stream, tuple(grid), tuple(args))
    _sync()
    return (time.perf_counter() - t0) / _REPEATS * 1e6


def benchmark_with_timeout(stream, grid, kernel, args, timeout_sec) -> tuple:
    """(mean microseconds, wall seconds) of the launches `benchmark` makes, run in a child process
    that is killed after `timeout_sec` (TileLaunchTimeoutError). The kernel is translated here."""
    launcher, args = kernel.prepared(tuple(args))
    payload = pickle.dumps((sys.modules[launcher.__module__].__file__, launcher.__name__, tuple(grid), args, _REPEATS,
                            bool(sys.modules.get("translator.shim.cpu") and sys.modules["translator.shim.cpu"]._installed)))
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    child = subprocess.Popen([sys.executable, "-m", "translator.shim.tune_worker"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        child.stdin.write(payload)
        child.stdin.close()
        child.stdin = None      # (communicate() below then only reads)
        ready = child.stdout.readline()         # (its imports and the module's load: not timed)
        if ready.strip() != b"READY":
            child.wait(timeout=60)
            raise RuntimeError("the benchmark process failed before launching: " + child.stderr.read().decode()[-2000:])
        start = time.perf_counter()
        try:
            out, err = child.communicate(timeout=timeout_sec)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise TileLaunchTimeoutError(f"CUDA kernel launch exceeded timeout {timeout_sec} sec "
                                         "(cutile2triton shim: the benchmark process was killed)") from None
        wall = time.perf_counter() - start
        if child.returncode != 0:
            raise RuntimeError("the benchmark process failed: " + err.decode()[-2000:])
        us, written = pickle.loads(out)
        _copy_back(args, written)
        return us, wall
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _copy_back(mine, theirs):
    """The child's arguments after its launches, copied into this process's tensors (so what the
    launches wrote is seen here, as with cuTile's benchmark process, which shares the memory)."""
    import torch
    if isinstance(mine, torch.Tensor):
        with torch.no_grad():
            mine.copy_(theirs)
    elif isinstance(mine, (tuple, list)):
        for a, b in zip(mine, theirs):
            _copy_back(a, b)


def exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, *, quiet=False,
                      single_run_timeout_sec=None, flush_l2=True):
    """cuda.tile.tune.exhaustive_search: each config launched and timed (see the module's doc),
    the fastest kept."""
    configs = list(search_space)
    if not configs:
        raise ValueError("Search space is empty.")
    tune_mod = _IMPL        # (tests replace its _benchmark)
    successes, failures = [], []
    for cfg in configs:
        try:
            k = kernel if isinstance(kernel, ShimKernel) else kernel(cfg)
            if hints_fn is not None:
                k = k.replace_hints(**hints_fn(cfg))
            grid = tuple(grid_fn(cfg))
            if single_run_timeout_sec is None:
                us = tune_mod._benchmark(stream, grid, k, tuple(args_fn(cfg)))
            else:
                us, _wall = tune_mod.benchmark_with_timeout(stream, grid, k, tuple(args_fn(cfg)), single_run_timeout_sec)
            successes.append(Measurement(cfg, us, _REPEATS))
        except ShimUndefinedName as e:      # (cuTile's compiler rejects the kernel: a failed config)
            failures.append((cfg, type(e), str(e)))
        except (ShimTranslationError, ShimCaptureError):
            raise       # the translation's limits are not the config's: never hidden as a failure
        except Exception as e:  # a config that fails to compile or run is reported, as cuTile does
            failures.append((cfg, type(e), str(e)))
    if not successes:
        cfg, kind, msg = failures[0]
        raise ValueError(f"No valid config found in search space. The first config {cfg!r} failed with "
                         f"{kind.__name__}: {msg}")
    best = min(successes, key=lambda m: m.mean_us)
    result = TuningResult(best, successes, failures)
    if not quiet:
        print(result)
    return result


_IMPL = None                # cuda.tile.tune._tune as served (modules())


def modules(new_module):
    """{name: module} of cuda.tile.tune and the two submodules tests replace functions of."""
    global _IMPL
    tune = new_module("cuda.tile.tune", "cuda.tile.tune served by the cutile2triton shim.")
    tune.__dict__.update(exhaustive_search=exhaustive_search, TuningResult=TuningResult, Measurement=Measurement)
    impl = new_module("cuda.tile.tune._tune", "the shim's exhaustive_search and its timing hook")
    impl.__dict__.update(exhaustive_search=exhaustive_search, TuningResult=TuningResult, Measurement=Measurement,
                         _benchmark=benchmark, benchmark_with_timeout=benchmark_with_timeout)
    utils = new_module("cuda.tile.tune._tune_utils", "the shim's benchmark in a child process")
    utils.__dict__.update(benchmark_with_timeout=benchmark_with_timeout, TileLaunchTimeoutError=TileLaunchTimeoutError,
                          _benchmark=benchmark)
    tune._tune, tune._tune_utils = impl, utils
    _IMPL = impl
    return {"cuda.tile.tune": tune, "cuda.tile.tune._tune": impl, "cuda.tile.tune._tune_utils": utils}
