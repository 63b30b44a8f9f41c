"""Kernels defined inside functions (issue 35, item 1): a test function's `@ct.kernel`, a kernel
factory's. cuTile compiles such a kernel with the values it reads from the enclosing function (its
captures) as they are when it is launched.

Each becomes a module-level kernel (`hoisted`) that takes its captures as `ct.Constant`
parameters after its own (`ct.Constant[ct.DType]` for those used as dtypes), translated like any
other kernel. Where it was defined, its name is bound to `_c2t_closure_kernel(<hoisted>, lambda:
(<captures>,))`, an object that launches the hoisted kernel with the captures' values read at
launch time (the lambda closes over the same variables the kernel did), so a kernel a factory
returns works too. A capture the kernel calls (a function value of the enclosing function) or uses
as an array cannot be a Constant: the kernel is refused, with the capture named (`refusal`)."""
from __future__ import annotations

import builtins
from dataclasses import dataclass

from .ir import nodes as N
from .ir.nodes import walk

# operations whose positional argument at this position, or keyword `dtype`, is a dtype
_DTYPE_ARGS = {"astype": 1, "bitcast": 1, "full": 2, "zeros": 1, "ones": 1, "empty": 1}
_ARRAY_OPS = {"load", "store", "gather", "scatter", "num_tiles", "atomic_add", "atomic_max", "atomic_min",
              "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg", "atomic_cas"}


@dataclass(frozen=True)
class NestedKernel:
    fd: N.FunctionDef           # the kernel as written
    top: N.Node                 # the module-level statement that defines it (somewhere inside)
    hoisted: N.FunctionDef      # the module-level kernel: its parameters, then the captures
    captures: tuple             # names it reads from enclosing functions, in first-use order
    dtypes: frozenset           # the captures it uses as dtypes
    refusal: str = ""           # why it cannot be translated so ("" when it can)


def find(info) -> list:
    """The kernels defined inside the module's functions (at any depth) and in the bodies of its
    classes (a test class's kernels, read as `self.kernel`) and their methods. A class body is no
    scope for the functions in it (Python's rule), so a class's own kernels capture nothing."""
    taken = set(_module_names(info))
    out = []

    def add(top, scopes, fd, prefix):
        # (a leading underscore: pytest does not collect `_test_x_kernel`)
        name = _fresh("_" + "_".join([prefix] * bool(prefix) + [s.name.lstrip("_") for s in scopes])
                      + f"_{fd.name}", taken)
        taken.add(name)
        out.append(_nested_kernel(info, top, scopes, fd, name))

    for top in info.module.body:
        if isinstance(top, N.FunctionDef):
            for fd, scopes in _nested_defs(top, [top]):
                if info.kernel_decorator(fd) is not None:
                    add(top, scopes, fd, "")
        elif isinstance(top, N.Other) and top.kind == "classdef" and top.name:
            for member in top.children:
                if not isinstance(member, N.FunctionDef):
                    continue
                if info.kernel_decorator(member) is not None:
                    add(top, [], member, top.name.lstrip("_"))
                    continue
                for fd, scopes in _nested_defs(member, [member]):
                    if info.kernel_decorator(fd) is not None:
                        add(top, scopes, fd, top.name.lstrip("_"))
    return out


def _nested_defs(fd: N.FunctionDef, scopes: list):
    """(function, its enclosing functions) for the functions defined inside `fd`."""
    for n in _walk_no_defs(fd.body):
        if isinstance(n, N.FunctionDef):
            yield n, list(scopes)
            yield from _nested_defs(n, scopes + [n])


def _walk_no_defs(body):
    """The nodes of `body`, not descending into the functions defined there (which are yielded)."""
    stack = list(reversed(body)) if isinstance(body, list) else [body]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, N.FunctionDef):
            continue
        d = n.__dict__
        for f in N.child_fields(type(n)) or ():        # (last field first: the first is popped first)
            v = d[f]
            if isinstance(v, N.Node):
                stack.append(v)
            elif isinstance(v, list):
                stack.extend(x for x in reversed(v) if isinstance(x, N.Node))


