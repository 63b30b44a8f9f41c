"""cuTile's launch-time checks of tuple arguments against the kernel's annotations, served by the
shim (translator/shim/launch_args.py): tuple lengths against `tuple[...]` annotations, namedtuples
refused, constants that are not, and annotations that cannot combine. A program of ours runs under
`python -m translator.shim` (as in test_shim.py); the annotation trees are also checked directly.
Before launch_args.py every launch below ran (or failed in Triton), none raised cuTile's TypeError.
"""
import typing

import pytest

from test_shim import _run, _script
from translator.shim import launch_args as la

LAUNCHES = """
import collections
import torch
import cuda.tile as ct

Pair = collections.namedtuple("Pair", ["lo", "hi"])


@ct.kernel
def shifted(src, dst, offs: tuple[int, ct.Constant[int]]):
    ct.store(dst, (0,), ct.load(src, (0,), (4,)) + offs[0] + offs[1])


@ct.kernel
def nested(dst, cfg: tuple[tuple[int, int], ct.Constant[int]]):
    ct.scatter(dst, (0,), cfg[0][0] + cfg[0][1] + cfg[1])


@ct.kernel
def each(dst, vals: tuple[ct.Constant[int], ...]):
    ct.scatter(dst, (0,), vals[0] + vals[-1])


@ct.kernel
def whole(src, dst, c: ct.Constant[tuple]):
    ct.store(dst, (0,), ct.load(src, (0,), (4,)))


@ct.kernel
def wide(src, dst, c: ct.Constant[tuple[int, ct.ScalarInt64]]):
    ct.store(dst, (0,), ct.load(src, (0,), (4,)) + c[1])


@ct.kernel
def plain(dst, p):
    ct.scatter(dst, (0,), p[0] + p[1][0])


s = torch.arange(4, dtype=torch.int32)
d = torch.zeros(4, dtype=torch.int32)
d1 = torch.zeros(1, dtype=torch.int32)
st = torch.cuda.current_stream()


def bad(kernel, args):
    try:
        ct.launch(st, (1,), kernel, args)
    except TypeError as e:
        print("REFUSED:", e)
    else:
        print("ACCEPTED")


ct.launch(st, (1,), shifted, (s, d, (2, 3)))
assert d.tolist() == [5, 6, 7, 8], d
ct.launch(st, (1,), nested, (d1, ((1, 2), 4)))
assert d1.tolist() == [7], d1
ct.launch(st, (1,), each, (d1, (1, 2, 3)))
assert d1.tolist() == [4], d1
bad(shifted, (s, d, (2, 3, 4)))
bad(shifted, (s, d, (2,)))
bad(shifted, (s, d, 5))
bad(nested, (d1, ((1, 2, 3), 4)))
bad(whole, (s, d, (1, s)))
bad(whole, (s, d, ((1, [s]),)))
bad(wide, (s, d, (1, 2)))
bad(plain, (d1, Pair(1, 2)))
bad(plain, (d1, (1, Pair(2, 3))))
print("RESULT OK")
"""


def test_launch_checks_tuple_arguments_as_cutile(tmp_path):
    p = _script(tmp_path, "launches.py", LAUNCHES)
    r = _run([str(p)], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    got = [ln[len("REFUSED: "):] for ln in r.stdout.splitlines() if ln.startswith(("REFUSED", "ACCEPTED"))]
    assert got == [
        "Received a tuple of length 3 for a parameter annotated as a tuple of length 2",
        "Received a tuple of length 1 for a parameter annotated as a tuple of length 2",
        "Received a non-tuple argument for a parameter annotated as a tuple",
        "Received a tuple of length 3 for a parameter annotated as a tuple of length 2",
        "Invalid item #1 of kernel argument #2: Could not interpret object of type 'Tensor' as a constant.",
        "Invalid item #1 of item #0 of kernel argument #2: Could not interpret object of type 'list' as a constant.",
        "Constant annotation cannot be combined with ScalarAnnotation/ScalarInt64",
        "Invalid kernel argument #1: 'Pair' is a subclass of 'tuple'. Only plain tuples are accepted.",
        "Invalid item #1 of kernel argument #1: 'Pair' is a subclass of 'tuple'. Only plain tuples are accepted.",
    ], r.stdout


@pytest.mark.parametrize("src, want", [
    ("ct.Constant[int]", la.Leaf(constant=True)),
    ("ct.Constant", la.Leaf(constant=True)),
    ("ct.ScalarInt64", la.Leaf(scalar=True)),
    ("ct.Constant[ct.IndexedWithInt64]", la.Leaf(constant=True, array=True)),
    ("tuple", la.Leaf()),
    ("tuple[int, ...]", la.Each(la.Leaf())),
    ("ct.Constant[tuple[int, ...]]", la.Each(la.Leaf(constant=True))),
    ("tuple[tuple[int, ct.Constant[int]], int]",
     la.Items((la.Items((la.Leaf(), la.Leaf(constant=True))), la.Leaf()))),
    ("Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]", la.Leaf(list=True)),
    ("Annotated[int, ct.ConstantAnnotation(), ct.ScalarAnnotation(dtype=ct.int64)]",
     la.Leaf(constant=True, scalar=True)),
    ("SomeAlias", la.Leaf()),          # (a name the shim cannot read: no checks)
])
def test_annotation_trees_of_sources(src, want):
    assert la.node(src) == want


def test_annotation_trees_of_values():
    assert la.node(tuple[int, tuple[float, ...]]) == la.Items((la.Leaf(), la.Each(la.Leaf())))
    assert la.node(typing.Annotated[tuple[int, int], "meta"]) == la.Items((la.Leaf(), la.Leaf()))
    assert la.node(None) == la.Leaf()


def test_leaf_annotations_apply_to_every_item():
    # a leaf annotation (none, or ct.Constant[tuple]) takes tuples of any length and nesting
    la.check([la.Leaf(), la.Leaf(constant=True)], [((1, (2, 3)), 4), (1, (2.5, (True,)))])
    with pytest.raises(TypeError, match=r"^Invalid item #0 of item #1 of kernel argument #1: Could not"):
        la.check([la.Leaf(), la.Leaf(constant=True)], [(1,), (1, ({},))])
