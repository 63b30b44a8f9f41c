"""cuTile's numeric rules where the translation had them wrong (issue 35: cutile-python's own
test_unary_elementwise, test_binary_elementwise and test_cast under the shim). One test per rule:

- float math (exp, exp2, log, log2, sqrt, rsqrt, sin, cos, tan, sinh, cosh, tanh) of an integer or
  bool tile casts it to fp32 first and gives fp32 (cuTile's UNARY_FLOAT behaviour); the helpers
  narrowed the result back to the integer dtype (sqrt(2) -> 1);
- unary `+` is the value itself (a bool as int32), `-` of a bool tile negates it as int32; Triton
  tensors have no unary plus at all;
- astype(bool_) of a float is `x != 0` (0.5 -> True), as cuTile computes on the GPU (its own
  test_cast compares with torch's `x.to(bool)`); so are `and`/`or`/`not` of float scalars;
- `//` of floats floors the quotient rounded to cuTile's common dtype (fp16/bf16 round before the
  floor, fp64 divides in fp64), and `//` and `%` of bf16 with an integer stay in bf16 (the integer
  rounded to bf16 first).
"""
import math

import pytest
import torch

from kernel_util import build

FLOAT_MATH = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh"]


@pytest.mark.parametrize("dt", [torch.int8, torch.int32, torch.int64, torch.bool])
def test_float_math_of_integer_and_bool_tiles_gives_fp32(tmp_path, dt):
    outs = ", ".join(f"o_{n}" for n in FLOAT_MATH)
    stores = "\n".join(f"    ct.store(o_{n}, index=(0,), tile=ct.{n}(t))" for n in FLOAT_MATH)
    mod = build(f"""
@ct.kernel
def k(x, {outs}, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
{stores}

def run(x):
    outs = [torch.zeros(x.shape, dtype=torch.float32) for _ in range({len(FLOAT_MATH)})]
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, *outs, 16))
    return outs
""", tmp_path)
    x = (torch.arange(16) % 2).to(dt) if dt == torch.bool else torch.arange(16).to(dt)
    for name, out in zip(FLOAT_MATH, mod.run(x)):
        ref = getattr(torch, name)(x.double()).float()
        torch.testing.assert_close(out, ref, rtol=2e-6, atol=1e-6, equal_nan=True, msg=name)


def test_unary_plus_and_minus_of_bool_int_and_float_tiles(tmp_path):
    mod = build("""
@ct.kernel
def k(b, i, f, pb, nb, pi, pf, ps, s, T: ConstInt):
    tb = ct.load(b, index=(0,), shape=(T,))
    ct.store(pb, index=(0,), tile=+tb)
    ct.store(nb, index=(0,), tile=-tb)
    ct.store(pi, index=(0,), tile=+ct.load(i, index=(0,), shape=(T,)))
    ct.store(pf, index=(0,), tile=+ct.load(f, index=(0,), shape=(T,)))
    ct.store(ps, index=(0,), tile=ct.full((T,), +s, dtype=ct.float32))

def run(b, i, f, s):
    pb, nb, pi = (torch.zeros(8, dtype=torch.int32) for _ in range(3))
    pf, ps = torch.zeros(8), torch.zeros(8)
    ct.launch(torch.cuda.current_stream(), (1,), k, (b, i, f, pb, nb, pi, pf, ps, s, 8))
    return pb, nb, pi, pf, ps
""", tmp_path)
    b = torch.tensor([True, False] * 4)
    i = torch.arange(-4, 4, dtype=torch.int8)
    f = torch.tensor([-0.0, 0.0, 1.5, -2.5, math.inf, -math.inf, 3.0, 4.0])
    pb, nb, pi, pf, ps = mod.run(b, i, f, 2.5)
    assert pb.tolist() == [1, 0] * 4 and nb.tolist() == [-1, 0] * 4       # bool: as int32
    assert pi.tolist() == i.tolist()
    assert torch.equal(pf, f) and math.copysign(1.0, pf[0].item()) < 0    # -0.0 kept
    assert ps.tolist() == [2.5] * 8


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_float_to_bool_is_not_equal_zero(tmp_path, dt):
    if dt == torch.bfloat16:
        from translator.harness import interp_numerics
        interp_numerics.install()
    mod = build("""
@ct.kernel
def k(x, b, T: ConstInt):
    ct.store(b, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)).astype(ct.bool_))

def run(x):
    b = torch.zeros(x.shape, dtype=torch.bool)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, b, 16))
    return b
""", tmp_path)
    v = [0.5, 0.0, -0.0, 1.0, -0.25, 2.0, 4.0, 5.0, -3.0, math.nan, math.inf, -math.inf, 0.01, 0.99, 256.0, -1.5]
    x = torch.tensor(v, dtype=dt)
    assert mod.run(x).tolist() == (x != 0).tolist()


