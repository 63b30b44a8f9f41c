"""Build the IR from Lark's parse tree (rule names come prefixed with ``python__``)."""
from __future__ import annotations

import ast as _pyast
import bisect
import gc

from ..diagnostics import Span, make_span
from ..lalr import PTree as Tree
from ..lalr import Tok as Token
from ..parse import Parsed, line_starts
from . import nodes as N

_PREFIX = "python__"


_NAMES: dict = {}       # Lark's rule name -> ours (the prefix off)


def _rule(t) -> str:
    if type(t) is Tree:
        d = t.data
        try:
            return _NAMES[d]
        except KeyError:
            r = _NAMES[d] = d[len(_PREFIX):] if d.startswith(_PREFIX) else d
            return r
    return ""


def _literal_number(tok):
    """literal_eval of a number token (Python's own int/float for the plain forms: literal_eval
    compiles a module for each)."""
    s = tok.value
    if "_" not in s:
        if tok.type.endswith("DEC_NUMBER"):
            return int(s)
        if tok.type.endswith("FLOAT_NUMBER"):
            return float(s)
    return _pyast.literal_eval(s)


def _literal_string(s: str):
    """literal_eval of a string token; a plain one (no prefix, no escapes) is its inside."""
    if s[0] in "\"'" and "\\" not in s and "\r" not in s and "\0" not in s:
        return s[3:-3] if s.startswith(('"""', "'''")) else s[1:-1]
    return _pyast.literal_eval(s)


