"""cuTile's compile-time checks of unary math options (rounding_mode, flush_to_zero on sqrt, rsqrt,
exp, exp2, tanh: ops_math.unary_checked) and of ct.transpose's axes, raised under the shim as
cuTile's TileTypeError from ct.launch; the forms cuTile takes still run. Our own programs, run
under the shim on the CPU."""
from test_shim import _run, _script

UNARY = """
import sys, importlib.util, torch
import cuda.tile as ct

CASES = [   # (call, operand dtype, the message cuTile raises or None)
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.RZI)", "float32", "Rounding mode nearest_int_to_zero is not supported for sqrt"),
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.FULL)", "float16", "Rounding mode full is not supported for sqrt"),
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.APPROX)", "bfloat16", "Rounding mode approx can only be used for float32 type"),
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.RZ, flush_to_zero=True)", "float16", "Flush to zero can only be used for float32 type"),
    ("ct.sqrt(t, flush_to_zero=True)", "bfloat16", "Flush to zero can only be used for float32 type"),
    ("ct.rsqrt(t, flush_to_zero=True)", "float16", "Flush to zero can only be used for float32 type"),
    ("ct.exp2(t, flush_to_zero=True)", "float64", "Flush to zero can only be used for float32 type"),
    ("ct.exp(t, rounding_mode=ct.RoundingMode.APPROX)", "float16", "Rounding mode approx can only be used for float32 type"),
    ("ct.exp(t, rounding_mode=ct.RoundingMode.RZ)", "float32", "Rounding mode zero is not supported for exp"),
    ("ct.tanh(t, rounding_mode=ct.RoundingMode.FULL)", "bfloat16", "Rounding mode full can only be used for float32 type"),
    ("ct.tanh(t, rounding_mode=ct.RoundingMode.RN)", "float32", "Rounding mode nearest_even is not supported for tanh"),
    # taken: float32, and integer operands (promoted to float32 first)
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.APPROX)", "float32", None),
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.APPROX)", "int32", None),
    ("ct.sqrt(t, flush_to_zero=True)", "int16", None),
    ("ct.sqrt(t, rounding_mode=ct.RoundingMode.RZ)", "float16", None),
    ("ct.rsqrt(t, flush_to_zero=True)", "float32", None),
    ("ct.exp2(t, flush_to_zero=True)", "float32", None),
    ("ct.exp2(t, flush_to_zero=False)", "float16", None),
    ("ct.exp(t, rounding_mode=ct.RoundingMode.FULL)", "float32", None),
    ("ct.tanh(t, rounding_mode=ct.RoundingMode.APPROX)", "float32", None),
    ("ct.tanh(t, rounding_mode=None)", "float16", None),
]
ref = {"sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "exp2": torch.exp2, "exp": torch.exp, "tanh": torch.tanh}
for i, (expr, dt, msg) in enumerate(CASES):
    src = f'''
import cuda.tile as ct

@ct.kernel
def k(x, y):
    t = ct.load(x, index=(0,), shape=(16,))
    ct.store(y, index=(0,), tile={expr})
'''
    path = f"unary_{i}.py"
    open(path, "w").write(src)
    spec = importlib.util.spec_from_file_location(f"unary_{i}", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    x = torch.arange(1, 17, device="cuda").to(getattr(torch, dt))
    fdt = torch.float32 if not x.dtype.is_floating_point else x.dtype
    y = torch.zeros(16, dtype=fdt, device="cuda")
    try:
        ct.launch(torch.cuda.current_stream(), (1,), m.k, (x, y))
    except ct.TileTypeError as e:
        assert msg is not None and msg in str(e), (expr, dt, str(e))
    else:
        assert msg is None, (expr, dt, "no TileTypeError")
        want = ref[expr[3:expr.index("(")]](x.to(fdt))
        assert torch.allclose(y.double(), want.double(), rtol=2e-2), (expr, dt, y, want)
print("RESULT OK")
"""

TRANSPOSE = """
import torch
import cuda.tile as ct

@ct.kernel
def t1(x, y):
    ct.store(y, index=(0,), tile=ct.transpose(ct.load(x, index=(0,), shape=(8,))))

@ct.kernel
def t3(x, y):
    ct.store(y, index=(0, 0, 0), tile=ct.transpose(ct.load(x, index=(0, 0, 0), shape=(2, 4, 8))))

@ct.kernel
def one_axis(x, y):
    ct.store(y, index=(0, 0), tile=ct.transpose(ct.load(x, index=(0, 0), shape=(4, 8)), axis1=1))

@ct.kernel
def method_one_axis(x, y):
    ct.store(y, index=(0, 0, 0), tile=ct.load(x, index=(0, 0, 0), shape=(2, 4, 8)).transpose(0))

@ct.kernel
def none_axes(x, y):
    ct.store(y, index=(0, 0), tile=ct.transpose(ct.load(x, index=(0, 0), shape=(4, 8)), axis0=None, axis1=None))

@ct.kernel
def t3_axes(x, y):
    ct.store(y, index=(0, 0, 0), tile=ct.transpose(ct.load(x, index=(0, 0, 0), shape=(2, 4, 8)), 0, -1))

s = torch.cuda.current_stream()
x1, x2, x3 = (torch.arange(n, dtype=torch.float32, device="cuda") for n in (8, 32, 64))
x2, x3 = x2.reshape(4, 8), x3.reshape(2, 4, 8)
for k, x, y, msg in ((t1, x1, torch.zeros(8, device="cuda"), "Cannot transpose a tile with fewer than 2 dimensions"),
                     (t3, x3, torch.zeros(8, 4, 2, device="cuda"), "`axes` must be specified for tile with more than 2 dimensions"),
                     (one_axis, x2, torch.zeros(8, 4, device="cuda"),
                      "transpose axes must either both be specified or both be None, got axis0=None, axis1=1"),
                     (method_one_axis, x3, torch.zeros(2, 4, 8, device="cuda"),
                      "transpose axes must either both be specified or both be None, got axis0=0, axis1=None")):
    try:
        ct.launch(s, (1,), k, (x, y))
    except ct.TileTypeError as e:
        assert msg in str(e), (k, str(e))
    else:
        raise AssertionError(f"{k}: no TileTypeError")
y = torch.zeros(8, 4, device="cuda")
ct.launch(s, (1,), none_axes, (x2, y))
assert torch.equal(y, x2.T), y
y = torch.zeros(8, 4, 2, device="cuda")
ct.launch(s, (1,), t3_axes, (x3, y))
assert torch.equal(y, x3.permute(2, 1, 0)), y
print("RESULT OK")
"""


def test_unary_modes_and_flush_to_zero_are_checked_as_cutile_does(tmp_path):
    r = _run([str(_script(tmp_path, "unary.py", UNARY))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


def test_transpose_axes_are_checked_as_cutile_does(tmp_path):
    r = _run([str(_script(tmp_path, "tr.py", TRANSPOSE))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
