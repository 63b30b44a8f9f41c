"""Array.slice, Array.tiled_view (TiledView) and advanced indexing, run under the interpreter vs torch."""
import math

import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate

# Views used without any other use of the array need the hooks proposed to the lead (kernel.py
# attribute hook and aliasing for new value kinds, arrays.py rank inference through views).
HOOKS = translate("""
@ct.kernel
def k(x):
    tv = x.slice(0, 1, 3).tiled_view((4, 4))
    tv.store((0, 0), tv.load((0, 0)))
""").ok
def needs_hooks(f):       # the hooks are in main: these tests always run (and must pass)
    return f

SLICE_SRC = """
@ct.kernel
def k(x, y, n, start, stop, B: ConstInt):
    rows = x.slice(0, start, stop)                   # rows [start, stop)
    sub = rows.slice(-1, 1, n)                       # columns [1, n)
    t = ct.load(sub, index=(ct.bid(0), 0), shape=(B, B), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(ct.bid(0), 0), tile=t)
    ct.scatter(y, (ct.bid(0) * B, 2 * B), sub.shape[0] * 1000 + sub.shape[1] + ct.num_tiles(sub, 0, (B, B)))
    g = ct.gather(sub, (ct.arange(B, dtype=ct.int32)[:, None] - 1, ct.bid(0)), padding_value=-1)
    ct.store(y, index=(ct.bid(0), 1), tile=g.astype(y.dtype) + ct.zeros((B, B), dtype=y.dtype))
    start = start + 100                              # the view keeps the bound it was made with
    ct.atomic_add(sub, (ct.bid(0), 0), 0.5)

def run(x, n, start, stop, B):
    nt = (stop - start + B - 1) // B
    y = torch.full((nt * B + 1, 2 * B + 1), 7.0, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (nt,), k, (x, y, n, start, stop, B))
    return y
"""


@needs_hooks
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_slice_feeds_load_store_gather_atomics_shape_num_tiles(tmp_path, dtype):
    mod = build(SLICE_SRC, tmp_path)
    B = 4
    x = torch.randn(11, 7).to(dtype)
    x0 = x.clone()
    start, stop, n = 2, 9, 6                         # ragged: 7 rows, 5 columns in the view
    y = mod.run(x, n, start, stop, B)
    sub = x0[start:stop, 1:n]
    nt = math.ceil(7 / B)
    for b in range(nt):
        blk = sub[b * B:(b + 1) * B, :B]
        t = torch.full((B, B), -math.inf, dtype=dtype)
        t[:blk.shape[0], :blk.shape[1]] = blk
        assert torch.equal(y[b * B:(b + 1) * B, :B], t)
        assert y[b * B, 2 * B].item() == 7 * 1000 + 5 + nt
        g = torch.full((B,), -1.0, dtype=dtype)
        for r in range(B):
            if 0 <= r - 1 < sub.shape[0] and b < sub.shape[1]:
                g[r] = sub[r - 1, b]
        ref = g[:, None].expand(B, B)
        got = y[b * B:(b + 1) * B, B:2 * B]
        assert torch.equal(got, ref)
    ref_x = x0.clone()
    for b in range(nt):
        ref_x[start + b, 1] += 0.5
    assert torch.equal(x, ref_x)


def test_slice_refusals():
    assert "C2T105" in codes("""
    @ct.kernel
    def k(x, a):
        ct.store(x, (0, 0), ct.load(x.slice(a, 0, 2), (0, 0), shape=(2, 2)))
    """)
    assert "C2T109" in codes("""
    @ct.kernel
    def k(x):
        ct.store(x, (0, 0), ct.load(x.slice(2, 0, 2), (0, 0), shape=(2, 2)))
    """)


# a slice with constant bounds has a compile-time extent, as in cuTile (cutile-python's
# test_slice_constant_bounds_static_extent / _are_static: before, C2T105 "load `shape` must be a
# compile-time constant")
CONST_SLICE_SRC = """
@ct.kernel
def k(x, y):
    sub = x.slice(axis=0, start=2, stop=10)
    ct.static_assert(sub.shape[0] == 8)
    n = sub.shape[0]
    ct.store(y, index=(0,), tile=ct.load(sub, index=(0,), shape=(n,)))

def run(x):
    y = torch.zeros(8, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
    return y
"""


