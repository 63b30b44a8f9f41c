"""What an op handler works with (issue 34): `LoweringContext`, the narrow view of the function being
lowered that handlers receive, and the functions they read their bound arguments with.

A handler registered with `@op(name, sig)` (lower/registry.py) is called as `handler(cx, call,
args)`, one registered with `@method(kind, name)` as `handler(cx, base, call)`; `cx` is the
context of the function being lowered. Through it a handler lowers subexpressions, reports,
emits a line before the statement, marks prelude helpers used and reads what the lowering knows;
it never sees the FunctionLowerer (lower/kernel.py), and the ops modules import neither
kernel.py nor helpers.py: calls of functions and nested lowerings go through the callbacks
`call_function` (Shared.calls: helpers.lower_call) and `lower_function` (FunctionLowerer.lower_nested).
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
from types import MappingProxyType

from .. import rules
from ..ir import nodes as N
from . import types as T
from .types import ArrayRef, V


class LoweringContext:
    """One per FunctionLowerer (`lw.cx`). Its fields are set once, here (__setattr__ refuses a
    second assignment); what a handler changes goes to the lowering through the methods below
    (the memory-ordering and pipeline records of before_read / mark_written / helper_access /
    note_tile_load / count_dot, the module's used helpers and definitions, the line emitted before
    the statement, the squeezed-load fact)."""
    __slots__ = ("_lw", "info", "source", "function_name", "constexpr_params", "expr", "static_value",
                 "make_tuple", "unroll_comprehension", "fail", "note", "use", "use_rank", "note_tile",
                 "add_def", "before_read", "mark_written", "helper_access", "note_tile_load",
                 "may_reuse_aliased_load", "call_function", "lower_function")

    def __init__(self, lw):
        s = lw.s
        self._lw = lw
        self.info = s.info                      # analysis.ModuleInfo
        self.source = s.text                    # the module's text (ct.static_eval reads its source)
        self.function_name = lw.fd.name
        self.constexpr_params = lw.constexpr_params     # Constant parameters (V.nonneg conditions)
        # lowering and diagnostics (the lowerer's own methods)
        self.expr = lw.expr
        self.static_value = lw.static_value
        self.make_tuple = lw.make_tuple
        self.unroll_comprehension = lw.unroll_comprehension
        self.fail = lw.fail                     # fail(code, message, node, hint): raises
        self.note = lw.note
        # the module's prelude helpers, tile shapes (num_warps) and extra definitions
        self.use = s.use
        self.use_rank = s.use_rank
        self.note_tile = lw.tiles.note
        self.add_def = s.add_def
        # memory ordering (kernel.py) and pipeline depth (gemm_loops.py)
        self.before_read = lw.before_read
        self.mark_written = lw.mark_written
        self.helper_access = lw.helper_access
        self.note_tile_load = lw.note_tile_load
        self.may_reuse_aliased_load = lw.may_reuse_aliased_load
        # callbacks: a call of a module function, nested def, lambda or dataclass method
        # (call_function(f: V, call)), and a function body lowered on its own (lower_function(fd,
        # env) -> (lines, returned values): a combine function)
        self.call_function = functools.partial(s.calls, lw)
        self.lower_function = lw.lower_nested

    def __setattr__(self, name, value):
        if hasattr(self, name):
            raise AttributeError(f"LoweringContext.{name} is set once, by __init__")
        object.__setattr__(self, name, value)

    # ------------------------------------------------------------ facts that change while lowering
    @property
    def env(self):
        """The names in scope (read-only): name -> V."""
        return MappingProxyType(self._lw.env)

    @property
    def coarsen(self) -> bool:
        """A coarsened kernel body (lower/coarsen.py): ct.bid(0) is `c2t_bid0`."""
        return self._lw.coarsen

    @property
    def tma(self):
        """The kernel's tma.TmaPlan (descriptor path), or None."""
        return self._lw.tma

    @property
    def loop_depth(self) -> int:
        return self._lw.loop_depth

    def squeeze_of(self, call):
        """The statement's kernel.SqueezedLoad when `call` is its load, else None."""
        fact = self._lw.squeeze
        return fact if fact is not None and fact.load is call else None

    def moved(self, node) -> bool:
        """Whether the tile `node` computes may have its elements elsewhere than where a tile-space
        load put them (moved_tiles.py): its store is then ordered after the block's reads."""
        return self._lw.moved_tiles().may_hold(node)

    def unchained_product(self, node) -> bool:
        """Whether the product `node` is in no chain of products (product_operands.py)."""
        return self._lw.product_operands().unchained(node)

    # ------------------------------------------------------------ what a handler changes
    def count_dot(self):
        """A product (tl.dot, _c2t_mma): the launcher's num_warps and num_stages count it."""
        self._lw.tiles.has_dot = True
        self._lw.count_dot()

    def note_permute(self):
        """The code being emitted transposes, permutes or joins tiles (tl.trans, tl.permute,
        _c2t_cat_*): the kernel (or its layout-flag variant) runs without CTA clusters."""
        self._lw.emits_permute = True

    def needs_pad(self):
        """The function takes (and passes on) the constexpr C2T_PAD (ops._chain_flag)."""
        self._lw.pad_products = True

    def emit_before(self, line: str):
        """A line emitted before the statement being lowered (at its indentation)."""
        self._lw.pre_lines.append(line)

    def fresh_temp(self, prefix: str) -> str:
        """`<prefix><n>`, a name no other call of this in the module got."""
        temps = self._lw.s.temps
        n = temps.get(prefix, 0)
        temps[prefix] = n + 1
        return f"{prefix}{n}"

    @contextlib.contextmanager
    def binding(self, values: dict):
        """While inside: the nodes `values` names (id(node) -> V) lower to those values."""
        nv = self._lw.node_values
        nv.update(values)
        try:
            yield
        finally:
            for k in values:
                del nv[k]


