"""Atomics (ct.atomic_*), raw array memory (Array.get_raw_memory) and ordered loads/stores.

cuTile atomics take element indices exactly like ct.gather (a tuple of integer scalars/tiles
broadcast together; negative or too-large indices are out of bounds and do nothing) and return
the old values. They map onto tl.atomic_* with a bounds mask and sem=/scope= from
MemoryOrder/MemoryScope (§2.5 of the reference). Triton's atomic_cas has no mask: see _c2t_cas
in templates/prelude_atomics.py.j2 for how out-of-bounds lanes are kept from touching memory.

Relaxed/acquire loads and relaxed/release stores (memory_order= on ct.load/ct.store, in
ops_memory.py) take their sem=/scope= from `sem_scope` here.
"""
from __future__ import annotations

import functools

from . import types as T
from .context import _array, _bool_arg, _gather_indices, _rank, _req, bind
from .registry import method, op
from .types import V, paren

RAWMEM = "rawmem"          # value kind of Array.get_raw_memory(): V.array is the array

_RMW = ("xchg", "add", "max", "min", "and", "or", "xor")
_ORDERS = {"RELAXED": "relaxed", "ACQUIRE": "acquire", "RELEASE": "release", "ACQ_REL": "acq_rel"}
_SCOPES = {"BLOCK": "cta", "DEVICE": "gpu", "SYS": "sys"}
_ATOMIC_ORDERS = ("RELAXED", "ACQUIRE", "RELEASE", "ACQ_REL")


# ---------------------------------------------------------------- memory order / scope
def _enum_member(cx, args, key, enum, default, name, node) -> str:
    if key not in args:
        return default
    v = cx.expr(args[key])
    if v.kind != T.ENUM or not str(v.value).startswith(enum + "."):
        cx.fail("C2T105", f"{name}: `{key}` must be a ct.{enum} member", node)
    return str(v.value).split(".", 1)[1]


# cuTile's check of an operation's memory_order/memory_scope (validate_memory_order_and_scope in
# its _ir/ops_utils.py), per operation: the orders and scopes it takes.
_ALL_SCOPES = ("NONE", "BLOCK", "DEVICE", "SYS")
VALID_ORDERS = {"tile_load": (("RELAXED", "ACQUIRE", "WEAK"), _ALL_SCOPES),
                "tile_store": (("RELAXED", "RELEASE", "WEAK"), _ALL_SCOPES),
                "tile_atomic_cas": (_ATOMIC_ORDERS, _ALL_SCOPES),
                "tile_atomic_rmw": (_ATOMIC_ORDERS, _ALL_SCOPES)}


def order_scope_error(opcode: str, order: str, scope: str):
    """cuTile's TileTypeError message for `order`/`scope` (member names) on the operation
    `opcode` (a key of VALID_ORDERS), or None where cuTile accepts them."""
    orders, scopes = VALID_ORDERS[opcode]
    if order not in orders:
        return (f"Invalid memory order for {opcode}. Got MemoryOrder.{order}, expected one of "
                + ", ".join(f"MemoryOrder.{o}" for o in orders))
    if scope not in scopes:
        return (f"Invalid memory scope for {opcode}. Got MemoryScope.{scope}, expected one of "
                + ", ".join(f"MemoryScope.{o}" for o in scopes))
    if order == "WEAK" and scope != "NONE":
        return f"{opcode} with WEAK memory ordering cannot specify a memory scope"
    if order != "WEAK" and scope == "NONE":
        return f"{opcode} with {order} memory ordering requires a memory scope"
    return None


def check_order_scope(cx, args, name, opcode, node, default_order, default_scope) -> tuple:
    """(order, scope) member names of a call's memory_order/memory_scope; what cuTile refuses is
    refused with cuTile's error (order_scope_error)."""
    order = _enum_member(cx, args, "memory_order", "MemoryOrder", default_order, name, node)
    scope = _enum_member(cx, args, "memory_scope", "MemoryScope", default_scope, name, node)
    why = order_scope_error(opcode, order, scope)
    if why:
        cx.fail("C2T106", f"{name}: memory_order={order} with memory_scope={scope} is refused by cuTile "
                          f"({why})", node, cutile=("TileTypeError", why))
    return order, scope


