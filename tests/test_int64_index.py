"""Arrays past 32-bit offsets (cutile-python's test_array: an illegal memory access on the H200).

cuTile indexes an array with int32 unless its parameter is annotated `ct.IndexedWithInt64` (or
`Annotated[..., ct.ArrayAnnotation(index_dtype=ct.int64)]`); an unannotated array whose extents or
strides do not fit in int32 is an OverflowError at the launch. The translation computes element
offsets in the indices' width, so: the indices of every access to an annotated array are cast to
int64, and an unannotated array whose elements lie past 2**31 - 1 from its start is refused at the
launch (OverflowError) rather than read through wrapped offsets.

The arrays here are views over one lazily allocated 2 GiB buffer of which a few pages are touched
(the interpreter reads the kernel's few elements in place)."""
import re

from test_shim import _run, _script

from translator.api import translate_source

BIG = """
from typing import Annotated
import torch
import cuda.tile as ct

Wide = Annotated[ct.Array, ct.ArrayAnnotation(index_dtype=ct.int64)]


@ct.kernel
def copy_rows(x: ct.IndexedWithInt64, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ct.store(out, index=(bid, 0), tile=ct.load(x, index=(bid, 0), shape=(1, TILE)))


@ct.kernel
def copy_rows_into(x, out: Wide, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ct.store(out, index=(bid, 0), tile=ct.load(x, index=(bid, 0), shape=(1, TILE)))


@ct.kernel
def gather_rows(x: ct.IndexedWithInt64, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.gather(x, (bid, ct.arange(TILE, dtype=ct.int32)))
    ct.scatter(out, (bid, ct.arange(TILE, dtype=ct.int32)), t)


@ct.kernel
def plain_rows(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ct.store(out, index=(bid, 0), tile=ct.load(x, index=(bid, 0), shape=(1, TILE)))


base = torch.empty(2**31 + 64, dtype=torch.int8)
x = base.as_strided((3, 32), (2**30, 1))      # row 2 starts at element 2**31
for r in range(3):
    x[r] = torch.arange(32, dtype=torch.int8) + r
for k in (copy_rows, gather_rows):
    out = torch.zeros((3, 32), dtype=torch.int8)
    ct.launch(None, (3,), k, (x, out, 32))
    assert torch.equal(out, x), (k, out)
small = torch.arange(96, dtype=torch.int8).reshape(3, 32)
ct.launch(None, (3,), copy_rows_into, (small, x, 32))
assert torch.equal(x, small), x
huge_stride = base.as_strided((1, 32), (2**32, 1))   # cuTile's own rule: a stride past int32
for arr in (x, huge_stride):
    try:
        ct.launch(None, (arr.shape[0],), plain_rows, (arr, torch.zeros_like(arr), 32))
    except OverflowError as e:
        print("REFUSED:", e)
ct.launch(None, (1,), copy_rows, (huge_stride, torch.zeros((1, 32), dtype=torch.int8), 32))
print("RESULT OK")
"""


def test_arrays_past_32_bit_offsets(tmp_path):
    p = _script(tmp_path, "big.py", BIG)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    refused = re.findall(r"REFUSED: (.*)", r.stdout)
    assert len(refused) == 2, r.stdout
    assert "lie past 2**31 - 1 elements" in refused[0] and "IndexedWithInt64" in refused[0]
    assert "do not fit in int32" in refused[1]


VIEWS = """
import cuda.tile as ct

@ct.kernel
def k(x: ct.IndexedWithInt64, y, i: int, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x.slice(0, i, i + TILE), index=(bid, 0), shape=(TILE, TILE))
    v = x.tiled_view((TILE, TILE))
    u = v.load((bid, 1))
    ct.store(y, index=(bid, 0), tile=t + u)
"""


def test_indices_of_annotated_arrays_only_are_widened():
    out = translate_source(VIEWS, "views.py").code
    body = out[out.index("def k("):out.index("def launch_k(")]
    assert "(x + tl.cast(_c2t_slice0, tl.int64) * x_stride_0)" in body     # the slice's start
    assert body.count("tl.cast(bid, tl.int64)") == 2             # the load's index, the view's
    assert "_c2t_store_2d(y, y_shape_0, y_shape_1, y_stride_0, y_stride_1, bid, 0" in body
    assert "x_desc" not in body and "y_desc_0" in body           # no descriptor (32-bit) for x
    assert '_c2t_array(x, 2, "x", i64=True)' in out and '_c2t_array(y, 2, "y", tma=' in out
