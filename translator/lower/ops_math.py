"""Elementwise math beyond Triton's core: tanh/sinh/cosh/tan/atan2/pow, rounding modes, cuTile's
dtype promotion where Triton's differs, float -> bool casts, and ct.ByTarget resolution.

Helpers live in templates/prelude_math.py.j2. Transcendentals call CUDA libdevice in compiled
kernels (precise, as cuTile's default FULL mode); under the Triton interpreter, which cannot call
libdevice, the same helpers evaluate float64 formulas (accuracy: tests/test_lang_math.py).

Names that translator/lower/ops.py already registers (pow, add/sub/mul/truediv, sqrt, astype) are
not registered here: ops.py calls `pow_value`, `rounding_mode_value`, `astype_value` and
`promoted_binary` (see each docstring).
"""
from __future__ import annotations

from .. import dtype_rules as R
from ..ir import nodes as N
from . import types as T
from .context import _rank, _req, _result_kind
from .registry import op
from .types import V, paren

_MATH_SIG = ["x", "/", "*", "rounding_mode", "flush_to_zero"]


def _mode(cx, args, name, call):
    """The RoundingMode member name given as `rounding_mode` (None when absent or None)."""
    if "rounding_mode" not in args:
        return None
    rm = cx.expr(args["rounding_mode"])
    if rm.known and rm.value is None:
        return None
    if rm.kind != T.ENUM or not str(rm.value).startswith("RoundingMode."):
        cx.fail("C2T105", f"ct.{name}: rounding_mode must be a constant ct.RoundingMode member", call)
    return str(rm.value).split(".", 1)[1]


def _ftz(cx, args, name, call, allowed: bool):
    """flush_to_zero=True only changes subnormal results: dropped with an info note. Returns its
    value (False when absent)."""
    if "flush_to_zero" not in args:
        return False
    v = cx.expr(args["flush_to_zero"])
    if not v.known:
        cx.fail("C2T105", f"ct.{name}: flush_to_zero must be a constant bool", call)
    if v.value and allowed:
        cx.note("C2T203", f"ct.{name}(flush_to_zero=True): subnormals are kept (Triton has no per-op "
                          "flush-to-zero); only subnormal inputs/results differ", call,
                "results differ only where cuTile would flush a subnormal to zero")
    elif v.value:
        cx.fail("C2T106", f"ct.{name} has no flush_to_zero option in cuTile", call)
    return bool(v.value)


def _as_runtime(v: V) -> str:
    """A static scalar passed to a helper that reads `.dtype`: a loose float becomes f32, a loose int i32."""
    if v.is_static:
        if v.known and isinstance(v.value, bool):
            return f"tl.full([], {v.code}, tl.int1)"
        if v.known and isinstance(v.value, int):
            return f"tl.full([], {v.code}, tl.int32)"
        return f"tl.full([], {v.code}, tl.float32)"
    return v.code


def _unary(cx, name, call, args, helper):
    x = _req(cx, name, args, "x", call)
    return V(f"{cx.use(helper)}({_as_runtime(x)})", x.kind if x.kind != T.STATIC else T.SCALAR, rank=x.rank)


@op("tan", _MATH_SIG[:2])
def op_tan(cx, call, args):
    return _unary(cx, "tan", call, args, "_c2t_tan")


@op("sinh", _MATH_SIG[:2])
def op_sinh(cx, call, args):
    return _unary(cx, "sinh", call, args, "_c2t_sinh")


@op("cosh", _MATH_SIG[:2])
def op_cosh(cx, call, args):
    return _unary(cx, "cosh", call, args, "_c2t_cosh")


