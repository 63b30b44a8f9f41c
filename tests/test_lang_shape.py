"""ct.cat, ct.extract / Tile.extract, ct.insert / Tile.insert, ct.astile, ct.pack_to_bytes and
ct.unpack_from_bytes, run under the interpreter against torch (ragged arrays: tiles overhang the
array edge), in several dtypes."""
import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate
from translator.harness import interp_numerics

interp_numerics.install()

DTYPES = ["float32", "float16", "bfloat16", "int32"]


def _rand(shape, dt, seed=0):
    g = torch.Generator().manual_seed(seed)
    dtype = getattr(torch, dt)
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 10).to(dtype)
    return torch.randint(-1000, 1000, shape, generator=g).to(dtype)


def _launch(mod, *arrays, consts=(), grid=(1,)):
    mod.launch_k(grid, *arrays, *consts)      # the launcher expands the arrays (and their TMA flags)


# ---------------------------------------------------------------------------------------- cat
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cat_2d_keeps_order(tmp_path, dt, axis):
    mod = build(f"""
    @ct.kernel
    def k(a, b, y, TM: ConstInt, TN: ConstInt):
        ta = ct.load(a, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(0, 0), tile=ct.cat((ta, tb), {axis}))
    """, tmp_path)
    a, b = _rand((3, 7), dt, 0), _rand((3, 7), dt, 1)
    pa = torch.zeros(4, 8, dtype=a.dtype)
    pb = torch.zeros(4, 8, dtype=a.dtype)
    pa[:3, :7], pb[:3, :7] = a, b
    ref = torch.cat((pa, pb), axis)
    y = torch.full(tuple(s - 1 for s in ref.shape), -5, dtype=a.dtype)     # ragged output
    _launch(mod, a, b, y, consts=(4, 8))
    assert torch.equal(y, ref[:y.shape[0], :y.shape[1]])


def test_cat_1d_3d_single_and_unknown_rank(tmp_path):
    mod = build("""
    @ct.kernel
    def k(a, y, z, w, T: ConstInt):
        t = ct.load(a, index=(0,), shape=(T,))
        p = (t > 0) if T > 1 else (ct.reshape(t, (1, T)) > 0)    # a choice of ranks: not tracked
        q = (t < 0) if T > 1 else (ct.reshape(t, (1, T)) < 0)
        u = ct.cat((p, q), 0)
        ct.store(y, index=(0,), tile=ct.where(u, 1, 0))
        ct.store(w, index=(0,), tile=ct.cat((t,), 0))
        c = ct.reshape(t, (2, 2, T // 4))
        ct.store(z, index=(0, 0, 0), tile=ct.cat((c, c * 2), 1))
    """, tmp_path)
    a = torch.arange(-8, 8, dtype=torch.int32)
    y, w = torch.zeros(32, dtype=torch.int32), torch.zeros(16, dtype=torch.int32)
    z = torch.zeros(2, 4, 4, dtype=torch.int32)
    _launch(mod, a, y, z, w, consts=(16,))
    assert torch.equal(y, torch.cat((a > 0, a < 0)).int())
    assert torch.equal(w, a)
    c = a.reshape(2, 2, 4)
    assert torch.equal(z, torch.cat((c, c * 2), 1))
    assert "_c2t_cat_nd(p, q, 0)" in open(mod.__file__).read()


# ---------------------------------------------------------------------------------------- extract
@pytest.mark.parametrize("dt", DTYPES)
def test_extract_static_and_dynamic_indices(tmp_path, dt):
    # every (8, 4) block of a 16x16 tile loaded from a ragged 13x14 array, picked by bid (dynamic)
    mod = build("""
    @ct.kernel
    def k(x, y, z, TM: ConstInt, TN: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(16, 16), padding_mode=ct.PaddingMode.ZERO)
        i = ct.bid(0)
        j = ct.bid(1)
        ct.store(y, index=(i, j), tile=ct.extract(t, (i, j), shape=(TM, TN)))
        ct.store(z, index=(0, 0), tile=t.extract((1, 3), (TM, TN)))
    """, tmp_path)
    x = _rand((13, 14), dt)
    y = torch.full((13, 14), -5, dtype=x.dtype)
    z = torch.zeros(8, 4, dtype=x.dtype)
    _launch(mod, x, y, z, consts=(8, 4), grid=(2, 4))
    assert torch.equal(y, x)
    pad = torch.zeros(16, 16, dtype=x.dtype)
    pad[:13, :14] = x
    assert torch.equal(z, pad[8:16, 12:16])