def sem_scope(cx, args, name, node, opcode="tile_atomic_rmw", default_order="ACQ_REL",
              default_scope="DEVICE"):
    """(sem, scope) Triton string literals for memory_order/memory_scope other than WEAK, or a
    located refusal."""
    order, scope = check_order_scope(cx, args, name, opcode, node, default_order, default_scope)
    if scope not in _SCOPES:        # (cuTile's check leaves none: a scope it takes with an order)
        cx.fail("C2T106", f"{name}: memory_scope={scope} has no Triton equivalent", node,
                "Triton atomics take scope cta (BLOCK), gpu (DEVICE) or sys (SYS)")
    return f'"{_ORDERS[order]}"', f'"{_SCOPES[scope]}"'


def _latency(cx, args, name, node):
    for key in ("latency", "allow_tma"):
        if key in args:
            cx.note("C2T202", f"{name}: `{key}` hint dropped", node)


def _result(idx: list) -> tuple:
    tiles = [i for i in idx if i.kind == T.TILE]
    if not tiles:
        return T.SCALAR, 0
    return T.TILE, _rank(*tiles)


# ---------------------------------------------------------------- ct.atomic_*
_RMW_SIG = ["array", "indices", "update", "/", "*", "check_bounds", "memory_order", "memory_scope"]
_CAS_SIG = ["array", "indices", "expected", "desired", "/", "*", "check_bounds", "memory_order",
            "memory_scope"]


def _atomic_rmw(opname, cx, call, args):
    name = f"atomic_{opname}"
    arr = _array(cx, args, "array", name, call)
    idx = _gather_indices(cx, args, "indices", name, call, arr.rank, arr)
    upd = _req(cx, name, args, "update", call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    sem, scope = sem_scope(cx, args, f"ct.{name}", call)
    cx.before_read(arr)
    cx.mark_written(arr, rmw=True)
    cx.use("_c2t_rmw")
    fn = cx.use_rank("atomic", arr.rank)
    kind, rank = _result(idx)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], upd.code, f'"{opname}"', str(check), sem, scope),
             kind, rank=rank)


for _o in _RMW:
    op(f"atomic_{_o}", _RMW_SIG)(functools.partial(_atomic_rmw, _o))


@op("atomic_cas", _CAS_SIG)
def op_atomic_cas(cx, call, args):
    arr = _array(cx, args, "array", "atomic_cas", call)
    idx = _gather_indices(cx, args, "indices", "atomic_cas", call, arr.rank, arr)
    cmp = _req(cx, "atomic_cas", args, "expected", call)
    val = _req(cx, "atomic_cas", args, "desired", call)
    check = _bool_arg(cx, args, "check_bounds", True, call)
    sem, scope = sem_scope(cx, args, "ct.atomic_cas", call, "tile_atomic_cas")
    cx.before_read(arr)
    cx.mark_written(arr, rmw=True)
    cx.use("_c2t_cas")
    fn = cx.use_rank("atomic_cas", arr.rank)
    kind, rank = _result(idx)
    return V(T.call_code(fn, arr.flat(), [i.code for i in idx], cmp.code, val.code, str(check), sem, scope),
             kind, rank=rank)


# ---------------------------------------------------------------- raw memory
@method(T.ARRAY, "get_raw_memory")
def array_get_raw_memory(cx, base: V, call):
    if call.args or call.keywords:
        cx.fail("C2T109", "Array.get_raw_memory() takes no arguments", call)
    return V(base.array.ptr, RAWMEM, array=base.array)


@method(RAWMEM, "__getattr__")
def rawmem_attr(cx, base: V, node):
    if node.attr == "dtype":
        return V(f"{base.array.ptr}.dtype.element_ty", T.DTYPE)
    if (RAWMEM, node.attr) in _RAW_METHODS:
        return V(f"{base.code}.{node.attr}", T.UNKNOWN, value=("method", base, node.attr))
    cx.fail("C2T101", f"RawArrayMemory.{node.attr} is not supported", node)


_RAW_METHODS = set()


def _raw(name):
    def deco(fn):
        _RAW_METHODS.add((RAWMEM, name))
        return method(RAWMEM, name)(fn)
    return deco


def _offset_ptr(cx, base: V, args, name, call) -> str:
    off = _req(cx, name, args, "offset", call)
    return f"{base.array.ptr} + {paren(off, 12)}"


