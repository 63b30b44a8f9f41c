"""ct.tanh/sinh/cosh/tan/atan2/pow, rounding modes, flush_to_zero, cuTile dtype promotion, float->bool
casts and ct.ByTarget (translator/lower/ops_math.py, templates/prelude_math.py.j2).

Compiled kernels call libdevice (checked by compiling for sm_90); under the interpreter the helpers
use float64 formulas. Measured on the inputs below (incl. 1e-3-scale, +-88, 0, -0, inf, nan): every
fp32 result of tanh, sinh, cosh, tan, atan2 and pow equals the float64 torch result rounded to fp32
(max error 0.4999 ulp); fp16/bf16 results equal torch's fp32 result rounded to fp16/bf16.
"""
import math

import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate


UNARY_SRC = """
@ct.kernel
def k(x, y, o1, o2, o3, o4, o5, o6, o7, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    u = ct.load(y, index=(ct.bid(0),), shape=(T,))
    ct.store(o1, index=(ct.bid(0),), tile=ct.tanh(t))
    ct.store(o2, index=(ct.bid(0),), tile=ct.sinh(t))
    ct.store(o3, index=(ct.bid(0),), tile=ct.cosh(t))
    ct.store(o4, index=(ct.bid(0),), tile=ct.tan(t))
    ct.store(o5, index=(ct.bid(0),), tile=ct.atan2(t, u))
    ct.store(o6, index=(ct.bid(0),), tile=ct.pow(t, u))
    ct.store(o7, index=(ct.bid(0),), tile=t ** u)

def run(x, y):
    outs = [torch.empty_like(x) for _ in range(7)]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 128),), k, (x, y, *outs, 128))
    return outs
"""
NAMES = ["tanh", "sinh", "cosh", "tan", "atan2", "pow", "pow_op"]


def _inputs(n=1500):
    g = torch.Generator().manual_seed(0)
    specials = [0., -0., 1e-30, -1e-30, 1e-8, 9., -9., 20., 88., -88., 89.5, math.inf, -math.inf, math.nan,
                -1., -2., 0.5]
    sy = [0., -0., -1., 1., 2., 3., -2., 0.5, 1., -1., 1., 3., -math.inf, math.inf, 1., 2., -3.]
    x = torch.cat([torch.randn(n, generator=g) * 3, torch.randn(n, generator=g) * 1e-3,
                   torch.randn(n, generator=g) * 30, torch.tensor(specials)])
    y = torch.cat([torch.randn(n, generator=g) * 3, torch.randn(n, generator=g) * 1e-3,
                   torch.rand(n, generator=g) * 4, torch.tensor(sy)])
    x[: n // 2] = x[: n // 2].abs()          # positive bases for pow
    return x, y                               # 4517 elements: a ragged last block


def _refs(x, y):
    xd, yd = x.double(), y.double()
    p = torch.pow(xd, yd)
    return [torch.tanh(xd), torch.sinh(xd), torch.cosh(xd), torch.tan(xd), torch.atan2(xd, yd), p, p]


def _same(a, b):
    return torch.equal(torch.isnan(a), torch.isnan(b)) and torch.equal(a[~torch.isnan(a)], b[~torch.isnan(b)])


def test_transcendentals_fp32_are_correctly_rounded(tmp_path):
    mod = build(UNARY_SRC, tmp_path)
    x, y = _inputs()
    for name, out, ref in zip(NAMES, mod.run(x, y), _refs(x, y)):
        assert out.dtype == torch.float32
        assert _same(out, ref.float()), name


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
def test_transcendentals_half_types_computed_in_fp32(tmp_path, dt):
    if dt == torch.bfloat16:
        from translator.harness import interp_numerics
        interp_numerics.install()
    mod = build(UNARY_SRC, tmp_path)
    x, y = _inputs(300)
    x, y = x.to(dt), y.to(dt)
    for name, out, ref in zip(NAMES, mod.run(x, y), _refs(x.float(), y.float())):
        assert out.dtype == dt, name
        assert _same(out, ref.float().to(dt)), name


def test_float64_transcendentals(tmp_path):
    mod = build(UNARY_SRC, tmp_path)
    x, y = _inputs(500)
    x, y = x.double(), y.double()
    for name, out, ref in zip(NAMES, mod.run(x, y), _refs(x, y)):
        fin = torch.isfinite(ref) & (ref.abs() > 1e-300)
        rel = ((out[fin] - ref[fin]).abs() / ref[fin].abs()).max().item()
        assert rel < 2e-13, (name, rel)       # measured: <= 6.1e-16 (tanh..atan2), 4.6e-15 (pow)
        assert torch.equal(torch.isnan(out), torch.isnan(ref)), name


def test_pow_with_constant_and_integer_exponents(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, n, o, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        m = ct.load(n, index=(0,), shape=(T,))
        r = t ** 7 + t ** 2.5 + 2.0 ** t + t ** -3 + t ** m + 3 ** (t * 0.5)
        ct.store(o, index=(0,), tile=r)

    def run(x, n):
        o = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, o, 16))
        return o
    """, tmp_path)
    x = torch.linspace(0.5, 2.0, 16)
    n = torch.arange(-8, 8, dtype=torch.int32)
    xd = x.double()
    ref = xd ** 7 + xd ** 2.5 + 2.0 ** xd + xd ** -3 + xd ** n.double() + 3 ** (xd * 0.5)
    torch.testing.assert_close(mod.run(x, n), ref.float(), rtol=2e-7, atol=0)
    code = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile=t ** 7 + t ** 2)
    """).code
    assert "_c2t_pow(t, tl.full([], 7, tl.int32))" in code and "t * t" in code   # FPowI exponent; x**2 multiplied out


