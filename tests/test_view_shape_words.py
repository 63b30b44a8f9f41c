"""Refusals of views, shapes and tile subscripts that are cuTile's own compile errors carry cuTile's
error class and words (`Diagnostic.cutile`: the shim raises them from ct.launch), and the forms
cuTile accepts there are translated: `np.newaxis` in a tile subscript, ct.reshape of a Python
number. Our own small kernels."""
import os

import pytest
import torch

from kernel_util import build, translate


def _refusal(src: str):
    res = translate(src)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs, "no error: " + "\n".join(d.format() for d in res.diagnostics)
    return errs[0]


def _cutile(src: str):
    return _refusal(src).cutile


@pytest.mark.parametrize("shape,words", [
    ("(2, 4)", "Expected shape length to be 3, got 2"),          # the length is checked first
    ("(2, 6, 4)", "Dimension #1 of shape (2, 6, 4) is not a power of two"),
    ("(2, 0, 4)", "Dimension #1 of shape (2, 0, 4) is not positive"),
])
def test_tiled_view_tile_shape(shape, words):
    src = f"""
    @ct.kernel
    def k(a):
        t = ct.load(a, (0, 0, 0), shape=(2, 2, 2))
        a.tiled_view({shape}).store((0, 0, 0), t)
    """
    assert _cutile(src) == ("TileTypeError", words)


@pytest.mark.parametrize("steps,words", [
    ("(2, 2, 2)", "Expected traversal_steps length to be 2, got 3"),
    ("(0, 2)", "Dimension #0 of traversal_steps (0, 2) is not positive"),
    ("(4, -2)", "Dimension #1 of traversal_steps (4, -2) is not positive"),
])
def test_tiled_view_traversal_steps(steps, words):
    src = f"""
    @ct.kernel
    def k(a):
        tv = a.tiled_view((4, 4), traversal_steps={steps})
        tv.store((0, 0), ct.zeros((4, 4), ct.float32))
    """
    assert _cutile(src) == ("TileTypeError", words)


def test_tiled_view_broadcast_words_for_store_and_atomics():
    src = """
    @ct.kernel
    def k(a, b):
        u = b.tiled_view(4).load(0)
        a.tiled_view(8).{op}(0, u)
    """
    assert _cutile(src.format(op="atomic_store_max")) == (
        "TileTypeError", "Update shape (4,) is not broadcastable to the tiled view's tile shape (8,)")
    assert _cutile(src.format(op="store")) == (
        "TileTypeError", "Tile shape (4,) is not broadcastable to the tiled view's tile shape (8,)")


def test_tiled_views_of_two_tile_shapes_on_the_paths_of_an_if():
    src = """
    @ct.kernel
    def k(a, flag: int, P: ConstInt, Q: ConstInt):
        if flag > 0:
            v = a.tiled_view(P)
        else:
            v = a.tiled_view(Q)
        v.store(0, ct.zeros((P,), ct.float32))
    """
    cls, words = _cutile(src)
    assert cls == "TileTypeError" and words.startswith("Type of `v` depends on path taken: "), words


@pytest.mark.parametrize("indices,words", [
    ("(ct.Slice(0, 2), ct.Slice(j, 4))",
     "load_advanced_indexing/store_advanced_indexing: exactly one index must be a 1D integer Tile "
     "(the sparse dim); none found"),
    ("(ct.arange(4, dtype=ct.int32), ct.arange(2, dtype=ct.int32) + j)",
     "load_advanced_indexing/store_advanced_indexing: exactly one index must be a 1D integer Tile "
     "(the sparse dim); found 2 at dims [0, 1]"),
    ("(ct.zeros((2, 2), dtype=ct.int32), ct.Slice(0, 4))", "Sparse index at dim 0 must be a 1D integer tile, got 2D"),
    ("(ct.Slice(0, 4), ct.arange(8, dtype=ct.int32), ct.Slice(1, 6))",
     "Index at dim 2 has size 6; must be a power of two"),
    ("(ct.arange(8, dtype=ct.int32), ct.Slice(1, 0))", "ct.Slice length at dim 1 must be a positive integer, got 0"),
])
def test_advanced_indexing_words(indices, words):
    rank = indices.count("ct.Slice") + indices.count("ct.arange") + indices.count("ct.zeros")
    src = f"""
    @ct.kernel
    def k(a, j):
        t = ct.load_advanced_indexing(a, {indices})
        ct.store(a, {(0,) * rank}, t)
    """
    assert _cutile(src) == ("TileTypeError", words)


