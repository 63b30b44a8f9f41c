"""ct.atomic_*, RawArrayMemory and memory_order on ct.load/ct.store, run under the interpreter vs torch."""
import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate


def _probe(src: str) -> bool:
    return translate(src).ok


# Some constructs need the hooks proposed to the lead (kernel.py attribute hook for new value
# kinds, arrays.py rank inference through views / bare atomic indices, ops.py ordered dispatch).
HOOKS = _probe("""
@ct.kernel
def k(x):
    r = x.get_raw_memory()
    r.store_offset(0, 1)
    ct.atomic_add(x, 0, 1)
""")
ORDERED = _probe("""
@ct.kernel
def k(x):
    ct.store(x, (0,), ct.load(x, (0,), shape=(4,), memory_order=ct.MemoryOrder.ACQUIRE,
                              memory_scope=ct.MemoryScope.DEVICE),
             memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)
""")
def needs_hooks(f):       # the hooks are in main: these tests always run (and must pass)
    return f
def needs_ordered(f):
    return f

RMW_SRC = """
@ct.kernel
def k(x, idx, upd, old, T: ConstInt):
    i = ct.load(idx, index=(0,), shape=(T,))
    u = ct.load(upd, index=(0,), shape=(T,))
    o = ct.atomic_{op}(x, (i,), u)
    ct.store(old, index=(ct.bid(0),), tile=o)

def run(x, idx, upd, nblocks):
    old = torch.zeros(nblocks * idx.shape[0], dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (nblocks,), k, (x, idx, upd, old, idx.shape[0]))
    return old
"""

_TORCH_OPS = {
    "add": lambda a, b: a + b, "max": torch.maximum, "min": torch.minimum,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "xchg": lambda a, b: b,
}


def _reference(op, x, idx, upd, nblocks):
    x = x.clone()
    olds = []
    for _ in range(nblocks):             # the interpreter runs programs one after another
        inb = (idx >= 0) & (idx < x.shape[0])
        old = torch.zeros_like(upd)
        old[inb] = x[idx[inb]]
        x[idx[inb]] = _TORCH_OPS[op](x[idx[inb]], upd[inb])
        olds.append((old, inb))
    return x, olds


@pytest.mark.parametrize("op,dtype", [("add", torch.int32), ("add", torch.float32), ("add", torch.int64),
                                      ("add", torch.float64), ("max", torch.int32), ("min", torch.int64),
                                      ("max", torch.uint32), ("and", torch.int32), ("or", torch.int64),
                                      ("xor", torch.int32), ("xchg", torch.int32), ("xchg", torch.float32)])
def test_atomic_rmw_returns_old_values_and_skips_out_of_bounds(tmp_path, op, dtype):
    mod = build(RMW_SRC.replace("{op}", op), tmp_path)
    g = torch.Generator().manual_seed(1)
    n = 13                                  # ragged: not a power of two
    # distinct indices within one call; -1, n and 100 are out of bounds
    idx = torch.tensor([0, 3, -1, 5, 12, 13, 7, 100], dtype=torch.int32)
    if dtype.is_floating_point:
        x = torch.randn(n, generator=g).to(dtype)
        upd = torch.randn(8, generator=g).to(dtype)
    elif dtype == torch.uint32:
        x = torch.randint(0, 1 << 31, (n,), generator=g).to(torch.int64).to(dtype)
        upd = torch.randint(0, 1 << 31, (8,), generator=g).to(torch.int64).to(dtype)
    else:
        x = torch.randint(-1000, 1000, (n,), generator=g).to(dtype)
        upd = torch.randint(-1000, 1000, (8,), generator=g).to(dtype)
    if dtype == torch.uint32:       # torch has no uint32 arithmetic on CPU: compare via int64
        ref_x, olds = _reference(op, x.to(torch.int64), idx.long(), upd.to(torch.int64), 3)
    else:
        ref_x, olds = _reference(op, x, idx.long(), upd, 3)
    before = x.clone()
    old = mod.run(x, idx, upd, 3)
    assert torch.equal(x.to(ref_x.dtype), ref_x), (before, x, ref_x)
    for b, (o, inb) in enumerate(olds):
        got = old[b * 8:(b + 1) * 8].to(o.dtype)
        assert torch.equal(got[inb], o[inb])