def test_pow_bf16_base_int_exponent_stays_bf16(tmp_path):
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build("""
    @ct.kernel
    def k(x, n, o, T: ConstInt):
        ct.store(o, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)) ** ct.load(n, index=(0,), shape=(T,)))

    def run(x, n):
        o = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, o, 8))
        return o
    """, tmp_path)
    x = torch.tensor([1.5, -1.25, 3, 0.75, 2, -2, 1.125, 0.5], dtype=torch.bfloat16)
    n = torch.tensor([3, 5, -2, 7, 10, 3, 9, -4], dtype=torch.int32)
    assert torch.equal(mod.run(x, n), (x.double() ** n.double()).float().to(torch.bfloat16))


def test_tanh_rounding_modes():
    assert codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile=ct.tanh(t, rounding_mode=ct.RoundingMode.FULL))
    """) == []
    assert codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile=ct.tanh(t, rounding_mode=ct.RoundingMode.APPROX))
    """) == ["C2T203"]
    # a mode cuTile does not take for tanh: translated, failing with cuTile's TileTypeError when
    # Triton compiles it (C2T218; tests/test_shim_unary_checks.py runs it)
    assert "C2T218" in codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile=ct.tanh(t, rounding_mode=ct.RoundingMode.RZ))
    """)


# ---------------------------------------------------------------- rounding modes
def _directed_ref(exact: float, mode: str, dt=torch.float32) -> float:
    """exact (a python float / Fraction value) rounded to dt in mode rz/rd/ru."""
    from fractions import Fraction
    v = Fraction(exact)
    c = torch.tensor(float(v), dtype=torch.float64).to(dt)      # RN neighbour
    if not math.isfinite(c.double().item()):          # overflow: directed modes may stop at the largest finite
        big = torch.finfo(dt).max
        keep_inf = {"rz": False, "rd": v < 0, "ru": v > 0}[mode]
        return c.double().item() if keep_inf else math.copysign(big, v)
    cv = Fraction(c.double().item())
    if cv == v:
        return c.double().item()
    lo, hi = (c, torch.nextafter(c, torch.tensor(math.inf, dtype=dt))) if cv < v else \
        (torch.nextafter(c, torch.tensor(-math.inf, dtype=dt)), c)
    if mode == "rd":
        return lo.double().item()
    if mode == "ru":
        return hi.double().item()
    return (lo if v > 0 else hi).double().item()


ROUND_SRC = """
@ct.kernel
def k(x, y, o, T: ConstInt):
    a = ct.load(x, index=(0,), shape=(T,))
    b = ct.load(y, index=(0,), shape=(T,))
    M = ct.RoundingMode.{mode}
    r = ct.{op}(a, b, rounding_mode=M)
    ct.store(o, index=(0,), tile=r)

