"""What the kernel lowering knows about a value while it translates."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

# value kinds
STATIC = "static"     # compile-time constant (literal, Constant param, tile.shape...): a tl.constexpr
SCALAR = "scalar"     # runtime scalar (bid, array extent, int/float kernel argument, 0-d tile)
TILE = "tile"         # runtime tile
ARRAY = "array"       # an Array: pointer + shape + strides
TUPLE = "tuple"
DTYPE = "dtype"
ENUM = "enum"         # a member of a cuTile enum (PaddingMode.ZERO...)
CTFUNC = "ctfunc"     # a cuda.tile function object
CTMOD = "ctmod"       # the cuda.tile module (or a sub-namespace such as PaddingMode)
HELPER = "helper"     # a module-level function translated to @triton.jit
MODULE = "module"     # another Python module (math, torch, numpy)
UNKNOWN = "unknown"


@dataclass
class ArrayRef:
    """An array as the Triton kernel sees it."""
    ptr: str
    rank: int
    shapes: list = field(default_factory=list)
    strides: list = field(default_factory=list)

    @classmethod
    def for_param(cls, name: str, rank: int) -> "ArrayRef":
        return cls(name, rank, [f"{name}_shape_{k}" for k in range(rank)],
                   [f"{name}_stride_{k}" for k in range(rank)])

    def flat(self) -> list:
        return [self.ptr, *self.shapes, *self.strides]


@dataclass
class V:
    """A lowered value: its Triton source text plus what we know about it."""
    code: str
    kind: str
    prec: int = 100                 # operator precedence of `code` (100 = atom)
    value: object = None            # python value of a static, ct name of a CTFUNC, enum member...
    rank: Optional[int] = None      # tile rank when known
    array: Optional[ArrayRef] = None
    elts: Optional[list] = None     # tuple elements (V)
    tf32: bool = False              # an f32 tile cast to ct.tfloat32
    known: bool = False             # `value` holds the python value of a static
    shape: Optional[list] = None    # tile shape as constexpr source expressions, when known

    @property
    def is_static(self) -> bool:
        return self.kind in (STATIC, DTYPE, ENUM) or (self.kind == TUPLE and all(e.is_static for e in self.elts or []))

    @property
    def is_runtime(self) -> bool:
        return self.kind in (SCALAR, TILE, UNKNOWN) or (self.kind == TUPLE and not self.is_static)


def paren(v: V, prec: int) -> str:
    return f"({v.code})" if v.prec < prec else v.code


def same_shape(*vs) -> Optional[list]:
    """The shape of an elementwise result: every tile operand has the same known shape and the
    others are constants or scalars; None when unknown."""
    shape = None
    for v in vs:
        if v.kind in (STATIC, SCALAR) and v.shape is None:
            continue
        if v.kind != TILE or v.shape is None or (shape is not None and v.shape != shape):
            return None
        shape = v.shape
    return shape