def test_slice_with_constant_bounds_has_a_static_extent(tmp_path):
    x = torch.randn(12)
    assert torch.equal(build(CONST_SLICE_SRC, tmp_path).run(x), x[2:10])


def test_slice_bound_errors_are_cutiles():
    # cuTile's TileTypeErrors: a signed integer scalar, non-negative, stop >= start
    for bounds in ("1.0, 5.0", "-1, 5", "0, -1", "5, 3", "ct.astype(n, ct.uint32), 5"):
        src = f"""
        @ct.kernel
        def k(x, n):
            ct.store(x, (0,), ct.load(x.slice(0, {bounds}), (0,), shape=(2,)))
        """
        assert "C2T109" in codes(src), bounds
    # an array used only through a slice: its rank is not known (before: "axis 0 is out of range
    # for a 0-D array")
    assert "C2T104" in codes("""
    @ct.kernel
    def k(x):
        x.slice(0, 1, 2)
    """)


TV_SRC = """
@ct.kernel
def k(x, y, z, B0: ConstInt, B1: ConstInt):
    tv = x.tiled_view((B0, B1), padding_mode=ct.PaddingMode.NAN, traversal_steps=(3, B1))
    i = ct.bid(0)
    t = tv.load((i, 0))
    out = y.tiled_view((B0, B1), traversal_steps=(B0, 3))
    out.store((i, 0), t)
    ct.scatter(z, (i, 0), tv.num_tiles(0) * 100 + tv.num_tiles(1) + tv.tile_shape[0] * 10000
               + tv.traversal_steps[0] * 1000)
    zv = z.tiled_view((1, 2))
    zv.store((i, 1), ct.full((1, 1), 5, dtype=tv.dtype))   # broadcast to the tile shape
    zv.atomic_store_add((i, 2), ct.full((1, 2), 2, dtype=ct.float32))
    zv.atomic_store_add((i, 3), ct.full((1, 2), 0.5, dtype=ct.float32))   # (max: integer views only)

def run(x, B0, B1):
    n = (x.shape[0] + 2) // 3
    y = torch.full((n * B0, 8), -1.0, dtype=x.dtype)
    z = torch.zeros((n, 8), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (n,), k, (x, y, z, B0, B1))
    return y, z
"""


@needs_hooks
def test_tiled_view_traversal_steps_padding_store_broadcast_and_atomics(tmp_path):
    mod = build(TV_SRC, tmp_path)
    B0, B1 = 4, 2
    x = torch.randn(10, 3)                           # 10 rows, steps of 3 rows: overlapping tiles
    z0 = torch.zeros(1)
    y, z = mod.run(x, B0, B1)
    n = 4
    for i in range(n):
        t = torch.full((B0, B1), math.nan)
        blk = x[3 * i:3 * i + B0, :B1]
        t[:blk.shape[0], :blk.shape[1]] = blk
        # stored into y with steps (B0, 3): rows i*B0.., columns 0..1
        assert torch.equal(y[i * B0:(i + 1) * B0, :B1].isnan(), t.isnan())
        assert torch.equal(torch.nan_to_num(y[i * B0:(i + 1) * B0, :B1]), torch.nan_to_num(t))
        assert z[i, 0].item() == n * 100 + 2 + B0 * 10000 + 3 * 1000
        assert z[i, 2].item() == 5 and z[i, 3].item() == 5
        assert z[i, 4].item() == 2 and z[i, 5].item() == 2
        assert z[i, 6].item() == 0.5 and z[i, 7].item() == 0.5
    assert (y[:, B1:] == -1).all()
    assert z0.item() == 0


@needs_hooks
def test_tiled_view_refusals():
    assert "C2T109" in codes("""
    @ct.kernel
    def k(x):
        tv = x.tiled_view((4, 4))
        ct.store(x, (0, 0), tv.load((0,)))
    """)
    assert "C2T101" in codes("""
    @ct.kernel
    def k(x):
        tv = x.tiled_view((4, 4))
        ct.store(x, (0, 0), tv.frobnicate)
    """)