def run(x, y):
    o = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, o, 64))
    return o
"""


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv"])
@pytest.mark.parametrize("mode", ["RZ", "RM", "RP"])
def test_directed_rounding_fp32(tmp_path, monkeypatch, op, mode):
    from fractions import Fraction
    mod = build(ROUND_SRC.replace("{mode}", mode).replace("{op}", op), tmp_path)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, generator=g)
    y = torch.randn(64, generator=g) * torch.tensor([1.0, 1e-9, 1e9, 3.0] * 16)
    x[:4] = torch.tensor([1.0, -1.0, 3e30, 1.0])
    y[:4] = torch.tensor([2.0 ** -30, 2.0 ** -30, 3e-30, 3.0])
    out = mod.run(x, y)
    m = {"RZ": "rz", "RM": "rd", "RP": "ru"}[mode]
    f = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "truediv": lambda a, b: a / b}[op]
    ref = torch.tensor([_directed_ref(f(Fraction(a), Fraction(b)), m) for a, b in zip(x.tolist(), y.tolist())])
    assert torch.equal(out.double(), ref), (out.double() - ref).abs().max()
    # at least one lane differs from round-to-nearest, so the test can fail
    assert not torch.equal(out, f(x.double(), y.double()).float())


@pytest.mark.parametrize("mode", ["RZ", "RM", "RP"])
def test_directed_rounding_sqrt_and_half(tmp_path, monkeypatch, mode):
    from fractions import Fraction
    m = {"RZ": "rz", "RM": "rd", "RP": "ru"}[mode]
    mod = build(ROUND_SRC.replace("{mode}", mode).replace("r = ct.{op}(a, b, rounding_mode=M)",
                                                          "r = ct.sqrt(a, rounding_mode=M) + 0 * b"), tmp_path)
    x = torch.rand(64, generator=torch.Generator().manual_seed(2)) * 100
    out = mod.run(x, torch.zeros(64))
    ref = []
    for a in x.tolist():
        c = torch.tensor(math.sqrt(a)).float()          # within one ulp: pick by squaring exactly
        cands = [torch.nextafter(c, torch.tensor(-math.inf)), c, torch.nextafter(c, torch.tensor(math.inf))]
        below = [v for v in cands if Fraction(v.item()) ** 2 <= Fraction(a)]
        above = [v for v in cands if Fraction(v.item()) ** 2 >= Fraction(a)]
        ref.append((max(below) if m in ("rz", "rd") else min(above)).item())
    assert torch.equal(out.double(), torch.tensor(ref, dtype=torch.float64))
    # fp16: directed fp32 result narrowed with the same direction == direct directed rounding
    mod = build(ROUND_SRC.replace("{mode}", mode).replace("{op}", "add"), tmp_path)
    g = torch.Generator().manual_seed(3)
    x16, y16 = torch.randn(64, generator=g).half(), (torch.randn(64, generator=g) * 1e-3).half()
    out = mod.run(x16, y16)
    assert out.dtype == torch.float16
    ref = torch.tensor([_directed_ref(Fraction(a) + Fraction(b), m, torch.float16)
                        for a, b in zip(x16.tolist(), y16.tolist())], dtype=torch.float64)
    assert torch.equal(out.double(), ref)


def test_rounding_mode_refusals_and_ftz(monkeypatch):
    src = """
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile={expr})
    """
    # modes cuTile never takes for the operation: translated, failing with cuTile's TileTypeError
    # when compiled, as cuTile does (tests/test_operator_rules.py), and a warning
    assert codes(src.format(expr="ct.add(t, t, rounding_mode=ct.RoundingMode.RA)")) == ["C2T218"]
    assert codes(src.format(expr="ct.mul(t, t, rounding_mode=ct.RoundingMode.APPROX)")) == ["C2T218"]
    assert codes(src.format(expr="ct.sqrt(t, rounding_mode=ct.RoundingMode.RA)")) == ["C2T218"]
    assert codes(src.format(expr="ct.add(t, t, flush_to_zero=True)")) == ["C2T203"]
    assert codes(src.format(expr="ct.sqrt(t, flush_to_zero=True)")) == ["C2T203"]
    assert codes(src.format(expr="ct.add(t, t, rounding_mode=ct.RoundingMode.RN, flush_to_zero=False)")) == []


def test_astype_rounding_and_float_to_bool(tmp_path, monkeypatch):
    mod = build("""
    @ct.kernel
    def k(x, b, h, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(b, index=(0,), tile=t.astype(ct.bool_))
        ct.store(h, index=(0,), tile=ct.astype(t, ct.float16, rounding_mode=ct.RoundingMode.RZ))

    def run(x):
        b = torch.empty(x.shape, dtype=torch.bool)
        h = torch.empty(x.shape, dtype=torch.float16)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, b, h, 8))
        return b, h
    """, tmp_path)
    x = torch.tensor([0.5, 0.0, 1.0, 1.5, -0.5, -1.0, 1.0009765625 + 2 ** -12, 0.99])
    b, h = mod.run(x)
    assert b.tolist() == [True, False, True, True, True, True, True, True]      # x != 0 (test_lang_numerics.py)
    assert h[6].item() == 1.0009765625 and h[7].item() < 0.99                       # toward zero
    src = """
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile=ct.astype(t, ct.float16, rounding_mode=ct.RoundingMode.{m}))
    """
    # cuTile rejects RM from float32 to float16: the source's dtype is known when Triton compiles,
    # which fails there with cuTile's TileTypeError (tests/test_astype_rounding.py runs it)
    assert codes(src.format(m="RM")) == []
    assert codes(src.format(m="RZI")) == ["C2T106"]             # not a rounding mode of casts


@pytest.fixture
def int_to_bf16(monkeypatch):
    """The interpreter (even with interp_numerics) casts int -> bf16 by reinterpreting the value as
    bits; cast by value (RNE) for these tests (reported for translator/harness/interp_numerics.py)."""
    import numpy as np
    from triton.runtime import interpreter as I
    from translator.harness import interp_numerics
    interp_numerics.install()
    import triton.language as tl
    for meth in ("create_si_to_fp", "create_ui_to_fp"):
        orig = getattr(I.InterpreterBuilder, meth)

        def conv(self, src, dst_type, _orig=orig):
            if dst_type == tl.bfloat16 or getattr(dst_type, "scalar", None) == tl.bfloat16:
                bits = torch.from_numpy(src.data.astype(np.float64)).to(torch.bfloat16).view(torch.int16)
                return I.TensorHandle(bits.numpy().view(np.uint16), tl.bfloat16)
            return _orig(self, src, dst_type)
        monkeypatch.setattr(I.InterpreterBuilder, meth, conv)


def test_bf16_with_int_tile_stays_bf16(tmp_path, int_to_bf16):
    mod = build("""
    @ct.kernel
    def k(x, n, o, T: ConstInt):
        ct.store(o, index=(0,), tile=ct.atan2(ct.load(x, index=(0,), shape=(T,)), ct.load(n, index=(0,), shape=(T,))))

    def run(x, n):
        o = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, o, 8))
        return o
    """, tmp_path)
    x = torch.tensor([1, -1, 2, 0.5, 3, -3, 0.25, 7], dtype=torch.bfloat16)
    n = torch.tensor([257, 3, -5, 1, 2, 2, 3, 1], dtype=torch.int32)
    out = mod.run(x, n)
    assert out.dtype == torch.bfloat16
    # cuTile converts the int tile to bf16 first: 257 -> 256
    ref = torch.atan2(x.float(), n.to(torch.bfloat16).float()).to(torch.bfloat16)
    assert torch.equal(out, ref)


def test_bf16_and_int_tiles_round_each_step_to_bf16(tmp_path, int_to_bf16):
    mod = build("""
    @ct.kernel
    def k(x, n, o, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        m = ct.load(n, index=(0,), shape=(T,))
        ct.store(o, index=(0,), tile=(t * m + m) - t)

    def run(x, n):
        o = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, o, 8))
        return o
    """, tmp_path)
    x = torch.tensor([0.8984375, -1, 2.25, 0.5, 3, -3, 0.25, 7.5], dtype=torch.bfloat16)
    n = torch.tensor([257, 3, -5, 1, 1001, 2, 3, 1], dtype=torch.int32)
    nb = n.to(torch.bfloat16)
    out = mod.run(x, n)
    # (these values tell the two apart: fp32 steps give 488 for the first element, bf16 steps 486)
    assert not torch.equal(((x.float() * n + n) - x.float()).to(torch.bfloat16), (x * nb + nb) - x)
    assert torch.equal(out, (x * nb + nb) - x)      # every step rounded to bf16


# lower/dtype_facts.py: operators that may combine bf16 with an integer go through the promotion
# helper; values of one family (one array's tiles and what is computed from them with constants,
# scalar arguments and fp32 values) keep Triton's plain operators
FAMILIES = """
def norm(t, w):
    mean = ct.sum(t, axis=0, keepdims=True) / t.shape[0]
    centered = t - mean                       # one family: plain
    return centered * w                       # two arrays: may be bf16 and int