# ---------------------------------------------------------------- values
def _result_kind(*vs) -> str:
    kinds = {v.kind for v in vs}
    if T.TILE in kinds:
        return T.TILE
    if T.UNKNOWN in kinds:
        return T.UNKNOWN
    if T.SCALAR in kinds:
        return T.SCALAR
    return T.STATIC


def _rank(*vs):
    """Broadcast rank of the operands, or None when an operand's rank is unknown."""
    if any(v.kind in (T.UNKNOWN, T.TUPLE) for v in vs):
        return None
    rs = [v.rank for v in vs if v.kind == T.TILE]
    if any(r is None for r in rs) or not rs:
        return None
    return max(rs)


# ---------------------------------------------------------------- argument binding
# cuTile's own errors for calls of these with other arguments (its ast2hir: syntax errors)
_ARITY_ERRORS = {
    "static_eval": ("TileSyntaxError", "static_eval() expects a single expression"),
    "static_assert": ("TileSyntaxError", "static_assert(cond, msg=None, /) expects one or two positional arguments"),
}


def bind(cx, name: str, call: N.Call, sig=None) -> dict:
    sig = sig or rules.SIGNATURES[name]
    positional = [p for p in sig if p not in ("/", "*")]
    kw_only_from = sig.index("*") if "*" in sig else len(sig)
    pos_params = [p for p in sig[:kw_only_from] if p != "/"]
    posonly = set(sig[:sig.index("/")]) if "/" in sig else set()
    out = Args()
    args = starred_arguments(cx, call.args, f"ct.{name}") if any(
        isinstance(a, N.Starred) for a in call.args) else call.args
    if len(args) > len(pos_params):
        cx.fail("C2T109", f"ct.{name} takes at most {len(pos_params)} positional arguments", call,
                cutile=_ARITY_ERRORS.get(name))
    for p, a in zip(pos_params, args):
        out[p] = a
    for kw in call.keywords:
        if kw.name is None:
            cx.fail("C2T103", f"ct.{name}: **kwargs are not supported", call)
        if kw.name not in positional or kw.name in posonly:
            cx.fail("C2T109", f"ct.{name} has no keyword argument `{kw.name}`", kw, cutile=_ARITY_ERRORS.get(name))
        if kw.name in out:
            cx.fail("C2T109", f"ct.{name}: argument `{kw.name}` given twice", kw)
        out[kw.name] = kw.value
    return out


