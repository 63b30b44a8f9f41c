"""Short bench rows (a side under bench.SHORT_MS, 0.25 ms: host-bound) are timed several times
per side with the sides alternating, and their medians reported with the range of the paired
ratios; long rows are timed once. No GPU: do_bench and the graph replay are stand-ins."""
import importlib

import pytest

bench = importlib.import_module("translator.harness.bench")


def _timer(monkeypatch, times):
    """time_ms returns the next time of the side whose function it is given."""
    calls = []

    def time_ms(fn, **kw):
        side = fn()
        calls.append(side)
        return times[side].pop(0)
    monkeypatch.setattr(bench, "time_ms", time_ms)
    monkeypatch.setattr(bench, "graph_time_ms", lambda fn: None)
    return calls


def test_short_rows_take_medians_of_alternating_runs(monkeypatch):
    calls = _timer(monkeypatch, {"c": [0.05, 0.02, 0.03, 0.04, 0.03], "t": [0.06, 0.03, 0.03, 0.05, 0.02]})
    t = bench.bench_case("row", {}, "float16", lambda: "c", lambda: "t", ())
    assert calls == ["c", "t", "t", "c", "c", "t", "t", "c", "c", "t"]
    assert (t.t_cutile_ms, t.t_triton_ms, t.repeats) == (0.03, 0.03, 5)
    assert t.ratio == 1.0
    assert t.ratio_spread == [min(c / r for c, r in zip([0.05, 0.02, 0.03, 0.04, 0.03], [0.06, 0.03, 0.03, 0.05, 0.02])),
                              1.5]


def test_long_rows_are_timed_once(monkeypatch):
    calls = _timer(monkeypatch, {"c": [0.5], "t": [0.4]})
    t = bench.bench_case("row", {}, "float16", lambda: "c", lambda: "t", ())
    assert calls == ["c", "t"] and t.repeats == 1 and t.ratio_spread is None
    assert t.ratio == 0.5 / 0.4


def test_spread_is_shown_next_to_the_ratio(monkeypatch):
    from translator.harness import suite
    _timer(monkeypatch, {"c": [0.05, 0.02, 0.03, 0.04, 0.03], "t": [0.06, 0.03, 0.03, 0.05, 0.02]})
    t = bench.bench_case("N=4", {}, "float16", lambda: "c", lambda: "t", ()).to_dict()
    rows = suite.rows_of([{"name": "k", "timings": [t], "bound": "compute"}])
    md = suite.render_markdown([], rows, "cmd")
    assert "| k | N=4 | float16 | 0.03 | 0.03 | **1** (0.67-1.50) |" in md


def test_a_low_short_row_lists_each_sides_runs(monkeypatch):
    """Below 0.85, a short row's check names each side's do_bench runs in the order they ran: a side
    whose runs fall in two clusters (device and host mode) shows as such."""
    from translator.harness import suite
    _timer(monkeypatch, {"c": [0.020, 0.021, 0.020, 0.045, 0.020], "t": [0.035, 0.036, 0.021, 0.035, 0.020]})
    t = bench.bench_case("N=4", {}, "float16", lambda: "c", lambda: "t", ()).to_dict()
    assert t["runs_cutile_ms"] == [0.020, 0.021, 0.020, 0.045, 0.020] and len(t["runs_triton_ms"]) == 5
    md = suite.render_markdown([], suite.rows_of([{"name": "k", "timings": [t], "bound": "compute"}]), "cmd")
    assert "do_bench runs us cuTile 20.0 21.0 20.0 45.0 20.0 / Triton 35.0 36.0 21.0 35.0 20.0" in md


def test_memory_rows_are_compared_with_a_copy_of_their_own_size(monkeypatch):
    """A row with a byte count is timed next to a clone moving as many bytes; the suite shows the
    row's share of that copy next to its share of the 1 GiB copy, for memory-bound rows only."""
    from translator.harness import suite
    _timer(monkeypatch, {"c": [0.5], "t": [0.4]})
    asked = []
    monkeypatch.setattr(bench, "same_size_copy_gbps", lambda n: asked.append(n) or 2000.0)
    t = bench.bench_case("N=4", {}, "float16", lambda: "c", lambda: "t", (),
                         bytes_fn=lambda case, dt: 600e6).to_dict()
    assert asked == [600000000] and t["gbps_copy_same"] == 2000.0 and t["gbps_triton"] == 1500.0
    reps = [{"name": "k", "status": "pass", "timings": [t], "bound": "memory", "copy_bandwidth": {"gbps": 4000.0}},
            {"name": "m", "status": "pass", "timings": [t], "bound": "compute", "copy_bandwidth": {"gbps": 4000.0}}]
    rows = suite.rows_of(reps)
    assert [(r["copy_share"], r["copy_same_share"]) for r in rows] == [(0.375, 0.75), (None, None)]
    md = suite.render_markdown(reps, rows, "cmd")
    assert "| 38% | 75% |" in md
    # cuTile's rate: 600e6 bytes in 0.5 ms = 1200 GB/s, 30% of the copy: the translation (38%) is
    # as short as cuTile's original
    assert "| k | N=4 | float16 | 38% | 75% | 30% | as cuTile's original |" in md and "0 of them reach 85%" in md


