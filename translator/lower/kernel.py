"""Lower a cuTile kernel (or tile helper) body to Triton source lines."""
from __future__ import annotations

import dataclasses
import enum
import functools
import re
from dataclasses import dataclass, field
from typing import Callable

from .. import rules
from ..analysis import ModuleInfo
from ..diagnostics import ERROR, Reporter, TranslationError
from ..ir import nodes as N
from . import array_choice, prefetch, registry
from . import types as T
from .arrays import static_iter_members, walk
from .context import LoweringContext, _static_tuple
from .dtype_facts import facts_of
from .exprs import ExpressionLowering, imported_helper, lambda_as_def
from .gemm_loops import GemmLoops
from .moved_tiles import MovedTiles
from .product_operands import ProductOperands
from .types import SrcLine, V

STATIC_ITER_MAX = 1000      # iterations ct.static_iter unrolls (cuTile's limit: more is TileStaticEvalError)


@dataclass
class Shared:
    """State shared by every function lowered in one module."""
    info: ModuleInfo
    reporter: Reporter
    comments: list
    text: str
    # how a call of a module function, nested def, lambda or dataclass method is lowered
    # (helpers.lower_call, given by api.py): LoweringContext.call_function calls it
    calls: Callable
    used: set = field(default_factory=set)            # prelude helpers used
    host_needs: set = field(default_factory=set)      # host prelude parts the launches need (host.rewrite_host)
    ranks: dict = field(default_factory=dict)         # "load" -> {ranks}
    helpers: dict = field(default_factory=dict)       # helper name -> HelperPlan (emitted jit functions)
    helper_order: list = field(default_factory=list)
    # extra module-level @triton.jit functions (combine functions, hoisted lambdas...):
    # name -> source text; emitted after the prelude, in insertion order
    extra_defs: dict = field(default_factory=dict)
    # names host code uses, {name: count} (partial.host_name_uses): a helper host code calls keeps
    # its Python definition beside its jit twin
    host_uses: dict = field(default_factory=dict)
    helper_depth: int = 0       # helpers being lowered, one inside another (helpers._MAX_DEPTH)
    # lowered helpers by (function, argument signature) (lower/helpers.py)
    helper_plans: dict = field(default_factory=dict)
    temps: dict = field(default_factory=dict)        # prefix -> next number (LoweringContext.fresh_temp)
    launch_ranks: dict = field(default_factory=dict)  # {kernel: {array: rank}} a launch gives (Options.ranks)

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
    array_reads: set = field(default_factory=set)       # array parameters it reads / writes
    array_writes: set = field(default_factory=set)


@dataclass
class SqueezedLoad:
    """A fact about one statement, `x = ct.load(...)` (`load`: its call), that the next statement
    reshapes only to drop unit extents (`target`: the reshape's static shape), and whether the one
    after that transposes x (`transposes`): block() finds them (_load_then_reshape) before the load
    is lowered, and the load's lowering (ops_memory._squeezed_load, through
    LoweringContext.squeeze_of) sets `folded` to the statements after it that its code stands for
    (1: the reshape; 2: the transpose too; 0: none, the statements are lowered as written)."""
    load: N.Call
    target: list
    transposes: bool
    folded: int = 0


@dataclass
class KernelTiles:
    """What the launcher sizes one kernel's launch by, gathered while the kernel and the helpers it
    calls are lowered (all its layout-flag variants): the shapes of the tiles it builds (lists of
    source expressions) and whether it multiplies tiles (num_warps, num_stages)."""
    shapes: list = field(default_factory=list)
    has_dot: bool = False

    def note(self, shape_codes):
        self.shapes.append(list(shape_codes))


def _fn_key(v):
    """What a function value (T.HELPER) stands for: the function (by identity) and its captures."""
    val = v.value
    if isinstance(val, tuple):
        return tuple(id(x) if isinstance(x, N.Node) else tuple(sorted(x.items())) if isinstance(x, dict)
                     else id(x) if isinstance(x, V) else x for x in val)
    return val


