"""Array views: Array.slice, Array.tiled_view (TiledView) and advanced indexing (ct.Slice).

* `A.slice(axis, start, stop)` is a derived ArrayRef: pointer `A + start * stride[axis]`, extent
  `stop - start`; every op that takes an array accepts it (it has no runtime value of its own).
  The start/stop expressions are substituted where the view is used.
* `A.tiled_view(tile_shape, padding_mode=, traversal_steps=)` is a compile-time descriptor (value
  kind TILEDVIEW) whose methods lower to the _c2t_tv_* helpers of templates/prelude_views.py.j2;
  the tile origin along axis i is `index[i] * step[i]` (steps default to the tile shape). A 0-d
  view (`tile_shape=()`) reads and writes (1,)*rank blocks (steps default to 1s), its loads
  0-d tiles. Its attributes (dtype, tile_shape, traversal_steps) are compile-time values; a view
  passed to a helper travels as its array and its Constant entries (view_parameter), one chosen
  by a condition (`x.tiled_view(T) if c else y.tiled_view(T)`, or a Constant `if`) is one view of
  the chosen array's parts (choose_views).
* `ct.load_advanced_indexing` / `ct.store_advanced_indexing`: one 1-D integer tile of element
  indices (the sparse dim) and `ct.Slice(start, length)` element ranges for the other dims; they
  lower to ct.gather / ct.scatter with each index vector laid along its own axis.
* `ct.Array.from_foreign(A.foreign_pointer, shape, strides)` (cuTile 1.7): A's memory with other
  extents and strides, an ArrayRef with A's pointer and root; the pointer is a compile-time value.
"""
from __future__ import annotations

from . import types as T
from .context import _array, _bool_arg, _hints, _padding, _req, _static, _static_tuple, bind, wide_indices
from .registry import method, op
from .types import ArrayRef, V, paren

TILEDVIEW = "tiledview"    # V.array: the array; V.value: dict(tile=[V], steps=[V], pad=str)
SLICE = "ctslice"          # ct.Slice(start, length): V.elts = [start, length]

# (NEG_ZERO: Triton makes every float constant equal to 0 a +0.0, so -0.0 comes from _c2t_pad_value,
# which builds it from its bits)
_PAD_VALUES = {"UNDETERMINED": "0", "ZERO": "0", "NEG_ZERO": "_c2t_pad_value(1)", "NAN": 'float("nan")',
               "POS_INF": 'float("inf")', "NEG_INF": '-float("inf")'}


def _axis_of(cx, v: V, rank: int, what: str, node) -> int:
    if not (v.known and isinstance(v.value, int) and not isinstance(v.value, bool)):
        cx.fail("C2T105", f"{what} must be an integer constant", node)
    ax = v.value + rank if v.value < 0 else v.value
    if not 0 <= ax < rank:
        cx.fail("C2T109", f"{what} {v.value} is out of range for a {rank}-D array", node)
    return ax


# ---------------------------------------------------------------- Array.slice
def _pin(cx, v: V, prefix: str = "_c2t_slice") -> V:
    """A runtime slice bound is evaluated once, where the view is made (as in cuTile), into a
    temporary: the view's pointer and extent are re-emitted at every use, after which the names
    in the bound may have been rebound."""
    if v.is_static:
        return v
    name = cx.fresh_temp(prefix)
    cx.emit_before(f"{name} = {v.code}")
    return V(name, v.kind, rank=v.rank)


