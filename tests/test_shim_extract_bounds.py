"""ct.extract with constant block indices (literals or Constant parameters) outside the grid of
blocks is cuTile's TileTypeError 'Index 2 out of bounds at dimension #0: ...', checked when Triton
compiles the helper (_c2t_extract_message; cutile-python's test_extract_oob_2d); before, the
interpreter read out of bounds and the GPU compile failed. Run-time indices are not checked."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def part(x, y, I: ct.Constant[int], J: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(8, 4))
    ct.store(y, index=(0, 0), tile=ct.extract(t, index=(I, J), shape=(4, 2)))


@ct.kernel
def part_literal(x, y):
    t = ct.load(x, index=(0,), shape=(16,))
    ct.store(y, index=(0,), tile=t.extract(index=(4,), shape=(4,)))


@ct.kernel
def part_runtime(x, y, j):
    t = ct.load(x, index=(0, 0), shape=(8, 4))
    ct.store(y, index=(0, 0), tile=ct.extract(t, index=(j, 0), shape=(4, 2)))


s = torch.cuda.current_stream()
x = torch.arange(32, dtype=torch.float32, device="cuda").reshape(8, 4)
y = torch.zeros(4, 2, device="cuda")
ct.launch(s, (1,), part, (x, y, 1, 1))
assert torch.equal(y, x[4:, 2:]), y
ct.launch(s, (1,), part_runtime, (x, y, 1))
assert torch.equal(y, x[4:, :2]), y
for k, args, msg in ((part, (x, y, 2, 0), "Index 2 out of bounds at dimension #0: valid range is [0, 2) in tile "
                                           "space (input shape (8, 4), result shape (4, 2))"),
                     (part, (x, y, 0, 3), "Index 3 out of bounds at dimension #1: valid range is [0, 2)"),
                     (part_literal, (torch.zeros(16, device="cuda"), torch.zeros(4, device="cuda")),
                      "Index 4 out of bounds at dimension #0: valid range is [0, 4) in tile space "
                      "(input shape (16,), result shape (4,))")):
    try:
        ct.launch(s, (1,), k, args)
    except ct.TileTypeError as e:
        assert str(e).startswith(msg), (msg, str(e))
    else:
        raise AssertionError(f"no TileTypeError: {msg}")
print("RESULT OK")
"""


def test_constant_extract_indices_are_checked_against_the_grid(tmp_path):
    r = _run([str(_script(tmp_path, "ex.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
