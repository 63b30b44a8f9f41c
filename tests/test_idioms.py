"""Performance idioms in generated code (issue 4), each also executed under the interpreter."""
import torch

from pathlib import Path

import pytest

import translator
from golden_form import golden_form
from kernel_util import RT, build, compile_sm90, translate

IDIOMS = Path(__file__).resolve().parent / "idioms"
GOLDEN = Path(__file__).resolve().parent / "golden" / "idioms"


@pytest.mark.parametrize("src", sorted(IDIOMS.glob("*.py")), ids=lambda p: p.stem)
def test_idiom_golden(src):
    """Each idiom's generated Triton is checked in (tests/golden/idioms/, regenerate with
    `python tests/update_goldens.py`)."""
    res = translator.translate_file(src, translator.Options(source_name=f"tests/idioms/{src.name}"))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert golden_form(res.code) == (GOLDEN / src.name).read_text(), f"{src.name}: output differs from its golden"

DUAL = (IDIOMS / "dual_layout.py").read_text()


def test_layout_flag_gives_two_kernels_and_a_dispatching_launcher():
    code = translate(DUAL).code
    assert "def scale_t_transpose(" in code and "def scale_t_not_transpose(" in code
    t_kernel = code.split("def scale_t_transpose(")[1].split("@triton.jit")[0]
    f_kernel = code.split("def scale_t_not_transpose(")[1].split("def launch_scale_t")[0]
    # each kernel has only its own layout strategy, and no flag parameter
    assert "tl.trans(" in t_kernel and "tl.trans(" not in f_kernel
    assert "# x is (N, M)" in t_kernel and "# x is (N, M)" not in f_kernel
    assert "transpose: tl.constexpr" not in code
    assert "}[(bool(transpose),)]" in code


def test_dual_kernels_compute_both_layouts(tmp_path):
    mod = build(DUAL, tmp_path)
    x = torch.randn(13, 11)     # ragged: 2 row tiles of 8, one column tile of 16
    torch.testing.assert_close(mod.run(x, False), x * 2)
    torch.testing.assert_close(mod.run(x.t().contiguous(), True), x * 2)


def test_dual_kernels_compile_for_sm90(tmp_path):
    out = compile_sm90(DUAL, "run", "(torch.randn(13, 19), False)", tmp_path)
    assert "OK scale_t_not_transpose" in out
    out = compile_sm90(DUAL, "run", "(torch.randn(19, 13), True)", tmp_path)
    assert "OK scale_t_transpose" in out


def test_bool_constant_that_is_not_a_layout_flag_stays_one_kernel():
    code = translate("""
    ConstBool = ct.Constant[bool]

    @ct.kernel
    def k(x, T: ConstInt, RELU: ConstBool):
        t = ct.load(x, index=(0,), shape=(T,))
        if RELU:
            t = ct.maximum(t, 0.0)
        ct.store(x, index=(0,), tile=t)
    """).code
    assert "RELU: tl.constexpr" in code and "def k_RELU(" not in code


def test_launcher_sizes_num_warps_from_the_tiles():
    code = translate("""
    @ct.kernel
    def k(x, TM: ConstInt, TN: ConstInt):
        ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(TM, TN)))
    """).code
    assert "num_warps=_c2t_num_warps(TM * TN, dot=False)" in code


def test_cutile_autotune_search_runs_on_translated_kernels(tmp_path):
    """cuda.tile.tune.exhaustive_search + replace_hints + compiler_timeout, TileGym style."""
    mod = build("""
    from types import SimpleNamespace
    from cuda.tile.tune import exhaustive_search

    @ct.kernel(occupancy=2)
    def scale(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

    _cache = {}

    def run(x):
        y = torch.empty_like(x)
        n = x.shape[0]
        key = (n, x.dtype)
        if key not in _cache:
            configs = [SimpleNamespace(T=16), SimpleNamespace(T=32), SimpleNamespace(T=64)]
            with ct.compiler_timeout(5):
                result = exhaustive_search(configs, torch.cuda.current_stream(),
                                           lambda cfg: (ct.cdiv(n, cfg.T),), scale,
                                           lambda cfg: (x, y, cfg.T), lambda cfg: {"occupancy": 1}, quiet=True)
            best = result.best.config
            _cache[key] = (best, scale.replace_hints(occupancy=1))
        best, kern = _cache[key]
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, best.T),), kern, (x, y, best.T))
        return y
    """, tmp_path)
    x = torch.randn(100)
    torch.testing.assert_close(mod.run(x), x * 3)
    (best, _), = mod._cache.values()
    assert best.T in (16, 32, 64)
    code = open(mod.__file__).read()
    assert "result = _c2t_exhaustive_search(configs" in code and "contextlib.nullcontext()" in code