@method(T.ARRAY, "slice")
def array_slice(cx, base: V, call):
    args = bind(cx, "Array.slice", call, ["axis", "start", "stop"])
    arr = base.array
    start = _req(cx, "Array.slice", args, "start", call)
    stop = _req(cx, "Array.slice", args, "stop", call)
    for v, what in ((start, "start"), (stop, "stop")):
        if v.kind in (T.TILE,) and v.rank not in (0, None) or v.kind in (T.ARRAY, T.TUPLE, T.DTYPE, T.ENUM) \
                or v.known and type(v.value) is not int or (v.dsrc or "").startswith(("dt:tl.uint", "dt:tl.float")):
            cx.fail("C2T109", f"Array.slice: `{what}` must be an integer scalar (cuTile: expected a signed "
                              "integer scalar)", call,
                    cutile=("TileTypeError", "Expected a signed integer scalar"))
        if v.known and v.value < 0:
            cx.fail("C2T109", f"Array.slice: `{what}` is negative (cuTile: slice {what} must be non-negative)", call,
                    cutile=("TileTypeError", f"Slice {what} must be non-negative"))
    if start.known and stop.known and stop.value < start.value:
        cx.fail("C2T109", "Array.slice: `stop` is less than `start` (cuTile: slice stop must be greater than "
                          "or equal to start)", call,
                cutile=("TileTypeError", "Slice stop must be greater than or equal to start"))
    axis = _req(cx, "Array.slice", args, "axis", call)
    if arr.rank_unknown and axis.known and type(axis.value) is int:
        cx.fail("C2T104", f"Array.slice: the rank of array `{arr.ptr}` is not known from the kernel's text", call,
                hint="use the array (or the slice) with an op that shows its rank: an index tuple, a load shape")
    ax = _axis_of(cx, axis, arr.rank, "Array.slice axis", call)
    start, stop = _pin(cx, start), _pin(cx, stop)
    wide = wide_indices([start], arr)[0]
    ptr = f"({arr.ptr} + {paren(wide, 13)} * {arr.strides[ax]})"
    shapes = list(arr.shapes)
    if start.known and stop.known:      # constant bounds: a compile-time extent, as in cuTile
        shapes[ax] = str(stop.value - start.value)
    else:
        shapes[ax] = f"({paren(stop, 12)} - {paren(start, 13)})"
    return V(ptr, T.ARRAY, array=ArrayRef(ptr, arr.rank, shapes, list(arr.strides), int64=arr.int64))


# ---------------------------------------------------------------- foreign pointers
FOREIGN = "foreignptr"      # `A.foreign_pointer`: V.array is A, whose base pointer it is


def foreign_pointer(cx, base: V, node) -> V:
    """`A.foreign_pointer` (from ops_memory.array_attr): A's base pointer, for Array.from_foreign,
    bound at translation time (the kind has a __getattr__, so kernel.st_Assign binds it)."""
    if base.array.from_list:        # (its code reads the table at an index that may change)
        cx.fail("C2T101", "the foreign pointer of a list element: assign the element to a name first "
                          "(`A = As[g]`)", node)
    return V(base.array.ptr, FOREIGN, array=base.array)


@method(FOREIGN, "__getattr__")
def foreign_pointer_attr(cx, base: V, node):
    cx.fail("C2T101", f"a foreign pointer has no attribute `{node.attr}` (it only makes an array, "
                      "ct.Array.from_foreign)", node)


def _extents(cx, v: V, what: str, call) -> list:
    if v.kind != T.TUPLE or v.elts is None:
        cx.fail("C2T109", f"ct.Array.from_foreign: `{what}` must be a tuple", call)
    out = []
    for e in v.elts:
        if e.known and (type(e.value) is not int or e.value < 0) or e.kind not in (
                T.STATIC, T.SCALAR, T.TILE, T.UNKNOWN) or e.kind == T.TILE and e.rank not in (0, None):
            cx.fail("C2T109", f"ct.Array.from_foreign: `{what}` must hold non-negative integer scalars", call)
        code = _pin(cx, e, "_c2t_view").code
        out.append(code if code.isidentifier() or code.isdigit() else f"({code})")
    return out


@op("Array.from_foreign", ["pointer", "shape", "strides"])
def op_from_foreign(cx, call, args):
    """ct.Array.from_foreign(pointer, shape, strides): the array at `A.foreign_pointer` with these
    extents and strides (in elements), evaluated here (runtime ones into temporaries, _pin). Its
    loads and stores count as A's (memory ordering: the same root)."""
    p = _req(cx, "Array.from_foreign", args, "pointer", call)
    if p.kind != FOREIGN:
        cx.fail("C2T101", "ct.Array.from_foreign: the pointer must be an array's `.foreign_pointer`", call)
    shapes = _extents(cx, _req(cx, "Array.from_foreign", args, "shape", call), "shape", call)
    strides = _extents(cx, _req(cx, "Array.from_foreign", args, "strides", call), "strides", call)
    if len(shapes) != len(strides):
        cx.fail("C2T109", "ct.Array.from_foreign: shape and strides must have the same rank", call)
    src = p.array
    return V(src.ptr, T.ARRAY, array=ArrayRef(src.ptr, len(shapes), shapes, strides, root=src.root))


