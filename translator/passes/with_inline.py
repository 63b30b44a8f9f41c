"""`with` statements over generator-based context managers in kernel code, inlined (an IR -> IR
rewrite of each kernel and of the module functions it calls, before function values are resolved).

cuTile compiles `with cm(args) as v: BODY`, where `cm` is a module function decorated with
`@contextlib.contextmanager`, by running the generator's code around the body: its parameters
bound to the arguments, the statements before its one `yield`, `v` bound to the yielded value,
BODY, then the statements after the `yield`. Here the same, as statements:

    @contextmanager                         with bracket(x, 3) as v:
    def bracket(x, a):                          BODY
        put(x, a)                 ->        _c2t_cm1_x = x   (parameters: fresh names)
        yield a + 1                         _c2t_cm1_a = 3
        put(x, -a)                          put(_c2t_cm1_x, _c2t_cm1_a)
                                            v = _c2t_cm1_a + 1
                                            BODY
                                            put(_c2t_cm1_x, -_c2t_cm1_a)

The generator's locals (parameters, assigned names, nested defs) get fresh names, so a nested def
that the generator yields (a closure over its locals) reads them where it is called. A `break` or
`continue` in BODY runs the cleanup (the statements after the `yield`) of every context entered
since its loop began, innermost first, and a `return` runs every cleanup of the function, as
Python's `__exit__` would; `with` statements inside the generator are inlined first. cuTile's
rules for the generator are its errors: a `return` in it (TileSyntaxError), no reachable
`yield`, more than one, or one inside a loop or an `if` (TileTypeError); statements after a
`break`, `continue` or `return` are dead and dropped (a `yield` there does not count).

A `with` over anything else is left as it is (the lowering refuses it, C2T103).
"""
from __future__ import annotations

import itertools
import re

from ..diagnostics import TranslationError
from ..ir import nodes as N
from ..ir.nodes import walk

_PREFIX = "_c2t_cm"


def _is_contextmanager(fd: N.FunctionDef, info) -> bool:
    for d in fd.decorators:
        e = d.expr
        if isinstance(e, N.Name) and info.imported.get(e.id) == "contextlib.contextmanager":
            return True
        if isinstance(e, N.Attr) and e.attr == "contextmanager" and isinstance(e.value, N.Name) \
                and info.other_modules.get(e.value.id) == "contextlib":
            return True
    return False


def _cm_withs(stmts, cms) -> bool:
    """Whether `stmts` hold a `with` whose first item calls one of the generators `cms`."""
    return any(isinstance(n, N.Other) and n.kind == "with_stmt" and _cm_call(n, 0, cms) is not None
               for n in walk(stmts))


def _cm_call(st, i, cms):
    if not st.items or st.items[i][0] >= len(st.exprs):
        return None
    e = st.exprs[st.items[i][0]]
    return e if isinstance(e, N.Call) and isinstance(e.func, N.Name) and e.func.id in cms else None


def _is_exit(st) -> bool:
    return isinstance(st, N.Return) or isinstance(st, N.Simple) and st.kind in ("break", "continue")


def _live(stmts) -> list:
    """`stmts` without the dead statements that follow a break, continue or return (in every block)."""
    out = []
    for st in stmts:
        for f in ("body", "orelse"):
            if isinstance(getattr(st, f, None), list) and not isinstance(st, N.FunctionDef):
                setattr(st, f, _live(getattr(st, f)))
        if isinstance(st, N.Other) and st.kind == "with_stmt":
            st.children = _live(st.children)
        out.append(st)
        if _is_exit(st):
            break
    return out


def _is_yield(st) -> bool:
    return isinstance(st, N.Other) and st.kind == "yield_stmt"


def _walk_scope(stmts):
    """The nodes of `stmts`, not inside nested functions or lambdas."""
    stack = list(reversed(stmts))
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if not isinstance(n, N.Node):
            continue
        yield n
        if isinstance(n, (N.FunctionDef, N.Lambda)):
            continue
        for f in N.child_fields(type(n)) or ():
            v = getattr(n, f)
            if isinstance(v, (N.Node, list)):
                stack.append(v)


