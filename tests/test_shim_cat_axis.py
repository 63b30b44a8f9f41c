"""ct.cat with its axis a ct.Constant parameter (the helper's constexpr AXIS, checked against the
rank when Triton compiles it: cuTile's TileTypeError out of range), and cuTile's TileTypeError for
more than two tiles and tiles of different ranks (cutile-python's test_cat), under the shim."""
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
def cat2d(out, axis: ct.Constant[int]):
    a = ct.full((2, 4), 1, ct.int32)
    b = ct.full((2, 4), 2, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, b), axis).reshape((16,)))


@ct.kernel
def cat3d(out, axis: ct.Constant[int]):
    a = ct.full((2, 2, 2), 1, ct.int32)
    b = ct.full((2, 2, 2), 2, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, b), axis).reshape((16,)))


@ct.kernel
def cat_three(out):
    a = ct.full((4,), 1, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, a, a), 0))


@ct.kernel
def cat_ranks(out):
    a = ct.full((2, 2), 1, ct.int32)
    b = ct.full((2, 2, 1), 1, ct.int32)
    ct.store(out, (0,), tile=ct.cat((a, b), 0).reshape((8,)))


@pytest.mark.parametrize("kernel,rank,axis", [(cat2d, 2, 0), (cat2d, 2, 1), (cat2d, 2, -1),
                                              (cat3d, 3, 2), (cat3d, 3, -3)])
def test_constant_axis(kernel, rank, axis):
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (out, axis))
    shape = (2, 4) if rank == 2 else (2, 2, 2)
    a = torch.ones(shape, dtype=torch.int32)
    assert out.tolist() == torch.cat((a, 2 * a), axis).reshape(16).tolist()


@pytest.mark.parametrize("kernel,axis", [(cat2d, 2), (cat2d, -3), (cat3d, 3)])
def test_constant_axis_out_of_range(kernel, axis):
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match="out of range"):
        ct.launch(torch.cuda.current_stream(), (1,), kernel, (out, axis))


@pytest.mark.parametrize("kernel,message", [(cat_three, "at most 2 tiles, got 3"),
                                            (cat_ranks, "same rank")])
def test_refused(kernel, message):
    out = torch.zeros(16, dtype=torch.int32, device="cuda")
    with pytest.raises(TileTypeError, match=message):
        ct.launch(torch.cuda.current_stream(), (1,), kernel, (out,))
'''


def test_cat_axis_under_the_shim(tmp_path):
    p = tmp_path / "test_cat_axis.py"
    p.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator.shim", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-o", "addopts=", str(p)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=600)
    assert r.returncode == 0 and "10 passed" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]
