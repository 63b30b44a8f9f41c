"""Lowering of tile-space loads/stores, gather/scatter and Array attributes (masked pointers, or
in-kernel tensor descriptors where translator/lower/tma.py planned them)."""
from __future__ import annotations

from . import registry
from . import types as T
from .context import (_array, _bool_arg, _gather_indices, _hints, _index, _order, _padding, _rank, _req,
                      _static_tuple)
from .ops_atomics import _latency, check_order_scope, sem_scope
from .ops_views import foreign_pointer
from .registry import op
from .types import ArrayRef, V, call_code, paren

# ---------------------------------------------------------------- memory
@op("load")
def op_load(cx, call, args):
    if is_ordered(cx, args):          # memory_order=RELAXED/ACQUIRE
        return ordered_load(cx, call, args)
    arr = _array(cx, args, "array", "load", call)
    check_order_scope(cx, args, "ct.load", "tile_load", call, "WEAK", "NONE")
    v = _tile_load(cx, call, args, arr)
    v.dsrc, v.mbf = f"arr:{arr.ptr}", True      # of the array's dtype (lower/dtype_facts.py)
    if v.kind == T.TILE and arr.flat() == ArrayRef.for_param(arr.ptr, arr.rank).flat() \
            and not arr.from_list:
        v.load_of = arr.ptr      # a tile of a whole array parameter (kernel.py: aliased-load reuse)
    return v


def _tile_load(cx, call, args, arr):
    _hints(cx, "load", args, call)
    shape = _static_tuple(cx, _req(cx, "load", args, "shape", call), "load `shape`", call)
    rank = arr.rank
    if len(shape) == 0:
        idx = _index(cx, args, "index", "load", call, rank, arr)
        off = " + ".join(f"{paren(i, 13)} * {s}" for i, s in zip(idx, arr.strides)) or "0"
        return V(f"tl.load({arr.ptr} + {off})", T.SCALAR)
    if len(shape) != rank:
        cx.fail("C2T109", f"ct.load: `shape` has {len(shape)} entries for a {rank}-D array", call)
    idx = _index(cx, args, "index", "load", call, rank, arr)
    order = _order(cx, args, rank, call)
    pad = _padding(cx, args, call)
    cx.before_read(arr, region=_region([x.code for x in shape], order))
    cx.note_tile_load(arr, [x.code for x in shape])
    check = _bool_arg(cx, args, "check_bounds", True, call)
    if order is not None:   # tile axis k walks array axis order[k]
        nat_idx, nat_shape = [None] * rank, [None] * rank
        for k, ax in enumerate(order):
            nat_idx[ax], nat_shape[ax] = idx[k], shape[k]
        idx, shape = nat_idx, nat_shape
    tile_shape = [x.code for x in (shape if order is None else [shape[ax] for ax in order])]
    squeezed = _squeezed_load(cx, call, arr, idx, shape, order, pad, check)
    if squeezed is not None:
        return squeezed
    fn = cx.use_rank("load", rank)
    cx.note_tile([x.code for x in shape])
    code = call_code(fn, arr.flat(), [i.code for i in idx], [s.code for s in shape], pad, str(check))
    if order is not None:
        cx.note_permute()
        code = f"tl.permute({code}, {tuple(order)})"
    else:
        desc = cx.tma.descriptor(cx, arr, "load", [s.code for s in shape], pad) if cx.tma else None
        if desc is not None:     # TMA when the launcher found the array legal, else the pointer path
            offs = _offsets(idx, [s.code for s in shape])
            code = f"{desc}.load([{offs}]) if {cx.tma.flag(arr)} else {code}"
            return V(code, T.TILE, prec=0, rank=rank, shape=tile_shape)
    return V(code, T.TILE, rank=rank, shape=tile_shape)


def _is_one(v) -> bool:
    return (v.known and v.value == 1) or v.code == "1"


