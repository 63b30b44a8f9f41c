"""IR: small dataclasses with source spans, no Triton knowledge.

Expressions and statements mirror the Python subset cuTile accepts; constructs the
kernel lowering does not handle are kept as ``Raw`` (their source text), so host code
can still be reproduced verbatim.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from ..diagnostics import Span


@dataclass
class Node:
    span: Span = field(default_factory=Span, repr=False, compare=False)


# ---------------------------------------------------------------- expressions
@dataclass
class Expr(Node):
    pass


@dataclass
class Name(Expr):
    id: str = ""


@dataclass
class Const(Expr):
    value: object = None
    text: str = ""          # source spelling (keeps 1e-5, 0x10, quotes...)


@dataclass
class Attr(Expr):
    value: Expr = None
    attr: str = ""


@dataclass
class Keyword(Node):
    name: Optional[str] = None   # None for **kwargs
    value: Expr = None


@dataclass
class Call(Expr):
    func: Expr = None
    args: list = field(default_factory=list)        # Expr or Starred
    keywords: list = field(default_factory=list)    # Keyword


@dataclass
class Starred(Expr):
    value: Expr = None


@dataclass
class BinOp(Expr):
    op: str = ""            # '+', '-', '*', '/', '//', '%', '**', '@', '&', '|', '^', '<<', '>>'
    left: Expr = None
    right: Expr = None


@dataclass
class UnaryOp(Expr):
    op: str = ""            # '-', '+', '~', 'not'
    operand: Expr = None


@dataclass
class Compare(Expr):
    left: Expr = None
    ops: list = field(default_factory=list)
    comparators: list = field(default_factory=list)


@dataclass
class BoolOp(Expr):
    op: str = ""            # 'and' | 'or'
    values: list = field(default_factory=list)


@dataclass
class IfExp(Expr):
    test: Expr = None
    body: Expr = None
    orelse: Expr = None


@dataclass
class TupleExpr(Expr):
    elts: list = field(default_factory=list)


@dataclass
class ListExpr(Expr):
    elts: list = field(default_factory=list)


@dataclass
class Subscript(Expr):
    value: Expr = None
    index: Expr = None      # a TupleExpr for a[i, j]


@dataclass
class SliceExpr(Expr):
    lower: Optional[Expr] = None
    upper: Optional[Expr] = None
    step: Optional[Expr] = None


@dataclass
class Lambda(Expr):
    params: list = field(default_factory=list)
    body: Expr = None


@dataclass
class CompFor(Node):
    """`for target in iter` of a comprehension, with the `if` clauses that follow it."""
    target: Expr = None
    iter: Expr = None
    conds: list = field(default_factory=list)      # Expr


@dataclass
class Comprehension(Expr):
    """A generator expression (`f(x) for x in t`, also as the argument of `tuple(...)`) or a list
    comprehension. Its `if` clauses are on the `for` clauses they follow (CompFor.conds)."""
    kind: str = "generator"     # generator | list
    elt: Expr = None
    fors: list = field(default_factory=list)    # CompFor


@dataclass
class Raw(Expr):
    """Any other expression (dict, set, f-string...), kept as source text; `parts` are the
    sub-expressions it contains where the parse tree has them (not an f-string's fields)."""
    kind: str = ""
    text: str = ""
    parts: list = field(default_factory=list)


# ---------------------------------------------------------------- statements
@dataclass
class Stmt(Node):
    pass


@dataclass
class Assign(Stmt):
    targets: list = field(default_factory=list)   # chained a = b = value
    value: Expr = None


@dataclass
class AugAssign(Stmt):
    target: Expr = None
    op: str = ""
    value: Expr = None


@dataclass
class AnnAssign(Stmt):
    target: Expr = None
    annotation: Expr = None
    value: Optional[Expr] = None


@dataclass
class ExprStmt(Stmt):
    value: Expr = None


@dataclass
class Return(Stmt):
    value: Optional[Expr] = None


@dataclass
class If(Stmt):
    test: Expr = None
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)   # an elif is a nested If alone in orelse
    is_elif: bool = False


@dataclass
class For(Stmt):
    target: Expr = None
    iter: Expr = None
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)


@dataclass
class While(Stmt):
    test: Expr = None
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)


@dataclass
class Simple(Stmt):
    kind: str = ""          # 'pass' | 'break' | 'continue'


@dataclass
class Param(Node):
    name: str = ""
    annotation: Optional[Expr] = None
    default: Optional[Expr] = None
    kind: str = "normal"    # normal | star | kwstar | posonly_marker


@dataclass
class Decorator(Node):
    expr: Expr = None       # the decorator expression (a Name/Attr or a Call)


@dataclass
class FunctionDef(Stmt):
    name: str = ""
    params: list = field(default_factory=list)
    body: list = field(default_factory=list)
    decorators: list = field(default_factory=list)
    returns: Optional[Expr] = None
    full_span: Span = field(default_factory=Span, repr=False, compare=False)  # decorators included