def starred_arguments(cx, args: list, what: str) -> list:
    """Positional argument nodes with each `*t` spread into the items of the tuple `t`: a tuple
    display's own items, or `t[0]`, `t[1]`, ... of a name bound to a tuple of known length (a
    name: reading it again has no effect). A value that is not a tuple is cuTile's TileTypeError."""
    out = []
    for a in args:
        if not isinstance(a, N.Starred):
            out.append(a)
            continue
        if isinstance(a.value, N.TupleExpr) and not any(isinstance(x, N.Starred) for x in a.value.elts):
            out.extend(a.value.elts)
            continue
        v = cx.expr(a.value)
        if v.kind != T.TUPLE:
            cx.fail("C2T103", f"{what}: `*` needs a tuple", a, cutile=("TileTypeError", "Expected a tuple after *"))
        if v.elts is None or not isinstance(a.value, N.Name):
            cx.fail("C2T103", f"{what}: *args are supported for a tuple display or a name bound to a tuple "
                              "of known length", a, hint="bind the tuple to a name first")
        sp = a.value.span
        out.extend(N.Subscript(span=sp, value=a.value, index=N.Const(span=sp, value=i, text=str(i)))
                   for i in range(len(v.elts)))
    return out


class Args(dict):
    """A call's bound arguments (IR nodes by parameter name); `lowered` keeps what _req lowered,
    so that the dtype facts of the result can be read off them afterwards."""
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.lowered = {}


def _req(cx, name, args, key, call):
    if key not in args:
        cx.fail("C2T109", f"ct.{name} needs the argument `{key}`", call)
    v = cx.expr(args[key])
    if isinstance(args, Args):
        args.lowered[key] = v
    return v


def _static(cx, v: V, what: str, node) -> V:
    if not v.is_static:
        cx.fail("C2T105", f"{what} must be a compile-time constant", node)
    return v


def _static_tuple(cx, v: V, what: str, node) -> list:
    if v.kind == T.TUPLE:
        for x in v.elts:
            _static(cx, x, what, node)
        return list(v.elts)
    _static(cx, v, what, node)
    return [v]


def _bool_arg(cx, args, key, default: bool, node) -> str:
    if key not in args:
        return str(default)
    v = cx.expr(args[key])
    _static(cx, v, f"`{key}`", node)
    return v.code


def _axis(cx, args, node):
    if "axis" not in args:
        return None
    v = cx.expr(args["axis"])
    if v.known and v.value is None:
        return None
    if v.kind == T.TUPLE:
        return [_static(cx, x, "`axis`", node) for x in v.elts]
    return _static(cx, v, "`axis`", node)


def _padding(cx, args, node) -> str:
    if "padding_mode" not in args:
        return rules.PADDING["UNDETERMINED"]
    v = cx.expr(args["padding_mode"])
    if v.kind != T.ENUM or not str(v.value).startswith("PaddingMode."):
        cx.fail("C2T105", "padding_mode must be a ct.PaddingMode member", node)
    return rules.PADDING[str(v.value).split(".", 1)[1]]


def _hints(cx, name, args, node):
    for key in ("latency", "allow_tma"):
        if key in args:
            cx.note("C2T202", f"ct.{name}: `{key}` hint dropped", node)
    for key in ("memory_order", "memory_scope"):
        if key in args:
            v = cx.expr(args[key])
            if v.kind == T.ENUM and str(v.value).split(".")[-1] in ("WEAK", "NONE"):
                continue
            cx.fail("C2T106", f"ct.{name}: `{key}` other than WEAK/NONE is not supported yet", node)


