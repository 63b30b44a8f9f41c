"""ct.prod, ct.cumsum, ct.cumprod, ct.reduce and ct.scan, run under the interpreter against torch
on ragged tiles (a 5x13 array loaded as an 8x16 tile), in several dtypes."""
import inspect
import textwrap

import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate
from translator.harness import interp_numerics

interp_numerics.install()

M, N = 5, 13          # array extent
TM, TN = 8, 16        # tile extent (rows and columns past the array edge are padding)

# loads x (5x13) as an 8x16 tile; lanes past the edge are set to `FILL` (the reduction's identity)
LOAD = """
    t = ct.load(x, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    inb = (ct.arange(TM, dtype=ct.int32)[:, None] < x.shape[0]) & (ct.arange(TN, dtype=ct.int32)[None, :] < x.shape[1])
    # (the fill goes through a float32 tile: the interpreter cannot make bf16 constants, and its
    # int -> bf16 casts are wrong even with interp_numerics)
    t = ct.where(inb, t, ct.astype(ct.full((TM, TN), FILL, dtype=ct.float32), t.dtype))
"""


def _kernel(body, fill=0, extra_params=""):
    code = inspect.cleandoc(LOAD).replace("FILL", str(fill)) + "\n" + inspect.cleandoc(body)
    return ("import operator\n\n@ct.kernel\n"
            f"def k(x, y, TM: ConstInt, TN: ConstInt{extra_params}):\n" + textwrap.indent(code, "    ") + "\n")


def _run(mod, x, out_shape, out_dtype, *extra):
    y = torch.full(out_shape, -77, dtype=out_dtype)
    mod.launch_k((1,), x, y, TM, TN, *extra)      # the launcher expands the arrays
    return y