@op("tanh", ["x", "/", "*", "rounding_mode"])
def op_tanh(cx, call, args):
    mode = _mode(cx, args, "tanh", call)
    x = _req(cx, "tanh", args, "x", call)
    xc = _as_runtime(x) if x.is_static else unary_checked(cx, x, "tanh", mode, False, call)
    kind = x.kind if x.kind != T.STATIC else T.SCALAR
    if mode == "APPROX":
        cx.use("_c2t_tanh")   # the interpreter computes the precise tanh instead
        cx.note("C2T203", "ct.tanh(rounding_mode=APPROX): the tanh.approx.f32 instruction is used "
                          "(the Triton interpreter computes the precise tanh)", call,
                "cuTile uses the same instruction; about 2^-11 relative error")
        return V(f"{cx.use('_c2t_tanh_approx')}({xc})", kind, rank=x.rank)
    if mode in (None, "FULL") or not x.is_static:    # (other modes: cuTile's error, from unary_checked)
        return V(f"{cx.use('_c2t_tanh')}({xc})", kind, rank=x.rank)
    cx.fail("C2T106", f"ct.tanh: rounding_mode={mode} is not valid (cuTile accepts FULL and APPROX)", call)


@op("atan2", ["x1", "x2", "/"])
def op_atan2(cx, call, args):
    y, x = _req(cx, "atan2", args, "x1", call), _req(cx, "atan2", args, "x2", call)
    yc, xc = _static_beside(y, x), _static_beside(x, y)
    return V(f"{cx.use('_c2t_atan2')}({yc}, {xc})", _runtime_kind(x, y), rank=_rank(x, y))


def _runtime_kind(*vs) -> str:
    k = _result_kind(*vs)
    return T.SCALAR if k == T.STATIC else k


def _static_beside(v: V, other: V) -> str:
    """A loosely typed constant next to a runtime operand takes its dtype when of the same or a
    lower kind (cuTile and Triton agree): `tl.zeros_like(other) + v` keeps that rule (and, unlike
    `other * 0 + v`, stays finite where `other` is inf or nan)."""
    if not v.is_static:
        return v.code
    if other.is_static:
        return _as_runtime(v)
    return f"(tl.zeros_like({other.code}) + {paren(v, 12)})"


# ---------------------------------------------------------------- `**` / ct.pow (called by ops.py)
def pow_value(cx, a: V, b: V, node) -> V:
    """x ** y with at least one runtime operand (ops.binary multiplies out constant exponents 1..4).
    A constant integer exponent stays an int32 exponent (cuTile's FPowI)."""
    if b.is_static and b.known and isinstance(b.value, int) and not isinstance(b.value, bool):
        if not -2**31 <= b.value < 2**31:
            cx.fail("C2T106", "`**`: the integer exponent does not fit int32", node)
        yc = f"tl.full([], {b.code}, tl.int32)"
    else:
        yc = _static_beside(b, a)
    xc = _static_beside(a, b)
    return V(f"{cx.use('_c2t_pow')}({xc}, {yc})", _runtime_kind(a, b), rank=_rank(a, b))


# ---------------------------------------------------------------- rounding modes (called by ops.py)
_DIRECTED = {"RZ": "rz", "RM": "rd", "RP": "ru"}
_FTZ_OPS = {"add", "sub", "mul", "truediv", "sqrt"}
_HELPER_OP = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "sqrt": "sqrt"}


def rounding_mode_value(cx, name: str, call, args):
    """add/sub/mul/truediv/sqrt with a rounding_mode or flush_to_zero argument.

    Returns None when the default lowering applies (no mode, RN, or the FULL/APPROX forms ops.py
    already handles; for add/sub/mul/truediv also modes cuTile rejects, which ops.binary_func
    checks as cuTile does: `rd_checked`), after dropping flush_to_zero=True with an info note;
    returns the lowered V for RZ/RM/RP; for sqrt refuses RA and modes cuTile rejects with C2T106."""
    mode = _mode(cx, args, name, call)
    ftz = _ftz(cx, args, name, call, name in _FTZ_OPS)
    if mode in (None, "RN") or (name in _RD_CHECKED and mode not in _DIRECTED):
        return None
    if name == "sqrt" and mode not in _DIRECTED:
        return None         # APPROX, or a mode cuTile refuses for sqrt (unary_checked says so)
    if mode in ("FULL", "APPROX"):
        if name == "truediv":
            return None
        cx.fail("C2T106", f"ct.{name}: rounding_mode={mode} is not valid for this operation", call)
    if mode not in _DIRECTED:
        cx.fail("C2T106", f"ct.{name}: rounding_mode={mode} has no Triton equivalent", call,
                "use RN, RZ, RM or RP")
    fn = cx.use("_c2t_rounded")
    op_ = _HELPER_OP[name]
    if name == "sqrt":
        x = _req(cx, name, args, "x", call)
        xc = unary_checked(cx, x, name, mode, ftz, call) if not x.is_static else _as_runtime(x)
        return V(f'{fn}({xc}, {xc}, "{op_}", "{_DIRECTED[mode]}")', _runtime_kind(x), rank=x.rank)
    x, y = _req(cx, name, args, "x", call), _req(cx, name, args, "y", call)
    v = V(f'{fn}({_static_beside(x, y)}, {_static_beside(y, x)}, "{op_}", "{_DIRECTED[mode]}")',
          _runtime_kind(x, y), rank=_rank(x, y))
    return rd_checked(cx, v, name, mode, ftz, call) if ftz else v


