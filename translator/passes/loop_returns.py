"""Desugar a bare `return` inside kernel loops (Triton's compiler rejects `return` in `for` and
`while`; cuTile accepts it):

    while c:                          _c2t_returned = False
        A                             while c:
        if d:                             A
            return          ->            if d:
        B                                     _c2t_returned = True
    C                                         break
                                          B
                                      if _c2t_returned:
                                          return
                                      C

The `break` is then desugared by loop_exits.py; in nested loops each enclosing loop breaks in turn.
A `return` with a value inside a loop is left alone: the lowering refuses it (C2T103).
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import walk
from .loop_exits import _flag_value, _is_range, _set

FLAG = "_c2t_returned"


def _returns_in_loops(stmts) -> bool:
    inside = set()      # nodes in loops looked at already (a loop in them has no bare return either)
    for n in walk(stmts):
        if isinstance(n, (N.For, N.While)) and id(n) not in inside and _loop(n):
            body = list(walk(n.body))
            if any(isinstance(r, N.Return) and r.value is None for r in body):
                return True
            inside.update(map(id, body))
    return False


def _loop(st) -> bool:
    """Whether a loop runs in the kernel: a `while` or a `for` over range(); a `for` over
    ct.static_iter is unrolled, and a `return` in it is refused by the lowering (as in cuTile)."""
    return isinstance(st, N.While) or _is_range(st.iter)


class LoopReturns:
    @staticmethod
    def applies(fd: N.FunctionDef) -> bool:
        return _returns_in_loops(fd.body)

    def function(self, fd: N.FunctionDef):
        if not _returns_in_loops(fd.body):
            return
        sp = fd.span
        body = self.block(fd.body, in_loop=False)
        doc = 1 if body and isinstance(body[0], N.ExprStmt) and isinstance(body[0].value, N.Const) \
            and isinstance(body[0].value.value, str) else 0          # after the docstring
        flag = N.Assign(span=sp, targets=[N.Name(span=sp, id=FLAG)], value=_flag_value(False, sp))
        fd.body = body[:doc] + [flag] + body[doc:]

    def block(self, stmts: list, in_loop: bool) -> list:
        out = []
        for st in stmts:
            if isinstance(st, N.Return) and st.value is None and in_loop:
                out += [_set(FLAG, True, st.span), N.Simple(span=st.span, kind="break")]
                return out           # the rest of the block is unreachable
            if isinstance(st, N.If):
                st.body, st.orelse = self.block(st.body, in_loop), self.block(st.orelse, in_loop)
            elif isinstance(st, N.For) and not _loop(st):
                pass        # (left as written: the lowering refuses a return in it, in a loop in it too)
            elif isinstance(st, (N.For, N.While)):
                returns = any(isinstance(r, N.Return) and r.value is None for r in walk(st.body))
                st.body = self.block(st.body, True)
                out.append(st)
                if returns:
                    sp = st.span
                    leave = N.Simple(span=sp, kind="break") if in_loop else N.Return(span=sp, value=None)
                    out.append(N.If(span=sp, test=N.Name(span=sp, id=FLAG), body=[leave]))
                continue
            out.append(st)
        return out
