"""Desugar `break` and `continue` in kernel loops (Triton's compiler rejects both).

    for i in range(a, b, s):            i = ct.astype(a, ct.int32)
        A                               _c2t_run_1 = True (an int1 scalar)
        if c:                           while _c2t_run_1:
            break             ->            if i < b:
        B                                       A
                                                if c:
                                                    _c2t_run_1 = False
                                                if _c2t_run_1:
                                                    B
                                                i = i + s
                                            else:
                                                _c2t_run_1 = False

The loop variable gets a hidden counter (`_c2t_i_N`, copied into it at the top of each iteration)
when the body assigns it, and `stop`/`step` are read once into `_c2t_stop_N`/`_c2t_step_N` when
the body assigns a name they use: `range` fixes all three when the loop starts.
`continue` sets a per-iteration skip flag that guards the rest of the body; a loop with only
`continue` stays a `for` loop (and keeps Triton's pipelining). `while c:` with a break becomes
`while run: if c: body else: run = False`, so `c` (which may be an atomic) is evaluated exactly
as often as before. The pass works on the IR; the lowering then sees ordinary statements.
"""
from __future__ import annotations

import itertools

from ..ir import nodes as N
from ..ir.nodes import assigned_names, walk

CT = "__ct__"     # a name the analysis binds to the cuda.tile module, whatever the user's alias


def _ct(attr, span):
    return N.Attr(span=span, value=N.Name(span=span, id=CT), attr=attr)


def _flag_value(value: bool, span):
    return N.Call(span=span, func=_ct("astype", span),
                  args=[N.Const(span=span, value=value, text=str(value)), _ct("bool_", span)])


def _set(name, value: bool, span):
    return N.Assign(span=span, targets=[N.Name(span=span, id=name)], value=_flag_value(value, span))


def _uses(expr, names: set) -> bool:
    return any(isinstance(x, N.Name) and x.id in names for x in walk(expr))


def _is_range(it) -> bool:
    """Whether a `for` loop's iterable is a `range(...)` call (kernel loops are that or ct.static_iter)."""
    return isinstance(it, N.Call) and isinstance(it.func, N.Name) and it.func.id == "range"


def _exits(stmts, kind) -> bool:
    for st in stmts:
        if isinstance(st, N.Simple) and st.kind == kind:
            return True
        if isinstance(st, N.If) and (_exits(st.body, kind) or _exits(st.orelse, kind)):
            return True
    return False


