"""IR -> IR passes run on each kernel and tile helper before lowering, in this order."""
from __future__ import annotations

from ..ir import nodes as N
from .loop_exits import LoopExits
from .loop_returns import LoopReturns

PASSES = [LoopReturns, LoopExits]      # (returns in loops become breaks, which LoopExits desugars)


def prepare(fd: N.FunctionDef) -> N.FunctionDef:
    """A copy of `fd` with every pass applied (the original IR stays as parsed for host code), or
    `fd` itself where no pass changes anything (most kernels: the lowering only reads the IR)."""
    if not any(p.applies(fd) for p in PASSES):
        return fd
    fd = N.clone(fd)
    for p in PASSES:
        p().function(fd)
    return fd
