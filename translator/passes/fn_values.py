"""Function values in kernel code, resolved at translation time (an IR -> IR rewrite of each kernel
before it is planned, so that rank inference, memory ordering and the lowering see direct calls).

cuTile compiles kernel code with Python's name binding: a local may hold a cuTile operation
(`func = ct.atomic_add`), a helper or module function, a method of an array (`f =
x.get_raw_memory().atomic_add_offset`), a tuple of these, or what a module function returns
(`def add_func(x): return x.get_raw_memory().atomic_add_offset`), and module-level dicts and
tuples (analysis.py `info.tables`, folded by const_fold) are read with keys known when it
compiles (`ct.static_eval(_OPS[Op(op_id)])`). Here:

- a local bound to such a value is not assigned: its uses are replaced by the expression it
  stands for (`func(x, i, v)` becomes `ct.atomic_add(x, i, v)`); a module function whose body is
  one `return` of such a value is inlined where it is called;
- a table read with a key known at translation time is its entry (a function, a literal, an
  enum member); with a key that depends on a Constant parameter `P` (`D[P]`, `D[E(P)]`, `T[P]`
  of a tuple), each statement that uses the value becomes a compile-time dispatch over the
  table's keys: `if P == k0: ... elif P == k1: ... else: ct.static_assert(False, ...)` (Triton
  compiles only the branch the constexpr selects; a value with no entry fails compilation as
  cuTile's KeyError would).

A kernel this does not apply to is returned as it is (the same object).
"""
from __future__ import annotations

import enum

from .. import const_fold
from ..diagnostics import Span, TranslationError
from ..ir import nodes as N
from ..ir.nodes import walk

_DATA_ATTRS = {"shape", "dtype", "ndim", "strides", "T", "mT", "value", "name"}


class _Need(Exception):
    """A value that depends on a Constant parameter is used where no dispatch case is chosen."""

    def __init__(self, sel):
        super().__init__(sel.var)
        self.sel = sel


class _Sel:
    """The choice a Constant parameter `var` makes: the values `cases` it is compared with, and the
    message of the static_assert for any other value."""

    def __init__(self, var: str, cases: tuple, missing: str):
        self.var, self.cases, self.missing = var, cases, missing

    @property
    def key(self):
        return (self.var, self.cases)


def _method_names() -> set:
    from .. import rules
    from ..lower import registry
    registry.load_all()
    names = {name for (_kind, name) in registry.METHODS if not name.startswith("_")}
    names |= set(rules.TILE_METHODS) | {"slice", "tiled_view", "get_raw_memory"}
    return names - _DATA_ATTRS


def _synthetic_span(s: Span) -> Span:
    """A span at `s`'s place that covers no text (the lowering reads no source for it)."""
    return Span(s.line, s.col, s.line, s.col, s.start, s.start)