def test_extract_1d_scalar_index_and_0d_shape(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, z, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        for q in range(4):
            ct.store(y, index=(3 - q,), tile=ct.extract(t, q, shape=T // 4))
        ct.scatter(z, 0, ct.extract(t, (5,), shape=()))
        ct.scatter(z, 1, t.extract((T - 1,), ()) + 1)
    """, tmp_path)
    x = torch.arange(16, dtype=torch.float32) * 1.5
    y, z = torch.zeros(16), torch.zeros(2)
    _launch(mod, x, y, z, consts=(16,))
    assert torch.equal(y, x.reshape(4, 4).flip(0).reshape(16))
    assert z.tolist() == [7.5, 23.5]


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_extract_size2_last_axis_split(tmp_path, dt):
    # FFT style: real and imaginary parts of (N, 2) interleaved data, static and dynamic index
    mod = build("""
    @ct.kernel
    def k(x, re, im, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, 2))
        ct.store(re, index=(0,), tile=ct.reshape(ct.extract(t, (0, 0), shape=(T, 1)), (T,)))
        one = ct.bid(0) + 1
        ct.store(im, index=(0,), tile=ct.reshape(t.extract((0, one), shape=(T, 1)), (T,)))
    """, tmp_path)
    x = _rand((7, 2), dt)
    re, im = torch.zeros(7, dtype=x.dtype), torch.zeros(7, dtype=x.dtype)
    _launch(mod, x, re, im, consts=(8,))
    assert torch.equal(re, x[:, 0]) and torch.equal(im, x[:, 1])
    assert "tl.split(y)" in open(mod.__file__).read()


def test_extract_of_bool_tile(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        m = ct.extract(t > 0, (ct.bid(0),), shape=(T // 2,))
        ct.store(y, index=(ct.bid(0),), tile=ct.where(m, 1, 0))
    """, tmp_path)
    x = torch.tensor([1, -1, 2, 0, -3, 4, 5, -6], dtype=torch.int32)
    y = torch.zeros(8, dtype=torch.int32)
    _launch(mod, x, y, consts=(8,), grid=(2,))
    assert torch.equal(y, (x > 0).int())


# ---------------------------------------------------------------------------------------- insert
@pytest.mark.parametrize("dt", DTYPES)
def test_insert_tile_and_roundtrip_with_extract(tmp_path, dt):
    mod = build("""
    @ct.kernel
    def k(x, v, y, z, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
        s = ct.load(v, index=(0, 0), shape=(T // 2, T // 4), padding_mode=ct.PaddingMode.ZERO)
        i = ct.bid(0)
        r = ct.insert(t, (1, i + 1), s)
        ct.store(y, index=(0, 0), tile=r)
        ct.store(z, index=(0, 0), tile=r.extract((1, i + 1), (T // 2, T // 4)))
    """, tmp_path)
    x, v = _rand((7, 8), dt, 0), _rand((4, 2), dt, 1)
    y = torch.full((7, 8), -5, dtype=x.dtype)
    z = torch.zeros(4, 2, dtype=x.dtype)
    _launch(mod, x, v, y, z, consts=(8,), grid=(1,))
    ref = x.clone()
    ref[4:8, 2:4] = v[:3]
    assert torch.equal(y, ref)
    assert torch.equal(z, v)


def test_insert_scalars_method_form(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, s, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        u = t.insert((2,), ct.load(s, index=(0,), shape=()))
        u = ct.insert(u, (ct.bid(0),), ct.astype(7, t.dtype))
        ct.store(y, index=(0,), tile=u)
    """, tmp_path)
    x = torch.arange(8, dtype=torch.float16)
    s = torch.tensor([-3.5], dtype=torch.float16)
    y = torch.zeros(8, dtype=torch.float16)
    _launch(mod, x, s, y, consts=(8,), grid=(1,))
    assert y.tolist() == [7.0, 1, -3.5, 3, 4, 5, 6, 7]


# ---------------------------------------------------------------------------------------- astile
def test_astile(tmp_path):
    mod = build("""
    @ct.kernel
    def k(y, z, w, n):
        a = ct.astile(((1, 2), (3, 4)), dtype=ct.float16)
        ct.store(y, index=(0, 0), tile=a)
        b = ct.astile((n, n * 2, 7, n - 1), dtype=ct.int16)
        ct.store(z, index=(0,), tile=b)
        c = ct.astile(n, dtype=ct.float32) / 4
        ct.scatter(w, 0, c)
        ct.scatter(w, 1, ct.sum(ct.astile(((2.5,),), dtype=ct.float32)))
    """, tmp_path)
    y, z, w = torch.zeros(2, 2, dtype=torch.float16), torch.zeros(4, dtype=torch.int16), torch.zeros(2)
    _launch(mod, y, z, w, consts=(5,))
    assert y.tolist() == [[1, 2], [3, 4]]
    assert z.tolist() == [5, 10, 7, 4]
    assert w.tolist() == [1.25, 2.5]


# ---------------------------------------------------------------------------------------- bytes
@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32", "int16", "int64", "int8", "uint8"])
def test_pack_and_unpack_bytes_little_endian(tmp_path, dt):
    mod = build("""
    @ct.kernel
    def k(x, y, z, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(2, T))
        p = ct.pack_to_bytes(t)
        ct.store(y, index=(0,), tile=p)
        ct.store(z, index=(0,), tile=ct.unpack_from_bytes(p, z.dtype))
    """, tmp_path)
    x = _rand((2, 4), dt) if dt != "uint8" else torch.arange(200, 208, dtype=torch.uint8).reshape(2, 4)
    y = torch.zeros(x.numel() * x.element_size(), dtype=torch.uint8)
    z = torch.zeros(8, dtype=x.dtype)
    _launch(mod, x, y, z, consts=(4,))
    assert torch.equal(y, x.reshape(-1).view(torch.uint8))     # the host is little-endian, as the GPU
    assert torch.equal(z, x.reshape(-1))


def test_unpack_bytes_to_other_dtypes(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, a, b, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(a, index=(0,), tile=ct.unpack_from_bytes(t, ct.int32))
        ct.store(b, index=(0,), tile=ct.unpack_from_bytes(t, ct.float16))
    """, tmp_path)
    x = torch.tensor([1, 2, 3, 4, 0, 0x3C, 0xFF, 0x7F], dtype=torch.uint8)
    a, b = torch.zeros(2, dtype=torch.int32), torch.zeros(4, dtype=torch.float16)
    _launch(mod, x, a, b, consts=(8,))
    assert a.tolist() == [0x04030201, 0x7FFF3C00]
    assert torch.equal(b.view(torch.int16), x.view(torch.int16))      # (one is a NaN)


# ---------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("expr,code", [
    ("ct.cat((t, t, t), 0)", "C2T218"),     # cuTile's TileTypeError when the translation compiles
    ("ct.cat((t, t), ct.bid(0))", "C2T105"),
    ("ct.cat((t, t), 2)", "C2T106"),
    ("ct.extract(t, (0, 0), shape=(n, 4))", "C2T105"),
    ("ct.extract(t, (0, 0), shape=(3, 4))", "C2T106"),
    ("ct.extract(t, (0,), shape=(4, 4))", "C2T109"),
    ("ct.extract(t, (-1, 0), shape=(4, 4))", "C2T106"),
    ("ct.insert(t, (0,), t)", "C2T109"),
    ("ct.astile((1, 2, 3), dtype=ct.int32)", "C2T106"),
    ("ct.astile(((1, 2), (3,)), dtype=ct.int32)", "C2T106"),
    ("ct.astile((t, t), dtype=ct.int32)", "C2T106"),
])
def test_refusals(expr, code):
    src = f"""
    @ct.kernel
    def k(x, y, n):
        t = ct.load(x, index=(0, 0), shape=(8, 8))
        r = {expr}
        ct.store(y, index=(0, 0), tile=r)
    """
    assert code in codes(src), [d.format() for d in translate(src).diagnostics]


