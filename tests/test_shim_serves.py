"""What the shim's cuda.tile serves for test modules like cutile-python's own (each program here is
ours, run in a subprocess under `python -m translator.shim` on the CPU interpreter, as in
test_shim.py): annotations with arguments (`int | float`, `tuple[...]`, `ct.ArrayAnnotation(...)`
in `typing.Annotated`), stand-ins for cuTile's compiler internals that a module may use at import
without failing (its other tests run), cuTile's implicit-cast rule, kernels calling functions
bound under another name or wrapped by decorators, and the interpreter's faults the shim patches.
"""
import textwrap

from test_shim import _run, _script

ANNOTATIONS = """
import math
from typing import Annotated
import torch
import cuda.tile as ct

NumberConst = ct.Constant[int | float]
ListOfI64 = Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]


@ct.kernel
def pad(x, y, pad_val: NumberConst):
    t = ct.gather(x, ct.arange(8, dtype=ct.int32), padding_value=pad_val)
    ct.scatter(y, ct.arange(8, dtype=ct.int32), t)


@ct.kernel
def pair_sum(x, out, pair: ct.Constant[tuple[ct.ScalarInt64, int]]):
    t = ct.load(x, (0,), (8,))
    ct.store(out, (0,), t + pair[0] - pair[1])


@ct.kernel
def copy_static(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0, 1))], out):
    ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 4)))


@ct.kernel
def add_list(arrays: ListOfI64, out):
    res = ct.zeros((4,), dtype=out.dtype)
    for i in range(len(arrays)):
        res += ct.load(arrays[i], (0,), (4,))
    ct.store(out, (0,), res)


x = torch.arange(6, dtype=torch.float32, device="cuda")
y = torch.zeros(8, device="cuda")
ct.launch(torch.cuda.current_stream(), (1,), pad, (x, y, -math.inf))
assert y.tolist() == [0, 1, 2, 3, 4, 5, -math.inf, -math.inf], y
out = torch.zeros(8, dtype=torch.int64, device="cuda")
try:        # (cuTile's rule: a Constant leaf cannot be ScalarInt64 too, at the launch)
    ct.launch(torch.cuda.current_stream(), (1,), pair_sum, (torch.zeros(8, dtype=torch.int64), out, (7, 5)))
except TypeError as e:
    assert "Constant annotation cannot be combined with ScalarAnnotation/ScalarInt64" in str(e), e
else:
    raise AssertionError("pair_sum launched")
m = torch.arange(16.0, device="cuda").reshape(4, 4)
o = torch.zeros_like(m)
ct.launch(torch.cuda.current_stream(), (1,), copy_static, (m, o))
assert torch.equal(o, m)
arrays = [torch.full((4,), float(i)) for i in range(3)]
s = torch.zeros(4)
ct.launch(torch.cuda.current_stream(), (1,), add_list, (arrays, s))
assert s.tolist() == [3.0] * 4, s
for bad in (dict(static_shape_dims=(False,)), dict(static_stride_dims=[0]), dict(index_dtype=ct.int8)):
    try:
        ct.ArrayAnnotation(**bad)
    except (TypeError, ValueError) as e:
        print("REFUSED:", type(e).__name__, e)
src = pad.source() + pair_sum.source() + copy_static.source() + add_list.source()
for text in ("NumberConst = ct.Constant[int | float]", "ct.Constant[tuple[ct.ScalarInt64, int]]",
             "ListOfI64 = Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]",
             "from typing import Annotated"):
    assert text in src, (text, src)
print("RESULT OK")
"""


def test_annotations_with_arguments_are_written_back(tmp_path):
    p = _script(tmp_path, "ann.py", ANNOTATIONS)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert r.stdout.count("REFUSED:") == 3 and "entry 0 of `static_shape_dims` must be int" in r.stdout, r.stdout


INTERNALS_MODULE = """
import cuda.tile as ct
from cuda.tile._ir import ir
from cuda.tile._ir.ops import LoadPointer
from cuda.tile._compile import compile_tile
from cuda.tile.compilation import ArrayConstraint, KernelSignature

# an imported module's body may call them (a parametrize list): it imports, their uses raise
SIMPLE = ArrayConstraint(ct.float32, 2, index_dtype=ct.int32)
CASES = [(SIMPLE, "_A2f32")]


def first_op(block: ir.Block | None):
    return None
"""

