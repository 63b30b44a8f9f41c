"""The shim (translator/shim): unmodified cuTile programs run on Triton, `import cuda.tile` served
by translations made at each kernel's first launch. Each program here runs in a subprocess under
`python -m translator.shim` on the CPU interpreter (TRITON_INTERPRET=1, the torch.cuda stand-ins).

Without the shim these programs import the installed cuda.tile (or none), whose launches need a
GPU: `test_programs_fail_without_the_shim` runs them with plain `python` and sees them fail, so
every test below fails on the code before the shim (there was no `translator.shim` to run).
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MODULE_KERNEL = """
import torch
import cuda.tile as ct

ConstInt = ct.Constant[int]
SCALE = 2


@ct.function
def scaled(t):
    return t * SCALE


@ct.kernel(occupancy=2)
def vector_add(a, b, c, TILE: ConstInt):
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(pid,), tile=scaled(ta + tb))


n, tile = 1000, 128
a = torch.randn(n, device="cuda")
b = torch.randn(n, device="cuda")
c = torch.empty_like(a)
ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, tile),), vector_add, (a, b, c, tile))
torch.cuda.synchronize()
assert torch.allclose(c, 2 * (a + b)), (c - 2 * (a + b)).abs().max()
assert isinstance(vector_add, ct.kernel)
src = vector_add.source()
assert "SCALE = 2" in src and "@ct.function" in src and "@ct.kernel(occupancy=2)" in src, src
print("RESULT OK")
"""

# the cutile-python test style: a kernel defined inside the test, reading its locals
CLOSURE_KERNEL = """
import sys
import torch
import cuda.tile as ct


def check(tile, dtype):
    TILE = tile

    @ct.kernel
    def shift(x, y):
        bid = ct.bid(0)
        t = ct.full((TILE,), 3, dtype=dtype)
        v = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(y, index=(bid,), tile=(v + t).astype(dtype))

    x = torch.arange(64, dtype=torch.float32, device="cuda")
    y = torch.zeros(64, dtype=dtype, device="cuda")
    ct.launch(torch.cuda.current_stream(), (64 // TILE,), shift, (x, y))
    assert torch.equal(y, (x + 3).to(dtype)), y
    return shift


k16 = check(16, torch.float16)
k32 = check(32, torch.float32)
again = check(16, torch.float16)
assert "TILE = 16" in k16.source() and "dtype = ct.float16" in k16.source(), k16.source()
assert "TILE = 32" in k32.source() and "dtype = ct.float32" in k32.source(), k32.source()
from translator.shim import kernel as K
assert k16.translation() is again.translation()      # (same source: one translation)
print("TRANSLATIONS", len(K._MODULES))
print("RESULT OK")
"""

PYTEST_FILE = """
import pytest
import torch
import cuda.tile as ct
from cuda.tile._exception import TileTypeError   # (imported as cuTile's tests do)


@pytest.mark.parametrize("dtype", [torch.float16, torch.int32])
def test_scale(dtype):
    TILE = 32

    @ct.kernel
    def scale(x, y, factor: ct.Constant[int]):
        bid = ct.bid(0)
        v = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(y, index=(bid,), tile=(v * factor).astype(dtype))

    x = torch.arange(96, device="cuda").to(dtype)
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(96, TILE),), scale, (x, y, 3))
    torch.testing.assert_close(y, x * 3)
"""

# functions bound under other names (cutile-python's test_tiled_view: a kernel factory's parameter
# `get_tv_method` is one of several module functions): each is written under the name the
# kernel reads (before: ShimCaptureError "a function named `add_method` bound to another name")
RENAMED = """
import torch
import cuda.tile as ct


def add_method(tv):
    return tv.atomic_store_add


@ct.function
def doubled(t):
    return t * 2


twice = doubled


def make(get_tv_method):
    @ct.kernel
    def kernel(x, y, T: ct.Constant[int]):
        tv = x.tiled_view(T)
        get_tv_method(tv)(ct.bid(0), twice(y.tiled_view(T).load(ct.bid(0))))
        add_method(tv)(ct.bid(0), y.tiled_view(T).load(ct.bid(0)))
    return kernel


k = make(add_method)
x = torch.ones(32, device="cuda")
y = torch.arange(32, dtype=torch.float32, device="cuda")
ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, 16))
assert torch.equal(x, 1 + 3 * y), x
src = k.source()
assert "def get_tv_method(tv):" in src and "def add_method(tv):" in src and "def twice(t):" in src, src
print("RESULT OK")
"""

UNCAPTURABLE = """
import torch
import cuda.tile as ct