def _bound(fd: N.FunctionDef) -> set:
    """Names a function binds in its own scope: parameters, assignment and loop targets, imports,
    the functions it defines (and, not to read them as captures, its comprehensions' targets and
    its lambdas' parameters)."""
    names = {p.name for p in fd.params if p.name}
    for n in _walk_no_defs(fd.body):
        targets = []
        if isinstance(n, N.Assign):
            targets = n.targets
        elif isinstance(n, (N.AugAssign, N.AnnAssign)):
            targets = [n.target]
        elif isinstance(n, (N.For, N.CompFor)):
            # (a comprehension's targets are its own; not captured from the enclosing function)
            targets = [n.target]
        elif isinstance(n, N.Lambda):
            names.update(p.name for p in n.params if p.name)
        elif isinstance(n, N.FunctionDef) and n is not fd:
            names.add(n.name)
        elif isinstance(n, N.Import):
            for entry in n.names:
                alias = entry[-1] or (entry[1] if n.module is not None else entry[0].split(".")[0])
                names.add(alias)
        for t in targets:
            names.update(x.id for x in walk(t) if isinstance(x, N.Name))
    return names


def _module_names(info) -> set:
    names = set(info.functions) | set(info.constants) | set(info.classes) | set(info.ct_names) \
        | set(info.ct_modules) | set(info.ct_constants) | set(info.constant_aliases)
    for st in (n for top in info.module.body for n in info.nodes(top)):    # (walk(body), shared with host rules)
        if isinstance(st, N.FunctionDef):
            continue
        if isinstance(st, N.Assign):
            for t in st.targets:
                names.update(x.id for x in walk(t) if isinstance(x, N.Name))
        elif isinstance(st, N.Import):
            for entry in st.names:
                names.add(entry[-1] or (entry[1] if st.module is not None else entry[0].split(".")[0]))
        elif isinstance(st, N.Other) and st.name:
            names.add(st.name)
    names |= {st.name for st in info.module.body if isinstance(st, N.FunctionDef)}
    return names


def _fresh(base: str, taken: set) -> str:
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def _nested_kernel(info, top, scopes, fd, name) -> NestedKernel:
    enclosing = set().union(*(_bound(s) for s in scopes))
    own = _bound(fd)
    module = _module_names(info)
    free = []
    for n in walk(fd.body):
        if isinstance(n, N.Name) and n.id not in own and n.id not in free:
            if n.id in enclosing or (n.id not in module and not hasattr(builtins, n.id)):
                free.append(n.id)
    refusal = ""
    calls = {c.func.id for c in walk(fd.body) if isinstance(c, N.Call) and isinstance(c.func, N.Name)}
    arrays = {c.args[0].id for c in walk(fd.body) if isinstance(c, N.Call) and c.args
              and isinstance(c.args[0], N.Name) and (info.ct_path(c.func) or "") in _ARRAY_OPS}
    for c in free:
        if c in calls:
            refusal = (f"it calls `{c}`, a value of the enclosing function (only module-level functions "
                       "can be called from kernels)")
            break
        if c in arrays:
            refusal = f"it uses `{c}`, a value of the enclosing function, as an array (pass it as a parameter)"
            break
    dtypes = frozenset(c for c in free if _used_as_dtype(info, fd, c))
    params = list(fd.params) + [N.Param(span=fd.span, name=c, annotation=_constant(c in dtypes, fd.span))
                                for c in free]
    hoisted = N.FunctionDef(span=fd.span, name=name, params=params, body=fd.body, decorators=fd.decorators,
                            returns=fd.returns, full_span=fd.full_span)
    return NestedKernel(fd, top, hoisted, tuple(free), dtypes, refusal)


def _constant(dtype: bool, span) -> N.Subscript:
    """`ct.Constant[int]` (`ct.Constant[ct.DType]`), spelled with the IR's name for cuda.tile."""
    ct = N.Name(span=span, id="__ct__")
    index = N.Attr(span=span, value=ct, attr="DType") if dtype else N.Name(span=span, id="int")
    return N.Subscript(span=span, value=N.Attr(span=span, value=N.Name(span=span, id="__ct__"), attr="Constant"),
                       index=index)


def _used_as_dtype(info, fd, name: str) -> bool:
    for c in walk(fd.body):
        if not isinstance(c, N.Call):
            continue
        if any(k.name == "dtype" and isinstance(k.value, N.Name) and k.value.id == name for k in c.keywords):
            return True
        op = (info.ct_path(c.func) or "").rsplit(".", 1)[-1]
        method = c.func.attr if isinstance(c.func, N.Attr) and info.ct_path(c.func) is None else ""
        at = _DTYPE_ARGS.get(op)
        if at is not None and len(c.args) > at and isinstance(c.args[at], N.Name) and c.args[at].id == name:
            return True
        if method in ("astype", "bitcast") and c.args and isinstance(c.args[0], N.Name) and c.args[0].id == name:
            return True
    return False
