"""cuTile's refusals of ct.static_iter forms, raised with cuTile's error class and words (the shim
raises them at the launch): leaving the unrolled body (break, continue, return; a return in a
`for` inside it), an iterable cuTile's Python evaluation rejects (a runtime range bound, a cuTile
function other than its arithmetic, a scalar, list items, more than 1000 items), static_iter
outside a for loop's iterable or under another name. Our own small kernels."""
import pytest
import torch

from kernel_util import build, translate


def _cutile(src):
    res = translate(src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert errors, "translated"
    return errors[0].cutile


@pytest.mark.parametrize("leave,message", [
    ("continue", "Continue in a for loop with static_iter() is not supported"),
    ("break", "Break in a for loop with static_iter() is not supported"),
    ("return", "Returning from a for loop is not supported"),
])
def test_leaving_the_unrolled_body_is_cutiles_syntax_error(leave, message):
    assert _cutile(f"""
    @ct.kernel
    def k(y):
        for j in ct.static_iter((2, 5, 7)):
            if j > 4:
                if j > 6:
                    {leave}
            ct.scatter(y, j, j)
    """) == ("TileSyntaxError", message)


def test_a_return_in_a_loop_inside_static_iter():
    nested_for = """
    @ct.kernel
    def k(y, n):
        for j in ct.static_iter(range(2)):
            for r in range(n):
                if r == 3:
                    return
                ct.scatter(y, r, j)
    """
    assert _cutile(nested_for) == ("TileSyntaxError", "Returning from a for loop is not supported")
    nested_while = nested_for.replace("for r in range(n):", "while n > 0:")
    assert _cutile(nested_while) is None      # cuTile takes it; the translator's own refusal


def test_a_continue_of_a_loop_inside_static_iter_still_works(tmp_path):
    mod = build("""
    @ct.kernel
    def k(y, n):
        for j in ct.static_iter((1, 3)):
            for r in range(n):
                if r % 2 == 0:
                    continue
                ct.scatter(y, r * 4 + j, r + j)

    def run(n):
        y = torch.zeros(32, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (y, n))
        return y
    """, tmp_path)
    ref = torch.zeros(32, dtype=torch.int32)
    for j in (1, 3):
        for r in range(1, 6, 2):
            ref[r * 4 + j] = r + j
    torch.testing.assert_close(mod.run(6), ref)


EVAL = "Exception was raised inside static_iter() iterable"


@pytest.mark.parametrize("iterable,cutile", [
    ("range(n)", ("TileStaticEvalError", f"{EVAL} (ValueError: Symbolic tile has no concrete value and "
                                         "thus cannot be converted to an integer)")),
    ("range(2, n + 1)", ("TileStaticEvalError", f"{EVAL} (ValueError: Symbolic tile has no concrete value "
                                               "and thus cannot be converted to an integer)")),
    ("(ct.zeros((2,), dtype=ct.int32), 1)",
     ("TileStaticEvalError", "zeros() cannot be called inside static_iter() iterable.")),
    ("range(ct.bid(0))", ("TileStaticEvalError", "bid() cannot be called inside static_iter() iterable.")),
    ("7", ("TileTypeError", "Invalid static_iter() iterable: 'int' object is not iterable")),
    ("2.5", ("TileTypeError", "Invalid static_iter() iterable: 'float' object is not iterable")),
    ("None", ("TileTypeError", "Invalid static_iter() iterable: 'NoneType' object is not iterable")),
    ("(1, [2, 3])", ("TileStaticEvalError", "Invalid item #1 of static_iter() iterable: Cannot create "
                                            "constant from value of type list.")),
    ("((1, 2), (3, [4]))", ("TileStaticEvalError", "Invalid item #1 of static_iter() iterable: Cannot "
                                                   "create constant from value of type list.")),
    ("range(0, 3003, 3)", ("TileStaticEvalError", "Maximum number of iterations (1000) has been reached "
                                                  "while unpacking the static_iter() iterable")),
])
def test_iterables_cutile_cannot_evaluate(iterable, cutile):
    assert _cutile(f"""
    @ct.kernel
    def k(y, n, M: ConstInt):
        for j in ct.static_iter({iterable}):
            ct.scatter(y, 0, 1)
    """) == cutile


def test_iterables_cutile_evaluates_are_translated(tmp_path):
    mod = build("""
    @ct.kernel
    def k(y, M: ConstInt):
        for j in ct.static_iter(range(ct.cdiv(M, 2))):
            ct.scatter(y, j, j + 1)
        for j in ct.static_iter([M, M + 1]):
            ct.scatter(y, j, 9)

    def run():
        y = torch.zeros(16, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (y, 7))
        return y
    """, tmp_path)
    ref = torch.zeros(16, dtype=torch.int32)
    ref[:4] = torch.arange(1, 5)
    ref[7:9] = 9
    torch.testing.assert_close(mod.run(), ref)


def test_static_iter_outside_a_for_loop_or_under_another_name():
    assert _cutile("""
    @ct.kernel
    def k(y):
        items = ct.static_iter((1, 2))
        ct.scatter(y, 0, 1)
    """) == ("TileSyntaxError", "static_iter() is only allowed as iterable in a `for` loop, i.e. "
                                "`for i in ct.static_iter(...)`")
    assert _cutile("""
    @ct.kernel
    def k(y):
        unroll = ct.static_iter
        for j in unroll((1, 2)):
            ct.scatter(y, j, 1)
    """) == ("TileSyntaxError", "static_iter() must be used directly by name, e.g. cuda.tile.static_iter() "
                                "or ct.static_iter().")
