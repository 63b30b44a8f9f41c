"""cuda.tile._datatype as the shim serves it: cuTile's dtypes as `DType`s that print as cuTile's
names (`float16`, `bool_`) and equal (and hash as) ct's, torch's and numpy's dtype of that name,
the predicates over them (is_integral, is_signed, ...) and IntegerInfo, after translator/
dtype_rules.py's table of dtype kinds. `ct.float16` itself stays torch's dtype (docs/shim.md):
only the names of this internal module are cuTile's objects."""
from __future__ import annotations

from ..dtype_rules import _c2t_rule_kind


def names(to_dtype, dtype_name, dtype_names) -> dict:
    """The module's names: `to_dtype(x)` gives cuTile's DType of a dtype, `dtype_name(x)` its
    cuTile name (None for no dtype), `dtype_names` the dtype names served."""
    def kind(t):
        name = dtype_name(t)
        k = _c2t_rule_kind(name) if name is not None else None
        if k is None:
            raise KeyError(t)
        return k

    class IntegerInfo:
        """Machine information for an integer dtype, as numpy.iinfo (cuTile's IntegerInfo)."""

        def __init__(self, dtype):
            cat, sign, bits = kind(dtype)
            if cat != 1:
                raise TypeError(f"'{dtype}' is not an integer dtype")
            self._dtype, self._signed, self._bits = to_dtype(dtype), sign == "s", bits

        dtype = property(lambda self: self._dtype)
        bits = property(lambda self: self._bits)
        min = property(lambda self: -(1 << (self._bits - 1)) if self._signed else 0)
        max = property(lambda self: (1 << (self._bits - 1)) - 1 if self._signed else (1 << self._bits) - 1)

        def __eq__(self, other):
            return isinstance(other, IntegerInfo) and self._dtype == other._dtype

        def __hash__(self):
            return hash(self._dtype)

    out = {n: to_dtype(n) for n in dtype_names}
    out.update(
        IntegerInfo=IntegerInfo,
        is_numeric=lambda t: kind(t) is not None,
        is_boolean=lambda t: kind(t)[0] == 0,
        is_integral=lambda t: kind(t)[0] == 1,
        is_float=lambda t: kind(t)[0] in (2, 3),
        is_unrestricted_float=lambda t: kind(t)[0] == 2,
        is_restricted_float=lambda t: kind(t)[0] == 3,
        is_signed=lambda t: kind(t)[0] in (2, 3) or kind(t)[1] == "s",
    )
    for n in ("is_numeric", "is_boolean", "is_integral", "is_float", "is_unrestricted_float",
              "is_restricted_float", "is_signed"):
        out[n].__name__ = n
    return out
