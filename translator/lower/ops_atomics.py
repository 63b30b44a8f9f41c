"""Atomics (ct.atomic_*), raw array memory (Array.get_raw_memory) and ordered loads/stores.

cuTile atomics take element indices exactly like ct.gather (a tuple of integer scalars/tiles
broadcast together; negative or too-large indices are out of bounds and do nothing) and return
the old values. They map onto tl.atomic_* with a bounds mask and sem=/scope= from
MemoryOrder/MemoryScope (§2.5 of the reference). Triton's atomic_cas has no mask: see _c2t_cas
in templates/prelude_atomics.py.j2 for how out-of-bounds lanes are kept from touching memory.

Relaxed/acquire loads and relaxed/release stores (memory_order= on ct.load/ct.store) have no
tl.load/tl.store form; they are emulated with an atomic OR of 0 / an atomic exchange on the
element bits (32- and 64-bit dtypes only; others fail at Triton compile time with a message).
ops_memory.op_load/op_store dispatch here through `ordered_load`/`ordered_store`.
"""
from __future__ import annotations

import functools

from . import ops, ops_memory
from . import types as T
from .registry import method, op
from .types import V

RAWMEM = "rawmem"          # value kind of Array.get_raw_memory(): V.array is the array

_RMW = ("xchg", "add", "max", "min", "and", "or", "xor")
_ORDERS = {"RELAXED": "relaxed", "ACQUIRE": "acquire", "RELEASE": "release", "ACQ_REL": "acq_rel"}
_SCOPES = {"BLOCK": "cta", "DEVICE": "gpu", "SYS": "sys"}
_ATOMIC_ORDERS = ("RELAXED", "ACQUIRE", "RELEASE", "ACQ_REL")


# ---------------------------------------------------------------- memory order / scope
def _enum_member(lw, args, key, enum, default, name, node) -> str:
    if key not in args:
        return default
    v = lw.expr(args[key])
    if v.kind != T.ENUM or not str(v.value).startswith(enum + "."):
        lw.fail("C2T105", f"{name}: `{key}` must be a ct.{enum} member", node)
    return str(v.value).split(".", 1)[1]


def sem_scope(lw, args, name, node, allowed=_ATOMIC_ORDERS, default_order="ACQ_REL",
              default_scope="DEVICE"):
    """(sem, scope) Triton string literals for memory_order/memory_scope, or a located refusal."""
    order = _enum_member(lw, args, "memory_order", "MemoryOrder", default_order, name, node)
    scope = _enum_member(lw, args, "memory_scope", "MemoryScope", default_scope, name, node)
    if order not in allowed:
        lw.fail("C2T106", f"{name}: memory_order={order} is not allowed here (cuTile accepts "
                          f"{', '.join(allowed)})", node)
    if scope == "NONE":
        lw.fail("C2T106", f"{name}: memory_scope=NONE is only valid with memory_order=WEAK", node)
    if scope not in _SCOPES:
        lw.fail("C2T106", f"{name}: memory_scope={scope} has no Triton equivalent", node,
                "Triton atomics take scope cta (BLOCK), gpu (DEVICE) or sys (SYS)")
    return f'"{_ORDERS[order]}"', f'"{_SCOPES[scope]}"'


def _latency(lw, args, name, node):
    for key in ("latency", "allow_tma"):
        if key in args:
            lw.note("C2T202", f"{name}: `{key}` hint dropped", node)


def _result(idx: list) -> tuple:
    tiles = [i for i in idx if i.kind == T.TILE]
    if not tiles:
        return T.SCALAR, 0
    return T.TILE, ops._rank(*tiles)


# ---------------------------------------------------------------- ct.atomic_*
_RMW_SIG = ["array", "indices", "update", "/", "*", "check_bounds", "memory_order", "memory_scope"]
_CAS_SIG = ["array", "indices", "expected", "desired", "/", "*", "check_bounds", "memory_order",
            "memory_scope"]


def _atomic_rmw(opname, lw, call, args):
    name = f"atomic_{opname}"
    arr = ops._array(lw, args, "array", name, call)
    idx = ops_memory._gather_indices(lw, args, "indices", name, call, arr.rank)
    upd = ops._req(lw, name, args, "update", call)
    check = ops._bool_arg(lw, args, "check_bounds", True, call)
    sem, scope = sem_scope(lw, args, f"ct.{name}", call)
    lw.before_read(arr)
    lw.mark_written(arr, rmw=True)
    lw.s.use("_c2t_rmw")
    fn = lw.s.use_rank("atomic", arr.rank)
    kind, rank = _result(idx)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], upd.code, f'"{opname}"', str(check), sem, scope),
             kind, rank=rank)


