"""Flow-insensitive facts about the values a function's names may hold, from its IR alone.

A `ValueFlow` subclass names the operations whose result has some property (`MARKS`: cuda.tile
functions and tile methods; `@` when it includes the products). A name has the property when any
assignment to it anywhere in the function (loops, branches, nested defs) has a value that may have
it. The analysis errs towards "may": calls to functions it cannot see into (user device functions,
local lambdas, module functions) may; parameters of functions that are not kernels may (their
callers' values are not seen: nested defs and lambdas are lowered as such functions), but for
compile-time constants; tiles read from memory (`ct.load`, `ct.gather`) never do, whatever their
indices, unless the subclass says otherwise (`source_marked`).

Subclasses: product_operands.ProductOperands (values from a matrix product) and
moved_tiles.MovedTiles (tiles whose elements are not where a tile-space load put them)."""
from ..ir import nodes as N
from ..rules import TILE_METHODS

SOURCES = {"load", "gather"}     # tiles read from memory
# builtins whose result derives from their arguments only
TRANSPARENT = {"abs", "bool", "enumerate", "float", "int", "len", "list", "max", "min", "range", "reversed",
               "round", "sum", "tuple", "zip"}


def assignments(st):
    """(target expressions, value expression) of an assignment-like statement, else None."""
    if isinstance(st, N.Assign):
        return st.targets, st.value
    if isinstance(st, (N.AugAssign, N.AnnAssign)):
        return [st.target], st.value
    if isinstance(st, N.For):
        return [st.target], st.iter
    return None


def names_of(target):
    """The names an assignment to `target` binds (kernel code cannot assign to subscripts or
    attributes: C2T103)."""
    if isinstance(target, N.Name):
        yield target.id
    elif isinstance(target, (N.TupleExpr, N.ListExpr)):
        for e in target.elts:
            yield from names_of(e)
    elif isinstance(target, N.Starred):
        yield from names_of(target.value)


class ValueFlow:
    """The names of function `fd` that may hold a value with the subclass's property; `kernel`: fd
    is a kernel (its parameters are the launch's arguments, which never have it); `info`: the
    module's analysis.ModuleInfo (what a name means in cuda.tile; compile-time annotations)."""

    MARKS: frozenset = frozenset()      # cuda.tile operations (last part of the path) that give it
    MATMUL: bool = False                # whether `a @ b` gives it

    def __init__(self, fd: N.FunctionDef, kernel: bool, info):
        self.ct_path = info.ct_path
        params = {p.name for p in fd.params if p.name}
        constant = {p.name for p in fd.params if p.name and info.is_constant_annotation(p.annotation)}
        self.local = set(params)
        assigns = [a for a in map(assignments, info.nodes(fd.body)) if a is not None and a[1] is not None]
        for targets, _ in assigns:
            for t in targets:
                self.local.update(names_of(t))
        self.assigns = assigns
        self.fed = self._flow(self._may_hold, set() if kernel else params - constant)

    def _flow(self, holds, names) -> set:
        """The names that may hold a value `holds(expr, names)` says an expression may have, to a
        fixed point from `names` (loops carry values back to earlier statements)."""
        names = set(names)
        changed = True
        while changed:
            changed = False
            for targets, value in self.assigns:
                if holds(value, names):
                    for t in targets:
                        for name in names_of(t):
                            if name not in names:
                                names.add(name)
                                changed = True
        return names

    def may_hold(self, expr) -> bool:
        """Whether the value of `expr` may have the property (or comes from what is not seen)."""
        return self._may_hold(expr, self.fed)

    def source_marked(self, call: N.Call, path: str) -> bool:
        """Whether a tile read from memory by `call` (ct.load, ct.gather) has the property."""
        return False

    def _may_hold(self, expr, fed) -> bool:
        if isinstance(expr, list):
            return any(self._may_hold(e, fed) for e in expr)
        if not isinstance(expr, N.Node):
            return False
        if self.MATMUL and isinstance(expr, N.BinOp) and expr.op == "@":
            return True
        if isinstance(expr, N.Name):
            return expr.id in fed
        if isinstance(expr, N.Call):
            path = self.ct_path(expr.func)
            if path in SOURCES:         # values from memory, whatever the indices were computed from
                return self.source_marked(expr, path)
            if self._opaque_call(expr, path):
                return True
        return any(self._may_hold(getattr(expr, f), fed) for f in vars(expr) if f not in ("span", "full_span"))

    def _opaque_call(self, call: N.Call, path) -> bool:
        """A call that gives the property, or whose result is not known to derive from its arguments."""
        if path is not None:
            return path.rsplit(".", 1)[-1] in self.MARKS
        func = call.func
        if isinstance(func, N.Name):
            return func.id not in TRANSPARENT or func.id in self.local
        if isinstance(func, N.Attr):        # a method of a local value (a tile's astype, reshape...)
            base = func.value
            while isinstance(base, N.Attr):
                base = base.value
            if isinstance(base, N.Name) and base.id in self.local:
                return func.attr in self.MARKS or TILE_METHODS.get(func.attr) in self.MARKS
            if func.attr in TILE_METHODS and not isinstance(base, N.Name):
                return TILE_METHODS[func.attr] in self.MARKS        # `(a * b).astype(...)`: a tile's
            return not isinstance(base, (N.Call, N.Subscript))     # module.function(...): not seen
        return True
