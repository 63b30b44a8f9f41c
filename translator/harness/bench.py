"""GPU timing with triton.testing.do_bench (warm-up, median, current stream)."""
from __future__ import annotations

import contextlib
import gc
from dataclasses import asdict, dataclass
from typing import Callable

COPY_BYTES = 1 << 30            # 1 GiB tensor for the device-to-device copy reference


@dataclass
class Timing:
    label: str
    case: dict
    dtype: str
    t_cutile_ms: float | None = None
    t_triton_ms: float | None = None
    ratio: float | None = None           # t_cuTile / t_Triton: > 1 means the Triton code is faster
    gbps_cutile: float | None = None
    gbps_triton: float | None = None
    tflops_cutile: float | None = None
    tflops_triton: float | None = None
    peers: dict = None                  # label -> {"ms": median, "ratio": t_peer / t_Triton}
    # device time alone: CUDA-graph replays (METHOD.md: how to time short launches); the host's
    # launch work, which do_bench above includes when it is longer than the kernel, is left out
    t_cutile_graph_ms: float | None = None
    t_triton_graph_ms: float | None = None
    ratio_graph: float | None = None
    # short rows (either side under SHORT_MS): each side timed REPEATS times, alternately, and the
    # medians reported; the smallest and largest ratio of the paired runs show the noise
    repeats: int = 1
    ratio_spread: list | None = None
    runs_cutile_ms: list | None = None      # each side's runs, in order (a bimodal side shows here)
    runs_triton_ms: list | None = None
    # short rows: the host's time per call, each side (a loop of calls without synchronizing;
    # the lowest of HOST_RUNS alternating runs). On such rows do_bench times the device while the
    # host keeps ahead of the GPU and the host when it falls behind
    # (docs/decisions/029-bench-short-rows.md); this says how far apart the two sides' hosts are
    host_us_cutile: float | None = None
    host_us_triton: float | None = None
    # memory-bound rows: a torch clone moving the row's bytes (half read, half written), timed
    # like the row. A short row cannot reach the 1 GiB copy's bandwidth (launch, ramp-up and tail
    # are a larger share of it); this says what a plain copy of its size reaches
    gbps_copy_same: float | None = None
    error: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def cuda_ready(device: str) -> bool:
    if not str(device).startswith("cuda"):
        return False
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


@contextlib.contextmanager
def _gc_paused():
    """Python's garbage collector paused, as timeit pauses it: a collection in the middle of a
    short (host-bound) row's calls lands on whichever side happens to be running, and is noise in
    its ratio. (No gc.collect() first: it takes ~90 ms in a process with torch loaded.)"""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def time_ms(fn: Callable[[], object], *, warmup: int = 25, rep: int = 100) -> float:
    """Median milliseconds of fn() on the current stream (triton.testing.do_bench), garbage
    collector paused."""
    from triton.testing import do_bench
    with _gc_paused():
        return float(do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))


def host_us(fn: Callable[[], object], n: int = 200) -> float | None:
    """Host microseconds per call of fn(): n calls without synchronizing (the device's queue
    absorbs them), timed on the host clock, garbage collector paused. None off CUDA."""
    import time
    import torch
    if not torch.cuda.is_available():
        return None
    fn()
    torch.cuda.synchronize()
    with _gc_paused():
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        us = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    return us


def graph_time_ms(fn: Callable[[], object]) -> float | None:
    """Median milliseconds of one call replayed from a captured CUDA graph (device time without
    the host's launch work); None when the call cannot be captured."""
    from triton.testing import do_bench_cudagraph
    try:
        fn()                              # tuning, compilation and caches before the capture
        return float(do_bench_cudagraph(fn, return_mode="median"))
    except Exception:                     # noqa: BLE001 - not capturable: reported as missing
        return None