def test_atomic_add_2d_broadcast_indices_and_scalar_update(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, old):
        r = ct.arange(4, dtype=ct.int32)[:, None] - 1      # rows -1..2 (row -1 is out of bounds)
        c = ct.arange(8, dtype=ct.int32)[None, :] * 2       # cols 0..14 (past 5 out of bounds)
        o = ct.atomic_add(x, (r, c), 10, memory_order=ct.MemoryOrder.RELAXED,
                          memory_scope=ct.MemoryScope.BLOCK)
        ct.store(old, index=(0, 0), tile=o)

    def run(x):
        old = torch.zeros((4, 8), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, old))
        return old
    """, tmp_path)
    x = torch.arange(3 * 6, dtype=torch.int32).reshape(3, 6)
    ref = x.clone()
    ref[:, 0:6:2] += 10
    old = mod.run(x)
    assert torch.equal(x, ref)
    assert torch.equal(old[1:, :3], torch.arange(18, dtype=torch.int32).reshape(3, 6)[:, 0:6:2])
    code = open(mod.__file__).read()
    assert '"relaxed", "cta"' in code


@needs_hooks
def test_atomic_cas_out_of_bounds_lanes_return_expected_and_write_nothing(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, idx, out, T: ConstInt):
        i = ct.load(idx, index=(0,), shape=(T,))
        e = ct.full((T,), 7, dtype=x.dtype)
        o = ct.atomic_cas(x, i, e, 99)
        ct.store(out, index=(0,), tile=o)

    def run(x, idx):
        out = torch.zeros(idx.shape[0], dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, idx, out, idx.shape[0]))
        return out
    """, tmp_path)
    for dtype in (torch.int32, torch.int64, torch.float32, torch.float64):
        # every element equals `expected`: an OOB lane redirected to a valid element must not swap it
        x = torch.full((5,), 7, dtype=dtype)
        x[2] = 3
        idx = torch.tensor([-1, 1, 2, 5, 9, -7, 4, 100], dtype=torch.int32)
        out = mod.run(x, idx)
        ref = torch.full((5,), 7, dtype=dtype)
        ref[[1, 4]] = 99
        ref[2] = 3
        assert torch.equal(x, ref), (dtype, x)
        assert torch.equal(out, torch.tensor([7, 7, 3, 7, 7, 7, 7, 7], dtype=dtype)), (dtype, out)