class LoopExits:
    def __init__(self):
        self._ids = itertools.count(1)

    @staticmethod
    def applies(fd: N.FunctionDef) -> bool:
        """Whether a loop has a break or continue to desugar (`loop` is reached only for those)."""
        return any(isinstance(n, (N.For, N.While)) and not n.orelse
                   and (_exits(n.body, "break") or _exits(n.body, "continue")) for n in walk(fd.body))

    def function(self, fd: N.FunctionDef):
        fd.body = self.block(fd.body)

    def block(self, stmts: list) -> list:
        out = []
        for st in stmts:
            if isinstance(st, N.If):
                st.body, st.orelse = self.block(st.body), self.block(st.orelse)
            elif isinstance(st, (N.For, N.While)):
                st.body = self.block(st.body)
                if not st.orelse and (_exits(st.body, "break") or _exits(st.body, "continue")):
                    out.extend(self.loop(st))
                    continue
            out.append(st)
        return out

    def loop(self, lp) -> list:
        if isinstance(lp, N.For) and not _is_range(lp.iter):
            return [lp]     # (a ct.static_iter loop: the lowering refuses its break and continue, as cuTile does)
        n = next(self._ids)
        run = f"_c2t_run_{n}" if _exits(lp.body, "break") else None
        skip = f"_c2t_skip_{n}" if _exits(lp.body, "continue") else None
        sp = lp.span
        body = self.guard(lp.body, run, skip)
        if skip:
            body = [_set(skip, False, sp)] + body
        if run is None:
            lp.body = body
            return [lp]
        if isinstance(lp, N.While):
            return [_set(run, True, sp),
                    N.While(span=sp, test=N.Name(span=sp, id=run),
                            body=[N.If(span=sp, test=lp.test, body=body, orelse=[_set(run, False, sp)])])]
        # for-range with a break
        it = lp.iter
        if not (_is_range(it) and 1 <= len(it.args) <= 3 and not it.keywords and isinstance(lp.target, N.Name)):
            lp.body = body
            return [lp]     # the lowering reports the unsupported loop form
        args = list(it.args)
        start, stop, step = (N.Const(span=sp, value=0, text="0"), args[0], None) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) == 3 else None)
        iv = lp.target
        assigned = assigned_names(lp.body)
        pre = []

        def once(expr, what):        # read `expr` once, before the loop, if the body changes its names
            if expr is None or not _uses(expr, assigned):
                return expr
            tmp = f"_c2t_{what}_{n}"
            pre.append(N.Assign(span=sp, targets=[N.Name(span=sp, id=tmp)], value=expr))
            return N.Name(span=sp, id=tmp)
        negative = isinstance(step, N.UnaryOp) and step.op == "-" or \
            isinstance(step, N.Const) and isinstance(step.value, int) and step.value < 0
        stop, step = once(stop, "stop"), once(step, "step")
        counter = f"_c2t_i_{n}" if iv.id in assigned else iv.id
        if counter != iv.id:          # the body assigns the loop variable: count on a hidden one
            body = [N.Assign(span=sp, targets=[N.Name(span=sp, id=iv.id)], value=N.Name(span=sp, id=counter))] + body
        test = N.Compare(span=sp, left=N.Name(span=sp, id=counter), ops=[">" if negative else "<"],
                         comparators=[stop])
        incr = N.Assign(span=sp, targets=[N.Name(span=sp, id=counter)],
                        value=N.BinOp(span=sp, op="+", left=N.Name(span=sp, id=counter),
                                      right=step or N.Const(span=sp, value=1, text="1")))
        init = N.Assign(span=sp, targets=[N.Name(span=sp, id=counter)],
                        value=N.Call(span=sp, func=_ct("astype", sp), args=[start, _ct("int32", sp)]))
        return pre + [init, _set(run, True, sp),
                      N.While(span=sp, test=N.Name(span=sp, id=run),
                              body=[N.If(span=sp, test=test, body=body + [incr], orelse=[_set(run, False, sp)])])]

    def _alive(self, run, skip, span):
        parts = []
        if run:
            parts.append(N.Name(span=span, id=run))
        if skip:
            parts.append(N.Compare(span=span, left=N.Name(span=span, id=skip), ops=["=="],
                                   comparators=[N.Const(span=span, value=False, text="False")]))
        test = parts[0]
        for p in parts[1:]:
            test = N.BinOp(span=span, op="&", left=test, right=p)
        return test

    def guard(self, stmts, run, skip) -> list:
        """Replace break/continue by flag updates; statements after a possible exit run only
        while the flags say so."""
        out = []
        for i, st in enumerate(stmts):
            if isinstance(st, N.Simple) and st.kind == "break":
                out.append(_set(run, False, st.span))
                return out          # the rest of the block is unreachable
            if isinstance(st, N.Simple) and st.kind == "continue":
                out.append(_set(skip, True, st.span))
                return out
            if isinstance(st, N.If) and (_exits([st], "break") or _exits([st], "continue")):
                st.body = self.guard(st.body, run, skip)
                st.orelse = self.guard(st.orelse, run, skip)
                out.append(st)
                rest = stmts[i + 1:]
                if rest:
                    sp = rest[0].span
                    out.append(N.If(span=sp, test=self._alive(run, skip, sp), body=self.guard(rest, run, skip)))
                return out
            out.append(st)
        return out
