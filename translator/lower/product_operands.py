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

The analysis is value_flow.ValueFlow's (flow-insensitive, erring towards "may come from a product").
"""
from ..ir import nodes as N
from .arrays import walk
from .value_flow import SOURCES, ValueFlow, names_of

PRODUCTS = frozenset({"mma", "matmul", "mma_scaled"})   # (mma_scaled is refused today: C2T101)


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


class ProductOperands(ValueFlow):
    """The names of function `fd` that may hold a product's result; `kernel`: fd is a kernel (its
    parameters are the launch's arguments, never products); `info`: the module's analysis.ModuleInfo
    (what a name means in cuda.tile; which annotations are compile-time constants)."""

    MARKS = PRODUCTS
    MATMUL = True

    def __init__(self, fd: N.FunctionDef, kernel: bool, info):
        super().__init__(fd, kernel, info)
        # every product of the function with its B operand (the `@`, ct.mma/ct.matmul call or `@=`)
        self.products = [(n, ab[1]) for n in info.nodes(fd.body) for ab in [_operands(n, self.ct_path)]
                         if ab is not None]
        self._feeds = {}

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
                names = self._flow(carries, names_of(product.target) if isinstance(product, N.AugAssign) else ())
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
        return self.may_hold(expr)