# ---------------------------------------------------------------- Array.tiled_view
def _known_tuple(elts: list) -> str:
    """A shape as cuTile's messages print it (`(4, -1)`, `(8,)`); entries not known here as `?`."""
    return str(tuple(e.value if e.known else "?" for e in elts)).replace("'?'", "?")


def _shape_arg(cx, v: V, what: str, node) -> list:
    elts = _static_tuple(cx, v, what, node)
    return elts


@method(T.ARRAY, "tiled_view")
def array_tiled_view(cx, base: V, call):
    args = bind(cx, "Array.tiled_view", call, ["tile_shape", "*", "padding_mode", "traversal_steps"])
    arr = base.array
    tile = _shape_arg(cx, _req(cx, "Array.tiled_view", args, "tile_shape", call), "tile_shape", call)
    if arr.rank_unknown:
        cx.fail("C2T101", f"Array.tiled_view: the rank of array `{arr.ptr}` is not known from the kernel's text "
                          f"(a {len(tile)}-entry tile_shape)", call,
                hint="give the view a tile_shape with one entry per axis, or use it with an index tuple "
                     "(`tv.load((i, j))`), a traversal_steps tuple or another op that shows the rank")
    if len(tile) not in (0, arr.rank):       # (a 0-d tile_shape views any array: one element per tile)
        cx.fail("C2T109", f"Array.tiled_view: a {len(tile)}-entry tile_shape for a {arr.rank}-D array "
                          f"(cuTile: expected shape length to be {arr.rank}, got {len(tile)})", call,
                cutile=("TileTypeError", f"Expected shape length to be {arr.rank}, got {len(tile)}"))
    for k, e in enumerate(tile):
        if e.known and (type(e.value) is not int or e.value <= 0 or e.value & (e.value - 1)):
            why = "is not positive" if type(e.value) is int and e.value <= 0 else "is not a power of two"
            cx.fail("C2T109", f"Array.tiled_view: tile_shape entry {e.value!r} is not a positive power of two", call,
                    cutile=("TileTypeError", f"Dimension #{k} of shape {_known_tuple(tile)} {why}")
                    if type(e.value) is int else None)
    # the tile the view reads and writes in memory: a 0-d view's is one element, (1,)*rank
    block = tile if tile else [V("1", T.STATIC, value=1, known=True)] * arr.rank
    steps = block
    if "traversal_steps" in args:
        sv = cx.expr(args["traversal_steps"])
        if not (sv.known and sv.value is None):
            steps = _shape_arg(cx, sv, "traversal_steps", call)
            if len(steps) != arr.rank:
                cx.fail("C2T109", f"Array.tiled_view: {len(steps)} traversal_steps for a {arr.rank}-D array", call,
                        cutile=("TileTypeError", f"Expected traversal_steps length to be {arr.rank}, got {len(steps)}"))
            for k, st in enumerate(steps):
                if st.known and (type(st.value) is not int or st.value <= 0):
                    cx.fail("C2T109", f"Array.tiled_view: traversal_steps must be positive integers (cuTile: "
                                      f"dimension #{k} of traversal_steps is not positive)", call,
                            cutile=("TileTypeError", f"Dimension #{k} of traversal_steps {_known_tuple(steps)} "
                                                     "is not positive") if type(st.value) is int else None)
    pad = _padding(cx, args, call)
    return V(arr.ptr, TILEDVIEW, array=arr, value={"tile": tile, "steps": steps, "pad": pad, "block": block})


def _view_type(v: V) -> tuple:
    """What cuTile's TiledView type holds besides the array's dtype: rank, tile shape, steps, padding."""
    return (v.array.rank, [e.code for e in v.value["tile"]], [e.code for e in v.value["steps"]], v.value["pad"])