@pytest.mark.parametrize("sub,words", [
    ("t[1]", "Directly indexing a tile is not supported; use `extract()` or `item()` instead."),
    ("t[:]", "Directly indexing a tile is not supported; use `extract()` or `item()` instead."),
    ("t[...]", "Directly indexing a tile is not supported; use `extract()` or `item()` instead."),
    ("t[1:]", "Directly indexing a tile is not supported; use `extract()` or `item()` instead."),
    ("t[:, 2]", "Expected `None|np.newaxis` or `ellipsis` or full slice (`:`), but got 2. "
                "Hint: Directly indexing a tile is not supported, use `extract` or `item`."),
    ("t[None, ::4]", "Expected `None|np.newaxis` or `ellipsis` or full slice (`:`), but got "
                     "slice(None, None, 4). Hint: Directly indexing a tile is not supported, use `extract` or `item`."),
    ("t[:, :, :]", "Tile is 2-dimensional, but 3 were indexed"),
])
def test_tile_subscript_words(sub, words):
    src = f"""
    @ct.kernel
    def k(a):
        t = ct.load(a, (0, 0), shape=(4, 4))
        ct.store(a, (0, 0), {sub})
    """
    assert _cutile(src) == ("TileTypeError", words)


def test_reshape_with_two_implicit_extents():
    src = """
    @ct.kernel
    def k(a, b, N: ConstInt):
        t = ct.load(a, (0,), shape=(N,))
        ct.store(b, (0, 0, 0), ct.reshape(t, (2, -1, -1)))
    """
    assert _cutile(src) == ("TileTypeError", "Only one dimension can be -1, got (2, -1, -1)")


NEWAXIS = """
import numpy as np

@ct.kernel
def lift(a, out, N: ConstInt):
    t = ct.load(a, (0,), shape=(N,))
    ct.store(out, (0, 0, 0), t[np.newaxis, :, np.newaxis] * 2)


@ct.kernel
def numbers(o1, o2):
    ct.store(o1, (0, 0), ct.reshape(7, (1, 1)))
    ct.store(o2, (0,), ct.reshape(2.5, (1,)))
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
def test_newaxis_and_reshaped_numbers_run(tmp_path):
    mod = build(NEWAXIS, tmp_path)
    a = torch.arange(8, dtype=torch.float32)
    out = torch.zeros(1, 8, 1)
    mod.launch_lift((1,), a, out, 8)
    torch.testing.assert_close(out, (a * 2).view(1, 8, 1))
    o1, o2 = torch.zeros(1, 1, dtype=torch.int64), torch.zeros(1, dtype=torch.float64)
    mod.launch_numbers((1,), o1, o2)
    assert o1.item() == 7 and o2.item() == 2.5


@pytest.mark.parametrize("value,index,words", [
    ("ct.full((4,), 1.0, ct.float32)", "(0, 0)", "Value rank 1 does not match the tile rank 2"),
    ("ct.full((2, 4), 1.0, ct.float32)", "(1,)", "Index size 1 does not match the tile rank 2"),
])
def test_insert_ranks(value, index, words):
    src = f"""
    @ct.kernel
    def k(a):
        t = ct.load(a, (0, 0), shape=(4, 8))
        ct.store(a, (0, 0), ct.insert(t, {index}, {value}))
    """
    assert _cutile(src) == ("TileTypeError", words)


@pytest.mark.parametrize("call,words", [
    ("ct.num_tiles(a, axis=2, shape=(4, 4))", "Axis 2 is out of range for rank 2'"),
    ("ct.num_tiles(a, axis=-3, shape=(4, 4))", "Axis -3 is out of range for rank 2'"),
    ("ct.arange(ct.bid(0), dtype=ct.int32).sum()", "Expected an integer constant, but given value is not constant"),
    ("ct.arange(6, dtype=ct.int32).sum()", "Result tile shape must be power of 2, got 6"),
])
def test_num_tiles_and_arange_words(call, words):
    src = f"""
    @ct.kernel
    def k(a, out):
        t = ct.load(a, (0, 0), shape=(2, 2))
        ct.store(out, (0,), ct.full((1,), {call}, ct.int32))
    """
    assert _cutile(src) == ("TileTypeError", words)


NUM_TILES = """
@ct.kernel
def counts(a, out):
    t = ct.load(a, (0, 0), shape=(2, 2))
    ct.store(out, (0,), ct.full((1,), ct.num_tiles(a, axis=-1, shape=(2, 4)), ct.int32))
    ct.store(out, (1,), ct.full((1,), ct.num_tiles(a, axis=0, shape=()), ct.int32))
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
def test_num_tiles_of_a_negative_axis_and_a_0d_shape(tmp_path):
    mod = build(NUM_TILES, tmp_path)
    out = torch.zeros(2, dtype=torch.int32)
    mod.launch_counts((1,), torch.zeros(6, 10), out)
    assert out.tolist() == [3, 6]


