"""cuTile's rules for the dataclasses a kernel may create, read from a module-level class's source.

cuTile takes a frozen `@dataclass` whose instances it builds with the `__init__` dataclasses
generates; a kernel creating an instance of any other dataclass fails to compile with cuTile's
TileTypeError. `facts` records, per class statement, what those rules look at (decorated itself,
frozen, a `__new__`, an own `__init__` or init=False, fields with `default_factory=` or
`init=False`), a subclass inheriting its bases' facts; `refusal` gives cuTile's message for a
creation, in the order cuTile checks, or None for a class cuTile accepts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from .ir import nodes as N


@dataclass(frozen=True)
class Facts:
    decorated: bool = False         # `@dataclass` on this class itself
    frozen: bool = False
    new: bool = False               # a `__new__` here or in a base
    own_init: bool = False          # `def __init__` or `@dataclass(init=False)` (no generated __init__)
    factory: bool = False           # a field `= dataclasses.field(default_factory=...)`, here or in a base
    no_init_field: bool = False     # a field `= dataclasses.field(init=False)`, here or in a base


def facts(st: N.Other, qualified, known: dict) -> Optional[Facts]:
    """The facts of class statement `st`, or None for a class that is no dataclass (neither
    decorated with `dataclasses.dataclass` nor a subclass of a class in `known`, name -> Facts).
    `qualified(expr)` gives an expression's dotted path (`dataclasses.dataclass`)."""
    deco = None
    for d in st.decorators:
        f = d.expr.func if isinstance(d.expr, N.Call) else d.expr
        if qualified(f) == "dataclasses.dataclass":
            deco = d.expr
    bases = [known[b.id] for b in st.bases if isinstance(b, N.Name) and b.id in known]
    if deco is None and not bases:
        return None
    out = Facts()
    for b in bases:
        out = Facts(frozen=b.frozen, new=out.new or b.new, factory=out.factory or b.factory,
                    no_init_field=out.no_init_field or b.no_init_field)
    kws = {k.name: k.value for k in deco.keywords} if isinstance(deco, N.Call) else {}
    if deco is not None:
        frozen = kws.get("frozen")
        init = kws.get("init")
        out = replace(out, decorated=True, frozen=isinstance(frozen, N.Const) and frozen.value is True,
                      own_init=isinstance(init, N.Const) and init.value is False)
    for x in st.children:
        if isinstance(x, N.FunctionDef) and x.name == "__new__":
            out = replace(out, new=True)
        elif isinstance(x, N.FunctionDef) and x.name == "__init__" and deco is not None:
            out = replace(out, own_init=True)
        elif isinstance(x, N.AnnAssign) and isinstance(x.value, N.Call) \
                and qualified(x.value.func) == "dataclasses.field":
            kw = {k.name: k.value for k in x.value.keywords}
            if "default_factory" in kw:
                out = replace(out, factory=True)
            if isinstance(kw.get("init"), N.Const) and kw["init"].value is False:
                out = replace(out, no_init_field=True)
    return out


def refusal(f: Facts) -> Optional[str]:
    """cuTile's TileTypeError message for creating an instance of a class with facts `f`, else None."""
    if not f.frozen:
        return "Only frozen dataclasses are supported"
    if not f.decorated:
        return "Non-dataclass subclasses of a dataclass are not supported"
    if f.new:
        return "Dataclasses with custom __new__ are not supported"
    if f.factory:
        return "Dataclasses with default_factory fields are not supported"
    if f.no_init_field:
        return "Dataclasses with init=False fields are not supported"
    if f.own_init:
        return ("Dataclass instance creation is only supported for dataclasses with a default "
                "generated __init__() method.")
    return None


class Refused:
    """A module-level class kernels may not create instances of (cuTile's `message`), as the
    lowering holds it: a call is cuTile's TileTypeError when the translation compiles."""

    def __init__(self, name: str, message: str, error: str = "TileTypeError"):
        self.name, self.message, self.error = name, message, error

    def __repr__(self):
        return f"<class {self.name} (cuTile refuses its instances)>"