TUNED = (IDIOMS / "autotune_meta.py").read_text()


def test_exhaustive_search_becomes_triton_autotune_with_a_meta_grid(tmp_path, monkeypatch):
    """The tile size reaches the kernel as META from a triton.Config, and the grid is computed from
    the config META belongs to (seed section 2): every config's launch covers the whole array."""
    mod = build(TUNED, tmp_path)
    code = open(mod.__file__).read()
    assert "def _c2t_meta_scale(x, y, c, T, c2t_hints=None, c2t_grid=None):" in code and "meta=_c2t_meta_scale" in code
    import inspect      # (the running config's grid: the runtime's search, translator/runtime/search.py)
    assert 'tuned[lambda META: grids[running[0]]](*runtime)' in inspect.getsource(RT._c2t_autotune_round)
    assert "from translator.runtime.search import _c2t_exhaustive_search" in code
    seen = []
    real = mod.triton.autotune

    def spy(configs, key, **kw):
        seen.append([c.kwargs for c in configs])
        return real(configs, key, **kw)
    monkeypatch.setattr(mod.triton, "autotune", spy)
    grids = []
    real_kernel_run = mod.scale.run

    def run(*a, grid, **kw):
        grids.append((kw["T"], grid(dict(kw))))
        return real_kernel_run(*a, grid=grid, **kw)
    monkeypatch.setattr(mod.scale, "run", run)
    x, y = torch.randn(100), torch.zeros(100)
    res = mod.search(x, y, False)
    # (the loop-free kernel's coarsening arguments: one program each in a search)
    assert seen == [[{"T": t, "c2t_programs": 2 ** 31 - 1, "C2T_COARSEN": 1} for t in (16, 32, 64)]]
    assert {(t, g) for t, g in grids} == {(16, (7,)), (32, (4,)), (64, (2,))}   # grid follows META
    torch.testing.assert_close(y, x * 3.0)                                        # the best config's run
    assert res.best.config.T in (16, 32, 64) and len(res.successes) == 3 and not res.failures


def test_search_result_prints_like_cutiles(tmp_path, capsys):
    """The search prints its result as cuTile's exhaustive_search does (the configs by time, the best
    marked with *, how many failed), saying how each config was timed; str(result) and summary()
    give the same, with cuTile's top_k / bottom_k elision."""
    mod = build(TUNED.replace(", quiet=True)", ")"), tmp_path)
    x, y = torch.randn(100), torch.zeros(100)
    res = mod.search(x, y, False)
    out = capsys.readouterr().out
    assert out.startswith("exhaustive_search (triton.autotune): 3 succeeded, 0 failed")
    best = [line for line in out.splitlines() if line.startswith("* ")]
    assert best == [f"* {res.best.config}: {res.best.mean_us:.1f} us (one run)"]     # (the interpreter: one run)
    assert str(res) == res.summary() and str(res) in out
    M, R = RT._C2TMeasurement, RT._C2TTuningResult
    ms = [M(f"c{i}", float(i), 5) for i in range(14)]
    text = R(ms[3], ms[::-1], [("cx", RuntimeError, "out of resources\nmore"), ("cy", ValueError, "x" * 80)]).summary(
        top_k=10, bottom_k=2)
    lines = text.splitlines()
    assert lines[0] == "14 succeeded, 2 failed"
    assert lines[1] == "  c0 : 0.0 us (5 samples)" and lines[4] == "* c3 : 3.0 us (5 samples)"
    assert lines[11] == "    ... 2 more not shown" and lines[12].startswith("  c12:")
    assert lines[14:] == ["  2 failed:", "    cx: RuntimeError: out of resources",
                          "    cy: ValueError: " + "x" * 57 + "...", "Use .successes and .failures for full results."]
    # one row left out is shown instead
    assert "more not shown" not in R(ms[0], ms[:13], []).summary(top_k=10, bottom_k=2)


