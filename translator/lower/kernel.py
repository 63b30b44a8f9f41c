"""Lower a cuTile kernel (or tile helper) body to Triton source lines."""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Optional

from .. import rules
from ..analysis import ModuleInfo
from ..diagnostics import Reporter, Span, TranslationError
from ..ir import nodes as N
from . import registry
from . import types as T
from .types import V, paren

_UNKNOWN = object()     # FunctionLowerer._known_value: no value at translation time
_BIN_PREC = {"**": 15, "*": 13, "/": 13, "//": 13, "%": 13, "@": 13, "+": 12, "-": 12,
             "<<": 11, ">>": 11, "&": 10, "^": 9, "|": 8}


@dataclass
class Shared:
    """State shared by every function lowered in one module."""
    info: ModuleInfo
    reporter: Reporter
    comments: list
    text: str
    used: set = field(default_factory=set)            # prelude helpers used
    ranks: dict = field(default_factory=dict)         # "load" -> {ranks}
    helpers: dict = field(default_factory=dict)       # helper name -> HelperPlan (emitted jit functions)
    helper_order: list = field(default_factory=list)
    # extra module-level @triton.jit functions (combine functions, hoisted lambdas...):
    # name -> source text; emitted after the prelude, in insertion order
    extra_defs: dict = field(default_factory=dict)
    # tile shapes (lists of constexpr source expressions) and dots of the kernel being lowered:
    # the launcher sizes num_warps from them
    tile_shapes: list = field(default_factory=list)
    has_dot: bool = False

    def note_tile(self, shape_codes):
        self.tile_shapes.append(list(shape_codes))

    def add_def(self, base: str, make) -> str:
        """Add a module-level function built by make(name) -> source; an identical one is reused,
        otherwise a fresh name (base, base_1, ...) is picked. Returns the name."""
        i = 0
        while True:
            name = base if i == 0 else f"{base}_{i}"
            code = make(name)
            if name not in self.extra_defs:
                self.extra_defs[name] = code
                return name
            if self.extra_defs[name] == code:
                return name
            i += 1

    def use(self, name: str) -> str:
        self.used.add(name)
        return name

    def use_rank(self, op: str, rank: int) -> str:
        self.ranks.setdefault(op, set()).add(rank)
        return f"_c2t_{op}_{rank}d"


@dataclass
class HelperPlan:
    name: str
    fd: N.FunctionDef
    array_params: dict          # param name -> rank
    lines: list = field(default_factory=list)
    params: list = field(default_factory=list)
    done: bool = False