# ---------------------------------------------------------------------------------------- sm_90
def test_shape_ops_compile_for_sm90(tmp_path):
    src = """
    @ct.kernel
    def k(x, y, z, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
        i = ct.bid(0)
        c = ct.cat((t, t * 2), 0)
        e = ct.extract(c, (i, 0), shape=(T, T // 2))
        f = t.extract((0, 1), (T, 1))
        g = ct.insert(e, (1, i), ct.astype(f, e.dtype))
        h = g.insert((0, 0), 3.0)
        a = ct.astile(((1.0, 2.0), (3.0, 4.0)), dtype=ct.float32)
        b = ct.extract(h, (0, 0), shape=(2, 2)) + a
        p = ct.pack_to_bytes(b)
        u = ct.unpack_from_bytes(p, ct.float32)
        m = ct.extract(ct.cat((t > 0, t < 0), 0), (i, 1), shape=(T, T // 2))    # bool, rank unknown here
        ct.store(y, index=(0, 0), tile=ct.where(m, h, -h))
        ct.store(z, index=(0,), tile=u + ct.reshape(ct.cat((b, b), 1), (8,)).extract((1,), (4,)))

    def run(x):
        y = torch.empty((16, 8))
        z = torch.empty(4)
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, z, 16))
        return y
    """
    out = compile_sm90(src, "run", "(torch.randn(16, 16),)", tmp_path)
    assert out.startswith("OK k ptx=")


