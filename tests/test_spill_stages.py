"""Dot kernels whose pipelined loop spills registers are compiled again with one stage less
(_c2t_fewer_stages_if_spilling, on the cached launch path). No GPU: a real (non-interpreted)
JITFunction gets a stand-in dispatch whose compiled kernels report spills by num_stages."""
import types

import pytest
import torch
import triton
from triton.runtime.jit import JITFunction

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


class _Compiled:
    def __init__(self, log, stages, spills):
        self.log, self.stages, self.n_spills = log, stages, spills
        self.function, self.packed_metadata = "fn", "meta"

    def _init_handles(self):
        pass

    def launch_metadata(self, grid, stream, *args):
        return None

    def run(self, *a):
        self.log.append(("fast", self.stages))


def _setup(tmp_path, monkeypatch, spills_by_stages):
    mod = build(SRC, tmp_path)
    log = []
    kernel = JITFunction(mod.mm.fn)

    def dispatch(*args, grid, warmup, **kw):
        log.append(("warmup" if warmup else "triton", kw["num_stages"]))
        return _Compiled(log, kw["num_stages"], spills_by_stages[kw["num_stages"]])
    kernel.run = dispatch
    monkeypatch.setattr(mod, "mm", kernel)
    monkeypatch.setattr(triton.runtime.driver, "_active", types.SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: 1))
    mod._C2T_COMPILED.clear()
    mod._C2T_STAGES.clear()
    return mod, log


def _launch(mod, n=3):
    a = torch.zeros(16, 16)
    for _ in range(n):
        mod.run(a, a, a, 16)


def test_spilling_kernel_moves_to_one_stage_less(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {3: 352, 2: 0})
    _launch(mod)
    # the first launch runs as compiled (3 stages), the 2-stage variant is compiled next to it,
    # and later launches use it
    assert log == [("triton", 3), ("warmup", 2), ("triton", 2), ("fast", 2)]
    assert list(mod._C2T_STAGES.values()) == [2]


def test_variant_that_spills_as_much_is_not_taken(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {3: 120, 2: 120})
    _launch(mod)
    assert log == [("triton", 3), ("warmup", 2), ("fast", 3), ("fast", 3)]
    assert not mod._C2T_STAGES


@pytest.mark.parametrize("spills, switch", [(0, True), (352, False)])
def test_no_spills_or_switched_off_keeps_three_stages(tmp_path, monkeypatch, spills, switch):
    mod, log = _setup(tmp_path, monkeypatch, {3: spills, 2: 0})
    monkeypatch.setattr(mod, "_C2T_SPILL_STAGES", switch)
    _launch(mod)
    assert log == [("triton", 3), ("fast", 3), ("fast", 3)]


def test_a_variant_that_fails_to_compile_is_ignored(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {3: 352})        # 2 stages: KeyError in the stand-in
    _launch(mod)
    assert log == [("triton", 3), ("warmup", 2), ("fast", 3), ("fast", 3)]
    assert not mod._C2T_STAGES