def choose_views(cx, test: V, a: V, b: V, node, typed: bool = True) -> V:
    """`a if test else b` between two views (or two arrays): one of the chosen array (its pointer,
    extents and strides each chosen; memory ordering counts both arrays). cuTile types a view by
    its tile shape, steps and padding, so under a run-time test (`typed`) the two must agree
    ("depends on the path taken" otherwise); under a Constant one, where cuTile compiles one
    path only, the tile entries are chosen too."""
    if test.known:
        return a if test.value else b
    t = paren(test, 4)

    def pick(x: str, y: str) -> str:
        return x if x == y else f"({x} if {t} else {y})"
    if a.kind == TILEDVIEW and (len(a.value["tile"]) != len(b.value["tile"]) or typed and _view_type(a) != _view_type(b)
                                or a.value["pad"] != b.value["pad"]):
        cx.fail("C2T109", "a choice between tiled views of different tile shapes, traversal steps or padding "
                          "modes (cuTile: the view's type depends on the path taken)", node)
    ra, rb = a.array, b.array
    if ra.rank != rb.rank or ra.from_list or rb.from_list:
        cx.fail("C2T101", f"a choice between arrays of ranks {ra.rank} and {rb.rank}" if ra.rank != rb.rank else
                "a choice between views of list elements is not supported yet", node,
                hint="keep each path's uses in its own branch" if ra.rank != rb.rank else
                "assign each element to a name first (`A = As[g]`)")
    roots = [T.array_root(ra), *ra.also]
    also = tuple(dict.fromkeys(r for r in [T.array_root(rb), *rb.also, *ra.also] if r != roots[0]))
    ref = ArrayRef(pick(ra.ptr, rb.ptr), ra.rank, [pick(x, y) for x, y in zip(ra.shapes, rb.shapes)],
                   [pick(x, y) for x, y in zip(ra.strides, rb.strides)], root=roots[0], also=also,
                   int64=ra.int64 or rb.int64)
    if a.kind != TILEDVIEW:
        return V(ref.ptr, T.ARRAY, array=ref)

    def entries(xs, ys):
        return [x if x.code == y.code else V(pick(x.code, y.code), T.STATIC, prec=3) for x, y in zip(xs, ys)]
    value = dict(a.value, tile=entries(a.value["tile"], b.value["tile"]),
                 block=entries(a.value["block"], b.value["block"]))
    value["steps"] = value["block"] if a.value["steps"] is a.value["block"] and b.value["steps"] is b.value["block"] \
        else entries(a.value["steps"], b.value["steps"])
    return V(ref.ptr, TILEDVIEW, array=ref, value=value)


def same_descriptor(a: V, b: V) -> bool:
    """Whether two compile-time descriptors (views, arrays) bound to one name are the same."""
    if a.kind != b.kind or a.array is None or b.array is None:
        return a is b
    if a.array.flat() != b.array.flat() or a.array.also != b.array.also:
        return False
    return a.kind != TILEDVIEW or _view_type(a) == _view_type(b)


# ---------------------------------------------------------------- views passed to helpers
def _view_entries(v: V) -> list:
    """The view's block entries (its tile's, or 1s for a 0-d tile), then its step entries unless
    they are the block's own."""
    block, steps = v.value["block"], v.value["steps"]
    return block + ([] if steps is block else steps)


def view_signature(v: V) -> tuple:
    """What a helper's lowering depends on besides the array's rank: the known block and step
    entries (unknown ones are constexpr parameters), whether the steps are the block's, the
    padding, whether the tile is 0-d."""
    return (tuple(e.value if e.known else None for e in _view_entries(v)),
            v.value["steps"] is v.value["block"], v.value["pad"], len(v.value["tile"]))


def view_arguments(v: V) -> list:
    """A view passed to a helper: the array's pointer, extents and strides, then its unknown tile
    and step entries (Constant parameters of the caller: constexprs of the helper)."""
    return v.array.flat() + [e.code for e in _view_entries(v) if not e.known]


def view_parameter(name: str, v: V) -> tuple:
    """(the helper's value for parameter `name`, its declarations) for a view argument `v`."""
    ref = ArrayRef.for_param(name, v.array.rank)
    decls, made = list(ref.flat()), []
    for k, e in enumerate(_view_entries(v)):
        if e.known:
            made.append(e)
        else:
            decls.append(f"{name}_view_{k}: tl.constexpr")
            made.append(V(f"{name}_view_{k}", T.STATIC))
    n = len(v.value["block"])
    block = made[:n]
    steps = block if v.value["steps"] is v.value["block"] else made[n:]
    value = dict(v.value, tile=block if v.value["tile"] else [], block=block, steps=steps)
    return V(name, TILEDVIEW, array=ref, value=value), decls