_UNARY_MODES = {"sqrt": ("RN", "RZ", "RM", "RP", "APPROX"), "rsqrt": (), "exp": ("FULL", "APPROX"),
                "exp2": (), "tanh": ("FULL", "APPROX")}     # cuTile's modes of its checked unary ops


def unary_checked(cx, x: V, name: str, mode, ftz: bool, node) -> str:
    """The code of `x`, the runtime operand of ct.<name> (sqrt, rsqrt, exp, exp2, tanh) given
    rounding_mode=`mode` (a RoundingMode member's name or None) and flush_to_zero=`ftz`, checked
    as cuTile checks them against its dtype when Triton compiles the kernel (_c2t_unary_checked:
    a mode cuTile does not take for the operation, a mode off floats, FULL/APPROX or flush_to_zero
    off float32 fail with cuTile's TileTypeError). Without a mode or flush_to_zero: x's code."""
    if mode is None and not ftz:
        return x.code
    if mode is not None and mode not in _UNARY_MODES[name]:
        cx.note("C2T218", f"ct.{name}: cuTile does not take rounding_mode={mode} (TileTypeError)", node)
    m = f'"{mode}"' if mode is not None else "None"
    return f'{cx.use("_c2t_unary_checked")}({x.code}, "{name}", {m}, {ftz})'


_RD_CHECKED = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv", "maximum": "max",
               "minimum": "min"}        # cuTile's names of the operations whose modes are checked


def rd_checked(cx, v: V, name: str, mode, ftz: bool, node) -> V:
    """`v`, the result of ct.<name> with rounding_mode=`mode` (a RoundingMode member's name or
    None) and flush_to_zero=`ftz`, checked as cuTile checks them against the operands' common
    dtype (the result's) when Triton compiles the kernel: a mode cuTile does not take for the
    operation, a mode on integers, FULL/APPROX or flush_to_zero off float32 fail with cuTile's
    TileTypeError (_c2t_rd_checked). Two constants (folded) are not checked."""
    if v.kind == T.STATIC:
        return v
    refused = R.rounding_error(_RD_CHECKED[name], mode, False, "float32") if mode is not None else None
    if refused:         # (for any dtype)
        cx.note("C2T218", f"ct.{name}: cuTile does not take rounding_mode={mode} (TileTypeError: {refused[1]})",
                node)
    m = f'"{mode}"' if mode is not None else "None"
    out = V(f'{cx.use("_c2t_rd_checked")}({v.code}, "{_RD_CHECKED[name]}", {m}, {ftz})', v.kind, rank=v.rank,
            shape=v.shape, tf32=v.tf32)
    out.dsrc, out.mbf, out.isfloat = v.dsrc, v.mbf, v.isfloat
    return out


