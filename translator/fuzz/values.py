"""What the generator knows about the tiles it builds: shape, dtype, a bound on |value| and whether
the value is an exact integer (so that sums, products and casts stay exact and order-independent,
and a disagreement is a translation bug rather than rounding)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtype_rules

FLOATS = ("float32", "float16")
INTS = ("int32", "int16", "int8")
GPU_ONLY = ("bfloat16",)            # the stock interpreter gets bf16 wrong: GPU runs only
WIDTH = {"float32": 32, "float16": 16, "bfloat16": 16, "int32": 32, "int16": 16, "int8": 8, "uint8": 8}
# largest |integer| each dtype holds exactly (and sums stay in range)
LIMIT = {"float32": 2 ** 22, "float16": 1024, "bfloat16": 128, "int32": 2 ** 28, "int16": 2 ** 13, "int8": 60, "uint8": 120}
MAX_NUMEL = 256


def is_float(dt: str) -> bool:
    return dt in FLOATS or dt in GPU_ONLY


def promote(a: str, b: str):
    """cuTile's promotion of two strictly typed operands; None where it errors (translator/dtype_rules.py)."""
    return dtype_rules.promote(a, b)


def broadcast(s1: tuple, s2: tuple):
    """NumPy broadcast of two shapes, or None."""
    out = []
    for i in range(max(len(s1), len(s2))):
        a = s1[len(s1) - 1 - i] if i < len(s1) else 1
        b = s2[len(s2) - 1 - i] if i < len(s2) else 1
        if a != b and 1 not in (a, b):
            return None
        out.append(max(a, b))
    return tuple(reversed(out))


def numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


@dataclass
class Val:
    name: str
    shape: tuple
    dtype: str
    mag: float = 4.0          # bound on |element|
    exact: bool = True        # every element an exact integer

    @property
    def rank(self) -> int:
        return len(self.shape)

    def fits(self, mag: float, dtype: str | None = None) -> bool:
        return mag <= LIMIT[dtype or self.dtype]


def ct_dtype(dt: str) -> str:
    return f"ct.{dt}"


def shape_text(shape) -> str:
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(d) for d in shape) + ")"
