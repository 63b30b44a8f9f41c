"""cuTile's dtype promotion and implicit-cast rules, over cuTile's dtype names ("float16", "bool_").

One source for both sides of the translation:
- the shim serves cuTile's host-side helpers from it (`cuda.tile._ir.cast_ops._is_implicit_cast_ok`,
  translator/shim/ct_module.py), which cutile-python's tests call to know what to expect;
- translated kernels check it when Triton compiles them: the block between the two `# ----` lines
  below is copied, as written, into every module that stores, scatters or updates atomically
  (templates/prelude_casts.py.j2 wraps it for Triton dtypes). Hence its `_c2t_` names, and that it
  uses nothing but builtins and reads no module-level data (Triton would check such globals at
  every launch).

The rules (reference 3.5 and the store/atomic rows of 2.x):
- promotion of two strictly typed dtypes: bool < integer < float; a higher category wins with its
  own dtype, within a category the wider dtype; signed with unsigned, float16 with bfloat16 and a
  restricted float (tfloat32, fp8, fp4) with any other dtype do not promote (TileTypeError);
- a strictly typed value is implicitly cast to a dtype only where promoting the two gives that
  dtype (f16 -> f32, i32 -> f32, i8 -> i32; not f32 -> f16, i64 -> i32, i32 -> u32, int -> bool);
- a loosely typed constant (a literal, a Constant parameter) is cast unless its category is above
  the target's (a float into an integer array), a bool target gets anything but 0 or 1, or an
  integer does not fit the integer target (TileValueError);
- atomics: each read-modify-write op accepts its array dtypes only, and the bitwise ones (and, or,
  xor) want the update's dtype exactly (a loose constant's being int32, int64 or uint64 by size).
"""

from __future__ import annotations


# ---- copied into translated modules (templates/prelude_casts.py.j2)
def _c2t_rule_kind(name):
    """(category: 0 bool, 1 integer, 2 float, 3 restricted float; signedness; bits) of a cuTile
    dtype, None for a name cuTile does not have."""
    kinds = {
        "bool_": (0, "", 1),
        "int8": (1, "s", 8),
        "int16": (1, "s", 16),
        "int32": (1, "s", 32),
        "int64": (1, "s", 64),
        "uint8": (1, "u", 8),
        "uint16": (1, "u", 16),
        "uint32": (1, "u", 32),
        "uint64": (1, "u", 64),
        "float16": (2, "", 16),
        "bfloat16": (2, "", 16),
        "float32": (2, "", 32),
        "float64": (2, "", 64),
        "tfloat32": (3, "", 32),
        "float8_e4m3fn": (3, "", 8),
        "float8_e5m2": (3, "", 8),
        "float8_e5m3fnu": (3, "", 8),
        "float8_e8m0fnu": (3, "", 8),
        "float4_e2m1fn": (3, "", 4),
    }
    return kinds[name] if name in kinds else None


def _c2t_rule_promote(a, b):
    """cuTile's promotion of two strictly typed dtypes; None where cuTile raises TileTypeError."""
    ka, kb = _c2t_rule_kind(a), _c2t_rule_kind(b)
    if a == b:
        return a
    if ka[0] == 3 or kb[0] == 3:  # restricted floats promote with themselves only
        return None
    if ka[0] != kb[0]:
        return a if ka[0] > kb[0] else b
    if ka[1] != kb[1] or ka[2] == kb[2]:  # signed with unsigned; float16 with bfloat16
        return None
    return a if ka[2] > kb[2] else b


def _c2t_rule_cast_error(value, dst):
    """None where cuTile implicitly casts `value` to the dtype `dst`, else (cuTile's error class,
    its message). `value`: a dtype name (a strictly typed value) or a Python bool, int or float (a
    loosely typed constant)."""
    if isinstance(value, str):
        if _c2t_rule_promote(value, dst) == dst:
            return None
        return "TileTypeError", f"cannot implicitly cast {value} to {dst}"
    src = 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
    cat, sign, bits = _c2t_rule_kind(dst)
    if (cat == 0 and (src == 2 or value not in (0, 1))) or (cat != 0 and src > cat):
        return "TileTypeError", f"cannot implicitly cast {value} to {dst}"
    lo, hi = (0, 2**bits - 1) if sign == "u" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if src == 1 and cat == 1 and not lo <= value <= hi:
        return "TileValueError", f"{value} is out of range of {dst}"
    return None