INTERNALS = """
import cuda.tile as ct
from internals_module import SIMPLE, CASES, LoadPointer, KernelSignature, compile_tile


def uses(what, fn):
    try:
        fn()
    except NotImplementedError as e:
        print(what, "RAISES:", e)


uses("compile_tile", lambda: compile_tile(None, [], return_final_ir=True))
uses("KernelSignature", lambda: KernelSignature.from_kernel_args(None, (), None))
uses("result", lambda: SIMPLE.ndim + 1)
uses("isinstance", lambda: [op for op in iter(CASES[0][0])])
assert not hasattr(LoadPointer, "_pytestfixturefunction")
conv = ct.compilation.CallingConvention
assert conv.cutile_python_v2() == conv.cutile_python_v2() != conv.cutile_python_v1()
from cuda.tile._compiler_options import CompilerOptions     # (test_print reads its defaults at import)
assert CompilerOptions.__dataclass_fields__["opt_level"].default == 3 and CompilerOptions().occupancy is None
print("RESULT OK")
ct.compilation.export_kernel(None, [])      # (a script's own call raises at once)
"""


def test_compiler_internals_are_stand_ins_that_raise_when_used(tmp_path):
    _script(tmp_path, "internals_module.py", INTERNALS_MODULE)
    p = _script(tmp_path, "internals.py", INTERNALS)
    r = _run([str(p)], tmp_path)
    assert r.returncode != 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert "NotImplementedError: `cuda.tile.compilation.export_kernel` is not served" in r.stderr, r.stderr
    assert "ShimUnservedWarning: `cuda.tile.compilation.ArrayConstraint` is not served" in r.stderr, r.stderr
    out = r.stdout
    assert "compile_tile RAISES: `cuda.tile._compile.compile_tile` is not served" in out
    assert "KernelSignature RAISES: `cuda.tile.compilation.KernelSignature.from_kernel_args` is not served" in out
    assert "result RAISES: `cuda.tile.compilation.ArrayConstraint(...).ndim` is not served" in out
    assert "isinstance RAISES: `cuda.tile.compilation.ArrayConstraint(...)` is not served" in out


CASTS = """
import torch
from cuda.tile._ir.cast_ops import _is_implicit_cast_ok as ok
from cuda.tile._ir.typing_support import to_dtype

def cast(a, b):
    return ok(to_dtype(getattr(torch, a)), to_dtype(getattr(torch, b)))

fine = [("float16", "float32"), ("int32", "float32"), ("int8", "int32"), ("bool", "int8"),
        ("int64", "float16"), ("bool", "bfloat16"), ("bfloat16", "float32"), ("uint8", "uint16"),
        ("float32", "float32")]
bad = [("float32", "float16"), ("int64", "int32"), ("float16", "bfloat16"), ("bfloat16", "float16"),
       ("uint8", "int32"), ("int32", "uint32"), ("float32", "bool"), ("float16", "int64"),
       ("float8_e4m3fn", "float16"), ("float8_e4m3fn", "float8_e5m2")]
assert all(cast(a, b) for a, b in fine), [(a, b) for a, b in fine if not cast(a, b)]
assert not any(cast(a, b) for a, b in bad), [(a, b) for a, b in bad if cast(a, b)]
print("RESULT OK")
"""


def test_implicit_cast_rule_is_cutiles(tmp_path):
    p = _script(tmp_path, "casts.py", CASTS)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


FUNCTIONS = """
import functools
import torch
import cuda.tile as ct


def fib_above(n):
    a, b = 1, 1
    while b <= n:
        a, b = b, a + b
    return b


def make(helper_func):
    @ct.kernel
    def k(y):
        ct.scatter(y, (), helper_func(10))
    return k


def shift(func):
    @functools.wraps(func)
    def wrapper(x):
        return func(x + 3)
    return wrapper


def forward(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


@shift
def times_ten(x):
    return x * 10


@forward
def times_two(x):
    return x * 2


@ct.kernel
def decorated(y):
    ct.scatter(y, (), times_ten(5) + times_two(1))


@ct.function
def device_only(x):
    return x + 1


y = torch.zeros((), dtype=torch.int32)
ct.launch(None, (1,), make(fib_above), (y,))
assert y.item() == 13, y
ct.launch(None, (1,), decorated, (y,))
assert y.item() == 82, y        # (5 + 3) * 10 + 1 * 2: the wrapper that shifts is called
try:
    device_only(1)
except RuntimeError as e:
    print("HOST CALL:", e)
print("RESULT OK")
"""


