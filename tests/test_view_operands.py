"""TiledView.store and TiledView.atomic_store_<op>: the operand checked against the view's dtype
with cuTile's rules in cuTile's words for views (translator/dtype_rules.py, _c2t_rule_view_error),
before it is cast (a cast first hid every mismatch), under the interpreter vs torch."""
import pytest
import torch

from kernel_util import build
from test_implicit_casts import TORCH, _launch

import translator.dtype_rules as R

VIEW_INTS = ("int32", "int64", "uint32", "uint64")


def test_view_rule_words_and_agrees_with_the_array_rule():
    """Same acceptance as the array rule (a view is its array's memory); only the words differ."""
    assert R.view_operand_error("add", "int8", "int8") == ("TileTypeError", "Unsupported tiled view dtype: int8")
    assert R.view_operand_error("max", "int32", "float32") == ("TileTypeError", "Unsupported tiled view dtype: float32")
    assert R.view_operand_error("xor", "int32", "int64") == (
        "TileTypeError", "Bitwise atomic read-modify-write operations require the update dtype (int32) to "
                         "exactly match the target dtype (int64)")
    assert R.view_operand_error("add", "int64", "int32") == (
        "TileTypeError", "Update is incompatible with the target dtype: cannot implicitly cast int64 to int32")
    assert R.view_operand_error("store", "float32", "float16") == (
        "TileTypeError", "Stored tile is incompatible with tiled view's dtype: cannot implicitly cast float32 to float16")
    assert R.view_operand_error("store", 300, "int8") == (
        "TileValueError", "Stored tile is incompatible with tiled view's dtype: 300 is out of range of int8")
    for op in ("add", "max", "min", "and", "or", "xor"):
        for d in R.DTYPES:
            for s in R.DTYPES + (1, 2**40, 1.5, True):
                assert (R.view_operand_error(op, s, d) is None) == (R.operand_error(op, s, d) is None), (op, s, d)
    for d in R.DTYPES:
        for s in R.DTYPES:
            assert (R.view_operand_error("store", s, d) is None) == R.implicit_cast_ok(s, d), (s, d)


VIEWS = """
@ct.kernel
def add1(x, u, T: ConstInt):
    x.tiled_view(T).atomic_store_add(ct.bid(0), u.tiled_view(T).load(ct.bid(0)))

@ct.kernel
def max2(x, u, TM: ConstInt, TN: ConstInt):
    i = (ct.bid(0), ct.bid(1))
    x.tiled_view((TM, TN)).atomic_store_max(i, u.tiled_view((TM, TN)).load(i))

@ct.kernel
def xor3(x, u, TA: ConstInt, TB: ConstInt, TC: ConstInt):
    i = (ct.bid(0), ct.bid(1), ct.bid(2))
    x.tiled_view((TA, TB, TC)).atomic_store_xor(i, u.tiled_view((TA, TB, TC)).load(i))

@ct.kernel
def store2(x, u, TM: ConstInt, TN: ConstInt):
    i = (ct.bid(0), ct.bid(1))
    x.tiled_view((TM, TN)).store(i, u.tiled_view((TM, TN)).load(i))

@ct.kernel
def store0(x, u):
    x.tiled_view(()).store((), ct.load(u, (), shape=()))

@ct.kernel
def add_const(x, u, T: ConstInt):
    x.tiled_view(T).atomic_store_add(ct.bid(0), 1)

def run(kernel, x, u, tiles):
    grid = tuple((n + t - 1) // t for n, t in zip(x.shape, tiles)) or (1,)
    ct.launch(torch.cuda.current_stream(), grid, kernel, (x, u, *tiles))
"""


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    return build(VIEWS, tmp_path_factory.mktemp("views"))