def _c2t_rule_operand_error(what, value, dst):
    """None where cuTile accepts `value` as the operand `what` of an access to an array of dtype
    `dst`, else (error class, message). `what`: "store" (ct.store), "scatter", "raw_store"
    (RawArrayMemory.store_offset), "cas" (atomic_cas's expected and desired values) or a
    read-modify-write atomic ("add", "xchg", "and", ...)."""
    ints, floats = ("int32", "int64", "uint32", "uint64"), ("float32", "float64")
    atomics = {
        "xchg": ints + floats,
        "add": ints + floats + ("float16", "bfloat16"),
        "max": ints,
        "min": ints,
        "and": ints,
        "or": ints,
        "xor": ints,
        "cas": ints + floats,
    }
    if what in atomics and dst not in atomics[what]:
        return "TileTypeError", f"Unsupported array dtype: {dst}"
    if what in ("and", "or", "xor"):
        got = value
        if not isinstance(value, str):  # a loose constant: the dtype it would get
            got = (
                "bool_"
                if isinstance(value, bool)
                else "float32"
                if isinstance(value, float)
                else "int32"
                if -(2**31) <= value < 2**31
                else "int64"
                if -(2**63) <= value < 2**63
                else "uint64"
            )
        if got == dst:
            return None
        return "TileTypeError", (
            "Bitwise atomic read-modify-write operations require the update "
            f"dtype ({got}) to exactly match the target dtype ({dst})"
        )
    err = _c2t_rule_cast_error(value, dst)
    if err is None:
        return None
    contexts = {
        "store": "Stored tile is incompatible with array's dtype",
        "scatter": "Stored value is incompatible with array's dtype",
        "raw_store": "Stored value is incompatible with RawArrayMemory's dtype",
        "cas": "Stored value is incompatible with array's dtype",
    }
    context = contexts[what] if what in contexts else "Update is incompatible with the target dtype"
    return err[0], f"{context}: {err[1]}"