ADV_SRC = """
@ct.kernel
def k(x, rows, y, c0, T: ConstInt):
    r = ct.load(rows, index=(0,), shape=(T,))
    a = ct.load_advanced_indexing(x, (r, ct.Slice(c0, 4)), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(y, index=(0, 0), tile=a)
    b = ct.load_advanced_indexing(x, (ct.Slice(c0 - 1, 2), r))      # sparse dim 1
    ct.store_advanced_indexing(x, (r, ct.Slice(c0 + 2, 2)), ct.full((T, 2), -9, dtype=x.dtype))
    ct.store(y, index=(1, 1), tile=ct.broadcast_to(ct.reshape(ct.sum(b, axis=0), (1, T)), (T, T)))

def run(x, rows, c0):
    T = rows.shape[0]
    y = torch.zeros((2 * T, 2 * T), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, rows, y, c0, T))
    return y
"""


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_advanced_indexing_load_store_with_out_of_bounds(tmp_path, dtype):
    mod = build(ADV_SRC, tmp_path)
    x = (torch.randn(5, 7) * 100).to(dtype)
    x0 = x.clone()
    rows = torch.tensor([4, -1, 0, 5, 2, 1, 9, 3], dtype=torch.int32)   # -1, 5, 9 out of bounds
    c0 = 5                                                               # columns 5..8: 7, 8 OOB
    y = mod.run(x, rows, c0)
    T = 8
    a = torch.full((T, 4), math.inf, dtype=torch.float64)
    b = torch.zeros((2, T), dtype=torch.float64)
    for i, r in enumerate(rows.tolist()):
        for j in range(4):
            if 0 <= r < 5 and c0 + j < 7:
                a[i, j] = x0[r, c0 + j].double()
        for j in range(2):
            if 0 <= r < 7 and 0 <= c0 - 1 + j < 5:
                b[j, i] = x0[c0 - 1 + j, r].double()
    if dtype.is_floating_point:
        assert torch.equal(y[:T, :4].double(), a)
    else:     # int arrays: POS_INF padding has no int value; only the in-bounds lanes are checked
        inb = a != math.inf
        assert torch.equal(y[:T, :4].double()[inb], a[inb])
    assert torch.allclose(y[T:, T:].double(), b.sum(0)[None, :].expand(T, T), rtol=1e-5)
    ref = x0.clone()
    for r in rows.tolist():
        if 0 <= r < 5:
            ref[r, c0 + 2:] = -9                     # columns 7, 8 are out of bounds: dropped
    assert torch.equal(x, ref)


def test_advanced_indexing_refusals():
    base = """
    @ct.kernel
    def k(x):
        i = ct.arange(4, dtype=ct.int32)
        ct.store(x, (0, 0), ct.load_advanced_indexing(x, {idx}))
    """
    assert "C2T109" in codes(base.format(idx="(i, i)"))
    assert "C2T109" in codes(base.format(idx="(ct.Slice(0, 4), ct.Slice(0, 4))"))
    assert "C2T106" in codes(base.format(idx="(i, ct.Slice(0, 3))"))
    assert "C2T109" in codes(base.format(idx="(i,)"))


def test_advanced_indexing_of_a_1d_array_is_refused_with_cutiles_hint():
    """cuTile 1.7 rejects ct.load/store_advanced_indexing on 1-D arrays (TileTypeError: "requires a
    2D or higher-rank array; use ct.gather() for 1D arrays"; the twenty-third session's GPU probe
    hit it); the translation refused nothing and gathered."""
    for call, other in (("t = ct.load_advanced_indexing(x, (i,))", "gather"),
                        ("ct.store_advanced_indexing(x, (i,), ct.zeros((4,), dtype=x.dtype))", "scatter")):
        res = translate(f"""
    @ct.kernel
    def k(x):
        i = ct.arange(4, dtype=ct.int32)
        {call}
    """)
        [d] = [d for d in res.diagnostics if d.code == "C2T109"]
        assert not res.ok and "rank >= 2, not 1-D" in d.message and f"ct.{other}()" in d.hint and d.line


FOREIGN_SRC = """
@ct.kernel
def k4(x, y, z, B: ConstInt):
    # x transposed, and x as one row of x.shape[0] * x.shape[1] elements, from its base pointer
    xt = ct.Array.from_foreign(x.foreign_pointer, (x.shape[1], x.shape[0]), (x.strides[1], x.strides[0]))
    ct.store(y, (0, 0), ct.load(xt, (ct.bid(0), 1), shape=(B, B), padding_mode=ct.PaddingMode.ZERO))
    p = x.foreign_pointer
    flat = ct.Array.from_foreign(p, shape=(x.shape[0] * x.shape[1],), strides=(1,))
    ct.store(flat, (1,), ct.load(flat, (1,), shape=(B,)) * 2)
    zv = ct.Array.from_foreign(z.foreign_pointer, (B,), (1,))     # z is used only through its pointer
    ct.store(zv, (0,), ct.full((B,), 3.0, dtype=x.dtype))

def run4(x, B):
    y, z = torch.zeros(B, B, dtype=x.dtype), torch.zeros(B, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k4, (x, y, z, B))
    return y, z
"""


