"""Tile shape operations without a direct Triton twin: ct.cat, ct.extract, ct.insert, ct.astile,
ct.pack_to_bytes, ct.unpack_from_bytes, and the tile methods .extract() / .insert().

Tile shapes stay static: the Triton helpers (templates/prelude_shape.py.j2) read extents from
`x.shape` at compile time, so the translator only needs ranks, which the index tuples give.
"""
from __future__ import annotations

from . import types as T
from .context import _dtype, _req, _static, bind, cutile_rejects
from .registry import method, op
from .types import V

_NOT_TILES = (T.ARRAY, T.DTYPE, T.CTFUNC, T.CTMOD, T.HELPER, T.MODULE, T.ENUM)


def _pow2(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def _tile(cx, name, v: V, node, what="the tile"):
    if v.kind in _NOT_TILES or v.kind == T.TUPLE:
        cx.fail("C2T106", f"ct.{name}: {what} must be a tile", node)
    return v


# ---------------------------------------------------------------- cat
@op("cat", ["tiles", "/", "axis"])
def op_cat(cx, call, args):
    tiles = _req(cx, "cat", args, "tiles", call)
    if tiles.kind != T.TUPLE or tiles.elts is None:
        cx.fail("C2T106", "ct.cat takes a tuple of tiles", call)
    elts = tiles.elts
    if len(elts) == 1:
        return elts[0]
    if len(elts) > 2:       # (as cuTile: nest the calls)
        return cutile_rejects(cx, "ct.cat", f"cat() supports at most 2 tiles, got {len(elts)}", call)
    if len(elts) != 2:
        cx.fail("C2T106", f"ct.cat concatenates exactly 2 tiles, got {len(elts)}", call)
    a, b = (_tile(cx, "cat", e, call) for e in elts)
    ax = _static(cx, _req(cx, "cat", args, "axis", call), "ct.cat axis", call)
    known = ax.known and isinstance(ax.value, int)
    if not (known or (ax.kind == T.STATIC and not ax.known)):
        cx.fail("C2T105", "ct.cat: `axis` must be an integer literal or constant", call)
    rank = a.rank if a.rank is not None else b.rank
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return cutile_rejects(cx, f"ct.cat of tiles of rank {a.rank} and {b.rank}",
                                  "Expected tiles to have the same rank", call)
    if rank == 0:
        cx.fail("C2T106", "ct.cat: 0-d tiles cannot be concatenated", call)
    if rank is not None:
        if known and not -rank <= ax.value < rank:     # (a Constant parameter's: the helper checks it)
            cx.fail("C2T106", f"ct.cat: axis {ax.value} is out of range for {rank}-D tiles", call)
        fn = cx.use_rank("cat", rank)
    else:   # rank known only to Triton: dispatch on len(a.shape) at compile time
        for r in range(1, 5):
            cx.use_rank("cat", r)
        fn = cx.use("_c2t_cat_nd")
    cx.note_permute()
    return V(f"{fn}({a.code}, {b.code}, {ax.code})", T.TILE, rank=rank)


# ---------------------------------------------------------------- extract / insert
def _index_list(cx, name, v: V, node) -> list:
    if v.kind == T.TUPLE:
        if v.elts is None:
            cx.fail("C2T105", f"ct.{name}: `index` must be a tuple of known length", node)
        elts = list(v.elts)
    else:
        elts = [v]
    for e in elts:
        if e.kind in _NOT_TILES or e.kind == T.TUPLE:
            cx.fail("C2T106", f"ct.{name}: `index` must hold integer scalars", node)
        if e.known and (not isinstance(e.value, int) or isinstance(e.value, bool)):
            cx.fail("C2T106", f"ct.{name}: `index` must hold integers", node)
        if e.known and e.value < 0:
            cx.fail("C2T106", f"ct.{name}: index {e.value} is out of bounds", node)
    return elts


def _extract(cx, x: V, args, call):
    _tile(cx, "extract", x, call)
    if "index" not in args or "shape" not in args:
        cx.fail("C2T109", "ct.extract needs `index` and `shape`", call)
    idx = _index_list(cx, "extract", cx.expr(args["index"]), call)
    rank = len(idx)
    if x.rank is not None and x.rank != rank:
        cx.fail("C2T109", f"ct.extract: {rank} indices for a {x.rank}-D tile", call)
    shape_v = cx.expr(args["shape"])
    shape = list(shape_v.elts) if shape_v.kind == T.TUPLE and shape_v.elts is not None else [shape_v]
    for s in shape:
        _static(cx, s, "ct.extract `shape`", call)
        if s.known and not _pow2(s.value):
            cx.fail("C2T106", f"ct.extract: shape extent {s.value} is not a power of two", call)
    scalar = shape_v.kind == T.TUPLE and len(shape) == 0     # shape=(): a 0-d result
    if scalar:
        shape = [V("1", T.STATIC, value=1, known=True)] * rank
    if len(shape) != rank:
        cx.fail("C2T109", f"ct.extract: a {len(shape)}-entry shape for a {rank}-D tile", call)
    if rank == 0:
        return x
    fn = cx.use_rank("extract", rank)
    # (constant indices, literals or Constant parameters: cuTile checks them against the grid)
    known = ", KNOWN=True" if all(i.kind == T.STATIC for i in idx) else ""
    code = f"{fn}({x.code}, {', '.join(i.code for i in idx)}, {', '.join(s.code for s in shape)}{known})"
    if scalar:
        return V(f"tl.reshape({code}, [])", T.SCALAR, rank=0)
    return V(code, T.TILE, rank=rank)


def _insert(cx, x: V, args, call):
    _tile(cx, "insert", x, call)
    if "index" not in args or "value" not in args:
        cx.fail("C2T109", "ct.insert needs `index` and `value`", call)
    idx = _index_list(cx, "insert", cx.expr(args["index"]), call)
    rank = len(idx)
    val = _tile(cx, "insert", cx.expr(args["value"]), call, "`value`")
    # (cuTile's order: the value's rank, then the index's)
    if val.rank is not None and x.rank is not None and val.rank not in (0, x.rank):
        cx.fail("C2T109", f"ct.insert: a {val.rank}-D value into a {x.rank}-D tile", call,
                cutile=("TileTypeError", f"Value rank {val.rank} does not match the tile rank {x.rank}"))
    if x.rank is not None and x.rank != rank:
        cx.fail("C2T109", f"ct.insert: {rank} indices for a {x.rank}-D tile", call,
                cutile=("TileTypeError", f"Index size {rank} does not match the tile rank {x.rank}"))
    if val.rank is not None and val.rank not in (0, rank):
        cx.fail("C2T109", f"ct.insert: a {val.rank}-D value into a {rank}-D tile", call)
    if rank == 0:
        return V(f"tl.full([], {val.code}, {x.code}.dtype)", T.SCALAR, rank=0)
    unit = val.kind in (T.STATIC, T.SCALAR) or val.rank == 0
    fn = cx.use_rank("insert", rank)
    return V(f"{fn}({x.code}, {', '.join(i.code for i in idx)}, {val.code}, {unit})", T.TILE, rank=rank)


@op("extract", ["x", "/", "index", "shape"])
def op_extract(cx, call, args):
    return _extract(cx, _req(cx, "extract", args, "x", call), args, call)


@op("insert", ["x", "/", "index", "value"])
def op_insert(cx, call, args):
    return _insert(cx, _req(cx, "insert", args, "x", call), args, call)


def _method(kind, name, impl, sig):
    @method(kind, name)
    def handler(cx, base, call):
        return impl(cx, base, bind(cx, name, call, sig), call)
    return handler


for _kind in (T.TILE, T.SCALAR, T.UNKNOWN):
    _method(_kind, "extract", _extract, ["index", "shape"])
    _method(_kind, "insert", _insert, ["index", "value"])


# ---------------------------------------------------------------- astile
def _not_scalar(v: V) -> bool:
    return v.kind in _NOT_TILES or (v.kind == T.TILE and v.rank not in (0,)) \
        or (v.known and not isinstance(v.value, (bool, int, float)))


def _tuple_shape(cx, v: V, node, path: str = "value") -> tuple:
    """The tile shape a (nested) tuple of scalars spells; each level a uniform power of two.
    Refusals in cuTile's words (`path`: where in the value, as cuTile names it: value[1][0])."""
    if v.kind != T.TUPLE:
        if _not_scalar(v):
            got = f"got a tile of shape {tuple(int(d) for d in v.shape)}" if v.kind == T.TILE and v.shape \
                and all(str(d).isdigit() for d in v.shape) else "got an element that is not a scalar"
            cx.fail("C2T106", f"ct.astile: the elements must be scalars ({path} is not)", node,
                    cutile=("TileTypeError", f"Expected scalar elements at {path}; {got}"))
        return ()
    if v.elts is None:
        cx.fail("C2T105", "ct.astile: the tuple must have a known length", node)
    if not _pow2(len(v.elts)):
        cx.fail("C2T106", f"ct.astile: tuple length {len(v.elts)} is not a power of two", node,
                cutile=("TileTypeError", f"Tuple length {len(v.elts)} at {path} is not a power of 2"))
    inner = {_tuple_shape(cx, e, node, f"{path}[{k}]") for k, e in enumerate(v.elts)}
    if len(inner) != 1:
        cx.fail("C2T106", "ct.astile: the nested tuples have different shapes", node,
                cutile=("TileTypeError", f"Tuple has non-uniform inner shapes at {path}"))
    return (len(v.elts),) + inner.pop()


def _leaves(v: V) -> list:
    if v.kind == T.TUPLE:
        return [x for e in v.elts for x in _leaves(e)]
    return [v]


@op("astile", ["value", "/", "*", "dtype"])
def op_astile(cx, call, args):
    value = _req(cx, "astile", args, "value", call)
    dt = _dtype(cx, args, "dtype", "astile", call)
    if value.kind != T.TUPLE and _not_scalar(value):
        cx.fail("C2T106", "ct.astile: the value must be a scalar or a (nested) tuple of scalars", call,
                cutile=("TileTypeError", "Expected a scalar or (possibly nested) tuple of scalars; got a value "
                                         "that is neither"))
    shape = _tuple_shape(cx, value, call)
    if not shape:
        return V(f"tl.full([], {value.code}, {dt.code})", T.SCALAR, rank=0, tf32=dt.tf32)
    leaves = [f"tl.full([], {x.code}, {dt.code})" for x in _leaves(value)]
    n = len(leaves)
    if n == 1:
        return V(f"tl.full({list(shape)}, {_leaves(value)[0].code}, {dt.code})", T.TILE, rank=len(shape),
                 tf32=dt.tf32)
    # element k of the flattened tile is leaf k: a chain of selects on an arange
    code = leaves[-1]
    for k in range(n - 2, -1, -1):
        code = f"tl.where(tl.arange(0, {n}) == {k}, {leaves[k]}, {code})"
    if len(shape) > 1:
        code = f"tl.reshape({code}, {list(shape)})"
    return V(code, T.TILE, rank=len(shape), tf32=dt.tf32)


# ---------------------------------------------------------------- bytes
@op("pack_to_bytes", ["x", "/"])
def op_pack_to_bytes(cx, call, args):
    x = _tile(cx, "pack_to_bytes", _req(cx, "pack_to_bytes", args, "x", call), call)
    if x.is_static:
        cx.fail("C2T106", "ct.pack_to_bytes needs a tile (give the constant a dtype with ct.astile)", call)
    return V(f"{cx.use('_c2t_pack_to_bytes')}({x.code})", T.TILE, rank=1)


@op("unpack_from_bytes", ["x", "/", "dtype"])
def op_unpack_from_bytes(cx, call, args):
    x = _tile(cx, "unpack_from_bytes", _req(cx, "unpack_from_bytes", args, "x", call), call)
    dt = _dtype(cx, args, "dtype", "unpack_from_bytes", call)
    # (a tile of another rank or dtype, a bool result: _c2t_unpack_from_bytes fails compilation with
    # cuTile's TileTypeError, as cuTile's compile does)
    return V(f"{cx.use('_c2t_unpack_from_bytes')}({x.code}, {dt.code})", T.TILE, rank=1, tf32=dt.tf32)