def test_exhaustive_search_with_config_dependent_runtime_args_times_each_launch(tmp_path, monkeypatch):
    mod = build(TUNED, tmp_path)
    monkeypatch.setattr(mod.triton, "autotune", lambda *a, **k: (_ for _ in ()).throw(AssertionError("autotuned")))
    x, y = torch.randn(100), torch.zeros(100)
    res = mod.search(x, y, True)          # the scalar differs per config: not expressible as one autotune
    assert len(res.successes) == 3 and res.best.config.T in (16, 32, 64)


def test_search_by_launch_on_the_gpu_takes_do_bench_median(tmp_path, monkeypatch):
    """On the GPU each launch is timed by do_bench's median, which is what the printed result says
    (do_bench's default is the mean), as Triton's autotuner times the other path."""
    import contextlib
    mod = build(TUNED, tmp_path)
    monkeypatch.setattr(mod.triton, "autotune", lambda *a, **k: (_ for _ in ()).throw(AssertionError("autotuned")))
    asked = []

    def do_bench(fn, **kw):
        asked.append(kw)
        fn()
        return 0.01 * len(asked)
    monkeypatch.setattr(mod.triton.testing, "do_bench", do_bench)
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(RT, "_c2t_any_cuda", lambda args: True)
    for where in (mod, RT):         # (the launcher's and the search's)
        monkeypatch.setattr(where, "_c2t_stream", lambda stream: contextlib.nullcontext())
    res = mod.search(torch.randn(100), torch.zeros(100), True)
    assert asked == [{"return_mode": "median"}] * 3
    assert [round(m.mean_us) for m in res.successes] == [10, 20, 30] and res.best.config.T == 16
    assert str(res).splitlines()[1] == "* namespace(T=16): 10.0 us (do_bench median)"


# ---------------------------------------------------------------- batched launches (seed section 5)
BATCH = (IDIOMS / "batched_launches.py").read_text()


def _count_launches(mod):
    """Wrap the plain and the batched launcher: list of launch sizes (1 = plain)."""
    calls = []
    plain, batch = mod.launch_add_k, mod.launch_add_k_batch4
    g = mod._c2t_batch_add_k.__globals__
    g["launch_add_k"] = lambda *a, **k: (calls.append(1), plain(*a, **k))[1]
    g["launch_add_k_batch4"] = lambda L, **k: (calls.append(len(L)), batch(L, **k))[1]
    return calls


def test_loop_of_launches_becomes_batched_launches(tmp_path):
    mod = build(BATCH, tmp_path)
    code = (tmp_path / f"{mod.__name__}.py").read_text()
    assert "slot = tl.program_id(1)" in code and "def add_k_batch4(" in code
    assert ".add((_c2t_host_cdiv(s.shape[0], t),), s, d, c, t)" in code and ".flush()" in code
    calls = _count_launches(mod)
    g = torch.Generator().manual_seed(0)
    base = torch.randn(2000, generator=g)
    # ragged sizes, a strided (non-contiguous) input, and outputs that are slices of one tensor
    srcs = [torch.randn(n, generator=g) for n in (5, 130, 64, 1, 300)] + [base[::3]]
    out = torch.zeros(sum(s.shape[0] for s in srcs))
    dsts = list(torch.split(out, [s.shape[0] for s in srcs]))
    mod.run(srcs, dsts, 0.5, [16] * 6)
    assert torch.equal(out, torch.cat(srcs) + 0.5)
    assert calls == [4, 2]                       # six launches in two