def test_array_from_foreign_pointer(tmp_path):
    """ct.Array.from_foreign(A.foreign_pointer, shape, strides): A's memory with other extents
    and strides (cuTile 1.7)."""
    x = torch.arange(6 * 8, dtype=torch.float32).reshape(6, 8)
    x0 = x.clone()
    y, z = build(FOREIGN_SRC, tmp_path).run4(x, 4)
    t = torch.zeros(4, 4)
    t[:, :2] = x0.T[:4, 4:6]                    # columns 4..7 of x.T have 6 rows: padded with zeros
    assert torch.equal(y, t)
    want = x0.flatten().clone()
    want[4:8] *= 2
    assert torch.equal(x.flatten(), want) and torch.equal(z, torch.full((4,), 3.0))


def test_array_from_foreign_pointer_orders_and_refuses():
    loop = translate("""
    @ct.kernel
    def k(x):
        for i in range(4):
            t = ct.load(x, (i,), shape=(4,))
            ct.store(ct.Array.from_foreign(x.foreign_pointer, (8,), (1,)), (i + 1,), t)
    """)
    body = loop.code[loop.code.index("    for i in range(4):"):]
    assert body.index("tl.debug_barrier()") < body.index("t = _c2t_load_1d(x,")     # the store is x's
    base = """
    @ct.kernel
    def k(x, n):
        v = ct.Array.from_foreign({args})
        ct.store(v, (0,), ct.zeros((4,), dtype=x.dtype))
    """
    assert "C2T101" in codes(base.format(args="x, (n,), (1,)"))
    assert "C2T109" in codes(base.format(args="x.foreign_pointer, (n, n), (1,)"))
    assert "C2T109" in codes(base.format(args="x.foreign_pointer, (-1,), (1,)"))
    assert "C2T101" in codes(base.format(args="x.foreign_pointer.dtype, (n,), (1,)"))


@needs_hooks
def test_views_compile_for_sm90(tmp_path):
    src = (SLICE_SRC + TV_SRC.replace("def k(", "def k2(")
           .replace(", k, (", ", k2, (").replace("def run(x, B0, B1)", "def run2(x, B0, B1)")
           + ADV_SRC.replace("def k(", "def k3(").replace(", k, (", ", k3, (").replace(
               "def run(x, rows, c0)", "def run3(x, rows, c0)") + FOREIGN_SRC + """
def all_(x):
    run(x, 6, 2, 9, 4)
    run2(x, 4, 2)
    run3(x, torch.arange(8, dtype=torch.int32), 2)
    run4(x, 4)
""")
    out = compile_sm90(src, "all_", "torch.zeros(11, 7),", tmp_path)
    assert out.count("OK ") == 4, out


def test_probe_constructs_translate():
    assert HOOKS


# `x.tiled_view(TILE)` with an int Constant parameter: a 1-D view (cutile-python's
# test_tiled_view_copy_1d; the rank was unknown, 151 tests refused), an alias of Constant too.
TV_INT_CONST = """
ConstInt = ct.Constant[int]

@ct.kernel
def copy1d(x, y, TILE: ConstInt, T2: ct.Constant[int]):
    bid = ct.bid(0)
    tv_x = x.tiled_view(TILE)
    tv_y = y.tiled_view(T2)
    tv_y.store(bid, tv_x.load(bid))

def run(x, tile):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), ((x.shape[0] + tile - 1) // tile,), copy1d, (x, y, tile, tile))
    return y
"""


@pytest.mark.parametrize("n", [64, 100])
def test_tiled_view_with_an_int_constant_is_1d(tmp_path, n):
    if not __import__("os").environ.get("TRITON_INTERPRET"):
        res = translate(TV_INT_CONST)
        assert res.ok, "\n".join(d.format() for d in res.diagnostics)
        return
    mod = build(TV_INT_CONST, tmp_path)
    x = torch.randn(n)
    assert torch.equal(mod.run(x, 32), x)