class FunctionLowerer(GemmLoops, ExpressionLowering):
    """Lowers one function body. `params` maps parameter names to their V (arrays expanded)."""

    def __init__(self, shared: Shared, fd: N.FunctionDef, env: dict, tiles: KernelTiles = None):
        self.s = shared
        # the tiles of the kernel this function is lowered for (a helper's count where it is called)
        self.tiles = tiles if tiles is not None else KernelTiles()
        self.fd = fd
        self.env: dict = dict(env)
        # Constant parameters (compile-time in Triton too): V.nonneg conditions may name them
        self.constexpr_params = {k for k, v in env.items() if v.kind == T.STATIC and not v.known and v.code == k}
        self.lines: list = []
        self.line_now = fd.span.line     # the cuTile line of the statement being lowered (SrcLine)
        # a rank variant's {array: rank} (kernels.py _plan_rank_variants), the branches it could
        # not lower, {(line, col, part): their diagnostics}, and those it lowered
        self.rank_choice: dict = {}
        self.rank_dead: dict = {}
        self.rank_lowered: set = set()
        self._comment_idx = 0
        self._comments = [c for c in shared.comments
                          if fd.span.line < c.line <= fd.span.end_line]
        self._emitted: set = set()
        self.returns: list = []
        self.written: set = set()       # arrays this block may have stored to (root names)
        self.read: dict = {}            # arrays it may have read since its last barrier: root -> regions
        self.loop_events: list = []     # per enclosing loop: its body's reads, writes and barriers, in order
        self.if_path: list = []         # enclosing if branches: (id of the if, "body"/"else", static test)
        self.all_written: set = set()   # every array the function stores to (batched launches)
        self.all_read: set = set()      # every array it loads from (a helper's, for its callers)
        self.local_funcs: dict = {}     # nested defs and named lambdas
        self.pre_lines: list = []       # lines to emit before the statement being lowered
        self.carried: dict = {}         # array names the enclosing loops rebind -> their carried V (array_choice)
        self.carried_ptrs: set = set()  # the pointer variables of those
        self.one_path: set = set()      # names a run-time `if` bound on one of its paths only
        self.tma = None                 # a tma.TmaPlan while lowering a kernel body (descriptor path)
        self.prefetch: dict = {}        # id(load statement) -> prefetch.Prefetch (persistent loops)
        self.prefetch_comment_done = False
        self.prefetch_names: set = set()    # names taken in this function (prefetch.fresh_name)
        self.grid_stride_depth = 0      # grid-stride loops enclosing the statement being lowered
        self.node_values = {}
        self.squeeze = None             # the SqueezedLoad of the statement being lowered (block)
        # aliased-load reuse: tiles loaded in straight-line code, by their load code with the array
        # written as "@" -> (array, variable holding the tile, names the load code reads); a later
        # load of another array with the same code may take that tile when the launcher finds the
        # two arrays to be the same memory (`<array>_IS_<other>`; see _reuse_aliased_load)
        self.same_loads: dict = {}
        self.aliases: dict = {}         # array parameter -> [array parameters its loads may reuse]
        self.fd_is_kernel = False       # set for kernel bodies (helpers take no alias flags)
        self.coarsen = False            # a coarsened kernel body: ct.bid(0) is `c2t_bid0` (coarsen.py)
        self.static_range_depth = 0     # inside tl.static_range loops (ct.static_iter over a range)
        # it has (or calls a helper with) a product that may be in a chain of products: it takes
        # the constexpr C2T_PAD and passes it on (ops._chain_flag)
        self.pad_products = False
        self.param_arrays: set = set()  # the kernel's array parameters
        self.loop_depth = 0             # loops around the statement being lowered
        self.permutes_tiles = False     # a helper it calls transposes/permutes tiles (no CTA clusters)
        self.emits_permute = False      # ... or its own code does (LoweringContext.note_permute)
        self.init_gemm_loops()          # gemm_loops.GemmLoops: the launcher's num_stages
        self._product_operands = None   # product_operands()
        self._moved_tiles = None        # moved_tiles()
        self.cx = LoweringContext(self)     # what op handlers see (lower/context.py)

    def product_operands(self):
        """Which of this function's names may hold a product's result (product_operands; made on
        first use, after fd_is_kernel is known)."""
        if self._product_operands is None:
            self._product_operands = ProductOperands(self.fd, self.fd_is_kernel, self.s.info)
        return self._product_operands

    def moved_tiles(self):
        """Which of this function's names may hold tiles whose elements moved between threads
        (moved_tiles; made on first use, after fd_is_kernel is known)."""
        if self._moved_tiles is None:
            self._moved_tiles = MovedTiles(self.fd, self.fd_is_kernel, self.s.info)
        return self._moved_tiles

    def lower_nested(self, fd: N.FunctionDef, env: dict) -> tuple:
        """(lines, returned values) of `fd` lowered on its own with `env` (a combine function's body,
        ops_scan): LoweringContext.lower_function."""
        sub = FunctionLowerer(self.s, fd, env, self.tiles)
        return sub.lower_body(), sub.returns

    # ----------------------------------------------------------------- diagnostics
    def fail(self, code: str, msg: str, node=None, hint: str = "", module: bool = False, cutile=None):
        """Refuse with a located diagnostic; `cutile`: (error class, message) where cuTile refuses it too."""
        self.s.reporter.fail(code, msg, node.span if node is not None else self.fd.span, hint, module, cutile)

    def note(self, code: str, msg: str, node=None, hint: str = ""):
        self.s.reporter.add(code, msg, node.span if node is not None else self.fd.span, hint)

    # ----------------------------------------------------------------- statements
    def lower_body(self) -> list:
        body = self.fd.body
        if self.coarsen:
            doc = body[:1] if body and isinstance(body[0], N.ExprStmt) and isinstance(body[0].value, N.Const) \
                and isinstance(body[0].value.value, str) else []
            if doc:
                self.block(doc, 1)
            self.lines += [
                "    # C2T_COARSEN programs of the launch grid, one after another (1, compiled as a plain",
                "    # program, but for small tiles over many programs: see the launcher's _c2t_coarsen);",
                "    # c2t_bid0 is cuTile's ct.bid(0)",
                "    for c2t_k in tl.static_range(C2T_COARSEN):",
                "        c2t_bid0 = tl.program_id(0) * C2T_COARSEN + c2t_k",
                "        if C2T_COARSEN == 1 or c2t_bid0 < c2t_programs:"]
            self.block(body[len(doc):], 3)
            self._flush_comments(self.fd.span.end_line + 1, 3)
            return self.lines
        self.block(body, 1)
        self._flush_comments(self.fd.span.end_line + 1, 1)
        if not self.lines:
            self.lines.append("    pass")
        return self.lines

    def block(self, stmts: list, depth: int):
        start = len(self.lines)
        skip = ()
        outer_loads = dict(self.same_loads)     # tiles loaded in this block do not outlive it
        for i, st in enumerate(stmts):
            if any(st is s for s in skip):      # the reshape (and transpose) a squeezed load did
                continue
            fact = self.squeeze = self._load_then_reshape(stmts, i)
            try:
                self.stmt(st, depth)
                if fact is not None and fact.folded:
                    skip = tuple(stmts[i + 1:i + 1 + fact.folded])
                    # the folded statements' trailing comments go on the load's line
                    self.lines[-1] += ("  # loads the transposed tile (the ct.transpose after it)"
                                       if fact.folded == 2 else "") + "".join(
                        self._trailing(s.span.line) for s in skip)
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
        self.same_loads = {k: e for k, e in outer_loads.items() if self.same_loads.get(k) is e}

    def _forget_loads(self, names: set):
        """Assignments to `names` end the tiles recorded under them or read through them."""
        if names and self.same_loads:
            self.same_loads = {k: e for k, e in self.same_loads.items()
                               if e[1] not in names and not (e[2] & names)}

    def _reuse_aliased_load(self, name: str, v: V, depth: int) -> V:
        """`name = ct.load(B, ...)` (v) in a loop: when an earlier statement of this straight-line
        code loaded array A with the same load code (B written for A), the tile is still in its
        variable, and the kernel writes neither array, then B's tile is A's whenever the launcher
        finds B and A to be the same memory (same pointer, extents, strides and dtype: TileGym's
        MLA decoding passes its latent cache as both K and V): `v = k if V_IS_K else <load>`.
        The loaded tiles are recorded for later loads either way."""
        b = v.load_of
        norm = self._load_key(b, v.code)
        prev = self.same_loads.get(norm)
        if prev is not None and prev[0] != b:
            a = prev[0]
            written = self._loop_writes(self.fd.body)
            if a not in written and b not in written and {a, b} <= self.param_arrays:
                others = self.aliases.setdefault(b, [])
                if a not in others:
                    others.append(a)
                other = f"({v.code})" if v.prec == 0 else v.code
                self.emit(depth, f"# when the launcher finds {b} and {a} to be the same memory "
                                 f"(`{b}_IS_{a}`), this tile is `{prev[1]}`")
                return V(f"{prev[1]} if {b}_IS_{a} else {other}", v.kind, prec=0, rank=v.rank,
                         shape=v.shape, isint=v.isint, **facts_of(v))
        if prev is None:
            self.same_loads[norm] = (b, name, set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", norm)))
        return v

    @staticmethod
    def _load_key(array: str, code: str) -> str:
        """A load's code with `array` (and its extents, strides, flags) written as "@"."""
        return re.sub(rf"\b{re.escape(array)}(_shape_\d+|_stride_\d+|_TMA|_desc_\d+)?\b", r"@\1", code)

    def may_reuse_aliased_load(self, array: str, code: str) -> bool:
        """Whether this load of `array` (its code) repeats an earlier load of another array in
        this straight-line code of a kernel's loop, which _reuse_aliased_load may let it take."""
        prev = self.same_loads.get(self._load_key(array, code))
        return self.fd_is_kernel and self.loop_depth > 0 and prev is not None and prev[0] != array

    def _load_then_reshape(self, stmts: list, i: int):
        """A SqueezedLoad when stmts[i] is `x = ct.load(...)` and stmts[i + 1] is
        `x = ct.reshape(x, shape)` (or `x = x.reshape(shape)`: method spellings are read as the ct
        calls they mirror, `_as_ct_call`): the pair may become one load of the reshaped tile.
        `transposes`: stmts[i + 2] transposes x (`_transposes`), which that load may do too (see
        ops_memory._squeezed_load)."""
        st, info = stmts[i], self.s.info
        if i + 1 >= len(stmts) or id(st) in self.prefetch:
            return None
        nxt = stmts[i + 1]
        for s in (st, nxt):
            if not (isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], N.Name)
                    and isinstance(s.value, N.Call)):
                return None
        x = st.targets[0].id
        if info.ct_path(st.value.func) != "load" or nxt.targets[0].id != x:
            return None
        form = self._as_ct_call(nxt.value)
        if form is None or form[0] != "reshape":
            return None
        _, args, kws = form
        src = args[0] if args else kws.get("x")
        shape = args[1] if len(args) > 1 else kws.get("shape")
        if not (isinstance(src, N.Name) and src.id == x) or shape is None or len(args) + len(kws) != 2:
            return None
        if any(isinstance(n, N.Name) and n.id == x for n in walk([shape])):
            return None         # (the shape is evaluated before the load: it must not read x)
        try:
            target = _static_tuple(self.cx, self.expr(shape), "reshape shape", nxt.value)
        except TranslationError:
            return None         # the reshape statement reports it when it is lowered
        return SqueezedLoad(st.value, target, i + 2 < len(stmts) and self._transposes(stmts[i + 2], x))

    def _as_ct_call(self, call: N.Call):
        """(ct function, positional args, {keyword: value}) of `call` read as a cuTile call: `ct.f(...)`
        as written, a tile method `t.f(...)` (rules.TILE_METHODS, as ops.method_call lowers it) with
        the tile as the first argument; None for other calls."""
        path = self.s.info.ct_path(call.func)
        kws = {k.name: k.value for k in call.keywords}
        if path:
            return path, list(call.args), kws
        if isinstance(call.func, N.Attr) and call.func.attr in rules.TILE_METHODS:
            return rules.TILE_METHODS[call.func.attr], [call.func.value, *call.args], kws
        return None

    def _transposes(self, st, x: str) -> bool:
        """Whether `st` is `x = ct.transpose(x)` or `x = ct.permute(x, (1, 0))`, or their method
        spellings (`x = x.transpose()`, `x = x.permute((1, 0))`)."""
        if not (isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name)
                and st.targets[0].id == x and isinstance(st.value, N.Call)):
            return False
        form = self._as_ct_call(st.value)
        if form is None or form[2] or not form[1] or not (isinstance(form[1][0], N.Name) and form[1][0].id == x):
            return False
        name, args, _ = form
        if name == "transpose":
            return len(args) == 1
        axes = args[1] if name == "permute" and len(args) == 2 else None
        return (isinstance(axes, N.TupleExpr) and all(isinstance(e, N.Const) for e in axes.elts)
                and [e.value for e in axes.elts] == [1, 0])

    def emit(self, depth: int, text: str, node=None):
        origin = node.span.line if node is not None and node.span.line else self.line_now
        self.lines.append(SrcLine("    " * depth + text if text else "", origin))

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
        lines = _source_lines(self.s.text)
        first = line
        for c in self._comments:        # (in line order: the first such comment has the least line)
            if c.line >= line:
                break
            if c.own_line and (c.line, c.col) not in self._emitted:
                first = c.line
                break
        return 2 <= first <= len(lines) and lines[first - 2].strip() == "" and len(self.lines) > 0

    def stmt(self, st, depth: int):
        if self._blank_before(st.span.line) and self.lines and self.lines[-1].strip():
            self.lines.append("")
        self._flush_comments(st.span.line, depth)
        n0 = len(self.lines)
        if self.same_loads:
            self._forget_loads(N.assigned_names([st]))
        fn = getattr(self, "st_" + type(st).__name__, None)
        if fn is None:
            kind = getattr(st, "kind", type(st).__name__)
            what = f"a `{kind[:-5]}` statement" if kind.endswith("_stmt") else f"statement `{kind}`"
            self.fail("C2T103", f"{what} is not supported in kernel code", st)
        outer, self.pre_lines = self.pre_lines, []
        outer_line, self.line_now = self.line_now, st.span.line or self.line_now
        looped = isinstance(st, (N.For, N.While))
        self.loop_depth += looped
        if looped:
            self.begin_loop()
        try:
            fn(st, depth)
            if self.pre_lines:      # e.g. a barrier the statement (or a compound header) needs first
                self.lines[n0:n0] = ["    " * depth + ln for ln in self.pre_lines]
        finally:
            self.pre_lines = outer
            self.line_now = outer_line
            self.loop_depth -= looped
            if looped:
                self.end_loop()
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

    def _bind(self, target, v: V, node, nested: list = None):
        """Bind an assignment target to `v`; returns the target as Triton code. A nested tuple
        target (`a, (b, c) = ...`; Triton unpacks names only) is bound to a temporary named after
        its names, appended with the target to `nested` for the caller to unpack next."""
        if isinstance(target, N.Name):
            self.env[target.id] = v
            return target.id
        if isinstance(target, (N.TupleExpr, N.ListExpr)):
            if v.kind == T.TUPLE and v.elts is not None and len(v.elts) != len(target.elts) \
                    and not any(isinstance(t, N.Starred) for t in target.elts):
                few = "few" if len(v.elts) < len(target.elts) else "many"
                self.fail("C2T109", f"too {few} values to unpack: {len(target.elts)} names for a tuple of "
                                    f"{len(v.elts)}", target,
                          cutile=("TileValueError", f"Too {few} values to unpack (expected {len(target.elts)}, "
                                                    f"got {len(v.elts)})"))
            names = []
            for i, t in enumerate(target.elts):
                ev = v.elts[i] if v.kind == T.TUPLE and v.elts and i < len(v.elts) else None
                if isinstance(t, (N.TupleExpr, N.ListExpr)) and nested is not None:
                    tmp = "_" + "_".join(n.id for n in walk_names(t))
                    while tmp in self.env and tmp not in {n for n, _ in nested}:
                        tmp += "_"
                    ev = ev or V(tmp, T.TUPLE)
                    self.env[tmp] = V(tmp, T.TUPLE, elts=ev.elts, value=ev.value, known=ev.known)
                    nested.append((tmp, t))
                    names.append(tmp)
                    continue
                if not isinstance(t, N.Name):
                    self.fail("C2T103", "only names and tuples of names can be unpacked in kernel code", t)
                ev = ev or V(t.id, T.UNKNOWN)
                self.env[t.id] = V(t.id, ev.kind, rank=ev.rank, array=ev.array, elts=ev.elts,
                                   tf32=ev.tf32, value=ev.value, known=ev.known, shape=ev.shape,
                                   **facts_of(ev))
                names.append(t.id)
            return ", ".join(names)
        base = self.env.get(target.value.id) if isinstance(target, N.Subscript) and isinstance(
            target.value, N.Name) else None
        # (`t[0] = 7` of a tuple or a tile: cuTile's error too, its setitem rules)
        immutable = None if base is None else {
            T.TUPLE: ("TileTypeError", "Tuples are immutable: item assignment is not supported."),
            T.TILE: ("TileTypeError", "Tiles are immutable: item assignment is not supported."),
        }.get(base.kind)
        self.fail("C2T103", "assignment to subscripts or attributes is not supported in kernel code "
                            "(cuTile arrays are written with ct.store/ct.scatter)", target, cutile=immutable)

    def st_Assign(self, st, depth):
        if isinstance(st.value, N.Lambda) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name):
            fd = self.bind_defaults(lambda_as_def(st.targets[0].id, st.value))
            self.local_funcs[fd.name] = fd
            self.env[fd.name] = V(fd.name, T.HELPER, value=("localfunc", fd))
            return
        plan = self.prefetch.get(id(st))
        if plan is not None:
            v = prefetch.emit_in_loop(self, st, plan, *plan.loop, depth)
            self.env[plan.target] = V(plan.target, v.kind, rank=v.rank, shape=v.shape, isint=v.isint,
                                      **facts_of(v))
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
            if v.kind == T.ARRAY and len(st.targets) == 1 and isinstance(st.targets[0], N.Name) \
                    and array_choice.assign_carried(self, st.targets[0].id, v, st, depth):
                return      # an array name a loop rebinds: its carried parts are set
            for t in st.targets:       # aliases of arrays/functions are resolved statically
                if not isinstance(t, N.Name):
                    self.fail("C2T103", "cannot unpack this value", t)
                self.env[t.id] = v
            return
        if v.load_of and len(st.targets) == 1 and isinstance(st.targets[0], N.Name) and self.fd_is_kernel \
                and self.loop_depth:    # (in loops, where a reused tile saves a load per iteration)
            v = self._reuse_aliased_load(st.targets[0].id, v, depth)
        if self._unpacks_dtype(st, v):
            return self._assign_dtypes_apart(st, v, depth)
        self._assign_value(st, v, depth)

    @staticmethod
    def _unpacks_dtype(st, v: V) -> bool:
        """`d, s = tv.dtype, tv.tile_shape`: a tuple holding a dtype unpacked into names. Triton's
        compiler cannot assign a tuple with a dtype in it (it types each element; a dtype has no
        type), though its interpreter can."""
        return (len(st.targets) == 1 and isinstance(st.targets[0], (N.TupleExpr, N.ListExpr))
                and v.kind == T.TUPLE and v.elts is not None and len(v.elts) == len(st.targets[0].elts)
                and all(isinstance(t, N.Name) for t in st.targets[0].elts)
                and any(e.kind == T.DTYPE for e in v.elts))

    def _assign_dtypes_apart(self, st, v: V, depth):
        """`_unpacks_dtype`'s assignment as one per element, in order (a compile-time tuple as a
        constexpr, as Triton's compiler needs it to index it at compile time). Where an element's
        code names an assigned name (Python evaluates the whole right side first), the dtypes are
        held in temporaries and the other elements assigned together."""
        names = [t.id for t in st.targets[0].elts]
        pairs = list(zip(st.targets[0].elts, v.elts))

        def one(t, e, static_tuples=True):
            self._assign_value(N.Assign(span=st.span, targets=[t], value=st.value), e, depth, static_tuples)
        if not any(re.search(rf"\b{re.escape(n)}\b", e.code) for e in v.elts for n in names):
            for t, e in pairs:
                one(t, e)
            return
        dts = []
        for t, e in pairs:
            if e.kind == T.DTYPE:
                tmp = self.cx.fresh_temp("_c2t_dtype")
                self.emit(depth, f"{tmp} = {e.code}")
                dts.append((t, dataclasses.replace(e, code=tmp)))
        rest = [(t, e) for t, e in pairs if e.kind != T.DTYPE]
        if len(rest) == 1:
            one(*rest[0], static_tuples=False)
        elif rest:
            tgt = N.TupleExpr(span=st.targets[0].span, elts=[t for t, _ in rest])
            self._assign_value(N.Assign(span=st.span, targets=[tgt], value=st.value),
                               self.make_tuple([e for _, e in rest]), depth)
        for t, e in dts:
            one(t, e)

    def _assign_value(self, st, v: V, depth, static_tuples: bool = False):
        """Bind and emit `targets = v` (the lowered right side); with `static_tuples`, a tuple of
        compile-time values assigned once is a constexpr, as such a value is (below)."""
        nested = []
        names = [self._bind(t, v, st, nested) for t in st.targets]
        # the bound names now refer to variables
        for t in st.targets:
            if isinstance(t, N.Name):
                self.env[t.id] = V(t.id, v.kind if v.kind != T.TUPLE else T.TUPLE, rank=v.rank,
                                   elts=self._tuple_vars(t.id, v), tf32=v.tf32,
                                   value=v.value, known=v.known, shape=v.shape, isint=v.isint,
                                   nonneg=v.nonneg, **facts_of(v))
        if (v.kind == T.STATIC or static_tuples and _static_tuple_value(v)) and len(names) == 1 \
                and names[0].isidentifier() and v.code != names[0] and self._assign_count(names[0]) == 1:
            # a compile-time value (from Constant parameters and literals): Triton keeps it a
            # constexpr only when annotated; unannotated it becomes a runtime value, which breaks
            # constexpr parameters it is passed to (e.g. check_bounds) on the GPU compiler
            self.emit(depth, f"{names[0]}: tl.constexpr = {v.code}")
            return
        self.emit(depth, " = ".join(names) + " = " + v.code)
        while nested:                 # `a, (b, c) = x` as `a, _b_c = x` then `b, c = _b_c`
            tmp, t = nested.pop(0)
            self.emit(depth, f"{self._bind(t, self.env[tmp], st, nested)} = {tmp}")

    def _assign_count(self, name: str) -> int:
        """How many times the function assigns `name` (any form); cached per function."""
        counts = getattr(self, "_assigned_counts", None)
        if counts is None:
            counts = {}

            def add(t):
                for n in walk([t]) if not isinstance(t, N.Name) else [t]:
                    if isinstance(n, N.Name):
                        counts[n.id] = counts.get(n.id, 0) + 1
            for n in walk(self.fd.body):
                if isinstance(n, N.Assign):
                    for t in n.targets:
                        add(t)
                elif isinstance(n, (N.AugAssign, N.AnnAssign)):
                    add(n.target)
                elif isinstance(n, N.For):
                    add(n.target)
            for p in getattr(self.fd, "params", []):
                counts[p.name] = counts.get(p.name, 0) + 1
            self._assigned_counts = counts
        return counts.get(name, 0)

    def _assign_list_element(self, st, v: V, depth):
        """`A = As[g]`: read the table row once into variables (pointer, extents, strides), so later
        uses do not depend on `g` (which may change) and do not reload the table."""
        if len(st.targets) != 1 or not isinstance(st.targets[0], N.Name):
            self.fail("C2T101", "an element of a list of arrays can only be assigned to one name", st)
        name = st.targets[0].id
        src = v.array
        ref = T.ArrayRef.for_param(name, src.rank)
        ref.root = src.root
        keep = {}       # (the list's static extents and strides: its constexprs, as they are)
        for dst, code in zip(ref.flat(), src.flat()):
            if code in src.constexprs:
                keep[dst] = code
                continue
            self.emit(depth, f"{dst} = {code}")
        ref.shapes = [keep.get(x, x) for x in ref.shapes]
        ref.strides = [keep.get(x, x) for x in ref.strides]
        ref.constexprs = src.constexprs
        self.env[name] = V(name, T.ARRAY, array=ref)

    def _tuple_vars(self, name, v):
        if v.kind != T.TUPLE or v.elts is None:
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
        # (a tuple keeps its elements: `acc += (t,)` in an unrolled ct.static_iter loop builds one)
        self.env[st.target.id] = V(st.target.id, v.kind, rank=v.rank, tf32=v.tf32, shape=v.shape,
                                   elts=self._tuple_vars(st.target.id, v), **facts_of(v))
        plain = f"{st.target.id} {st.op} "
        if v.code.startswith(plain):
            self.emit(depth, f"{st.target.id} {st.op}= {v.code[len(plain):]}")
        else:
            self.emit(depth, f"{st.target.id} = {v.code}")

    def st_Return(self, st, depth):
        if self.loop_depth and st.value is not None:
            self.fail("C2T103", "`return` with a value inside a loop is not supported (Triton's compiler "
                                "rejects `return` in loops)", st,
                      "assign the result to a variable, break out of the loop and return it after the loop")
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
            if taken and self.rank_choice:      # a rank variant: the branch may not be for its ranks
                self._branch(st, taken, depth, "body" if test.value else "else")
            elif taken:
                for x in taken:
                    self.stmt(x, depth)
            elif kw == "elif":
                self.emit(depth, "pass")
            return
        self.emit(depth, f"{kw} {test.code}:")
        before = dict(self.env)
        frame = self.loop_frames[-1] if self.loop_frames else None
        start = self._loop_counts(frame)
        self.if_path.append((id(st), "body", test.is_static))
        try:
            self._branch(st, st.body, depth + 1, "body")
        finally:
            self.if_path.pop()
        mid = self._loop_counts(frame)
        after_body = self.env
        self.env = dict(before)
        if st.orelse:
            self.if_path.append((id(st), "else", test.is_static))
            try:
                if len(st.orelse) == 1 and isinstance(st.orelse[0], N.If) and st.orelse[0].is_elif:
                    self._flush_comments(st.orelse[0].span.line, depth)
                    self.st_If(st.orelse[0], depth, "elif")
                else:
                    self.emit(depth, "else:")
                    self._branch(st, st.orelse, depth + 1, "else")
            finally:
                self.if_path.pop()
            if not test.is_static:      # (a constexpr condition: Triton keeps one branch)
                self._warn_constants_merged(st, before, after_body)
        chosen = self._tf32_chosen(st, test, after_body) if test.is_static else {}
        self._merge_env(after_body, runtime=not test.is_static, node=st, test=test, before=before)
        for k, tf32 in chosen.items():
            self.env[k] = dataclasses.replace(self.env[k], tf32=tf32)
        if frame is not None:
            self._one_branch_per_iteration(frame, start, mid)

    def _tf32_chosen(self, st, test: V, after_body: dict) -> dict:
        """Names whose tf32-ness differs between the branches of an `if` on a Constant (the body's
        names `after_body`, the other path's in self.env), as `if a.dtype == ct.float32: a =
        ct.astype(a, ct.tfloat32)`: name -> the condition under which it is tfloat32 after the `if`
        (Triton keeps one branch; tf32 and fp32 are both float32 there, so products read it).
        The condition is the test's code where the branches rebind none of its names, else a
        constexpr name bound to it before the `if` (not inside a tl.static_range loop, which
        would bind it again: refused there)."""
        out = {}
        for k, v in after_body.items():
            w = self.env.get(k)
            if w is None or v.kind not in (T.TILE, T.SCALAR) or w.kind != v.kind or bool(v.tf32) == bool(w.tf32):
                continue
            if not (v.tf32 is True or w.tf32 is True) or (v.tf32 and w.tf32):
                out[k] = None       # both conditional: not told apart (fp32 products stay exact)
                continue
            out[k] = "body" if v.tf32 is True else "else"
        if not any(out.values()):
            return out
        read = {n.id for n in N.walk(st.test) if isinstance(n, N.Name)}
        if read & N.assigned_names(st.body + st.orelse):
            if self.coarsen or self.static_range_depth:
                self.fail("C2T103", "a tile cast to ct.tfloat32 in one branch of this `if` on a Constant, whose "
                                    "branches rebind a name its condition reads, inside a ct.static_iter loop "
                                    "(or a coarsened kernel) is not supported", st,
                          "choose with a conditional expression (`a = ct.astype(a, ct.tfloat32) if "
                          "a.dtype == ct.float32 else a`), or move the `if` into a helper function")
            temps = self.s.temps
            n = temps.get("_c2t_tf32_", 0)
            temps["_c2t_tf32_"] = n + 1
            cond = f"_c2t_tf32_{n}"
            self.pre_lines.append(f"{cond}: tl.constexpr = {test.code}")
        else:
            cond = f"({test.code})"
        return {k: None if side is None else cond if side == "body" else f"not {cond}" for k, side in out.items()}

    def _warn_constants_merged(self, st, before: dict, after_body: dict):
        """C2T213: a name both branches of a run-time `if` set to compile-time constants is a
        run-time value in Triton (int32, fp32); cuTile keeps it a loose constant where the two are
        equal, so it would not widen narrower operands."""
        for k, v in after_body.items():
            w = self.env.get(k)
            if w is None or v is before.get(k) or w is before.get(k) or not (v.is_static and w.is_static) \
                    or v.kind != T.STATIC or w.kind != T.STATIC or k.startswith("_c2t_") \
                    or (v.known and w.known and v.value != w.value):     # (unequal: int32 in cuTile too)
                continue
            self.note("C2T213", f"`{k}` is set to a constant in both branches of this run-time `if`: in "
                                "Triton it becomes a run-time value (int32 or fp32), where cuTile keeps equal "
                                "constants loose (`int8_tile + " + k + "` stays int8 there)", st,
                      hint="set it once before the `if`, or choose between the values with a ct.Constant "
                           "expression")

    def _branch(self, st, stmts: list, depth: int, part: str):
        """One branch of an `if` decided at run time (or by a Constant). In a rank variant
        (self.rank_choice), a branch that uses one of those arrays and cannot be lowered with
        their ranks here becomes `tl.static_assert(False, ...)`: cuTile compiles only the branches
        Constant arguments select, and so does Triton for constexpr conditions, so the assert fires
        only where cuTile would have failed too. Its diagnostics are kept in self.rank_dead."""
        if not self.rank_choice or not self._uses_arrays(stmts, self.rank_choice):
            self.block(stmts, depth)
            return
        n0, mark = len(self.s.reporter.items), len(self.lines)
        env, emitted, cidx = dict(self.env), set(self._emitted), self._comment_idx
        self.block(stmts, depth)
        key = (st.span.line, st.span.col, part)
        if not any(d.severity == ERROR for d in self.s.reporter.items[n0:]):
            self.rank_lowered.add(key)
            return
        new = self.s.reporter.withdraw(n0)
        del self.lines[mark:]
        self.env, self._emitted, self._comment_idx = env, emitted, cidx
        lo = st.span.line + 1 if part == "body" else st.body[-1].span.end_line + 1
        hi = stmts[-1].span.end_line
        self._emitted.update((c.line, c.col) for c in self._comments if lo <= c.line <= hi)  # its comments go too
        self.rank_dead.setdefault(key, new)
        ranks = " and ".join(f"a {r}-D `{a}`" for a, r in self.rank_choice.items())
        self.emit(depth, f'tl.static_assert(False, "this branch is not for {ranks}: cuTile compiles it only '
                         f'for the ranks it uses")  # C2T: {new[0].code} here')

    @staticmethod
    def _uses_arrays(stmts: list, names) -> bool:
        return any(isinstance(n, N.Name) and n.id in names for n in walk(stmts))

    def _merge_env(self, other: dict, runtime: bool = True, node=None, test=None, before=None):
        """The names after two paths met (the branches of an `if`; a loop and no iteration of it).
        A number whose value depends on a run-time path is a run-time scalar after it, not a
        constexpr (`t = 1` then `if pid > 0: t = 2`); a constexpr `if` keeps it compile-time, and
        a view or array it binds differently is the choice between them (`test`: its condition;
        `other`: the body's names)."""
        if not runtime and test is not None:
            from .ops_views import TILEDVIEW, choose_views, same_descriptor
            for k, v in other.items():
                w = self.env.get(k)
                if w is not None and w is not v and v.kind == w.kind and v.kind in (T.ARRAY, TILEDVIEW) \
                        and not same_descriptor(v, w):
                    self.env[k] = choose_views(self.cx, test, v, w, node, typed=False)
                    other = dict(other, **{k: self.env[k]})
        elif isinstance(node, N.If) and test is not None:
            for k, v in other.items():      # arrays chosen by a run-time `if` (array_choice)
                w = self.env.get(k)
                if w is not None and w is not v and v.kind == w.kind == T.ARRAY:
                    chosen = array_choice.merge_if(self, k, v, w, before or {}, test, node)
                    if chosen is not None:
                        self.env[k] = chosen
                        other = dict(other, **{k: chosen})
        self._same_descriptors(other, node)
        if runtime and isinstance(node, N.If) and before is not None and not self.loop_depth and not any(
                isinstance(n, (N.Return, N.Simple)) and getattr(n, "kind", "") != "pass"
                for n in walk(node.body + node.orelse)):
            # bound by one branch only (neither leaves early; not in a loop, whose exits the passes
            # made flags): cuTile's "potentially undefined" variable, an error where it is read
            # after the `if` (Triton's compiler drops it)
            for k in set(other) ^ set(self.env):
                if k not in before and not k.startswith("_c2t_"):
                    self.one_path.add(k)
                    self.env.pop(k, None)
                    other = {n: x for n, x in other.items() if n != k}
        for k, v in other.items():
            w = self.env.get(k)
            if w is not None and w is not v and v.kind == w.kind == T.HELPER and _fn_key(v) != _fn_key(w):
                self.fail("C2T105", f"`{k}` is a different function on each path through this "
                                    f"{'loop' if isinstance(node, (N.For, N.While)) else '`if`'} (a function "
                                    "value is bound at translation time)", node or self.fd,
                          hint="call each function on its own path, or pass the value that differs as an argument")
            if k not in self.env:
                self.env[k] = v
            elif runtime and v.kind == self.env[k].kind and v.kind in (T.ENUM, T.DTYPE) \
                    and (v.value, v.code) != (self.env[k].value, self.env[k].code) \
                    and (v.value != self.env[k].value or v.value is None):
                self.env[k] = self._path_dependent(k, v, self.env[k], node)
            elif self.env[k].kind != v.kind:
                self.env[k] = V(k, T.TILE if T.TILE in (v.kind, self.env[k].kind) else T.UNKNOWN)
            elif (self.env[k].known or v.known) and not (
                    self.env[k].known and v.known and type(self.env[k].value) is type(v.value)
                    and self.env[k].value == v.value):
                was = self.env[k]
                self.env[k] = self._forget(was)     # the value depends on the path taken
                if runtime and was.kind == T.STATIC and any(
                        isinstance(x.value, (bool, int, float)) and x.known for x in (was, v)):
                    self.env[k] = dataclasses.replace(self.env[k], kind=T.SCALAR)
            if k in other and self.env[k].shape != other[k].shape:   # known only if both paths agree
                self.env[k] = dataclasses.replace(self.env[k], shape=None)
            if k in other and self.env[k].nonneg != other[k].nonneg:     # so is a sign
                self.env[k] = dataclasses.replace(self.env[k], nonneg=None)

    def _path_dependent(self, k, then: V, other: V, node) -> V:
        """`k` bound to the enum member or dtype `then` on one path through the run-time `if` or
        loop `node` and to `other` on the other: a value no translation-time code can stand for
        (refused where read: e_Name). An enum member differing between an `if`'s branches is
        cuTile's TileTypeError, with its message (the lines of the two assignments)."""
        where = "loop" if isinstance(node, (N.For, N.While)) else "`if`"
        what = "enum member" if then.kind == T.ENUM else "dtype"
        msg = f"`{k}` is a different {what} on each path through this {where} (a translation-time value)"
        cutile = None
        if isinstance(node, N.If) and then.kind == T.ENUM:
            lines = [_last_assignment(node.body, k), _last_assignment(node.orelse, k)]
            if lines[1] is None:         # (no else branch: the value from before the `if`)
                lines[1] = _last_assignment([st for st in self.fd.body if st.span.line < node.span.line], k)
            if None not in lines:
                cutile = (f"Type of `{k}` depends on path taken: <enum constant {other.value}> (line {lines[1]}) "
                          f"vs. <enum constant {then.value}> (line {lines[0]})")
        return V(k, T.PATHDEP, value=(msg, cutile))

    def _same_descriptors(self, other: dict, node):
        """Views and arrays are bound at translation time: a name bound to different ones on two
        paths (an `if`'s branches; a loop's iterations, rebinding it) is refused, since each use
        would see one of them whatever the path taken."""
        from .ops_views import TILEDVIEW, same_descriptor
        for k, v in other.items():
            w = self.env.get(k)
            if w is None or w is v or v.kind not in (T.ARRAY, TILEDVIEW) or w.kind not in (T.ARRAY, TILEDVIEW) \
                    or same_descriptor(v, w):
                continue
            if v.kind == w.kind == TILEDVIEW and not same_descriptor(dataclasses.replace(v, array=w.array), w):
                self.fail("C2T109", f"`{k}` is a tiled view of another tile shape, traversal steps or padding "
                                    "on each path through this "
                                    f"{'loop' if isinstance(node, (N.For, N.While)) else '`if`'} (cuTile: its "
                                    "type depends on the path taken)", node or self.fd,
                          cutile=("TileTypeError", f"Type of `{k}` depends on path taken: a tiled view of tile "
                                                   f"shape ({', '.join(e.code for e in v.value['tile'])}) vs. "
                                                   f"({', '.join(e.code for e in w.value['tile'])})"))
            what = "tiled views" if TILEDVIEW in (v.kind, w.kind) else "arrays"
            where = "rebinds it" if isinstance(node, (N.For, N.While)) else "binds it differently in its branches"
            self.fail("C2T101", f"`{k}` stands for different {what} on the paths through this "
                                f"{'loop' if isinstance(node, (N.For, N.While)) else '`if`'} (it {where}): "
                                "views and arrays chosen at run time are not supported yet", node or self.fd,
                      hint=f"choose with a conditional expression (`{k} = x.tiled_view(T) if c else "
                           "y.tiled_view(T)`, same tile shapes), or keep each path's uses in its own branch")

    @staticmethod
    def _forget(v: V) -> V:
        """The same variable without its translation-time value."""
        elts = [FunctionLowerer._forget(e) for e in v.elts] if v.elts else v.elts
        return V(v.code, v.kind, prec=v.prec, rank=v.rank, array=v.array, tf32=v.tf32, elts=elts, **facts_of(v))

    def _forget_loop_assigned(self, body):
        """Names a loop body assigns have no single translation-time value inside or after it."""
        names = N.assigned_names(body)
        for k in names:
            v = self.env.get(k)
            if v is not None and v.known and v.kind in (T.STATIC, T.SCALAR, T.TILE, T.TUPLE):
                v = self._forget(v)
                if v.kind == T.STATIC and isinstance(self.env[k].value, (bool, int, float)):
                    # a number the loop changes is a run-time scalar there and after it (`k = 0;
                    # while k < n: k += 1`), never a constexpr (Triton rejects `a: tl.constexpr = k // 3`)
                    v = dataclasses.replace(v, kind=T.SCALAR)
                self.env[k] = v
            elif v is not None and v.nonneg is not None:       # a later iteration may see another sign
                self.env[k] = dataclasses.replace(v, nonneg=None)
        return names

    def st_For(self, st, depth):
        if st.orelse:
            self.fail("C2T103", "`for ... else` is not supported in kernel code", st)
        it = st.iter
        if not (isinstance(it, N.Call) and isinstance(it.func, N.Name) and it.func.id == "range"
                and "range" not in self.env):
            path = self.s.info.ct_path(it.func) if isinstance(it, N.Call) else None
            if path == "static_iter":
                return self._static_iter(st, depth)
            if isinstance(it, N.Call) and not isinstance(it.func, N.Lambda):
                f = self.expr(it.func)
                if f.kind == T.CTFUNC and f.value == "static_iter":     # `f = ct.static_iter; for i in f(...)`
                    self.expr(it)       # (ops.ct_call: cuTile's error)
            self.fail("C2T103", "kernel loops must iterate over range(...)", it)
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail("C2T109", "range() takes 1 to 3 positional arguments", it)
        args = [self.expr(a) for a in it.args]
        for a, node in zip(args, it.args):
            # (a 0-d tile is an integer there: cuTile's Tile.__index__)
            if (a.kind == T.TILE and a.rank not in (0, None)) or a.kind in (T.ARRAY, T.TUPLE, T.DTYPE) \
                    or (a.known and not isinstance(a.value, int)):
                self.fail("C2T109", "range() bounds must be integers: scalars or 0-d tiles", node)
        if not isinstance(st.target, N.Name):
            self.fail("C2T103", "the loop variable must be a name", st.target)
        args = [self._int32_bound(a) for a in args]
        step = args[2] if len(args) == 3 else None
        loads = prefetch.candidates(self, st, step, self.grid_stride_depth > 0)
        if loads:
            plans = prefetch.emit_before_loop(self, loads, st.target.id, args[0].code if len(args) > 1 else "0", depth)
            for p in plans.values():
                p.loop = (st.target.id, step.code if step is not None else "1")
            self.prefetch.update(plans)
        self.emit(depth, f"for {st.target.id} in range({', '.join(a.code for a in args)}):")
        # not `isint`: the interpreter runs range() loops with Python ints, not tensors
        self.env[st.target.id] = V(st.target.id, T.SCALAR)
        self._forget_loop_assigned(st.body)
        carried = array_choice.carry_into_loop(self, st.body)
        before = dict(self.env)
        self.written |= self._loop_writes(st.body)
        grid_stride = step is not None and not step.is_static
        self.grid_stride_depth += grid_stride
        try:
            self._loop_body(st.body, depth + 1)
        finally:
            self.grid_stride_depth -= grid_stride
            self.carried = carried
        self._merge_env(before, node=st)

    def _int32_bound(self, a: V) -> V:
        """A range() bound that may be an int64 (an element of an array, a 0-d tile, a helper's
        parameter) cast to int32: cuTile's loop counter is int32 whatever its bounds' type, where
        Triton's is their widest integer, so that `acc = 0; for i in range(n): acc += i` changed
        `acc`'s type in the loop with an int64 `n` (a CompilationError; cuTile keeps int32)."""
        if a.is_static or not (a.kind in (T.TILE, T.UNKNOWN) or (a.dsrc or "").startswith(("arr:", "param:"))):
            return a
        return V(f"{self.s.use('_c2t_i32')}({a.code})", T.SCALAR, isint=True, nonneg=a.nonneg)

    def _static_iter(self, st, depth):
        """`for x in ct.static_iter(...)`: unrolled at translation time (tuples, zip, enumerate),
        or a tl.static_range loop for a range with constant bounds."""
        it = st.iter
        if len(it.args) != 1 or it.keywords:
            self.fail("C2T109", "ct.static_iter takes one iterable", it)
        found = _static_iter_exit(st.body)
        if found is not None:       # (the passes leave these in such loops: see loop_exits.py)
            leave, why = found
            kind = "return" if isinstance(leave, N.Return) else leave.kind
            self.fail("C2T103", f"`{kind}` in a for loop over ct.static_iter is not supported"
                                + (" (cuTile rejects it too)" if why else ""), leave,
                      "iterate over range(...) to leave the loop early, or guard the rest of the body with an if",
                      cutile=("TileSyntaxError", why) if why else None)
        src = it.args[0]
        self._static_iter_calls(src)
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "range" \
                and "range" not in self.env:
            args = [self.expr(a) for a in src.args]
            runtime = any(a.is_runtime for a in args)
            if runtime or not all(a.is_static for a in args) or not isinstance(st.target, N.Name):
                # (cuTile evaluates the range in Python: a runtime bound's __index__ raises)
                self.fail("C2T105", "ct.static_iter(range(...)) needs constant bounds", src,
                          cutile=("TileStaticEvalError", "Exception was raised inside static_iter() iterable "
                                  "(ValueError: Symbolic tile has no concrete value and thus cannot be "
                                  "converted to an integer)") if runtime else None)
            bounds = ", ".join(a.code for a in args)
            if all(a.known and isinstance(a.value, int) for a in args) and len(args) in (1, 2, 3) \
                    and (len(args) < 3 or args[2].value != 0):
                count = len(range(*(a.value for a in args)))
                if count > STATIC_ITER_MAX:
                    self._static_iter_too_long(count, src)
            elif not all(a.known for a in args):    # Constant bounds: the same limit when Triton unrolls it
                self.emit(depth, f"tl.static_assert(len(range({bounds})) <= {STATIC_ITER_MAX}, \"ct.static_iter: "
                                 f"at most {STATIC_ITER_MAX} iterations (cuTile's limit)\")")
            self.emit(depth, f"for {st.target.id} in tl.static_range({bounds}):")
            self.env[st.target.id] = V(st.target.id, T.STATIC)
            self.static_range_depth += 1
            try:
                self.block(st.body, depth + 1)
            finally:
                self.static_range_depth -= 1
            return
        items = self._static_items(src)
        if len(items) > STATIC_ITER_MAX:
            self._static_iter_too_long(len(items), src)
        if not items:
            self.emit(depth, "pass")
        for item in items:
            self._bind_static(st.target, item, st)
            self.block(st.body, depth)

    def _static_iter_too_long(self, count, src):
        self.fail("C2T105", f"ct.static_iter unrolls at most {STATIC_ITER_MAX} iterations, as cuTile does "
                            f"(this iterable has {count})", src,
                  "iterate over range(...): a loop that runs in the kernel",
                  cutile=("TileStaticEvalError", f"Maximum number of iterations ({STATIC_ITER_MAX}) has been "
                          "reached while unpacking the static_iter() iterable"))

    def _static_iter_calls(self, src):
        """cuTile evaluates a static_iter iterable in Python, where a cuTile function other than
        its arithmetic and comparisons (STATIC_EVAL_OK) raises TileStaticEvalError."""
        for n in walk(src):
            if isinstance(n, N.Call):
                path = self.s.info.ct_path(n.func)
                if path and "." not in path and path not in STATIC_EVAL_OK and registry.lookup(path):
                    self.fail("C2T105", f"ct.{path} cannot be called in a ct.static_iter iterable", n,
                              cutile=("TileStaticEvalError",
                                      f"{path}() cannot be called inside static_iter() iterable."))

    def _static_item_checks(self, src, items):
        """cuTile's errors for a static_iter iterable that is a literal: an item that is (or holds)
        a list (no cuTile constant), a Python scalar (not iterable)."""
        if isinstance(src, N.TupleExpr):
            for k, e in enumerate(src.elts):
                if _holds_list(e):
                    self.fail("C2T105", "a ct.static_iter item cannot be a list", e,
                              cutile=("TileStaticEvalError", f"Invalid item #{k} of static_iter() iterable: "
                                      "Cannot create constant from value of type list."))

    def _static_items(self, src, what: str = "ct.static_iter") -> list:
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "reversed" \
                and "reversed" not in self.env and len(src.args) == 1 and not src.keywords:
            return self._static_items(src.args[0], what)[::-1]
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "enumerate" \
                and "enumerate" not in self.env and 1 <= len(src.args) + len(src.keywords) <= 2 and src.args \
                and all(k.name == "start" for k in src.keywords) and (len(src.args) == 1 or not src.keywords):
            start = src.args[1] if len(src.args) == 2 else (src.keywords[0].value if src.keywords else None)
            first = 0
            if start is not None:
                s0 = self.expr(start)
                if not (s0.known and isinstance(s0.value, int) and not isinstance(s0.value, bool)):
                    self.fail("C2T105", "enumerate()'s start must be an integer known at translation time", start)
                first = s0.value
            return [V("", T.TUPLE, elts=[V(str(i), T.STATIC, value=i, known=True), e])
                    for i, e in enumerate(self._static_items(src.args[0], what), first)]
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "range" \
                and "range" not in self.env:        # (in zip/enumerate: ct.static_iter takes any iterable)
            return self.range_items(src)
        if isinstance(src, N.Call) and isinstance(src.func, N.Name) and src.func.id == "zip" \
                and "zip" not in self.env and not src.keywords:
            seqs = [self._static_items(a, what) for a in src.args]
            return [V("", T.TUPLE, elts=list(group)) for group in zip(*seqs)]
        v = self.expr(src)
        if v.kind != T.TUPLE or v.elts is None:
            scalar = v.known and (v.value is None or type(v.value) in (bool, int, float))
            self.fail("C2T105", f"{what} needs a tuple (or zip/enumerate of tuples) known at "
                                "translation time", src,
                      cutile=("TileTypeError", f"Invalid static_iter() iterable: '{type(v.value).__name__}' "
                              "object is not iterable") if scalar and what == "ct.static_iter" else None)
        if what == "ct.static_iter":
            self._static_item_checks(src, v.elts)
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
        assigned = self._forget_loop_assigned(st.body)
        carried = array_choice.carry_into_loop(self, st.body)
        test = self.expr(st.test)
        self.emit(depth, f"while {test.code}:")
        before = dict(self.env)
        try:
            self._loop_body(st.body, depth + 1)
        finally:
            self.carried = carried
        self._same_descriptors(before, st)
        for k in assigned:       # after the loop: the value before it (no iteration) or the body's
            v = self.env.get(k)
            if isinstance(v, V) and v.nonneg is not None:
                self.env[k] = dataclasses.replace(v, nonneg=None)

    def st_FunctionDef(self, st, depth):
        if st.decorators:
            self.fail("C2T103", "decorated nested functions are not supported in kernel code", st)
        for c in self._comments:           # its comments travel with the hoisted function
            if st.span.line <= c.line <= st.span.end_line:
                self._emitted.add((c.line, c.col))
        st = self.bind_defaults(st)
        self.local_funcs[st.name] = st    # hoisted to module level when called (helpers.local_call)
        self.env[st.name] = V(st.name, T.HELPER, value=("localfunc", st))

    def bind_defaults(self, fd: N.FunctionDef) -> N.FunctionDef:
        """A nested def or lambda whose defaults are Python's: evaluated where it is defined, not
        where it is called (`s = 2.0; f = lambda v, k=s: v * k; s = 3.0; f(t)` is t * 2). A constant
        default becomes its literal; a run-time one is saved in `_c2t_<function>_<param>` at the
        definition (a capture of the function from then on). Returns fd, or a copy with those
        defaults."""
        params, changed = [], False
        for p in fd.params:
            if p.default is not None and not isinstance(p.default, N.Const):
                v = self.expr(p.default)
                if v.known and v.kind == T.STATIC and isinstance(v.value, (bool, int, float)):
                    p = dataclasses.replace(p, default=N.Const(span=p.default.span, value=v.value, text=repr(v.value)))
                elif v.kind in (T.TILE, T.SCALAR, T.STATIC, T.UNKNOWN):
                    hidden = f"_c2t_{fd.name}_{p.name}"
                    self.pre_lines.append(f"{hidden} = {v.code}")
                    self.env[hidden] = dataclasses.replace(v, code=hidden, prec=100)
                    p = dataclasses.replace(p, default=N.Name(span=p.default.span, id=hidden))
                else:       # arrays, functions, modules...: bound at translation time, as given
                    params.append(p)
                    continue
                changed = True
            params.append(p)
        return dataclasses.replace(fd, params=params) if changed else fd

    # ----------------------------------------------------------------- memory ordering
    @staticmethod
    def _root(arr) -> str:
        return T.array_root(arr)

    def _roots(self, arr) -> list:
        """The parameters `arr` may be: its root, and for a choice between arrays the others."""
        return [self._root(arr), *getattr(arr, "also", ())]

    def mark_written(self, arr, region=None, moved: bool = True, rmw: bool = False):
        """A store/scatter/atomic to `arr` (_mark_written), to each array it may be."""
        if getattr(arr, "also", ()):        # a choice between arrays: a write to each of them
            for root in self._roots(arr):
                self.mark_written(dataclasses.replace(arr, root=root, also=()), region, moved, rmw)
            return
        self._mark_written(arr, region, moved, rmw)

    def _mark_written(self, arr, region=None, moved: bool = True, rmw: bool = False):
        """A store/scatter/atomic to `arr`. cuTile orders a block's later reads after it, and it
        after the block's earlier reads: another thread may still have to read what it overwrites,
        which Triton only guarantees across a barrier. Not needed where every earlier read was a
        tile-space load of the same tile shape (`region`) and the stored tile's elements did not
        move between threads (`moved`, moved_tiles.py: not transposed, permuted, joined or
        multiplied): equal tiles are the same elements or disjoint, and each element is then
        stored by a thread that loaded it. `rmw`: an atomic, whose own read is excluded.
        (Reads in a loop's earlier iteration: _loop_body.)"""
        root = self._root(arr)
        reads = self.read.get(root, [])[:-1 if rmw else None]
        same_tiles = region is not None and all(r == region for r in reads) and not moved
        if reads and not same_tiles:
            if "tl.debug_barrier()" not in " ".join(self.pre_lines):
                self.pre_lines.append("tl.debug_barrier()  # cuTile orders this write after the block's "
                                      "earlier reads of the array")
            self.read.clear()
            self._event(("b",))
        self._event(("w", root, region, region is not None and not moved))
        self.written.add(root)
        self.all_written.add(root)

    def before_read(self, arr, region=None):
        """A load/gather of `arr`: after a store to the same array, threads of the block must
        see each other's writes, which Triton only guarantees across a barrier."""
        self.count_reads()
        for root in self._roots(arr):       # (a choice between arrays: a read of each of them)
            self._read(root, region)

    def _read(self, root: str, region):
        self.read.setdefault(root, []).append(region)
        self.all_read.add(root)
        if root in self.written and "tl.debug_barrier()" not in self.pre_lines:
            self.pre_lines.append("tl.debug_barrier()  # cuTile orders this read after the block's earlier store")
            self._event(("b",))
        self._event(("r", root, region))

    def helper_access(self, arr, reads: bool, writes: bool):
        """A call of a helper that loads from (`reads`) and/or stores to (`writes`) array `arr`:
        ordered against this block's earlier accesses as a load and a store here would be (with
        the helper's regions unknown), its own accesses ordered by its own lowering."""
        if getattr(arr, "also", ()):
            for root in self._roots(arr):
                self.helper_access(dataclasses.replace(arr, root=root, also=()), reads, writes)
            return
        root = self._root(arr)
        if ((writes and self.read.get(root)) or (reads and root in self.written)) \
                and "tl.debug_barrier()" not in " ".join(self.pre_lines):
            self.pre_lines.append("tl.debug_barrier()  # cuTile orders the helper's accesses of the array "
                                  "after the block's earlier ones")
            self.read.clear()
            self._event(("b",))
        if reads:
            self.read.setdefault(root, []).append(None)
            self.all_read.add(root)
            self._event(("r", root, None))
        if writes:
            self._event(("w", root, None, False))
            self.written.add(root)
            self.all_written.add(root)

    def _event(self, e):
        if self.loop_events:
            self.loop_events[-1].append((*e, tuple(self.if_path)))

    def _loop_body(self, body, depth):
        """Lower a loop body. Where a store in it may overwrite what a later statement of the body
        read in the previous iteration, with no barrier between (cuTile orders the write after
        that read), the body ends with a barrier. Exempt, as in mark_written: reads that were
        tile-space loads of the stored tile's shape, the stored tile not permuted or multiplied
        (each element is stored by the thread that loaded it); and a read and a write in
        different branches of an `if` on a Constant (one Triton specialization has only one)."""
        self.loop_events.append([])
        try:
            self.block(body, depth)
        finally:
            events = self.loop_events.pop()
        if self._war_across_iterations(events):
            self.emit(depth, "tl.debug_barrier()  # cuTile orders the next iteration's writes after "
                             "this iteration's reads of the array")
            events.append(("b", tuple(self.if_path)))
        if self.loop_events:        # an inner loop's barriers may not run (no iteration): not counted
            self.loop_events[-1].extend(e for e in events if e[0] != "b")

    @staticmethod
    def _war_across_iterations(events) -> bool:
        """Whether a write of `events` (one loop body's reads ("r", root, region, path), writes
        ("w", root, region, plain, path) and barriers ("b", path), in order; a path lists the
        enclosing if branches) may overtake a later read of the same array from the previous
        iteration: no barrier that runs whenever they do lies between."""
        def runs_with(b, x):        # barrier path b runs whenever an event of path x does
            return set(b) <= set(x)

        def exclusive(a, b):        # branches of one `if` on a Constant
            return any(i == j and part != other and static for i, part, static in a for j, other, _ in b)

        for p, w in enumerate(events):
            if w[0] != "w" or any(e[0] == "b" and runs_with(e[-1], w[-1]) for e in events[:p]):
                continue
            _, root, region, plain, wpath = w
            for q in range(p + 1, len(events)):
                r = events[q]
                if r[0] != "r" or r[1] != root or exclusive(r[-1], wpath) or \
                        any(e[0] == "b" and runs_with(e[-1], r[-1]) for e in events[q + 1:]):
                    continue
                if not (plain and r[2] == region):
                    return True
        return False

    def _loop_writes(self, body):
        """Arrays `body` may store to: a read at the top of a loop's next iteration follows them,
        and a load of them may not move (prefetch) nor be shared (aliased-load reuse). Counted:
        ct.store/scatter/atomics (their array comes first), `view.store(...)` and
        `view.atomic_*(...)` of a tiled view, and, not knowing what they do, every array passed to
        a module or local function that may store, or to a function imported from another module."""
        names = set()
        # names bound in `body` (not yet in env while a loop header is lowered): a view made there
        # (`v = A.tiled_view(...)`) stands for its array
        bound, iterated, tuples = {}, {}, {}
        nodes = list(walk(body))
        for n in nodes:
            if isinstance(n, N.Assign):
                for t in n.targets:
                    if isinstance(t, N.Name):
                        bound.setdefault(t.id, []).append(n.value)
                        if isinstance(n.value, N.TupleExpr):
                            tuples[t.id] = n.value.elts
        for n in nodes:         # `for A in ct.static_iter((x, y))`: a store to A is one to x and y
            if isinstance(n, N.For) and isinstance(n.iter, N.Call) and len(n.iter.args) == 1 \
                    and self.s.info.ct_path(n.iter.func) == "static_iter":
                static_iter_members(n.target, n.iter.args[0], tuples, None, iterated)

        def add(node, seen=()):
            if isinstance(node, N.Subscript):       # ct.store(Cs[g], ...)
                node = node.value
            node = _foreign_source(node, self.s.info)
            if not isinstance(node, N.Name):
                return
            if node.id in iterated and node.id not in seen:
                for member in iterated[node.id]:
                    add(N.Name(id=member), (*seen, node.id))
                return
            v = self.env.get(node.id)
            if v is not None and v.kind == T.LIST:
                names.add(v.value.name)
            elif v is not None and getattr(v, "array", None) is not None:
                names.update(self._roots(v.array))
            elif node.id in bound and node.id not in seen:
                for value in bound[node.id]:        # `v = A.tiled_view(...)`, `v = A`
                    base = value.func.value if isinstance(value, N.Call) and isinstance(value.func, N.Attr) \
                        and _foreign_source(value, self.s.info) is value else value
                    add(base, (*seen, node.id))
        for n in nodes:
            if not isinstance(n, N.Call):
                continue
            kind = _store_kind(n, self.s.info)
            if kind == "ct":
                add(n.args[0] if n.args else None)
            elif kind == "method":
                add(n.func.value)
            elif isinstance(n.func, N.Name) and (n.func.id in self.s.info.functions or n.func.id in self.local_funcs) \
                    and self._may_store(self.s.info.functions.get(n.func.id) or self.local_funcs[n.func.id]) \
                    or isinstance(n.func, N.Name) and n.func.id not in self.env and n.func.id not in self.local_funcs \
                    and imported_helper(self.s.info, n.func.id):     # another module's: it may store
                for a in list(n.args) + [k.value for k in n.keywords]:
                    add(a)
        return names

    def _may_store(self, fd, seen=None) -> bool:
        """Whether function `fd` (or one it calls or is given) may store to an array: its stores,
        scatters and atomics, those of the module and local functions it names, and any function
        value it is passed (unknown) count."""
        seen = set() if seen is None else seen
        if not isinstance(fd, N.FunctionDef) or id(fd) in seen:
            return not isinstance(fd, N.FunctionDef)
        seen.add(id(fd))
        info = self.s.info
        for n in walk(fd.body):
            if isinstance(n, N.Call):
                if _store_kind(n, info):
                    return True
                if isinstance(n.func, N.Name) and n.func.id not in info.functions and n.func.id not in \
                        self.local_funcs and (n.func.id in {p.name for p in fd.params} or n.func.id in info.imported):
                    return True         # a function it is passed, or one from another module: unknown
                if isinstance(n.func, N.Attr) and info.ct_path(n.func) is None:
                    base = n.func.value
                    while isinstance(base, N.Attr):
                        base = base.value
                    if isinstance(base, N.Name) and (base.id in info.imported or base.id in info.other_modules
                                                     and info.other_modules[base.id] not in ("math", "operator")):
                        return True     # `mod.f(...)` of another module: unknown
            if isinstance(n, N.Name) and n.id != fd.name:
                callee = info.functions.get(n.id) or self.local_funcs.get(n.id)
                if callee is not None and self._may_store(callee, seen):
                    return True
        return False


