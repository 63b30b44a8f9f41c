"""Item assignment in kernel code is refused with cuTile's TileTypeError for the values its
setitem rules make immutable: a tuple, a tile."""
import pytest

from kernel_util import translate


@pytest.mark.parametrize("setup,message", [
    ("v = (1, 2, 3)", "Tuples are immutable: item assignment is not supported."),
    ("v = ct.zeros((4, 4), dtype=ct.float32)", "Tiles are immutable: item assignment is not supported."),
    ("v = ct.arange(8, dtype=ct.int32) + 1", "Tiles are immutable: item assignment is not supported."),
])
def test_item_assignment_is_cutiles_error(setup, message):
    res = translate(f"""
    @ct.kernel
    def k(x):
        {setup}
        v[0] = 7
    """)
    d = [d for d in res.diagnostics if d.code == "C2T103"]
    assert d and d[0].cutile == ("TileTypeError", message), [x.format() for x in res.diagnostics]