class _Rename:
    """Renames (or substitutes) the generator's locals in its cloned body, by Python's scopes."""

    def __init__(self, mapping: dict):
        self.mapping = mapping      # name -> new name (str) or an expression node to substitute

    def block(self, stmts, m=None):
        return [self.node(s, self.mapping if m is None else m) for s in stmts]

    def node(self, n, m):
        if isinstance(n, list):
            return [self.node(x, m) for x in n]
        if not isinstance(n, N.Node):
            return n
        if isinstance(n, N.Name):
            new = m.get(n.id)
            if new is None:
                return n
            if isinstance(new, str):
                n.id = new
                return n
            return N.clone(new)
        if isinstance(n, N.FunctionDef):
            for p in n.params:
                p.default = self.node(p.default, m)
                p.annotation = self.node(p.annotation, m)
            if isinstance(m.get(n.name), str):
                n.name = m[n.name]
            inner = self._shadowed(m, {p.name for p in n.params} | N.local_names(n.body))
            n.body = self.block(n.body, inner)
            return n
        if isinstance(n, N.Lambda):
            for p in n.params:
                p.default = self.node(p.default, m)
            n.body = self.node(n.body, self._shadowed(m, {p.name for p in n.params}))
            return n
        if isinstance(n, N.Comprehension):
            bound = {x.id for c in n.fors for x in walk(c.target) if isinstance(x, N.Name)}
            inner = self._shadowed(m, bound)
            for k, c in enumerate(n.fors):
                c.iter = self.node(c.iter, m if k == 0 else inner)
                c.target = self.node(c.target, inner)
                c.conds = self.node(c.conds, inner)
            n.elt = self.node(n.elt, inner)
            return n
        for f in N.child_fields(type(n)) or ():
            v = getattr(n, f)
            if isinstance(v, (N.Node, list)):
                setattr(n, f, self.node(v, m))
        return n

    @staticmethod
    def _shadowed(m, names):
        return {k: v for k, v in m.items() if k not in names}