@functools.lru_cache(maxsize=8)
def _source_lines(text: str) -> list:
    """The module's lines (once per module text, not once per statement lowered; not changed)."""
    return text.split("\n")


def _store_kind(call: N.Call, info) -> str:
    """How `call` may store to an array: "ct" (ct.store/scatter/atomics, the array first), "method"
    (`view.store(...)`, `view.atomic_*(...)`), or ""."""
    path = info.ct_path(call.func) or ""
    if path in ("store", "scatter", "store_advanced_indexing") or path.startswith("atomic_"):
        return "ct"
    if isinstance(call.func, N.Attr) and (call.func.attr == "store" or call.func.attr.startswith("atomic_")):
        return "method"
    return ""


def _foreign_source(node, info):
    """A for `ct.Array.from_foreign(A.foreign_pointer, ...)` and `A.foreign_pointer`, the pointer
    argument when it is a name, else `node` (_loop_writes: stores to such a view are stores to A)."""
    if isinstance(node, N.Call) and info.ct_path(node.func) == "Array.from_foreign":
        node = node.args[0] if node.args else next((k.value for k in node.keywords if k.name == "pointer"), node)
    return node.value if isinstance(node, N.Attr) and node.attr == "foreign_pointer" else node


# cuTile's words (TileSyntaxError, its ast2hir) for leaving a ct.static_iter loop's own body
_STATIC_EXITS = {"break": "Break in a for loop with static_iter() is not supported",
                 "continue": "Continue in a for loop with static_iter() is not supported"}
