"""cuTile's num_ctas hint reaches Triton's num_ctas launch option (a CTA cluster on sm_90+), from
the @ct.kernel decorator, kernel.replace_hints(...) and exhaustive_search's hints function; the
other hints (occupancy, opt_level, ...) have no Triton equivalent and are reported."""
from types import SimpleNamespace

import pytest
import torch

from kernel_util import RT, build, compile_sm90, translate

SCALE = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

@ct.kernel{deco}
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

def run(x, hints=None):
    y = torch.empty_like(x)
    k = scale if hints is None else scale.replace_hints(**hints)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, 16))
    return y

def search(x, num_ctas):
    y = torch.empty_like(x)
    n = x.shape[0]
    configs = [SimpleNamespace(T=16), SimpleNamespace(T=32)]
    res = exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (ct.cdiv(n, cfg.T),), scale,
                            lambda cfg: (x, y, cfg.T), lambda cfg: {{"num_ctas": num_ctas, "occupancy": 2}},
                            quiet=True)
    return res, y
"""


def _spy_launches(mod, monkeypatch):
    """Record the launch options of every _c2t_run call (the launch itself still runs)."""
    seen = []
    real = mod._c2t_run

    def spy(kernel, grid, args, **options):
        seen.append(options)
        return real(kernel, grid, args, **options)
    monkeypatch.setattr(mod, "_c2t_run", spy)
    return seen


def test_decorator_num_ctas_is_a_launch_option(tmp_path, monkeypatch):
    res = translate(SCALE.format(deco="(num_ctas=2, occupancy=4)"))
    assert res.ok
    assert [d.code for d in res.diagnostics if d.code == "C2T201"] == ["C2T201"]     # occupancy only
    assert "occupancy=4" in next(d.message for d in res.diagnostics if d.code == "C2T201")
    assert "**_c2t_hint_options(c2t_hints, num_ctas=2)," in res.code
    assert "# cuTile hints: occupancy=4 (no Triton equivalent" in res.code
    mod = build(SCALE.format(deco="(num_ctas=2, occupancy=4)"), tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(40)
    torch.testing.assert_close(mod.run(x), x * 3)
    assert seen[-1]["num_ctas"] == 2
    # replace_hints overrides the decorator; num_ctas=1 means no cluster option at all
    torch.testing.assert_close(mod.run(x, {"num_ctas": 1}), x * 3)
    assert "num_ctas" not in seen[-1]


def test_replace_hints_objects_carry_num_ctas(tmp_path, monkeypatch):
    mod = build(SCALE.format(deco=""), tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(33)
    torch.testing.assert_close(mod.run(x), x * 3)
    assert "num_ctas" not in seen[-1]
    torch.testing.assert_close(mod.run(x, {"num_ctas": 4, "occupancy": 1}), x * 3)
    assert seen[-1]["num_ctas"] == 4
    chained = mod.scale.replace_hints(num_ctas=2).replace_hints(occupancy=1)
    assert chained.c2t_hints == {"num_ctas": 2, "occupancy": 1}
    assert "replace_hints(num_ctas=2, occupancy=1)" in repr(chained)
    assert chained.c2t_launch is not None and chained.fn is mod.scale.fn     # other attributes pass through


def test_exhaustive_search_hints_function_reaches_every_config(tmp_path, monkeypatch):
    mod = build(SCALE.format(deco=""), tmp_path)
    configs = []
    real = mod.triton.Config

    def spy(kwargs, **opts):
        configs.append(opts)
        return real(kwargs, **opts)
    monkeypatch.setattr(mod.triton, "Config", spy)
    x = torch.randn(70)
    res, y = mod.search(x, 2)
    torch.testing.assert_close(y, x * 3)
    assert [c.get("num_ctas") for c in configs] == [2, 2]
    configs.clear()
    mod.search(x, 1)
    assert [c.get("num_ctas") for c in configs] == [None, None]


def test_hint_options_checks_and_switches(tmp_path, monkeypatch):
    mod = build(SCALE.format(deco="(num_ctas=2)"), tmp_path)
    opts = mod._c2t_hint_options
    assert opts(None) == {} and opts(None, num_ctas=2) == {"num_ctas": 2}
    assert opts({"num_ctas": 4}, num_ctas=2) == {"num_ctas": 4}
    assert opts({"occupancy": 2}, num_ctas=2) == {"num_ctas": 2}      # hints without num_ctas keep the decorator's
    assert opts({"num_ctas": None}) == {}
    with pytest.raises(ValueError, match="power of two"):
        opts({"num_ctas": 3})
    monkeypatch.setattr(RT, "_C2T_CLUSTERS", False)                   # $C2T_NUM_CTAS=0
    assert opts(None, num_ctas=2) == {}
    monkeypatch.setattr(RT, "_C2T_CLUSTERS", True)
    # a GPU without clusters (sm_80): Triton would raise, cuTile configs there use 1
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (8, 0))
    monkeypatch.setattr(RT, "_C2T_CLUSTER_DEVICES", {})
    with pytest.warns(UserWarning, match="needs CTA clusters"):      # said once per device
        assert opts(None, num_ctas=2) == {}
    assert opts(None, num_ctas=2) == {}
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (9, 0))
    monkeypatch.setattr(RT, "_C2T_CLUSTER_DEVICES", {})
    assert opts(None, num_ctas=2) == {"num_ctas": 2}


def test_modules_without_hints_have_plain_launchers():
    res = translate(SCALE.format(deco="").split("def search")[0].replace("scale.replace_hints(**hints)", "scale"))
    assert res.ok
    assert "c2t_hints" not in res.code and "_c2t_hint_options" not in res.code
    # (the kernel object's replace_hints then returns the kernel itself: translator/runtime/launch.py)
    assert "_c2t_kernel_object(scale, launch_scale)" in res.code and "hints=True" not in res.code


def test_replace_hints_keeps_the_kernel_where_the_launchers_take_no_hints():
    """_c2t_kernel_object: a module whose launchers take no hints gets the kernel itself back from
    replace_hints (its launcher would refuse `c2t_hints`); one whose launchers take them, a kernel
    that carries them to its launcher."""
    calls = []

    def launcher(grid, *args, stream=None, **kw):
        calls.append(kw)
    plain, hinted = SimpleNamespace(fn=None), SimpleNamespace(fn=None)
    RT._c2t_kernel_object(plain, launcher)
    RT._c2t_kernel_object(hinted, launcher, hints=True)
    assert plain.replace_hints(num_ctas=2) is plain
    hinted.replace_hints(num_ctas=2).c2t_launch((1,))
    assert calls == [{"c2t_hints": {"num_ctas": 2}}]


def test_num_ctas_launch_compiles_for_sm90(tmp_path):
    out = compile_sm90(SCALE.format(deco="(num_ctas=2)"), "run", "(torch.randn(40),)", tmp_path)
    assert "OK scale" in out and "num_ctas=2" in out


OCC = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

@ct.kernel
def fill(y, T: ConstInt):
    # every program writes the grid size it saw into its own tile
    ct.store(y, index=(ct.bid(0),), tile=ct.full((T,), ct.num_blocks(0), dtype=ct.int32))

def search(y):
    # TileGym style: two configs share their tile size and differ in occupancy, which scales the grid
    configs = [SimpleNamespace(T=8, occupancy=1), SimpleNamespace(T=8, occupancy=2)]
    return exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (2 * cfg.occupancy,), fill,
                             lambda cfg: (y, cfg.T), lambda cfg: {"occupancy": cfg.occupancy}, quiet=True)
"""


