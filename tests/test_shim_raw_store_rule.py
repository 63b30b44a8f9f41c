"""cuTile broadcasts a stored value to the offsets' (index) shape, never the offsets to the value's:
RawArrayMemory.store_offset and ct.scatter of a value whose shape does not broadcast to the index
shape raise its TileTypeError when Triton compiles the kernel (_c2t_raw_store, _c2t_scatter_*),
where tl.store broadcast both ways (cutile-python's test_raw_array_memory offset-to-value case)."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def raw_put(y, N: ct.Constant[int], V: ct.Constant[int]):
    mem = y.get_raw_memory()
    mem.store_offset(ct.arange(N, dtype=ct.int64), ct.arange(V, dtype=ct.float32) + 1)


@ct.kernel
def raw_put_2d(y, V: ct.Constant[int]):
    mem = y.get_raw_memory()
    offs = ct.arange(4, dtype=ct.int64)[:, None] * 2 + ct.arange(2, dtype=ct.int64)[None, :]
    mem.store_offset(offs, ct.full((4, V), 3.0, ct.float32), mask=offs < 6)


@ct.kernel
def raw_put_scalar(y):
    y.get_raw_memory().store_offset(ct.arange(8, dtype=ct.int64), 5.0)


@ct.kernel
def scatter_put(y, N: ct.Constant[int], V: ct.Constant[int]):
    ct.scatter(y, ct.arange(N, dtype=ct.int32), ct.arange(V, dtype=ct.float32) + 1)


s = torch.cuda.current_stream()
y = torch.zeros(8, device="cuda")
ct.launch(s, (1,), raw_put, (y, 8, 1))
assert y.tolist() == [1.0] * 8, y
ct.launch(s, (1,), raw_put, (y, 8, 8))
assert y.tolist() == [1.0 + i for i in range(8)], y
y.zero_()
ct.launch(s, (1,), raw_put_2d, (y, 1))
assert y.tolist() == [3.0] * 6 + [0.0] * 2, y
ct.launch(s, (1,), raw_put_scalar, (y,))
assert y.tolist() == [5.0] * 8, y
ct.launch(s, (1,), scatter_put, (y, 4, 1))
assert y.tolist() == [1.0] * 4 + [5.0] * 4, y
for k, args, msg in ((raw_put, (y, 1, 8), "Value shape (8,) is not broadcastable to the index shape (1,)"),
                     (raw_put, (y, 2, 4), "Value shape (4,) is not broadcastable to the index shape (2,)"),
                     (raw_put_2d, (y, 4), "Value shape (4, 4) is not broadcastable to the index shape (4, 2)"),
                     (scatter_put, (y, 4, 8), "Value shape (8,) is not broadcastable to the index shape (4,)")):
    try:
        ct.launch(s, (1,), k, args)
    except ct.TileTypeError as e:
        assert str(e) == msg, (msg, str(e))
    else:
        raise AssertionError(f"no TileTypeError: {msg}")
print("RESULT OK")
"""


def test_stored_values_broadcast_to_the_index_shape_only(tmp_path):
    r = _run([str(_script(tmp_path, "raw.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