def test_batched_launches_keep_order_when_launches_share_written_memory(tmp_path):
    mod = build(BATCH, tmp_path)
    calls = _count_launches(mod)
    x = torch.arange(40, dtype=torch.float32)
    mod.run([x, x, x], [x, x, x], 1.0, [16, 16, 16])          # each launch reads what the last wrote
    assert torch.equal(x, torch.arange(40, dtype=torch.float32) + 3) and calls == [1, 1, 1]
    calls.clear()
    y = torch.zeros(40)
    mod.run([x, x], [y[:20], y[10:30]], 0.0, [16, 16])          # overlapping outputs: one at a time
    assert calls == [1, 1]


def test_batched_launches_check_a_launch_against_every_launch_of_the_group(tmp_path):
    # The group's conflicts are with its second launch, not its first: a later launch that reads
    # what the second wrote, or writes what the second read, starts a new group.
    mod = build(BATCH, tmp_path)
    calls = _count_launches(mod)
    a, b, d1, d2, d3 = (torch.randn(12) for _ in range(5))
    b0 = b.clone()
    mod.run([a, b, d2], [d1, d2, d3], 1.0, [16, 16, 16])       # reads what launch 2 wrote
    assert calls == [2, 1] and torch.equal(d3, (b0 + 1.0) + 1.0)
    calls.clear()
    a, b, c, d1, d2 = (torch.randn(12) for _ in range(5))
    b0 = b.clone()
    mod.run([a, b, c, a], [d1, d2, b, d1], 1.0, [16] * 4)       # writes what launch 2 read
    assert calls == [2, 2] and torch.equal(d2, b0 + 1.0) and torch.equal(b, c + 1.0)
    calls.clear()
    parts = torch.zeros(48).split(12)                           # disjoint slices of one tensor
    srcs = [torch.randn(12) for _ in range(4)]
    mod.run(srcs, list(parts), 1.0, [16] * 4)
    assert calls == [4] and all(torch.equal(p, s + 1.0) for p, s in zip(parts, srcs))


def test_batched_launches_split_groups_on_different_constants(tmp_path):
    mod = build(BATCH, tmp_path)
    calls = _count_launches(mod)
    srcs = [torch.randn(n) for n in (10, 20, 30, 40, 50)]
    dsts = [torch.empty_like(s) for s in srcs]
    mod.run(srcs, dsts, 2.0, [16, 16, 32, 32, 32])             # T differs: two specializations
    assert all(torch.equal(d, s + 2.0) for s, d in zip(srcs, dsts)) and calls == [2, 3]


def test_kernel_that_reads_its_grid_is_not_batched_and_says_why(tmp_path):
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        ct.store(x, index=(ct.bid(0),), tile=ct.full((T,), ct.num_blocks(0), dtype=ct.float32))

    def run(xs):
        for x in xs:
            ct.launch(torch.cuda.current_stream(), (2,), k, (x, 4))
    """)
    assert res.ok and "k_batch4" not in res.code and "launch_k((2,), x, 4)" in res.code
    notes = [d for d in res.diagnostics if d.code == "C2T207"]
    assert notes and "ct.num_blocks" in notes[0].message


HELPER_BATCH = """
def add_into(dst, src, i, c, T: ConstInt):
    ct.store(dst, index=(i,), tile=ct.load(src, index=(i,), shape=(T,), padding_mode=ct.PaddingMode.ZERO) + c)

@ct.kernel
def add_k(s, d, c: float, T: ConstInt):
    add_into(d, s, ct.bid(0), c, T)

def run(srcs, dsts, c, tiles):
    for s, d, t in zip(srcs, dsts, tiles):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(s.shape[0], t),), add_k, (s, d, c, t))