class WithInliner:
    def __init__(self, info, rep):
        self.info, self.rep = info, rep
        self.cms = {name: fd for name, fd in info.functions.items()
                    if isinstance(fd, N.FunctionDef) and _is_contextmanager(fd, info)}
        self.ids = itertools.count(1)
        self.used = set()       # the generators inlined

    def fail(self, message, node, cutile=None, code="C2T103"):
        self.rep.fail(code, message, node.span, cutile=cutile)

    def applies(self, fd) -> bool:
        return bool(self.cms) and _cm_withs(fd.body, self.cms)

    def function(self, fd: N.FunctionDef) -> N.FunctionDef:
        """A copy of `fd` with its context-manager `with` statements inlined."""
        fd = N.clone(fd)
        self.stable = {p.name for p in fd.params} - N.local_names(fd.body)
        self.errors = []
        fd.body = self.block(fd.body, [], [])
        return fd

    # ------------------------------------------------------------------ statements
    def block(self, stmts, loop_exits: list, fn_exits: list) -> list:
        """`stmts` with their `with` statements inlined; `loop_exits`/`fn_exits`: the cleanups (lists
        of statements, innermost last) a break/continue, a return runs first."""
        out = []
        for st in stmts:
            if isinstance(st, N.Other) and st.kind == "with_stmt" and _cm_call(st, 0, self.cms) is not None:
                out.extend(self.with_(st, 0, loop_exits, fn_exits))
            elif isinstance(st, N.Simple) and st.kind in ("break", "continue"):
                out.extend(self.cleanups(loop_exits))
                out.append(st)
            elif isinstance(st, N.Return):
                if fn_exits:
                    if st.value is not None and not isinstance(st.value, (N.Name, N.Const)):
                        tmp = f"_c2t_ret_{next(self.ids)}"      # (the value, before the cleanups run)
                        out.append(N.Assign(span=st.span, targets=[N.Name(span=st.span, id=tmp)], value=st.value))
                        st.value = N.Name(span=st.span, id=tmp)
                    out.extend(self.cleanups(fn_exits))
                out.append(st)
            elif isinstance(st, (N.For, N.While)):
                st.body = self.block(st.body, [], fn_exits)
                st.orelse = self.block(st.orelse, loop_exits, fn_exits)
                out.append(st)
            elif isinstance(st, N.If):
                st.body = self.block(st.body, loop_exits, fn_exits)
                st.orelse = self.block(st.orelse, loop_exits, fn_exits)
                out.append(st)
            elif isinstance(st, N.FunctionDef):
                st.body = self.block(st.body, [], [])       # (a nested function: its own exits)
                out.append(st)
            else:
                out.append(st)
        return out

    @staticmethod
    def cleanups(frames) -> list:
        return [s for f in reversed(frames) for s in N.clone(f)]

    def with_(self, st, i, loop_exits, fn_exits) -> list:
        """Item `i` of `with` statement `st` (and the items after it, nested in it) inlined."""
        call = _cm_call(st, i, self.cms)
        if call is None:
            self.fail("a `with` item that is not a call of a @contextmanager function of this module "
                      "is not supported in kernel code", st.exprs[st.items[i][0]] if st.items else st)
        at = st.items[i][1]
        if at == -1:
            self.fail("a `with ... as` target that is not a name or tuple is not supported in kernel code", st)
        target = st.exprs[at] if at is not None else None
        try:
            pre, value, post = self.enter(call, st)
        except TranslationError as e:
            # reported at the call; its body stays, so that nothing after it fails for lack of it
            self.errors.append(e.diag)
            if i + 1 < len(st.items):
                return self.with_(st, i + 1, loop_exits, fn_exits)
            return self.block(_live(st.children), loop_exits, fn_exits)
        out = list(pre)
        if target is not None:
            out.append(N.Assign(span=call.span, targets=[target],
                                value=value if value is not None else N.Const(span=call.span, value=None, text="None")))
        elif value is not None and any(isinstance(x, N.Call) for x in walk(value)):
            out.append(N.ExprStmt(span=call.span, value=value))
        loop_exits, fn_exits = loop_exits + [post], fn_exits + [post]
        if i + 1 < len(st.items):
            body = self.with_(st, i + 1, loop_exits, fn_exits)
        else:
            body = self.block(_live(st.children), loop_exits, fn_exits)
        out += body
        if not (body and _is_exit(body[-1])):
            out += N.clone(post)
        return out

    # ------------------------------------------------------------------ the generator
    def enter(self, call, st):
        """(statements before the yield, the yielded expression or None, statements after it) of
        the generator `call` calls, its parameters bound to the call's arguments."""
        fd = self.cms[call.func.id]
        self.used.add(fd.name)
        prefix = f"{_PREFIX}{next(self.ids)}_"
        params = [p for p in fd.params if p.kind != "posonly_marker"]
        if any(p.kind != "normal" for p in params) or any(isinstance(a, N.Starred) for a in call.args) \
                or any(k.name is None for k in call.keywords):
            self.fail(f"a call of the context manager `{fd.name}` with *args or **kwargs is not supported "
                      "in kernel code", call)
        if any(isinstance(n, N.Other) and n.kind in ("global_stmt", "nonlocal_stmt") for n in _walk_scope(fd.body)):
            self.fail(f"the context manager `{fd.name}` declares global or nonlocal names, which kernel code "
                      "does not support", call)
        for n in _walk_scope(fd.body):
            if isinstance(n, N.Return):
                self.fail(f"`{fd.name}` returns (line {n.span.line}): returning from a generator-based context "
                          "manager is not supported", call, cutile=("TileSyntaxError",
                                                  "Returning from a generator-based context manager is not supported"))
        args = self.bind(fd, params, call)
        body = N.clone(fd.body)
        local = N.local_names(body) | {p.name for p in params}
        assigned = N.local_names(body)
        mapping, binds = {}, []
        for p in params:
            a = args[p.name]
            if p.name not in assigned and (isinstance(a, N.Const) or isinstance(a, N.Name) and a.id in self.stable):
                mapping[p.name] = a     # (a literal or a parameter nothing assigns: used as it is)
            else:
                mapping[p.name] = prefix + p.name
                binds.append(N.Assign(span=call.span, targets=[N.Name(span=call.span, id=prefix + p.name)], value=a))
        for n in local - set(mapping):
            mapping[n] = prefix + n
        for n in _walk_scope(body):
            if isinstance(n, N.Raw) and n.kind != "yield_expr" and any(
                    re.search(rf"\b{re.escape(k)}\b", n.text) for k in local):
                self.fail(f"`{fd.name}`: the expression on line {n.span.line} reads a local of the context "
                          "manager, which the translation cannot inline", call)
        body = _Rename(mapping).block(body)
        body = _live(self.block(body, [], []))      # (its own `with` statements first)
        yields = [n for n in _walk_scope(body) if _is_yield(n)]
        if any(isinstance(n, N.Raw) and n.kind == "yield_expr" for n in _walk_scope(body)
               if not any(n is y.exprs[0] for y in yields if y.exprs)):
            self.fail(f"`{fd.name}`: a `yield` used as a value is not supported in kernel code", call)
        if not yields:
            self.fail(f"`{fd.name}` has no reachable `yield`", call, cutile=(
                "TileTypeError", "Expected a generator function, but no reachable `yield` statement has been found"))
        if len(yields) > 1:
            self.fail(f"`{fd.name}` has more than one `yield` (lines {yields[0].span.line} and "
                      f"{yields[1].span.line})", call, cutile=(
                "TileTypeError", "Generator-based context manager must have one `yield` statement"
                                 f"(another `yield` found on line {yields[0].span.line})"))
        k = next((j for j, s in enumerate(body) if s is yields[0]), None)
        if k is None:
            self.fail(f"`{fd.name}`: its `yield` (line {yields[0].span.line}) is inside a loop or an `if`",
                      call, cutile=(
                "TileTypeError", "`yield` statement of a generator-based context manager"
                                 " must be placed outside of loops and conditional statements"))
        raw = yields[0].exprs[0] if yields[0].exprs else None
        value = raw.parts[0] if isinstance(raw, N.Raw) and raw.parts else None
        return binds + body[:k], value, body[k + 1:]

    def bind(self, fd, params, call) -> dict:
        """{parameter: argument expression} of a call (defaults for those it does not pass)."""
        args, names = {}, [p.name for p in params]
        if len(call.args) > len(names):
            self.fail(f"`{fd.name}` takes {len(names)} arguments, {len(call.args)} given", call, code="C2T109")
        for p, a in zip(params, call.args):
            args[p.name] = a
        for k in call.keywords:
            if k.name not in names or k.name in args:
                self.fail(f"`{fd.name}`: unexpected or repeated argument `{k.name}`", call, code="C2T109")
            args[k.name] = k.value
        for p in params:
            if p.name not in args:
                if p.default is None:
                    self.fail(f"`{fd.name}`: missing argument `{p.name}`", call, code="C2T109")
                args[p.name] = N.clone(p.default)
        return args