def test_logical_operators_of_float_scalars_are_not_equal_zero(tmp_path):
    mod = build("""
@ct.kernel
def k(o, s, u):
    a = 0
    if s and u:
        a = 1
    c = 0
    if not s:
        c = 1
    ct.store(o, index=(0,), tile=ct.full((2,), a * 2 + c, dtype=ct.int32))

def run(s, u):
    o = torch.zeros(2, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (o, s, u))
    return o[0].item()
""", tmp_path)
    assert mod.run(0.5, 0.25) == 2          # both true: `a`; `not 0.5` is False
    assert mod.run(0.0, 0.25) == 1
    assert mod.run(-0.5, 3.0) == 2


def _div_kernel(tmp_path):
    return build("""
@ct.kernel
def k(x, y, q, r, T: ConstInt):
    tx = ct.load(x, index=(0,), shape=(T,))
    ty = ct.load(y, index=(0,), shape=(T,))
    ct.store(q, index=(0,), tile=tx // ty)
    ct.store(r, index=(0,), tile=tx % ty)

def run(x, y, out_dtype):
    q = torch.zeros(x.shape, dtype=out_dtype)
    r = torch.zeros(x.shape, dtype=out_dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, q, r, 4))
    return q, r
""", tmp_path)


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_float_floor_division_floors_the_quotient_in_the_operands_dtype(tmp_path, dt):
    if dt == torch.bfloat16:
        from translator.harness import interp_numerics
        interp_numerics.install()
    mod = _div_kernel(tmp_path)
    # 3 / 0.3 and 6 / 0.3 (0.3 rounded to dt): fp32 quotients just below 10 and 20 that round up to
    # them in fp16 and bf16; 2**53 - 1 is exact in fp64 only
    x = torch.tensor([3.0, 6.0, 9.0, 2.0 ** 53 - 1], dtype=torch.float64)
    y = torch.tensor([0.3, 0.3, 0.3, 1.0], dtype=torch.float64)
    x, y = x.to(dt), y.to(dt)
    q, r = mod.run(x, y, dt)
    exact = dict(rtol=0, atol=0, equal_nan=True)              # (2**53 - 1 is inf in fp16: inf % 2 is nan)
    torch.testing.assert_close(q, torch.floor(x / y), **exact)          # torch divides in dt too
    torch.testing.assert_close(r, torch.remainder(x, y), **exact)


def test_bf16_with_an_integer_tile_divides_in_bf16(tmp_path):
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = _div_kernel(tmp_path)
    x = torch.tensor([256.0, -256.0, 300.0, 1000.0], dtype=torch.bfloat16)
    y = torch.tensor([257, 257, 7, 513], dtype=torch.int32)          # 257 -> 256, 513 -> 512 in bf16
    q, r = mod.run(x, y, torch.bfloat16)
    yb = y.to(torch.bfloat16)
    assert q.tolist() == torch.floor(x / yb).tolist() == [1.0, -1.0, 42.0, 1.0]
    assert r.tolist() == torch.remainder(x, yb).tolist()


def test_numeric_helpers_compile_for_sm90(tmp_path):
    """Triton's compiler (not only the interpreter) takes the helpers for integer, bool, bf16 and
    fp64 operands: `+` of a tile and a scalar, `-` of a bool tile, float math of ints and bools,
    float -> bool, `//` and `%` of bf16 with an integer tile and of fp64, fp64 -> fp32 casts rounded
    down, up and toward zero, fp64 -> fp16 and (widening) fp16 -> fp32 with RZ."""
    from kernel_util import compile_sm90
    out = compile_sm90("""
    @ct.kernel
    def k(x, n, b, o, oi, ob, d, s, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        m = ct.load(n, index=(0,), shape=(T,))
        tb = ct.load(b, index=(0,), shape=(T,))
        r = ct.exp(m) + ct.sqrt(tb) + ct.tanh(m) + ct.tan(tb) + ct.log(m) + ct.cosh(m)
        ct.store(o, index=(0,), tile=(r + t // m + t % m + +t).astype(o.dtype))
        ct.store(oi, index=(0,), tile=-tb + +m + +tb)
        ct.store(ob, index=(0,), tile=t.astype(ct.bool_))
        td = ct.load(d, index=(0,), shape=(T,))
        ct.store(d, index=(0,), tile=td // td + td % td + ct.full((T,), +s, dtype=ct.float64))
        ct.store(o, index=(0,), tile=ct.astype(td, ct.float32, rounding_mode=ct.RoundingMode.RM)
                 + ct.astype(td, ct.float32, rounding_mode=ct.RoundingMode.RP)
                 + ct.astype(td, ct.float32, rounding_mode=ct.RoundingMode.RZ)
                 + ct.astype(ct.astype(td, ct.float16, rounding_mode=ct.RoundingMode.RZ), ct.float32,
                             rounding_mode=ct.RoundingMode.RZ))

    def run(x, n, b, o, oi, ob, d):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, b, o, oi, ob, d, 1.5, 64))
    """, "run", "torch.rand(64).bfloat16(), torch.arange(64, dtype=torch.int32), torch.zeros(64, dtype=torch.bool), "
        "torch.empty(64), torch.empty(64, dtype=torch.int32), torch.empty(64, dtype=torch.bool), "
        "torch.rand(64, dtype=torch.float64)", tmp_path)
    assert out.count("OK") == 1, out