class _Resolver:
    def __init__(self, fd: N.FunctionDef, info, fail):
        self.fd, self.info, self.fail = fd, info, fail
        self.changed = False
        self.methods = _method_names()
        self.assigned: dict = {}
        for n in walk(fd.body):
            targets = n.targets if isinstance(n, N.Assign) else [n.target] if isinstance(
                n, (N.AugAssign, N.AnnAssign, N.For)) else []
            for t in targets:
                for x in walk(t):
                    if isinstance(x, N.Name):
                        self.assigned[x.id] = self.assigned.get(x.id, 0) + 1
        self.params = {p.name for p in fd.params}
        self.constants = {p.name for p in fd.params if info.is_constant_annotation(p.annotation)
                          and p.name not in self.assigned}
        self.local = set(self.assigned) | self.params
        self.inlining: list = []

    # ------------------------------------------------------------ values
    def module_fn(self, name: str):
        info = self.info
        if name in self.local or name not in info.functions or name in info.kernels:
            return None
        return info.functions[name]

    def table(self, e):
        if isinstance(e, N.Name) and e.id not in self.local and e.id in self.info.tables:
            return e.id, self.info.tables[e.id]
        return None

    def static(self, e):
        """("known", value) for an expression known at translation time, ("param", P, E) for a
        Constant parameter P (E: an enum class it is wrapped in, `E(P)`), else None."""
        info = self.info
        if isinstance(e, N.Const) and (e.value is None or isinstance(e.value, (bool, int, float, str))):
            return ("known", e.value)
        if isinstance(e, N.Name):
            if e.id in self.constants:
                return ("param", e.id, None)
            if e.id in self.local:
                return None
            if e.id in info.constants:
                return ("known", info.constants[e.id])
            if e.id in info.classes:
                return ("known", info.classes[e.id])
            return None
        if isinstance(e, N.UnaryOp) and e.op == "-":
            v = self.static(e.operand)
            if v and v[0] == "known" and isinstance(v[1], (int, float)) and not isinstance(v[1], bool):
                return ("known", -v[1])
            return None
        if isinstance(e, N.Attr):
            b = self.static(e.value)
            if not b or b[0] != "known" or e.attr.startswith("_"):
                return None
            base = b[1]
            if isinstance(base, type) and issubclass(base, enum.Enum) and e.attr in base.__members__:
                return ("known", base.__members__[e.attr])
            if isinstance(base, enum.Enum) and e.attr in ("name", "value"):
                return ("known", getattr(base, e.attr))
            return None
        if isinstance(e, N.Call) and len(e.args) == 1 and not e.keywords and not isinstance(e.args[0], N.Starred):
            f = self.static(e.func)
            if not f or f[0] != "known" or not (isinstance(f[1], type) and issubclass(f[1], enum.Enum)):
                return None
            cls = f[1]
            a = self.static(e.args[0])
            if a and a[0] == "param" and a[2] is None:
                return ("param", a[1], cls)
            if a and a[0] == "known":
                for m in cls.__members__.values():
                    if m is a[1] or (not isinstance(a[1], enum.Enum) and m.value == a[1]):
                        return ("known", m)
                self.fail("C2T106", f"`{cls.__name__}({a[1]!r})`: {a[1]!r} is not a valid {cls.__name__} "
                                    "(cuTile raises ValueError)", e)
        return None

    def of_value(self, v, node):
        """The FV of a table entry: a function, a literal, an enum member, a tuple of them."""
        if isinstance(v, const_fold.Ref):
            if v.kind == "ct":
                out = N.Name(span=_synthetic_span(node.span), id="__ct__")
                for part in v.name.split("."):
                    out = N.Attr(span=out.span, value=out, attr=part)
                return ("expr", out)
            if v.name in self.local:
                self.fail("C2T103", f"`{v.name}` (a module function a table holds) is shadowed by a local "
                                    "variable of the kernel", node, "rename the local variable")
            return ("expr", N.Name(span=_synthetic_span(node.span), id=v.name))
        if v is None or isinstance(v, (bool, int, str)) or isinstance(v, float) and v == v \
                and abs(v) != float("inf"):
            if isinstance(v, enum.Enum):
                return self.of_enum(v, node)
            return ("expr", N.Const(span=_synthetic_span(node.span), value=v, text=repr(v)))
        if isinstance(v, enum.Enum):
            return self.of_enum(v, node)
        if isinstance(v, tuple):
            return ("tuple", [self.of_value(x, node) for x in v])
        self.fail("C2T105", f"this table entry ({type(v).__name__}) cannot be used in kernel code", node)

    def of_enum(self, v, node):
        cls = next((n for n, c in self.info.classes.items() if c is type(v)), None)
        if cls is None or cls in self.local:
            self.fail("C2T105", f"enum member `{v}` of a table: its class is not a module-level enum here", node)
        sp = _synthetic_span(node.span)
        return ("expr", N.Attr(span=sp, value=N.Name(span=sp, id=cls), attr=v.name))

    def read(self, name: str, tab, e, env, over):
        """`tab[e.index]` of the table `name`."""
        k = self.static(e.index)
        keytext = _text(self.info, e.index)
        if k is None:
            self.fail("C2T105", f"`{name}[{keytext}]`: the key must be known at translation time (literals, "
                                "enum members, module constants) or depend only on a Constant parameter "
                                "(`P`, `Enum(P)`)", e.index)
        if k[0] == "known":
            key = k[1]
            if isinstance(tab, tuple):
                if not isinstance(key, int) or isinstance(key, (bool, enum.Enum)) and not isinstance(key, enum.IntEnum):
                    self.fail("C2T106", f"`{name}[{keytext}]`: tuple indices must be integers", e.index)
                if not -len(tab) <= key < len(tab):
                    self.fail("C2T106", f"`{name}[{keytext}]`: tuple index out of range (cuTile raises "
                                        "IndexError)", e.index)
                return self.of_value(tab[key], e)
            if key not in tab:
                self.fail("C2T106", f"`{name}[{keytext}]`: {key!r} is not a key of `{name}` (cuTile raises "
                                    "KeyError)", e.index)
            return self.of_value(tab[key], e)
        _, var, cls = k
        entries = []        # (value P is compared with, entry)
        if isinstance(tab, tuple):
            entries = [(i, tab[i]) for i in range(len(tab))]
        else:
            for key, val in tab.items():
                if cls is not None:
                    if isinstance(key, cls) and isinstance(key.value, (bool, int, str)):
                        entries.append((key.value, val))
                elif isinstance(key, (bool, int, str)) and not (isinstance(key, enum.Enum)
                                                                and not isinstance(key, int)):
                    entries.append((int(key) if isinstance(key, enum.IntEnum) else key, val))
        entries = list({repr(c): (c, v) for c, v in entries}.values())
        what = f"{cls.__name__}({var})" if cls is not None else var
        sel = _Sel(var, tuple(c for c, _ in entries),
                   f"{name}[{keytext}]: no entry for this value of `{var}` (cuTile raises "
                   f"{'ValueError or KeyError' if cls is not None else 'KeyError' if isinstance(tab, dict) else 'IndexError'}"
                   f" evaluating `{what}`)")
        return ("dispatch", sel, {c: self.of_value(v, e) for c, v in entries})

    def is_op(self, e) -> bool:
        from ..lower import registry
        path = self.info.ct_path(e)
        return bool(path) and registry.lookup(path) is not None

    def stable(self, e) -> bool:
        """An expression whose names the kernel never rebinds (its text means the same anywhere)."""
        return all(self.assigned.get(n.id, 0) <= (0 if n.id in self.params else 1)
                   for n in walk(e) if isinstance(n, N.Name))

    def pick(self, v, over, node=None):
        """A dispatch's case where `over` chooses it (raises _Need where it does not)."""
        if v is not None and v[0] == "conflict":
            self.fail("C2T103", f"`{getattr(node, 'id', '?')}` holds different functions on the paths that reach "
                                "this use (assigned in a branch or a loop)", node,
                      "assign the function where it is used, in each branch")
        while v is not None and v[0] == "dispatch":
            sel = v[1]
            if sel.key not in over:
                raise _Need(sel)
            v = v[2].get(over[sel.key])
            if v is None:
                return ("missing",)
        return v

    def fv(self, e, env, over):
        """The function value (or table entry) `e` stands for, else None."""
        info = self.info
        if isinstance(e, N.Name):
            if e.id in env:
                return self.pick(env[e.id], over, e)
            if e.id in self.local:
                return None
            if self.module_fn(e.id) is not None or self.is_op(e):
                return ("expr", e)
            return None
        if isinstance(e, N.Attr):
            if info.ct_path(e) is not None:
                return ("expr", e) if self.is_op(e) else None
            if e.attr in self.methods and (not isinstance(e.value, N.Name) or e.value.id in self.local):
                base = self.subst(e.value, env, over)
                if base is e.value:
                    return ("expr", e) if self.stable(e.value) else None
                if self.stable(base):
                    return ("expr", N.Attr(span=e.span, value=base, attr=e.attr))
            return None
        if isinstance(e, N.Subscript):
            t = self.table(e.value)
            if t is not None:
                return self.pick(self.read(t[0], t[1], e, env, over), over)
            base = self.fv(e.value, env, over)
            if base is not None and base[0] == "tuple":
                k = self.static(e.index)
                if k and k[0] == "known" and isinstance(k[1], int) and not isinstance(k[1], bool):
                    if not -len(base[1]) <= k[1] < len(base[1]):
                        self.fail("C2T106", "tuple index out of range", e.index)
                    return base[1][k[1]]
                if k and k[0] == "param" and k[2] is None:
                    n = len(base[1])
                    sel = _Sel(k[1], tuple(range(n)), f"`{_text(info, e)}`: `{k[1]}` is not an index of this "
                                                      f"tuple of {n} (cuTile raises IndexError)")
                    return self.pick(("dispatch", sel, dict(enumerate(base[1]))), over)
            return None
        if isinstance(e, N.TupleExpr) and e.elts:
            elts = [self.fv(x, env, over) for x in e.elts]
            if all(x is not None for x in elts) and any(x[0] != "expr" or not isinstance(x[1], N.Const)
                                                        for x in elts):
                return ("tuple", elts)
            return None
        if isinstance(e, N.Call):
            if info.ct_path(e.func) == "static_eval" and len(e.args) == 1 and not e.keywords:
                return self.fv(e.args[0], env, over)
            callee = self.fv(e.func, env, over) if not (isinstance(e.func, N.Name) and e.func.id not in env) \
                else (("expr", e.func) if self.module_fn(e.func.id) is not None else None)
            if callee is None or callee[0] != "expr" or not isinstance(callee[1], N.Name):
                return None
            fd = self.module_fn(callee[1].id)
            if fd is None:
                return None
            ret = _single_return(fd)
            if ret is None or fd.name in self.inlining:
                return None
            binding = _bind_args(fd, e)
            if binding is None:
                return None
            args = {k: self.subst(v, env, over) for k, v in binding.items()}
            self.inlining.append(fd.name)
            try:
                body = _substitute(ret, args, e.span)
                free = {n.id for n in walk(body) if isinstance(n, N.Name)} - \
                    {n.id for a in args.values() for n in walk(a) if isinstance(n, N.Name)}
                if free & self.local:
                    return None
                v = self.fv(body, {}, over)
            finally:
                self.inlining.pop()
            return v
        return None

    def node_of(self, v, e):
        if v[0] == "expr":
            self.changed = self.changed or v[1] is not e
            return N.clone(v[1])
        if v[0] == "tuple":
            self.changed = True
            return N.TupleExpr(span=e.span, elts=[self.node_of(x, e) for x in v[1]])
        if v[0] == "missing":
            raise _Missing()
        raise AssertionError(v)

    def subst(self, e, env, over):
        """`e` with the function values in it replaced by what they stand for."""
        if isinstance(e, list):
            return [self.subst(x, env, over) for x in e]
        if not isinstance(e, N.Node) or isinstance(e, (N.Lambda, N.FunctionDef)):
            return e
        if isinstance(e, N.Expr) and not isinstance(e, N.Const):
            v = self.fv(e, env, over)
            if v is not None and v[0] == "expr" and v[1] is e:
                return e
            if v is not None:
                return self.node_of(v, e)
        fields = getattr(e, "__dataclass_fields__", {})
        out = None
        for f in fields:
            if f == "span":
                continue
            old = getattr(e, f)
            if isinstance(old, (N.Node, list)):
                new = self.subst(old, env, over)
                if new is not old and not (isinstance(old, list) and all(a is b for a, b in zip(old, new))):
                    if out is None:
                        out = object.__new__(type(e))
                        out.__dict__.update(e.__dict__)
                    setattr(out, f, new)
        return out if out is not None else e

    # ------------------------------------------------------------ statements
    def block(self, stmts, env, over) -> list:
        out = []
        for st in stmts:
            out.extend(self.statement(st, env, over))
        return out

    def statement(self, st, env, over) -> list:
        try:
            return self._statement(st, env, over)
        except _Need as need:
            return self.dispatch(st, need.sel, env, over)
        except _Missing:
            return [self.missing_assert(st, over)]

    def missing_assert(self, st, over):
        self.changed = True
        sel = self._last_missing
        sp = _synthetic_span(st.span)
        ct = N.Attr(span=sp, value=N.Name(span=sp, id="__ct__"), attr="static_assert")
        msg = sel.missing if sel is not None else "no table entry"
        return N.ExprStmt(span=sp, value=N.Call(span=sp, func=ct, args=[
            N.Const(span=sp, value=False, text="False"), N.Const(span=sp, value=msg, text=repr(msg))]))

    _last_missing = None

    def dispatch(self, st, sel, env, over) -> list:
        """`st` once per value `sel`'s parameter may take, as a constexpr if/elif chain."""
        self.changed = True
        sp = _synthetic_span(st.span)
        branches = []
        after = None
        for c in sel.cases:
            e2 = dict(env)
            branches.append((c, self.statement(st, e2, {**over, sel.key: c})))
            after = e2 if after is None else _join(after, e2, st)
        if after is not None:
            env.clear()
            env.update(after)
        self._last_missing = sel
        chain = [self.missing_assert(st, over)]
        for c, body in reversed(branches):
            test = N.Compare(span=sp, left=N.Name(span=sp, id=sel.var), ops=["=="],
                             comparators=[N.Const(span=sp, value=c, text=repr(c))])
            node = N.If(span=sp, test=test, body=body or [N.Simple(span=sp, kind="pass")], orelse=chain,
                        is_elif=False)
            node.c2t_dispatch = True        # (arrays.array_guards: not a condition of the user's)
            if chain and isinstance(chain[0], N.If):
                chain[0].is_elif = True
            chain = [node]
        return chain

    def assign_fv(self, value, env, over):
        """fv of an assigned value; one that depends on a Constant parameter is a dispatch value
        (bound to the name; the statements that use it are dispatched)."""
        try:
            return self.fv(value, env, over)
        except _Need as need:
            sel = need.sel
            cases = {}
            for c in sel.cases:
                v = self.assign_fv(value, env, {**over, sel.key: c})
                if v is None or _is_data(v):
                    raise
                cases[c] = v
            return ("dispatch", sel, cases)

    def _statement(self, st, env, over) -> list:
        if isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], (N.Name, N.TupleExpr)):
            t = st.targets[0]
            v = self.assign_fv(st.value, env, over)
            if v is not None and v[0] == "missing":
                raise _Missing()
            if v is not None and isinstance(t, N.Name) and not _is_data(v):
                env[t.id] = v
                self.changed = True
                return []
            if v is not None and isinstance(t, N.TupleExpr) and v[0] == "tuple" and len(v[1]) == len(t.elts) \
                    and all(isinstance(x, N.Name) for x in t.elts) and not any(_is_data(x) for x in v[1]):
                for x, val in zip(t.elts, v[1]):
                    env[x.id] = val
                self.changed = True
                return []
            new = self.subst(st, env, over)
            for x in walk(t):
                if isinstance(x, N.Name):
                    env.pop(x.id, None)
            return [new]
        if isinstance(st, N.If):
            test = self.subst(st.test, env, over)
            e1, e2 = dict(env), dict(env)
            body = self.block(st.body, e1, over)
            orelse = self.block(st.orelse, e2, over)
            joined = _join(e1, e2, st)
            env.clear()
            env.update(joined)
            if test is st.test and _same(body, st.body) and _same(orelse, st.orelse):
                return [st]
            new = object.__new__(N.If)
            new.__dict__.update(st.__dict__)
            new.test, new.body, new.orelse = test, body, orelse
            return [new]
        if isinstance(st, (N.For, N.While)):
            head = self.subst(st.iter if isinstance(st, N.For) else st.test, env, over)
            if isinstance(st, N.For):
                for x in walk(st.target):
                    if isinstance(x, N.Name):
                        env.pop(x.id, None)
            e1 = dict(env)
            body = self.block(st.body, e1, over)
            orelse = self.block(st.orelse, dict(e1), over)
            joined = _join(env, e1, st)
            env.clear()
            env.update(joined)
            if head is (st.iter if isinstance(st, N.For) else st.test) and _same(body, st.body) \
                    and _same(orelse, st.orelse):
                return [st]
            new = object.__new__(type(st))
            new.__dict__.update(st.__dict__)
            if isinstance(st, N.For):
                new.iter = head
            else:
                new.test = head
            new.body, new.orelse = body, orelse
            return [new]
        if isinstance(st, N.FunctionDef):
            return [st]
        new = self.subst(st, env, over)
        for t in ([st.target] if isinstance(st, (N.AugAssign, N.AnnAssign)) else
                  st.targets if isinstance(st, N.Assign) else []):
            for x in walk(t):
                if isinstance(x, N.Name):
                    env.pop(x.id, None)
        return [new]


