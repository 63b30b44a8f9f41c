"""cuTile's ct.cat rules, checked when Triton compiles the cat helper (templates/prelude_shape.py.j2):
tiles of one dtype, of equal extents off the axis, and a result of power-of-2 extents (tiles'
extents are powers of 2, so the extents along the axis must be equal); each raises cuTile's
TileTypeError under the shim (cutile-python's test_cat mixed dtype and shape). Before, Triton's
tl.join failed (the interpreter's numpy errors; on the GPU 'error encountered during parsing').
Also: the shim reads the failing check's message, not one quoted in the source lines above it."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = '''
import pytest
import torch
import cuda.tile as ct
from cuda.tile import TileTypeError


@ct.kernel
def cat_dtypes_1d(out):
    a = ct.full((4,), 1, ct.int16)
    b = ct.full((4,), 2, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, b), 0).astype(ct.int32))


@ct.kernel
def cat_dtypes_3d(out, axis: ct.Constant[int]):
    a = ct.full((2, 2, 2), 1.0, ct.float16)
    b = ct.full((2, 2, 2), 2.0, ct.float32)
    ct.store(out, (0,), tile=ct.cat((a, b), axis).reshape((16,)).astype(ct.int32))


@ct.kernel
def cat_off_axis(out, axis: ct.Constant[int]):
    a = ct.full((2, 4, 2), 1, ct.int32)
    b = ct.full((2, 2, 2), 2, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, b), axis).reshape((24,)))


@ct.kernel
def cat_along(out):
    a = ct.full((4, 2), 1, ct.int32)
    b = ct.full((8, 2), 2, ct.int32)
    ct.store(out, (0, 0), tile=ct.cat((a, b), 0))


@ct.kernel
def cat_ok(out, axis: ct.Constant[int]):
    a = ct.reshape(ct.arange(8, dtype=ct.int32), (2, 2, 2))
    b = a + 100
    ct.store(out, (0,), tile=ct.cat((a, b), axis).reshape((16,)))


@pytest.mark.parametrize("kernel,args", [(cat_dtypes_1d, ()), (cat_dtypes_3d, (0,)), (cat_dtypes_3d, (-1,))])
def test_dtypes(kernel, args):
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match="Expected tiles to have the same dtype"):
        ct.launch(torch.cuda.current_stream(), (1,), kernel, (out,) + args)


@pytest.mark.parametrize("axis", [0, 2, -3])
def test_off_axis_extents(axis):
    out = torch.zeros(24, dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match="same shape for non axis dimensions"):
        ct.launch(torch.cuda.current_stream(), (1,), cat_off_axis, (out, axis))


def test_off_axis_extents_along_the_axis_that_differs():
    out = torch.zeros(24, dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match="Result tile shape must be power of 2"):
        ct.launch(torch.cuda.current_stream(), (1,), cat_off_axis, (out, 1))


def test_unequal_extents_along_the_axis():
    out = torch.zeros((12, 2), dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match="Result tile shape must be power of 2"):
        ct.launch(torch.cuda.current_stream(), (1,), cat_along, (out,))


@pytest.mark.parametrize("axis", [0, 1, 2, -2])
def test_valid(axis):
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    ct.launch(torch.cuda.current_stream(), (1,), cat_ok, (out, axis))
    a = torch.arange(8, dtype=torch.int32).reshape(2, 2, 2)
    assert out.tolist() == torch.cat((a, a + 100), axis).reshape(16).tolist()
'''


def test_cat_rules_under_the_shim(tmp_path):
    p = tmp_path / "test_cat_rules.py"
    p.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator.shim", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-o", "addopts=", str(p)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=600)
    assert r.returncode == 0 and "12 passed" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]


def test_the_failing_checks_message_is_read():
    """Triton's CompilationError quotes the source lines up to the failing one, then the error."""
    from translator.shim import ct_module
    from translator.shim.kernel import cutile_error
    ct_module.module()      # (sets the error classes cutile_error makes; installs no finder)
    text = ('at 5:4:\n    tl.static_assert(a.dtype == b.dtype, "cuTile TileTypeError: Expected tiles to have '
            'the same dtype")\n    tl.static_assert(a.shape[0] == b.shape[0], "cuTile TileTypeError: Result tile '
            'shape must be power of 2")\n    ^\nStatic assertion failed: cuTile TileTypeError: Result tile '
            'shape must be power of 2')
    err = cutile_error(RuntimeError(text))
    assert type(err).__name__ == "TileTypeError" and str(err) == "Result tile shape must be power of 2", err