@pytest.mark.parametrize("mode", ["RM", "RP", "RZ"])
def test_astype_fp64_to_fp32_directed_rounding(tmp_path, mode):
    """rounding_mode=RM/RP/RZ on fp64 -> fp32 (cuTile 13.4; test_cast's f64_f32 cases): RM/RP were
    refused, RZ was Triton's rtz cast, which the sm_90 backend cannot lower for fp64 (PassManager
    failure on the H200); widening casts with a mode were a Triton error."""
    mod = build(f"""
@ct.kernel
def k(x, y, w, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.astype(t, ct.float32, rounding_mode=ct.RoundingMode.{mode}))
    h = ct.load(w, index=(0,), shape=(T,))
    # (back to w's fp16 explicitly: cuTile does not store fp64 into an fp16 array implicitly)
    ct.store(w, index=(0,), tile=ct.astype(ct.astype(ct.astype(h, ct.float32, rounding_mode=ct.RoundingMode.{mode}),
                                                     ct.float64, rounding_mode=ct.RoundingMode.{mode}), w.dtype))

def run(x, w):
    y = torch.zeros(x.shape, dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, w, 8))
    return y
""", tmp_path)
    one_up = 1.0 + 2.0 ** -23
    mid = 1.0 + 0.6 * 2.0 ** -23
    x = torch.tensor([mid, -mid, 1.0, 1e39, -1e39, math.nan, math.inf, 0.1], dtype=torch.float64)
    w = torch.tensor([0.5, -0.25, 1.5, 2.0, 0.0, -0.0, 3.0, 4.0]).half()     # widening: exact
    y = mod.run(x, w)
    big = 3.4028234663852886e38
    ref = {"RM": [1.0, -one_up, 1.0, big, -math.inf], "RP": [one_up, -1.0, 1.0, math.inf, -big],
           "RZ": [1.0, -1.0, 1.0, big, -big]}[mode]
    assert y[:5].tolist() == ref
    assert math.isnan(y[5].item()) and y[6].item() == math.inf
    r = torch.tensor(0.1, dtype=torch.float64).float()           # nearest fp32 of 0.1 is above it
    assert y[7].item() == (r.item() if mode == "RP" else torch.nextafter(r, torch.tensor(0.0)).item())
    assert w.tolist() == [0.5, -0.25, 1.5, 2.0, 0.0, -0.0, 3.0, 4.0]


ABS_OF_CONSTANTS = """
@ct.kernel
def k(y, z, x: ct.Constant[int], f: ct.Constant[float], T: ConstInt):
    c = abs(x) + ct.abs(-3)
    ct.store(y, index=(0,), tile=ct.full((T,), c, dtype=y.dtype))
    ct.store(z, index=(0,), tile=ct.full((T,), ct.abs(f) + abs(-1.5), dtype=z.dtype))

def run(x, f):
    y = torch.zeros(4, dtype=torch.int32)
    z = torch.zeros(4, dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (y, z, x, f, 4))
    return y[0].item(), z[0].item()
"""


def test_abs_of_constants_compiles_and_is_exact(tmp_path):
    """abs() / ct.abs of Constant parameters and literals: Triton's compiler has no `abs` builtin
    (cutile-python's test_scalar_abs with is_constant failed to compile on the H200)."""
    from kernel_util import checked
    checked(ABS_OF_CONSTANTS)              # Triton's front end for sm_90 accepts it
    mod = build(ABS_OF_CONSTANTS, tmp_path)
    assert mod.run(-5, -2.25) == (8, 3.75)
    assert mod.run(7, 0.5) == (10, 2.0)