class _Missing(Exception):
    """A dispatch case with no table entry (only its static_assert is emitted)."""


def _is_data(v) -> bool:
    """A literal (or a tuple of them): assigned as it is, not bound as a function value."""
    if v[0] == "expr":
        return isinstance(v[1], N.Const)
    if v[0] == "tuple":
        return all(_is_data(x) for x in v[1])
    if v[0] == "dispatch":
        return all(_is_data(x) for x in v[2].values())
    return False


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _key(v):
    if v is None:
        return None
    if v[0] == "expr":
        return ("expr", _shape(v[1]))
    if v[0] == "tuple":
        return ("tuple", tuple(_key(x) for x in v[1]))
    if v[0] == "dispatch":
        return ("dispatch", v[1].key, tuple((c, _key(x)) for c, x in v[2].items()))
    return v


def _shape(n):
    if isinstance(n, list):
        return tuple(_shape(x) for x in n)
    if isinstance(n, N.Node):
        return (type(n).__name__,) + tuple(_shape(getattr(n, f)) for f in n.__dataclass_fields__ if f != "span")
    return n


def _join(a: dict, b: dict, st) -> dict:
    """The bindings after two paths: those both give alike; a name bound differently is a
    conflict, refused where it is used."""
    out = {}
    for k in set(a) | set(b):
        if _key(a.get(k)) == _key(b.get(k)):
            out[k] = a[k]
        else:
            out[k] = ("conflict", st)
    return out


