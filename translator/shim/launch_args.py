"""cuTile's launch-time checks of kernel arguments against the parameters' annotations, with its
messages (cuTile makes them in its C extension's argument flattening and at its compile of the
signature, both at `ct.launch`; the translation cannot, as Triton sees only the flattened leaves):

- a parameter annotated `tuple[A, B]` takes a tuple of that length, nested alike
  (`Received a tuple of length 3 for a parameter annotated as a tuple of length 2`), and a tuple
  where it is annotated as one (`Received a non-tuple argument for a parameter annotated as a tuple`);
- only plain tuples are aggregates: a namedtuple (any tuple subclass) is refused
  (`Invalid item #1 of kernel argument #1: 'Point' is a subclass of 'tuple'. Only plain tuples are
  accepted.`);
- a leaf annotated ct.Constant (itself or inside a `ct.Constant[tuple]`) must be a constant
  (`... Could not interpret object of type 'Tensor' as a constant.`);
- a leaf's annotations combine at most one of Constant, ScalarAnnotation/ScalarInt64,
  ArrayAnnotation/IndexedWithInt64, ListAnnotation
  (`Constant annotation cannot be combined with ScalarAnnotation/ScalarInt64`).

The annotation tree is cuTile's (`_annotated_function.py`): `tuple[X, ...]` is homogeneous,
`tuple[X, Y]` heterogeneous, anything else a leaf that applies to every leaf of a tuple argument;
`ct.Constant[...]` makes every leaf below it constant. Annotations the shim cannot read (a string
naming what it cannot resolve) are leaves without checks, so that nothing cuTile accepts is refused.
"""
from __future__ import annotations

import ast
import enum
import typing
from dataclasses import dataclass


@dataclass(frozen=True)
class Leaf:
    constant: bool = False
    scalar: bool = False
    array: bool = False
    list: bool = False

    def validate(self):
        given = [what for what, on in (("Constant annotation", self.constant),
                                       ("ScalarAnnotation/ScalarInt64", self.scalar),
                                       ("ArrayAnnotation/IndexedWithInt64", self.array),
                                       ("ListAnnotation", self.list)) if on]
        if len(given) > 1:
            raise TypeError(f"{given[0]} cannot be combined with {given[1]}")


@dataclass(frozen=True)
class Each:              # tuple[X, ...]
    each: object


@dataclass(frozen=True)
class Items:             # tuple[X, Y, ...]
    items: tuple


_META = {"ConstantAnnotation": "constant", "ScalarAnnotation": "scalar", "ArrayAnnotation": "array",
         "ListAnnotation": "list"}
_ALIASES = {"ScalarInt64": "scalar", "IndexedWithInt64": "array"}     # Annotated[T, ...Annotation(...)]


def _last_name(e):
    return e.attr if isinstance(e, ast.Attribute) else e.id if isinstance(e, ast.Name) else None


def _from_src(e, outer=False):
    """The annotation node of an annotation's source (an ast expression)."""
    if isinstance(e, ast.Subscript):
        head, arg = _last_name(e.value), e.slice
        if head == "Constant":
            return _from_src(arg, True)
        if head in ("tuple", "Tuple"):
            elts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
            if len(elts) == 2 and isinstance(elts[1], ast.Constant) and elts[1].value is Ellipsis:
                return Each(_from_src(elts[0], outer))
            return Items(tuple(_from_src(x, outer) for x in elts))
        if head in _ALIASES:
            inner = _from_src(arg, outer)
            return inner if not isinstance(inner, Leaf) else Leaf(constant=outer, **{_ALIASES[head]: True})
        if head == "Annotated" and isinstance(arg, ast.Tuple) and arg.elts:
            flags = {_META[n]: True for m in arg.elts[1:]
                     for n in [_last_name(m.func) if isinstance(m, ast.Call) else None] if n in _META}
            constant = outer or flags.pop("constant", False)
            inner = _from_src(arg.elts[0], constant)
            return inner if not isinstance(inner, Leaf) else Leaf(constant=constant, **flags)
        return Leaf(constant=outer)
    head = _last_name(e)
    if head == "Constant":
        return Leaf(constant=True)
    if head in _ALIASES:
        return Leaf(constant=outer, **{_ALIASES[head]: True})
    return Leaf(constant=outer)