"""


def test_a_kernel_whose_helper_stores_is_batched_with_the_helpers_writes_checked(tmp_path):
    """The helper's store counts as the kernel's (its arrays' reads and writes are recorded), so
    launches are grouped and launches whose written memory overlaps are not."""
    mod = build(HELPER_BATCH, tmp_path)
    assert mod._c2t_batch_add_k().written == [1]             # (d, the second array, is written)
    calls = _count_launches(mod)
    srcs = [torch.randn(n) for n in (5, 130, 64)]
    dsts = [torch.zeros_like(s) for s in srcs]
    mod.run(srcs, dsts, 0.5, [16] * 3)
    assert calls == [3] and all(torch.equal(d, s + 0.5) for s, d in zip(srcs, dsts))
    calls.clear()
    x = torch.arange(40, dtype=torch.float32)
    mod.run([x, x], [x, x], 1.0, [16, 16])                     # each reads what the last wrote
    assert torch.equal(x, torch.arange(40, dtype=torch.float32) + 2) and calls == [1, 1]


def test_a_kernel_that_calls_another_modules_function_is_not_batched():
    res = translate("""
    from other_module import other_store

    @ct.kernel
    def k(x, T: ConstInt):
        other_store(x, ct.bid(0))

    def run(xs):
        for x in xs:
            ct.launch(torch.cuda.current_stream(), (2,), k, (x, 4))
    """)
    notes = [d for d in res.diagnostics if d.code == "C2T207"]
    assert "k_batch4" not in res.code and notes and "of another module" in notes[0].message


def test_batched_kernel_compiles_for_sm90(tmp_path):
    out = compile_sm90(BATCH, "run", "([torch.randn(100), torch.randn(50)], [torch.empty(100), torch.empty(50)], "
                                     "1.0, [32, 32])", tmp_path)
    assert "OK add_k_batch4" in out


def test_dot_kernel_launch_retries_with_fewer_stages_when_shared_memory_runs_out(tmp_path):
    """A tile config that needs more shared memory than the GPU has at Triton's default pipelining
    depth compiles again with fewer stages, remembered per Constant arguments."""
    import triton
    from test_spill_retry import SRC as ONE_DOT     # one T x T dot tile (mm) and its host `run`
    mod = build(ONE_DOT, tmp_path)
    tried = []

    class FakeKernel:
        def __getitem__(self, grid):
            def launch(*args, num_stages, **kw):
                tried.append(num_stages)
                if num_stages > 1:
                    raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")
            return launch
    mod.mm = FakeKernel()
    a = torch.zeros(16, 16)
    mod.run(a, a, a, 16)
    assert tried == [3, 2, 1]
    mod.run(a, a, a, 16)
    assert tried == [3, 2, 1, 1]                 # remembered for these Constant arguments
    mod.run(a, a, a, 32)
    assert tried[-3:] == [3, 2, 1]               # other tiles start again from the default

    class RegistersKernel(FakeKernel):
        def __getitem__(self, grid):
            def launch(*args, **kw):
                raise triton.runtime.errors.OutOfResources(300, 255, "registers")
            return launch
    mod.mm = RegistersKernel()
    import pytest
    with pytest.raises(triton.runtime.errors.OutOfResources):
        mod.run(a, a, a, 64)


def test_launcher_with_its_own_num_stages_gets_tritons_shared_memory_error(tmp_path, monkeypatch):
    """A launcher edited to pass its own num_stages (the C2T201 hint invites it) that runs out of
    shared memory raises Triton's OutOfResources, without a retry: as the module's first launch
    (this once raised a TypeError) and right after another launch's retry left its stage
    bookkeeping behind (this once retried forever)."""
    import pytest
    import triton
    from test_spill_retry import SRC as ONE_DOT
    tried = []

    class FakeKernel:           # runs out of shared memory above 2 stages
        def __getitem__(self, grid):
            def launch(*args, num_stages, **kw):
                tried.append(num_stages)
                if len(tried) > 20:
                    raise RuntimeError("retried forever")
                if num_stages > 2:
                    raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")
            return launch
    a = torch.zeros(16, 16)
    first = build(ONE_DOT, tmp_path)
    first.mm = FakeKernel()
    monkeypatch.setattr(first, "_c2t_num_stages", lambda *args: 4)   # as if the launcher said num_stages=4
    with pytest.raises(triton.runtime.errors.OutOfResources):
        first.run(a, a, a, 16)
    assert tried == [4]

    mod = build(ONE_DOT, tmp_path)
    mod.mm = FakeKernel()
    tried.clear()
    mod.run(a, a, a, 16)                        # the translator's stages: retried down to 2
    assert tried == [3, 2]
    monkeypatch.setattr(mod, "_c2t_num_stages", lambda *args: 4)
    with pytest.raises(triton.runtime.errors.OutOfResources):
        mod.run(a, a, a, 32)
    assert tried == [3, 2, 4]


def test_exhaustive_search_autotunes_the_variant_a_layout_flag_picks(tmp_path, monkeypatch):
    mod = build(DUAL + """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

def search(x, transpose):
    m = x.shape[1] if transpose else x.shape[0]
    n = x.shape[0] if transpose else x.shape[1]
    y = torch.empty((m, n), dtype=x.dtype)
    configs = [SimpleNamespace(TM=8), SimpleNamespace(TM=16)]
    res = exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (ct.cdiv(m, cfg.TM),), scale_t,
                            lambda cfg: (x, y, cfg.TM, 16, transpose), quiet=True)
    return res, y