@pytest.mark.parametrize("t_cutile, t_triton, same, why", [
    (0.5, 0.4, 1500.0, "its size"),                                # 100% of the same-size copy
    (0.5, 0.4, 2000.0, "as cuTile's original"),                    # cuTile 30%, translation 38%
    (0.4, 0.41, 2000.0, "as cuTile's original"),                   # within 5% of cuTile's rate
    (0.3, 0.4, 2000.0, "below cuTile (0.75 of its rate)"),         # cuTile 50%, translation 38%
    (0.16, 0.4, 2000.0, "below cuTile, which reaches 85%"),        # cuTile 94%
])
def test_short_memory_rows_say_why(monkeypatch, t_cutile, t_triton, same, why):
    from translator.harness import suite
    _timer(monkeypatch, {"c": [t_cutile] * 5, "t": [t_triton] * 5})     # (short rows: 5 runs a side)
    monkeypatch.setattr(bench, "same_size_copy_gbps", lambda n: same)
    t = bench.bench_case("N=4", {}, "float16", lambda: "c", lambda: "t", (),
                         bytes_fn=lambda case, dt: 600e6).to_dict()
    reps = [{"name": "k", "status": "pass", "timings": [t], "bound": "memory", "copy_bandwidth": {"gbps": 4000.0}}]
    md = suite.render_markdown(reps, suite.rows_of(reps), "cmd")
    assert f"| {why} |" in md
    assert f"{1 if why.startswith('below') else 0} row" in md


def test_rows_without_bytes_time_no_copy(monkeypatch):
    _timer(monkeypatch, {"c": [0.5], "t": [0.4]})
    asked = []
    monkeypatch.setattr(bench, "same_size_copy_gbps", lambda n: asked.append(n) or 2000.0)
    t = bench.bench_case("N=4", {}, "float16", lambda: "c", lambda: "t", ())
    assert asked == [] and t.gbps_copy_same is None


def test_timing_pauses_the_garbage_collector_and_restores_it(monkeypatch):
    """time_ms runs do_bench with gc off (as timeit does) and leaves gc as it found it, also when
    the timed function raises."""
    import gc
    import triton.testing
    seen = []

    def do_bench(fn, **kw):
        seen.append(gc.isenabled())
        fn()
        return 1.5
    monkeypatch.setattr(triton.testing, "do_bench", do_bench)
    assert gc.isenabled()
    assert bench.time_ms(lambda: None) == 1.5
    assert seen == [False] and gc.isenabled()

    def boom():
        raise RuntimeError("x")
    try:
        bench.time_ms(boom)
    except RuntimeError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        bench.time_ms(lambda: None)
        assert not gc.isenabled()       # it was off before: stays off
    finally:
        gc.enable()



def test_short_rows_record_each_sides_lowest_host_time(monkeypatch):
    """A short row also gets each side's host time per call: the lowest of HOST_RUNS runs, the
    sides alternating; a side whose host time cannot be taken (no CUDA) leaves both empty."""
    _timer(monkeypatch, {"c": [0.05] * 5, "t": [0.05] * 5})
    host = {"c": [30.0, 28.0, 31.0], "t": [40.0, 41.0, 39.0]}
    order = []

    def host_us(fn):
        side = fn()
        order.append(side)
        return host[side].pop(0)
    monkeypatch.setattr(bench, "host_us", host_us)
    t = bench.bench_case("row", {}, "float16", lambda: "c", lambda: "t", ())
    assert (t.host_us_cutile, t.host_us_triton) == (28.0, 39.0)
    assert order[-6:] == ["c", "t", "t", "c", "c", "t"]
    _timer(monkeypatch, {"c": [0.05] * 5, "t": [0.05] * 5})
    monkeypatch.setattr(bench, "host_us", lambda fn: None)
    t = bench.bench_case("row", {}, "float16", lambda: "c", lambda: "t", ())
    assert (t.host_us_cutile, t.host_us_triton) == (None, None)