def _single_return(fd: N.FunctionDef):
    body = [st for st in fd.body if not (isinstance(st, N.ExprStmt) and isinstance(st.value, N.Const))]
    if len(body) == 1 and isinstance(body[0], N.Return) and body[0].value is not None:
        return body[0].value
    return None


def _bind_args(fd: N.FunctionDef, call: N.Call):
    params = [p for p in fd.params if p.kind == "normal"]
    if len(params) != len(fd.params) or any(isinstance(a, N.Starred) for a in call.args) \
            or any(k.name is None for k in call.keywords) or len(call.args) > len(params):
        return None
    out = {p.name: a for p, a in zip(params, call.args)}
    for k in call.keywords:
        if k.name in out or k.name not in {p.name for p in params}:
            return None
        out[k.name] = k.value
    for p in params:
        if p.name not in out:
            if p.default is None:
                return None
            out[p.name] = p.default
    return out


def _substitute(e, args: dict, span):
    """The expression `e` of a function body with its parameters replaced by the arguments."""
    if isinstance(e, N.Name) and e.id in args:
        return N.clone(args[e.id])
    if isinstance(e, list):
        return [_substitute(x, args, span) for x in e]
    if not isinstance(e, N.Node) or isinstance(e, N.Lambda):
        return e
    out = object.__new__(type(e))
    out.__dict__.update(e.__dict__)
    out.span = _synthetic_span(span)
    for f in e.__dataclass_fields__:
        if f != "span":
            v = getattr(e, f)
            if isinstance(v, (N.Node, list)):
                setattr(out, f, _substitute(v, args, span))
    return out


