"""Short bench rows (a side under 0.1 ms, host-bound) are timed several times per side with the
sides alternating, and their medians reported with the range of the paired ratios; long rows are
timed once. No GPU: do_bench and the graph replay are stand-ins."""
import importlib

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
