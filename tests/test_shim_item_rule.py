"""tile.item() of a tile of more than one element is cuTile's TileTypeError 'Cannot reshape (2,) to ()'
(cutile-python's test_extract non-scalar item), checked when Triton compiles the kernel (_c2t_item);
before, Triton's reshape failed ('can only unsplat single-element tensors'). One-element tiles of
any rank, and scalars, give their value."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def pick(x, y, T: ct.Constant[int], S: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(T,))
    v = ct.extract(t, index=(1,), shape=(S,)).item()
    ct.store(y, index=(0,), tile=ct.full((T,), v, dtype=y.dtype))


@ct.kernel
def whole(x, y, R: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(R, C))
    ct.store(y, index=(0,), tile=ct.full((8,), t.item() + 1, dtype=y.dtype))


@ct.kernel
def reduced(x, y):
    s = ct.sum(ct.load(x, index=(0,), shape=(8,)))
    ct.store(y, index=(0,), tile=ct.full((8,), s.item(), dtype=y.dtype))


x = torch.arange(8, dtype=torch.float32, device="cuda")
y = torch.zeros(8, device="cuda")
s = torch.cuda.current_stream()
ct.launch(s, (1,), pick, (x, y, 8, 1))
assert y.tolist() == [1.0] * 8, y
ct.launch(s, (1,), whole, (x[3:].reshape(1, 5)[:, :1].contiguous(), y, 1, 1))
assert y.tolist() == [4.0] * 8, y
ct.launch(s, (1,), reduced, (x, y))
assert y.tolist() == [28.0] * 8, y
for k, args, shape in ((pick, (x, y, 8, 2), "(2,)"), (pick, (x, y, 8, 4), "(4,)"),
                       (whole, (x.reshape(2, 4), y, 2, 4), "(2, 4)"), (whole, (x.reshape(2, 4), y, 1, 2), "(1, 2)")):
    try:
        ct.launch(s, (1,), k, args)
    except ct.TileTypeError as e:
        assert str(e) == f"Cannot reshape {shape} to ()", str(e)
    else:
        raise AssertionError(f"no TileTypeError for {shape}")
print("RESULT OK")
"""


def test_item_of_a_tile_of_several_elements_is_cutiles_error(tmp_path):
    r = _run([str(_script(tmp_path, "item.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
