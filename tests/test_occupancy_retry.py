"""Kernels without dots whose registers let an SM hold one program only are compiled again with a
register cap (Triton's maxnreg) that fits two, and the cached launch path runs that compile when
it does not spill (_c2t_two_programs_per_sm). No GPU: a real (non-interpreted) JITFunction gets a
stand-in dispatch whose compiled kernels report registers and spills by maxnreg."""

import pytest
import torch
from triton.runtime.jit import JITFunction

from compiled_standin import StandInCompiled, stand_in_driver
from kernel_util import RT, build

# one 16384-element row per program: 16 warps (512 threads), so two programs fit in an SM's 65536
# registers at 64 registers per thread
SRC = """
@ct.kernel
def scale(x, y, T: ConstInt):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, T))
    ct.store(y, index=(r, 0), tile=t * 2.0)

def run(x, y):
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), scale, (x, y, x.shape[1]))
"""


def _setup(tmp_path, monkeypatch, compiles, sms=132):
    """compiles: {maxnreg or None: (registers, spill bytes)}; a cap missing there fails to compile."""
    mod = build(SRC, tmp_path)
    log = []
    kernel = JITFunction(mod.scale.fn)

    def dispatch(*args, grid, warmup, **kw):
        cap = kw.get("maxnreg")
        log.append(("warmup" if warmup else "triton", kw["num_warps"], cap))
        regs, spills = compiles[cap]
        return StandInCompiled(log, cap, spills=spills, regs=regs)
    kernel.run = dispatch
    monkeypatch.setattr(mod, "scale", kernel)
    stand_in_driver(monkeypatch)
    monkeypatch.setattr(RT, "_c2t_sm_limits", lambda: (sms, 65536, 2048))
    RT._C2T_COMPILED.clear()
    return mod, log


def _launch(mod, rows=264, n=3):
    x = torch.zeros(rows, 16384, dtype=torch.bfloat16)
    for _ in range(n):
        mod.run(x, x)


def test_one_program_per_sm_moves_to_a_cap_for_two(tmp_path, monkeypatch):
    """TileGym softmax, rows of 16384 in bfloat16: 71 registers at 16 warps (one program per SM);
    capped at 64 it does not spill."""
    mod, log = _setup(tmp_path, monkeypatch, {None: (71, 0), 64: (64, 0)})
    _launch(mod)
    assert log == [("triton", 16, None), ("warmup", 16, 64), ("fast", 64), ("fast", 64)]


def test_a_cap_that_spills_is_not_taken(tmp_path, monkeypatch):
    """TileGym softmax in float32: 104 registers, 68 B spilled at 64."""
    mod, log = _setup(tmp_path, monkeypatch, {None: (104, 0), 64: (64, 68)})
    _launch(mod)
    assert log == [("triton", 16, None), ("warmup", 16, 64), ("fast", None), ("fast", None)]


@pytest.mark.parametrize("regs, rows, switch", [
    (64, 264, True),        # two programs fit already
    (71, 132, True),        # no more programs than SMs: a second one per SM would have nothing to run
    (71, 264, False),       # $C2T_OCCUPANCY_RETRY=0
])
def test_first_compile_kept(tmp_path, monkeypatch, regs, rows, switch):
    mod, log = _setup(tmp_path, monkeypatch, {None: (regs, 0), 64: (64, 0)})
    monkeypatch.setattr(RT, "_C2T_OCCUPANCY_RETRY", switch)
    _launch(mod, rows=rows)
    assert log == [("triton", 16, None), ("fast", None), ("fast", None)]


def test_a_cap_that_fails_to_compile_is_skipped(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {None: (71, 0)})        # maxnreg=64: KeyError in the stand-in
    _launch(mod)
    assert log == [("triton", 16, None), ("warmup", 16, 64), ("fast", None), ("fast", None)]


def test_eight_warps_cap_at_128(tmp_path, monkeypatch):
    """TileGym liger tvd (batchmean, float32): 156 registers at 8 warps; 128 fit two programs."""
    mod, log = _setup(tmp_path, monkeypatch, {None: (156, 0), 128: (128, 0)})
    x = torch.zeros(300, 8192)          # 8192-element rows: 8 warps
    mod.run(x, x)
    mod.run(x, x)
    assert log == [("triton", 8, None), ("warmup", 8, 128), ("fast", 128)]