# ct.reshape with -1: the extent is the tile's element count over the others (Constant
# expressions, or a number when every extent is a literal)
RESHAPE_IMPLICIT = """
@ct.kernel
def k(x, y, z, R: ConstInt, C: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(R, C))
    ct.store(y, index=(0, 0), tile=ct.reshape(t, (C // 2, -1)))
    u = ct.load(x, index=(0, 0), shape=(4, 8)).reshape((-1,))
    ct.store(z, index=(0,), tile=u)

def run(x, r, c):
    y = torch.empty((c // 2, r * 2), dtype=x.dtype)
    z = torch.empty((32,), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, r, c))
    return y, z
"""


def test_reshape_with_an_implicit_extent(tmp_path):
    mod = build(RESHAPE_IMPLICIT, tmp_path)
    code = open(mod.__file__).read()
    assert "tl.reshape(t, [C // 2, (R * C) // (C // 2)])" in code and ", [32])" in code
    x = _rand((8, 16), "float32")
    y, z = mod.run(x, 4, 16)                # a 4 x 16 tile as 8 x 8
    assert torch.equal(y, x[:4].reshape(8, 8))
    assert torch.equal(z, x[:4, :8].reshape(-1))


@pytest.mark.parametrize("shape, code", [("(-1, -1)", "C2T109"), ("(3, -1)", "C2T109")])
def test_reshape_with_impossible_implicit_extents_is_refused(shape, code):
    assert code in codes(f"""
@ct.kernel
def k(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 8))
    ct.store(y, index=(0, 0), tile=ct.reshape(t, {shape}))
""")