@ct.kernel
def k(x, w, n, o, o2, eps, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    wt = ct.load(w, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    acc = ct.zeros((T,), dtype=ct.float32)
    acc = acc + t                             # fp32 wins: plain
    s = t * 2 - t                             # one family with a constant: plain
    s = s + eps                               # an unannotated scalar may be an int: promoted
    ct.store(o, index=(0,), tile=norm(t, wt) + acc * wt)
    ct.store(o2, index=(0,), tile=s + n * t)  # an int argument with a tile that may be bf16

def run(x, w, n, eps):
    o = torch.empty(x.shape, dtype=torch.float32)
    o2 = torch.empty(x.shape, dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, w, n, o, o2, eps, 8))
    return o, o2
"""


def test_operators_that_may_mix_bf16_and_int_are_promoted_others_plain(tmp_path, int_to_bf16):
    mod = build(FAMILIES, tmp_path)
    code = open(mod.__file__).read()
    body = code.split("def norm(")[1].split("def launch_k")[0]
    assert "centered = t - mean" in body and "_c2t_mul_ct(centered, w)" in body
    assert "acc = acc + t" in body and "s = t * 2 - t" in body and "s = _c2t_add_ct(s, eps)" in body
    assert "_c2t_mul_ct(acc, wt)" not in body and "_c2t_mul_ct(n, t)" in body
    x = torch.tensor([0.8984375, -1, 2.25, 0.5, 3, -3, 0.25, 7.5], dtype=torch.bfloat16)
    w = torch.tensor([257, 3, -5, 1, 1001, 2, 3, 1], dtype=torch.int32)
    o, o2 = mod.run(x, w, 257, 3)          # (an int eps: a float one is a weak scalar under the interpreter)
    wb = w.to(torch.bfloat16)
    mean = x.sum() / torch.tensor(8, dtype=torch.bfloat16)
    ref = ((x - mean) * wb).float() + x.float() * w.float()
    torch.testing.assert_close(o, ref, rtol=0, atol=0)
    s = x * 2 - x + torch.tensor(3, dtype=torch.bfloat16)     # bf16 + int32 scalar: bf16
    ref2 = (s + torch.tensor(257, dtype=torch.bfloat16) * x).float()
    torch.testing.assert_close(o2, ref2, rtol=0, atol=0)
    # the same module on fp32 and int32 arrays
    o, _ = mod.run(x.float(), w, 3, 3)
    torch.testing.assert_close(o, (x.float() - x.float().mean()) * w + x.float() * w)


def test_bf16_compared_with_int_and_where_promote_to_bf16(tmp_path, int_to_bf16):
    """Comparisons (operators and ct.equal...) and ct.where between a bf16 tile and an int one
    work in bf16 as cuTile does (Triton promoted both to fp32: 256.0 == 257 was False)."""
    mod = build("""
    @ct.kernel
    def k(x, n, o, w, T: ConstInt):
        g = ct.load(x, index=(0,), shape=(T,))
        c = ct.load(n, index=(0,), shape=(T,))
        eq = ct.astype(g == c, ct.int32) + ct.astype(ct.less_equal(c, g), ct.int32) * 10
        ct.store(o, index=(0,), tile=eq + ct.astype(g != c, ct.int32) * 100)
        ct.store(w, index=(0,), tile=ct.astype(ct.where(g > 2, c, g), ct.float32))

    def run(x, n):
        o = torch.empty(x.shape, dtype=torch.int32)
        w = torch.empty(x.shape, dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, o, w, 4))
        return o, w
    """, tmp_path)
    x = torch.tensor([256.0, 1.0, 512.0, 3.0], dtype=torch.bfloat16)
    n = torch.tensor([257, 1, 513, 4], dtype=torch.int32)
    o, w = mod.run(x, n)
    assert o.tolist() == [11, 11, 11, 100]          # 257 -> 256, 513 -> 512 in bf16
    assert w.tolist() == [256.0, 1.0, 512.0, 4.0]   # where picks the int, rounded to bf16


def test_bf16_tile_divided_by_an_int_stays_bf16(tmp_path, int_to_bf16):
    """`/` between a bf16 tile and an int32 extent divides in bf16 as cuTile does (Triton's
    promotion gave fp32: 0.1440 where cuTile gives 0.1436 for 1.0078125 / 7)."""
    mod = build("""
    @ct.kernel
    def k(x, o, T: ConstInt):
        g = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(o, index=(0,), tile=ct.astype(g / x.shape[0], ct.float32))

    def run(x):
        o = torch.empty(x.shape, dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, o, 8))
        return o
    """, tmp_path)
    x = torch.tensor([1.0078125, -3, 2.25, 0.5, 100, -7, 0.3], dtype=torch.bfloat16)     # 7 elements
    out = mod.run(x)
    ref = (x / torch.tensor(7, dtype=torch.bfloat16)).float()
    assert not torch.equal(ref, x.float() / 7)          # the data tell bf16 from fp32 division
    assert torch.equal(out, ref)


def test_resolve_by_target():
    from translator.ir import nodes as N
    from translator.lower.ops_math import resolve_by_target

    def call(**kw):
        return N.Call(func=N.Name(id="ByTarget"),
                      keywords=[N.Keyword(name=k, value=N.Const(value=v, text=repr(v))) for k, v in kw.items()])
    assert resolve_by_target(call(sm_90=4, sm_100=8, default=2)).value == 4
    assert resolve_by_target(call(sm_100=8, default=2)).value == 2
    assert resolve_by_target(call(sm_100=8)) is None
    assert resolve_by_target(call(sm_100=8, default=2), arch=100).value == 8
    with pytest.raises(ValueError):
        resolve_by_target(call(hopper=1))


def test_math_compiles_for_sm90(tmp_path, monkeypatch):
    out = compile_sm90("""
    @ct.kernel
    def k(x, y, o, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        u = ct.load(y, index=(ct.bid(0),), shape=(T,))
        r = ct.tanh(t) + ct.sinh(t) + ct.cosh(t) + ct.tan(t) + ct.atan2(t, u) + ct.pow(t, u) + t ** 7
        # (APPROX takes float32 only in cuTile: the fp16 launch computes it in float32 and casts back,
        # since its float32 result would not be implicitly cast into the fp16 array `o`)
        r = r + ct.astype(ct.tanh(ct.astype(t, ct.float32), rounding_mode=ct.RoundingMode.APPROX), t.dtype)
        for M in (ct.RoundingMode.RZ,):
            pass
        r = r + ct.add(t, u, rounding_mode=ct.RoundingMode.RZ) + ct.sub(t, u, rounding_mode=ct.RoundingMode.RM)
        r = r + ct.mul(t, u, rounding_mode=ct.RoundingMode.RP) + ct.truediv(t, u, rounding_mode=ct.RoundingMode.RZ)
        r = r + ct.sqrt(t, rounding_mode=ct.RoundingMode.RP)
        ct.store(o, index=(ct.bid(0),), tile=r)

    def run(x, y, o):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, o, 64))
        ct.launch(torch.cuda.current_stream(), (1,), k, (x.half(), y.half(), o.half(), 64))
    """.replace("        for M in (ct.RoundingMode.RZ,):\n            pass\n", ""), "run",
        "torch.rand(64), torch.rand(64), torch.empty(64)", tmp_path)
    assert out.count("OK") == 2, out


DIV_SRC = """
@ct.kernel
def k(x, y, o, T: ConstInt):
    ct.store(o, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) / ct.load(y, index=(ct.bid(0),), shape=(T,)))