class Config:
    tile = 16


def run():
    cfg = Config()

    @ct.kernel
    def copy(x, y):
        v = ct.load(x, index=(ct.bid(0),), shape=(16,))
        ct.store(y, index=(ct.bid(0),), tile=v + cfg.tile)

    x = torch.zeros(16, device="cuda")
    ct.launch(torch.cuda.current_stream(), (1,), copy, (x, x))


run()
"""

REFUSED = """
import torch
import cuda.tile as ct


@ct.kernel
def bad(x):
    v = ct.load(x, index=(ct.bid(0),), shape=(16,))
    ct.store(x, index=(ct.bid(0),), tile=ct.not_a_cutile_op(v))


ct.launch(torch.cuda.current_stream(), (1,), bad, (torch.zeros(16, device="cuda"),))
"""


# bf16 arithmetic: the stock interpreter computes it on the bit patterns; under the shim the
# kernels get the harness's interpreter numerics (translator/harness/interp_numerics.py)
BF16_KERNEL = """
import torch
import cuda.tile as ct


@ct.kernel
def mixed(a, b, n, c, d, TILE: ct.Constant[int]):
    ta = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
    tb = ct.load(b, index=(ct.bid(0),), shape=(TILE,))
    ct.store(c, index=(ct.bid(0),), tile=ta * tb + ta)
    ct.store(d, index=(ct.bid(0),), tile=ta - ct.load(n, index=(ct.bid(0),), shape=(TILE,)))


