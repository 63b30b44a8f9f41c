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


STATIC_DIMS = """
from typing import Annotated

Rows = Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0,), static_shape_dims=(-1,))]


@ct.kernel
def copy(x: Rows, out):
    pitch = ct.static_eval(x.strides[0])
    ct.static_assert(pitch == 10)
    ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 8)) + x.shape[1])


def run(x):
    out = torch.zeros((4, 8), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), copy, (x, out))
    return out
"""


def test_static_shape_and_stride_dims_are_constexprs(tmp_path):
    mod = build(STATIC_DIMS, tmp_path)
    buf = torch.arange(40.0).reshape(4, 10)
    torch.testing.assert_close(mod.run(buf[:, :8]), buf[:, :8] + 8)
    code = open(mod.__file__).read()
    assert "x, x_shape_0, x_shape_1: tl.constexpr, x_stride_0: tl.constexpr, x_stride_1" in code
    assert "tl.static_assert(pitch == 10, 'cuTile TileStaticAssertionError: ')" in code
    try:
        mod.run(torch.zeros(4, 12)[:, :8])      # another pitch: compiled for it, and the assert fails
    except Exception as e:  # noqa: BLE001 - (the interpreter's wrapping of the assertion)
        assert "static_assert" in repr(e) or "Assert" in repr(e), repr(e)
    else:
        raise AssertionError("the static_assert did not fail for pitch 12")


def test_static_dims_outside_the_rank_are_refused():
    res = translate("""
    from typing import Annotated

    @ct.kernel
    def k(x: Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=(2,))], out):
        ct.store(out, (0, 0), ct.load(x, (0, 0), (4, 4)))
    """)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["C2T106"] and "contains axis 2" in errors[0].message
