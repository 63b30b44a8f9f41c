"""What the lowering knows of values' dtypes, for the one place where cuTile's and Triton's
promotion differ on operators: a bf16 operand with an integer (or bool) one. cuTile computes in
bf16, Triton in fp32 (reference 3.5), so such operators go through a helper that casts the
integer operand first (prelude `_c2t_promote`).

Dtypes are mostly known only at run time (an array's dtype), so a value carries:
- `dsrc`, its *family*: a key such as "arr:X" (a tile loaded from array X) or "dt:tl.float32" (a
  cast). A family member is bf16 only if the key's dtype is bf16 and an integer only if the key's
  dtype is an integer (its other members are non-bf16 floats, or other integers); so two members
  of one family never combine bf16 with an integer. Loads, casts and factories start families;
  elementwise math, reductions, scans, `where`, and operators with constants, scalar arguments or
  members of the same family keep them.
- `mbf` (may be bf16): None means the kind's default: tiles may be, scalars (arguments, extents,
  loop counters, index arithmetic) are not; a 0-d reduction or load of a tile that may be bf16
  says so.
- `isfloat`: certainly a float (a math result, a float cast...).
An operator between values that may be bf16 and an integer, of different families, gets the
helper; everything else keeps Triton's plain operator.
"""
from __future__ import annotations

from . import types as T
from .types import V

_INT_CODES = {"tl.int1", "tl.int8", "tl.int16", "tl.int32", "tl.int64", "tl.uint8", "tl.uint16", "tl.uint32",
              "tl.uint64"}
_FLOAT_PREFIXES = ("tl.float", "tl.bfloat")


def of_dtype(code: str, dt: V = None) -> dict:
    """The facts of a value cast to (or made with) the dtype `code` (Triton source text); `dt`, the
    dtype's value, carries the family of the value or array it was read off (`t.dtype`)."""
    if dt is not None and code not in _INT_CODES and not code.startswith(_FLOAT_PREFIXES):
        return dict(dsrc=dt.dsrc, mbf=True if dt.mbf is None else dt.mbf, isfloat=dt.isfloat)
    if code in _INT_CODES:
        return dict(dsrc=f"dt:{code}", mbf=False, isfloat=False)
    if code.startswith(_FLOAT_PREFIXES):
        return dict(dsrc=f"dt:{code}", mbf=code == "tl.bfloat16", isfloat=True)
    return dict(dsrc=None, mbf=True, isfloat=False)       # a dtype known only when compiled


def may_be_bf16(v: V) -> bool:
    if v.mbf is not None:
        return v.mbf
    return v.kind in (T.TILE, T.UNKNOWN) and not v.isint


def may_be_int(v: V) -> bool:
    return not v.isfloat


def same_family(a: V, b: V) -> bool:
    return (a.dsrc is not None and a.dsrc == b.dsrc) or (a.code == b.code and a.kind == b.kind)


def may_mix_bf16_int(a: V, b: V) -> bool:
    """Whether `a op b` (both runtime values) may combine a bf16 value with an integer one."""
    if a.is_static or b.is_static or same_family(a, b):
        return False
    return (may_be_bf16(a) and may_be_int(b)) or (may_be_bf16(b) and may_be_int(a))


def mixes_bf16_int(a: V, b: V) -> bool:
    """Two runtime tensors that may be bf16 and an integer: operators on them need cuTile's promotion."""
    return all(x.kind in (T.TILE, T.SCALAR) or x.isint for x in (a, b)) and may_mix_bf16_int(a, b)


def _keeps(member: V, other: V) -> bool:
    """Whether `member op other` stays in member's family: `other` is a constant, a value of the
    same family, or a runtime value that is never bf16 (an int or float scalar argument...)."""
    return member.dsrc is not None and (other.is_static or same_family(member, other) or not may_be_bf16(other))


def combined(op: str, a: V, b: V) -> dict:
    """The facts of `a op b` for an arithmetic operator (`op`: + - * / // % **)."""
    def flt_const(v):
        return v.is_static and v.known and isinstance(v.value, float)
    dsrc = a.dsrc if _keeps(a, b) else b.dsrc if _keeps(b, a) else None
    # a float that is not bf16 (fp32, fp64; fp16 and fp8 meet bf16 only in errors) wins over bf16
    mbf = not (_other_float(a) or _other_float(b)) and (
        (may_be_bf16(a) and not a.is_static) or (may_be_bf16(b) and not b.is_static))
    isfloat = op == "/" or a.isfloat or b.isfloat or flt_const(a) or flt_const(b)
    return dict(dsrc=dsrc, mbf=mbf, isfloat=isfloat)


def _other_float(v: V) -> bool:
    """Certainly a float other than bf16 (a runtime value)."""
    return v.isfloat and not may_be_bf16(v) and not v.is_static


def kept(x: V) -> dict:
    """The facts of an elementwise function, reduction or scan of `x` (its family)."""
    return dict(dsrc=x.dsrc, mbf=may_be_bf16(x), isfloat=x.isfloat)


def of_math(x: V) -> dict:
    """The facts of a float math function of `x` (an integer operand gives fp32)."""
    return dict(dsrc=x.dsrc, mbf=may_be_bf16(x) and not x.is_static, isfloat=True)


def chosen(x: V, y: V) -> dict:
    """The facts of `where(c, x, y)`."""
    dsrc = x.dsrc if _keeps(x, y) else y.dsrc if _keeps(y, x) else None
    return dict(dsrc=dsrc, mbf=(may_be_bf16(x) and not x.is_static) or (may_be_bf16(y) and not y.is_static),
                isfloat=(x.isfloat or x.is_static and isinstance(x.value, float)) and
                        (y.isfloat or y.is_static and isinstance(y.value, float)))


def set_facts(v: V, facts: dict) -> V:
    for k, val in facts.items():
        setattr(v, k, val)
    return v


def facts_of(v: V) -> dict:
    """The facts a variable bound to `v` keeps."""
    return dict(dsrc=v.dsrc, mbf=v.mbf, isfloat=v.isfloat)
