"""cuTile's dtype rules on operators and its rounding_mode / flush_to_zero checks
(translator/dtype_rules.py), checked by translated kernels when Triton compiles them
(templates/prelude_casts.py.j2): the rules against the installed cuTile, then kernels under the
interpreter, over tile-tile and tile-scalar operands. Before, Triton promoted what cuTile refuses
(float16 with bfloat16 to float32, int32 with uint32, int16 & int64), reported bitwise operators on
floats in its own words, ran divmod on floats, and the translator refused add/sub/mul with
rounding modes cuTile rejects (C2T106) instead of failing as cuTile does."""
import subprocess
import sys
import textwrap

import pytest
import torch

from conftest import ROOT
from kernel_util import build
from translator import dtype_rules as R
from test_implicit_casts import TORCH, _launch

ARITH = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16", "bfloat16",
         "float32", "float64"]


# ---------------------------------------------------------------- the rules
def test_promotion_rule_matches_the_installed_cutile():
    datatype = pytest.importorskip("cuda.tile._datatype")
    import cuda.tile as ct
    from cuda.tile._exception import TileTypeError
    for a in R.DTYPES:
        for b in R.DTYPES:
            try:
                datatype.promote_dtypes(getattr(ct, a), getattr(ct, b))
                want = None
            except TileTypeError as e:
                want = ("TileTypeError", str(e).splitlines()[0])
            assert R.binary_error("+", a, b) == want, (a, b)


def test_rounding_rule_matches_the_installed_cutile():
    ops_utils = pytest.importorskip("cuda.tile._ir.ops_utils")
    import cuda.tile as ct
    from cuda.tile._exception import TileTypeError
    for fn in ("add", "sub", "mul", "truediv", "max", "min"):
        for mode in [None] + list(ct.RoundingMode):
            for ftz in (False, True):
                for d in ARITH:
                    dt = getattr(ct, d)
                    if fn == "truediv" and d in ARITH[:8]:
                        dt = ct.float32           # (cuTile divides integers in float32)
                    try:
                        ops_utils.check_rd_and_ftz(fn, mode, ftz, dt)
                        want = None
                    except TileTypeError as e:
                        want = ("TileTypeError", str(e).splitlines()[0])
                    got = R.rounding_error(fn, None if mode is None else mode.name, ftz, d)
                    assert got == want, (fn, mode, ftz, d)


def test_bitwise_and_shift_rules():
    floats = "Bitwise operations require integers or booleans."
    assert R.binary_error("&", "int32", "int32") is None and R.binary_error("^", "bool_", "bool_") is None
    assert R.binary_error("|", "float32", "int32")[1].startswith(floats)
    assert R.binary_error("&", "int16", "int64")[1] == "Bitwise operands must have same data type, got: int16 and int64"
    assert R.binary_error("&", "int64", 5) is None           # a constant takes the tile's dtype
    assert R.binary_error("&", "int32", 1.5)[1].startswith(floats)
    assert R.binary_error("&", "bool_", "int8")[1] == "Bitwise operands must have same data type, got: bool_ and int8"
    assert R.binary_error("&", "int8", True)[1] == "Bitwise op does not support bool and int8"
    assert R.binary_error("<<", "int8", "int32") is None
    assert R.binary_error(">>", "float32", 2)[1] == "Bitwise shift requires an integer for left-hand side, got: float32"
    assert R.binary_error("<<", "int32", "bool_")[1] == "Bitwise shift requires an integer for right-hand side, got: bool_"
    assert R.binary_error("<<", "uint32", "int32")[1].startswith("Implicit promotion of uint32 and int32")
    assert R.binary_error("divmod", "int32", "int64") is None
    assert R.binary_error("divmod", "int32", 2.0)[1] == "divmod() is not implemented for floating point values"
    assert R.binary_error("divmod", "float16", "bfloat16")[1].startswith("Implicit promotion of float16 and bfloat16")