# shapes after elementwise math, compares, where and reductions are known (or read off the tile in
# Triton): `t.shape` as a tile shape, and reshape with -1, after them (both were refused or broken)
SHAPES_AFTER_OPS = """
def plus_ones(t):
    return t + ct.ones(t.shape, dtype=t.dtype)      # a helper: the tile's shape is not known here

@ct.kernel
def k(x, y, z, w, R: ConstInt, C: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(R, C))
    e = ct.exp(t)
    m = ct.where(t > 0, 1.0, t)
    s = ct.cumsum(t, axis=1)
    ct.store(y, index=(0,), tile=ct.reshape(e, (-1,)) + ct.reshape(s, (-1,)) + ct.reshape(plus_ones(m), (-1,)))
    r = ct.sum(m, axis=0, keepdims=True)             # (1, C)
    ct.store(z, index=(0, 0), tile=ct.reshape(r, (2, -1)) + ct.zeros(r.shape, dtype=r.dtype).reshape((2, -1)))
    p = plus_ones(s)
    ct.store(w, index=(0, 0), tile=ct.reshape(p, (-1, 4)) * ct.prod(ct.where(t == 0, 1.0, t), axis=(-1, 0)))

def run(x, r, c):
    y = torch.empty((r * c,), dtype=x.dtype)
    z = torch.empty((2, c // 2), dtype=x.dtype)
    w = torch.empty((r * c // 4, 4), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, w, r, c))
    return y, z, w
"""


def test_shapes_known_after_elementwise_ops_and_reductions(tmp_path):
    mod = build(SHAPES_AFTER_OPS, tmp_path)
    code = open(mod.__file__).read()
    assert "tl.ravel(" in code and ".numel // 4" in code and "tl.full([t.shape[0], t.shape[1]], 1, t.dtype)" in code
    assert "tl.reshape(e, [R * C])" in code and "tl.reshape(r, [2, C // 2])" in code
    x = _rand((4, 8), "float32") / 10
    y, z, w = mod.run(x, 4, 8)
    m = torch.where(x > 0, torch.ones_like(x), x)
    torch.testing.assert_close(y, (x.exp() + x.cumsum(1) + m + 1).reshape(-1))
    torch.testing.assert_close(z, m.sum(0, keepdim=True).reshape(2, -1))
    torch.testing.assert_close(w, (x.cumsum(1) + 1).reshape(-1, 4) * torch.where(x == 0, 1.0, x).prod())


# negative permute axes count from the end (cuTile's own tests use (-1, -2)); tl.permute takes 0..n-1
PERMUTE_NEGATIVE = """
@ct.kernel
def k(x, y, z):
    t = ct.load(x, index=(0, 0, 0), shape=(2, 4, 8))
    ct.store(y, index=(0, 0, 0), tile=ct.permute(t, (-1, 0, -2)))
    ct.store(z, index=(0, 0, 0), tile=t.permute((0, -1, 1)))

def run(x):
    y = torch.empty(8, 2, 4)
    z = torch.empty(2, 8, 4)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z))
    return y, z
"""


def test_permute_with_negative_axes(tmp_path):
    mod = build(PERMUTE_NEGATIVE, tmp_path)
    x = torch.randn(2, 4, 8)
    y, z = mod.run(x)
    torch.testing.assert_close(y, x.permute(2, 0, 1))
    torch.testing.assert_close(z, x.permute(0, 2, 1))
    assert "tl.permute(t, (2, 0, 1))" in open(mod.__file__).read()


def test_ellipsis_in_a_tile_index_stands_for_the_remaining_axes(tmp_path):
    # Triton's tensors take no `...` ("unsupported tensor index: constexpr[Ellipsis]", found by the
    # fuzzer): it is spelled out as one `:` per axis the other parts leave
    mod = build("""
    @ct.kernel
    def k(x, out):
        t = ct.load(x, index=(0, 0), shape=(2, 4))
        a = t[None, ...]            # (1, 2, 4)
        b = t[..., None]            # (2, 4, 1)
        c = t[:, None, ...]         # (2, 1, 4)
        d = ct.reshape(t, (8,))[..., None] * 0
        ct.store(out, index=(0, 0, 0), tile=a + ct.permute(b, (2, 0, 1)) + ct.permute(c, (1, 0, 2))
                 + ct.reshape(d, (1, 2, 4)))

    def run(x):
        out = torch.zeros((1, 2, 4), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out))
        return out
    """, tmp_path)
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    assert torch.equal(mod.run(x), 3 * x[None])
    assert "C2T103" in codes("""
    @ct.kernel
    def k(x):
        t = ct.load(x, index=(0,), shape=(4,))
        u = t[..., None, ...]
    """)
