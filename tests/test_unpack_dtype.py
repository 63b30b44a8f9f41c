"""`d, s = tv.dtype, tv.tile_shape`: a tuple holding a dtype, unpacked into names. Triton's
compiler cannot assign such a tuple (its interpreter can), so the translation assigns each element
apart, a tuple of compile-time values as a constexpr (translator/lower/kernel.py,
_assign_dtypes_apart); compiled for sm_90 (no GPU needed) and run under the interpreter."""
import torch

from kernel_util import build, compile_sm90

SRC = """
def props(view, dtype, shape):
    vd, vs = view.dtype, view.tile_shape
    ct.static_assert(vd == dtype)
    ct.static_assert(vs == shape)

@ct.kernel
def copy1(x, y, z, T: ConstInt):
    tv = x.tiled_view(T)
    props(tv, x.dtype, (T,))
    d, s, n = tv.dtype, tv.tile_shape, tv.num_tiles(0)
    ct.static_assert(d == y.dtype)
    ct.static_assert(s == (T,))
    y.tiled_view(T).store(ct.bid(0), tv.load(ct.bid(0)))
    z.tiled_view(1).store(ct.bid(0), n)

@ct.kernel
def copy2(x, y, TM: ConstInt, TN: ConstInt):
    tv = x.tiled_view((TM, TN))
    props(tv, x.dtype, (TM, TN))
    s, d = tv.tile_shape, x.dtype
    t = ct.zeros(s, dtype=d) + tv.load((ct.bid(0), ct.bid(1)))
    d, t = t.dtype, t * 2           # (names an assigned name: held in a temporary)
    y.tiled_view((TM, TN)).store((ct.bid(0), ct.bid(1)), t.astype(d))

@ct.kernel
def copy3(x, y, TA: ConstInt, TB: ConstInt, TC: ConstInt):
    tv = x.tiled_view((TA, TB, TC))
    props(tv, x.dtype, (TA, TB, TC))
    i = (ct.bid(0), ct.bid(1), ct.bid(2))
    y.tiled_view((TA, TB, TC)).store(i, tv.load(i))

def run1(x, y, z, T):
    ct.launch(torch.cuda.current_stream(), ((x.shape[0] + T - 1) // T,), copy1, (x, y, z, T))

def run2(x, y, TM, TN):
    g = ((x.shape[0] + TM - 1) // TM, (x.shape[1] + TN - 1) // TN)
    ct.launch(torch.cuda.current_stream(), g, copy2, (x, y, TM, TN))

def run3(x, y, TA, TB, TC):
    g = tuple((n + t - 1) // t for n, t in zip(x.shape, (TA, TB, TC)))
    ct.launch(torch.cuda.current_stream(), g, copy3, (x, y, TA, TB, TC))

def all_(x1, x2, x3):
    run1(x1, torch.empty_like(x1), torch.zeros(3, dtype=torch.int32), 16)
    run2(x2, torch.empty_like(x2), 8, 16)
    run3(x3, torch.empty_like(x3), 2, 4, 8)
"""


def test_unpacked_dtype_compiles_for_sm90(tmp_path):
    for dt in ("float32", "int8", "bool", "float16"):
        out = compile_sm90(SRC, "all_", f"(torch.zeros(40, dtype=torch.{dt}), torch.zeros(20, 24, dtype=torch.{dt}), "
                                        f"torch.zeros(3, 4, 12, dtype=torch.{dt}))", tmp_path)
        assert {ln.split()[1] for ln in out.splitlines() if ln.startswith("OK ")} == {"copy1", "copy2", "copy3"}, out


def test_unpacked_dtype_runs(tmp_path):
    m = build(SRC, tmp_path)
    for dt in (torch.float32, torch.int16):
        x1 = torch.arange(40).to(dt)
        y1, z = torch.zeros_like(x1), torch.zeros(3, dtype=torch.int32)
        m.run1(x1, y1, z, 16)
        assert torch.equal(y1, x1) and z.tolist() == [3, 3, 3]      # (3 tiles of 16 over 40)
        x2 = torch.arange(20 * 24).reshape(20, 24).to(dt)
        y2 = torch.zeros_like(x2)
        m.run2(x2, y2, 8, 16)
        assert torch.equal(y2, x2 * 2)
        x3 = torch.arange(3 * 4 * 12).reshape(3, 4, 12).to(dt)
        y3 = torch.zeros_like(x3)
        m.run3(x3, y3, 2, 4, 8)
        assert torch.equal(y3, x3)