def test_atomic_cas_check_bounds_false_and_all_lanes_out_of_bounds(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, out):
        i = ct.arange(4, dtype=ct.int32)
        ct.store(out, index=(0,), tile=ct.atomic_cas(x, (i,), 0, i + 1, check_bounds=False))
        # y is empty: no lane is in bounds, so no atomic may be issued at all
        ct.store(out, index=(1,), tile=ct.atomic_cas(y, (i,), 5, 6))

    def run(x, y):
        out = torch.full((8,), -1, dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, out))
        return out
    """, tmp_path)
    x = torch.tensor([0, 4, 0, 9], dtype=torch.int32)
    out = mod.run(x, torch.empty(0, dtype=torch.int32))
    assert torch.equal(x, torch.tensor([1, 4, 3, 9], dtype=torch.int32))
    assert torch.equal(out, torch.tensor([0, 4, 0, 9, 5, 5, 5, 5], dtype=torch.int32))


SPIN_LOCK = """
@ct.kernel
def k(LOCK, C, order):
    while ct.atomic_cas(LOCK, 0, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    v = ct.gather(C, 0)
    ct.scatter(C, 0, v + 1)
    ct.scatter(order, ct.bid(0), v)
    ct.atomic_xchg(LOCK, 0, 0, memory_order=ct.MemoryOrder.RELEASE)

def run(n):
    lock = torch.zeros(1, dtype=torch.int32)
    c = torch.zeros(1, dtype=torch.int32)
    order = torch.full((n,), -1, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (n,), k, (lock, c, order))
    return lock, c, order
"""


@needs_hooks
def test_spin_lock_idiom(tmp_path):
    mod = build(SPIN_LOCK, tmp_path)
    code = open(mod.__file__).read()
    assert 'while _c2t_atomic_cas_1d(LOCK, LOCK_shape_0, LOCK_stride_0, 0, 0, 1, True, "acquire", "gpu") == 1:' in code
    assert '"xchg", True, "release", "gpu")' in code
    lock, c, order = mod.run(6)
    assert lock.item() == 0 and c.item() == 6
    assert sorted(order.tolist()) == list(range(6))


def test_memory_order_and_scope_refusals():
    base = """
    @ct.kernel
    def k(x):
        ct.atomic_add(x, (0,), 1, {kw})
    """
    assert "C2T106" in codes(base.format(kw="memory_scope=ct.MemoryScope.CLUSTER"))
    assert "C2T106" in codes(base.format(kw="memory_order=ct.MemoryOrder.WEAK"))
    assert "C2T106" in codes(base.format(kw="memory_scope=ct.MemoryScope.NONE"))
    assert "C2T105" in codes(base.format(kw="memory_order=1"))
    res = translate(base.format(kw="memory_order=ct.MemoryOrder.ACQ_REL, memory_scope=ct.MemoryScope.SYS"))
    assert res.ok and '"add", True, "acq_rel", "sys")' in res.code


RAW_SRC = """
@ct.kernel
def k(x, y, T: ConstInt):
    rx = x.get_raw_memory()
    ry = y.get_raw_memory()
    off = ct.arange(T, dtype=ct.int32)
    n = x.shape[0]
    a = rx.load_offset(off, mask=off < n, padding_value=-5)
    ry.store_offset(off * 2, a, mask=off < n)
    old = ry.atomic_add_offset(off * 2 + 1, 3, mask=off < 3)
    ry.store_offset(3 * T + off, old + 100, mask=off < 3)
    c = ry.atomic_cas_offset(off * 2, a, a * 10, mask=(off % 2) == 0)
    ry.store_offset(2 * T + off, c)
    ry.atomic_max_offset(4 * T + off * 0, a, memory_order=ct.MemoryOrder.RELAXED)

def run(x, T):
    y = torch.zeros(5 * T, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, T))
    return y
"""


@needs_hooks
def test_raw_memory_offsets_masks_and_atomics(tmp_path):
    mod = build(RAW_SRC, tmp_path)
    T = 8
    x = torch.tensor([4, -2, 9, 1, 6], dtype=torch.int32)   # ragged: 5 of 8 lanes valid
    y = mod.run(x, T)
    n = 5
    a = torch.full((T,), -5, dtype=torch.int32)
    a[:n] = x
    ref = torch.zeros(5 * T, dtype=torch.int32)
    ref[0:2 * n:2] = x
    ref[1:7:2] = 3                                  # atomic add onto 0 for lanes 0..2
    ref[3 * T:3 * T + 3] = 100                      # their old values (0) + 100
    cas_old = a.clone()                             # masked-off lanes return `expected`
    for lane in range(0, T, 2):
        o = ref[2 * lane].item()
        cas_old[lane] = o
        if o == a[lane].item():
            ref[2 * lane] = a[lane] * 10
    ref[2 * T:3 * T] = cas_old
    ref[4 * T] = max(0, int(a.max()))
    assert torch.equal(y, ref), (y, ref)


@needs_hooks
def test_raw_memory_dtype_and_refusals():
    res = translate("""
    @ct.kernel
    def k(x):
        r = x.get_raw_memory()
        r.frobnicate(0)
    """)
    assert not res.ok and "C2T101" in [d.code for d in res.diagnostics]


@needs_ordered
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float64, torch.int32])
def test_acquire_load_and_release_store_are_exact(tmp_path, dtype):
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(T, T), memory_order=ct.MemoryOrder.ACQUIRE,
                    memory_scope=ct.MemoryScope.DEVICE, padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(ct.bid(0), 0), tile=t, order="F", memory_order=ct.MemoryOrder.RELEASE,
                 memory_scope=ct.MemoryScope.DEVICE)
        s = ct.load(x, index=(0, 1), shape=(), memory_order=ct.MemoryOrder.RELAXED,
                    memory_scope=ct.MemoryScope.DEVICE)
        ct.store(y, index=(0, 0), tile=s, memory_order=ct.MemoryOrder.RELAXED,
                 memory_scope=ct.MemoryScope.SYS)

    def run(x):
        y = torch.full((x.shape[1], x.shape[0]), 77, dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, 4))
        return y
    """, tmp_path)
    x = (torch.randn(7, 3) * 100).to(dtype)
    if dtype.is_floating_point:
        x[1, 1] = -0.0
    before = x.clone()
    y = mod.run(x)
    ref = x.t().clone()
    ref[0, 0] = x[0, 1]
    assert torch.equal(y, ref)
    assert torch.equal(x, before)                 # the acquire load's atomic OR changed nothing
    if dtype.is_floating_point:
        assert torch.signbit(y[1, 1])
    code = open(mod.__file__).read()
    assert '"acquire", "gpu")' in code and '"release", "gpu")' in code and '"relaxed", "sys")' in code