@_raw("load_offset")
def raw_load_offset(cx, base, call):
    name = "RawArrayMemory.load_offset"
    args = bind(cx, name, call, ["offset", "/", "*", "mask", "padding_value", "latency"])
    ptrs = _offset_ptr(cx, base, args, name, call)
    _latency(cx, args, name, call)
    off = cx.expr(args["offset"])
    cx.before_read(base.array)
    if "mask" in args:
        mask = cx.expr(args["mask"])
        other = cx.expr(args["padding_value"]).code if "padding_value" in args else "0"
        code = f"tl.load({ptrs}, mask={mask.code}, other={other})"
        kind = T.TILE if T.TILE in (off.kind, mask.kind) else off.kind
        return V(code, kind, rank=_rank(off, mask) if kind == T.TILE else 0)
    return V(f"tl.load({ptrs})", off.kind if off.kind == T.TILE else T.SCALAR, rank=off.rank)


@_raw("store_offset")
def raw_store_offset(cx, base, call):
    name = "RawArrayMemory.store_offset"
    args = bind(cx, name, call, ["offset", "value", "/", "*", "mask", "latency"])
    ptrs = _offset_ptr(cx, base, args, name, call)
    _latency(cx, args, name, call)
    val = _req(cx, name, args, "value", call)
    mask = cx.expr(args["mask"]).code if "mask" in args else "None"
    cx.mark_written(base.array)
    cast = cx.use("_c2t_cast")         # cuTile's implicit cast, checked when compiled
    store = cx.use("_c2t_raw_store")   # ... and its shape rules
    return V(f'{store}({ptrs}, {cast}({val.code}, {base.array.ptr}, "raw_store"), {mask})', T.STATIC)


def _raw_rmw(opname):
    def handler(cx, base, call):
        name = f"RawArrayMemory.atomic_{opname}_offset"
        args = bind(cx, name, call, ["offset", "update", "/", "*", "mask", "memory_order", "memory_scope"])
        off = _req(cx, name, args, "offset", call)
        upd = _req(cx, name, args, "update", call)
        mask = cx.expr(args["mask"]).code if "mask" in args else "None"
        sem, scope = sem_scope(cx, args, name, call)
        cx.before_read(base.array)
        cx.mark_written(base.array, rmw=True)
        fn = cx.use("_c2t_rmw")
        kind = T.TILE if off.kind == T.TILE else T.SCALAR
        return V(f'{fn}({base.array.ptr} + {paren(off, 12)}, {upd.code}, {mask}, "{opname}", {sem}, {scope})',
                 kind, rank=off.rank if kind == T.TILE else 0)
    return handler


for _o in _RMW:
    _raw(f"atomic_{_o}_offset")(_raw_rmw(_o))


@_raw("atomic_cas_offset")
def raw_atomic_cas_offset(cx, base, call):
    name = "RawArrayMemory.atomic_cas_offset"
    args = bind(cx, name, call, ["offset", "expected", "desired", "/", "*", "mask", "memory_order",
                                     "memory_scope"])
    off = _req(cx, name, args, "offset", call)
    cmp = _req(cx, name, args, "expected", call)
    val = _req(cx, name, args, "desired", call)
    sem, scope = sem_scope(cx, args, name, call, "tile_atomic_cas")
    cx.before_read(base.array)
    cx.mark_written(base.array, rmw=True)
    kind = T.TILE if off.kind == T.TILE else T.SCALAR
    rank = off.rank if kind == T.TILE else 0
    if "mask" in args:
        mask = cx.expr(args["mask"]).code
        fn = cx.use("_c2t_cas")
        return V(f"{fn}({base.array.ptr}, {off.code}, {cmp.code}, {val.code}, {mask}, {sem}, {scope})",
                 kind, rank=rank)
    # Triton's atomic_cas neither broadcasts nor casts its operands (_c2t_cast: cuTile's implicit cast)
    p, ptr, cast = f"{base.array.ptr} + {paren(off, 12)}", base.array.ptr, cx.use("_c2t_cast")
    return V(f'tl.atomic_cas({p}, tl.broadcast({cast}({cmp.code}, {ptr}, "cas"), {p})[0], '
             f'tl.broadcast({cast}({val.code}, {ptr}, "cas"), {p})[0], sem={sem}, scope={scope})', kind, rank=rank)