def _data(dt, lo=-3, hi=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    dtype = getattr(torch, dt)
    if dtype.is_floating_point:
        return (torch.rand(M, N, generator=g) * (hi - lo) + lo).to(dtype)
    return torch.randint(lo, hi + 1, (M, N), generator=g, dtype=dtype)


def _close(out, ref, tol):
    assert out.dtype == ref.dtype
    if ref.dtype.is_floating_point:
        torch.testing.assert_close(out.float(), ref.float(), rtol=tol, atol=tol, equal_nan=True)
    else:
        assert torch.equal(out, ref), (out, ref)


TOL = {"float32": 1e-5, "float16": 2e-2, "bfloat16": 5e-2, "int32": 0, "int16": 0, "int8": 0}


# ---------------------------------------------------------------------------------------- prod
@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32", "int16"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_prod_keeps_dtype_along_an_axis(tmp_path, dt, axis):
    mod = build(_kernel(f"ct.store(y, index=(0,), tile=ct.prod(t, axis={axis}))", fill=1), tmp_path)
    lo, hi = (0.8, 1.25) if dt.startswith(("float", "bfloat")) else (-9, 9)
    x = _data(dt, lo, hi)
    dtype = x.dtype
    # int16 products of 5-13 factors up to 9 overflow: cuTile wraps in the input dtype
    ref = x.double().prod(dim=axis) if dtype.is_floating_point else x.long().prod(dim=axis)
    ref = ref.to(dtype)
    n = M if axis != 0 else N        # the output array is ragged too: the store drops the padding
    y = _run(mod, x, (n,), dtype)
    _close(y, ref, TOL[dt])


def test_prod_int16_wraps_in_int16(tmp_path):
    # the product is stored through a float32 array: an int32 result would show the big value
    mod = build(_kernel("ct.store(y, index=(0,), tile=ct.astype(ct.prod(t, axis=1), ct.float32))", fill=1),
                tmp_path)
    x = torch.full((M, N), 7, dtype=torch.int16)
    y = _run(mod, x, (TM,), torch.float32)
    assert y[:M].tolist() == [float(torch.tensor(7 ** 13).to(torch.int16))] * M


@pytest.mark.parametrize("dt", ["float32", "bfloat16", "int32"])
def test_prod_tuple_axes_none_and_keepdims(tmp_path, dt):
    mod = build(_kernel("""
        a = ct.prod(t, axis=(0, 1))
        b = ct.prod(t)
        c = ct.prod(t, axis=(-1, -2), keepdims=True)
        d = ct.prod(t, axis=None, keepdims=True)
        e = ct.prod(t, 0, keepdims=True)
        ct.scatter(y, 0, a)
        ct.scatter(y, 1, b)
        ct.scatter(y, 2, ct.reshape(c, ()))
        ct.scatter(y, 3, ct.reshape(d, ()))
        ct.scatter(y, 4, ct.sum(ct.reshape(e, (TN,)), 0) - ct.sum(ct.prod(t, 0)))
    """, fill=1), tmp_path)
    lo, hi = (0.9, 1.1) if dt != "int32" else (-2, 2)
    x = _data(dt, lo, hi)
    y = _run(mod, x, (5,), x.dtype)
    ref = x.double().prod() if x.is_floating_point() else x.long().prod()
    _close(y[:4], ref.to(x.dtype).repeat(4), TOL[dt] * 4)
    assert y[4] == 0


def test_prod_of_bool_is_int32(tmp_path):
    mod = build(_kernel("""
        p = ct.prod(t > 0, axis=1)
        ct.store(y, index=(0,), tile=ct.bitcast(p, ct.float32))
    """, fill=1), tmp_path)
    x = _data("int32", -1, 6)
    y = _run(mod, x, (TM,), torch.float32)
    assert torch.equal(y.view(torch.int32)[:M], (x > 0).all(dim=1).int())


# ---------------------------------------------------------------------------------------- cumsum / cumprod
@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32", "int8"])
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, False), (1, True), (-2, True)])
def test_cumsum(tmp_path, dt, axis, reverse):
    mod = build(_kernel(f"ct.store(y, index=(0, 0), tile=ct.cumsum(t, {axis}, reverse={reverse}))"), tmp_path)
    x = _data(dt, -40, 40) if dt == "int8" else _data(dt)
    y = _run(mod, x, (M, N), x.dtype)
    xs = x.flip(axis) if reverse else x
    ref = xs.double().cumsum(axis) if x.is_floating_point() else xs.long().cumsum(axis)
    ref = ref.flip(axis) if reverse else ref
    _close(y, ref.to(x.dtype), {"float16": 2e-2, "bfloat16": 8e-2}.get(dt, 1e-5))