@needs_ordered
def test_ordered_load_refusals():
    base = """
    @ct.kernel
    def k(x):
        ct.store(x, (0,), ct.load(x, (0,), shape=(4,), {kw}))
    """
    assert "C2T106" in codes(base.format(kw="memory_order=ct.MemoryOrder.RELEASE, "
                                            "memory_scope=ct.MemoryScope.DEVICE"))
    assert "C2T106" in codes(base.format(kw="memory_order=ct.MemoryOrder.ACQUIRE"))   # needs a scope
    assert "C2T106" in codes(base.format(kw="memory_order=ct.MemoryOrder.ACQUIRE, "
                                            "memory_scope=ct.MemoryScope.CLUSTER"))


@needs_hooks
def test_atomics_compile_for_sm90(tmp_path):
    src = RMW_SRC.replace("{op}", "max").replace("def k(", "def k1(").replace(", k, (", ", k1, (") + """
@ct.kernel
def k2(x, T: ConstInt):
    i = ct.arange(T, dtype=ct.int32)
    o = ct.atomic_cas(x, i, 0, i, memory_order=ct.MemoryOrder.RELAXED)
    ct.atomic_xor(x, i, o)
""" + SPIN_LOCK.replace("def run(n)", "def run2(n)") + RAW_SRC.replace("def k(", "def k3(").replace(
        ", k, (", ", k3, (").replace("def run(x, T)", "def run3(x, T)") + """
def all_(x, idx, upd):
    run(x, idx, upd, 2)
    ct.launch(torch.cuda.current_stream(), (1,), k2, (x, 8))
    run2(3)
    run3(x, 8)
"""
    out = compile_sm90(src, "all_", "torch.zeros(13, dtype=torch.int32), torch.arange(8, dtype=torch.int32), "
                       "torch.ones(8, dtype=torch.int32)", tmp_path)
    assert out.count("OK ") == 4, out


@needs_ordered
def test_ordered_load_store_compile_for_sm90(tmp_path):
    src = """
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,), memory_order=ct.MemoryOrder.ACQUIRE,
                    memory_scope=ct.MemoryScope.DEVICE)
        ct.store(y, index=(ct.bid(0),), tile=t, memory_order=ct.MemoryOrder.RELEASE,
                 memory_scope=ct.MemoryScope.BLOCK)

    def run(x, y):
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, 8))
    """
    out = compile_sm90(src, "run", "torch.zeros(13), torch.zeros(13)", tmp_path)
    assert "OK k" in out


@pytest.mark.parametrize("name", ["atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
                                  "atomic_xor", "atomic_xchg"])
def test_every_rmw_name_lowers_to_its_triton_atomic(name):
    res = translate(f"""
    @ct.kernel
    def k(x, y):
        i = ct.arange(4, dtype=ct.int32)
        ct.store(y, (0,), ct.{name}(x, (i,), i))
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    op = name.split("_", 1)[1]
    assert f'_c2t_atomic_1d(x, x_shape_0, x_stride_0, i, i, "{op}", True, "acq_rel", "gpu")' in res.code
    assert f"tl.atomic_{op}(" in res.code


def test_probe_constructs_translate():
    assert HOOKS and ORDERED