UPDATE = "cuTile TileTypeError: Update is incompatible with the target dtype: cannot implicitly cast"
STORED = "cuTile TileTypeError: Stored tile is incompatible with tiled view's dtype: cannot implicitly cast"
# (kernel, shape, tile shape, update dtype, view dtype, expected message or None); shapes that the
# tiles divide and ones that they do not
CASES = [
    ("add1", (24,), (8,), "int8", "int32", None), ("add1", (20,), (8,), "float16", "float32", None),
    ("add1", (20,), (8,), "bool_", "float64", None), ("add1", (16,), (8,), "uint32", "uint64", None),
    ("add1", (20,), (8,), "int64", "int32", f"{UPDATE} int64 to int32"),
    ("add1", (16,), (8,), "float32", "int64", f"{UPDATE} float32 to int64"),
    ("add1", (16,), (8,), "int32", "uint32", f"{UPDATE} int32 to uint32"),
    ("add1", (16,), (8,), "int16", "int16", "cuTile TileTypeError: Unsupported tiled view dtype: int16"),
    ("add1", (16,), (8,), "float32", "bool_", "cuTile TileTypeError: Unsupported tiled view dtype: bool_"),
    ("max2", (8, 12), (4, 8), "int16", "int64", None), ("max2", (8, 8), (4, 4), "uint32", "uint32", None),
    ("max2", (8, 8), (4, 4), "float32", "float32", "cuTile TileTypeError: Unsupported tiled view dtype: float32"),
    ("max2", (6, 8), (4, 4), "uint32", "int32", f"{UPDATE} uint32 to int32"),
    ("xor3", (2, 4, 6), (2, 2, 4), "int64", "int64", None),
    ("xor3", (2, 4, 4), (2, 2, 2), "int32", "int64",
     "cuTile TileTypeError: Bitwise atomic read-modify-write operations require the update dtype (int32) to "
     "exactly match the target dtype (int64)"),
    ("xor3", (2, 2, 2), (1, 2, 2), "float64", "float64", "cuTile TileTypeError: Unsupported tiled view dtype: float64"),
    ("store2", (8, 12), (4, 8), "int8", "float32", None), ("store2", (8, 8), (4, 4), "bool_", "int16", None),
    ("store2", (6, 8), (4, 4), "float32", "float16", f"{STORED} float32 to float16"),
    ("store2", (8, 8), (4, 4), "int64", "int32", f"{STORED} int64 to int32"),
    ("store0", (), (), "int32", "float64", None), ("store0", (), (), "float32", "int32", f"{STORED} float32 to int32"),
]


@pytest.mark.parametrize("kernel,shape,tiles,src,dst,expect", CASES, ids=lambda v: str(v)[:20])
def test_view_operands_ranks_0_to_3(views, kernel, shape, tiles, src, dst, expect):
    x = torch.zeros(shape, dtype=TORCH[dst])
    u = torch.ones(shape if kernel != "store0" else (), dtype=TORCH[src])
    assert _launch(views.run, getattr(views, kernel), x, u, tiles) == expect
    if expect is None:       # (0 + 1, max(0, 1), 0 ^ 1, stored: 1 everywhere, the ragged edges too)
        assert torch.equal(x, torch.ones(shape, dtype=TORCH[dst])), x


def test_view_atomic_with_a_loose_constant(views):
    """A Constant update: loosely typed (cast unless it does not fit), as in cuTile."""
    x = torch.zeros(12, dtype=torch.float32)
    assert _launch(views.run, views.add_const, x, x, (8,)) is None
    assert torch.equal(x, torch.ones(12))
    x = torch.zeros(12, dtype=torch.int16)
    assert _launch(views.run, views.add_const, x, x, (8,)) == \
        "cuTile TileTypeError: Unsupported tiled view dtype: int16"


SHAPES = """
@ct.kernel
def store_wide(x, y, T: ConstInt):
    y.tiled_view(T).store(0, ct.load(x, 0, (T * 2,)))

@ct.kernel
def add_rows(x, y, TM: ConstInt, TN: ConstInt, UM: ConstInt):
    x.tiled_view((TM, TN)).atomic_store_add((0, 0), ct.load(y, (0, 0), (UM, TN)))

@ct.kernel
def store_rows(x, y, TM: ConstInt, TN: ConstInt, UM: ConstInt):
    x.tiled_view((TM, TN)).store((0, 0), ct.load(y, (0, 0), (UM, TN)))

def run(kernel, x, y, *consts):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x, y, *consts))
"""


def test_view_operand_shapes_known_only_at_compile_time(tmp_path):
    """Shapes from Constants: broadcast as cuTile broadcasts them, or cuTile's TileTypeError when
    Triton compiles the kernel (shapes known when translating are refused there, C2T109)."""
    m = build(SHAPES, tmp_path)
    x, y = torch.arange(8.0), torch.zeros(8)
    assert _launch(m.run, m.store_wide, x, y, 4) == ("cuTile TileTypeError: Tile shape (8,) is not broadcastable "
                                                     "to the tiled view's tile shape (4,)")
    x2, y2 = torch.zeros(8, 4, dtype=torch.int32), torch.arange(32, dtype=torch.int32).reshape(8, 4)
    assert _launch(m.run, m.add_rows, x2, y2, 8, 4, 1) is None          # (1, 4) rows onto (8, 4)
    assert torch.equal(x2, y2[:1].expand(8, 4))
    assert _launch(m.run, m.add_rows, x2, y2, 4, 4, 8) == ("cuTile TileTypeError: Update shape (8, 4) is not "
                                                           "broadcastable to the tiled view's tile shape (4, 4)")
    assert _launch(m.run, m.store_rows, x2, y2, 8, 4, 2) == ("cuTile TileTypeError: Tile shape (2, 4) is not "
                                                             "broadcastable to the tiled view's tile shape (8, 4)")
    assert _launch(m.run, m.store_rows, x2, y2, 8, 4, 8) is None and torch.equal(x2, y2)