def _text(info, e) -> str:
    s = e.span
    if s.end > s.start:
        return info.module.text[s.start:s.end]
    return "..."


def _uses_values(fd: N.FunctionDef, info) -> bool:
    """Whether `fd` may hold function values: it reads a table, assigns a name a function, a
    cuda.tile operation or a method, or calls a module function that returns one."""
    methods = None
    for n in info.nodes(fd.body):
        if isinstance(n, N.Name) and n.id in info.tables:
            return True
        if isinstance(n, N.Assign):
            v = n.value
            if isinstance(v, N.Call) and info.ct_path(v.func) == "static_eval" and len(v.args) == 1:
                v = v.args[0]
            for x in walk(v) if isinstance(v, N.TupleExpr) else [v]:
                if isinstance(x, N.Name) and x.id in info.functions and x.id not in info.kernels:
                    return True
                if isinstance(x, (N.Name, N.Attr)) and info.ct_path(x) not in (None, ""):
                    return True
                if isinstance(x, N.Attr):
                    methods = methods if methods is not None else _method_names()
                    if x.attr in methods:
                        return True
        if isinstance(n, N.Call) and isinstance(n.func, N.Name) and n.func.id in info.functions \
                and n.func.id not in info.kernels:
            ret = _single_return(info.functions[n.func.id])
            if ret is not None and isinstance(ret, (N.Attr, N.Name, N.Subscript)):
                return True
    return False