def _c2t_rule_dtype_of(value):
    """The dtype of an operand: a dtype name itself, or the dtype cuTile gives a loosely typed
    constant (bool_; int32, int64 or uint64 by size; float32)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "bool_"
    if isinstance(value, int):
        return "int32" if -(2**31) <= value < 2**31 else "int64" if -(2**63) <= value < 2**63 else "uint64"
    return "float32"


def _c2t_rule_binary_error(op, a, b):
    """None where cuTile accepts the operator `op` on the operands `a` and `b`, else (error class,
    message). Operands: dtype names (strictly typed values) or Python bool, int or float (loosely
    typed constants, of the dtype cuTile gives a constant: bool_, int32/int64/uint64 by size,
    float32). `op`: "&", "|", "^" (integers or bools of one dtype; a constant takes the other
    operand's), "<<", ">>" (integers), "divmod" (integers), else an arithmetic operator, comparison
    or two-operand function, which promotes (two strictly typed operands must promote; a constant
    is not checked). (cuTile's TypeCheckingError is its TileTypeError.)"""
    da, db = _c2t_rule_dtype_of(a), _c2t_rule_dtype_of(b)
    ka, kb = _c2t_rule_kind(da), _c2t_rule_kind(db)
    strict = isinstance(a, str) and isinstance(b, str)
    if op in ("&", "|", "^"):
        if ka[0] > 1 or kb[0] > 1:
            return "TileTypeError", (
                "Bitwise operations require integers or booleans. Use an explicit "
                "cuda.tile.bitcast() for non-integer operands."
            )
        if strict and da != db:
            return "TileTypeError", f"Bitwise operands must have same data type, got: {da} and {db}"
        if da != db and (da, db) in (("bool_", "int8"), ("int8", "bool_")):
            return "TileTypeError", "Bitwise op does not support bool and int8"
    if op in ("<<", ">>"):
        for side, d, k in (("left", da, ka), ("right", db, kb)):
            if k[0] != 1:
                return "TileTypeError", f"Bitwise shift requires an integer for {side}-hand side, got: {d}"
    if op == "divmod" and (ka[0] >= 2 or kb[0] >= 2) and (not strict or _c2t_rule_promote(da, db) is not None):
        return "TileTypeError", "divmod() is not implemented for floating point values"
    if not strict or _c2t_rule_promote(da, db) is not None:
        return None
    if ka[0] == 3 or kb[0] == 3:
        return "TileTypeError", (
            f"Implicit promotion of {da} and {db} is not supported as it involves "
            "restricted float dtypes. Please perform an explicit cast instead."
        )
    return "TileTypeError", (
        f"Implicit promotion of {da} and {db} is not supported. Please perform an explict cast instead."
    )


def _c2t_rule_rounding_error(fn, mode, ftz, dtype):
    """None where cuTile accepts `rounding_mode`/`flush_to_zero` on the operation `fn` (add, sub,
    mul, truediv, max, min; others are not checked) computing in the dtype `dtype` (truediv: an
    integer's quotient is float32), else (error class, message). `mode`: a RoundingMode's name (RN, RZ, ...) or None;
    `ftz`: flush_to_zero."""
    values = {
        "RN": "nearest_even",
        "RZ": "zero",
        "RM": "negative_inf",
        "RP": "positive_inf",
        "RA": "nearest_away",
        "FULL": "full",
        "APPROX": "approx",
        "RZI": "nearest_int_to_zero",
    }
    modes = {
        "add": ("RN", "RZ", "RM", "RP"),
        "sub": ("RN", "RZ", "RM", "RP"),
        "mul": ("RN", "RZ", "RM", "RP"),
        "truediv": ("RN", "RZ", "RM", "RP", "FULL", "APPROX"),
        "max": (),
        "min": (),
    }
    kind = _c2t_rule_kind(dtype)
    if fn not in modes or kind is None:
        return None
    if fn == "truediv" and kind[0] < 2:
        dtype, kind = "float32", (2, "", 32)
    if mode is not None:
        if mode not in modes[fn]:
            return "TileTypeError", f"Rounding mode {values[mode]} is not supported for {fn}"
        if kind[0] != 2:
            return "TileTypeError", (f"Rounding mode can only be used for unrestricted float types, but got {dtype}")
        if mode in ("FULL", "APPROX") and dtype != "float32":
            return "TileTypeError", (f"Rounding mode {values[mode]} can only be used for float32 type, but got {dtype}")
    if ftz and dtype != "float32":
        return "TileTypeError", f"Flush to zero can only be used for float32 type, but got {dtype}"
    return None


# ----


# ---- copied into translated modules with tiled views (stores into them or their atomics)
def _c2t_rule_view_error(what, value, dst):
    """As `_c2t_rule_operand_error`, for the operand `value` of a TiledView of dtype `dst`: its
    store ("store") or an atomic_store_<op> (`what` the op), in cuTile's words for views: a dtype
    the atomic does not take is the view's, a stored tile is cast to the view's dtype."""
    if what == "store":
        err = _c2t_rule_cast_error(value, dst)
        return None if err is None else (err[0], f"Stored tile is incompatible with tiled view's dtype: {err[1]}")
    if _c2t_rule_operand_error(what, dst, dst) is not None:  # refused whatever the update
        return "TileTypeError", f"Unsupported tiled view dtype: {dst}"
    return _c2t_rule_operand_error(what, value, dst)


# ----


DTYPES = (
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "tfloat32",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e5m3fnu",
    "float8_e8m0fnu",
    "float4_e2m1fn",
)  # every cuTile dtype (_c2t_rule_kind's)


def promote(a: str, b: str) -> str | None:
    """cuTile's promotion of two strictly typed dtypes (names); None where cuTile refuses it."""
    return _c2t_rule_promote(a, b)


def implicit_cast_ok(src: str, dst: str) -> bool:
    """Whether cuTile implicitly casts a strictly typed value of dtype `src` to `dst`."""
    return _c2t_rule_cast_error(src, dst) is None


def operand_error(what: str, value, dst: str):
    """See `_c2t_rule_operand_error`."""
    return _c2t_rule_operand_error(what, value, dst)


def binary_error(op: str, a, b):
    """See `_c2t_rule_binary_error`."""
    return _c2t_rule_binary_error(op, a, b)


def rounding_error(fn: str, mode, ftz: bool, dtype: str):
    """See `_c2t_rule_rounding_error`."""
    return _c2t_rule_rounding_error(fn, mode, ftz, dtype)


def view_operand_error(what: str, value, dst: str):
    """See `_c2t_rule_view_error`."""
    return _c2t_rule_view_error(what, value, dst)


def device_source(views: bool = False) -> str:
    """A rule block as it goes into translated modules: the lines between its `# ---- copied` mark
    and the next `# ----` (the rules every store and atomic uses; with `views`, the block that words
    them for tiled views, in modules whose views store or update atomically), each
    function a `@triton.constexpr_function` there (Triton then runs it when it compiles a kernel, and
    hashes its source into the kernel's cache key; it refuses functions that name other globals'
    methods, and checks global data they read at each launch: the block's tables are locals)."""
    import inspect
    import sys

    lines = inspect.getsource(sys.modules[__name__]).split("\n")
    mark = "# ---- copied into translated modules " + ("with tiled views" if views else "(")
    start = next(i for i, ln in enumerate(lines) if ln.startswith(mark))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "# ----")
    out = []
    for ln in lines[start + 1 : end]:
        if ln.startswith("def "):
            out.append("@triton.constexpr_function")
        out.append(ln)
    return "\n".join(out).strip("\n")
