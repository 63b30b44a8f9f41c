"""$C2T_TILE_VARIANTS: exhaustive_search also times configs with one tile size halved, alone and
with another doubled (for source config lists tuned for another GPU). By default ("auto") only on
a GPU, for configs whose launch has fewer programs than the GPU has SMs; "1" for every config.
Which fields it may change, that a variant that computes something else is dropped, and that every
config it adds still computes the product, under the interpreter on ragged shapes."""
import torch

import pytest

from kernel_util import RT, build, translate

# A tiled GEMM tuned TileGym-style. TM/TN/TK are tile dimensions; GROUP is a Constant that is no
# tile dimension; ALPHA reaches the kernel as a runtime scalar; NAME stays on the host.
GEMM = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

@ct.kernel
def gemm(A, B, C, alpha, TM: ConstInt, TN: ConstInt, TK: ConstInt, GROUP: ConstInt):
    bid = ct.bid(0)
    num_n = ct.cdiv(B.shape[1], TN)
    bm = bid // num_n
    bn = bid % num_n
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=(acc * alpha + GROUP * 0).astype(C.dtype))

_cache = {}

def configs(ctas=1):
    yield SimpleNamespace(TM=64, TN=64, TK=32, GROUP=32, ALPHA=1.0, NAME="big", num_ctas=ctas)
    yield SimpleNamespace(TM=32, TN=64, TK=16, GROUP=32, ALPHA=1.0, NAME="small", num_ctas=1)

def grid(M, N, cfg):
    return (ct.cdiv(M, cfg.TM) * ct.cdiv(N, cfg.TN), 1, 1)

def run(a, b, cfg):
    c = torch.zeros(a.shape[0], b.shape[1], dtype=a.dtype)
    ct.launch(torch.cuda.current_stream(), grid(a.shape[0], b.shape[1], cfg), gemm,
              (a, b, c, cfg.ALPHA, cfg.TM, cfg.TN, cfg.TK, cfg.GROUP))
    return c

def search(a, b, ctas=1):
    M, N = a.shape[0], b.shape[1]
    c = torch.zeros(M, N, dtype=a.dtype)
    return exhaustive_search(list(configs(ctas)), torch.cuda.current_stream(), lambda cfg: grid(M, N, cfg), gemm,
                             lambda cfg: (a, b, c, cfg.ALPHA, cfg.TM, cfg.TN, cfg.TK, cfg.GROUP),
                             lambda cfg: {"num_ctas": cfg.num_ctas}, quiet=True)
