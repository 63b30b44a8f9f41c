"""Reductions over several axes given as Constant parameters, argmax/argmin and prod over all axes
with a Constant keepdims, and the rounding_mode / flush_to_zero arguments of ct.sum, ct.prod,
ct.max, ct.min, ct.cumsum and ct.cumprod (directed roundings lowered, cuTile's refusals raised
when the kernel compiles), under the interpreter against torch; and the same kernels compiled for
sm_90."""
import pytest
import torch

from kernel_util import build, compile_sm90
from translator.harness import interp_numerics

interp_numerics.install()


def _cutile_message(exc):
    """The 'cuTile <class>: <message>' a translated kernel's compile-time check raised, else None."""
    found = None
    while exc is not None:
        text = str(exc)
        if "cuTile Tile" in text:
            found = text[text.index("cuTile Tile"):].split("\n")[0]
        exc = exc.__cause__ or exc.__context__
    return found


def _fails_with(fn, *args) -> str:
    with pytest.raises(Exception) as ei:
        fn(*args)
    msg = _cutile_message(ei.value)
    assert msg is not None, ei.value
    return msg


# ------------------------------------------------------------------ several axes, Constant parameters
AXES_SRC = """
@ct.kernel
def k(x, y, A1: ConstInt, A2: ConstInt, KEEP: ct.Constant[bool]):
    t = ct.load(x, index=(0, 0, 0), shape=(4, 8, 16))
    r = ct.OP(t, axis=(A1, A2), keepdims=KEEP)
    if KEEP:
        ct.store(y, index=(0, 0, 0), tile=r)
    else:
        ct.store(y, index=(0,), tile=r)

@ct.kernel
def k2(x, y, A1: ConstInt, A2: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(8, 16))
    r = ct.OP(t, axis=(A1, A2))
    ct.store(y, index=(0, 0), tile=ct.full((1, 1), r.item(), dtype=r.dtype))

@ct.kernel
def lit(x, y):
    t = ct.load(x, index=(0, 0, 0), shape=(4, 8, 16))
    ct.store(y, index=(0,), tile=ct.OP(t, axis=(-1, -2)))
"""
TORCH_OP = {"sum": lambda x, d, k: x.sum(d, keepdim=k), "max": lambda x, d, k: x.amax(d, keepdim=k),
            "min": lambda x, d, k: x.amin(d, keepdim=k), "prod": lambda x, d, k: x.prod(d[1], keepdim=k).prod(d[0], keepdim=k)}


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("axes", [(1, 2), (-1, -2), (-2, 2), (2, 0)])
@pytest.mark.parametrize("keep", [False, True])
def test_two_constant_axes(tmp_path, op, axes, keep):
    m = build(AXES_SRC.replace("OP", op), tmp_path)
    x = torch.rand(4, 8, 16) + 0.5
    norm = sorted(a % 3 for a in axes)
    ref = TORCH_OP[op](x, norm, keep)
    y = torch.zeros(ref.shape)
    m.launch_k((1,), x, y, axes[0], axes[1], keep)
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "max", "prod"])
def test_two_constant_axes_of_a_2d_tile_and_literal_negative_axes(tmp_path, op):
    m = build(AXES_SRC.replace("OP", op), tmp_path)
    x = torch.rand(8, 16) + 0.5
    y = torch.zeros(1, 1)
    m.launch_k2((1,), x, y, -1, 0)
    ref = {"sum": x.sum(), "max": x.max(), "prod": x.prod()}[op]
    torch.testing.assert_close(y[0, 0], ref, rtol=1e-5, atol=1e-5)
    x3 = torch.rand(4, 8, 16) + 0.5
    y3 = torch.zeros(4)
    m.launch_lit((1,), x3, y3)
    torch.testing.assert_close(y3, TORCH_OP[op](x3, [1, 2], False), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_repeated_or_out_of_range_constant_axes_fail_as_cutile(tmp_path, op):
    m = build(AXES_SRC.replace("OP", op), tmp_path)
    x = torch.rand(8, 16)
    y = torch.zeros(1, 1)
    assert _fails_with(m.launch_k2, (1,), x, y, 1, -1) == "cuTile TileTypeError: Repeated reduction axis 1"
    assert _fails_with(m.launch_k2, (1,), x, y, 0, 2) == "cuTile TileTypeError: Axis 2 is out of range for rank 2"


def test_repeated_literal_axes_fail_as_cutile(tmp_path):
    m = build("""
    @ct.kernel
    def k(x, y):
        t = ct.load(x, index=(0, 0), shape=(8, 8))
        ct.store(y, index=(0,), tile=ct.sum(t, axis=(1, 1)))
    """, tmp_path)
    assert _fails_with(m.launch_k, (1,), torch.rand(8, 8), torch.zeros(8)) == \
        "cuTile TileTypeError: Repeated reduction axis 1"


# ------------------------------------------------------------------ all axes, Constant keepdims
ALL_SRC = """
@ct.kernel
def k(x, y, KEEP: ct.Constant[bool]):
    t = ct.load(x, index=SHAPE0, shape=SHAPE)
    if KEEP:
        r = ct.OP(t, axis=None, keepdims=KEEP)
    else:
        r = ct.OP(t, axis=None, keepdims=KEEP)
        r = ct.full(ONES, r.item(), dtype=r.dtype)
    ct.store(y, index=SHAPE0, tile=r)
"""


@pytest.mark.parametrize("op", ["argmax", "argmin", "prod", "sum"])
@pytest.mark.parametrize("shape", [(4, 8), (2, 4, 8)])
@pytest.mark.parametrize("keep", [True, False])
def test_all_axes_with_constant_keepdims(tmp_path, op, shape, keep):
    n = len(shape)
    src = (ALL_SRC.replace("OP", op).replace("SHAPE0", str((0,) * n)).replace("SHAPE", str(shape))
           .replace("ONES", str((1,) * n)))
    m = build(src, tmp_path)
    x = torch.rand(shape) + 0.5
    arg = op.startswith("arg")
    y = torch.zeros((1,) * n, dtype=torch.int32 if arg else torch.float32)
    m.launch_k((1,), x, y, keep)
    ref = {"argmax": x.argmax(), "argmin": x.argmin(), "prod": x.prod(), "sum": x.sum()}[op]
    torch.testing.assert_close(y.reshape(()), ref.to(y.dtype), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ rounding modes
MODE_SRC = """
@ct.kernel
def red(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 64))
    ct.store(y, index=(0, 0), tile=ct.OP(t, axis=1, keepdims=True, rounding_mode=ct.RoundingMode.MODE))

@ct.kernel
def red_all(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 64))
    ct.store(y, index=(0, 0), tile=ct.OP(t, axis=(0, 1), keepdims=True, rounding_mode=ct.RoundingMode.MODE))

@ct.kernel
def scan(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 64))
    ct.store(y, index=(0, 0), tile=ct.CUM(t, axis=1, rounding_mode=ct.RoundingMode.MODE))
"""
CUM = {"sum": "cumsum", "prod": "cumprod"}


def _mode_run(tmp_path, op, mode, x, form):
    m = build(MODE_SRC.replace("CUM", CUM[op]).replace("OP", op).replace("MODE", mode), tmp_path)
    y = torch.zeros((4, 64) if form == "scan" else (4, 1) if form == "red" else (1, 1), dtype=x.dtype)
    getattr(m, f"launch_{form}")((1,), x, y)
    return y


def _exact(op, x, form):
    xd = x.double()
    if form == "scan":
        return xd.cumsum(1) if op == "sum" else xd.cumprod(1)
    if form == "red":
        return xd.sum(1, keepdim=True) if op == "sum" else xd.prod(1, keepdim=True)
    return (xd.sum() if op == "sum" else xd.prod()).reshape(1, 1)


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("dt", ["float32", "float16"])
@pytest.mark.parametrize("form", ["red", "red_all", "scan"])
def test_directed_roundings_bracket_the_exact_result(tmp_path, op, dt, form):
    """Every step rounded down (RM) gives at most the exact result, up (RP) at least; toward zero
    (RZ) of positive numbers at most; the three differ from the exact result by a few ulps per step."""
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(4, 64, generator=g) * 0.06 + 0.97).to(getattr(torch, dt))   # products stay finite
    exact = _exact(op, x, form)
    lo = _mode_run(tmp_path, op, "RM", x, form).double()
    hi = _mode_run(tmp_path, op, "RP", x, form).double()
    rz = _mode_run(tmp_path, op, "RZ", x, form).double()
    assert (lo <= exact).all() and (hi >= exact).all() and (rz <= exact).all()
    assert (lo < hi).any()          # the steps were inexact: the modes differ
    eps = {"float32": 2.0 ** -23, "float16": 2.0 ** -10}[dt]
    tol = exact.abs() * eps * 300
    assert ((hi - lo) <= tol).all(), (hi - lo).max()


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("mode", ["RZ", "RM", "RP"])
def test_directed_roundings_of_exact_steps_are_exact(tmp_path, op, mode):
    x = torch.randint(-3, 4, (4, 64), generator=torch.Generator().manual_seed(2)).float()
    if op == "prod":
        x = torch.where(x == 0, 1.0, x.sign())      # +-1: exact products
    for form in ("red", "scan"):
        assert torch.equal(_mode_run(tmp_path, op, mode, x, form).double(), _exact(op, x, form))


FTZ_SRC = """
@ct.kernel
def k(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 64))
    ct.store(y, index=(0, 0), tile=ct.OP(t, axis=1, keepdims=True, ARGS))

@ct.kernel
def s(x, y):
    t = ct.load(x, index=(0, 0), shape=(4, 64))
    ct.store(y, index=(0, 0), tile=ct.CUM(t, axis=1, ARGS))
"""


@pytest.mark.parametrize("op, cum", [("sum", "cumsum"), ("prod", "cumprod")])
@pytest.mark.parametrize("mode, dt, message", [
    ("APPROX", "float32", "Rounding mode approx is not supported for {fn}"),
    ("FULL", "float16", "Rounding mode full is not supported for {fn}"),
    ("RZI", "float32", "Rounding mode nearest_int_to_zero is not supported for {fn}"),
    ("RZ", "int32", "Rounding mode can only be used for unrestricted float types, but got int32"),
])
def test_rounding_modes_cutile_refuses_fail_as_cutile(tmp_path, op, cum, mode, dt, message):
    m = build(FTZ_SRC.replace("OP", op).replace("CUM", cum).replace("ARGS", f"rounding_mode=ct.RoundingMode.{mode}"),
              tmp_path)
    x = torch.ones(4, 64, dtype=getattr(torch, dt))
    fn = "add" if op == "sum" else "mul"
    assert _fails_with(m.launch_k, (1,), x, torch.zeros(4, 1, dtype=x.dtype)) == "cuTile TileTypeError: " + \
        message.format(fn=fn)
    assert _fails_with(m.launch_s, (1,), x, torch.zeros(4, 64, dtype=x.dtype)) == "cuTile TileTypeError: " + \
        message.format(fn=fn)


@pytest.mark.parametrize("op, cum", [("sum", "cumsum"), ("prod", "cumprod"), ("max", None), ("min", None)])
def test_flush_to_zero_off_float32_fails_as_cutile_and_on_float32_is_the_default(tmp_path, op, cum):
    src = FTZ_SRC.replace("OP", op).replace("ARGS", "flush_to_zero=True")
    if cum is None:
        src = src[:src.index("@ct.kernel\ndef s(")]
    m = build(src.replace("CUM", cum or ""), tmp_path)
    x16 = torch.ones(4, 64, dtype=torch.float16)
    assert _fails_with(m.launch_k, (1,), x16, torch.zeros(4, 1, dtype=x16.dtype)) == \
        "cuTile TileTypeError: Flush to zero can only be used for float32 type, but got float16"
    x = torch.rand(4, 64) + 0.5
    y = torch.zeros(4, 1)
    m.launch_k((1,), x, y)
    ref = {"sum": x.sum(1, True), "prod": x.prod(1, True), "max": x.amax(1, True), "min": x.amin(1, True)}[op]
    torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-5)
    if cum is not None:
        ys = torch.zeros(4, 64)
        m.launch_s((1,), x, ys)
        torch.testing.assert_close(ys, x.cumsum(1) if op == "sum" else x.cumprod(1), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ compiled for sm_90
def test_constant_axes_keepdims_and_directed_roundings_compile_for_sm90(tmp_path):
    src = """
    @ct.kernel
    def k(x, v, y, z, w, A1: ConstInt, A2: ConstInt, KEEP: ct.Constant[bool]):
        t = ct.load(x, index=(0, 0, 0), shape=(4, 8, 16))
        ct.store(y, index=(0,), tile=ct.max(t, axis=(A1, A2)) + ct.prod(t, axis=(A2, A1)))
        i = ct.argmax(t, axis=None, keepdims=KEEP)
        ct.store(z, index=(0, 0, 0), tile=ct.astype(i, ct.float32) + ct.sum(t, axis=None, keepdims=KEEP,
                                                                               rounding_mode=ct.RoundingMode.RZ))
        u = ct.load(v, index=(0, 0), shape=(8, 16))
        c = ct.cumprod(ct.astype(u, ct.float16), axis=1, rounding_mode=ct.RoundingMode.RM)
        ct.store(w, index=(0, 0), tile=ct.astype(c, ct.float32) + ct.cumsum(u, axis=0, rounding_mode=ct.RoundingMode.RP,
                                                                            flush_to_zero=True))

    def run(x, v, y, z, w):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, v, y, z, w, 1, 2, True))
    """
    out = compile_sm90(src, "run", "(torch.rand(4, 8, 16), torch.rand(8, 16), torch.zeros(4), torch.zeros(1, 1, 1), torch.zeros(8, 16))",
                       tmp_path)
    assert out.count("OK k ") == 1, out


# ------------------------------------------------------------------ combine bodies cuTile refuses
BODY_SRC = """
@ct.kernel
def k(x, y, FLAG: ct.Constant[bool]):
    def f(a, b):
        BODY
    t = ct.load(x, index=(0, 0), shape=(8, 16))
    ct.store(y, index=OUT0, tile=ct.OP(t, 1, f, 0))
"""


@pytest.mark.parametrize("op", ["reduce", "scan"])
@pytest.mark.parametrize("body, message", [
    ("for i in range(ct.bid(0) + 1):\n            a = a + b\n        return a", "Loops inside {kind} body are not supported"),
    ("if ct.bid(0) == 0:\n            return a + b\n        return a - b",
     "Branching inside {kind} body is not supported. Consider ct.where() as a workaround."),
    ("return a + b if a > b else a - b",
     "Branching inside {kind} body is not supported. Consider ct.where() as a workaround."),
    ("ct.printf('%d', a)\n        return a + b", "Operations with memory effects are not supported inside {kind} body"),
    ("return a + ct.load(x, (0, 0), (1, 1)).item()", "Operations with memory effects are not supported inside {kind} body"),
    ("return a + b + ct.cumsum(ct.full((2,), 1, dtype=ct.int32), 0).item()", "Nested scan/reduction is not supported"),
])
def test_combine_bodies_cutile_refuses_fail_as_cutile(tmp_path, op, body, message):
    src = BODY_SRC.replace("BODY", body).replace("OP", op).replace("OUT0", "(0,)" if op == "reduce" else "(0, 0)")
    m = build(src, tmp_path)
    x = torch.arange(128, dtype=torch.int32).reshape(8, 16)
    y = torch.zeros(8 if op == "reduce" else (8, 16), dtype=torch.int32)
    kind = "reduction" if op == "reduce" else "scan"
    assert _fails_with(m.launch_k, (1,), x, y, True) == "cuTile TileSyntaxError: " + message.format(kind=kind)


@pytest.mark.parametrize("op", ["reduce", "scan"])
def test_a_combine_body_branching_on_a_constant_is_translated(tmp_path, op):
    body = "if FLAG:\n            return a + b\n        return ct.maximum(a, b)"
    src = BODY_SRC.replace("BODY", body).replace("OP", op).replace("OUT0", "(0,)" if op == "reduce" else "(0, 0)")
    m = build(src, tmp_path)
    x = torch.arange(128, dtype=torch.int32).reshape(8, 16)
    for flag in (True, False):
        y = torch.zeros(8 if op == "reduce" else (8, 16), dtype=torch.int32)
        m.launch_k((1,), x, y, flag)
        if op == "reduce":
            ref = x.sum(1, dtype=torch.int32) if flag else x.amax(1)
        else:
            ref = x.cumsum(1, dtype=torch.int32) if flag else x.cummax(1).values
        assert torch.equal(y, ref), (flag, y, ref)


def test_scan_over_axis_none_fails_as_cutile(tmp_path):
    m = build("""
    @ct.kernel
    def k(x, y):
        t = ct.load(x, index=(0, 0), shape=(8, 16))
        ct.store(y, index=(0, 0), tile=ct.scan(t, axis=None, func=lambda a, b: a + b, identity=0))
    """, tmp_path)
    x = torch.ones(8, 16, dtype=torch.int32)
    assert _fails_with(m.launch_k, (1,), x, torch.zeros_like(x)) == \
        "cuTile TileTypeError: Expected an integer constant, but given value has type None"