def run(x, y, t=256):
    o = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.numel() // t,), k, (x, y, o, t))
    return o
"""


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16, torch.float8_e5m2])
def test_truediv_special_operands_bit_exact(tmp_path, dt):
    """fp16 and fp8 `/` send zero and infinite divisors around IEEE division (whose slow path
    halved an fp16 kernel's speed on the H200) to x * (1 / y) by bits; bf16 keeps plain div_rn. Every
    pair of the values below, signed zeros, infinities, NaN, subnormals and extremes among them,
    must give exactly the bits of torch's IEEE fp32 division rounded to the dtype."""
    from translator.harness import interp_numerics
    interp_numerics.install()                  # bf16 by value (the stock interpreter: by bits)
    fi = torch.finfo(dt)
    vals = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 3.0, -0.1, fi.max, -fi.max,
            fi.tiny, -fi.tiny, fi.tiny / 4, -fi.tiny / 4, fi.eps, 65504.0, 1e-30]
    v = torch.tensor(vals, dtype=torch.float32).to(dt)
    x, y = v.repeat_interleave(len(vals)), v.repeat(len(vals))
    pad = 256 * -(-x.numel() // 256) - x.numel()
    x, y = torch.cat([x, torch.ones(pad, dtype=dt)]), torch.cat([y, torch.ones(pad, dtype=dt)])
    out = build(DIV_SRC, tmp_path).run(x, y)
    ref = (x.float() / y.float()).to(dt)
    nan = ref.isnan()
    assert torch.equal(out.isnan(), nan)
    bits = torch.int16 if dt.itemsize == 2 else torch.int8
    assert torch.equal(out[~nan].view(bits), ref[~nan].view(bits)), \
        [(a.item(), b.item(), o.item(), r.item()) for a, b, o, r in zip(x, y, out, ref) if not (o == r or o.isnan() and r.isnan()) or (o == 0 and o.view(bits) != r.view(bits))][:8]
    # the special lanes are there (the test can fail): 1 / +-0 = +-inf, 1 / -inf = -0
    assert sorted(set(out[(x == 1) & (y == 0)].tolist())) == [-math.inf, math.inf]
    assert out[(x == 1) & (y == -math.inf)].view(bits).tolist() == [torch.tensor(-0.0, dtype=dt).view(bits).item()]