"""


def _shape(cfg):
    return (cfg.TM, cfg.TN, cfg.TK, cfg.GROUP)


def test_the_kernel_object_names_its_tile_dimensions():
    """Only Constants written as a whole dimension of a tile shape are tile dimensions."""
    code = translate(GEMM).code
    assert 'meta=_c2t_meta_gemm, tiles=("TM", "TN", "TK"), hints=True)' in code
    assert "from translator.runtime.search import _c2t_exhaustive_search" in code       # (its switch: there)


def test_the_translation_notes_that_a_search_may_time_other_tilings():
    notes = [d for d in translate(GEMM).diagnostics if d.code == "C2T214"]
    assert len(notes) == 1 and notes[0].severity == "info" and "C2T_TILE_VARIANTS=0" in notes[0].hint


def test_auto_by_default_adds_nothing_under_the_interpreter(tmp_path):
    mod = build(GEMM, tmp_path)
    assert RT._C2T_TILE_VARIANTS == "auto"
    a, b = torch.randn(50, 40), torch.randn(40, 70)
    res = mod.search(a, b)
    assert sorted(_shape(m.config) for m in res.successes) == [(32, 64, 16, 32), (64, 64, 32, 32)]


@pytest.mark.parametrize("value, mode", [("0", False), ("auto", "auto"), ("1", True), ("yes", True)])
def test_the_switch_values(tmp_path, monkeypatch, value, mode):
    from kernel_util import runtime_switch
    assert runtime_switch("search", "_C2T_TILE_VARIANTS", {"C2T_TILE_VARIANTS": value}) == repr(mode)


def _variants(mod, a, b, cfgs, sms=None):
    c = torch.zeros(a.shape[0], b.shape[1])
    sources = {}
    added = RT._c2t_tile_variants(cfgs, mod.gemm.c2t_meta, mod.gemm.c2t_tile_params,
                                   lambda cfg: mod.grid(a.shape[0], b.shape[1], cfg),
                                   lambda cfg: (a, b, c, cfg.ALPHA, cfg.TM, cfg.TN, cfg.TK, cfg.GROUP),
                                   lambda cfg: {"num_ctas": cfg.num_ctas}, sms=sms, sources=sources)
    return added, sources


def test_auto_spreads_only_configs_that_leave_sms_idle(tmp_path):
    """With an SM count (what auto mode passes on a GPU): a config of fewer programs than SMs gets
    the halvings that make more programs, each also with the grid-free K depth doubled; halving TK
    (same program count) is not tried; a config that fills the SMs gets none."""
    mod = build(GEMM, tmp_path)
    a, b = torch.randn(128, 64), torch.randn(64, 512)
    big = next(mod.configs())                       # 64x64x32: 2 x 8 = 16 programs
    added, sources = _variants(mod, a, b, [big], sms=20)
    assert sorted(_shape(v) for v in added) == [(32, 64, 32, 32), (32, 64, 64, 32),     # 32 programs
                                                (64, 32, 32, 32), (64, 32, 64, 32)], added
    assert all(sources[id(v)] is big for v in added)
    assert _variants(mod, a, b, [big], sms=16)[0] == []      # 16 programs fill 16 SMs
    # every config the search may pick computes A @ B
    for v in added:
        torch.testing.assert_close(mod.run(a, b, v), a @ b, rtol=1e-4, atol=1e-4)


def test_variants_halve_tile_sizes_only_and_each_computes_the_product(tmp_path, monkeypatch):
    mod = build(GEMM, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    a, b = torch.randn(50, 40), torch.randn(40, 70)        # ragged against every tile
    res = mod.search(a, b)
    shapes = sorted(_shape(m.config) for m in res.successes)
    # from 64x64x32: TM, TN, TK halved, and the TM and TN halvings (more programs) with TK doubled;
    # from 32x64x16: TM and TN halved, each with TK doubled, TK=16 is not halved (fields of 32 and
    # up only). GROUP is a Constant but no tile dimension, ALPHA a runtime scalar: neither changes
    assert shapes == sorted([(64, 64, 32, 32), (32, 64, 16, 32),                    # the source's
                             (32, 64, 32, 32), (64, 32, 32, 32), (64, 64, 16, 32),  # from the first
                             (32, 64, 64, 32), (64, 32, 64, 32),
                             (16, 64, 16, 32), (32, 32, 16, 32),                    # from the second
                             (16, 64, 32, 32), (32, 32, 32, 32)]), shapes
    assert not res.failures
    assert all(m.config.ALPHA == 1.0 and m.config.NAME in ("big", "small") for m in res.successes)
    for m in res.successes:                 # each config the search may pick computes A @ B
        torch.testing.assert_close(mod.run(a, b, m.config), a @ b, rtol=1e-4, atol=1e-4)
    # the source's configs are left as they were
    assert [_shape(c) for c in mod.configs()] == [(64, 64, 32, 32), (32, 64, 16, 32)]


def test_the_printed_search_says_how_many_configs_were_added(tmp_path, monkeypatch, capsys):
    mod = build(GEMM.replace("lambda cfg: {\"num_ctas\": cfg.num_ctas}, quiet=True)",
                             "lambda cfg: {\"num_ctas\": cfg.num_ctas})"), tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    mod.search(torch.randn(50, 40), torch.randn(40, 70))
    out = capsys.readouterr().out
    assert ("exhaustive_search: C2T_TILE_VARIANTS adds 9 configs to the 2 given: its configs with a tile size "
            "halved (and another doubled)\n") in out
    assert "11 succeeded, 0 failed" in out


def test_configs_with_a_cta_cluster_get_no_variants(tmp_path, monkeypatch):
    mod = build(GEMM, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    a, b = torch.randn(50, 40), torch.randn(40, 70)
    space, c = list(mod.configs(ctas=2)), torch.zeros(50, 70)
    added = RT._c2t_tile_variants(space, mod.gemm.c2t_meta, mod.gemm.c2t_tile_params,
                                   lambda cfg: mod.grid(50, 70, cfg),
                                   lambda cfg: (a, b, c, cfg.ALPHA, cfg.TM, cfg.TN, cfg.TK, cfg.GROUP),
                                   lambda cfg: {"num_ctas": cfg.num_ctas})
    assert sorted(_shape(c) for c in added) == [(16, 64, 16, 32), (16, 64, 32, 32), (32, 32, 16, 32),
                                                (32, 32, 32, 32)]     # the second's only


def test_configs_without_attributes_get_no_variants(tmp_path):
    mod = build(GEMM, tmp_path)
    a, b = torch.randn(50, 40), torch.randn(40, 70)
    added = RT._c2t_tile_variants([(64, 64, 32)], mod.gemm.c2t_meta, mod.gemm.c2t_tile_params,
                                   lambda cfg: (1, 1, 1),
                                   lambda cfg: (a, b, torch.zeros(50, 70), 1.0, *cfg, 32), None)
    assert added == []


@pytest.mark.parametrize("field", ["TM", "TN"])
def test_a_field_that_also_reaches_a_runtime_argument_is_not_halved(tmp_path, field):
    mod = build(GEMM, tmp_path)
    a, b = torch.randn(50, 40), torch.randn(40, 70)
    cfg, c = next(mod.configs()), torch.zeros(50, 70)
    # the host passes the field as alpha too: halving it would change what the kernel computes
    added = RT._c2t_tile_variants([cfg], mod.gemm.c2t_meta, mod.gemm.c2t_tile_params,
                                   lambda v: mod.grid(50, 70, v),
                                   lambda v: (a, b, c, float(getattr(v, field)), v.TM, v.TN, v.TK, v.GROUP), None)
    assert field not in {f for v in added for f in ("TM", "TN", "TK") if getattr(v, f) != getattr(cfg, f)}
    assert len(added) == 3      # the other of TM/TN halved, with and without TK doubled; TK halved


def test_frozen_configs_get_no_variants_and_the_search_still_runs(tmp_path, monkeypatch):
    src = GEMM.replace("from types import SimpleNamespace", "from dataclasses import dataclass").replace(
        "def configs(ctas=1):", '''@dataclass(frozen=True)
class Cfg:
    TM: int
    TN: int
    TK: int
    GROUP: int
    ALPHA: float
    NAME: str
    num_ctas: int

SimpleNamespace = Cfg

def configs(ctas=1):''')
    mod = build(src, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    a, b = torch.randn(50, 40), torch.randn(40, 70)
    res = mod.search(a, b)
    assert sorted(_shape(m.config) for m in res.successes) == [(32, 64, 16, 32), (64, 64, 32, 32)]
    torch.testing.assert_close(mod.run(a, b, res.best.config), a @ b, rtol=1e-4, atol=1e-4)


def test_a_kernel_that_drops_the_cluster_hint_gets_variants(tmp_path, monkeypatch):
    """Clusters are what rules variants out, not the hint: a kernel with rank-3 tiles runs without
    them (C2T201), as TileGym's bmm, whose sm_90 configs all ask for num_ctas=2."""
    mod = build("""
    from types import SimpleNamespace
    from cuda.tile.tune import exhaustive_search

    @ct.kernel
    def bscale(x, y, TB: ConstInt, TN: ConstInt):
        t = ct.load(x, index=(ct.bid(1), 0, ct.bid(0)), shape=(1, TB, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(ct.bid(1), 0, ct.bid(0)), tile=t * 2)

    def search(x, y):
        cfgs = [SimpleNamespace(TB=8, TN=64, num_ctas=2)]
        return exhaustive_search(cfgs, torch.cuda.current_stream(), lambda c: (ct.cdiv(x.shape[2], c.TN), x.shape[0]),
                                 bscale, lambda c: (x, y, c.TB, c.TN), lambda c: {"num_ctas": c.num_ctas}, quiet=True)
    """, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    x, y = torch.randn(3, 8, 100), torch.zeros(3, 8, 100)
    res = mod.search(x, y)
    assert sorted((m.config.TB, m.config.TN) for m in res.successes) == [(8, 32), (8, 64)]
    torch.testing.assert_close(y, x * 2)


# A row sum whose D is a Constant tile dimension that is not a tiling: the tile covers a whole row
# (the array's width), so halving D sums half of each row.
ROWSUM = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

@ct.kernel
def rowsum(x, out, TM: ConstInt, D: ConstInt):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(TM, D), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=ct.sum(t, axis=1))

