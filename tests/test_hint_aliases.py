"""Module-level type hints for kernel parameters built from cuda.tile's annotation classes
(`I64s = Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]`, as cutile-python's
test_list.py writes them): kernel-only names like `ConstInt = ct.Constant[int]`, dropped from the
host code (they were C2T108, "host code uses ct.ListAnnotation"); an alias whose metadata holds
ct.ConstantAnnotation() makes its parameters compile-time constants."""
import torch

from kernel_util import build, translate

ALIASES = """
from typing import Annotated

I64s = Annotated[
    list, ct.ListAnnotation(element=ct.IndexedWithInt64)
]
Static2 = Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(0, 1))]
CInt = Annotated[int, ct.ConstantAnnotation()]


@ct.kernel
def add_list(arrays: I64s, out, T: CInt):
    res = ct.zeros((T,), dtype=out.dtype)
    for i in range(len(arrays)):
        res += ct.load(arrays[i], (0,), (T,))
    ct.store(out, (0,), res)


@ct.kernel
def copy(x: Static2, out):
    ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 4)))


def run(arrays, m):
    s = torch.zeros(4, dtype=arrays[0].dtype)
    ct.launch(torch.cuda.current_stream(), (1,), add_list, (arrays, s, 4))
    o = torch.zeros_like(m)
    ct.launch(torch.cuda.current_stream(), (1,), copy, (m, o))
    return s, o
"""


def test_annotated_hint_aliases_are_kernel_only(tmp_path):
    mod = build(ALIASES, tmp_path)
    arrays = [torch.full((4,), float(i)) for i in range(3)]
    m = torch.arange(16.0).reshape(4, 4)
    s, o = mod.run(arrays, m)
    torch.testing.assert_close(s, torch.full((4,), 3.0))
    torch.testing.assert_close(o, m)
    code = open(mod.__file__).read()
    assert "T: tl.constexpr" in code
    assert "ListAnnotation" not in code and "I64s =" not in code     # (each line of it dropped)


def test_a_hint_alias_used_by_host_code_is_still_refused():
    res = translate(ALIASES + "\nprint(I64s)\n")
    assert [d.code for d in res.diagnostics if d.severity == "error"] == ["C2T108"]
