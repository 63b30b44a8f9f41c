"""cuTile's checks that the shim applies where a translated kernel would otherwise run differently:
the nesting limit of helper calls (TileRecursionError, triton_fixes.py) and ct.launch's own
argument checks (ct_module._check_launch). Our own programs, run under the shim on the CPU."""
import os
import subprocess
import sys
import textwrap

from test_shim import ROOT, _run, _script

RECURSION = """
import torch
import cuda.tile as ct

def down(t, N):
    if N > 0:
        r = down(t, N - 1) * 1 + 1
    else:
        r = t
    return r

def twice(t, N):                      # a helper calling another: both levels count
    return down(t, N) + 0

@ct.kernel
def k(x, out, N: ct.Constant[int], TWICE: ct.Constant[int]):
    t = ct.gather(x, ())
    if TWICE:
        ct.scatter(out, (), twice(t, N))
    else:
        ct.scatter(out, (), down(t, N))

x = torch.tensor(5.0, device="cuda")
out = torch.zeros_like(x)
ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, 998, 0))    # 999 nested calls: cuTile's most
assert out.item() == 1003.0, out
for n, twice in ((999, 0), (998, 1), (100000, 0)):
    try:
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, n, twice))
    except ct.TileRecursionError as e:
        assert "Maximum recursion depth (1000) reached" in str(e), e
    else:
        raise AssertionError(f"{n} {twice}: no TileRecursionError")
print("RESULT OK")
"""