INSERTS = """
@ct.kernel
def other_dtype(a, T: ConstInt):
    t = ct.load(a, (0,), shape=(T,))
    ct.store(a, (0,), ct.insert(t, 0, ct.full((T // 2,), 1, dtype=ct.int32)))


@ct.kernel
def too_wide(a, T: ConstInt):
    t = ct.load(a, (0,), shape=(T,))
    ct.store(a, (0,), ct.insert(t, 0, ct.full((2 * T,), 1.0, dtype=a.dtype)))
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
def test_insert_checks_at_compile_time_say_cutiles_words(tmp_path):
    """ct.insert's dtype and divisibility rules need Constant values: checked when Triton compiles,
    in cuTile's words (the shim raises them as cuTile's TileTypeError: shim/kernel.py cutile_error)."""
    mod = build(INSERTS, tmp_path)
    with pytest.raises(Exception, match="cuTile TileTypeError: Cannot insert a tile of dtype"):
        mod.launch_other_dtype((1,), torch.zeros(16), 16)
    with pytest.raises(Exception, match="cuTile TileTypeError: Input shape is not divisible by value shape"):
        mod.launch_too_wide((1,), torch.zeros(16), 16)


@pytest.mark.parametrize("value,words", [
    ("()", "Tuple length 0 at value is not a power of 2"),
    ("((1, 2), (3, 4, 5))", "Tuple length 3 at value[1] is not a power of 2"),
    ("((1, 2), (3,))", "Tuple has non-uniform inner shapes at value"),
    ("((1, 2), (3, 'b'))", "Expected scalar elements at value[1][1]; got an element that is not a scalar"),
    ("((1,), (ct.full((4,), 1, ct.int32),))", "Expected scalar elements at value[1][0]; got a tile of shape (4,)"),
    ("ct.full((2,), 1, ct.int32)", "Expected a scalar or (possibly nested) tuple of scalars; got a value that is "
                                   "neither"),
])
def test_astile_words(value, words):
    src = f"""
    @ct.kernel
    def k(a):
        ct.store(a, (0, 0), ct.astile({value}, dtype=ct.int32))
    """
    assert _cutile(src) == ("TileTypeError", words)


REPEAT = """
@ct.kernel
def corner3(a, out):
    t = ct.load(a, (0,) * 3, shape=(2,) * 3)
    ct.store(out, (0,) * 3, t + 1)
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
def test_tuple_repetition_is_a_tuple_of_its_elements(tmp_path):
    mod = build(REPEAT, tmp_path)
    a = torch.arange(27.0).reshape(3, 3, 3)
    out = torch.zeros(2, 2, 2)
    mod.launch_corner3((1,), a, out)
    torch.testing.assert_close(out, a[:2, :2, :2] + 1)


def test_static_assert_of_a_sliced_extent_with_run_time_bounds():
    src = """
    @ct.kernel
    def k(a, lo: int, hi: int):
        ct.static_assert(a.slice(axis=0, start=lo, stop=hi).shape[0] == 8)
        ct.store(a, (0,), ct.zeros((1,), ct.float32))
    """
    # inside the condition, Array.slice is a call cuTile's static evaluation refuses (it is not a
    # static_eval_ok stub); computed before, its run-time extent is not a constant
    assert _cutile(src) == ("TileStaticEvalError", "slice() cannot be called inside static_assert() condition.")
    hoisted = src.replace("ct.static_assert(a.slice(axis=0, start=lo, stop=hi).shape[0] == 8)",
                          "b = a.slice(axis=0, start=lo, stop=hi)\n        ct.static_assert(b.shape[0] == 8)")
    assert _cutile(hoisted) == ("TileTypeError", "static_assert() condition must be a compile-time constant")