def _parsed(src):
    try:
        return ast.parse(src, mode="eval").body
    except SyntaxError:
        return None


def node(annotation, outer=False):
    """The annotation node (Leaf, Each, Items) of a parameter's annotation value."""
    if annotation is None:
        return Leaf(constant=outer)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *meta = typing.get_args(annotation)
        flags = {}
        for m in meta:
            src = getattr(m, "_c2t_src", None)
            e = _parsed(src) if isinstance(src, str) else None
            name = _last_name(e.func) if isinstance(e, ast.Call) else None
            if name in _META:
                flags[_META[name]] = True
        constant = outer or flags.pop("constant", False)
        if typing.get_origin(inner) is tuple:
            return node(inner, constant)
        return Leaf(constant=constant, **flags)
    if origin is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return Each(node(args[0], outer))
        return Items(tuple(node(a, outer) for a in args))
    src = annotation if isinstance(annotation, str) else getattr(annotation, "_c2t_src", None)
    if isinstance(src, str):
        e = _parsed(src)
        if e is not None:
            return _from_src(e, outer)
    return Leaf(constant=outer)


def parameter_nodes(fn, names):
    """Per positional parameter name, its annotation node (string annotations resolved as cuTile
    does, with typing.get_type_hints; those it cannot resolve read as written)."""
    raw = dict(getattr(fn, "__annotations__", None) or {})
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:       # (a name the hints cannot resolve: each annotation as written)
        hints = {}
    return [node(hints.get(n, raw.get(n))) for n in names]


def _where(argno, path):
    return "".join(f"item #{i} of " for i in reversed(path)) + f"kernel argument #{argno}"


def _flatten(nd, value, path, out):
    if type(value) is tuple:
        if isinstance(nd, Leaf):
            for i, v in enumerate(value):
                _flatten(nd, v, path + (i,), out)
        elif isinstance(nd, Each):
            for i, v in enumerate(value):
                _flatten(nd.each, v, path + (i,), out)
        else:
            for i, v in enumerate(value):
                _flatten(nd.items[i] if i < len(nd.items) else Leaf(), v, path + (i,), out)
            if len(value) != len(nd.items):
                raise TypeError(f"Received a tuple of length {len(value)} for a parameter annotated "
                                f"as a tuple of length {len(nd.items)}")
        return
    if not isinstance(nd, Leaf):
        raise TypeError("Received a non-tuple argument for a parameter annotated as a tuple")
    out.append((nd, value, path))


def _not_constant(value) -> bool:
    """Objects cuTile cannot take as a constant kernel argument. (It takes bool, int and float, and
    with its calling convention v3 also None, str, enums and dtypes: those are let through.)"""
    if isinstance(value, (bool, int, float, str, enum.Enum)) or value is None:
        return False
    return isinstance(value, (tuple, list, dict, set)) or hasattr(value, "__dlpack__") \
        or hasattr(value, "__cuda_array_interface__")


def check(nodes, args):
    """Raise cuTile's TypeError where `args` do not fit the parameters' annotation nodes."""
    flat = []
    for argno, (nd, value) in enumerate(zip(nodes, args)):
        leaves = []
        _flatten(nd, value, (), leaves)
        flat.extend((argno, leaf, v, path) for leaf, v, path in leaves)
    for argno, leaf, v, path in flat:
        if leaf.constant:
            if _not_constant(v):
                raise TypeError(f"Invalid {_where(argno, path)}: Could not interpret object of type "
                                f"'{type(v).__name__}' as a constant.")
        elif isinstance(v, tuple):
            raise TypeError(f"Invalid {_where(argno, path)}: '{type(v).__name__}' is a subclass of "
                            "'tuple'. Only plain tuples are accepted.")
    for _argno, leaf, _v, _path in flat:
        leaf.validate()