for _o in _RMW:
    op(f"atomic_{_o}", _RMW_SIG)(functools.partial(_atomic_rmw, _o))


@op("atomic_cas", _CAS_SIG)
def op_atomic_cas(lw, call, args):
    arr = ops._array(lw, args, "array", "atomic_cas", call)
    idx = ops_memory._gather_indices(lw, args, "indices", "atomic_cas", call, arr.rank)
    cmp = ops._req(lw, "atomic_cas", args, "expected", call)
    val = ops._req(lw, "atomic_cas", args, "desired", call)
    check = ops._bool_arg(lw, args, "check_bounds", True, call)
    sem, scope = sem_scope(lw, args, "ct.atomic_cas", call)
    lw.before_read(arr)
    lw.mark_written(arr, rmw=True)
    lw.s.use("_c2t_cas")
    fn = lw.s.use_rank("atomic_cas", arr.rank)
    kind, rank = _result(idx)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], cmp.code, val.code, str(check), sem, scope),
             kind, rank=rank)


# ---------------------------------------------------------------- raw memory
@method(T.ARRAY, "get_raw_memory")
def array_get_raw_memory(lw, base: V, call):
    if call.args or call.keywords:
        lw.fail("C2T109", "Array.get_raw_memory() takes no arguments", call)
    return V(base.array.ptr, RAWMEM, array=base.array)


@method(RAWMEM, "__getattr__")
def rawmem_attr(lw, base: V, node):
    if node.attr == "dtype":
        return V(f"{base.array.ptr}.dtype.element_ty", T.DTYPE)
    if (RAWMEM, node.attr) in _RAW_METHODS:
        return V(f"{base.code}.{node.attr}", T.UNKNOWN, value=("method", base, node.attr))
    lw.fail("C2T101", f"RawArrayMemory.{node.attr} is not supported", node)


_RAW_METHODS = set()


def _raw(name):
    def deco(fn):
        _RAW_METHODS.add((RAWMEM, name))
        return method(RAWMEM, name)(fn)
    return deco


def _offset_ptr(lw, base: V, args, name, call) -> str:
    off = ops._req(lw, name, args, "offset", call)
    return f"{base.array.ptr} + {ops.paren(off, 12)}"


@_raw("load_offset")
def raw_load_offset(lw, base, call):
    name = "RawArrayMemory.load_offset"
    args = ops.bind(lw, name, call, ["offset", "/", "*", "mask", "padding_value", "latency"])
    ptrs = _offset_ptr(lw, base, args, name, call)
    _latency(lw, args, name, call)
    off = lw.expr(args["offset"])
    lw.before_read(base.array)
    if "mask" in args:
        mask = lw.expr(args["mask"])
        other = lw.expr(args["padding_value"]).code if "padding_value" in args else "0"
        code = f"tl.load({ptrs}, mask={mask.code}, other={other})"
        kind = T.TILE if T.TILE in (off.kind, mask.kind) else off.kind
        return V(code, kind, rank=ops._rank(off, mask) if kind == T.TILE else 0)
    return V(f"tl.load({ptrs})", off.kind if off.kind == T.TILE else T.SCALAR, rank=off.rank)


@_raw("store_offset")
def raw_store_offset(lw, base, call):
    name = "RawArrayMemory.store_offset"
    args = ops.bind(lw, name, call, ["offset", "value", "/", "*", "mask", "latency"])
    ptrs = _offset_ptr(lw, base, args, name, call)
    _latency(lw, args, name, call)
    val = ops._req(lw, name, args, "value", call)
    mask = f", mask={lw.expr(args['mask']).code}" if "mask" in args else ""
    lw.mark_written(base.array)
    return V(f"tl.store({ptrs}, {val.code}{mask})", T.STATIC)


def _raw_rmw(opname):
    def handler(lw, base, call):
        name = f"RawArrayMemory.atomic_{opname}_offset"
        args = ops.bind(lw, name, call, ["offset", "update", "/", "*", "mask", "memory_order", "memory_scope"])
        off = ops._req(lw, name, args, "offset", call)
        upd = ops._req(lw, name, args, "update", call)
        mask = lw.expr(args["mask"]).code if "mask" in args else "None"
        sem, scope = sem_scope(lw, args, name, call)
        lw.before_read(base.array)
        lw.mark_written(base.array, rmw=True)
        fn = lw.s.use("_c2t_rmw")
        kind = T.TILE if off.kind == T.TILE else T.SCALAR
        return V(f'{fn}({base.array.ptr} + {ops.paren(off, 12)}, {upd.code}, {mask}, "{opname}", {sem}, {scope})',
                 kind, rank=off.rank if kind == T.TILE else 0)
    return handler


for _o in _RMW:
    _raw(f"atomic_{_o}_offset")(_raw_rmw(_o))