def test_functions_under_other_names_and_decorated_helpers(tmp_path):
    p = _script(tmp_path, "funcs.py", FUNCTIONS)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert "HOST CALL: Device functions can only be called from device code" in r.stdout


INTERPRETER = """
import torch
import cuda.tile as ct


@ct.kernel
def flag(x, y, on: bool):
    t = ct.load(x, (0,), (4,))
    if on:
        t = t + 1
    ct.store(y, (0,), t)


def deeper(t, n):
    if n > 0:
        r = deeper(t, n - 1) + 1
    else:
        r = t
    return r


@ct.kernel
def runaway(x, y, N: ct.Constant[int]):
    ct.scatter(y, (), deeper(ct.gather(x, ()), N))


x = torch.zeros(4)
y = torch.zeros(4)
ct.launch(None, (1,), flag, (x, y, True))
assert y.tolist() == [1.0] * 4, y
ct.launch(None, (1,), flag, (x, y, False))
assert y.tolist() == [0.0] * 4, y
s = torch.zeros(())
ct.launch(None, (1,), runaway, (s, s, 20))
assert s.item() == 20.0
try:
    ct.launch(None, (1,), runaway, (s, s, 100000))
except Exception as e:
    print("RUNAWAY:", type(e).__name__, str(e)[:200])
print("RESULT OK")
"""


def test_interpreter_bool_arguments_and_deep_errors(tmp_path):
    p = _script(tmp_path, "interp.py", INTERPRETER)
    r = _run([str(p)], tmp_path)    # (before: the bool raised; the runaway recursion never returned)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    # (cuTile's nesting limit: tests/test_shim_cutile_checks.py)
    assert "RUNAWAY: TileRecursionError Maximum recursion depth (1000)" in r.stdout, r.stdout


TUNE = """
import torch
import cuda.tile as ct
from cuda.tile.tune import exhaustive_search, _tune
from cuda.tile.tune._tune_utils import benchmark_with_timeout, TileLaunchTimeoutError


@ct.kernel
def spin_or_add(flag, out, T: ct.Constant[int]):
    f = ct.load(flag, (0,), (1,)).item()
    while f != 0:           # never ends where flag holds a nonzero value
        ct.atomic_add(out, 0, 1)
    ct.store(out, (0,), ct.load(out, (0,), (T,)) + 1)


def args(cfg):
    return torch.full((1,), cfg, dtype=torch.int32), torch.zeros(8, dtype=torch.int32), 8


result = exhaustive_search([0, 1], None, lambda cfg: (1,), spin_or_add, args, single_run_timeout_sec=3.0,
                           quiet=True)
assert [m.config for m in result.successes] == [0], result
[(cfg, kind, msg)] = result.failures
assert cfg == 1 and kind is TileLaunchTimeoutError and "exceeded timeout" in msg, result.failures
out = torch.zeros(8, dtype=torch.int32)
benchmark_with_timeout(None, (1,), spin_or_add, (torch.zeros(1, dtype=torch.int32), out, 8), 60.0)
assert out.tolist() == [4] * 8, out     # (a warm-up launch and 3 timed ones, written back here)


def make(cfg):
    if cfg == 0:
        @ct.kernel
        def fill(out):
            ct.store(out, (0,), ct.full((8,), not_defined_anywhere, ct.int32))  # noqa: F821
    else:
        @ct.kernel
        def fill(out):
            ct.store(out, (0,), ct.full((8,), cfg, ct.int32))
    return fill


times = {1: 5.0, 2: 1.0}
_tune._benchmark = lambda stream, grid, kernel, args: times[kernel._pyfunc.__closure__[0].cell_contents]
result = exhaustive_search([0, 1, 2], None, lambda cfg: (1,), make, lambda cfg: (torch.zeros(8),), quiet=True)
assert result.best.config == 2 and [f[0] for f in result.failures] == [0], result
assert "2 succeeded, 1 failed" in str(result)
try:
    exhaustive_search([], None, lambda cfg: (1,), make, lambda cfg: ())
except ValueError as e:
    print("EMPTY:", e)
print("RESULT OK")
"""