# ---------------------------------------------------------------- translated kernels (interpreter)
OPS = """
@ct.kernel
def tt(x, y, z, T: ConstInt, OP: ConstInt):
    tx = ct.load(x, index=(0,), shape=(T,))
    ty = ct.load(y, index=(0,), shape=(T,))
    if OP == 0:
        tz = tx + ty
    elif OP == 1:
        tz = tx % ty
    elif OP == 2:
        tz = ct.maximum(tx, ty)
    elif OP == 3:
        tz = tx & ty
    elif OP == 4:
        tz = ct.bitwise_xor(tx, ty)
    elif OP == 5:
        tz = tx << ty
    elif OP == 6:
        tz = tx < ty
    else:
        tz = tx // ty
    ct.store(z, index=(0,), tile=tz)

@ct.kernel
def ts(x, n, z, T: ConstInt, OP: ConstInt):
    tx = ct.load(x, index=(0,), shape=(T,))
    if OP == 0:
        tz = tx * n
    elif OP == 1:
        tz = tx | n
    elif OP == 2:
        tz = tx >> n
    else:
        tz = tx & 3                               # a constant: the tile's dtype
    ct.store(z, index=(0,), tile=tz)

def run(kernel, x, y, z, op):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x, y, z, x.shape[0], op))
"""
SYMBOL = {0: "+", 1: "%", 2: "maximum", 3: "&", 4: "^", 5: "<<", 6: "<", 7: "//"}
PAIRS = [("float16", "bfloat16"), ("bfloat16", "float16"), ("int32", "uint32"), ("uint8", "int8"),
         ("int16", "int64"), ("float32", "int32"), ("int8", "int8"), ("bool_", "bool_"), ("float32", "float32"),
         ("int64", "float16"), ("uint32", "uint32")]


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    return build(OPS, tmp_path_factory.mktemp("ops"))


def _expected(op, a, b):
    err = R.binary_error(op, a, b)
    return None if err is None else f"cuTile {err[0]}: {err[1]}"


def _tensors(a, b):
    x = (torch.arange(16) % 5 + 1).to(TORCH[a])
    y = (torch.arange(16) % 3 + 1).to(TORCH[b])
    return x, y


