"""A launch's array ranks under the shim: cuTile compiles a kernel for the ranks of its arguments,
so a kernel whose text shows no rank for an array (rank-polymorphic: `x.ndim`, `x.shape`, a 0-d
tiled view) gets a translation per rank it is launched with, and one whose text shows another
rank than a launch gives (a tile shape of 2 entries, launched with a 1-D array) is translated for
the launch's rank, where cuTile's own error is raised (shim/kernel.py ShimKernel.launch,
Options.ranks, lower/kernels.py _pin_launch_ranks). Our own program, run under the shim on the CPU."""
from test_shim import _run, _script

POLY = """
import torch
import cuda.tile as ct

@ct.kernel
def corner(x, out):
    # no use shows x's rank: one translation per rank the launches give
    t = x.tiled_view(()).load((0,) * x.ndim)
    ct.store(out, (ct.bid(0),), ct.reshape(t, (1,)) + x.shape[x.ndim - 1])

@ct.kernel
def view_of(x, T: ct.Constant[int]):
    # a tile shape of 2 entries: x is 2-D, and cuTile says so at other ranks
    x.tiled_view((T, T)).store((0, 0), ct.full((T, T), 1.0, ct.float32))

@ct.kernel
def gather_rows(x, out):
    rows = ct.arange(4, dtype=ct.int32)
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(0, 2), ct.Slice(0, 2)))
    ct.store(out, (0, 0, 0), t)

for shape in [(3,), (3, 4), (3, 2, 5), (2, 1, 3, 6)]:
    x = torch.arange(1, torch.Size(shape).numel() + 1, dtype=torch.float32).reshape(shape)
    out = torch.zeros(3)
    ct.launch(None, (3,), corner, (x, out))
    assert torch.equal(out, torch.full((3,), 1.0 + shape[-1])), (shape, out)
y = torch.zeros(4, 4)
ct.launch(None, (1,), view_of, (y, 4))
assert y.sum().item() == 16

def refused(kernel, args, words):
    try:
        ct.launch(None, (1,), kernel, args)
    except ct.TileTypeError as e:
        assert str(e) == words, e
    else:
        raise AssertionError(words)

for shape in [(8,), (4, 4, 4)]:
    refused(view_of, (torch.zeros(shape), 4), f"Expected shape length to be {len(shape)}, got 2")
refused(gather_rows, (torch.zeros(8, 8), torch.zeros(4, 2, 2)),
        "load_advanced_indexing/store_advanced_indexing index length 3 does not match array rank 2")
x = torch.arange(64.0).reshape(4, 4, 4)
out = torch.zeros(4, 2, 2)
ct.launch(None, (1,), gather_rows, (x, out))
assert torch.equal(out, x[:, :2, :2])
print("RESULT OK")
"""


def test_launch_ranks_pick_the_translation(tmp_path):
    r = _run([str(_script(tmp_path, "poly.py", POLY))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


BROADCAST_ATOMIC = """
import torch
import cuda.tile as ct

@ct.kernel
def bump(x, y):
    u = y.tiled_view((1, 1)).load((0, 0))
    x.tiled_view((16, 8)).atomic_store_add((0, 0), u)
    ct.atomic_add(x, (ct.arange(16, dtype=ct.int32)[:, None], ct.arange(8, dtype=ct.int32)[None, :]),
                  ct.reshape(u, (1, 1)))

x = torch.zeros(16, 8)
ct.launch(None, (1,), bump, (x, torch.full((1, 1), 2.0)))
assert torch.equal(x, torch.full((16, 8), 4.0)), x
print("RESULT OK")
"""


def test_broadcast_atomic_updates_under_the_interpreter(tmp_path):
    """The stock interpreter's atomics read a broadcast (zero-stride) update past its one element
    (NaNs); the shim makes it dense (triton_fixes.py)."""
    r = _run([str(_script(tmp_path, "bump.py", BROADCAST_ATOMIC))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