def test_cumsum_keeps_narrow_dtypes(tmp_path):
    # int8 wraps (a widened int32 result would never be negative here), bf16 stays 16-bit (bitcast)
    mod = build("""
    @ct.kernel
    def k(x, b, y, z, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        c = ct.cumsum(t)
        ct.store(y, index=(0,), tile=ct.where(c < 0, 1, 0))
        h = ct.cumsum(ct.load(b, index=(0,), shape=(T,)), 0, reverse=True)
        ct.store(z, index=(0,), tile=ct.bitcast(h, ct.int16))

    def run(x, b):
        y = torch.zeros(16, dtype=torch.int32)
        z = torch.zeros(16, dtype=torch.int16)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, b, y, z, 16))
        return y, z
    """, tmp_path)
    x = torch.full((16,), 100, dtype=torch.int8)
    b = torch.linspace(-2, 3, 16).to(torch.bfloat16)
    y, z = mod.run(x, b)
    assert y.tolist() == [int(v < 0) for v in torch.arange(1, 17).mul(100).to(torch.int8).tolist()]
    ref = b.double().flip(0).cumsum(0).flip(0)
    torch.testing.assert_close(z.view(torch.bfloat16).double(), ref, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32"])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod(tmp_path, dt, reverse):
    mod = build(_kernel(f"ct.store(y, index=(0, 0), tile=ct.cumprod(t, axis=1, reverse={reverse}))", fill=1),
                tmp_path)
    x = _data(dt, -2, 2) if dt == "int32" else _data(dt, 0.8, 1.25)
    y = _run(mod, x, (TM, TN), x.dtype)
    xs = x.flip(1) if reverse else x
    ref = xs.double().cumprod(1) if x.is_floating_point() else xs.long().cumprod(1)
    ref = ref.flip(1) if reverse else ref
    _close(y[:M, :N], ref.to(x.dtype), {"float16": 2e-2, "bfloat16": 8e-2}.get(dt, 1e-5))


def test_cumsum_of_bool_is_int32(tmp_path):
    mod = build(_kernel("ct.store(y, index=(0, 0), tile=ct.bitcast(ct.cumsum(t > 0, axis=1), ct.float32))"),
                tmp_path)
    x = _data("int32", -3, 3)
    y = _run(mod, x, (TM, TN), torch.float32)
    assert torch.equal(y.view(torch.int32)[:M, :N], (x > 0).int().cumsum(1).int())


# ---------------------------------------------------------------------------------------- ct.reduce
FUNCS = {   # combine function source -> (identity, fill, torch reference over an axis)
    "lambda a, b: a + b": ("0", 0, lambda x, d: x.double().sum(d) if x.is_floating_point() else x.long().sum(d)),
    "operator.add": ("0", 0, lambda x, d: x.double().sum(d) if x.is_floating_point() else x.long().sum(d)),
    "operator.mul": ("1", 1, lambda x, d: x.double().prod(d) if x.is_floating_point() else x.long().prod(d)),
    "max": ("-1000", -1000, lambda x, d: x.amax(d)),
    "min": ("1000", 1000, lambda x, d: x.amin(d)),
    "ct.maximum": ("-1000", -1000, lambda x, d: x.amax(d)),
    "lambda u, v: ct.minimum(u, v)": ("1000", 1000, lambda x, d: x.amin(d)),
    "_mymax": ("-1000", -1000, lambda x, d: x.amax(d)),
}
HELPER = """
def _mymax(a, b):
    return ct.where(a > b, a, b)
"""


@pytest.mark.parametrize("func", list(FUNCS))
@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32"])
def test_reduce_with_combine_functions(tmp_path, func, dt):
    ident, fill, ref_fn = FUNCS[func]
    src = _kernel(f"ct.store(y, index=(0,), tile=ct.reduce(t, 1, {func}, {ident}))", fill=fill)
    mod = build(HELPER + src if func == "_mymax" else src, tmp_path)
    lo, hi = (0.8, 1.25) if func == "operator.mul" and dt != "int32" else (-3, 3)
    x = _data(dt, lo, hi)
    ref = ref_fn(x, 1).to(x.dtype)
    y = _run(mod, x, (TM,), x.dtype)
    _close(y[:M], ref, TOL[dt] * 2)


@pytest.mark.parametrize("keep", [False, True])
def test_reduce_axis0_keepdims_and_negative_axis(tmp_path, keep):
    mod = build(_kernel(f"""
        r = ct.reduce(t, -2, lambda a, b: a + b, 0, keepdims={keep})
        ct.store(y, index=(0, 0), tile=ct.reshape(r, (1, TN)))
    """), tmp_path)
    x = _data("float32")
    y = _run(mod, x, (1, TN), torch.float32)
    torch.testing.assert_close(y[0, :N], x.sum(0))


def test_reduce_ignores_the_identity_value(tmp_path):
    # max-reduce of all-negative data with identity -inf or 0.0 ... the identity is only a
    # property of `func`: cuTile's result does not contain it, and neither does ours
    mod = build(_kernel("""
        ct.store(y, index=(0, 0), tile=ct.reshape(ct.reduce(t, 1, max, -math.inf), (TM, 1)))
    """, fill=-1000), tmp_path)
    x = _data("float32", -9, -1)
    y = _run(mod, x, (TM, 1), torch.float32)
    assert torch.equal(y[:M, 0], x.amax(1))
    assert "inf" not in translate(_kernel("ct.store(y, index=(0,), tile=ct.reduce(t, 1, max, -math.inf))",
                                          fill=-1000)).code.split("def k(")[1]


def test_reduce_closure_captures_runtime_scalar_and_constant(tmp_path):
    # combine a*(s) + b*(T) is not associative, so only s = T = 1 -> weighted sum is exact; use a
    # max with an offset instead: max(a, b + s - s) reads both captures and stays associative
    mod = build(_kernel("""
        big = s * 0 + TN
        r = ct.reduce(t, 1, lambda a, b: ct.maximum(a, b) + (s - s) + (TN - big), 0)
        ct.store(y, index=(0,), tile=r)
    """, fill=-1000, extra_params=", s"), tmp_path)
    x = _data("int32", -50, 50)
    y = _run(mod, x, (TM,), torch.int32, 3)
    assert torch.equal(y[:M], x.amax(1))
    code = translate(_kernel("r = ct.reduce(t, 1, lambda a, b: a * s + b * TN, 0)\nct.store(y, index=(0,), tile=r)",
                             extra_params=", s")).code
    assert "_c2t_splat_like(c0, x0)" in code and "_c2t_splat_like(c1, x0)" in code


def test_reduce_closure_with_runtime_weight(tmp_path):
    # sum of s*a: combine(a, b) = a + b where the inputs were scaled by s; the capture s is used to
    # scale inside the combine only through an exact identity (a + b) * s // s for ints
    mod = build(_kernel("""
        r = ct.reduce(t * s, 1, lambda a, b: (a + b) * s // s, 0)
        ct.store(y, index=(0,), tile=r)
    """, extra_params=", s"), tmp_path)
    x = _data("int32", -5, 5)
    y = _run(mod, x, (TM,), torch.int32, 3)
    assert torch.equal(y[:M], (x * 3).sum(1).int())


@pytest.mark.parametrize("dt", ["float32", "float16", "int32"])
def test_reduce_tuple_inputs_argmax(tmp_path, dt):
    # (value, index) pairs: the largest value, ties to the smallest index; the index tile is
    # (1, TN) and is broadcast against the (TM, TN) values, as cuTile does
    mod = build(_kernel("""
        idx = ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN))
        v, i = ct.reduce((t, idx), 1,
                         lambda a, ia, b, ib: (ct.where((a > b) | ((a == b) & (ia < ib)), a, b),
                                               ct.where((a > b) | ((a == b) & (ia < ib)), ia, ib)),
                         (-1000, 0))
        ct.store(y, index=(0,), tile=i)
    """, fill=-1000), tmp_path)
    x = _data(dt, -3, 3)
    y = _run(mod, x, (TM,), torch.int32)
    vals = x.float()
    ref = torch.tensor([int((vals[r] == vals[r].max()).nonzero()[0]) for r in range(M)], dtype=torch.int32)
    assert torch.equal(y[:M], ref)


def test_reduce_tuple_results_cast_back_to_input_dtypes(tmp_path):
    # the combine returns a+b (int32 + float constant would widen in Triton) - cuTile casts the
    # results to the input dtypes; int16 + int16 sums wrap
    mod = build(_kernel("""
        a16 = ct.astype(t, ct.int16)
        s16, mx = ct.reduce((a16, t), 1, lambda p, q, r, u: (p + r, max(q, u)), (0, -1000))
        ct.store(y, index=(0,), tile=ct.astype(ct.where(s16 < 0, 1, 0), ct.int32) * 1000 + mx)
    """, fill=0), tmp_path)
    x = torch.full((M, N), 3000, dtype=torch.int32)
    x[:, 0] = torch.arange(M)
    y = _run(mod, x, (TM,), torch.int32)
    s16 = x.long().sum(1).to(torch.int16)
    assert torch.equal(y[:M], (s16 < 0).int() * 1000 + x.amax(1))


# ---------------------------------------------------------------------------------------- ct.scan
@pytest.mark.parametrize("dt", ["float32", "bfloat16", "int32"])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_running_max(tmp_path, dt, reverse):
    mod = build(_kernel(f"ct.store(y, index=(0, 0), tile=ct.scan(t, 1, max, -1000, reverse={reverse}))",
                        fill=-1000), tmp_path)
    x = _data(dt, -9, 9)
    y = _run(mod, x, (TM, TN), x.dtype)
    xs = x.flip(1) if reverse else x
    ref = xs.float().cummax(1).values.to(x.dtype)
    ref = ref.flip(1) if reverse else ref
    assert torch.equal(y[:M, :N], ref)


def test_scan_lambda_axis0_and_operator(tmp_path):
    mod = build(_kernel("""
        a = ct.scan(t, 0, lambda p, q: p + q, 0)
        b = ct.scan(t, axis=0, func=operator.add, identity=0, reverse=True)
        ct.store(y, index=(0, 0), tile=a * 1000 + b)
    """), tmp_path)
    x = _data("int32", -9, 9)
    y = _run(mod, x, (TM, TN), torch.int32)
    ref = x.cumsum(0) * 1000 + x.flip(0).cumsum(0).flip(0)
    assert torch.equal(y[:M, :N], ref.int())


def test_scan_tuple_inputs(tmp_path):
    # running (sum, count of positives) in one scan over two tiles
    mod = build(_kernel("""
        pos = ct.astype(t > 0, ct.int32)
        s, c = ct.scan((t, pos), 1, lambda a, na, b, nb: (a + b, na + nb), (0, 0))
        ct.store(y, index=(0, 0), tile=s * 100 + c)
    """), tmp_path)
    x = _data("int32", -9, 9)
    y = _run(mod, x, (TM, TN), torch.int32)
    assert torch.equal(y[:M, :N], (x.cumsum(1) * 100 + (x > 0).int().cumsum(1)).int())


# ---------------------------------------------------------------------------------------- nested defs
def test_reduce_and_scan_with_nested_defs(tmp_path):
    mod = build(_kernel("""
        def comb(a, b):
            # keep the larger absolute value
            m = ct.where(ct.abs(a) >= ct.abs(b), a, b)
            return m

        def pair(a, ia, b, ib):
            return a + b, ia + ib + off

        off = TM - TM
        r = ct.reduce(t, 1, comb, 0)
        s, _ = ct.scan((t, t), 1, pair, (0, 0))
        ct.store(y, index=(0, 0), tile=s + ct.reshape(r, (TM, 1)) * 0)
        ct.store(y, index=(0, TN - 1), tile=ct.reshape(r, (TM, 1)))
    """), tmp_path)
    x = _data("int32", -9, 9)
    y = _run(mod, x, (TM, TN + TN - 1), torch.int32)
    assert torch.equal(y[:M, :N], x.cumsum(1).int())
    ref = torch.tensor([int(r[r.abs().argmax()]) for r in x], dtype=torch.int32)
    got = y[:M, TN - 1]
    assert torch.equal(got.abs(), ref.abs())


# ---------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("expr,code", [
    # (cuTile's own refusals: translated to fail with its error when compiled, noted C2T218;
    # flush_to_zero on float32 is dropped with a note, RZ/RM/RP translated: test_lang_reduce_modes.py)
    ("ct.prod(t, 1, flush_to_zero=True)", "C2T203"),
    ("ct.prod(t, 1, rounding_mode=ct.RoundingMode.APPROX)", "C2T218"),
    ("ct.prod(t, 1, rounding_mode=t)", "C2T105"),
    ("ct.cumsum(t, axis=(0, 1))", "C2T106"),
    ("ct.cumsum(t, axis=ct.bid(0))", "C2T105"),
    ("ct.prod(t, axis=(1, 1))", "C2T218"),
    ("ct.prod(t, axis=(1, 2))", "C2T106"),
    ("ct.reduce(t, (0, 1), max, 0)", "C2T106"),
    ("ct.reduce(t, 1, operator.matmul, 0)", "C2T106"),
    ("ct.reduce(t, 1, lambda a, b, c: a, 0)", "C2T109"),
    ("ct.reduce(t, 1, lambda a, b: a + b * t, 0)", "C2T101"),
    ("ct.reduce((t, t), 1, max, (0, 0))", "C2T109"),
    ("ct.reduce((t, t), 1, lambda a, b, c, d: (a, b), 0)", "C2T106"),
    ("ct.scan(t, 1, lambda a, b: a + b, ct.bid(0))", "C2T105"),
    ("ct.reduce(t, 1, lambda a, b: a + b)", "C2T109"),
])
def test_refusals(expr, code):
    assert code in codes(_kernel(f"r = {expr}\nct.store(y, index=(0,), tile=r)"))