def _squeezed_load(cx, call, arr, idx, shape, order, pad, check):
    """`x = ct.load(A, ..., shape=(1, N, D))` followed by `x = ct.reshape(x, (N, D))` (cuTile loads
    have the array's rank, so kernels over batched arrays load unit extents and drop them), as one
    2-D load of the N x D tile at the unit axes' positions (FunctionLowerer.block finds the pair
    and gives it a kernel.SqueezedLoad). Triton may keep a 3-D load reshaped afterwards in registers rather
    than pipeline it: for TileGym's MLA decoding on sm_90 it did (255 registers, spills, V not
    pipelined), and the 2-D loads compile to 128 registers, none spilled, all three KV loads
    pipelined; bmm and flash_decode compile the same either way (ptxas;
    docs/decisions/006-squeezed-loads.md). None when the pair does not match."""
    req = cx.squeeze_of(call)
    if req is None:
        return None
    target, rank = req.target, arr.rank
    perm = order or list(range(rank))           # tile axis k walks array axis perm[k]
    unit = [k for k in range(rank) if _is_one(shape[perm[k]])]
    keep = [k for k in range(rank) if k not in unit]
    if not unit or not keep or len(target) != len(keep) or any(
            not (t.code == shape[perm[k]].code or (t.known and shape[perm[k]].known
                                                    and t.value == shape[perm[k]].value))
            for t, k in zip(target, keep)):
        return None
    keep_arr, unit_arr = sorted(perm[k] for k in keep), sorted(perm[k] for k in unit)
    base = arr.ptr + "".join(f" + {paren(idx[a], 13)} * {arr.strides[a]}" for a in unit_arr)
    inside = " & ".join(f"({idx[a].code} < {arr.shapes[a]})" for a in unit_arr)
    tile_axes = [perm[k] for k in keep]
    out = [t.code for t in target]
    permute = f"{tuple(keep_arr.index(a) for a in tile_axes)}" if tile_axes != keep_arr else None
    fn = cx.use_rank("load_at", len(keep_arr))

    def build(fold):
        walk = keep_arr[::-1] if fold else keep_arr      # the pointer load's axes (see _FOLD below)
        code = (f"{fn}({base}, {', '.join(arr.shapes[a] for a in walk)}, "
                f"{', '.join(arr.strides[a] for a in walk)}, {', '.join(idx[a].code for a in walk)}, "
                f"{', '.join(shape[a].code for a in walk)}, {pad}, {check}, {inside})")
        if permute:     # the kept axes in tile order (`order` moved them)
            cx.note_permute()
            code = f"tl.permute({code}, {permute})"
        if cx.tma:
            # the descriptor walks the array in its own axis order (shape and idx are in that order
            # here); `order` only permutes the loaded tile, as on the pointer path
            desc = cx.tma.descriptor(cx, arr, "load", [s.code for s in shape], pad)
            if desc is not None:     # TMA when the launcher found the array legal, else the pointer path
                offs = _offsets(idx, [s.code for s in shape])
                tma = f"tl.reshape({desc}.load([{offs}]), [{', '.join(shape[a].code for a in keep_arr)}])"
                if permute:
                    cx.note_permute()
                    tma = f"tl.permute({tma}, {permute})"
                if fold:        # the block lands in shared memory, where the transpose is a view
                    cx.note_permute()
                    tma = f"tl.trans({tma})"
                return f"{tma} if {cx.tma.flag(arr)} else {code}", 0
        return code, 100

    fold = req.transposes and len(keep_arr) == 2 and not permute
    if fold and cx.may_reuse_aliased_load(arr.ptr, build(False)[0]):
        fold = False            # keep the load another array's load can stand for (aliased-load reuse)
    code, prec = build(fold)
    cx.note_tile([shape[a].code for a in (keep_arr[::-1] if fold else keep_arr)])
    if fold:
        out = out[::-1]
    req.folded = 2 if fold else 1
    return V(code, T.TILE, prec=prec, rank=len(keep), shape=out)


# _FOLD: `x = ct.load(...)`, `x = ct.reshape(x, (T, D))`, `x = ct.transpose(x)` (kernel._load_then_reshape
# finds the three) become one pointer load of the transposed tile: the two kept axes walked in the
# other order (extents, strides, indices and block sizes swapped), so no `tl.trans` follows it.
# Triton 3.6 pipelines a load that feeds a dot directly (cp.async into shared memory) but not one
# that feeds it through `tl.trans`: compiled for sm_90 (tests/compile_sm90.py), TileGym
# flash_decode's KV loop issued 48 plain global loads for V and 3 async copies in all; with the
# transpose folded, 6 async copies and no plain global load. A descriptor branch keeps its load
# and transposes the block (in shared memory a view). Not done with `order=` (already permuted).


@op("store")
def op_store(cx, call, args):
    if is_ordered(cx, args):          # memory_order=RELAXED/RELEASE
        return ordered_store(cx, call, args)
    arr = _array(cx, args, "array", "store", call)
    check_order_scope(cx, args, "ct.store", "tile_store", call, "WEAK", "NONE")
    _hints(cx, "store", args, call)
    rank = arr.rank
    tile, idx, tcode, check, order = store_operands(cx, args, arr, call)
    fn = cx.use_rank("store", rank)
    moved = order is not None or cx.moved(args["tile"])
    cx.mark_written(arr, region=_region(tile.shape, order) if tile.kind == T.TILE and tile.shape else None,
                    moved=moved)
    code = call_code(fn, arr.flat(), [i.code for i in idx], tcode, str(check))
    if order is None and tile.kind == T.TILE and tile.shape is not None and cx.tma:
        desc = cx.tma.descriptor(cx, arr, "store", tile.shape, None)
        if desc is not None:     # TMA when the launcher found the array legal, else the pointer path
            offs = _offsets(idx, tile.shape)
            cast = cx.use("_c2t_cast")      # (the pointer path's helper casts as cuTile does)
            code = f'{desc}.store([{offs}], {cast}({tcode}, {arr.ptr}, "store")) if {cx.tma.flag(arr)} else {code}'
    return V(code, T.STATIC)