def resolve_kernels(info, rep) -> list:
    """Inline the context-manager `with` statements of every kernel and of the module functions
    (info.kernels and info.functions take the rewritten copies); the diagnostics of those that
    fail, to report with the lowering's."""
    w = WithInliner(info, rep)
    if not w.cms:
        return []
    diags = []
    # the kernels and the module functions they call (host functions' `with` statements stay)
    names, todo = list(info.kernels), list(info.kernels.values())
    while todo:
        for n in walk(todo.pop().body):
            if isinstance(n, N.Name) and n.id in info.functions and n.id not in names and n.id not in w.cms:
                names.append(n.id)
                todo.append(info.functions[n.id])
    done = {}       # id of a function -> its rewritten copy (a nested kernel is there under two names)
    for name in names:
        fd = info.kernels.get(name) or info.functions.get(name)
        if id(fd) in done:
            new = done[id(fd)]
            if name in info.kernels:
                info.kernels[name] = new
            if info.functions.get(name) is fd:
                info.functions[name] = new
            continue
        if not isinstance(fd, N.FunctionDef) or not w.applies(fd):
            continue
        try:
            new = w.function(fd)
        except TranslationError as e:
            diags.append(e.diag)
            continue
        diags += w.errors
        info.inlined_cms |= w.used
        done[id(fd)] = new
        if name in info.kernels:
            info.kernels[name] = new
        if info.functions.get(name) is fd:
            info.functions[name] = new
    return diags
