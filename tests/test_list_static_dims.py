"""Lists of arrays whose hint makes their arrays' extents or strides compile-time constants
(`Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation(static_shape_dims=...,
static_stride_dims=...))]`), as cuTile has them: the kernel sees constexprs (`ct.static_assert` on
them holds at compile time), and a launch whose arrays disagree on one is cuTile's ValueError
"Arrays in list vary in static <shape|stride> at axis <a> (<first> vs <other>)". Before, the list's
extents and strides were read from its table only (static_assert on them was refused, C2T105) and
disagreeing arrays ran."""
import pytest
import torch

from kernel_util import build, compile_sm90

LISTS = """
from typing import Annotated

Rows = Annotated[list, ct.ListAnnotation(element=ct.ArrayAnnotation(static_stride_dims=(0,), static_shape_dims=(-1,)))]


@ct.kernel
def total(parts: Rows, out):
    first = parts[0]
    ct.static_assert(first.strides[0] == 12)
    ct.static_assert(first.shape[1] == 6)
    acc = ct.zeros((2, 8), dtype=out.dtype)
    for i in range(len(parts)):
        acc += ct.load(parts[i], (0, 0), (2, 8), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (0, 0), acc)


def run(pitches, widths):
    parts = [torch.full((2, p), float(i + 1))[:, :w] for i, (p, w) in enumerate(zip(pitches, widths))]
    out = torch.zeros(2, 8)
    ct.launch(torch.cuda.current_stream(), (1,), total, (parts, out))
    return out
"""


def test_static_dims_of_list_arrays(tmp_path):
    mod = build(LISTS, tmp_path)
    out = mod.run((12, 12, 12), (6, 6, 6))
    assert out[:, :6].tolist() == [[6.0] * 6] * 2 and out[:, 6:].abs().sum() == 0


@pytest.mark.parametrize("pitches, widths, what", [
    ((12, 14), (6, 6), "stride at axis 0 (12 vs 14)"),
    ((12, 12, 12), (6, 6, 5), "shape at axis 1 (6 vs 5)"),
])
def test_arrays_that_disagree_are_cutiles_value_error(tmp_path, pitches, widths, what):
    mod = build(LISTS, tmp_path)
    with pytest.raises(ValueError, match=f"Arrays in list vary in static {what}".replace("(", r"\(").replace(")", r"\)")):
        mod.run(pitches, widths)


def test_static_dims_of_list_arrays_compile_for_sm90(tmp_path):
    out = compile_sm90(LISTS, "run", "((12, 12), (6, 6))", tmp_path)
    assert "OK total " in out, out