def _array(cx, args, key, name, call) -> ArrayRef:
    v = _req(cx, name, args, key, call)
    if v.kind != T.ARRAY:
        cx.fail("C2T104", f"ct.{name}: the first argument must be an array parameter", call)
    return v.array


def _order(cx, args, rank, node):
    if "order" not in args:
        return None
    v = cx.expr(args["order"])
    if v.known and v.value == "C":
        return None
    if v.known and v.value == "F":
        return list(reversed(range(rank)))
    if v.kind == T.TUPLE and v.known:
        order = list(v.value)
        why = _order_error(order, rank)
        if why:
            cx.fail("C2T106", "order must be a permutation of the array axes", node,
                    cutile=("TileTypeError", why))
        order = [a + rank if type(a) is int and a < 0 else a for a in order]     # (cuTile's axes from the end)
        return None if order == list(range(rank)) else order
    cx.fail("C2T105", "order must be \"C\", \"F\" or a constant tuple", node)


def _order_error(order, rank):
    """cuTile's reason for refusing `order` (a tuple of axes, negative ones from the end) for an
    array of this rank, or None."""
    if len(order) != rank:
        return f"Expected tuple of length {rank}, got {len(order)}"
    seen = []
    for a in order:
        if type(a) is not int:
            return "Expected a constant string or integer tuple"
        if not -rank <= a < rank:
            return f"Axis {a} is out of range for rank {rank}'"
        seen.append(a % rank)
    for a in seen:
        if seen.count(a) > 1:
            return f"Axis order must be a permutation, but axis {a} is used at least twice"
    return None


def _index(cx, args, key, name, call, rank, arr=None) -> list:
    v = _req(cx, name, args, key, call)
    elts = v.elts if v.kind == T.TUPLE else [v]
    if len(elts) != rank:
        cx.fail("C2T109", f"ct.{name}: `{key}` has {len(elts)} entries for a {rank}-D array", call)
    return wide_indices(elts, arr)


def wide_indices(elts: list, arr) -> list:
    """The indices of an access to `arr`, as int64 where it is indexed with 64 bits (a
    `ct.IndexedWithInt64` parameter: its extents may pass 2**31, and so may the element offsets the
    helpers compute from the indices, which Triton computes in the indices' width); others as given.
    Literal ints are left alone (Triton widens constants that need it)."""
    if arr is None or not getattr(arr, "int64", False):
        return elts
    return [e if e.known else dataclasses.replace(
        e, code=f"tl.cast({e.code}, tl.int64)", prec=100, kind=T.SCALAR if e.kind == T.STATIC else e.kind,
        value=None, nonneg=None) for e in elts]


def _dtype(cx, args, key, name, call) -> V:
    v = _req(cx, name, args, key, call)
    if v.kind != T.DTYPE:
        cx.fail("C2T105", f"ct.{name}: `{key}` must be a dtype", call)
    return v


def _gather_indices(cx, args, key, name, call, rank, arr=None):
    v = _req(cx, name, args, key, call)
    elts = v.elts if v.kind == T.TUPLE else [v]
    if len(elts) != rank:
        cx.fail("C2T109", f"ct.{name}: {len(elts)} indices for a {rank}-D array", call)
    return wide_indices(elts, arr)


def cutile_rejects(cx, what: str, message: str, node, error: str = "TileTypeError") -> V:
    """An operation cuTile refuses to compile (`message`, its `error`): C2T218, and a value whose
    code fails the translation's compilation with cuTile's error (the shim raises it from ct.launch:
    shim/kernel.py cutile_error)."""
    cx.note("C2T218", f"{what}: cuTile refuses it ({error}: {message})", node)
    return V(f"tl.static_assert(False, {f'cuTile {error}: {message}'!r})", T.SCALAR)