@dataclass
class Import(Stmt):
    # (module, alias) for `import a.b as c`; (module, name, alias) for from-imports
    names: list = field(default_factory=list)
    module: Optional[str] = None     # set for `from module import ...`
    level: int = 0


@dataclass
class Other(Stmt):
    """Any other statement (class, with, try, ...); host code keeps it verbatim."""
    kind: str = ""
    children: list = field(default_factory=list)   # nested statements where known (class bodies...)
    exprs: list = field(default_factory=list)      # expressions it contains (with items, raise...)
    name: str = ""                                 # classdef: the class name
    bases: list = field(default_factory=list)      # classdef: base class expressions
    decorators: list = field(default_factory=list)  # classdef: Decorator nodes
    # with_stmt: per item, (index in exprs of its context expression, of its `as` target or None;
    # -1 where the target is not one expression)
    items: list = field(default_factory=list)


@dataclass
class Module(Node):
    body: list = field(default_factory=list)
    text: str = ""
    comments: list = field(default_factory=list)


ExprT = Union[Expr, None]


_CHILD_FIELDS: dict = {}     # node class -> its fields that may hold nodes, last first (walk's order)


def _child_fields(cls) -> tuple:
    from dataclasses import fields
    if not issubclass(cls, Node):
        return None
    return tuple(reversed([f.name for f in fields(cls) if f.name not in ("span", "full_span")]))


def child_fields(cls) -> tuple:
    """The fields of IR node class `cls` that may hold nodes (all but its spans), last first (the
    order a stack takes them in); None for a class that is not a node."""
    try:
        return _CHILD_FIELDS[cls]
    except KeyError:
        fs = _CHILD_FIELDS[cls] = _child_fields(cls)
        return fs


def walk(node):
    """Yield every IR node below `node` (statements and expressions), depth first in field order.
    (A node's fields are its dataclass fields: nothing sets other attributes on IR nodes.)"""
    stack = [node]
    pop, push, cache = stack.pop, stack.append, _CHILD_FIELDS
    while stack:
        n = pop()
        t = type(n)
        if t is list:
            stack.extend(reversed(n))
            continue
        try:
            fs = cache[t]
        except KeyError:
            fs = cache[t] = _child_fields(t)
        if fs is None:
            if isinstance(n, list):
                stack.extend(reversed(n))
            continue
        yield n
        d = n.__dict__
        for f in fs:
            v = d[f]
            if v is not None and (type(v) is list or isinstance(v, (Node, list))):
                push(v)


def clone(n):
    """A copy of the IR below `n` for a pass to change (what copy.deepcopy gives, about five times
    faster: spans are immutable and shared, and so are values that are not nodes or containers)."""
    if isinstance(n, list):
        return [clone(x) for x in n]
    if isinstance(n, Node):
        new = object.__new__(type(n))
        d = new.__dict__
        for k, v in n.__dict__.items():
            d[k] = clone(v) if isinstance(v, (Node, list, tuple, dict)) else v
        return new
    if isinstance(n, tuple):
        return tuple(clone(x) for x in n)
    if isinstance(n, dict):
        return {k: clone(v) for k, v in n.items()}
    return n


def assigned_names(stmts, defs: bool = False) -> set:
    """The names `stmts` assign (=, augmented and annotated assignment, for targets; nested blocks
    and tuple targets included), and with `defs` the names of the functions they define."""
    names = set()
    for n in walk(stmts):
        targets = n.targets if isinstance(n, Assign) else [n.target] if isinstance(
            n, (AugAssign, AnnAssign, For)) else []
        names.update(x.id for t in targets for x in walk(t) if isinstance(x, Name))
        if defs and isinstance(n, FunctionDef):
            names.add(n.name)
    return names


def local_names(stmts) -> set:
    """The names `stmts` bind in their own scope, as Python's locals of the function whose body
    they are: assignment and `for` targets (names, tuples and starred of them; not `x[i] = v`'s
    x), the names of the functions and classes they define; not what nested functions bind."""
    names, stack = set(), list(stmts)

    def targets(t):
        if isinstance(t, Name):
            names.add(t.id)
        elif isinstance(t, (TupleExpr, ListExpr)):
            for x in t.elts:
                targets(x)
        elif isinstance(t, Starred):
            targets(t.value)

    while stack:
        st = stack.pop()
        if isinstance(st, FunctionDef) or (isinstance(st, Other) and st.kind == "classdef"):
            names.add(st.name)
            continue
        if isinstance(st, Assign):
            for t in st.targets:
                targets(t)
        elif isinstance(st, (AugAssign, AnnAssign, For)):
            targets(st.target)
        elif isinstance(st, Other) and st.kind == "with_stmt":
            for _ctx, at in st.items:
                if at is not None and at >= 0:
                    targets(st.exprs[at])
        for f in ("body", "orelse", "children"):
            stack.extend(getattr(st, f, None) or [])
    return names