def test_helper_nesting_limit_is_cutiles_under_the_interpreter(tmp_path):
    r = _run([str(_script(tmp_path, "rec.py", RECURSION))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


COMPILED = """
import sys
from translator.api import Options, translate_source
from translator.shim import triton_fixes
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

src = '''
import cuda.tile as ct

def down(t, N):
    if N > 0:
        r = down(t, N - 1) + 1
    else:
        r = t
    return r

@ct.kernel
def k(x, out, N: ct.Constant[int]):
    ct.scatter(out, (), down(ct.gather(x, ()), N))
'''
res = translate_source(src, "rec.py", Options(check=False, partial=False))
ns = {}
open("rec_t.py", "w").write(res.code)
import importlib.util
spec = importlib.util.spec_from_file_location("rec_t", "rec_t.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
assert triton_fixes.install_compiler()

def compile(n):
    a = ASTSource(m.k, {"x": "*fp32", "out": "*fp32", "N": "constexpr"}, {(2,): n})
    return triton.compile(a, target=GPUTarget("cuda", 90, 32))

compile(40)
for n in (999, 100000):
    try:
        compile(n)
    except Exception as e:
        while e.__cause__ or e.__context__:
            e = e.__cause__ or e.__context__
        assert "cuTile TileRecursionError: Maximum recursion depth (1000)" in str(e), repr(e)[:500]
    else:
        raise AssertionError(n)
print("RESULT OK")
"""


def test_helper_nesting_limit_when_compiled_for_sm90(tmp_path):
    p = _script(tmp_path, "compiled.py", COMPILED)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, str(p)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=600)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


LAUNCH = """
import torch
import cuda.tile as ct

@ct.kernel
def inc(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(x, index=(ct.bid(0),), tile=t + 1)

@ct.kernel
def none():
    pass

x = torch.zeros(16, device="cuda")
s = torch.cuda.current_stream()
ct.launch(s, (), inc, (x, 16))                      # a 0-D grid is one block
ct.launch(s, [1, 1], inc, (x, 16))
assert torch.equal(x, torch.full((16,), 2.0)), x
ct.launch(s, (1,), none, ())
def raises(exc, text, *args):
    try:
        ct.launch(*args)
    except exc as e:
        assert str(e) == text, str(e)
    else:
        raise AssertionError(text)
big = "exceeds 24-bit limit: max=16777215, got=16777216. Use multiple kernel launches for larger workloads."
raises(ValueError, "Grid[0] " + big, s, (2 ** 24,), inc, (x, 16))
raises(ValueError, "Grid[2] " + big, s, (1, 1, 2 ** 24), inc, (x, 16))
raises(TypeError, "Kernel expects 2 arguments but 1 was given", s, (1,), inc, (x,))
raises(TypeError, "Kernel expects 2 arguments but 3 were given", s, (1,), inc, (x, 16, 3))
raises(TypeError, "Kernel expects 0 arguments but 1 was given", s, (1,), none, (x,))
assert torch.equal(x, torch.full((16,), 2.0)), x
print("RESULT OK")
"""


def test_launch_checks_grid_and_argument_count(tmp_path):
    r = _run([str(_script(tmp_path, "launch.py", LAUNCH))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


BYTES = """
import torch
import cuda.tile as ct

@ct.kernel
def roundtrip0(x, y):                       # a 0-D tile packs to its element's bytes
    p = ct.pack_to_bytes(ct.gather(x, ()))
    ct.scatter(y, (), ct.unpack_from_bytes(p, x.dtype).reshape(()))

@ct.kernel
def bytes0(x, b):
    ct.store(b, index=(0,), tile=ct.pack_to_bytes(ct.gather(x, ())))

for dt in (torch.float16, torch.int32, torch.int64, torch.int8, torch.float64):
    x = torch.tensor(-3, dtype=dt)
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), roundtrip0, (x, y))
    assert torch.equal(x, y), (dt, x, y)
    b = torch.zeros(x.element_size(), dtype=torch.uint8)
    ct.launch(torch.cuda.current_stream(), (1,), bytes0, (x, b))
    assert torch.equal(b, x.reshape(1).view(torch.uint8)), (dt, b)

@ct.kernel
def unpack(x, y, N: ct.Constant[int]):
    ct.unpack_from_bytes(ct.load(x, index=(0,), shape=(N,)), y.dtype)

@ct.kernel
def unpack2(x, y, N: ct.Constant[int]):
    ct.unpack_from_bytes(ct.load(x, index=(0, 0), shape=(N, N)), y.dtype)

@ct.kernel
def pack(x, N: ct.Constant[int]):
    ct.pack_to_bytes(ct.load(x, index=(0,), shape=(N,)))

def fails(text, kernel, args):
    try:
        ct.launch(torch.cuda.current_stream(), (1,), kernel, args)
    except ct.TileTypeError as e:
        assert str(e) == text, str(e)
    else:
        raise AssertionError(text)

u8, i32 = torch.ones(8, dtype=torch.uint8), torch.zeros(4, dtype=torch.int32)
fails("Cannot unpack tile Tile[uint8,(2)] to int32: total bits (2 * 8) not divisible by 32", unpack, (u8, i32, 2))
fails("Cannot unpack tile Tile[uint8,(4)] to int64: total bits (4 * 8) not divisible by 64", unpack,
      (u8, i32.to(torch.int64), 4))
fails("unpack_from_bytes requires uint8 tile, got int32 tile", unpack, (i32, i32, 4))
fails("unpack_from_bytes requires uint8 tile, got float16 tile", unpack, (i32.half(), i32, 4))
fails("unpack_from_bytes to a bool_ tile is not supported", unpack, (u8, i32.bool(), 4))
fails("unpack_from_bytes requires a 1D tile, got 2D tile with shape (2, 2)", unpack2,
      (u8.reshape(2, 4), i32, 2))
fails("pack_to_bytes from a bool_ tile is not supported", pack, (u8.bool(), 4))
ct.launch(torch.cuda.current_stream(), (1,), unpack, (u8, i32, 8))         # (these are fine)
ct.launch(torch.cuda.current_stream(), (1,), unpack, (u8, i32.half(), 2))
ct.launch(torch.cuda.current_stream(), (1,), pack, (i32, 4))
print("RESULT OK")
"""


def test_pack_bytes_of_0d_tiles_and_cutiles_errors(tmp_path):
    r = _run([str(_script(tmp_path, "bytes.py", BYTES))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


HINTS = """
import torch
import cuda.tile as ct
from cuda.tile._compiler_options import CompilerOptions

def raises(text, f, *a, **k):
    try:
        f(*a, **k)
    except ValueError as e:
        assert str(e) == text, str(e)
    else:
        raise AssertionError(text)

raises("Invalid GPU architecture name: sm90, expected sm_<major><minor>", ct.ByTarget, sm90=2)
raises("Invalid GPU architecture name: sm_x, expected sm_<major><minor>", ct.ByTarget, sm_x=2, default=1)

def body(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)) + 1)

raises("num_ctas should be power of 2, got 3", ct.kernel, body, num_ctas=3)
raises("num_ctas should be [1, 16], got 32", ct.kernel, body, num_ctas=ct.ByTarget(sm_100=32))
raises("occupancy should be [1, 32], got 0", ct.kernel, body, occupancy=ct.ByTarget(default=0))
raises("opt_level should be [0, 3], got 4", ct.kernel, body, opt_level=4)
raises("num_worker_warps should be a power of 2 in [1, 32], got 6", ct.kernel, body, num_worker_warps=6)
raises("num_ctas should be power of 2, got 6", ct.kernel(body).replace_hints, num_ctas=6)

k = ct.kernel(body, num_ctas=ct.ByTarget(sm_100=2, default=1), occupancy=2, opt_level=ct.ByTarget(sm_90=2))
x = torch.zeros(4, device="cuda")
ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
assert x.tolist() == [1.0] * 4, x

o = CompilerOptions(num_ctas=ct.ByTarget(sm_100=8), occupancy=4, opt_level=ct.ByTarget(sm_90=1, default=2))
assert o.hints_by_target() == {"sm_100": {"num_ctas": 8}, "sm_90": {"opt_level": 1},
    "default": {"num_ctas": None, "occupancy": 4, "opt_level": 2, "num_worker_warps": None}}, o.hints_by_target()
assert (o.opt_level_for_target("sm_90"), o.opt_level_for_target("sm_120")) == (1, 2)
assert CompilerOptions(opt_level=ct.ByTarget(sm_90=1)).opt_level_for_target("sm_100") == 3
assert CompilerOptions().opt_level_for_target("sm_90") == 3
raises("occupancy should be [1, 32], got 33", CompilerOptions, occupancy=33)
print("RESULT OK")
"""


def test_hint_ranges_by_target_and_compiler_options(tmp_path):
    r = _run([str(_script(tmp_path, "hints.py", HINTS))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


REFUSED = """
import torch
import cuda.tile as ct

@ct.kernel
def neg_start(A):
    A.slice(axis=0, start=-1, stop=5)

@ct.kernel
def backwards(A):
    A.slice(axis=0, start=5, stop=3)

@ct.kernel
def float_stop(A):
    A.slice(axis=0, start=0, stop=2.0)

@ct.kernel
def twice(x):
    ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(4, 4), order=(0, 0)))

@ct.kernel
def short(x):
    ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(4, 4), order=(0,)))

@ct.kernel
def beyond(x):
    ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(4, 4), order=(0, 2)))

@ct.kernel
def from_end(x, y):                      # (-1, 0) is (1, 0): a transposed load
    ct.store(y, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(4, 4), order=(-1, 0)))

def fails(text, kernel, args):
    for _ in range(2):                   # (a refusal is cached: the second launch raises it too)
        try:
            ct.launch(torch.cuda.current_stream(), (1,), kernel, args)
        except ct.TileTypeError as e:
            assert str(e) == text, str(e)
            assert "C2T10" in str(e.__cause__), e.__cause__      # the translator's diagnostic
        else:
            raise AssertionError(text)

a = torch.zeros(10)
fails("Slice start must be non-negative", neg_start, (a,))
fails("Slice stop must be greater than or equal to start", backwards, (a,))
fails("Expected a signed integer scalar", float_stop, (a,))
x = torch.arange(16.0).reshape(4, 4)
fails("Axis order must be a permutation, but axis 0 is used at least twice", twice, (x,))
fails("Expected tuple of length 2, got 1", short, (x,))
fails("Axis 2 is out of range for rank 2'", beyond, (x,))
y = torch.zeros(4, 4)
ct.launch(torch.cuda.current_stream(), (1,), from_end, (x, y))
assert torch.equal(y, x.t()), y
print("RESULT OK")
"""


def test_refusals_cutile_makes_too_raise_its_errors(tmp_path):
    r = _run([str(_script(tmp_path, "refused.py", REFUSED))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