@pytest.mark.parametrize("op", sorted(SYMBOL))
def test_tile_operators_check_cutiles_rules(ops, op):
    """Each pair fails with cuTile's error where cuTile refuses it (the mixes Triton promotes, and
    floats in bitwise operators), else runs; integer results equal torch's."""
    for a, b in PAIRS:
        if "bool_" in (a, b) and SYMBOL[op] not in ("&", "^", "<"):
            continue                               # (bools: bitwise operators and comparisons here)
        want = _expected(SYMBOL[op], a, b)
        x, y = _tensors(a, b)
        if want is not None or "bfloat16" in (a, b):
            z = torch.zeros(16, dtype=torch.float64)
            got = _launch(ops.run, ops.tt, x, y, z, op)
            assert got == want, (SYMBOL[op], a, b, got)
            continue
        # the reference in int64 / float64 (torch lacks uint32 kernels), in the promoted dtype
        wide = torch.float64 if x.is_floating_point() or y.is_floating_point() else torch.int64
        xw, yw = x.to(wide), y.to(wide)
        r = {0: lambda: xw + yw, 1: lambda: xw % yw, 2: lambda: torch.maximum(xw, yw), 3: lambda: xw & yw,
             4: lambda: xw ^ yw, 5: lambda: xw << yw, 6: lambda: xw < yw, 7: lambda: xw // yw}[op]()
        z = torch.zeros(16, dtype=torch.bool if op == 6 else torch.promote_types(x.dtype, y.dtype))
        assert _launch(ops.run, ops.tt, x, y, z, op) is None, (SYMBOL[op], a, b)
        assert torch.equal(z.to(r.dtype), r), (SYMBOL[op], a, b, z, r)


def test_tile_with_scalar_argument(ops):
    """An int argument is a strictly typed int32 in cuTile: `|` and `>>` with int64 or uint32 tiles
    fail as there (and on float tiles); a literal constant takes the tile's dtype."""
    for a in ("int32", "int64", "uint32", "float32"):
        x = (torch.arange(16) % 7).to(TORCH[a])
        for op, sym in ((0, "*"), (1, "|"), (2, ">>"), (3, "&")):
            want = _expected(sym, a, 3 if op == 3 else "int32")
            z = torch.zeros(16, dtype=torch.float64 if a == "float32" else TORCH[a])
            if op == 3 and a == "float32":         # (with a constant Triton refuses it, in its own words)
                with pytest.raises(Exception):
                    ops.run(ops.ts, x, 3, z, op)
                continue
            got = _launch(ops.run, ops.ts, x, 3, z, op)
            assert got == want, (sym, a, got)
            if want is None:
                r = {0: x.double() * 3, 1: x.long() | 3, 2: x.long() >> 3, 3: x.long() & 3}[op]
                assert torch.equal(z.to(r.dtype), r), (sym, a)


ROUNDING = """
@ct.kernel
def rd(x, y, z, T: ConstInt, OP: ConstInt, MODE: ConstInt):
    tx = ct.load(x, index=(0,), shape=(T,))
    ty = ct.load(y, index=(0,), shape=(T,))
    if MODE == 0:
        tz = ct.add(tx, ty, rounding_mode=ct.RoundingMode.RN)
    elif MODE == 1:
        tz = ct.mul(tx, ty, rounding_mode=ct.RoundingMode.RZ)
    elif MODE == 2:
        tz = ct.sub(tx, ty, rounding_mode=ct.RoundingMode.FULL)
    elif MODE == 3:
        tz = ct.truediv(tx, ty, rounding_mode=ct.RoundingMode.APPROX)
    elif MODE == 4:
        tz = ct.add(tx, ty, flush_to_zero=True)
    elif MODE == 5:
        tz = ct.minimum(tx, ty, flush_to_zero=True)
    else:
        tz = ct.truediv(tx, ty, rounding_mode=ct.RoundingMode.RZI)
    ct.store(z, index=(0,), tile=tz)

def run(x, y, z, mode):
    ct.launch(torch.cuda.current_stream(), (1,), rd, (x, y, z, x.shape[0], 0, mode))
"""
MODES = {0: ("add", "RN", False), 1: ("mul", "RZ", False), 2: ("sub", "FULL", False),
         3: ("truediv", "APPROX", False), 4: ("add", None, True), 5: ("min", None, True), 6: ("truediv", "RZI", False)}


def test_rounding_modes_and_flush_to_zero_checked_as_cutile(tmp_path):
    """RN on integers, modes cuTile does not take for the operation (formerly C2T106 refusals),
    FULL/APPROX and flush_to_zero off float32 fail with cuTile's error; the rest runs, exact
    where the operation is (1 + 2, 1 * 2, min)."""
    m = build(ROUNDING, tmp_path)
    for d in ("int32", "int16", "float16", "float32", "float64"):
        x, y = (torch.ones(16) * 1).to(TORCH[d]), (torch.ones(16) * 2).to(TORCH[d])
        for mode, (fn, rm, ftz) in MODES.items():
            if mode == 1 and d == "float64":
                continue                           # (directed rounding of fp64: not in the interpreter)
            err = R.rounding_error(fn, rm, ftz, d)
            want = None if err is None else f"cuTile {err[0]}: {err[1]}"
            z = torch.zeros(16, dtype=torch.float32 if fn == "truediv" and d.startswith("int") else TORCH[d])
            got = _launch(m.run, x, y, z, mode)
            assert got == want, (d, fn, rm, ftz, got)
            if want is None and mode in (0, 1, 4, 5):
                r = {0: 3, 1: 2, 4: 3, 5: 1}[mode]
                assert torch.equal(z, torch.full((16,), r, dtype=z.dtype)), (d, mode, z)


# ---------------------------------------------------------------- divmod under another name (shim)
DIVMOD = """
import pytest
import torch
import cuda.tile as ct
from cuda.tile._exception import TypeCheckingError


@pytest.mark.parametrize("fn", [divmod, ct.divmod])
@pytest.mark.parametrize("dtype", [torch.int16, torch.int64, torch.float32])
def test_divmod(fn, dtype):
    @ct.kernel
    def kern(x, y, q, r):
        tx = ct.load(x, index=(0,), shape=(16,))
        ty = ct.load(y, index=(0,), shape=(16,))
        tq, tr = fn(tx, ty)
        ct.store(q, index=(0,), tile=tq)
        ct.store(r, index=(0,), tile=tr)

    x = (torch.arange(16, device="cuda") - 8).to(dtype)
    y = torch.full((16,), 3, device="cuda").to(dtype)
    q, r = torch.zeros_like(x), torch.zeros_like(x)
    if dtype.is_floating_point:
        with pytest.raises(TypeCheckingError, match="divmod.. is not implemented for floating point values"):
            ct.launch(torch.cuda.current_stream(), (1,), kern, (x, y, q, r))
    else:
        ct.launch(torch.cuda.current_stream(), (1,), kern, (x, y, q, r))
        assert torch.equal(q, x // y) and torch.equal(r, x % y)
"""


def test_builtin_divmod_bound_to_another_name_under_the_shim(tmp_path):
    """`fn = divmod` read from a closure is Python's divmod (floor division and modulo), and
    cuda.tile._exception serves TypeCheckingError, cuTile's other name for TileTypeError."""
    p = tmp_path / "test_dm.py"
    p.write_text(textwrap.dedent(DIVMOD))
    env = dict(__import__("os").environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT),
               C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator.shim", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(p)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert r.returncode == 0 and "6 passed" in r.stdout, r.stdout + r.stderr