def test_configs_sharing_their_meta_keep_their_own_grids(tmp_path, monkeypatch):
    """A grid looked up by META would give both configs the same grid (and Triton would merge the
    two equal triton.Configs): each config must be timed with its own grid."""
    mod = build(OCC, tmp_path)
    grids = []
    real_run = mod.fill.run

    def run(*a, grid, **kw):
        grids.append(grid(dict(kw)))
        return real_run(*a, grid=grid, **kw)
    monkeypatch.setattr(mod.fill, "run", run)
    y = torch.zeros(32, dtype=torch.int32)
    res = mod.search(y)
    assert len(res.successes) == 2 and not res.failures
    assert {(2,), (4,)} <= set(grids)
    assert {m.config.occupancy for m in res.successes} == {1, 2}
    best = res.best.config
    assert y[: 8 * 2 * best.occupancy].eq(2 * best.occupancy).all()     # the last run is the best config's


def test_search_times_a_config_that_ran_out_of_shared_memory_with_fewer_stages(tmp_path, monkeypatch):
    """On the GPU a config whose pipeline does not fit in shared memory fails in @triton.autotune
    (TileGym bmm's 128x256 tiles at 4 stages): it is timed again with one stage less, next to the
    best config so far, until it runs or has one stage; the last round's best is the search's."""
    mod = build(OCC, tmp_path)
    # config 0 fits at any depth (5 us); config 1 needs <= 3 stages (3 us); config 2 never fits
    fits = {0: 9, 1: 3, 2: 0}
    rounds, search = _search_with_stand_in_rounds(
        mod, monkeypatch, lambda i, stages: (5e-3, 3e-3, 1.0)[i] if stages <= fits[i] else float("inf"))
    space, res = search(3, 5)
    assert rounds == [{0: 5, 1: 5, 2: 5}, {1: 4, 2: 4, 0: 5}, {1: 3, 2: 3, 0: 5}, {2: 2, 1: 3}, {2: 1, 1: 3}]
    assert res.best.config is space[1] and abs(res.best.mean_us - 3.0) < 1e-9
    assert [f[0] for f in res.failures] == [space[2]] and len(res.successes) == 2
    # under the interpreter (no GPU) nothing is retried
    rounds.clear()
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: False)
    space, res = search(3, 5)
    assert len(rounds) == 1 and res.best.config is space[0] and len(res.failures) == 2