def test_tune_times_out_a_config_that_never_finishes(tmp_path):
    p = _script(tmp_path, "tune.py", TUNE)
    r = _run([str(p)], tmp_path)    # (before: the search never returned)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert "EMPTY: Search space is empty." in r.stdout


TUPLE_ARGS = """
import torch
import cuda.tile as ct


def total(pair):
    return pair[0] + pair[1]


@ct.kernel
def scalars(a, out, cfg):
    t = ct.load(a, (0,), (8,))
    ct.store(out, (0,), t * cfg[0][1] + cfg[0][0] + total(cfg[1]))


@ct.kernel
def arrays(pair, out):
    acc = ct.zeros((8,), dtype=out.dtype)
    for i in range(len(pair[0])):
        acc = acc + ct.load(pair[0][i], (0,), (8,))
    ct.store(out, (0,), acc + ct.load(pair[1], (0,), (8,)) + pair[-1])


@ct.kernel
def shaped(a, out, cfg: tuple[ct.Constant[int], int]):
    ct.store(out, (0,), ct.load(a, (0,), (cfg[0],)) + cfg[1])


a = torch.ones(8, dtype=torch.int32)
out = torch.zeros(8, dtype=torch.int32)
ct.launch(None, (1,), scalars, (a, out, ((2, 3), (4, 5))))
assert out.tolist() == [3 + 2 + 9] * 8, out
ct.launch(None, (1,), scalars, (a, out, ((2, 3, 99), (4, 6))))    # another nesting: another variant
assert out.tolist() == [3 + 2 + 10] * 8, out
ct.launch(None, (1,), arrays, (([a, a * 2], a * 10, 7), out))
assert out.tolist() == [1 + 2 + 10 + 7] * 8, out
ct.launch(None, (1,), shaped, (torch.arange(8, dtype=torch.int32), out, (8, 5)))
assert out.tolist() == list(range(5, 13)), out
print("RESULT OK")
"""


def test_tuple_arguments_are_flattened_per_nesting(tmp_path):
    p = _script(tmp_path, "tuples.py", TUPLE_ARGS)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


RECURSIVE_COMPILE = """
import os
import sys
import time
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
if len(sys.argv) > 1:
    from translator.shim import triton_fixes
    triton_fixes.install_compiler()


@triton.jit
def deeper(x, N: tl.constexpr):
    if N > 0:
        r = deeper(x, N - 1) + 1
    else:
        r = x
    return r


@triton.jit
def k(x_ptr, y_ptr, N: tl.constexpr):
    tl.store(y_ptr, deeper(tl.load(x_ptr), N))


for n in (109, 100000):
    t0 = time.perf_counter()
    src = ASTSource(k, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"}, constexprs={"N": n})
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32))     # (the front end and TTIR: no GPU)
        print(n, "COMPILED", flush=True)
    except Exception as e:
        print(n, "FAILED", type(e).__name__, f"{time.perf_counter() - t0:.0f} s", flush=True)
"""


def test_compiling_deep_recursion_with_the_fixes(tmp_path):
    # Triton's code generation with the shim's fixes, as the shim runs on a GPU (no interpreter):
    # 109 levels compile (before: Python's recursion limit), 100000 fail at once (before: hung)
    import os
    import subprocess
    import sys
    from test_shim import ROOT
    p = _script(tmp_path, "rec.py", RECURSIVE_COMPILE)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), TRITON_CACHE_DIR=str(tmp_path / "tc"))
    r = subprocess.run([sys.executable, str(p), "fixed"], capture_output=True, text=True, env=env, timeout=300)
    assert "109 COMPILED" in r.stdout and "100000 FAILED" in r.stdout, r.stdout + r.stderr