def search(x, out):
    cfgs = [SimpleNamespace(TM=64, D=x.shape[1])]
    return exhaustive_search(cfgs, torch.cuda.current_stream(), lambda c: (ct.cdiv(x.shape[0], c.TM),), rowsum,
                             lambda c: (x, out, c.TM, c.D))
"""


def test_a_variant_that_computes_something_else_is_dropped(tmp_path, monkeypatch, capsys):
    mod = build(ROWSUM, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TILE_VARIANTS", True)
    x, out = torch.randn(100, 64), torch.zeros(100)
    res = mod.search(x, out)
    printed = capsys.readouterr().out
    # TM halved sums the same rows, also with D doubled (zero padding); D halved would sum half of
    # each row
    assert sorted((m.config.TM, m.config.D) for m in res.successes) == [(32, 64), (32, 128), (64, 64)], printed
    assert "adds 2 configs to the 1 given" in printed and "1 more computed something else and were dropped" in printed
    mod.rowsum.c2t_launch((2,), x, out, 64, 64)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-5)


def test_the_check_restores_the_arguments(tmp_path):
    """The variants' check launches configs on the search's own arguments: they are put back."""
    mod = build(ROWSUM, tmp_path)
    x, out = torch.randn(100, 64), torch.full((100,), 7.0)
    cfg = mod.SimpleNamespace(TM=64, D=64)
    half = mod.SimpleNamespace(TM=32, D=64)
    kept = RT._c2t_same_results(mod.rowsum, [half], {id(half): cfg}, None, lambda c: (ct_cdiv(100, c.TM),),
                                 lambda c: (x, out, c.TM, c.D), None)
    assert kept == [half]
    assert torch.equal(out, torch.full((100,), 7.0))


def ct_cdiv(a, b):
    return -(-a // b)
