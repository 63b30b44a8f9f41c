"""cuTile's rules on ct.gather / ct.scatter's custom mask (a bool tile broadcastable to the index
shape) and on a gather's integer padding constant (in range of the array's dtype), checked when
Triton compiles the helpers (_c2t_gather_message), raised as cuTile's TileTypeError/TileValueError
under the shim (cutile-python's test_gather_scatter mask and padding errors; before, an int mask
was used as a bool, a padding out of range wrapped, and a mask of another shape failed in numpy)."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def gather_masked(x, y, M: ct.Constant[int], pad: ct.Constant[int]):
    rows = ct.arange(4, dtype=ct.int32)[:, None]
    cols = ct.arange(8, dtype=ct.int32)[None, :]
    keep = ct.arange(M, dtype=ct.int32) < 5
    t = ct.gather(x, (rows, cols), mask=keep, padding_value=pad)
    ct.scatter(y, (rows, cols), t)


@ct.kernel
def gather_int_mask(x, y):
    i = ct.arange(8, dtype=ct.int32)
    ct.scatter(y, i, ct.gather(x, i, mask=ct.arange(8, dtype=ct.int16)))


@ct.kernel
def scatter_masked(x, y, M: ct.Constant[int]):
    i = ct.arange(8, dtype=ct.int32)
    keep = ct.arange(M, dtype=ct.int32) < 3
    ct.scatter(y, i, ct.gather(x, i), mask=keep)


@ct.kernel
def scatter_float_mask(x, y):
    i = ct.arange(8, dtype=ct.int32)
    ct.scatter(y, i, ct.gather(x, i), mask=ct.full((8,), 1.0, ct.float32))


@ct.kernel
def padded(x, y, pad: ct.Constant[int]):
    i = ct.arange(8, dtype=ct.int32)
    ct.scatter(y, i, ct.gather(x, i, padding_value=pad).astype(ct.int32))


s = torch.cuda.current_stream()
x2 = torch.arange(32, dtype=torch.int32, device="cuda").reshape(4, 8)
y2 = torch.zeros_like(x2)
ct.launch(s, (1,), gather_masked, (x2, y2, 8, -1))
want = torch.where(torch.arange(8) < 5, x2, torch.full_like(x2, -1))
assert torch.equal(y2, want), y2
x1 = torch.arange(8, dtype=torch.float32, device="cuda")
y1 = torch.zeros(8, device="cuda")
ct.launch(s, (1,), scatter_masked, (x1, y1, 8))
assert y1.tolist() == [0, 1, 2, 0, 0, 0, 0, 0], y1
for dt, pad in ((torch.int8, 127), (torch.int8, -128), (torch.uint8, 255), (torch.int16, -32768)):
    x = torch.arange(5, dtype=dt, device="cuda")
    y = torch.zeros(8, dtype=torch.int32, device="cuda")
    ct.launch(s, (1,), padded, (x, y, pad))
    assert y.tolist() == [0, 1, 2, 3, 4, pad, pad, pad], (dt, pad, y)
errors = ((gather_int_mask, (x1, y1), ct.TileTypeError, "Custom mask must have boolean dtype, but got int16"),
          (scatter_float_mask, (x1, y1), ct.TileTypeError, "Custom mask must have boolean dtype, but got float32"),
          (gather_masked, (x2, y2, 4, 0), ct.TileTypeError,
           "Custom mask shape (4,) is not broadcastable to the index shape (4, 8)"),
          (scatter_masked, (x1, y1, 4), ct.TileTypeError, "Custom mask shape (4,) is not broadcastable to the index shape (8,)"),
          (padded, (torch.zeros(8, dtype=torch.int8), y1, 128), ct.TileValueError, "128 is out of range of int8"),
          (padded, (torch.zeros(8, dtype=torch.uint8), y1, -1), ct.TileValueError, "-1 is out of range of uint8"),
          (padded, (torch.zeros(8, dtype=torch.int16), y1, 40000), ct.TileValueError, "40000 is out of range of int16"))
for k, args, cls, msg in errors:
    try:
        ct.launch(s, (1,), k, args)
    except cls as e:
        assert str(e) == msg, (msg, str(e))
    else:
        raise AssertionError(f"no {cls.__name__}: {msg}")
print("RESULT OK")
"""


def test_gather_scatter_mask_and_padding_rules(tmp_path):
    r = _run([str(_script(tmp_path, "gs.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