def _tuple_of(elts: list) -> V:
    code = "(" + ", ".join(e.code for e in elts) + ("," if len(elts) == 1 else "") + ")"
    known = all(e.known for e in elts)
    return V(code, T.TUPLE, elts=list(elts), known=known,
             value=tuple(e.value for e in elts) if known else None)


TV_PROPERTIES = ("dtype", "tile_shape", "traversal_steps")     # (tiledview_attr; the coverage table reads it)
_TV_METHODS = {"load", "store", "num_tiles", "atomic_store_add", "atomic_store_max", "atomic_store_min",
               "atomic_store_and", "atomic_store_or", "atomic_store_xor"}


@method(TILEDVIEW, "__getattr__")
def tiledview_attr(cx, base: V, node):
    attr = node.attr
    if attr == "dtype":
        return V(f"{base.array.ptr}.dtype.element_ty", T.DTYPE, dsrc=f"arr:{base.array.ptr}", mbf=True)
    if attr == "tile_shape":
        return _tuple_of(base.value["tile"])
    if attr == "traversal_steps":
        return _tuple_of(base.value["steps"])
    if attr in _TV_METHODS:
        return V(f"{base.code}.{attr}", T.UNKNOWN, value=("method", base, attr))
    cx.fail("C2T101", f"TiledView.{attr} is not supported", node)


def _tv_index(cx, args, base: V, name: str, call) -> list:
    v = _req(cx, name, args, "index", call)
    elts = v.elts if v.kind == T.TUPLE else [v]
    if len(elts) != base.array.rank:
        cx.fail("C2T109", f"{name}: `index` has {len(elts)} entries for a {base.array.rank}-D view "
                          f"(cuTile: index size {len(elts)} does not match the tiled view rank {base.array.rank})", call)
    return wide_indices(elts, base.array)


def _tv_shape_args(base: V) -> str:
    return ", ".join([e.code for e in base.value["block"]] + [e.code for e in base.value["steps"]])


def _check_broadcast(cx, v: V, base: V, name: str, what: str, call):
    """A tile stored into a view is broadcast to its tile shape: one whose known shape cannot be
    is refused, as cuTile does (Triton's broadcast would fail only when the kernel runs)."""
    view = [e.value if e.known else None for e in base.value["tile"]]
    shape = v.shape if v.kind == T.TILE else [] if v.rank == 0 or v.is_static else None
    if shape is None or None in view:
        return
    dims = [int(d) if d.isdigit() else None for d in shape]
    ok = len(dims) <= len(view) and all(
        d is None or d == 1 or d == t for d, t in zip(reversed(dims), reversed(view)))
    if not ok:
        shown = tuple(d if d is not None else "?" for d in dims)
        cx.fail("C2T109", f"{name}: {what} shape {shown} is not broadcastable to the tiled view's tile "
                          f"shape {tuple(view)}", call,
                cutile=("TileTypeError", f"{what.capitalize()} shape {shown} is not broadcastable to the tiled "
                                         f"view's tile shape {tuple(view)}") if None not in dims else None)