g = torch.Generator().manual_seed(0)
a = torch.randn(64, generator=g).to(torch.bfloat16).cuda()
b = torch.randn(64, generator=g).to(torch.bfloat16).cuda()
n = torch.randint(-100, 100, (64,), generator=g, dtype=torch.int32).cuda()
c, d = torch.empty_like(a), torch.empty_like(a)
ct.launch(torch.cuda.current_stream(), (2,), mixed, (a, b, n, c, d, 32))
assert torch.equal(c, a * b + a), (c, a * b + a)
assert torch.equal(d, a - n.to(torch.bfloat16)), (d, a - n)
print("RESULT OK")
"""


def _run(args, tmp_path, shim=True):
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    cmd = [sys.executable] + (["-m", "translator.shim"] if shim else []) + args
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)


def _script(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_module_level_kernel_script(tmp_path):
    p = _script(tmp_path, "vadd.py", MODULE_KERNEL)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    cached = list((tmp_path / "cache" / "shim").glob("k_vector_add_*.py"))
    assert len(cached) == 1     # the translation, kept on disk
    r = _run([str(p)], tmp_path)        # a second process reads it back
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


def test_cli_run(tmp_path):
    p = _script(tmp_path, "vadd.py", MODULE_KERNEL)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator", "run", str(p)], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=600)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


def test_kernel_inside_function_captures_locals(tmp_path):
    p = _script(tmp_path, "closure.py", CLOSURE_KERNEL)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    assert "TRANSLATIONS 2" in r.stdout     # (16, fp16) and (32, fp32): two; the repeat shares one


def test_pytest_under_the_shim(tmp_path):
    p = _script(tmp_path, "test_user.py", PYTEST_FILE)
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", str(p)], tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr


def test_functions_bound_under_other_names(tmp_path):
    p = _script(tmp_path, "renamed.py", RENAMED)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


def test_bf16_kernels_compute_by_value_under_the_interpreter(tmp_path):
    p = _script(tmp_path, "bf16.py", BF16_KERNEL)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr


def test_uncapturable_value_is_a_clear_error(tmp_path):
    p = _script(tmp_path, "uncap.py", UNCAPTURABLE)
    r = _run([str(p)], tmp_path)
    assert r.returncode != 0
    assert "ShimCaptureError: kernel `copy` reads `cfg`, a __main__.Config" in r.stderr, r.stderr
    assert "ct.Constant parameter" in r.stderr


def test_refused_kernel_quotes_diagnostics_at_user_lines(tmp_path):
    p = _script(tmp_path, "refused.py", REFUSED)
    r = _run([str(p)], tmp_path)
    assert r.returncode != 0
    line = 1 + textwrap.dedent(REFUSED).splitlines().index("    ct.store(x, index=(ct.bid(0),), tile=ct.not_a_cutile_op(v))")
    assert f"ShimTranslationError: cutile2triton could not translate kernel `bad`" in r.stderr, r.stderr
    assert f"{p}:{line}:" in r.stderr and "C2T102" in r.stderr, r.stderr


def test_unserved_names_raise_when_used(tmp_path):
    p = _script(tmp_path, "unserved.py", """
        import cuda.tile as ct
        from cuda.tile._bytecode.float import float_to_bits    # imports: a stand-in
        try:
            float_to_bits(1.0)
        except NotImplementedError as e:
            print("USED:", e)
        try:
            ct.compilation.KernelSignature([], None)
        except NotImplementedError as e:
            print("USED:", e)
        try:
            ct.load(None)
        except RuntimeError as e:
            print("HOST:", e)
        """)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "USED: `cuda.tile._bytecode.float.float_to_bits` is not served" in r.stdout
    assert "USED: `cuda.tile.compilation.KernelSignature` is not served" in r.stdout
    assert "HOST: ct.load is a tile operation" in r.stdout


@pytest.mark.parametrize("name,text", [("vadd.py", MODULE_KERNEL), ("closure.py", CLOSURE_KERNEL)])
def test_programs_fail_without_the_shim(tmp_path, name, text):
    # (the cuda.tile installed here, if any, has no GPU to launch on)
    p = _script(tmp_path, name, text)
    r = _run([str(p)], tmp_path, shim=False)
    assert r.returncode != 0 and "RESULT OK" not in r.stdout


def test_kernel_attributes_read_with_a_default_and_set(tmp_path):
    """TileGym's experimental_kernel tags kernel objects (`k._tracked_message = msg`) and its
    patched ct.launch reads `getattr(kernel, "_tracked_message", None)`: an attribute the shim's
    kernel lacks is an AttributeError (it was a NotImplementedError: every TileGym op failed)."""
    p = _script(tmp_path, "attrs.py", """
        import cuda.tile as ct

        @ct.kernel
        def k(x):
            ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(4,)))

        assert getattr(k, "_tracked_message", None) is None and not hasattr(k, "_tracked_message")
        k._tracked_message = "experimental"
        assert k._tracked_message == "experimental"
        try:
            k.no_such_thing
        except AttributeError as e:
            print("ATTR:", e)
        """)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ATTR: kernel.no_such_thing is not served by the cutile2triton shim" in r.stdout


def test_user_enums_and_string_constants_in_closures(tmp_path):
    """A kernel inside a test reads a module enum (its class source needs `Enum`: an import, not
    enum.Enum's own source), a closure variable bound to one of its members, and a string
    (cutile-python's test_enum: 16 tests refused, then 7 for the order of the written names)."""
    p = _script(tmp_path, "enums.py", """
        from enum import Enum, IntEnum
        import torch
        import cuda.tile as ct


        class Color(Enum):
            RED = 0
            BLUE = 2


        class Level(IntEnum):
            LOW = 1
            HIGH = 5


        def run(member):
            name = member.name

            @ct.kernel
            def kernel(out):
                if member.name == name and member == Color.BLUE:
                    ct.scatter(out, (), Level.HIGH)
                else:
                    ct.scatter(out, (), -1)

            out = torch.zeros((), dtype=torch.int32, device="cuda")
            ct.launch(torch.cuda.current_stream(), (1,), kernel, (out,))
            return out.item()


        print("RESULT", run(Color.BLUE), run(Color.RED))
        """)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "RESULT 5 -1" in r.stdout


# cuTile's host-side typing helpers, as cutile-python's tests use them to know what to expect, and
# cuTile's TileTypeError where a translated kernel's compile-time check refuses an implicit cast
CAST_TESTS = """
import re
import pytest
import torch
import cuda.tile as ct
from cuda.tile._exception import TileTypeError
from cuda.tile._ir.cast_ops import _is_implicit_cast_ok
from cuda.tile._ir.typing_support import to_dtype


@ct.kernel
def copy(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))


@ct.kernel
def bits(x, y, T: ct.Constant[int]):
    i = ct.arange(T, dtype=ct.int32)
    ct.atomic_xor(x, i, ct.gather(y, i))


def test_to_dtype():
    d = to_dtype(torch.int32)
    assert str(d) == "int32" and repr(d) == "<DType 'int32'>" and d == ct.int32 and ct.int32 == d
    assert to_dtype(ct.float16) == torch.float16 and to_dtype(torch.float32) in (ct.float32, ct.float64)
    assert to_dtype(torch.bool) != to_dtype(torch.int8) and len({d, ct.int32}) == 1
    assert str(to_dtype(ct.tfloat32)) == "tfloat32"
    with pytest.raises(TypeError):
        to_dtype(3)


@pytest.mark.parametrize("src", [torch.float16, torch.float32, torch.int64, torch.bool])
@pytest.mark.parametrize("dst", [torch.float32, torch.float16, torch.int32, torch.int8])
def test_store(src, dst):
    x = torch.ones(32, dtype=src, device="cuda")
    y = torch.zeros(32, dtype=dst, device="cuda")
    ok = _is_implicit_cast_ok(to_dtype(src), to_dtype(dst))
    assert ok == ((src, dst) in [(torch.float16, torch.float32), (torch.float32, torch.float32),
                                 (torch.int64, torch.float32), (torch.int64, torch.float16)]
                  or src == torch.bool or src == dst)
    if ok:
        ct.launch(torch.cuda.current_stream(), (1,), copy, (x, y, 32))
        assert torch.equal(y, x.to(dst))
    else:
        with pytest.raises(TileTypeError, match=re.escape("cannot implicitly cast")):
            ct.launch(torch.cuda.current_stream(), (1,), copy, (x, y, 32))


def test_bitwise_atomic_message():
    x = torch.zeros(16, dtype=torch.int64, device="cuda")
    y = torch.ones(16, dtype=torch.int32, device="cuda")
    msg = (f"Bitwise atomic read-modify-write operations require the update dtype ({to_dtype(y.dtype)}) "
           f"to exactly match the target dtype ({to_dtype(x.dtype)})")
    with pytest.raises(TileTypeError, match=re.escape(msg)):
        ct.launch(torch.cuda.current_stream(), (1,), bits, (x, y, 16))
    with pytest.raises(TileTypeError, match="Unsupported array dtype: float32"):
        ct.launch(torch.cuda.current_stream(), (1,), bits, (x.float(), y.float(), 16))
"""


def test_implicit_casts_under_the_shim(tmp_path):
    p = _script(tmp_path, "test_casts.py", CAST_TESTS)
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", str(p)], tmp_path)
    assert r.returncode == 0 and "18 passed" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]


PARAM_IDS = """
import pytest
import cuda.tile as ct


@ct.kernel
def copy_a(x):
    ct.store(x, (0,), ct.load(x, (0,), (4,)))


@ct.kernel
def copy_b(x):
    ct.store(x, (0,), ct.load(x, (0,), (4,)))


@pytest.mark.parametrize("kernel", [copy_a, copy_b])
def test_k(kernel):
    assert not hasattr(kernel, "__name__") and "copy_" in repr(kernel)
"""


def test_kernels_have_no_name_attribute_so_test_ids_are_cutiles(tmp_path):
    """cuTile's kernel objects have no __name__ (nor __qualname__, __wrapped__); pytest names a
    parameter by its __name__ where it has one, so a shim kernel with one gave other test ids than
    cuTile's (`test_k[copy_a]` for `test_k[kernel0]`) and the two sides' tests did not match."""
    _script(tmp_path, "test_ids.py", PARAM_IDS)
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", "test_ids.py"], tmp_path)
    assert "test_ids.py::test_k[kernel0]" in r.stdout and "test_ids.py::test_k[kernel1]" in r.stdout, \
        r.stdout + r.stderr
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_ids.py"], tmp_path)
    assert "2 passed" in r.stdout, r.stdout + r.stderr


def test_name_bound_nowhere_is_cutiles_tile_syntax_error(tmp_path):
    # a kernel reading a name nothing binds: the capture's error is cuTile's TileSyntaxError
    # "Undefined variable", as cuTile's compiler raises it from ct.launch
    p = _script(tmp_path, "unbound.py", """
        import torch
        import cuda.tile as ct

        @ct.kernel
        def twice(x, T: ct.Constant[int]):
            t = ct.load(x, index=(0,), shape=(T,))
            ct.store(x, index=(0,), tile=t + never_bound)  # noqa: F821

        x = torch.zeros(4).cuda()
        try:
            ct.launch(torch.cuda.current_stream(), (1,), twice, (x, 4))
        except ct.TileSyntaxError as e:
            assert "Undefined variable never_bound used" in str(e), e
            print("RESULT OK")
    """)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