def _region(shape, order):
    """What a tile-space load or store touches, for kernel.mark_written: tiles of one shape (and
    order) of an array are the same elements or disjoint."""
    return (tuple(shape), tuple(order) if order else None)


def store_operands(cx, args, arr, call):
    """What ct.store (plain or ordered) writes: (tile V, indices in array-axis order, tile code
    shaped and permuted for the array, check_bounds, `order` or None)."""
    rank = arr.rank
    idx = _index(cx, args, "index", "store", call, rank, arr)
    tile = _req(cx, "store", args, "tile", call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    order = _order(cx, args, rank, call)
    tcode = tile.code
    if tile.kind in (T.STATIC, T.SCALAR) or tile.rank == 0:     # (_c2t_cast: cuTile's implicit cast)
        cast = cx.use("_c2t_cast")
        tcode = f'tl.full([{", ".join(["1"] * rank)}], {cast}({tile.code}, {arr.ptr}, "store"), {arr.ptr}.dtype.element_ty)'
    elif tile.rank is not None and tile.rank != rank:
        cx.fail("C2T109", f"ct.store: a {tile.rank}-D tile into a {rank}-D array", call)
    if order is not None:      # tile axis k walks array axis order[k]
        inv, nat_idx = [0] * rank, [None] * rank
        for k, ax in enumerate(order):
            inv[ax] = k
            nat_idx[ax] = idx[k]
        idx = nat_idx
        cx.note_permute()
        tcode = f"tl.permute({tcode}, {tuple(inv)})"
    return tile, idx, tcode, check, order


def _offsets(idx: list, shape: list) -> str:
    """Element offsets of a tile (descriptor coordinates): tile index x block extent."""
    out = []
    for i, s in zip(idx, shape):
        if i.known and i.value == 0:
            out.append("0")
        elif s == "1":
            out.append(i.code)
        else:
            out.append(f"{paren(i, 13)} * {s if s.isidentifier() or s.isdigit() else f'({s})'}")
    return ", ".join(out)


@op("gather")
def op_gather(cx, call, args):
    arr = _array(cx, args, "array", "gather", call)
    _hints(cx, "gather", args, call)
    idx = _gather_indices(cx, args, "indices", "gather", call, arr.rank, arr)
    mask = cx.expr(args["mask"]).code if "mask" in args else "None"
    other = cx.expr(args["padding_value"]).code if "padding_value" in args else "0"
    check = _bool_arg(cx, args, "check_bounds", True, call)
    fn = cx.use_rank("gather", arr.rank)
    cx.before_read(arr)
    rank = _rank(*[i for i in idx if i.kind == T.TILE]) if any(i.kind == T.TILE for i in idx) else 0
    kind = T.TILE if any(i.kind == T.TILE for i in idx) else T.SCALAR
    return V(call_code(fn, arr.flat(), [i.code for i in idx], mask, other, str(check)),
             kind, rank=rank, shape=_broadcast_shape([i for i in idx if i.kind == T.TILE]),
             dsrc=f"arr:{arr.ptr}", mbf=True)


def _broadcast_shape(tiles) -> list | None:
    """The broadcast shape of index tiles whose shapes are known (source texts), else None: the
    shape of what ct.gather returns (the persistent-loop prefetch sizes its buffer from it)."""
    if not tiles or any(t.shape is None for t in tiles):
        return None
    rank = max(len(t.shape) for t in tiles)
    out = []
    for k in range(rank):
        dims = {t.shape[k - rank + len(t.shape)] for t in tiles if k - rank + len(t.shape) >= 0} - {"1"}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else "1")
    return out


@op("scatter")
def op_scatter(cx, call, args):
    arr = _array(cx, args, "array", "scatter", call)
    _hints(cx, "scatter", args, call)
    idx = _gather_indices(cx, args, "indices", "scatter", call, arr.rank, arr)
    value = _req(cx, "scatter", args, "value", call)
    mask = cx.expr(args["mask"]).code if "mask" in args else "None"
    check = _bool_arg(cx, args, "check_bounds", True, call)
    fn = cx.use_rank("scatter", arr.rank)
    cx.mark_written(arr)
    return V(call_code(fn, arr.flat(), [i.code for i in idx], value.code, mask, str(check)),
             T.STATIC)


