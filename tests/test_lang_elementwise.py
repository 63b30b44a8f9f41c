"""Elementwise cuTile functions, each run under the interpreter against torch on a ragged 2-D
tile (rows and columns past the array edge), in the dtypes the function accepts."""
import math

import pytest
import torch

from kernel_util import build, compile_sm90

F, I = ("float32", "float16", "bfloat16"), ("int32", "int16")

BINARY = {   # name: (torch reference, dtypes)
    "add": (torch.add, F + I), "sub": (torch.sub, F + I), "mul": (torch.mul, F + I),
    "truediv": (lambda a, b: (a.double() / b.double()).to(a.dtype if a.is_floating_point() else torch.float32), F + I),
    "floordiv": (lambda a, b: torch.div(a, b, rounding_mode="floor"), I),
    "mod": (torch.remainder, I),
    # cuTile ignores a NaN operand by default (minNum/maxNum): fmax/fmin, not torch.maximum
    "maximum": (torch.fmax, F + I), "minimum": (torch.fmin, F + I),
    "bitwise_and": (torch.bitwise_and, I), "bitwise_or": (torch.bitwise_or, I),
    "bitwise_xor": (torch.bitwise_xor, I),
    "bitwise_lshift": (lambda a, b: a << (b.abs() % 8), I), "bitwise_rshift": (lambda a, b: a >> (b.abs() % 8), I),
    "greater": (torch.gt, F + I), "greater_equal": (torch.ge, F + I), "less": (torch.lt, F + I),
    "less_equal": (torch.le, F + I), "equal": (torch.eq, F + I), "not_equal": (torch.ne, F + I),
}
UNARY = {
    "exp": (torch.exp, F), "exp2": (torch.exp2, F), "log": (torch.log, F), "log2": (torch.log2, F),
    "sqrt": (torch.sqrt, F), "sin": (torch.sin, F), "cos": (torch.cos, F),
    "floor": (torch.floor, F), "ceil": (torch.ceil, F), "abs": (torch.abs, F + I),
    "negative": (torch.neg, F + I), "isnan": (torch.isnan, F), "bitwise_not": (torch.bitwise_not, I),
}


def _inputs(dt, positive=False):
    g = torch.Generator().manual_seed(0)
    dtype = getattr(torch, dt)
    if dtype.is_floating_point:
        a = torch.randn(5, 13, generator=g) * 3
        b = torch.randn(5, 13, generator=g) * 3
        if positive:
            a = a.abs() + 0.1
        a[0, 0] = float("nan") if not positive else a[0, 0]
        return a.to(dtype), b.to(dtype)
    a = torch.randint(-50, 50, (5, 13), generator=g, dtype=dtype)
    b = torch.randint(-9, 9, (5, 13), generator=g, dtype=dtype)
    b[b == 0] = 3
    return a, b


def _check(out, ref, dt):
    assert out.dtype == ref.dtype, (out.dtype, ref.dtype)
    if ref.dtype.is_floating_point:
        tol = {torch.float32: 2e-6, torch.float16: 1e-3, torch.bfloat16: 1e-2}[ref.dtype]
        torch.testing.assert_close(out, ref, rtol=tol, atol=tol, equal_nan=True)
    else:
        assert torch.equal(out, ref)


_KERNEL = """
@ct.kernel
def k(a, b, out, TM: ConstInt, TN: ConstInt):
    x = ct.load(a, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ONE_OR_ZERO)
    y = ct.load(b, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ONE_OR_ZERO)
    ct.store(out, index=(0, 0), tile=EXPR)

def run(a, b, out):
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, out, 8, 16))
    return out
"""


@pytest.fixture(scope="module", autouse=True)
def _bf16():
    from translator.harness import interp_numerics
    interp_numerics.install()


@pytest.mark.parametrize("name,dt", [(n, d) for n, (_, ds) in BINARY.items() for d in ds])
def test_binary(name, dt, tmp_path):
    ref_fn, _ = BINARY[name]
    mod = build(_KERNEL.replace("EXPR", f"ct.{name}(x, y)").replace("ONE_OR_ZERO", "ZERO"), tmp_path)
    a, b = _inputs(dt)
    if name.startswith("bitwise_") and "shift" in name:
        b = b.abs() % 8
    ref = ref_fn(a, b)
    out = mod.run(a, b, torch.empty(ref.shape, dtype=ref.dtype))
    _check(out, ref, dt)


