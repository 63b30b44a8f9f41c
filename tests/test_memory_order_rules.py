"""cuTile's check of memory_order/memory_scope (validate_memory_order_and_scope): loads take WEAK,
RELAXED and ACQUIRE, stores WEAK, RELAXED and RELEASE, atomics (array and raw memory, rmw and cas)
every order but WEAK; CLUSTER is no scope of these; WEAK goes with NONE only and every other order
wants a scope. What cuTile refuses is refused with cuTile's TileTypeError (the shim raises it)."""
import pytest

from kernel_util import translate

ALL_SCOPES = "MemoryScope.NONE, MemoryScope.BLOCK, MemoryScope.DEVICE, MemoryScope.SYS"

REFUSED = [
    ("ct.load(a, (0,), (8,), memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.BLOCK)",
     "Invalid memory order for tile_load. Got MemoryOrder.RELEASE, expected one of MemoryOrder.RELAXED, "
     "MemoryOrder.ACQUIRE, MemoryOrder.WEAK"),
    ("ct.load(a, (0,), (8,), memory_order=ct.MemoryOrder.ACQUIRE)",         # load's default scope: NONE
     "tile_load with ACQUIRE memory ordering requires a memory scope"),
    ("ct.load(a, (0,), (8,), memory_scope=ct.MemoryScope.SYS)",             # load's default order: WEAK
     "tile_load with WEAK memory ordering cannot specify a memory scope"),
    ("ct.load(a, (0,), (8,), memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.CLUSTER)",
     f"Invalid memory scope for tile_load. Got MemoryScope.CLUSTER, expected one of {ALL_SCOPES}"),
    ("ct.store(a, (0,), t, memory_order=ct.MemoryOrder.ACQ_REL, memory_scope=ct.MemoryScope.DEVICE)",
     "Invalid memory order for tile_store. Got MemoryOrder.ACQ_REL, expected one of MemoryOrder.RELAXED, "
     "MemoryOrder.RELEASE, MemoryOrder.WEAK"),
    ("ct.store(a, (0,), t, memory_order=ct.MemoryOrder.RELAXED)",
     "tile_store with RELAXED memory ordering requires a memory scope"),
    ("ct.store(a, (0,), t, memory_order=ct.MemoryOrder.WEAK, memory_scope=ct.MemoryScope.BLOCK)",
     "tile_store with WEAK memory ordering cannot specify a memory scope"),
    ("ct.atomic_xchg(a, 3, 1, memory_order=ct.MemoryOrder.WEAK)",           # atomics' default scope: DEVICE
     "Invalid memory order for tile_atomic_rmw. Got MemoryOrder.WEAK, expected one of MemoryOrder.RELAXED, "
     "MemoryOrder.ACQUIRE, MemoryOrder.RELEASE, MemoryOrder.ACQ_REL"),
    ("ct.atomic_min(a, 3, 1, memory_scope=ct.MemoryScope.NONE)",            # atomics' default order: ACQ_REL
     "tile_atomic_rmw with ACQ_REL memory ordering requires a memory scope"),
    ("ct.atomic_cas(a, 3, 0, 1, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.NONE)",
     "tile_atomic_cas with RELEASE memory ordering requires a memory scope"),
    ("ct.atomic_cas(a, 3, 0, 1, memory_scope=ct.MemoryScope.CLUSTER)",
     f"Invalid memory scope for tile_atomic_cas. Got MemoryScope.CLUSTER, expected one of {ALL_SCOPES}"),
    ("a.get_raw_memory().atomic_or_offset(2, 1, memory_order=ct.MemoryOrder.WEAK, "
     "memory_scope=ct.MemoryScope.NONE)",
     "Invalid memory order for tile_atomic_rmw. Got MemoryOrder.WEAK, expected one of MemoryOrder.RELAXED, "
     "MemoryOrder.ACQUIRE, MemoryOrder.RELEASE, MemoryOrder.ACQ_REL"),
    ("a.get_raw_memory().atomic_cas_offset(2, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE, "
     "memory_scope=ct.MemoryScope.NONE)",
     "tile_atomic_cas with ACQUIRE memory ordering requires a memory scope"),
]


def _kernel(stmt):
    return f"""
    @ct.kernel
    def k(a):
        t = ct.full((8,), 1, dtype=ct.int32)
        {stmt}
    """


@pytest.mark.parametrize("stmt,message", REFUSED)
def test_memory_order_and_scope_refusals_are_cutiles(stmt, message):
    res = translate(_kernel(stmt))
    d = [d for d in res.diagnostics if d.code == "C2T106"]
    assert not res.ok and d and d[0].cutile == ("TileTypeError", message), [x.format() for x in res.diagnostics]


ACCEPTED = [
    "ct.load(a, (0,), (8,), memory_order=ct.MemoryOrder.WEAK, memory_scope=ct.MemoryScope.NONE)",
    "ct.load(a, (0,), (8,), memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)",
    "ct.store(a, (0,), t, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.SYS)",
    "ct.store(a, (0,), t, memory_order=ct.MemoryOrder.WEAK)",
    "ct.atomic_add(a, 3, 1, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)",
    "ct.atomic_cas(a, 3, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE)",
    "a.get_raw_memory().atomic_max_offset(2, 1, memory_scope=ct.MemoryScope.SYS)",
]


@pytest.mark.parametrize("stmt", ACCEPTED)
def test_memory_orders_cutile_takes_are_translated(stmt):
    res = translate(_kernel(stmt))
    assert res.ok, [x.format() for x in res.diagnostics]