# ---------------------------------------------------------------------------------------- sm_90
def test_reductions_and_scans_compile_for_sm90(tmp_path):
    src = """
    import operator

    @ct.kernel
    def k(x, y, z, s, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
        p = ct.prod(t, axis=(0, 1))
        c = ct.cumsum(ct.astype(t, ct.bfloat16), 1, reverse=True)
        q = ct.cumprod(ct.astype(t, ct.int8), 0)
        idx = ct.reshape(ct.arange(T, dtype=ct.int32), (1, T))
        v, i = ct.reduce((t, idx), 1, lambda a, ia, b, ib: (ct.where(a >= b, a, b), ct.where(a >= b, ia, ib)),
                         (-math.inf, 0))
        m = ct.scan(t, 0, lambda a, b: ct.maximum(a, b) + (s - s), 0.0)
        r = ct.reduce(t, 0, operator.add, 0, keepdims=True)
        ct.store(y, index=(ct.bid(0), 0), tile=ct.astype(c, ct.float32) + ct.astype(q, ct.float32) + m + r + p)
        ct.store(z, index=(ct.bid(0),), tile=i)

    def run(x):
        y = torch.empty_like(x)
        z = torch.empty(x.shape[0], dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, z, 2.0, 16))
        return y
    """
    out = compile_sm90(src, "run", "(torch.randn(20, 16),)", tmp_path)
    assert out.startswith("OK k ptx=")


