"""Which values of a function may come from a matrix product (`ct.mma`, `ct.matmul`, `@`).

`_c2t_mma` computes narrow 16-bit and fp8 products (N = 16 or 32) transposed because Triton 3.6
miscompiles them on sm_90 as synchronous warpgroup MMAs. The nineteenth session reduced the bug to
a product whose B operand is another product's result (docs/gpu-runs/sync-wgmma-2026-11-30.md): B
loaded or computed otherwise was right. Where this analysis proves that a product's B operand does
not come from a product, the lowering tells `_c2t_mma` so (`B_FROM_MMA=False`), and with
`C2T_NARROW=products` such products keep Triton's warpgroup MMA.

The analysis is flow-insensitive and errs towards "may come from a product": a name is marked when
any assignment to it anywhere in the function (loops, branches, nested defs) has a value that may;
calls to functions it cannot see into (user device functions, local lambdas, module functions) may;
parameters of functions that are not kernels may (their callers' values are not seen: nested defs
and lambdas are lowered as such functions), but for compile-time constants; tiles read from memory
(`ct.load`, `ct.gather`) never do, whatever their indices."""
from ..ir import nodes as N
from .arrays import walk

PRODUCTS = {"mma", "matmul", "mma_scaled"}   # (mma_scaled is refused today: C2T101)
SOURCES = {"load", "gather"}     # tiles read from memory: never a product's value
# builtins whose result derives from their arguments only
TRANSPARENT = {"abs", "bool", "enumerate", "float", "int", "len", "list", "max", "min", "range", "reversed",
               "round", "sum", "tuple", "zip"}


def _assignments(st):
    """(target expressions, value expression) of an assignment-like statement, else None."""
    if isinstance(st, N.Assign):
        return st.targets, st.value
    if isinstance(st, (N.AugAssign, N.AnnAssign)):
        return [st.target], st.value
    if isinstance(st, N.For):
        return [st.target], st.iter
    return None


def _names(target):
    """The names an assignment to `target` binds (kernel code cannot assign to subscripts or
    attributes: C2T103)."""
    if isinstance(target, N.Name):
        yield target.id
    elif isinstance(target, (N.TupleExpr, N.ListExpr)):
        for e in target.elts:
            yield from _names(e)
    elif isinstance(target, N.Starred):
        yield from _names(target.value)


class ProductOperands:
    """The names of function `fd` that may hold a product's result; `kernel`: fd is a kernel (its
    parameters are the launch's arguments, never products); `info`: the module's analysis.ModuleInfo
    (what a name means in cuda.tile; which annotations are compile-time constants)."""

    def __init__(self, fd: N.FunctionDef, kernel: bool, info):
        self.ct_path = info.ct_path
        params = {p.name for p in fd.params if p.name}
        constant = {p.name for p in fd.params if p.name and info.is_constant_annotation(p.annotation)}
        self.local = set(params)
        assigns = [a for a in map(_assignments, walk(fd.body)) if a is not None and a[1] is not None]
        for targets, _ in assigns:
            for t in targets:
                self.local.update(_names(t))
        self.fed = set() if kernel else params - constant     # a compile-time constant is no product
        changed = True
        while changed:          # to a fixed point: loops carry values back to earlier statements
            changed = False
            for targets, value in assigns:
                if self.may_be_product(value):
                    for t in targets:
                        for name in _names(t):
                            if name not in self.fed:
                                self.fed.add(name)
                                changed = True

    def may_be_product(self, expr) -> bool:
        """Whether the value of `expr` may come from a product (or from what is not seen)."""
        if isinstance(expr, list):
            return any(self.may_be_product(e) for e in expr)
        if not isinstance(expr, N.Node):
            return False
        if isinstance(expr, N.BinOp) and expr.op == "@":
            return True
        if isinstance(expr, N.Name):
            return expr.id in self.fed
        if isinstance(expr, N.Call):
            path = self.ct_path(expr.func)
            if path in SOURCES:         # values from memory, whatever the indices were computed from
                return False
            if self._opaque_call(expr, path):
                return True
        return any(self.may_be_product(getattr(expr, f)) for f in vars(expr) if f not in ("span", "full_span"))

    def _opaque_call(self, call: N.Call, path) -> bool:
        """A call that is a product, or whose result is not known to derive from its arguments."""
        if path is not None:
            return path.rsplit(".", 1)[-1] in PRODUCTS
        func = call.func
        if isinstance(func, N.Name):
            return func.id not in TRANSPARENT or func.id in self.local
        if isinstance(func, N.Attr):        # a method of a local value (a tile's astype, reshape...)
            base = func.value
            while isinstance(base, N.Attr):
                base = base.value
            if isinstance(base, N.Name) and base.id in self.local:
                return func.attr in PRODUCTS
            return not isinstance(base, (N.Call, N.Subscript))     # module.function(...): not seen
        return True
