"""cuTile's rules for comparing tuples in kernel code: only `==` / `!=`, and (unless both are
constants or their lengths differ) items that are scalars, 0-d tiles, tuples, dtypes or strings;
each refusal is cuTile's TileTypeError (C2T218). Tuples of scalars still compare."""
import pytest
import torch

from kernel_util import build, translate


@pytest.mark.parametrize("cond,message", [
    ("(1, 2) < (3, 4)", "Operator '<' is not supported for tuples"),
    ("(t,) == (t,)", "Tuple comparison is not supported for non-scalar elements"),
    ("(ct.bid(0), t) != (0, t)", "Tuple comparison is not supported for non-scalar elements"),
])
def test_tuple_comparison_refusals_are_cutiles(cond, message):
    res = translate(f"""
    @ct.kernel
    def k(x):
        t = ct.ones((4,), dtype=ct.int32)
        if {cond}:
            ct.scatter(x, (0,), 1)
    """)
    notes = [d for d in res.diagnostics if d.code == "C2T218"]
    assert notes and message in notes[0].message, [d.format() for d in res.diagnostics]


def test_tuples_of_scalars_and_of_other_lengths_compare(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x):
        a = ct.bid(0)
        t = ct.ones((4,), dtype=ct.int32)
        r = 0
        if ((a, 1), 2) == ((0, 1), 2):
            r += 1
        if (a, t) != (a,):          # lengths differ: no item check, not equal
            r += 10
        ct.scatter(x, (a,), r)

    def run():
        x = torch.zeros(2, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (2,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [11, 10]