def _search_with_stand_in_rounds(mod, monkeypatch, ms):
    """exhaustive_search's autotune on a stand-in GPU: each round times config i at its number of
    stages as ms(i, stages). Returns (the rounds' {config: stages}, search(n_configs, stages))."""
    rounds = []

    def fake_round(which, split, opts, grids, runtime, kernel, stream, on_gpu):
        rounds.append({i: opts[i]["num_stages"] for i in which})
        timed = {i: ms(i, opts[i]["num_stages"]) for i in which}
        return timed, min(timed, key=timed.get)
    monkeypatch.setattr(RT, "_c2t_autotune_round", fake_round)
    monkeypatch.setattr(RT, "_c2t_any_cuda", lambda args: True)
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: True)

    def search(n, stages):
        space = [SimpleNamespace(T=8, n=i) for i in range(n)]
        split = [(None, {"T": 8}, {"num_warps": 4, "num_stages": stages}) for _ in space]
        return space, RT._c2t_autotune(space, split, None, lambda cfg: (1,), None, quiet=True)
    return rounds, search


def test_kernels_with_rank3_tiles_run_without_clusters(tmp_path, monkeypatch):
    """Triton 3.6's num_ctas=2 failed to compile or computed wrong results for TileGym's bmm, whose
    tiles are 3-D (measured on the H200): such kernels drop the hint, and say so."""
    src = """
    @ct.kernel(num_ctas=2)
    def scale3(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(1, T, T))
        ct.store(y, index=(ct.bid(0), 0, 0), tile=t * 3.0)

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (x.shape[0],), scale3.replace_hints(num_ctas=4), (x, y, 8))
        return y
    """
    res = translate(src)
    assert res.ok
    drop = [d for d in res.diagnostics if d.code == "C2T201"]
    assert len(drop) == 1 and "rank 3" in drop[0].message and "num_ctas=2" in drop[0].message
    assert any(d.code == "C2T204" and "num_ctas is not applied" in d.message for d in res.diagnostics)
    assert "_c2t_hint_options(" not in res.code.split("def launch_scale3")[1]
    mod = build(src, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(3, 8, 8)
    torch.testing.assert_close(mod.run(x), x * 3)
    assert "num_ctas" not in seen[-1]


def test_kernels_taking_lists_of_arrays_run_without_clusters():
    """Triton 3.6 with num_ctas=2 failed to compile TileGym's group_gemm (lists of arrays) for sm_90."""
    res = translate("""
    @ct.kernel(num_ctas=2)
    def scale_all(Xs, T: ConstInt):
        x = Xs[ct.bid(0)]
        ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(T, T)) * 2.0)
    """)
    assert res.ok
    drop = [d.message for d in res.diagnostics if d.code == "C2T201"]
    assert len(drop) == 1 and "lists of arrays" in drop[0]
    assert "_c2t_hint_options(" not in res.code.split("def launch_scale_all")[1]


TRANSPOSING = """
@ct.kernel(num_ctas=2)
def copy_t(x, y, T: ConstInt, TR: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(T, T))
    if TR:
        t = ct.transpose(t)
    ct.store(y, index=(ct.bid(0), 0), tile=t)

def run(x, tr):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 8,), copy_t, (x, y, 8, tr))
    return y
"""


def test_variants_that_transpose_tiles_run_without_clusters(tmp_path, monkeypatch):
    """Triton 3.6 with num_ctas=4 computed wrong results for TileGym's persistent matmul with
    transposed operands (H200) and right ones without: a dual kernel's transposing variants drop
    the hint, the others keep it, and a kernel that always transposes drops it, each said."""
    res = translate(TRANSPOSING)
    assert res.ok
    note = [d.message for d in res.diagnostics if d.code == "C2T201"]
    assert len(note) == 1 and "reaches only the variants that do not transpose" in note[0]
    assert "**_c2t_hint_options(c2t_hints, num_ctas=2, clusters=(bool(TR),) not in ((True,),))," in res.code
    mod = build(TRANSPOSING, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(16, 8)
    torch.testing.assert_close(mod.run(x, True), torch.cat([x[:8].T, x[8:].T]))
    assert "num_ctas" not in seen[-1]
    torch.testing.assert_close(mod.run(x, False), x)
    assert seen[-1]["num_ctas"] == 2
    always = translate(TRANSPOSING.replace("    if TR:\n        t = ct.transpose(t)", "    t = ct.transpose(t)"))
    drop = [d.message for d in always.diagnostics if d.code == "C2T201"]
    assert len(drop) == 1 and "transposes or permutes tiles" in drop[0]
    assert "_c2t_hint_options(" not in always.code.split("def launch_copy_t")[1]
    # a transpose inside a helper the kernel calls counts too
    helper = translate("def flip(t):\n    return ct.transpose(t)\n\n" + TRANSPOSING.replace(
        "        t = ct.transpose(t)", "        t = flip(t)"))
    assert any(d.code == "C2T201" and "transposes or permutes tiles" in d.message for d in helper.diagnostics)
    assert "_c2t_hint_options(" not in helper.code.split("def launch_copy_t")[1]
    # hints given at launch (replace_hints) are told which variants they do not reach
    hinted = translate(TRANSPOSING.replace("(x, y, 8, tr))", "(x, y, 8, tr))\n    ct.launch(torch.cuda.current_stream(), "
                                           "(1,), copy_t.replace_hints(num_ctas=4), (x, y, 8, tr))"))
    assert any(d.code == "C2T204" and "except for `copy_t` with TR=True" in d.message for d in hinted.diagnostics)


def test_kernels_that_concatenate_tiles_run_without_clusters():
    """ct.cat joins its tiles and permutes the joined dimension (inside _c2t_cat_<r>d): it counts as
    a permute."""
    res = translate("""
    @ct.kernel(num_ctas=2)
    def cat2(x, y, T: ConstInt):
        a = ct.load(x, index=(ct.bid(0), 0), shape=(T, T))
        ct.store(y, index=(ct.bid(0), 0), tile=ct.cat((a, a * 2.0), 1))
    """)
    assert res.ok
    drop = [d.message for d in res.diagnostics if d.code == "C2T201"]
    assert len(drop) == 1 and "transposes or permutes tiles" in drop[0]


def _stand_in_kernel(mod, monkeypatch, fail):
    """A real (non-interpreted) JITFunction whose dispatch records the options, failing to compile
    with `fail` (an exception) when asked for a cluster."""
    import types
    import triton
    from triton.runtime.jit import JITFunction
    log = []

    class Compiled:
        function, packed_metadata = "fn", "meta"

        def launch_metadata(self, *a):
            return None

        def run(self, *a):
            log.append("fast")

    kernel = JITFunction(mod.scale.fn)

    def dispatch(*args, grid, warmup, **kw):
        log.append(kw.get("num_ctas"))
        if kw.get("num_ctas") and fail is not None:
            raise fail
        return Compiled()
    kernel.run = dispatch
    mod._c2t_kernel_object(kernel, mod.launch_scale)
    monkeypatch.setattr(mod, "scale", kernel)
    monkeypatch.setattr(triton.runtime.driver, "_active", types.SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: 1))
    RT._C2T_COMPILED.clear()
    return log


def test_cluster_compile_failure_falls_back_without_clusters_and_warns(tmp_path, monkeypatch):
    mod = build(SCALE.format(deco="(num_ctas=2)"), tmp_path)
    log = _stand_in_kernel(mod, monkeypatch, RuntimeError("PassManager::run failed"))
    x = torch.zeros(32)
    with pytest.warns(UserWarning, match="could not compile it with num_ctas=2"):
        mod.run(x)
    mod.run(x)                       # the cluster-free kernel is cached under the launch's key
    assert log == [2, None, "fast"]


@pytest.mark.parametrize("fail", [RuntimeError("CUDA error: an illegal memory access"), ValueError("bad")])
def test_other_launch_errors_are_not_retried(tmp_path, monkeypatch, fail):
    mod = build(SCALE.format(deco="(num_ctas=2)"), tmp_path)
    log = _stand_in_kernel(mod, monkeypatch, fail)
    with pytest.raises(type(fail)):
        mod.run(torch.zeros(32))
    assert log == [2]


def test_config_search_times_on_the_device_when_lists_hold_cuda_tensors(tmp_path):
    """exhaustive_search's launch timing must see CUDA tensors inside lists of arrays (it took
    TileGym group_gemm's arguments for host ones and timed one call, compile included)."""
    mod = build(SCALE.format(deco=""), tmp_path)

    class OnDevice:
        is_cuda = True
    assert RT._c2t_any_cuda(([OnDevice()], 3))
    assert RT._c2t_any_cuda(((1, [torch.zeros(1), OnDevice()]),))
    assert not RT._c2t_any_cuda(([torch.zeros(1)], 3, None))


# TileGym's unsloth suite re-wraps a kernel's Python function with the hints a search picked,
# and annotates host values with ct.kernel
REWRAP = """
from dataclasses import dataclass

@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

@dataclass(frozen=True)
class Entry:
    hinted: ct.kernel

def tuned(num_ctas) -> ct.kernel:
    return Entry(hinted=ct.kernel(scale._pyfunc, num_ctas=num_ctas, occupancy=2)).hinted

def run(x, num_ctas):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), tuned(num_ctas), (x, y, 16))
    return y
"""


def test_kernel_rewrapped_with_hints_is_replace_hints(tmp_path, monkeypatch):
    res = translate(REWRAP)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "scale.replace_hints(num_ctas=num_ctas, occupancy=2)" in res.code
    assert "hinted: 'ct.kernel'" in res.code and "-> 'ct.kernel':" in res.code
    assert any(d.code == "C2T204" and "ct.kernel(scale._pyfunc, ...)" in d.message for d in res.diagnostics)
    mod = build(REWRAP, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(40)
    torch.testing.assert_close(mod.run(x, 2), x * 3)
    assert seen[-1]["num_ctas"] == 2


def test_kernel_made_from_something_else_than_a_module_function_is_refused():
    res = translate("""
import other

k = ct.kernel(other.body)
""")
    assert any(d.code == "C2T108" for d in res.diagnostics)


# a plain function made a kernel on the host (cuTile's own tests: `kernel = ct.kernel(impl)`)
HOST_MADE = """
def add_impl(a, b, c, T: ConstInt):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(T,)) + ct.load(b, index=(i,), shape=(T,)))

def run(a, b, num_ctas=None):
    c = torch.empty_like(a)
    k = ct.kernel(add_impl) if num_ctas is None else ct.kernel(add_impl, num_ctas=num_ctas)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 16),), k, (a, b, c, 16))
    return c
"""


def test_kernel_made_on_the_host_is_translated_as_a_kernel(tmp_path, monkeypatch):
    res = translate(HOST_MADE)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert [k.name for k in res.kernels] == ["add_impl"]
    assert "k = add_impl if num_ctas is None else add_impl.replace_hints(num_ctas=num_ctas)" in res.code
    mod = build(HOST_MADE, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    a, b = torch.randn(40), torch.randn(40)
    torch.testing.assert_close(mod.run(a, b), a + b)
    assert "num_ctas" not in seen[-1]
    torch.testing.assert_close(mod.run(a, b, 2), a + b)
    assert seen[-1]["num_ctas"] == 2


def test_by_target_hint_values_on_the_host_resolve_for_sm90(tmp_path, monkeypatch):
    """TileGym liger grpo_loss: `k.replace_hints(occupancy=ByTarget(sm_100=4, default=4))` at
    module level; `dtype: ct.DType` annotations stay as text."""
    src = """
from cuda.tile import ByTarget

@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

tuned = scale.replace_hints(num_ctas=ByTarget(sm_90=2, default=1), occupancy=ByTarget(sm_100=4))

def run(x, dtype: ct.DType = None):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), tuned, (x, y, 16))
    return y
"""
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "scale.replace_hints(num_ctas=(2), occupancy=None)" in res.code
    assert "dtype: 'ct.DType' = None" in res.code
    mod = build(src, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(40)
    torch.testing.assert_close(mod.run(x), x * 3)
    assert seen[-1]["num_ctas"] == 2



HOST_CONTAINERS = """
from cuda.tile import ByTarget

@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

HINTS = {"num_ctas": ByTarget(sm_90=2, default=1), "occupancy": ct.ByTarget(sm_100=4)}
PER_SIZE = {n: ct.ByTarget(sm_90=n, default=1) for n in (1, 2, 4)}
DTYPES = {ct.float16, ct.float32}

def run(x, size=None):
    y = torch.empty_like(x)
    hints = HINTS if size is None else {"num_ctas": PER_SIZE[size]}
    assert (dt := ct.float32) == x.dtype and x.dtype in DTYPES
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale.replace_hints(**hints),
              (x, y, 16))
    return y, [g() for g in [lambda: ct.cdiv(x.shape[0], 16)]]
"""


def test_by_target_and_ct_names_in_host_dicts_sets_and_comprehensions_are_translated(tmp_path, monkeypatch):
    """cuda.tile names in host dicts, sets, dict comprehensions and `:=` (kept as text by the IR)
    are rewritten like any other host use: `{"occupancy": ByTarget(...)}` was left as is, a
    NameError for `ByTarget` at import."""
    res = translate(HOST_CONTAINERS)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert 'HINTS = {"num_ctas": (2), "occupancy": None}' in res.code
    assert "PER_SIZE = {n: (n) for n in (1, 2, 4)}" in res.code
    assert "DTYPES = {torch.float16, torch.float32}" in res.code
    mod = build(HOST_CONTAINERS, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(40)
    y, grids = mod.run(x)
    torch.testing.assert_close(y, x * 3)
    assert seen[-1]["num_ctas"] == 2 and grids == [3]
    mod.run(x, 4)
    assert seen[-1]["num_ctas"] == 4


@pytest.mark.parametrize("field", ["ct.cdiv(x.shape[0], 16)", "ByTarget(sm_90=2)", "ct.float16", "PAD"])
def test_cuda_tile_names_in_host_f_strings_are_refused_where_they_are(field):
    """f-string fields are text in the IR, so host rewrites cannot reach them: refused at the
    f-string (C2T108), not left dangling for a NameError at run time."""
    res = translate(f"""
from cuda.tile import ByTarget
PAD = ct.PaddingMode.ZERO

@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=PAD)
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

def run(x):
    y = torch.empty_like(x)
    name = f"scale {{{field}}} of {{x.shape[0]}}"
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
    return y, name
""")
    bad = [d for d in res.diagnostics if d.code == "C2T108"]
    assert not res.ok and len(bad) == 1 and bad[0].line == 16 and "f-string" in bad[0].message


def test_a_kernel_only_alias_in_a_host_dict_is_refused_where_it_is_defined():
    """`PAD = ct.PaddingMode.ZERO` is dropped from the output: a host dict that names it is a use
    (it was not seen inside the dict, and the dict kept a dangling `PAD`)."""
    res = translate("""
PAD = ct.PaddingMode.ZERO
MODES = {"zero": PAD}

@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=PAD)
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)
""")
    bad = [d for d in res.diagnostics if d.code == "C2T108"]
    assert not res.ok and len(bad) == 1 and bad[0].line == 6 and "`PAD`" in bad[0].message

def test_a_plain_host_f_string_is_kept(tmp_path):
    mod = build("""
@ct.kernel
def scale(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale, (x, y, 16))
    return y, f"scale of {x.shape[0]}"
""", tmp_path)
    x = torch.randn(20)
    y, name = mod.run(x)
    torch.testing.assert_close(y, x * 3)
    assert name == "scale of 20"


@pytest.mark.parametrize("deco, why", [("(**HINTS)", "**HINTS"), ("(num_ctas=ct.cdiv(4, 2))", "uses cuda.tile names")])
def test_decorator_hints_the_launcher_cannot_evaluate_are_dropped_with_a_warning(deco, why, tmp_path, monkeypatch):
    """`@ct.kernel(**HINTS)` was reported as a hint named `None`; a num_ctas whose text uses
    cuda.tile names was copied into the launcher, where `ct` is not defined."""
    src = SCALE.format(deco=deco).replace("from types", "HINTS = {'num_ctas': 2}\nfrom types", 1)
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    warned = [d for d in res.diagnostics if d.code == "C2T201"]
    assert len(warned) == 1 and why in warned[0].message and "None=" not in warned[0].message
    mod = build(src, tmp_path)
    seen = _spy_launches(mod, monkeypatch)
    x = torch.randn(40)
    torch.testing.assert_close(mod.run(x), x * 3)
    assert "num_ctas" not in seen[-1]


def test_search_retries_a_failing_best_and_says_when_no_config_runs(tmp_path, monkeypatch):
    """When every config fails in the first round, each (the round's nominal best too) is timed
    again with fewer stages; when none ever runs, the search raises a RuntimeError that names the
    configs, as the launch-by-launch search does (it was a bare StopIteration)."""
    mod = build(OCC, tmp_path)
    fits = {0: 2, 1: 0}
    _, search = _search_with_stand_in_rounds(mod, monkeypatch,
                                             lambda i, stages: 4e-3 if stages <= fits[i] else float("inf"))
    space, res = search(2, 4)
    assert res.best.config is space[0] and [f[0] for f in res.failures] == [space[1]]
    fits[0] = 0
    with pytest.raises(RuntimeError, match="exhaustive_search: no config ran \\(2 failed\\)"):
        search(2, 4)
