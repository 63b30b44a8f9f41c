"""Which values of a function may come from a matrix product (`ct.mma`, `ct.matmul`, `@`).

`_c2t_mma` computes narrow 16-bit and fp8 products (N = 16 or 32) transposed where Triton 3.6 may
miscompile them on sm_90 as synchronous warpgroup MMAs. The nineteenth and twentieth sessions
reduced the bug to a product with an operand (B, or A) from another product's result
(docs/decisions/010-narrow-products-transposed.md): operands loaded or
computed otherwise were right. Where this analysis proves that a product is in no chain
(neither operand comes from a product, and its result does not reach another product's B operand),
the lowering tells `_c2t_mma` so (`CHAINED=False`), and by default (C2T_NARROW=products) such
products keep Triton's warpgroup MMA when narrow. The result's half keeps a chain's products on one
MMA path: TileGym's flash decode at G = 16 (k @ q, whose result feeds v^T @ p as B) ran at 57 us
with k @ q a warpgroup MMA and v^T @ p transposed, 43 us with both transposed (H200, graph replay,
same page).

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


def _operands(node, ct_path):
    """(A, B) of a product node (`a @ b`, `a @= b`, ct.mma/ct.matmul(x, y, ...)), else None."""
    if isinstance(node, N.BinOp) and node.op == "@":
        return node.left, node.right
    if isinstance(node, N.AugAssign) and node.op in ("@", "@="):
        return node.target, node.value
    if isinstance(node, N.Call) and (ct_path(node.func) or "").rsplit(".", 1)[-1] in ("mma", "matmul"):
        # x and y are positional-only in both (rules.SIGNATURES; ops.bind refuses them as keywords)
        return (node.args[0], node.args[1]) if len(node.args) >= 2 else None
    return None


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
        self.assigns = assigns
        self.fed = self._flow(self._may_be_product, set() if kernel else params - constant)
        # every product of the function with its B operand (the `@`, ct.mma/ct.matmul call or `@=`)
        self.products = [(n, ab[1]) for n in walk(fd.body) for ab in [_operands(n, self.ct_path)] if ab is not None]
        self._feeds = {}

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
                        for name in _names(t):
                            if name not in names:
                                names.add(name)
                                changed = True
        return names

    def unchained(self, product) -> bool:
        """Whether `product` (an `@`, ct.mma/ct.matmul call or `@=` of this function) may keep the
        warpgroup MMA when narrow (`CHAINED=False`): neither operand may come from a product (the
        miscompile, with B or with A from one: docs/decisions/010-narrow-products-transposed.md), and its
        own result does not reach another product's B operand (that product is computed
        transposed, and a warpgroup MMA's result feeding it ran slower on the H200 than both
        transposed: TileGym's flash decode at G = 16, 57 against 43 us). A result that feeds
        another product's A operand is allowed: prefill attention's q @ k^T feeds p @ v (were p @ v
        narrow too, mma.sync would compute it transposed with this result as an operand: not run
        on the H200)."""
        ab = _operands(product, self.ct_path)
        return ab is not None and not self.may_be_product(list(ab)) and not self.feeds_a_b_operand(product)

    def feeds_a_b_operand(self, product) -> bool:
        """Whether the result of `product` may reach the B operand of a product of this function
        (a product not found among them, e.g. one a pass made: yes)."""
        key = id(product)
        if key not in self._feeds:
            if not any(p is product for p, _ in self.products):
                self._feeds[key] = True
            else:
                carries = lambda e, names: self._carries(e, names, product)     # noqa: E731
                # (`x @= b`: x holds the result)
                names = self._flow(carries, _names(product.target) if isinstance(product, N.AugAssign) else ())
                self._feeds[key] = any(carries(b, names) for _, b in self.products)
        return self._feeds[key]

    def _carries(self, expr, names, product) -> bool:
        """Whether the value of `expr` may carry `product`'s result (`names`: the names that may)."""
        if isinstance(expr, list):
            return any(self._carries(e, names, product) for e in expr)
        if not isinstance(expr, N.Node):
            return False
        if expr is product:
            return True
        if isinstance(expr, N.Name):
            return expr.id in names
        if isinstance(expr, N.Call):
            path = self.ct_path(expr.func)
            if path in SOURCES:
                return False
            if path is None and self._opaque_call(expr, path):
                return True
        return any(self._carries(getattr(expr, f), names, product)
                   for f in vars(expr) if f not in ("span", "full_span"))

    def may_be_product(self, expr) -> bool:
        """Whether the value of `expr` may come from a product (or from what is not seen)."""
        return self._may_be_product(expr, self.fed)

    def _may_be_product(self, expr, fed) -> bool:
        if isinstance(expr, list):
            return any(self._may_be_product(e, fed) for e in expr)
        if not isinstance(expr, N.Node):
            return False
        if isinstance(expr, N.BinOp) and expr.op == "@":
            return True
        if isinstance(expr, N.Name):
            return expr.id in fed
        if isinstance(expr, N.Call):
            path = self.ct_path(expr.func)
            if path in SOURCES:         # values from memory, whatever the indices were computed from
                return False
            if self._opaque_call(expr, path):
                return True
        return any(self._may_be_product(getattr(expr, f), fed) for f in vars(expr) if f not in ("span", "full_span"))

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