@_raw("atomic_cas_offset")
def raw_atomic_cas_offset(lw, base, call):
    name = "RawArrayMemory.atomic_cas_offset"
    args = ops.bind(lw, name, call, ["offset", "expected", "desired", "/", "*", "mask", "memory_order",
                                     "memory_scope"])
    off = ops._req(lw, name, args, "offset", call)
    cmp = ops._req(lw, name, args, "expected", call)
    val = ops._req(lw, name, args, "desired", call)
    sem, scope = sem_scope(lw, args, name, call)
    lw.before_read(base.array)
    lw.mark_written(base.array, rmw=True)
    kind = T.TILE if off.kind == T.TILE else T.SCALAR
    rank = off.rank if kind == T.TILE else 0
    if "mask" in args:
        mask = lw.expr(args["mask"]).code
        fn = lw.s.use("_c2t_cas")
        return V(f"{fn}({base.array.ptr}, {off.code}, {cmp.code}, {val.code}, {mask}, {sem}, {scope})",
                 kind, rank=rank)
    ety = f"{base.array.ptr}.dtype.element_ty"
    # Triton's atomic_cas neither broadcasts nor casts its operands
    p = f"{base.array.ptr} + {ops.paren(off, 12)}"
    return V(f"tl.atomic_cas({p}, tl.broadcast(tl.cast({cmp.code}, {ety}), {p})[0], "
             f"tl.broadcast(tl.cast({val.code}, {ety}), {p})[0], sem={sem}, scope={scope})", kind, rank=rank)


# ---------------------------------------------------------------- ordered ct.load / ct.store
def is_ordered(lw, args) -> bool:
    """True when a ct.load/ct.store asks for a memory_order other than WEAK."""
    if "memory_order" not in args:
        return False
    v = lw.expr(args["memory_order"])
    return not (v.kind == T.ENUM and str(v.value) == "MemoryOrder.WEAK")


def ordered_load(lw, call, args):
    """ct.load(..., memory_order=RELAXED/ACQUIRE[, memory_scope=...])."""
    arr = ops._array(lw, args, "array", "load", call)
    _latency(lw, args, "ct.load", call)
    sem, scope = sem_scope(lw, args, "ct.load", call, allowed=("RELAXED", "ACQUIRE"),
                           default_order="WEAK", default_scope="NONE")
    shape = ops._static_tuple(lw, ops._req(lw, "load", args, "shape", call), "load `shape`", call)
    rank = arr.rank
    idx = ops._index(lw, args, "index", "load", call, rank)
    lw.before_read(arr)
    if len(shape) == 0:
        off = " + ".join(f"{ops.paren(i, 13)} * {s}" for i, s in zip(idx, arr.strides)) or "0"
        fn = lw.s.use("_c2t_ld_ordered")
        return V(f"{fn}({arr.ptr} + {off}, None, 0, {sem}, {scope})", T.SCALAR)
    if len(shape) != rank:
        lw.fail("C2T109", f"ct.load: `shape` has {len(shape)} entries for a {rank}-D array", call)
    order = ops._order(lw, args, rank, call)
    pad = ops._padding(lw, args, call)
    check = ops._bool_arg(lw, args, "check_bounds", True, call)
    if order is not None:
        nat_idx, nat_shape = [None] * rank, [None] * rank
        for k, ax in enumerate(order):
            nat_idx[ax], nat_shape[ax] = idx[k], shape[k]
        idx, shape = nat_idx, nat_shape
    lw.s.use_rank("load", rank)          # for _c2t_pad_value and the padding codes
    lw.s.use("_c2t_ld_ordered")
    fn = lw.s.use_rank("load_ordered", rank)
    code = T.call_code(fn, arr.flat(), [i.code for i in idx], [s.code for s in shape], pad, str(check), sem,
                       scope)
    if order is not None:
        code = f"tl.permute({code}, {tuple(order)})"
    return V(code, T.TILE, rank=rank)


def ordered_store(lw, call, args):
    """ct.store(..., memory_order=RELAXED/RELEASE[, memory_scope=...])."""
    arr = ops._array(lw, args, "array", "store", call)
    _latency(lw, args, "ct.store", call)
    sem, scope = sem_scope(lw, args, "ct.store", call, allowed=("RELAXED", "RELEASE"),
                           default_order="WEAK", default_scope="NONE")
    from .ops_memory import store_operands
    rank = arr.rank
    _, idx, tcode, check, _ = store_operands(lw, args, arr, call)
    lw.mark_written(arr)
    lw.s.use("_c2t_st_ordered")
    fn = lw.s.use_rank("store_ordered", rank)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], tcode, str(check), sem, scope),
             T.STATIC)
