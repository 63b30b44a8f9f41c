"""Unpacking a tuple of known length into another number of names is cuTile's TileValueError
("Too few/many values to unpack (expected N, got M)"), raised by the shim at the launch; before,
the translation ran into Python's ValueError inside Triton."""
import pytest

from kernel_util import build, translate


@pytest.mark.parametrize("value, targets, few, want, got", [
    ("(1, 2)", "a, b, c", "few", 3, 2),
    ("(1, 2, 3)", "a, b", "many", 2, 3),
    ("(ct.bid(0), (1, 2))", "a, (b, c, d)", "few", 3, 2),    # a nested target
    ("((1, 2), 3, 4)", "[a, b]", "many", 2, 3),                # a list target
])
def test_unpacking_another_count_is_cutiles_value_error(value, targets, few, want, got):
    res = translate(f"""
    @ct.kernel
    def k(x):
        t = {value}
        {targets} = t
        ct.scatter(x, (0,), a)
    """)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].code == "C2T109", res.diagnostics
    assert errs[0].cutile == ("TileValueError", f"Too {few} values to unpack (expected {want}, got {got})")


def test_unpacking_the_right_count_runs(tmp_path):
    import torch
    mod = build("""
    @ct.kernel
    def k(x):
        t = (ct.bid(0), (2, 3)), 4
        [(a, [b, c]), d] = t
        ct.scatter(x, (0,), a + b * 10 + c * 100 + d * 1000)

    def run():
        x = torch.zeros(1, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [4320]