def astype_value(cx, x: V, dt: V, call, args):
    """ct.astype details ops.op_astype delegates: rounding modes on float -> float casts and
    float -> bool as `x != 0` (_c2t_to_bool). Returns the lowered V."""
    mode = _mode(cx, args, "astype", call)
    if mode is not None and mode not in _ASTYPE_MODES:
        cx.fail("C2T106", f"ct.astype: rounding_mode={mode} is not valid for a cast", call,
                "use RN, RZ, RM, RP or RA (cuTile's casts take those)")
    if mode is not None and (dt.value == "bool_" or dt.code == "tl.int1" or _int_target(dt)):
        # cuTile rejects it whatever the source: translated, failing to compile with cuTile's error
        cx.note("C2T218", f"ct.astype: rounding_mode={mode} on a cast to {dt.value or dt.code}: cuTile rejects "
                          "it (rounding_mode is only valid for float to float conversions)", call)
    elif dt.value == "bool_" or dt.code == "tl.int1":
        return V(f"{cx.use('_c2t_to_bool')}({_as_runtime(x)})", _runtime_kind(x), rank=x.rank)
    code = paren(x, 100) if not x.is_static else _as_runtime(x)
    if mode is None:
        out = f"tl.cast({x.code}, {dt.code})" if x.kind == T.SCALAR else f"{code}.to({dt.code})"   # (ops.scalar_cast)
        if dt.tf32:     # True, or the condition under which a conditional dtype is tfloat32
            out = f"{cx.use('_c2t_to_tf32')}({out}, {'True' if dt.tf32 is True else dt.tf32}, \"RN\")"
        return V(out, _runtime_kind(x), rank=x.rank, tf32=dt.tf32, shape=x.shape)
    # a mode given: cuTile's table of conversions decides when Triton compiles (the source's dtype
    # may be known only then); _c2t_astype_rounded computes what it takes, or fails saying so
    tf = "" if not dt.tf32 else ", True" if dt.tf32 is True else f", {dt.tf32}"
    return V(f'{cx.use("_c2t_astype_rounded")}({code}, {dt.code}, "{mode}"{tf})', _runtime_kind(x),
             rank=x.rank, tf32=dt.tf32, shape=x.shape)


_ASTYPE_MODES = ("RN", "RZ", "RM", "RP", "RA")


def _int_target(dt: V) -> bool:
    return dt.code in ("tl.int8", "tl.int16", "tl.int32", "tl.int64", "tl.uint8", "tl.uint16", "tl.uint32",
                       "tl.uint64")


# ---------------------------------------------------------------- promotion (called by ops.py)
_CT_ARITH = {"+": "_c2t_add_ct", "-": "_c2t_sub_ct", "*": "_c2t_mul_ct"}


def promoted_binary(cx, op_: str, a: V, b: V):
    """`a op b` for two runtime operands with cuTile's promotion (bf16 with an int tile stays bf16;
    Triton computes in f32). Returns None when no helper is needed (a constant operand follows the
    same rules in both languages, and other operators have their own helpers)."""
    if op_ not in _CT_ARITH or a.is_static or b.is_static:
        return None
    return V(f"{cx.use(_CT_ARITH[op_])}({a.code}, {b.code})", _result_kind(a, b), rank=_rank(a, b))


# ---------------------------------------------------------------- ct.ByTarget
def resolve_by_target(call_node, arch: int = 90):
    """The value a `ct.ByTarget(sm_XX=..., default=...)` call selects for `sm_<arch>`.

    `call_node` is the N.Call; returns the chosen argument expression (an IR node), or None when
    no entry matches and there is no default. Raises ValueError for positional arguments or keys
    that are not `sm_<digits>`/`default` (cuTile raises the same way)."""
    if call_node.args:
        raise ValueError("ct.ByTarget takes keyword arguments only")
    chosen, default = None, None
    for kw in call_node.keywords:
        if kw.name is None:
            raise ValueError("ct.ByTarget(**kwargs) cannot be resolved statically")
        if kw.name == "default":
            default = kw.value
        elif kw.name.startswith("sm_") and kw.name[3:].isdigit():
            if int(kw.name[3:]) == arch:
                chosen = kw.value
        else:
            raise ValueError(f"invalid GPU architecture name `{kw.name}` (expected sm_<major><minor>)")
    return chosen if chosen is not None else default


def is_by_target(info, node) -> bool:
    """Whether `node` is a call of ct.ByTarget (also `from cuda.tile import ByTarget`)."""
    return isinstance(node, N.Call) and info.ct_path(node.func) == "ByTarget"