class FunctionLowerer:
    """Lowers one function body. `params` maps parameter names to their V (arrays expanded)."""

    def __init__(self, shared: Shared, fd: N.FunctionDef, env: dict):
        self.s = shared
        self.fd = fd
        self.env: dict = dict(env)
        self.lines: list = []
        self._comment_idx = 0
        self._comments = [c for c in shared.comments
                          if fd.span.line < c.line <= fd.span.end_line]
        self._emitted: set = set()
        self.returns: list = []
        self.written: set = set()       # arrays this block may have stored to (root names)
        self.local_funcs: dict = {}     # nested defs and named lambdas
        self.pre_lines: list = []       # lines to emit before the statement being lowered
        self.tma = None                 # a tma.TmaPlan while lowering a kernel body (descriptor path)
        from . import ops   # late import: ops uses this module's helpers
        self.ops = ops

    # ----------------------------------------------------------------- diagnostics
    def fail(self, code: str, msg: str, node=None, hint: str = ""):
        self.s.reporter.fail(code, msg, node.span if node is not None else self.fd.span, hint)

    def note(self, code: str, msg: str, node=None, hint: str = ""):
        self.s.reporter.add(code, msg, node.span if node is not None else self.fd.span, hint)

    # ----------------------------------------------------------------- statements
    def lower_body(self) -> list:
        body = self.fd.body
        self.block(body, 1)
        self._flush_comments(self.fd.span.end_line + 1, 1)
        if not self.lines:
            self.lines.append("    pass")
        return self.lines

    def block(self, stmts: list, depth: int):
        start = len(self.lines)
        for st in stmts:
            try:
                self.stmt(st, depth)
            except TranslationError as e:
                if e.diag not in self.s.reporter.items:
                    self.s.reporter.items.append(e.diag)
                self.emit(depth, f"pass  # C2T: not translated ({e.diag.code})", st)
                # names bound by the failed statement stay usable, to avoid cascading errors
                for t in getattr(st, "targets", []) + [getattr(st, "target", None)]:
                    for n in ([t] if isinstance(t, N.Name) else getattr(t, "elts", []) or []):
                        if isinstance(n, N.Name):
                            self.env[n.id] = V(n.id, T.UNKNOWN)
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def emit(self, depth: int, text: str, node=None):
        self.lines.append("    " * depth + text if text else "")

    def _flush_comments(self, before_line: int, depth: int):
        while self._comment_idx < len(self._comments) and self._comments[self._comment_idx].line < before_line:
            c = self._comments[self._comment_idx]
            self._comment_idx += 1
            if (c.line, c.col) in self._emitted:
                continue
            self._emitted.add((c.line, c.col))
            if c.own_line:
                self.emit(depth, c.text)
            elif self.lines:
                self.lines[-1] = self.lines[-1] + "  " + c.text

    def _trailing(self, line: int) -> str:
        out = []
        for c in self._comments:
            if c.line == line and not c.own_line and (c.line, c.col) not in self._emitted:
                self._emitted.add((c.line, c.col))
                out.append(c.text)
        return ("  " + " ".join(out)) if out else ""

    def _blank_before(self, line: int) -> bool:
        lines = self.s.text.split("\n")
        first = line
        for c in self._comments:
            if c.own_line and c.line < line and (c.line, c.col) not in self._emitted:
                first = min(first, c.line)
        return 2 <= first <= len(lines) and lines[first - 2].strip() == "" and len(self.lines) > 0

    def stmt(self, st, depth: int):
        if self._blank_before(st.span.line) and self.lines and self.lines[-1].strip():
            self.lines.append("")
        self._flush_comments(st.span.line, depth)
        n0 = len(self.lines)
        fn = getattr(self, "st_" + type(st).__name__, None)
        if fn is None:
            kind = getattr(st, "kind", type(st).__name__)
            self.fail("C2T103", f"statement `{kind}` is not supported in kernel code", st)
        outer, self.pre_lines = self.pre_lines, []
        try:
            fn(st, depth)
            if self.pre_lines:      # e.g. a barrier the statement (or a compound header) needs first
                self.lines[n0:n0] = ["    " * depth + ln for ln in self.pre_lines]
        finally:
            self.pre_lines = outer
        tr = self._trailing(st.span.line)
        if tr and len(self.lines) > n0:
            self.lines[n0] += tr

    def st_ExprStmt(self, st, depth):
        e = st.value
        if isinstance(e, N.Const) and isinstance(e.value, str):   # docstring
            self.emit(depth, e.text)
            return
        v = self.expr(e)
        if v.code:
            self.emit(depth, v.code)

    def _bind(self, target, v: V, node):
        if isinstance(target, N.Name):
            self.env[target.id] = v
            return target.id
        if isinstance(target, (N.TupleExpr, N.ListExpr)):
            names = []
            for i, t in enumerate(target.elts):
                if not isinstance(t, N.Name):
                    self.fail("C2T103", "only names can be unpacked in kernel code", t)
                ev = v.elts[i] if v.kind == T.TUPLE and v.elts and i < len(v.elts) else V(t.id, T.UNKNOWN)
                self.env[t.id] = V(t.id, ev.kind, rank=ev.rank, array=ev.array, elts=ev.elts,
                                   tf32=ev.tf32, value=ev.value, known=ev.known, shape=ev.shape)
                names.append(t.id)
            return ", ".join(names)
        self.fail("C2T103", "assignment to subscripts or attributes is not supported in kernel code "
                            "(cuTile arrays are written with ct.store/ct.scatter)", target)

    def st_Assign(self, st, depth):
        if isinstance(st.value, N.Lambda) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name):
            from .helpers import lambda_as_def
            fd = lambda_as_def(st.targets[0].id, st.value)
            self.local_funcs[fd.name] = fd
            self.env[fd.name] = V(fd.name, T.HELPER, value=("localfunc", fd))
            return
        v = self.expr(st.value)
        if v.kind == T.ARRAY and v.array.from_list:
            return self._assign_list_element(st, v, depth)
        if v.known and isinstance(v.value, enum.Enum) and not isinstance(v.value, int):
            for t in st.targets:       # a plain Enum member has no Triton value: bound statically
                if not isinstance(t, N.Name):
                    self.fail("C2T103", "cannot unpack this value", t)
                self.env[t.id] = v
            return
        if v.kind == T.TUPLE and any(e.kind == T.ARRAY and e.array.from_list for e in v.elts or []):
            self.fail("C2T101", "a tuple holding elements of a list of arrays cannot be assigned; "
                                "assign each element to a name (`A = As[g]`)", st)
        if v.kind in (T.ARRAY, T.LIST, T.CONSTOBJ, T.CTFUNC, T.CTMOD, T.HELPER, T.MODULE, T.ENUM) \
                or registry.lookup_method(v.kind, "__getattr__") is not None:
            # (kinds a topic module defines, e.g. a TiledView, are compile-time descriptors too)
            for t in st.targets:       # aliases of arrays/functions are resolved statically
                if not isinstance(t, N.Name):
                    self.fail("C2T103", "cannot unpack this value", t)
                self.env[t.id] = v
            return
        names = [self._bind(t, v, st) for t in st.targets]
        for nm in names:
            var = self.env.get(nm)
            if var is not None and isinstance(var, V) and var.code == nm:
                pass
        # the bound names now refer to variables
        for t in st.targets:
            if isinstance(t, N.Name):
                self.env[t.id] = V(t.id, v.kind if v.kind != T.TUPLE else T.TUPLE, rank=v.rank,
                                   elts=self._tuple_vars(t.id, v), tf32=v.tf32,
                                   value=v.value, known=v.known, shape=v.shape, isint=v.isint)
        self.emit(depth, " = ".join(names) + " = " + v.code)

    def _assign_list_element(self, st, v: V, depth):
        """`A = As[g]`: read the table row once into variables (pointer, extents, strides), so later
        uses do not depend on `g` (which may change) and do not reload the table."""
        if len(st.targets) != 1 or not isinstance(st.targets[0], N.Name):
            self.fail("C2T101", "an element of a list of arrays can only be assigned to one name", st)
        name = st.targets[0].id
        src = v.array
        ref = T.ArrayRef.for_param(name, src.rank)
        ref.root = src.root
        for dst, code in zip(ref.flat(), src.flat()):
            self.emit(depth, f"{dst} = {code}")
        self.env[name] = V(name, T.ARRAY, array=ref)

    def _tuple_vars(self, name, v):
        if v.kind != T.TUPLE or not v.elts:
            return None
        return [V(f"{name}[{i}]", e.kind, rank=e.rank, array=e.array, elts=e.elts, tf32=e.tf32,
                  value=e.value, known=e.known, shape=e.shape) for i, e in enumerate(v.elts)]

    def st_AnnAssign(self, st, depth):
        if st.value is None:
            return
        self.st_Assign(N.Assign(span=st.span, targets=[st.target], value=st.value), depth)

    def st_AugAssign(self, st, depth):
        if not isinstance(st.target, N.Name):
            self.fail("C2T103", "augmented assignment to this target is not supported", st)
        v = self.binop(st.op, st.target, st.value, st)
        self.env[st.target.id] = V(st.target.id, v.kind, rank=v.rank, tf32=v.tf32, shape=v.shape)
        plain = f"{st.target.id} {st.op} "
        if v.code.startswith(plain):
            self.emit(depth, f"{st.target.id} {st.op}= {v.code[len(plain):]}")
        else:
            self.emit(depth, f"{st.target.id} = {v.code}")

    def st_Return(self, st, depth):
        v = self.expr(st.value) if st.value is not None else None
        self.returns.append(v)
        self.emit(depth, "return" if v is None else "return " + v.code)

    def st_Simple(self, st, depth):
        if st.kind == "pass":
            self.emit(depth, "pass")
            return
        self.fail("C2T103", f"`{st.kind}` is not supported yet in kernel loops "
                            "(the Triton compiler rejects it)", st,
                  "restructure the loop with a flag or a while condition")

    def st_If(self, st, depth, kw="if"):
        test = self.expr(st.test)
        if test.known and isinstance(test.value, bool):
            # decided at translation time (e.g. a layout flag of a dual kernel): keep one branch
            taken, dropped = (st.body, st.orelse) if test.value else (st.orelse, st.body)
            if test.value:      # the else part: after the body, to the end of the statement
                lo = (st.body[-1].span.end_line + 1) if st.body else st.span.line
                hi = st.span.end_line
            else:               # the body: from the `if` line to the else part
                lo = st.span.line
                hi = (st.orelse[0].span.line - 1) if st.orelse else st.span.end_line
            for c in self._comments:
                if lo <= c.line <= hi and st.orelse:
                    self._emitted.add((c.line, c.col))
                elif not test.value and lo <= c.line <= hi:
                    self._emitted.add((c.line, c.col))
            if kw == "elif":
                self.emit(depth, "else:")
                depth += 1
            if taken:
                for x in taken:
                    self.stmt(x, depth)
            elif kw == "elif":
                self.emit(depth, "pass")
            return
        self.emit(depth, f"{kw} {test.code}:")
        before = dict(self.env)
        self.block(st.body, depth + 1)
        after_body = self.env
        self.env = dict(before)
        if st.orelse:
            if len(st.orelse) == 1 and isinstance(st.orelse[0], N.If) and st.orelse[0].is_elif:
                self._flush_comments(st.orelse[0].span.line, depth)
                self.st_If(st.orelse[0], depth, "elif")
            else:
                self.emit(depth, "else:")
                self.block(st.orelse, depth + 1)
        self._merge_env(after_body)

    def _merge_env(self, other: dict):
        for k, v in other.items():
            if k not in self.env:
                self.env[k] = v
            elif self.env[k].kind != v.kind:
                self.env[k] = V(k, T.TILE if T.TILE in (v.kind, self.env[k].kind) else T.UNKNOWN)
            elif (self.env[k].known or v.known) and not (
                    self.env[k].known and v.known and type(self.env[k].value) is type(v.value)
                    and self.env[k].value == v.value):
                self.env[k] = self._forget(self.env[k])     # the value depends on the path taken
            if k in other and self.env[k].shape != other[k].shape:   # known only if both paths agree
                self.env[k] = dataclasses.replace(self.env[k], shape=None)

    @staticmethod
    def _forget(v: V) -> V:
        """The same variable without its translation-time value."""
        elts = [FunctionLowerer._forget(e) for e in v.elts] if v.elts else v.elts
        return V(v.code, v.kind, prec=v.prec, rank=v.rank, array=v.array, tf32=v.tf32, elts=elts)

    def _forget_loop_assigned(self, body):
        """Names a loop body assigns have no single translation-time value inside or after it."""
        from .arrays import walk
        names = set()
        for n in walk(body):
            targets = n.targets if isinstance(n, N.Assign) else [n.target] if isinstance(
                n, (N.AugAssign, N.AnnAssign, N.For)) else []
            for t in targets:
                for x in walk(t):
                    if isinstance(x, N.Name):
                        names.add(x.id)
        for k in names:
            v = self.env.get(k)
            if v is not None and v.known and v.kind in (T.STATIC, T.SCALAR, T.TILE, T.TUPLE):
                self.env[k] = self._forget(v)

    def st_For(self, st, depth):
        if st.orelse:
            self.fail("C2T103", "`for ... else` is not supported in kernel code", st)
        it = st.iter
        if not (isinstance(it, N.Call) and isinstance(it.func, N.Name) and it.func.id == "range"
                and "range" not in self.env):
            path = self.s.info.ct_path(it.func) if isinstance(it, N.Call) else None
            if path == "static_iter":
                return self._static_iter(st, depth)
            self.fail("C2T103", "kernel loops must iterate over range(...)", it)
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail("C2T109", "range() takes 1 to 3 positional arguments", it)
        args = [self.expr(a) for a in it.args]
        if not isinstance(st.target, N.Name):
            self.fail("C2T103", "the loop variable must be a name", st.target)
        self.emit(depth, f"for {st.target.id} in range({', '.join(a.code for a in args)}):")
        self.env[st.target.id] = V(st.target.id, T.SCALAR, isint=True)   # range() counts in int32
        self._forget_loop_assigned(st.body)
        before = dict(self.env)
        self.written |= self._loop_writes(st.body)
        self.block(st.body, depth + 1)
        self._merge_env(before)

    def _static_iter(self, st, depth):
        """`for x in ct.static_iter(...)`: unrolled at translation time (tuples, zip, enumerate),
        or a tl.static_range loop for a range with constant bounds."""
        it = st.iter
        if len(it.args) != 1 or it.keywords:
            self.fail("C2T109", "ct.static_iter takes one iterable", it)
        src = it.args[0]
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "range" \
                and "range" not in self.env:
            args = [self.expr(a) for a in src.args]
            if not all(a.is_static for a in args) or not isinstance(st.target, N.Name):
                self.fail("C2T105", "ct.static_iter(range(...)) needs constant bounds", src)
            self.emit(depth, f"for {st.target.id} in tl.static_range({', '.join(a.code for a in args)}):")
            self.env[st.target.id] = V(st.target.id, T.STATIC)
            self.block(st.body, depth + 1)
            return
        items = self._static_items(src)
        if not items:
            self.emit(depth, "pass")
        for item in items:
            self._bind_static(st.target, item, st)
            self.block(st.body, depth)

    def _static_items(self, src, what: str = "ct.static_iter") -> list:
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id in ("zip", "enumerate") \
                and src.func.id not in self.env and not src.keywords:
            seqs = [self._static_items(a, what) for a in src.args]
            if src.func.id == "enumerate":
                return [V("", T.TUPLE, elts=[V(str(i), T.STATIC, value=i, known=True), e])
                        for i, e in enumerate(seqs[0])]
            return [V("", T.TUPLE, elts=list(group)) for group in zip(*seqs)]
        v = self.expr(src)
        if v.kind != T.TUPLE or v.elts is None:
            self.fail("C2T105", f"{what} needs a tuple (or zip/enumerate of tuples) known at "
                                "translation time", src)
        return list(v.elts)

    def _bind_static(self, target, item: V, node):
        if isinstance(target, N.Name):
            self.env[target.id] = item
        elif isinstance(target, (N.TupleExpr, N.ListExpr)) and item.kind == T.TUPLE and item.elts \
                and len(item.elts) == len(target.elts):
            for t, e in zip(target.elts, item.elts):
                self._bind_static(t, e, node)
        else:
            self.fail("C2T103", "cannot unpack this static_iter item", node)

    def st_While(self, st, depth):
        if st.orelse:
            self.fail("C2T103", "`while ... else` is not supported in kernel code", st)
        self.written |= self._loop_writes(st.body)
        self._forget_loop_assigned(st.body)
        test = self.expr(st.test)
        self.emit(depth, f"while {test.code}:")
        self.block(st.body, depth + 1)

    def st_FunctionDef(self, st, depth):
        if st.decorators:
            self.fail("C2T103", "decorated nested functions are not supported in kernel code", st)
        for c in self._comments:           # its comments travel with the hoisted function
            if st.span.line <= c.line <= st.span.end_line:
                self._emitted.add((c.line, c.col))
        self.local_funcs[st.name] = st    # hoisted to module level when called (helpers.local_call)
        self.env[st.name] = V(st.name, T.HELPER, value=("localfunc", st))

    # ----------------------------------------------------------------- memory ordering
    @staticmethod
    def _root(arr) -> str:
        import re
        if getattr(arr, "root", ""):
            return arr.root
        m = re.match(r"\(*([A-Za-z_][A-Za-z_0-9]*)", arr.ptr)
        return m.group(1) if m else arr.ptr

    def mark_written(self, arr):
        """A store/scatter/atomic to `arr` happened (cuTile orders a block's later reads after it)."""
        self.written.add(self._root(arr))

    def before_read(self, arr):
        """A load/gather of `arr`: after a store to the same array, threads of the block must
        see each other's writes, which Triton only guarantees across a barrier."""
        if self._root(arr) in self.written and "tl.debug_barrier()" not in self.pre_lines:
            self.pre_lines.append("tl.debug_barrier()  # cuTile orders this read after the block's earlier store")

    def _loop_writes(self, body):
        """Arrays a loop body stores to: a read at the top of the next iteration follows them."""
        from .arrays import walk
        names = set()
        for n in walk(body):
            if isinstance(n, N.Call) and n.args and isinstance(n.args[0], (N.Name, N.Subscript)):
                path = self.s.info.ct_path(n.func)
                if path in ("store", "scatter") or (path or "").startswith("atomic_"):
                    a = n.args[0]
                    if isinstance(a, N.Subscript):      # ct.store(Cs[g], ...)
                        a = a.value
                        if not isinstance(a, N.Name):
                            continue
                    v = self.env.get(a.id)
                    if v is not None and v.kind == T.ARRAY:
                        names.add(self._root(v.array))
                    elif v is not None and v.kind == T.LIST:
                        names.add(v.value.name)
        return names

    # ----------------------------------------------------------------- expressions
    def expr(self, e) -> V:
        fn = getattr(self, "e_" + type(e).__name__, None)
        if fn is None:
            what = getattr(e, "kind", type(e).__name__)
            self.fail("C2T103", f"expression `{what}` is not supported in kernel code", e)
        return fn(e)

    def e_Const(self, e):
        return V(e.text, T.STATIC, value=e.value, known=True)

    def e_Name(self, e):
        nm = e.id
        if nm in self.env:
            return self.env[nm]
        info = self.s.info
        if nm in info.constants:
            return self.static_value(info.constants[nm], e, name=nm)
        if nm in info.classes:      # a module-level enum class or frozen dataclass
            return V(nm, T.CONSTOBJ, value=info.classes[nm], known=True)
        path = info.ct_path(e)
        if path is not None:
            return self.ct_object(path, e)
        if nm in info.functions and nm not in info.kernels:
            return V(nm, T.HELPER, value=nm)
        if nm in info.imported and nm not in info.ct_names and info.imported[nm].split(".")[0] not in (
                "math", "torch", "numpy", "operator", "functools", "typing", "dataclasses", "enum"):
            return V(nm, T.HELPER, value=("imported", nm))
        if nm in info.other_modules:
            return V(nm, T.MODULE, value=info.other_modules[nm])
        if nm in ("True", "False", "None"):
            return V(nm, T.STATIC, value={"True": True, "False": False, "None": None}[nm], known=True)
        if nm in ("range", "min", "max", "len", "int", "float", "abs", "bool", "print", "divmod", "tuple"):
            return V(nm, T.MODULE, value="builtins." + nm)
        self.fail("C2T103", f"name `{nm}` is not defined for kernel code "
                            "(module globals must be literals, cuTile objects or functions)", e)

    def static_value(self, val, node, name: str = "") -> V:
        if isinstance(val, enum.Enum):
            if isinstance(val, int) and not isinstance(val, bool):      # IntEnum: an int
                code = repr(int(val))
            else:   # a plain Enum member has no Triton value; it only takes part in folded compares
                code = repr(f"{type(val).__name__}.{val.name}")
            return V(code, T.STATIC, value=val, known=True, prec=14 if code.startswith("-") else 100)
        if dataclasses.is_dataclass(val) or (isinstance(val, type) and issubclass(val, enum.Enum)):
            # a frozen dataclass value, or an alias of an enum class / dataclass
            return V(name or getattr(val, "__name__", type(val).__name__), T.CONSTOBJ, value=val, known=True)
        if isinstance(val, float):
            if val != val:
                return V('float("nan")', T.STATIC, value=val, known=True)
            if val in (float("inf"), float("-inf")):
                return V(('-' if val < 0 else '') + 'float("inf")', T.STATIC, value=val, known=True,
                         prec=14 if val < 0 else 100)
        if isinstance(val, tuple):
            elts = [self.static_value(x, node) for x in val]
            return V("(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")",
                     T.TUPLE, elts=elts, value=val, known=True)
        code = repr(val)
        return V(code, T.STATIC, value=val, known=True, prec=14 if code.startswith("-") else 100)

    def ct_object(self, path: str, node) -> V:
        head = path.split(".")[0]
        if path in rules.DTYPES:
            return V(rules.DTYPES[path], T.DTYPE, value=path, tf32=(path == "tfloat32"))
        if head in ("PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope"):
            if "." in path:
                return V(path, T.ENUM, value=path)
            return V(path, T.CTMOD, value=path)
        if path == "":
            return V("ct", T.CTMOD, value="")
        return V(path, T.CTFUNC, value=path)

    def e_Attr(self, e):
        base = self.expr(e.value)
        if base.kind == T.CTMOD:
            path = f"{base.value}.{e.attr}" if base.value else e.attr
            return self.ct_object(path, e)
        if base.kind == T.MODULE:
            mod = str(base.value)
            if mod in ("math", "numpy", "np") and e.attr in rules.MATH_CONSTANTS:
                code = rules.MATH_CONSTANTS[e.attr]
                return V(code, T.STATIC, value=e.attr)
            if mod.split(".")[0] in ("torch", "numpy", "np") and e.attr in rules.FOREIGN_DTYPES:
                return V(rules.FOREIGN_DTYPES[e.attr], T.DTYPE, value=e.attr)
            self.fail("C2T103", f"`{base.code}.{e.attr}` cannot be used in kernel code", e)
        if base.kind == T.ARRAY:
            from .ops_memory import array_attr
            return array_attr(self, base, e.attr, e)
        if base.kind == T.CONSTOBJ or (base.known and isinstance(base.value, enum.Enum)):
            return self._fold_attr(base, e)
        if base.kind in (T.TILE, T.SCALAR, T.UNKNOWN, T.STATIC):
            if e.attr == "shape":
                return V(f"{paren(base, 100)}.shape", T.STATIC, rank=None)
            if e.attr == "dtype":
                return V(f"{paren(base, 100)}.dtype", T.DTYPE)
            if e.attr == "ndim":
                if base.rank is not None:
                    return V(str(base.rank), T.STATIC, value=base.rank, known=True)
                return V(f"len({base.code}.shape)", T.STATIC)
            # a method: resolved by the call
            return V(f"{paren(base, 100)}.{e.attr}", T.UNKNOWN, value=("method", base, e.attr))
        hook = registry.lookup_method(base.kind, "__getattr__")
        if hook is not None:     # attributes of a kind a topic module defines (TiledView...)
            return hook(self, base, e)
        if base.kind == T.DTYPE and e.attr in ("bitwidth", "name"):
            self.fail("C2T101", f"dtype.{e.attr} is host-only in cuTile", e)
        self.fail("C2T103", f"attribute `{e.attr}` of this value is not supported in kernel code", e)

    def _fold_attr(self, base: V, e) -> V:
        """`Mode.FAST`, `cfg.tile_m`, `Mode.FAST.value`: attributes of module-level enums and frozen
        dataclass values are compile-time constants."""
        obj = base.value
        if e.attr.startswith("_") or callable(getattr(type(obj), e.attr, None)) \
                and not isinstance(getattr(obj, e.attr, None), enum.Enum):
            self.fail("C2T101", f"`{base.code}.{e.attr}` cannot be used in kernel code (only members, "
                                "fields, .name and .value are folded)", e)
        try:
            val = getattr(obj, e.attr)
        except AttributeError:
            self.fail("C2T103", f"`{base.code}` has no attribute `{e.attr}`", e)
        if isinstance(val, (bool, int, float, str, tuple, enum.Enum)) or val is None \
                or (dataclasses.is_dataclass(val) and not isinstance(val, type)):
            return self.static_value(val, e, name=f"{base.code}.{e.attr}")
        self.fail("C2T101", f"`{base.code}.{e.attr}` is not a constant kernel code can use", e)

    def e_Subscript(self, e):
        base = self.expr(e.value)
        idx = e.index
        if base.kind == T.LIST:
            return self._list_element(base, idx, e)
        if base.kind == T.TUPLE and base.elts is not None:
            iv = self.expr(idx)
            if iv.known and isinstance(iv.value, int):
                try:
                    return base.elts[iv.value]
                except IndexError:
                    self.fail("C2T103", "tuple index out of range", e)
            return V(f"{paren(base, 100)}[{iv.code}]", T.UNKNOWN)
        if base.kind in (T.TILE, T.SCALAR, T.UNKNOWN):
            parts = idx.elts if isinstance(idx, N.TupleExpr) else [idx]
            out, rank = [], base.rank
            for p in parts:
                if isinstance(p, N.SliceExpr) and p.lower is None and p.upper is None and p.step is None:
                    out.append(":")
                elif isinstance(p, N.Const) and p.value is None:
                    out.append("None")
                    rank = rank + 1 if rank is not None else None
                elif isinstance(p, N.Const) and p.value is Ellipsis:
                    out.append("...")
                else:
                    self.fail("C2T103", "tiles can only be indexed with `:`, `None` and `...` "
                                        "(use ct.extract or .item())", p)
            return V(f"{paren(base, 100)}[{', '.join(out)}]", base.kind, rank=rank)
        if base.kind == T.STATIC:
            iv = self.expr(idx)
            return V(f"{paren(base, 100)}[{iv.code}]", T.STATIC)
        self.fail("C2T103", "this subscript is not supported in kernel code", e)

    def _list_element(self, base: V, idx, e) -> V:
        """`As[g]` of a list-of-arrays parameter: an array whose pointer, extents and strides are
        read from the parameter's table (row g)."""
        from .arrays import walk
        if isinstance(idx, (N.SliceExpr, N.TupleExpr)):
            self.fail("C2T101", "a list of arrays can only be indexed with one integer", e)
        for n in walk(idx):     # the index text is repeated in every table read: it must be pure
            if isinstance(n, N.Call):
                f = self.expr(n.func) if not isinstance(n.func, N.Lambda) else None
                pure = f is not None and (
                    (f.kind == T.CTFUNC and not str(f.value).startswith(("atomic", "print", "assert", "static")))
                    or (f.kind == T.MODULE and str(f.value) in ("builtins.min", "builtins.max", "builtins.int",
                                                                 "builtins.abs", "builtins.len")))
                if not pure:
                    self.fail("C2T101", "the index of a list of arrays must not call functions with "
                                        "side effects (assign it to a variable first)", n)
        iv = self.expr(idx)
        if iv.kind not in (T.STATIC, T.SCALAR, T.TILE, T.UNKNOWN) or (iv.kind == T.TILE and iv.rank not in (0, None)):
            self.fail("C2T101", "a list of arrays must be indexed with an integer scalar", e)
        if iv.kind == T.TILE and iv.rank is None:
            self.fail("C2T101", "a list of arrays must be indexed with an integer scalar "
                                "(this value may be a tile)", e)
        lst = base.value
        if iv.known:
            if not isinstance(iv.value, int) or isinstance(iv.value, bool) or iv.value < 0:
                self.fail("C2T101", "a list of arrays must be indexed with a non-negative integer", e)
            ref = lst.element(str(iv.value), known=iv.value)
        else:
            ref = lst.element(paren(iv, 14))
        return V(ref.ptr, T.ARRAY, array=ref)

    def e_TupleExpr(self, e):
        return self.make_tuple([self.expr(x) for x in e.elts])

    def make_tuple(self, elts: list) -> V:
        code = "(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")"
        return V(code, T.TUPLE, elts=elts, known=all(x.known for x in elts),
                 value=tuple(x.value for x in elts) if all(x.known for x in elts) else None)

    # ----------------------------------------------------------------- comprehensions
    def e_Comprehension(self, e):
        self.fail("C2T103", "only tuple(... for ...) comprehensions are supported in kernel code "
                            "(cuTile has no lists or generators there)", e)

    def unroll_comprehension(self, comp) -> list:
        """`tuple(f(x) for x in t)`: the elements, unrolled at translation time over tuples,
        zip/enumerate of tuples, ct.static_iter(...) and range() with constant bounds."""
        from .arrays import walk
        names = {x.id for f in comp.fors for x in walk(f.target) if isinstance(x, N.Name)}
        saved = {k: self.env[k] for k in names if k in self.env}
        out: list = []
        try:
            self._unroll_level(comp, 0, out)
        finally:       # comprehension variables do not leak (Python 3)
            for k in names:
                if k in saved:
                    self.env[k] = saved[k]
                else:
                    self.env.pop(k, None)
        return out

    def _unroll_level(self, comp, k: int, out: list):
        if len(out) > 4096:
            self.fail("C2T105", "this comprehension unrolls to more than 4096 elements", comp)
        if k == len(comp.fors):
            if comp.cond is not None:
                c = self._known_value(self.expr(comp.cond))
                if c is _UNKNOWN:
                    self.fail("C2T105", "the `if` of a tuple comprehension must be known at translation "
                                        "time", comp.cond)
                if not c:
                    return
            out.append(self.expr(comp.elt))
            return
        f = comp.fors[k]
        for item in self._comp_items(f.iter):
            self._bind_static(f.target, item, f)
            self._unroll_level(comp, k + 1, out)

    def _comp_items(self, it) -> list:
        if isinstance(it, N.Call) and isinstance(it.func, N.Name) and it.func.id == "range" \
                and "range" not in self.env:
            if it.keywords or not 1 <= len(it.args) <= 3:
                self.fail("C2T109", "range() takes 1 to 3 positional arguments", it)
            bounds = [self._known_value(self.expr(a)) for a in it.args]
            if any(b is _UNKNOWN or not isinstance(b, int) or isinstance(b, bool) for b in bounds):
                self.fail("C2T105", "a comprehension over range() needs integer bounds known at translation "
                                    "time (literals, module constants, enum/dataclass fields)", it)
            if len(bounds) == 3 and bounds[2] == 0:
                self.fail("C2T109", "range() step must not be zero", it)
            r = range(*bounds)
            if len(r) > 4096:
                self.fail("C2T105", "this comprehension unrolls to more than 4096 elements", it)
            return [V(str(i), T.STATIC, value=i, known=True, prec=14 if i < 0 else 100) for i in r]
        if isinstance(it, N.Call) and self.s.info.ct_path(it.func) == "static_iter":
            if len(it.args) != 1 or it.keywords:
                self.fail("C2T109", "ct.static_iter takes one iterable", it)
            return self._comp_items(it.args[0])
        return self._static_items(it, "a tuple comprehension")

    @staticmethod
    def _known_value(v: V):
        """The Python value of a static whose value is known (literal arithmetic included)."""
        if v.known:
            return v.value
        if v.kind == T.STATIC and v.code:
            import ast
            try:     # compile-time arithmetic of literals (`i % 2 == 0` with i known): Python semantics
                tree = ast.parse(v.code, mode="eval")
            except SyntaxError:
                return _UNKNOWN
            if all(isinstance(n, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp,
                                  ast.Constant, ast.operator, ast.unaryop, ast.cmpop, ast.boolop))
                   for n in ast.walk(tree)):
                try:
                    return eval(compile(tree, "<static>", "eval"), {"__builtins__": {}})
                except Exception:
                    return _UNKNOWN
        return _UNKNOWN

    def e_ListExpr(self, e):
        v = self.e_TupleExpr(N.TupleExpr(span=e.span, elts=e.elts))
        return v

    def e_UnaryOp(self, e):
        v = self.expr(e.operand)
        if e.op == "not":
            if v.known and isinstance(v.value, bool):
                return V(str(not v.value), T.STATIC, value=not v.value, known=True)
            return V(f"not {paren(v, 6)}", v.kind if v.kind != T.TUPLE else T.STATIC, prec=6, rank=v.rank)
        if v.known and e.op == "-" and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            return self.static_value(-v.value, e)
        return V(f"{e.op}{paren(v, 14)}", v.kind, prec=14, rank=v.rank, tf32=v.tf32)

    def e_BinOp(self, e):
        return self.binop(e.op, e.left, e.right, e)

    def binop(self, op, left, right, node) -> V:
        a, b = self.expr(left), self.expr(right)
        v = self.ops.binary(self, op, a, b, node)
        if v.kind == T.TILE and v.shape is None and op != "@":
            v.shape = T.same_shape(a, b)
        return v

    def _fold_compare(self, e, vals: list) -> Optional[V]:
        """Compares involving enum members or frozen dataclass values are decided at translation
        time (with Python's semantics); None when there are none."""
        def special(v):
            return v.known and (isinstance(v.value, enum.Enum) or (
                dataclasses.is_dataclass(v.value) and not isinstance(v.value, type)))
        if not any(special(v) for v in vals):
            return None
        if not all(v.known for v in vals):
            if all(not special(v) or (isinstance(v.value, int) and isinstance(v.value, enum.Enum))
                   for v in vals):
                return None     # IntEnum members compare as ints at run time
            self.fail("C2T105", "an enum member or dataclass value can only be compared with values "
                                "known at translation time", e)
        import operator
        fns = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
               ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
               "in": lambda a, b: operator.contains(b, a), "not in": lambda a, b: not operator.contains(b, a)}
        result = True
        try:
            for op, a, b in zip(e.ops, vals, vals[1:]):
                result = result and bool(fns[op](a.value, b.value))
        except (TypeError, KeyError) as err:
            self.fail("C2T105", f"this comparison fails in Python ({err})", e)
        return V(str(result), T.STATIC, value=result, known=True)

    def e_Compare(self, e):
        vals = [self.expr(x) for x in [e.left, *e.comparators]]
        folded = self._fold_compare(e, vals)
        if folded is not None:
            return folded
        parts, left = [], vals[0]
        kind = left.kind
        for op, right in zip(e.ops, vals[1:]):
            if op in ("in", "not in"):
                self.fail("C2T103", f"`{op}` is not supported in kernel code", e)
            parts.append(f"{paren(left, 8)} {op} {paren(right, 8)}")
            if right.kind in (T.TILE, T.SCALAR) or left.kind in (T.TILE, T.SCALAR):
                kind = T.TILE if T.TILE in (left.kind, right.kind) else T.SCALAR
            left = right
        if len(parts) == 1:
            return V(parts[0], kind if kind in (T.TILE, T.SCALAR) else T.STATIC, prec=7)
        if kind == T.TILE:
            return V(" & ".join(f"({p})" for p in parts), T.TILE, prec=10)
        return V(" and ".join(parts), kind if kind == T.SCALAR else T.STATIC, prec=5)

    def e_BoolOp(self, e):
        vals = [self.expr(x) for x in e.values]
        prec = 5 if e.op == "and" else 4
        kind = T.SCALAR if any(v.is_runtime for v in vals) else T.STATIC
        if any(v.kind == T.TILE for v in vals):
            self.fail("C2T103", f"`{e.op}` on tiles is not supported; use `&`/`|`", e)
        return V(f" {e.op} ".join(paren(v, prec + 1) for v in vals), kind, prec=prec)

    def e_IfExp(self, e):
        t, b, o = self.expr(e.test), self.expr(e.body), self.expr(e.orelse)
        if b.kind == T.DTYPE and o.kind == T.DTYPE:
            # e.g. `dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype`: the tf32-ness of
            # the result is itself a compile-time condition
            tf32 = (b.tf32 or False) if b.tf32 == o.tf32 else (
                f"({t.code})" if b.tf32 is True and not o.tf32 else
                f"not ({t.code})" if o.tf32 is True and not b.tf32 else None)
            if tf32 is None:
                self.fail("C2T101", "this conditional tfloat32 dtype is not supported yet", e)
            return V(f"{paren(b, 4)} if {paren(t, 4)} else {paren(o, 3)}", T.DTYPE, prec=3, tf32=tf32)
        kind = T.STATIC if t.is_static and b.is_static and o.is_static else (b.kind if b.kind == o.kind else T.UNKNOWN)
        return V(f"{paren(b, 4)} if {paren(t, 4)} else {paren(o, 3)}", kind, prec=3, rank=b.rank)

    def e_Call(self, e):
        return self.ops.call(self, e)

    def e_Raw(self, e):
        self.fail("C2T103", f"`{e.text[:40]}` ({e.kind}) is not supported in kernel code", e)

    def e_Lambda(self, e):
        self.fail("C2T103", "lambdas are supported when assigned to a name or passed to ct.reduce/ct.scan "
                            "(an immediately called lambda is not)", e)
