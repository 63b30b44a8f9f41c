"""Dtypes named through numpy and cupy, and dtype calls without an argument (cutile-python's
test_full: `ct.full((T,), cp.float32(), cp.float32)`, `ct.int8()`). cupy re-exports numpy's
dtypes and constants (`cp.float32 is np.float32`, `cp.inf`); a dtype called with nothing is that
dtype's zero, as in Python; one called with a string is the number it spells (`ct.float32("-inf")`), with a tuple or
another string cuTile's TileTypeError. Run under the shim on the interpreter, with a stand-in `cupy` module
(numpy's names) where the real one is not installed."""
from test_shim import _run, _script

CUPY_STANDIN = """
from numpy import bool_, float16, float32, float64, int8, int16, int32, int64, inf
"""

PROGRAM = """
import numpy as np
import torch
import cupy as cp
import cuda.tile as ct


@ct.kernel
def fill(x, y, z, w, TILE: ct.Constant[int]):
    b = ct.bid(0)
    ct.store(x, index=(b,), tile=ct.full((TILE,), cp.float32(), cp.float32))
    ct.store(y, index=(b,), tile=ct.full((TILE,), cp.int16(3), cp.int16))
    ct.store(z, index=(b,), tile=ct.full((TILE,), -cp.inf, np.float64) + ct.float32("-inf") + np.float64("2.5"))
    ct.store(w, index=(b,), tile=ct.full((TILE,), ct.int8(), ct.int8) + np.int8())


x = torch.ones(16)
y = torch.zeros(16, dtype=torch.int16)
z = torch.zeros(16, dtype=torch.float64)
w = torch.ones(16, dtype=torch.int8)
ct.launch(None, (2,), fill, (x, y, z, w, 8))
assert x.tolist() == [0.0] * 16, x
assert y.tolist() == [3] * 16, y
assert z.tolist() == [-float("inf")] * 16, z
assert w.tolist() == [0] * 16, w


@ct.kernel
def from_string(x, TILE: ct.Constant[int]):
    ct.store(x, index=(0,), tile=ct.full((TILE,), np.float32("one"), np.float32))


@ct.kernel
def from_tuple(x, TILE: ct.Constant[int]):
    ct.store(x, index=(0,), tile=ct.full((TILE,), ct.int32((1, 2)), ct.int32))


for k in (from_string, from_tuple):
    try:
        ct.launch(None, (1,), k, (x, 8))
    except ct.TileTypeError as e:       # cuTile's compile error, raised by the launch
        print("REFUSED:", e)
print("RESULT OK")
"""


def test_cupy_dtypes_and_zero_argument_dtype_calls(tmp_path):
    try:
        import cupy  # noqa: F401
    except ImportError:
        _script(tmp_path, "cupy.py", CUPY_STANDIN)
    p = _script(tmp_path, "fill.py", PROGRAM)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert "REFUSED: cannot convert 'one' to a scalar of float32" in r.stdout, r.stdout
    assert "REFUSED: cannot convert (1, 2) to a scalar of int32" in r.stdout, r.stdout


def test_integer_and_bool_dtype_calls_of_a_float_constant_compile_for_sm90(tmp_path):
    """`ct.int32(1.5)`, `np.int8(-2.7)`: toward zero, as cuTile, numpy and torch convert (the
    interpreter took `tl.full([], 1.5, tl.int32)`; Triton's compiler does not: test_full's value
    calls failed on the H200); `ct.bool_(0.5)` is True."""
    from kernel_util import build, compile_sm90
    src = """
    import numpy as np

    @ct.kernel
    def k(x, y, z, TILE: ConstInt):
        ct.store(x, index=(0,), tile=ct.full((TILE,), ct.int32(1.5), ct.int32))
        ct.store(y, index=(0,), tile=ct.full((TILE,), np.int8(-2.7), np.int8))
        ct.store(z, index=(0,), tile=ct.full((TILE,), ct.bool_(0.5), ct.bool_))

    def run(x, y, z):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, 8))
        return x, y, z
    """
    import torch
    mod = build(src, tmp_path)
    x, y, z = mod.run(torch.zeros(8, dtype=torch.int32), torch.zeros(8, dtype=torch.int8),
                      torch.zeros(8, dtype=torch.bool))
    assert x.tolist() == [1] * 8 and y.tolist() == [-2] * 8 and z.tolist() == [True] * 8
    assert "OK k" in compile_sm90(src, "run", "(torch.zeros(8, dtype=torch.int32), torch.zeros(8, dtype=torch.int8), "
                                              "torch.zeros(8, dtype=torch.bool))", tmp_path)