def array_attr(cx, base: V, attr: str, node) -> V:
    arr = base.array
    if arr.rank_unknown and attr in ("shape", "strides", "ndim"):
        # (its rank comes from nothing the kernel does with it: `()` would be a wrong answer)
        cx.fail("C2T104", f"`{arr.ptr}.{attr}`: the kernel does not index `{arr.ptr}` anywhere, so its rank "
                          "is not known", node)
    if attr == "shape":         # (an extent written as a number is a compile-time one: a constant slice's)
        elts = [V(s, T.STATIC, value=int(s), known=True) if s.isdigit()
                else V(s, T.STATIC if s in arr.constexprs else T.SCALAR) for s in arr.shapes]
        return V("(" + ", ".join(arr.shapes) + ("," if len(elts) == 1 else "") + ")", T.TUPLE, elts=elts)
    if attr == "strides":
        elts = [V(s, T.STATIC if s in arr.constexprs else T.SCALAR) for s in arr.strides]
        return V("(" + ", ".join(arr.strides) + ("," if len(elts) == 1 else "") + ")", T.TUPLE, elts=elts)
    if attr == "dtype":
        return V(f"{arr.ptr}.dtype.element_ty", T.DTYPE, dsrc=f"arr:{arr.ptr}", mbf=True)
    if attr == "ndim":
        return V(str(arr.rank), T.STATIC, value=arr.rank, known=True)
    if attr == "foreign_pointer":
        return foreign_pointer(cx, base, node)
    if registry.lookup_method(T.ARRAY, attr) is not None:
        return V(f"{arr.ptr}.{attr}", T.UNKNOWN, value=("method", base, attr))
    cx.fail("C2T101", f"Array.{attr} is not supported yet", node)


# ---------------------------------------------------------------- ordered ct.load / ct.store
# Relaxed/acquire loads and relaxed/release stores have no tl.load/tl.store form; they are emulated
# with an atomic OR of 0 / an atomic exchange on the element bits (32- and 64-bit dtypes only;
# others fail at Triton compile time with a message).
def is_ordered(cx, args) -> bool:
    """True when a ct.load/ct.store asks for a memory_order other than WEAK."""
    if "memory_order" not in args:
        return False
    v = cx.expr(args["memory_order"])
    return not (v.kind == T.ENUM and str(v.value) == "MemoryOrder.WEAK")


def ordered_load(cx, call, args):
    """ct.load(..., memory_order=RELAXED/ACQUIRE[, memory_scope=...])."""
    arr = _array(cx, args, "array", "load", call)
    _latency(cx, args, "ct.load", call)
    sem, scope = sem_scope(cx, args, "ct.load", call, "tile_load",
                           default_order="WEAK", default_scope="NONE")
    shape = _static_tuple(cx, _req(cx, "load", args, "shape", call), "load `shape`", call)
    rank = arr.rank
    idx = _index(cx, args, "index", "load", call, rank, arr)
    cx.before_read(arr)
    if len(shape) == 0:
        off = " + ".join(f"{paren(i, 13)} * {s}" for i, s in zip(idx, arr.strides)) or "0"
        fn = cx.use("_c2t_ld_ordered")
        return V(f"{fn}({arr.ptr} + {off}, None, 0, {sem}, {scope})", T.SCALAR)
    if len(shape) != rank:
        cx.fail("C2T109", f"ct.load: `shape` has {len(shape)} entries for a {rank}-D array", call)
    order = _order(cx, args, rank, call)
    pad = _padding(cx, args, call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    if order is not None:
        nat_idx, nat_shape = [None] * rank, [None] * rank
        for k, ax in enumerate(order):
            nat_idx[ax], nat_shape[ax] = idx[k], shape[k]
        idx, shape = nat_idx, nat_shape
    cx.use_rank("load", rank)          # for _c2t_pad_value and the padding codes
    cx.use("_c2t_ld_ordered")
    fn = cx.use_rank("load_ordered", rank)
    code = T.call_code(fn, arr.flat(), [i.code for i in idx], [s.code for s in shape], pad, str(check), sem,
                       scope)
    if order is not None:
        cx.note_permute()
        code = f"tl.permute({code}, {tuple(order)})"
    return V(code, T.TILE, rank=rank)


def ordered_store(cx, call, args):
    """ct.store(..., memory_order=RELAXED/RELEASE[, memory_scope=...])."""
    arr = _array(cx, args, "array", "store", call)
    _latency(cx, args, "ct.store", call)
    sem, scope = sem_scope(cx, args, "ct.store", call, "tile_store",
                           default_order="WEAK", default_scope="NONE")
    rank = arr.rank
    _, idx, tcode, check, _ = store_operands(cx, args, arr, call)
    cx.mark_written(arr)
    cx.use("_c2t_st_ordered")
    fn = cx.use_rank("store_ordered", rank)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], tcode, str(check), sem, scope),
             T.STATIC)