@pytest.mark.parametrize("name,dt", [(n, d) for n, (_, ds) in UNARY.items() for d in ds])
def test_unary(name, dt, tmp_path):
    ref_fn, _ = UNARY[name]
    mod = build(_KERNEL.replace("EXPR", f"ct.{name}(x)").replace("ONE_OR_ZERO", "ZERO"), tmp_path)
    a, b = _inputs(dt, positive=name in ("log", "log2", "sqrt"))
    ref = ref_fn(a)
    out = mod.run(a, b, torch.empty(ref.shape, dtype=ref.dtype))
    _check(out, ref, dt)


def test_pow_small_integer_exponent_bitcast_ones_broadcast_expand_matmul(tmp_path):
    mod = build("""
    @ct.kernel
    def k(a, b, out, bits, T: ConstInt):
        x = ct.load(a, index=(0, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(0, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
        row = ct.expand_dims(ct.sum(x, axis=1), 1)                   # (T, 1)
        z = ct.pow(x, 2) + ct.broadcast_to(row, (T, T)) + ct.ones((T, T), dtype=ct.float32)
        ct.store(out, index=(0, 0), tile=z + ct.matmul(x, y))
        ct.store(bits, index=(0, 0), tile=ct.bitcast(x, ct.int32))

    def run(a, b):
        out = torch.empty_like(a)
        bits = torch.empty(a.shape, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, out, bits, 16))
        return out, bits
    """, tmp_path)
    a, b = torch.randn(16, 16), torch.randn(16, 16)
    out, bits = mod.run(a, b)
    ref = a * a + a.sum(1, keepdim=True) + 1 + (a.double() @ b.double()).float()
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-4)
    assert torch.equal(bits, a.view(torch.int32))


# ct.maximum / ct.minimum keep cuTile's dtype (found by the differential fuzzer,
# docs/fuzz-2026-12-02.md): tl.maximum computes bf16 in fp32 and returns fp32 (a bf16 accumulator
# carried through a loop changed type: "Loop-carried variable acc ... bf16 ... re-assigned to fp32"),
# and turns a literal into an int32/fp32 tensor (int16 with 1 gave int32, so ct.cat of that with an
# int16 tile failed: "'tt.join' op requires all operands to have the same type").
_MINMAX_DTYPES = """
@ct.kernel
def k(x, o, n, oc):
    acc = ct.full((2, 4), -100, dtype=x.dtype)
    low = ct.full((2, 4), 100, dtype=x.dtype)
    for i in range(n):
        t = ct.load(x, index=(i, 0), shape=(2, 4))
        acc = ct.maximum(acc, t)
        low = ct.minimum(t, low)
    ct.store(o, index=(0, 0), tile=acc - low)
    t = ct.load(x, index=(0, 0), shape=(2, 4))
    w = ct.maximum(t, 1) - ct.minimum(2, t)
    ct.store(oc, index=(0, 0), tile=ct.cat((w, t), axis=0))

def run(x):
    o = torch.zeros((2, 4), dtype=x.dtype, device=x.device)
    oc = torch.zeros((4, 4), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, o, 3, oc))
    return o, oc
"""


@pytest.mark.parametrize("dt", [torch.bfloat16, torch.float16, torch.int16, torch.int8, torch.float32])
def test_maximum_minimum_keep_the_cutile_dtype_interp(tmp_path, dt):
    m = build(_MINMAX_DTYPES, tmp_path)
    x = torch.randint(-4, 5, (6, 4), generator=torch.Generator().manual_seed(2)).to(dt)
    o, oc = m.run(x)
    xs = x.reshape(3, 2, 4).float()
    assert torch.equal(o.float(), xs.amax(0) - xs.amin(0))
    t = x[:2].float()
    assert torch.equal(oc.float(), torch.cat([t.clamp(min=1) - t.clamp(max=2), t]))


@pytest.mark.parametrize("dt", ["bfloat16", "float16", "int16"])
def test_maximum_minimum_keep_the_cutile_dtype_compile_sm90(tmp_path, dt):
    out = compile_sm90(_MINMAX_DTYPES, "run", f"torch.zeros(6, 4, dtype=torch.{dt}),", tmp_path)
    assert "OK k" in out
