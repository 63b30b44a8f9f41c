"""Dictionaries in kernel code, as cuTile has them: a helper's `**kwargs` (the keyword arguments no
other parameter takes, keys in call order), and dict displays (`{"foo": 123}`) where cuTile evaluates
statically only (a static_assert's or static_eval's expression: ops_debug._static_eval; elsewhere
a display is cuTile's TileSyntaxError), with string keys known at translation time. What cuTile
does with them:

    kwargs["foo"]             the value (a missing key: cuTile's TileTypeError "Key 'qux' not
                              found in dictionary")
    kwargs.get("foo", dflt)   the value, else the default (None)
    "foo" in kwargs           a constant; `not in` too
    kwargs == {...}, !=       equal key sets and equal values (each value compared as `==` does)
    f(x, **kwargs)            its items as keyword arguments

A dictionary has no Triton value: it is a translation-time record of its values (V.value: the keys,
V.elts: the values). A helper taking one gets a parameter per key (helpers.py).
"""
from __future__ import annotations

from ..ir import nodes as N
from . import types as T
from .context import bind, cutile_rejects
from .registry import method
from .types import V

DICT = "dict"


def make(keys, values) -> V:
    keys, values = tuple(keys), list(values)
    # (code: a dict display, which Triton refuses to compile, should it ever be emitted)
    code = "{" + ", ".join(f"{k!r}: {v.code}" for k, v in zip(keys, values)) + "}"
    return V(code, DICT, value=keys, elts=values)


def items(d: V) -> list:
    return list(zip(d.value, d.elts))


def display(cx, e: N.Raw) -> V:
    """A dict display `{"a": x, **d}` in kernel code."""
    out = {}
    for part in e.parts:
        if isinstance(part, N.Raw) and part.kind == "key_value" and len(part.parts) == 2:
            k = cx.expr(part.parts[0])
            if not (k.known and isinstance(k.value, str)):
                cx.fail("C2T105", "a dictionary's keys in kernel code must be strings known at "
                                  "translation time", part.parts[0])
            out[k.value] = cx.expr(part.parts[1])
            continue
        v = cx.expr(part)       # `**d`
        if v.kind != DICT:
            cx.fail("C2T103", "this entry of a dict display is not supported in kernel code", part,
                    cutile=("TileTypeError", "Expected a dictionary after **"))
        out.update(items(v))
    return make(out.keys(), out.values())


def _key(cx, node) -> str:
    k = cx.expr(node)
    if not (k.known and isinstance(k.value, str)):
        cx.fail("C2T105", "a dictionary key in kernel code must be a string known at translation time", node)
    return k.value


def item(cx, d: V, index, e) -> V:
    """`d["foo"]`."""
    key = _key(cx, index)
    if key not in d.value:
        return cutile_rejects(cx, "this dictionary key", f"Key '{key}' not found in dictionary", e)
    return d.elts[d.value.index(key)]


def contains(cx, e, op: str, x_node, d: V) -> V:
    """`"foo" in d` / `not in`: whether the key is there (known at translation time)."""
    found = _key(cx, x_node) in d.value
    res = found == (op == "in")
    return V(str(res), T.STATIC, value=res, known=True)


def compare(cx, e, op: str, a: V, b: V) -> V:
    """`a == b` / `!=` with a dictionary on either side: Python's dict equality (the same keys,
    equal values), folded where the values are known, else the values' comparisons and-ed."""
    same = a.kind == b.kind == DICT and set(a.value) == set(b.value)
    if not same:
        res = op == "!="
        return V(str(res), T.STATIC, value=res, known=True)
    terms = []
    bvals = dict(items(b))
    for k, x in items(a):
        y = bvals[k]
        if x.kind not in (T.STATIC, T.SCALAR) or y.kind not in (T.STATIC, T.SCALAR):
            cx.fail("C2T103", "a dictionary comparison in kernel code compares scalar values only", e)
        if x.known and y.known:
            if x.value != y.value:
                res = op == "!="
                return V(str(res), T.STATIC, value=res, known=True)
            continue
        terms.append(f"({x.code} == {y.code})")
    if not terms:
        res = op == "=="
        return V(str(res), T.STATIC, value=res, known=True)
    runtime = any(v.kind == T.SCALAR for v in [*a.elts, *b.elts])
    code = " and ".join(terms)
    if op == "!=":
        code = f"not ({code})"
    return V(code, T.SCALAR if runtime else T.STATIC, prec=5, dsrc="dt:tl.int1" if runtime else None, mbf=False)


@method(DICT, "__getattr__")
def dict_attr(cx, base: V, node):
    if node.attr == "get":
        return V(f"{base.code}.get", T.UNKNOWN, value=("method", base, "get"))
    cx.fail("C2T103", f"dict.{node.attr} is not supported in kernel code (cuTile's dictionaries have "
                      "[key], .get(key), `in` and ==)", node)


@method(DICT, "get")
def dict_get(cx, base: V, call):
    args = bind(cx, "dict.get", call, ["key", "default", "/"])
    if "key" not in args:
        cx.fail("C2T109", "dict.get() takes a key", call)
    key = _key(cx, args["key"])
    if key in base.value:
        return base.elts[base.value.index(key)]
    if "default" in args:
        return cx.expr(args["default"])
    return V("None", T.STATIC, value=None, known=True)