""", tmp_path)
    seen = []
    real = mod.triton.autotune

    def spy(configs, key, **kw):
        seen.append([c.kwargs for c in configs])
        return lambda fn: (seen.append(fn.__name__ if hasattr(fn, "__name__") else fn.fn.__name__),
                           real(configs, key, **kw)(fn))[1]
    monkeypatch.setattr(mod.triton, "autotune", spy)
    x = torch.randn(13, 11)
    res, y = mod.search(x, False)
    torch.testing.assert_close(y, x * 2)
    res, y = mod.search(x.t().contiguous(), True)
    torch.testing.assert_close(y, x * 2)
    assert seen == [[{"TM": 8, "TN": 16}, {"TM": 16, "TN": 16}], "scale_t_not_transpose",
                    [{"TM": 8, "TN": 16}, {"TM": 16, "TN": 16}], "scale_t_transpose"]


def test_autotune_failure_falls_back_to_timing_each_launch_with_a_warning(tmp_path, monkeypatch):
    import pytest
    mod = build(TUNED, tmp_path)

    def broken(*a, **k):
        raise RuntimeError("a config the autotuner cannot skip")
    monkeypatch.setattr(mod.triton, "autotune", broken)
    x, y = torch.randn(100), torch.zeros(100)
    with pytest.warns(UserWarning, match="timing each config's launch instead"):
        res = mod.search(x, y, False)
    assert len(res.successes) == 3
    torch.testing.assert_close(y, x * 3.0)


def test_loop_whose_arguments_may_read_array_data_is_not_batched():
    """Batched launches are deferred until a group is full, so a loop whose iterable, grid or
    arguments could read array contents (int(t), .item(), a torch call...) keeps one launch per
    iteration, with a note (C2T207)."""
    base = BATCH.split("def run(")[0]
    for loop in ("for s, d, t in zip(srcs, dsts, tiles):\n"
                 "        ct.launch(torch.cuda.current_stream(), (int(s.sum()),), add_k, (s, d, c, t))",
                 "for s, d in zip(torch.split(srcs, 4), dsts):\n"
                 "        ct.launch(torch.cuda.current_stream(), (1,), add_k, (s, d, c, 4))"):
        res = translate(base + f"def run(srcs, dsts, c, tiles):\n    {loop}\n")
        assert res.ok and "def add_k_batch4" not in res.code and ".flush()" not in res.code
        notes = [d.message for d in res.diagnostics if d.code == "C2T207"]
        assert notes and "may read array data" in notes[0]


def test_dropped_autotune_hints_are_reported():
    res = translate(TUNED.replace("quiet=True)", "lambda cfg: {'occupancy': 2}, quiet=True)") + """
def retune():
    return scale.replace_hints(num_ctas=2)
""")
    msgs = [d.message for d in res.diagnostics if d.code == "C2T204"]
    assert any("hints function" in m for m in msgs) and any("scale.replace_hints" in m for m in msgs)