@method(TILEDVIEW, "load")
def tiledview_load(cx, base: V, call):
    name = "TiledView.load"
    args = bind(cx, name, call, ["index", "*", "check_bounds", "latency", "allow_tma"])
    idx = _tv_index(cx, args, base, name, call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    _hints(cx, name, args, call)
    arr = base.array
    cx.before_read(arr)
    if arr.rank == 0:       # a 0-D array's one element
        return V(f"tl.load({arr.ptr})", T.SCALAR, rank=0, dsrc=f"arr:{arr.ptr}", mbf=True)
    cx.use_rank("load", arr.rank)      # _c2t_pad_value and the padding codes
    fn = cx.use_rank("tv_load", arr.rank)
    code = (f"{fn}({', '.join(arr.flat())}, {', '.join(i.code for i in idx)}, {_tv_shape_args(base)}, "
            f"{base.value['pad']}, {check})")
    if not base.value["tile"]:      # a 0-d view: its (1,)*rank block, as a 0-d tile
        return V(f"tl.reshape({code}, [])", T.SCALAR, rank=0, dsrc=f"arr:{arr.ptr}", mbf=True)
    return V(code, T.TILE, rank=arr.rank, dsrc=f"arr:{arr.ptr}", mbf=True,
             shape=[e.code for e in base.value["tile"]])


@method(TILEDVIEW, "store")
def tiledview_store(cx, base: V, call):
    name = "TiledView.store"
    args = bind(cx, name, call, ["index", "tile", "*", "check_bounds", "latency", "allow_tma"])
    idx = _tv_index(cx, args, base, name, call)
    tile = _req(cx, name, args, "tile", call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    _hints(cx, name, args, call)
    _check_broadcast(cx, tile, base, name, "tile", call)
    arr = base.array
    cx.mark_written(arr)
    cx.use("_c2t_tv_cast")
    if arr.rank == 0:
        return V(f'tl.store({arr.ptr}, _c2t_tv_cast({tile.code}, {arr.ptr}, "store"))', T.STATIC)
    fn = cx.use_rank("tv_store", arr.rank)
    return V(f"{fn}({', '.join(arr.flat())}, {', '.join(i.code for i in idx)}, {tile.code}, "
             f"{_tv_shape_args(base)}, {check})", T.STATIC)


@method(TILEDVIEW, "num_tiles")
def tiledview_num_tiles(cx, base: V, call):
    args = bind(cx, "TiledView.num_tiles", call, ["axis"])
    arr = base.array
    ax = _axis_of(cx, _req(cx, "TiledView.num_tiles", args, "axis", call), arr.rank,
                  "TiledView.num_tiles axis", call)
    return V(f"tl.cdiv({arr.shapes[ax]}, {base.value['steps'][ax].code})", T.SCALAR)


def _tv_atomic(opname):
    def handler(cx, base: V, call):
        name = f"TiledView.atomic_store_{opname}"
        args = bind(cx, name, call, ["index", "update", "/"])
        idx = _tv_index(cx, args, base, name, call)
        upd = _req(cx, name, args, "update", call)
        _check_broadcast(cx, upd, base, name, "update", call)
        arr = base.array
        if arr.rank == 0:
            cx.fail("C2T101", f"{name} on a 0-D array is not supported yet", call,
                    hint="use ct.atomic_add(A, (), value) and the other ct.atomic_* operations")
        cx.before_read(arr)
        cx.mark_written(arr)
        cx.use("_c2t_rmw")
        cx.use("_c2t_tv_cast")
        fn = cx.use_rank("tv_atomic", arr.rank)
        return V(f"{fn}({', '.join(arr.flat())}, {', '.join(i.code for i in idx)}, {upd.code}, "
                 f'{_tv_shape_args(base)}, "{opname}")', T.STATIC)
    return handler


for _o in ("add", "max", "min", "and", "or", "xor"):
    method(TILEDVIEW, f"atomic_store_{_o}")(_tv_atomic(_o))


# ---------------------------------------------------------------- advanced indexing
@op("Slice", ["start", "length", "/"])
def op_slice(cx, call, args):
    start = _req(cx, "Slice", args, "start", call)
    length = _static(cx, _req(cx, "Slice", args, "length", call), "ct.Slice length", call)
    # (its length is checked where advanced indexing uses it, as cuTile does: _adv_indices)
    return V(f"({start.code}, {length.code})", SLICE, elts=[start, length])


def _adv_indices(cx, args, arr: ArrayRef, name, call) -> list:
    v = _req(cx, name, args, "indices", call)
    if v.kind != T.TUPLE or v.elts is None:
        cx.fail("C2T109", f"ct.{name}: `indices` must be a tuple with one entry per array axis", call)
    elts = v.elts
    ops = "load_advanced_indexing/store_advanced_indexing"      # (cuTile's words: _parse_advanced_index)
    if len(elts) != arr.rank:
        cx.fail("C2T109", f"ct.{name}: {len(elts)} indices for a {arr.rank}-D array", call,
                cutile=("TileTypeError", f"{ops} index length {len(elts)} does not match array rank {arr.rank}"))
    sparse = [k for k, e in enumerate(elts) if e.kind != SLICE]
    for k in sparse:        # (cuTile checks each entry in turn, then their count)
        e = elts[k]
        if e.kind in (T.TILE, T.UNKNOWN) and e.rank not in (1, None):
            cx.fail("C2T109", f"ct.{name}: the sparse index (entry {k}) must be a 1-D integer tile", call,
                    cutile=("TileTypeError", f"Sparse index at dim {k} must be a 1D integer tile, got {e.rank}D"))
        if e.kind not in (T.TILE, T.UNKNOWN):
            cx.fail("C2T109", f"ct.{name}: the sparse index (entry {k}) must be a 1-D integer tile", call)
    if len(sparse) != 1:
        found = "none found" if not sparse else f"found {len(sparse)} at dims {sparse}"
        cx.fail("C2T109", f"ct.{name}: exactly one entry of `indices` must be a 1-D integer tile "
                          f"(the others ct.Slice(start, length)); got {len(sparse)}", call,
                cutile=("TileTypeError", f"{ops}: exactly one index must be a 1D integer Tile (the sparse dim); "
                                         + found))
    k0 = sparse[0]
    for k, e in enumerate(elts):
        n = e.elts[1].value if e.kind == SLICE and e.elts[1].known else None
        if k != k0 and n is not None and (not isinstance(n, int) or n <= 0):
            cx.fail("C2T109", f"ct.{name}: ct.Slice length {n!r} (entry {k}) must be a positive integer", call,
                    cutile=("TileTypeError", f"ct.Slice length at dim {k} must be a positive integer, got {n}"))
        if k != k0 and n is not None and n & (n - 1):
            cx.fail("C2T106", f"ct.{name}: ct.Slice length {n} (entry {k}) is not a power of two", call,
                    cutile=("TileTypeError", f"Index at dim {k} has size {n}; must be a power of two"))
    out = []
    r = arr.rank
    for k, e in enumerate(elts):
        sub = "" if r == 1 else "[" + ", ".join(":" if j == k else "None" for j in range(r)) + "]"
        if k == k0:
            out.append(f"{paren(e, 100)}{sub}")
        else:
            start, length = e.elts
            out.append(f"({paren(start, 12)} + tl.arange(0, {length.code})){sub}")
    return out


def _adv_common(cx, args, name, call):
    arr = _array(cx, args, "array", name, call)
    if arr.rank < 2:     # as cuTile 1.7's own check (TileTypeError), with its hint
        other = "gather" if name.startswith("load") else "scatter"
        cx.fail("C2T109", f"ct.{name} needs an array of rank >= 2, not {arr.rank}-D",
                call, hint=f"use ct.{other}() for 1-D arrays")
    for key in ("latency", "allow_tma"):
        if key in args:
            cx.note("C2T202", f"ct.{name}: `{key}` hint dropped", call)
    return arr, _adv_indices(cx, args, arr, name, call)


@op("load_advanced_indexing", ["array", "indices", "/", "*", "padding_mode", "latency", "allow_tma"])
def op_load_advanced_indexing(cx, call, args):
    arr, idx = _adv_common(cx, args, "load_advanced_indexing", call)
    pad = "UNDETERMINED"
    if "padding_mode" in args:
        pv = cx.expr(args["padding_mode"])
        if pv.kind != T.ENUM or not str(pv.value).startswith("PaddingMode."):
            cx.fail("C2T105", "padding_mode must be a ct.PaddingMode member", call)
        pad = str(pv.value).split(".", 1)[1]
    cx.before_read(arr)
    if pad == "NEG_ZERO":
        cx.use_rank("load", arr.rank)      # _c2t_pad_value
    fn = cx.use_rank("gather", arr.rank)
    return V(f"{fn}({', '.join(arr.flat())}, {', '.join(idx)}, None, {_PAD_VALUES[pad]}, True)",
             T.TILE, rank=arr.rank, dsrc=f"arr:{arr.ptr}", mbf=True)


@op("store_advanced_indexing", ["array", "indices", "tile", "/", "*", "latency", "allow_tma"])
def op_store_advanced_indexing(cx, call, args):
    arr, idx = _adv_common(cx, args, "store_advanced_indexing", call)
    tile = _req(cx, "store_advanced_indexing", args, "tile", call)
    cx.mark_written(arr)
    fn = cx.use_rank("scatter", arr.rank)
    return V(f"{fn}({', '.join(arr.flat())}, {', '.join(idx)}, {tile.code}, None, True)", T.STATIC)