_FOR_RETURN = "Returning from a for loop is not supported"


def _last_assignment(stmts, name):
    """The line of the last assignment to `name` in `stmts` (nested blocks too, not nested defs)."""
    line = None
    for n in walk(stmts):
        targets = n.targets if isinstance(n, N.Assign) else [n.target] if isinstance(n, (N.AugAssign, N.AnnAssign)) \
            else []
        if any(isinstance(x, N.Name) and x.id == name for t in targets for x in walk(t)):
            line = max(line or 0, n.span.line)
    return line


# cuTile's functions a static_iter iterable may call (its stubs with static_eval_ok=True)
STATIC_EVAL_OK = frozenset((
    "matmul", "add", "sub", "mul", "truediv", "floordiv", "pow", "mod", "divmod", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_lshift", "bitwise_rshift", "bitwise_not", "minimum", "maximum",
    "cdiv", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "negative"))


def _holds_list(e) -> bool:
    return isinstance(e, N.ListExpr) or isinstance(e, N.TupleExpr) and any(_holds_list(x) for x in e.elts)


def _static_iter_exit(stmts):
    """(statement, cuTile's TileSyntaxError message or None) of the first `break`, `continue` or
    `return` of a ct.static_iter loop's own body (not of a loop in it) or `return` in a loop in it
    (not in a nested def), else None. cuTile refuses a `return` whose innermost loop is a `for`;
    one inside a `while` is the translator's refusal."""
    for st in stmts:
        if isinstance(st, N.Simple) and st.kind in _STATIC_EXITS:
            return st, _STATIC_EXITS[st.kind]
        if isinstance(st, N.Return):
            return st, _FOR_RETURN
        if isinstance(st, N.If):
            found = _static_iter_exit(st.body) or _static_iter_exit(st.orelse)
            if found is not None:
                return found
        if isinstance(st, (N.For, N.While)):
            found = _loop_return(st)
            if found is not None:
                return found
    return None


def _loop_return(loop):
    """(the first `return` in `loop`, cuTile's message where its innermost loop is a `for`)."""
    def visit(stmts, innermost):
        for st in stmts:
            if isinstance(st, N.Return):
                return st, _FOR_RETURN if isinstance(innermost, N.For) else None
            if isinstance(st, N.FunctionDef):
                continue
            if isinstance(st, (N.For, N.While)):
                found = visit(st.body, st)
            else:
                found = visit([c for f in ("body", "orelse") for c in getattr(st, f, None) or []
                               if isinstance(c, N.Node)], innermost)
            if found is not None:
                return found
        return None
    return visit(loop.body, loop)


def walk_names(target):
    """The names of an assignment target, in order (`a, (b, c)`: a, b, c)."""
    if isinstance(target, N.Name):
        yield target
    elif isinstance(target, (N.TupleExpr, N.ListExpr)):
        for t in target.elts:
            yield from walk_names(t)


def _static_tuple_value(v: V) -> bool:
    """Whether `v` is a tuple of compile-time values (nested tuples included)."""
    return v.kind == T.TUPLE and v.elts is not None and all(
        e.kind == T.STATIC or _static_tuple_value(e) for e in v.elts)