def copy_bandwidth_gbps(device: str = "cuda", nbytes: int = COPY_BYTES) -> dict:
    """Device-to-device copy bandwidth (torch clone of a 1 GiB tensor), counting read + write."""
    import torch
    x = torch.empty(nbytes // 4, dtype=torch.float32, device=device)
    ms = time_ms(lambda: x.clone())
    del x
    torch.cuda.empty_cache()
    return {"bytes": nbytes, "ms": ms, "gbps": 2 * nbytes / (ms * 1e-3) / 1e9,
            "rule": "torch clone of a 1 GiB tensor, bytes read + written / median time"}


def same_size_copy_gbps(nbytes: int, device: str = "cuda") -> float | None:
    """Bandwidth (read + write) of a torch clone that moves `nbytes` in all, timed as the bench
    rows are (do_bench, L2 flushed): the copy reference for a row of that size. None off CUDA."""
    import torch
    if not cuda_ready(device) or nbytes < 8:
        return None
    x = torch.empty(max(nbytes // 8, 1), dtype=torch.float32, device=device)
    ms = time_ms(lambda: x.clone())
    return 2 * x.numel() * 4 / (ms * 1e-3) / 1e9


def _rate(amount, ms, scale):
    if amount is None or not ms:
        return None
    return float(amount) / (ms * 1e-3) / scale


# a call this short is bound by the host's Python, whose jitter is large (TileGym flash_decode at
# batch 1: about 100-130 us of host code per call around 9-27 us of device work; its KV=4096 row,
# 0.11-0.14 ms and so timed once under the old 0.1 ms bound, came out at 0.84 of cuTile in the
# tenth session and 0.78 in the eleventh: docs/decisions/029-bench-short-rows.md)
SHORT_MS = 0.25
REPEATS = 5             # do_bench runs per side for a short row, cuTile and Triton alternating
HOST_RUNS = 3           # host-time runs per side for a short row, alternating


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _repeat_short(t: Timing, orig, trans):
    """A short row's timing again, REPEATS runs per side, alternating which side goes first, so
    that drift (clocks, the host's load) falls on both; the medians replace the single runs. Then
    each side's host time per call, HOST_RUNS runs alternating, the lowest kept."""
    cut, tri = [t.t_cutile_ms], [t.t_triton_ms]
    for k in range(1, REPEATS):
        pair = (trans, orig) if k % 2 else (orig, trans)
        ms = [time_ms(f) for f in pair]
        cut.append(ms[1] if k % 2 else ms[0])
        tri.append(ms[0] if k % 2 else ms[1])
    ratios = [c / r for c, r in zip(cut, tri)]
    t.t_cutile_ms, t.t_triton_ms, t.repeats = _median(cut), _median(tri), REPEATS
    t.runs_cutile_ms, t.runs_triton_ms = cut, tri
    t.ratio_spread = [min(ratios), max(ratios)]
    hosts = {orig: [], trans: []}
    for k in range(HOST_RUNS):
        for f in ((trans, orig) if k % 2 else (orig, trans)):
            hosts[f].append(host_us(f))
    if all(x is not None for xs in hosts.values() for x in xs):
        t.host_us_cutile, t.host_us_triton = min(hosts[orig]), min(hosts[trans])


def bench_case(label: str, case: dict, dtype, orig_fn: Callable, trans_fn: Callable, args: tuple,
               *, bytes_fn=None, flops_fn=None, clone=None, peers=None) -> Timing:
    """Time the original, the translated entry and each peer (label -> fn) on their own copies of args."""
    from .tolerance import dtype_name
    t = Timing(label, dict(case), dtype_name(dtype))
    a1 = clone(args) if clone else args
    a2 = clone(args) if clone else args
    try:
        t.t_cutile_ms = time_ms(lambda: orig_fn(*a1))
    except Exception as exc:          # noqa: BLE001
        t.error = f"original failed while timing: {type(exc).__name__}: {exc}"
    try:
        t.t_triton_ms = time_ms(lambda: trans_fn(*a2))
    except Exception as exc:          # noqa: BLE001
        t.error += f"translated failed while timing: {type(exc).__name__}: {exc}"
    if t.t_cutile_ms and t.t_triton_ms:
        if min(t.t_cutile_ms, t.t_triton_ms) < SHORT_MS:
            _repeat_short(t, lambda: orig_fn(*a1), lambda: trans_fn(*a2))
        t.ratio = t.t_cutile_ms / t.t_triton_ms
        t.t_cutile_graph_ms = graph_time_ms(lambda: orig_fn(*a1))
        t.t_triton_graph_ms = graph_time_ms(lambda: trans_fn(*a2))
        if t.t_cutile_graph_ms and t.t_triton_graph_ms:
            t.ratio_graph = t.t_cutile_graph_ms / t.t_triton_graph_ms
    t.peers = {}
    for name, fn in (peers or {}).items():
        a3 = clone(args) if clone else args
        try:
            ms = time_ms(lambda: fn(*a3))
            t.peers[name] = {"ms": ms, "ratio": ms / t.t_triton_ms if t.t_triton_ms else None}
        except Exception as exc:      # noqa: BLE001 - a broken peer is reported, not fatal
            t.peers[name] = {"ms": None, "ratio": None, "error": f"{type(exc).__name__}: {exc}"}
    nbytes = bytes_fn(case, dtype) if bytes_fn else None
    flops = flops_fn(case, dtype) if flops_fn else None
    t.gbps_cutile, t.gbps_triton = _rate(nbytes, t.t_cutile_ms, 1e9), _rate(nbytes, t.t_triton_ms, 1e9)
    t.tflops_cutile, t.tflops_triton = _rate(flops, t.t_cutile_ms, 1e12), _rate(flops, t.t_triton_ms, 1e12)
    if nbytes and t.gbps_triton:
        try:
            t.gbps_copy_same = same_size_copy_gbps(int(nbytes))
        except Exception:             # noqa: BLE001 - out of memory etc.: the column stays empty
            t.gbps_copy_same = None
    return t


def geomean(values) -> float | None:
    import math
    vals = [v for v in values if v and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))