class Builder:
    def __init__(self, text: str):
        self.text = text
        self.starts = line_starts(text)

    def span_of(self, t) -> Span:
        """The span of a token or tree (lines and columns from its character positions, as Lark's)."""
        tt = type(t)
        if tt is Token or (tt is Tree and t.start is not None):
            starts, a, b = self.starts, t.start, t.end
            la = bisect.bisect_right(starts, a)
            lb = bisect.bisect_right(starts, b)
            return make_span(la, a - starts[la - 1] + 1, lb, b - starts[lb - 1] + 1, a, b)
        return Span()

    # ------------------------------------------------------------------ helpers
    def raw(self, t, kind: str) -> N.Raw:
        """An expression the IR has no node for (dict, set, their comprehensions, `:=`, yield,
        await...): its text, and its sub-expressions as `parts`, so that host rewrites and the
        names analyses see (`{"occupancy": ct.ByTarget(...)}`) are those inside it too."""
        s = self.span_of(t)
        return N.Raw(span=s, kind=kind, text=self.text[s.start:s.end], parts=self.raw_parts(t))

    def raw_parts(self, t) -> list:
        parts = []
        for c in (t.children if isinstance(t, Tree) else []):
            if isinstance(c, Tree) or (isinstance(c, Token) and c.type.endswith("NAME")):
                parts.append(self.expr(c))
        return parts

    def name_of(self, t) -> str:
        if type(t) is Token:
            return t.value
        if _rule(t) in ("name", "var"):
            return self.name_of(t.children[0])
        raise ValueError(f"not a name: {t}")

    # ------------------------------------------------------------------ module
    def module(self, parsed: Parsed) -> N.Module:
        root = parsed.tree
        fi = root.children[0] if _rule(root) == "start" else root
        body = []
        for c in fi.children:
            body.extend(self.stmts(c))
        return N.Module(span=self.span_of(fi), body=body, text=self.text, comments=parsed.comments)

    def suite(self, t) -> list:
        if t is None:
            return []
        if _rule(t) == "suite":
            out = []
            for c in t.children:
                out.extend(self.stmts(c))
            return out
        return self.stmts(t)

    def stmts(self, t) -> list:
        """One parse-tree statement -> list of IR statements (simple_stmt may hold several)."""
        if isinstance(t, Token) or t is None:
            return []
        r = _rule(t)
        if r == "simple_stmt":
            out = []
            for c in t.children:
                out.extend(self.stmts(c))
            return out
        fn = _STMTS.get(r)
        if fn is None:
            res = self.generic(t, r)
        else:
            res = fn(self, t)
        res = res if isinstance(res, list) else [res]
        for st in res:
            st.span = self.trim(st.span)
            if isinstance(st, N.FunctionDef):
                st.full_span = self.trim(st.full_span, st.full_span.col)
        return res

    def trim(self, s: Span, col: int = 0) -> Span:
        """Lark spans of compound statements run over the blank and comment lines that follow
        them; cut those off (comments indented deeper than the statement stay inside)."""
        if s.end <= s.start:
            return s
        col = col or s.col
        text, lo = self.text, s.start
        j = s.end           # the kept text is text[lo:j]: its last lines are looked at, from the end
        cut = False
        while True:
            i = text.rfind("\n", lo, j)
            if i < 0:       # (the first line stays)
                break
            ln = text[i + 1:j]
            st = ln.strip()
            if st == "" or (st.startswith("#") and len(ln) - len(ln.lstrip()) < col):
                j, cut = i, True
            else:
                break
        if not cut and text[s.end - 1] != "\n":
            return s
        kept = text[lo:j].rstrip("\n")
        end = lo + len(kept)
        end_line = s.line + kept.count("\n")
        last = kept.rsplit("\n", 1)[-1]
        end_col = (len(last) + 1) if "\n" in kept else s.col + len(last)
        return Span(s.line, s.col, end_line, end_col, s.start, end)

    # ------------------------------------------------------------------ statements
    def s_expr_stmt(self, t):
        return N.ExprStmt(span=self.span_of(t), value=self.expr(t.children[0]))

    def s_assign_stmt(self, t):
        return self.stmts(t.children[0])

    def s_assign(self, t):
        parts = [self.expr(c) for c in t.children]
        return N.Assign(span=self.span_of(t), targets=parts[:-1], value=parts[-1])

    def s_augassign(self, t):
        target, op, value = t.children
        return N.AugAssign(span=self.span_of(t), target=self.expr(target),
                           op=str(op.children[0])[:-1], value=self.expr(value))

    def s_annassign(self, t):
        target, ann, value = (list(t.children) + [None])[:3]
        return N.AnnAssign(span=self.span_of(t), target=self.expr(target), annotation=self.expr(ann),
                           value=self.expr(value) if value is not None else None)

    def s_return_stmt(self, t):
        v = t.children[0] if t.children else None
        return N.Return(span=self.span_of(t), value=self.expr(v) if v is not None else None)

    def s_pass_stmt(self, t):
        return N.Simple(span=self.span_of(t), kind="pass")

    def s_break_stmt(self, t):
        return N.Simple(span=self.span_of(t), kind="break")

    def s_continue_stmt(self, t):
        return N.Simple(span=self.span_of(t), kind="continue")

    def s_if_stmt(self, t):
        test, body, elifs, orelse = t.children
        node = N.If(span=self.span_of(t), test=self.expr(test), body=self.suite(body))
        cur = node
        for e in (elifs.children if elifs is not None else []):
            et, eb = e.children
            nxt = N.If(span=self.span_of(e), test=self.expr(et), body=self.suite(eb), is_elif=True)
            cur.orelse = [nxt]
            cur = nxt
        if orelse is not None:
            cur.orelse = self.suite(orelse)
        return node

    def s_while_stmt(self, t):
        test, body, orelse = t.children
        return N.While(span=self.span_of(t), test=self.expr(test), body=self.suite(body),
                       orelse=self.suite(orelse))

    def s_for_stmt(self, t):
        target, it, body, orelse = t.children
        return N.For(span=self.span_of(t), target=self.expr(target), iter=self.expr(it),
                     body=self.suite(body), orelse=self.suite(orelse))

    def s_funcdef(self, t, decorators=None, full=None):
        name, params, returns, body = t.children
        fd = N.FunctionDef(span=self.span_of(t), name=self.name_of(name), params=self.params(params),
                           body=self.suite(body), decorators=decorators or [],
                           returns=self.expr(returns) if returns is not None else None)
        fd.full_span = full or fd.span
        return fd

    def s_decorated(self, t):
        decos_t, target = t.children
        decos = []
        for d in decos_t.children:
            dotted, args = d.children
            names = [self.name_of(n) for n in dotted.children]
            e: N.Expr = N.Name(span=self.span_of(dotted.children[0]), id=names[0])
            for n in names[1:]:
                e = N.Attr(span=self.span_of(dotted), value=e, attr=n)
            if len(d.children) == 2 and (args is not None or self._has_parens(d)):
                pos, kws = self.arguments(args)
                e = N.Call(span=self.span_of(d), func=e, args=pos, keywords=kws)
            decos.append(N.Decorator(span=self.span_of(d), expr=e))
        if _rule(target) == "funcdef":
            return self.s_funcdef(target, decos, self.span_of(t))
        if _rule(target) == "classdef":
            other = self.s_classdef(target)
            other.span, other.decorators = self.span_of(t), decos
            return other
        other = N.Other(span=self.span_of(t), kind=_rule(target))
        return other

    def _has_parens(self, d) -> bool:
        s = self.span_of(d)
        return "(" in self.text[s.start:s.end]

    def s_import_stmt(self, t):
        return self.stmts(t.children[0])

    def s_import_name(self, t):
        names = []
        for dan in t.children[0].children:
            dotted, alias = dan.children
            mod = ".".join(self.name_of(n) for n in dotted.children)
            names.append((mod, self.name_of(alias) if alias is not None else None))
        return N.Import(span=self.span_of(t), names=names)

    def s_import_from(self, t):
        level, module, names = 0, None, []
        for c in t.children:
            r = _rule(c)
            if r == "dots":
                level = len("".join(str(x) for x in c.children))
            elif r == "dotted_name":
                module = ".".join(self.name_of(n) for n in c.children)
            elif r == "import_as_names":
                for ian in c.children:
                    if ian is None:
                        continue
                    nm, alias = ian.children
                    names.append((self.name_of(nm), self.name_of(alias) if alias is not None else None))
        if not names:  # from x import *
            names = [("*", None)]
        return N.Import(span=self.span_of(t), names=names, module=module or "", level=level)

    _CONTAINERS = {"with_items", "with_item", "except_clauses", "except_clause", "finally",
                   "match_stmt", "case", "async_stmt", "try_finally"}

    def generic(self, t, kind: str) -> N.Other:
        """Statements the IR has no node for (with, try, raise, assert, del, global...): keep their
        nested statements and expressions so host rewrites and checks still see them."""
        children, exprs, items = [], [], []

        def visit(node):
            for c in node.children:
                if not isinstance(c, Tree):
                    continue
                r = _rule(c)
                if r == "suite":
                    children.extend(self.suite(c))
                elif r == "with_item":      # (its context expression and `as` target in exprs)
                    at = len(exprs)
                    visit(c)
                    has_target = len(c.children) > 1 and c.children[1] is not None
                    items.append((at, at + 1) if len(exprs) - at == 1 + has_target and has_target
                                 else (at, None) if len(exprs) - at == 1 else (at, -1))
                elif r in self._CONTAINERS:
                    visit(c)
                elif r.endswith("_stmt") or r in ("funcdef", "decorated", "classdef", "simple_stmt"):
                    children.extend(self.stmts(c))
                elif "pattern" in r:
                    continue
                else:
                    exprs.append(self.expr(c))
        visit(t)
        return N.Other(span=self.span_of(t), kind=kind, children=children, exprs=exprs, items=items)

    def s_classdef(self, t):
        body = t.children[-1]
        name, bases = "", []
        for c in t.children[:-1]:
            if c is None:
                continue
            if isinstance(c, Token) or _rule(c) in ("name", "var"):
                name = self.name_of(c)
            elif _rule(c) == "arguments" or isinstance(c, Tree):
                pos, kws = self.arguments(c)
                bases = pos
        return N.Other(span=self.span_of(t), kind="classdef", children=self.suite(body), name=name, bases=bases)

    # ------------------------------------------------------------------ parameters
    def params(self, t) -> list:
        if t is None:
            return []
        out = []
        for c in t.children:
            if c is None:
                continue
            if isinstance(c, Token):          # SLASH
                out.append(N.Param(span=self.span_of(c), name="/", kind="posonly_marker"))
                continue
            r = _rule(c)
            if r == "starparams":
                for sc in c.children:
                    sr = _rule(sc)
                    if sr == "starparam":
                        p = self.param(sc.children[0])
                        p.kind = "star"
                        out.append(p)
                    elif sr == "starguard":
                        out.append(N.Param(span=self.span_of(sc), name="*", kind="star"))
                    elif sr == "poststarparams":
                        for pc in sc.children:
                            if pc is None:
                                continue
                            if _rule(pc) == "kwparams":
                                p = self.param(pc.children[0])
                                p.kind = "kwstar"
                                out.append(p)
                            else:
                                out.append(self.param(pc))
            elif r == "kwparams":
                p = self.param(c.children[0])
                p.kind = "kwstar"
                out.append(p)
            else:
                out.append(self.param(c))
        return out

    def param(self, t) -> N.Param:
        r = _rule(t)
        if r == "paramvalue":
            p = self.param(t.children[0])
            p.default = self.expr(t.children[1])
            p.span = self.span_of(t)
            return p
        if r == "typedparam":
            nm, ann = t.children
            return N.Param(span=self.span_of(t), name=self.name_of(nm),
                           annotation=self.expr(ann) if ann is not None else None)
        return N.Param(span=self.span_of(t), name=self.name_of(t))

    # ------------------------------------------------------------------ expressions
    def expr(self, t) -> N.Expr:
        if t is None:
            return None
        if type(t) is Token:
            if t.type.endswith("NAME"):
                return N.Name(span=self.span_of(t), id=t.value)
            return N.Raw(span=self.span_of(t), kind="token", text=t.value)
        r = _rule(t)
        fn = _EXPRS.get(r)
        if fn is None:
            return self.raw(t, r)
        return fn(self, t)

    def e_var(self, t):
        return N.Name(span=self.span_of(t), id=self.name_of(t))

    e_name = e_var

    def e_number(self, t):
        tok = t.children[0]
        try:
            v = _literal_number(tok)
        except Exception:
            v = None
        return N.Const(span=self.span_of(t), value=v, text=tok.value)

    def e_string(self, t):
        tok = t.children[0]
        s = tok.value
        try:
            v = _literal_string(s)
        except Exception:   # f-strings
            return N.Raw(span=self.span_of(t), kind="fstring", text=s)
        return N.Const(span=self.span_of(t), value=v, text=s)

    def e_string_concat(self, t):
        parts = [self.e_string(c) for c in t.children]
        if all(isinstance(p, N.Const) and isinstance(p.value, str) for p in parts):
            s = self.span_of(t)
            return N.Const(span=s, value="".join(p.value for p in parts), text=self.text[s.start:s.end])
        return self.raw(t, "fstring")

    def e_const_none(self, t):
        return N.Const(span=self.span_of(t), value=None, text="None")

    def e_const_true(self, t):
        return N.Const(span=self.span_of(t), value=True, text="True")

    def e_const_false(self, t):
        return N.Const(span=self.span_of(t), value=False, text="False")

    def e_ellipsis(self, t):
        return N.Const(span=self.span_of(t), value=Ellipsis, text="...")

    def e_getattr(self, t):
        v, nm = t.children
        return N.Attr(span=self.span_of(t), value=self.expr(v), attr=self.name_of(nm))

    def e_getitem(self, t):
        v, idx = t.children
        return N.Subscript(span=self.span_of(t), value=self.expr(v), index=self.expr(idx))

    def e_subscript_tuple(self, t):
        return N.TupleExpr(span=self.span_of(t), elts=[self.expr(c) for c in t.children if c is not None])

    def e_slice(self, t):
        ch = list(t.children) + [None] * 3
        lower, upper, step = ch[0], ch[1], ch[2]
        st = None
        if step is not None:
            st = self.expr(step.children[0]) if step.children and step.children[0] is not None else None
        return N.SliceExpr(span=self.span_of(t), lower=self.expr(lower), upper=self.expr(upper), step=st)

    def e_funccall(self, t):
        f, args = t.children
        pos, kws = self.arguments(args)
        return N.Call(span=self.span_of(t), func=self.expr(f), args=pos, keywords=kws)

    def arguments(self, t):
        pos, kws = [], []
        if t is None:
            return pos, kws
        r = _rule(t)
        if r == "comprehension":
            return [self.comprehension(t, "generator")], []
        children = t.children if r == "arguments" else [t]
        for c in children:
            if c is None:
                continue
            cr = _rule(c)
            if cr == "argvalue":
                k, v = c.children
                kws.append(N.Keyword(span=self.span_of(c), name=self.name_of(k), value=self.expr(v)))
            elif cr == "starargs":
                for sc in c.children:
                    if sc is None:
                        continue
                    scr = _rule(sc)
                    if scr == "stararg":
                        pos.append(N.Starred(span=self.span_of(sc), value=self.expr(sc.children[0])))
                    elif scr == "kwargs":
                        self._kwargs(sc, kws)
                    elif scr == "argvalue":
                        k, v = sc.children
                        kws.append(N.Keyword(span=self.span_of(sc), name=self.name_of(k), value=self.expr(v)))
                    else:
                        pos.append(self.expr(sc))
            elif cr == "kwargs":
                self._kwargs(c, kws)
            elif cr == "comprehension":
                pos.append(self.comprehension(c, "generator"))
            else:
                pos.append(self.expr(c))
        return pos, kws

    def _kwargs(self, t, kws):
        first, *rest = t.children
        kws.append(N.Keyword(span=self.span_of(t), name=None, value=self.expr(first)))
        for c in rest:
            if c is not None and _rule(c) == "argvalue":
                k, v = c.children
                kws.append(N.Keyword(span=self.span_of(c), name=self.name_of(k), value=self.expr(v)))
            elif c is not None and _rule(c) == "kwstar":      # a second `**mapping`
                kws.append(N.Keyword(span=self.span_of(c), name=None, value=self.expr(c.children[0])))

    def comprehension(self, t, kind: str) -> N.Comprehension:
        """`elt for a in x for b in y if cond` (the `comprehension` rule)."""
        result, fors, cond = (list(t.children) + [None, None])[:3]
        gens = []
        for cf in fors.children:
            if _rule(cf) == "comp_if_mid":      # an `if` after a `for`: that for's condition
                gens[-1].conds.append(self.expr(cf.children[0]))
                continue
            _async, target, it = cf.children
            if _async is not None:
                return self.raw(t, "comprehension")
            if _rule(target) == "exprlist":
                tgt = N.TupleExpr(span=self.span_of(target), elts=[self.expr(x) for x in target.children if x is not None])
            else:
                tgt = self.expr(target)
            gens.append(N.CompFor(span=self.span_of(cf), target=tgt, iter=self.expr(it)))
        if cond is not None:    # (cutile.lark puts trailing `if`s in comp_fors; Lark's own rule slot)
            gens[-1].conds.append(self.expr(cond))
        return N.Comprehension(span=self.span_of(t), kind=kind, elt=self.expr(result), fors=gens)

    def e_tuple_comprehension(self, t):
        c = self.comprehension(t.children[0], "generator")
        c.span = self.span_of(t)
        return c

    def e_list_comprehension(self, t):
        c = self.comprehension(t.children[0], "list")
        c.span = self.span_of(t)
        return c

    def e_tuple(self, t):
        return N.TupleExpr(span=self.span_of(t), elts=[self.expr(c) for c in t.children if c is not None])

    e_testlist_tuple = e_tuple
    e_exprlist = e_tuple

    def e_list(self, t):
        return N.ListExpr(span=self.span_of(t), elts=[self.expr(c) for c in t.children if c is not None])

    def e_star_expr(self, t):
        return N.Starred(span=self.span_of(t), value=self.expr(t.children[0]))

    def _chain(self, t, fixed_op=None):
        """Left-associative chain `a op b op c`; the operator tokens are children unless the rule
        has a single operator (`fixed_op`: &, |, ^ are anonymous in the grammar)."""
        ch = t.children
        node = self.expr(ch[0])
        i = 1
        while i < len(ch):
            if fixed_op is not None:
                op, rhs = fixed_op, ch[i]
                i += 1
            else:
                op, rhs = str(ch[i]), ch[i + 1]
                i += 2
            s = self.span_of(t)
            node = N.BinOp(span=Span(node.span.line, node.span.col, s.end_line, s.end_col,
                                     node.span.start, self.span_of(rhs).end or s.end),
                           op=op, left=node, right=self.expr(rhs))
        return node

    def e_arith_expr(self, t):
        return self._chain(t)

    e_term = e_arith_expr
    e_shift_expr = e_arith_expr

    def e_and_expr(self, t):
        return self._chain(t, "&")

    def e_or_expr(self, t):
        return self._chain(t, "|")

    def e_xor_expr(self, t):
        return self._chain(t, "^")

    def e_power(self, t):
        base, exp = t.children
        return N.BinOp(span=self.span_of(t), op="**", left=self.expr(base), right=self.expr(exp))

    def e_factor(self, t):
        op, operand = t.children
        return N.UnaryOp(span=self.span_of(t), op=str(op), operand=self.expr(operand))

    def e_not_test(self, t):
        return N.UnaryOp(span=self.span_of(t), op="not", operand=self.expr(t.children[0]))

    def e_and_test(self, t):
        return N.BoolOp(span=self.span_of(t), op="and", values=[self.expr(c) for c in t.children])

    def e_or_test(self, t):
        return N.BoolOp(span=self.span_of(t), op="or", values=[self.expr(c) for c in t.children])

    def e_comparison(self, t):
        ch = t.children
        left = self.expr(ch[0])
        ops, comps = [], []
        for i in range(1, len(ch), 2):
            ops.append(" ".join(str(x) for x in ch[i].children))
            comps.append(self.expr(ch[i + 1]))
        return N.Compare(span=self.span_of(t), left=left, ops=ops, comparators=comps)

    def e_test(self, t):
        body, test, orelse = t.children
        return N.IfExp(span=self.span_of(t), test=self.expr(test), body=self.expr(body), orelse=self.expr(orelse))

    def e_lambdef(self, t):
        params_t, body = t.children
        params = []
        if params_t is not None:
            for c in params_t.children:
                if c is None:
                    continue
                if _rule(c) in ("name", "var") or isinstance(c, Token):
                    params.append(N.Param(span=self.span_of(c), name=self.name_of(c)))
                elif _rule(c) == "lambda_paramvalue":       # `s=2.0`
                    params.append(N.Param(span=self.span_of(c), name=self.name_of(c.children[0]),
                                          default=self.expr(c.children[1])))
                else:
                    return self.raw(t, "lambda")
        return N.Lambda(span=self.span_of(t), params=params, body=self.expr(body))


# rule name -> the Builder method for it (s_<rule> for statements, e_<rule> for expressions)
_STMTS = {k[2:]: v for k, v in vars(Builder).items() if k.startswith("s_")}
_EXPRS = {k[2:]: v for k, v in vars(Builder).items() if k.startswith("e_")}


def build_module(parsed: Parsed) -> N.Module:
    collecting = gc.isenabled()
    gc.disable()        # (the IR has no cycles: the collector would only scan the nodes as they are made)
    try:
        return Builder(parsed.text).module(parsed)
    finally:
        if collecting:
            gc.enable()
