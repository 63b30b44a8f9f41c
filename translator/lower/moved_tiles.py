"""Which tiles a function may store with their elements elsewhere than where a tile-space load put
them: transposed, permuted, joined (`ct.cat`), loaded or stored with an `order`, or computed by a
matrix product, directly or through any names that hold them (value_flow.ValueFlow).

The memory-ordering analysis (kernel.FunctionLowerer.mark_written and _loop_body) leaves out the
barrier between a block's reads of an array and its store to it only where every read was a
tile-space load of the stored tile's shape and the stored tile is not one of these: each element
is then stored by the thread that loaded it. A tile that is (`t = ct.transpose(x); ct.store(a,
..., t)`) is stored by threads that did not load its elements, which may still be reading them."""
from ..ir import nodes as N
from .product_operands import PRODUCTS
from .value_flow import ValueFlow

MOVES = PRODUCTS | {"transpose", "permute", "cat"}


class MovedTiles(ValueFlow):
    """The names of function `fd` that may hold a tile whose elements moved between threads."""

    MARKS = MOVES
    MATMUL = True

    def source_marked(self, call: N.Call, path: str) -> bool:
        return path == "load" and any(kw.name == "order" for kw in call.keywords)