def resolve(fd: N.FunctionDef, info, rep) -> N.FunctionDef:
    """`fd` with its function values resolved (a copy), or `fd` itself where it has none. Raises
    TranslationError (located) where a value cannot be resolved."""
    if not _uses_values(fd, info):
        return fd

    def fail(code, msg, node, hint=""):
        rep.fail(code, msg, node.span if node is not None else fd.span, hint)
    r = _Resolver(fd, info, fail)
    body = r.block(fd.body, {}, {})
    if not r.changed:
        return fd
    new = object.__new__(N.FunctionDef)
    new.__dict__.update(fd.__dict__)
    new.body = body
    return new


def _keyword_like_values(fd, info):
    """(the node, its name) of the first ct.static_eval / static_assert / static_iter a kernel uses
    other than by calling it (`f = ct.static_eval`: cuTile's TileSyntaxError), else None."""
    called = {id(n.func) for n in walk(fd.body) if isinstance(n, N.Call)}
    for n in walk(fd.body):
        if isinstance(n, (N.Name, N.Attr)) and id(n) not in called:
            path = info.ct_path(n)
            if path in ("static_eval", "static_assert", "static_iter"):
                return n, path
    return None


def resolve_kernels(info, rep) -> list:
    """Resolve the function values of every kernel (info.kernels and info.functions take the
    rewritten copies); the diagnostics of those that fail, to report with the lowering's."""
    diags = []
    for name, fd in list(info.kernels.items()):
        indirect = _keyword_like_values(fd, info)
        if indirect:
            n, path = indirect
            diags.append(rep.make("C2T103", f"ct.{path} is used as a value: kernel code calls it by name only", n.span))
            diags[-1].cutile = ("TileSyntaxError", f"{path}() must be used directly by name,"
                                                   f" e.g. cuda.tile.{path}() or ct.{path}().")
            continue
        try:
            new = resolve(fd, info, rep)
        except TranslationError as e:
            diags.append(e.diag)
            continue
        except _Need as need:
            diags.append(rep.make("C2T105", f"a value that depends on the Constant parameter `{need.sel.var}` "
                                            "is used where it cannot be dispatched on", fd.span))
            continue
        if new is not fd:
            info.kernels[name] = new
            if info.functions.get(name) is fd:
                info.functions[name] = new
    return diags

