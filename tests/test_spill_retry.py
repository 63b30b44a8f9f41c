"""Dot kernels that spill registers are compiled again with twice the warps, then with one stage
less, and the cached launch path runs the first variant that does not spill
(_c2t_leaner_if_spilling). No GPU: a real (non-interpreted) JITFunction gets a stand-in dispatch
whose compiled kernels report spills by (num_warps, num_stages)."""

import pytest
import torch
from triton.runtime.jit import JITFunction

from compiled_standin import StandInCompiled, stand_in_driver
from kernel_util import build

SRC = """
@ct.kernel
def mm(a, b, c, T: ConstInt):
    acc = ct.mma(ct.load(a, index=(0, 0), shape=(T, T)), ct.load(b, index=(0, 0), shape=(T, T)),
                 ct.zeros((T, T), dtype=ct.float32))
    ct.store(c, index=(0, 0), tile=acc)

def run(a, b, c, t):
    ct.launch(torch.cuda.current_stream(), (1,), mm, (a, b, c, t))
"""


def _setup(tmp_path, monkeypatch, spills):
    """spills: {(num_warps, num_stages): bytes}; a variant missing there fails to compile."""
    mod = build(SRC, tmp_path)
    log = []
    kernel = JITFunction(mod.mm.fn)

    def dispatch(*args, grid, warmup, **kw):
        variant = (kw["num_warps"], kw["num_stages"])
        log.append(("warmup" if warmup else "triton", variant))
        return StandInCompiled(log, variant, spills[variant])
    kernel.run = dispatch
    monkeypatch.setattr(mod, "mm", kernel)
    stand_in_driver(monkeypatch)
    mod._C2T_COMPILED.clear()
    mod._C2T_STAGES.clear()
    return mod, log


def _launch(mod, n=3):
    a = torch.zeros(16, 16)       # 16x16 dot tile: 4 warps, 3 stages to start with
    for _ in range(n):
        mod.run(a, a, a, 16)


def test_spilling_kernel_moves_to_twice_the_warps(tmp_path, monkeypatch):
    """TileGym group_gemm's 128x128x128 tiles: 32 B spilled at 4 warps / 3 stages (384 us on the
    H200), none at 8 / 3 (276 us) nor at 4 / 2 (461 us): more warps come first."""
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 32, (8, 3): 0, (4, 2): 0})
    _launch(mod)
    # the first launch runs as compiled, the 8-warp variant is compiled next to it and later
    # launches run it through the cached path
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("fast", (8, 3)), ("fast", (8, 3))]


def test_one_stage_less_when_more_warps_still_spill(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 352, (8, 3): 200, (4, 2): 0})
    _launch(mod)
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("warmup", (4, 2)), ("fast", (4, 2)),
                   ("fast", (4, 2))]


def test_eight_warps_keep_their_stages_and_drop_one(tmp_path, monkeypatch):
    """A kernel already at 8 warps (no 16-warp variant) only tries one stage less."""
    mod, log = _setup(tmp_path, monkeypatch, {(8, 3): 2288, (8, 2): 196})
    a = torch.zeros(256, 256)     # 256x256 tiles: 8 warps
    mod.run(a, a, a, 256)
    mod.run(a, a, a, 256)
    assert log == [("triton", (8, 3)), ("warmup", (8, 2)), ("fast", (8, 2))]


def test_least_spilling_variant_when_none_is_clean(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 900, (8, 3): 500, (4, 2): 300})
    _launch(mod)
    assert log[-2:] == [("fast", (4, 2)), ("fast", (4, 2))]


def test_variants_that_spill_as_much_are_not_taken(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 120, (4, 2): 120, (8, 3): 200})
    _launch(mod)
    assert log[-2:] == [("fast", (4, 3)), ("fast", (4, 3))]


@pytest.mark.parametrize("spills, switch", [(0, True), (352, False)])
def test_no_spills_or_switched_off_keeps_the_first_compile(tmp_path, monkeypatch, spills, switch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): spills, (4, 2): 0, (8, 3): 0})
    monkeypatch.setattr(mod, "_C2T_SPILL_RETRY", switch)
    _launch(mod)
    assert log == [("triton", (4, 3)), ("fast", (4, 3)), ("fast", (4, 3))]


def test_variants_that_fail_to_compile_are_skipped(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 352, (4, 2): 0})    # (8, 3): KeyError in the stand-in
    _launch(mod)
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("warmup", (4, 2)), ("fast", (4, 2)), ("fast", (4, 2))]
