"""cuTile's rules for indexing a tuple in kernel code: an integer known at translation time
(out of range: cuTile's TileTypeError), never a float, a tuple or a tile that is not 0-d, never a
runtime scalar ("must be constant"); tuples are immutable. Each is cuTile's TileTypeError (C2T218
or the C2T103 that carries it); a Constant parameter index stays Triton's to check."""
import pytest

from kernel_util import translate

CASES = [
    ("t[1.0]", "Tuple indices must be integers or slices, not float"),
    ("t[(4, 5)]", "Tuple indices must be integers or slices, not a tuple"),
    ("t[ct.ones((2,), dtype=ct.int32)]", "Tuple indices must be integers or slices, not a tile of rank 1"),
    ("t[ct.bid(0)]", "Tuple indices must be constant"),
    ("t[3]", "Index 3 is out of range for a tuple of length 3"),
]


@pytest.mark.parametrize("expr,message", CASES)
def test_tuple_index_refusals_are_cutiles(expr, message):
    res = translate(f"""
    @ct.kernel
    def k(x):
        t = (1, 2, 3)
        v = {expr}
        ct.scatter(x, (0,), 1)
    """)
    notes = [d for d in res.diagnostics if d.code == "C2T218"]
    assert notes and message in notes[0].message, [d.format() for d in res.diagnostics]


def test_constant_and_negative_indices_are_kept():
    res = translate("""
    @ct.kernel
    def k(x, N: ConstInt):
        t = (1, 2, 3)
        ct.scatter(x, (0,), t[N] + t[-1])
    """)
    assert res.ok and not [d for d in res.diagnostics if d.code == "C2T218"], [d.format() for d in res.diagnostics]
    assert "t[N] + t[2]" in res.code


def test_tuple_item_assignment_is_cutiles_error():
    res = translate("""
    @ct.kernel
    def k(x):
        t = (1, 2, 3)
        t[0] = 7
    """)
    d = [d for d in res.diagnostics if d.code == "C2T103"]
    assert d and d[0].cutile == ("TileTypeError", "Tuples are immutable: item assignment is not supported.")