MODULE_DEF_COMBINE = """
import math

def argmin_combine(v1, i1, v2, i2):
    take2 = (v2 < v1) | ((v2 == v1) & (i2 < i1))
    return ct.where(take2, v2, v1), ct.where(take2, i2, i1)

def lin_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2          # h = a * h + b, composed

@ct.kernel
def k(x, a, b, o_v, o_i, h, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.POS_INF)
    v, i = ct.reduce((t, ct.arange(T, dtype=ct.int32)), 0, argmin_combine, (math.inf, 2 ** 30))
    ct.scatter(o_v, 0, v)
    ct.scatter(o_i, 0, i)
    ta = ct.load(a, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    _, hs = ct.scan((ta, tb), 0, lin_combine, (1.0, 0.0))
    ct.store(h, index=(0,), tile=hs)

def run(x, a, b):
    o_v, o_i, h = torch.empty(1), torch.empty(1, dtype=torch.int32), torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, a, b, o_v, o_i, h, 8))
    return o_v, o_i, h
"""


def test_reduce_and_scan_over_tuples_with_a_module_level_def(tmp_path):
    """A module-level def as the combine function of a tuple reduce/scan (cuTile accepts it):
    was refused ("with 2 input tiles `func` must take 4 arguments"), with a C2T210 note
    saying nothing calls the function."""
    res = translate(MODULE_DEF_COMBINE)
    assert res.ok and not [d for d in res.diagnostics if d.code == "C2T210"], [d.format() for d in res.diagnostics]
    mod = build(MODULE_DEF_COMBINE, tmp_path)
    x = torch.tensor([3.0, 1.0, 2.0, 1.0, 5.0])
    a, b = torch.full((6,), 0.5), torch.ones(6)
    v, i, h = mod.run(x, a, b)
    assert v.item() == 1.0 and i.item() == 1                   # ties: the lowest index
    ref, acc = [], 0.0
    for k in range(6):
        acc = 0.5 * acc + 1.0
        ref.append(acc)
    torch.testing.assert_close(h, torch.tensor(ref))
