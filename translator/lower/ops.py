"""Lowering of cuTile operations, operators and calls inside kernel code (handlers take the
LoweringContext `cx`, lower/context.py)."""
from __future__ import annotations

import enum
import functools
import math
from typing import Optional

from .. import rules
from ..dataclass_rules import Refused
from ..coverage import is_exported, refusal
from ..ir import nodes as N
from . import dtype_facts
from . import registry
from . import types as T
from .context import cutile_rejects
from .context import (Args, _array, _axis, _bool_arg, _dtype, _order, _rank, _req, _result_kind, _static,
                      _static_tuple, bind)
from .ops_debug import print_call
from .ops_math import _ftz, astype_value, pow_value, promoted_binary, rd_checked, rounding_mode_value, unary_checked
from .ops_scan import directed_helper, reduce_over_axes, rounding_checked, rounding_ftz
from .registry import op
from .types import V, paren

_BIN_PREC = {"**": 15, "*": 13, "/": 13, "//": 13, "%": 13, "@": 13, "+": 12, "-": 12,
             "<<": 11, ">>": 11, "&": 10, "^": 9, "|": 8}


# ---------------------------------------------------------------- operators
def binary(cx, op: str, a: V, b: V, node) -> V:
    v = _binary(cx, op, a, b, node)
    if op != "@" and v.kind != T.STATIC:
        dtype_facts.set_facts(v, dtype_facts.combined(op, a, b))
    return v


def _binary(cx, op: str, a: V, b: V, node) -> V:
    kind = _result_kind(a, b)
    prec = _BIN_PREC[op]
    if op == "+" and a.kind == T.TUPLE and b.kind == T.TUPLE and a.elts is not None and b.elts is not None:
        # tuple concatenation: a tuple of the elements of both (`acc += (t,)`, unrolled by static_iter)
        elts = list(a.elts) + list(b.elts)
        known = all(x.known for x in elts)
        return V(f"{paren(a, prec)} + {paren(b, prec + 1)}", T.TUPLE, prec=prec, elts=elts, known=known,
                 value=tuple(x.value for x in elts) if known else None)
    if op == "*" and T.TUPLE in (a.kind, b.kind):
        t, n = (a, b) if a.kind == T.TUPLE else (b, a)
        if t.elts is not None and n.known and type(n.value) is int:
            # tuple repetition (`(0,) * x.ndim`): a tuple of the elements, as concatenation
            elts = list(t.elts) * max(n.value, 0)
            known = all(x.known for x in elts)
            return V("(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")", T.TUPLE,
                     elts=elts, known=known, value=tuple(x.value for x in elts) if known else None)
    if kind == T.STATIC:
        # compile-time arithmetic: Triton constexprs follow Python semantics already
        return V(f"{paren(a, prec)} {op} {paren(b, prec + (op != '**'))}", T.STATIC, prec=prec)
    rank = _rank(a, b)
    if op in ("//", "%"):
        v = _nonneg_division(cx, op, a, b, kind, rank)
        if v is not None:
            return v
    if op == "//":
        return V(f"{cx.use('_c2t_floordiv')}({a.code}, {b.code})", kind, rank=rank)
    if op == "%":
        return V(f"{cx.use('_c2t_mod')}({a.code}, {b.code})", kind, rank=rank)
    if op == "/":
        return V(f"{cx.use('_c2t_truediv')}({a.code}, {b.code})", kind, rank=rank)
    if op == "@":
        return matmul(cx, a, b, node)
    if op in ("+", "-", "*") and all(x.kind in (T.TILE, T.SCALAR) or x.isint for x in (a, b)) \
            and dtype_facts.may_mix_bf16_int(a, b):
        # values that may be bf16 and an integer (lower/dtype_facts.py): cuTile keeps bf16 there,
        # Triton gives f32; the helper reads both dtypes (scalars' too)
        v = promoted_binary(cx, op, a, b)
        if v is not None:
            return v
    if op in ("&", "|", "^", "<<", ">>") and not (a.is_static or b.is_static or (a.isint and b.isint)
                                                  or dtype_facts.same_family(a, b)):
        # two runtime values whose dtypes may differ: cuTile's rules (one dtype for `&|^`, integers)
        return V(f'{cx.use("_c2t_bitwise")}({a.code}, {b.code}, "{op}")', kind, rank=rank)
    if op == "**":
        if b.known and b.value == 2 and not isinstance(b.value, bool):
            return V(f"{paren(a, 13)} * {paren(a, 13)}", kind, prec=13, rank=rank)   # exact, as cuTile's powi
        return pow_value(cx, a, b, node)
    # a constant next to an integer value keeps it integer for this purpose (a float constant
    # would make it float, but then the only effect is the plain operator, as without this flag)
    both_int = all(x.isint or x.is_static for x in (a, b)) and (a.isint or b.isint)
    na, nb = nonneg_of(cx, a), nonneg_of(cx, b)
    nonneg = na | nb if op in ("+", "*") and both_int and na is not None and nb is not None else None
    return V(f"{paren(a, prec)} {op} {paren(b, prec + 1)}", kind, prec=prec, rank=rank,
             isint=both_int and op not in ("/",), nonneg=nonneg)


def nonneg_of(cx, v: V):
    """The Constant parameters whose being >= 0 makes `v` >= 0 (frozenset(): none needed), or None
    when that is not known: see V.nonneg. A Constant parameter needs itself; an int literal, nothing."""
    if v.nonneg is not None:
        return v.nonneg
    if v.known and type(v.value) is int:
        return frozenset() if v.value >= 0 else None
    if v.kind == T.STATIC and not v.known and v.code in cx.constexpr_params:
        return frozenset({v.code})
    return None


def _nonneg_division(cx, op: str, a: V, b: V, kind: str, rank):
    """`a // b` and `a % b` of an integer known to be >= 0 by a positive integer constant: Python's
    floor division and modulo equal Triton's truncating ones there, and the plain operators keep
    Triton's contiguity analysis (TileGym's geglu gathers at `i // N`, `i % N` became vector
    loads, up to 16 bytes, instead of 2-byte ones). Where that rests on Constant parameters the helper
    checks them when Triton compiles and falls back on the Python semantics. None: not provable."""
    na, nb = nonneg_of(cx, a), nonneg_of(cx, b)
    if not a.isint or na is None or nb is None or not b.is_static or (b.known and not b.value > 0):
        return None
    conds = [f"{n} >= 0" for n in sorted(na - {b.code})] + ([] if b.known else [f"{b.code} > 0"])
    if not conds:
        return V(f"{paren(a, 13)} {op} {paren(b, 14)}", kind, prec=13, rank=rank, isint=True, nonneg=na | nb)
    helper = cx.use("_c2t_floordiv_nonneg" if op == "//" else "_c2t_mod_nonneg")
    cx.use("_c2t_floordiv" if op == "//" else "_c2t_mod")
    cond = " & ".join(f"({c})" for c in conds)
    return V(f"{helper}({a.code}, {b.code}, {cond})", kind, rank=rank, isint=True, nonneg=na | nb)


def precision(a: V, b: V) -> str:
    """input_precision for tl.dot: fp32 is exact in cuTile unless an operand was cast to tfloat32."""
    if a.tf32 is True or b.tf32 is True:
        return '"tf32"'
    conds = list(dict.fromkeys(x.tf32 for x in (a, b) if isinstance(x.tf32, str)))      # (once each)
    if conds:
        return f'"tf32" if {" or ".join(conds)} else "ieee"'
    return '"ieee"'


def matmul(cx, a: V, b: V, node) -> V:
    prec = precision(a, b)
    cx.count_dot()
    cx.use("_c2t_mma")        # _c2t_matmul is _c2t_mma with a zero accumulator
    return V(f"{cx.use('_c2t_matmul')}({a.code}, {b.code}, {prec}{_chain_flag(cx, node)})", T.TILE,
             rank=_matmul_rank(a.rank, b.rank), **dtype_facts.combined("*", a, b))


def _matmul_rank(ra, rb):
    """The rank of `a @ b` (cuTile: a 1-D operand's axis is dropped, batch dimensions broadcast)."""
    if ra == 1 and rb == 1:
        return 0
    if ra == 1 or rb == 1:
        return None if (ra or rb) is None else max(ra or 0, rb or 0) - 1
    if ra is not None and rb is not None:
        return max(ra, rb)
    return ra or rb or 2


def _chain_flag(cx, node) -> str:
    """`, CHAINED=False` for a product (`node`: the `@`, ct.matmul or ct.mma) whose operands provably
    do not come from another product and whose result provably does not reach another product's B
    operand (see product_operands); else `, PAD=C2T_PAD`: the function then takes the constexpr
    C2T_PAD (the launcher's choice of _c2t_mma's padded narrow form, see _c2t_leaner_if_spilling),
    and so does every function that calls it (helpers.py)."""
    if cx.unchained_product(node):
        return ", CHAINED=False"
    cx.needs_pad()
    return ", PAD=C2T_PAD"


# ---------------------------------------------------------------- grid
@op("bid")
def op_bid(cx, call, args):
    ax = _static(cx, _req(cx, "bid", args, "axis", call), "ct.bid axis", call)
    if cx.coarsen and ax.known and ax.value == 0:       # (a coarsened kernel: lower/coarsen.py)
        return V("c2t_bid0", T.SCALAR, isint=True, nonneg=frozenset())
    return V(f"tl.program_id({ax.code})", T.SCALAR, isint=True, nonneg=frozenset())


@op("num_blocks")
def op_num_blocks(cx, call, args):
    ax = _static(cx, _req(cx, "num_blocks", args, "axis", call), "ct.num_blocks axis", call)
    return V(f"tl.num_programs({ax.code})", T.SCALAR, isint=True, nonneg=frozenset())


@op("num_tiles")
def op_num_tiles(cx, call, args):
    arr = _array(cx, args, "array", "num_tiles", call)
    ax = _static(cx, _req(cx, "num_tiles", args, "axis", call), "ct.num_tiles axis", call)
    shape = _static_tuple(cx, _req(cx, "num_tiles", args, "shape", call), "ct.num_tiles shape", call)
    if not ax.known or not isinstance(ax.value, int):
        cx.fail("C2T105", "ct.num_tiles axis must be an integer literal", call)
    axis = ax.value + arr.rank if ax.value < 0 else ax.value      # (cuTile's normalize_axis)
    if not 0 <= axis < arr.rank:
        cx.fail("C2T109", f"ct.num_tiles: axis {ax.value} for a {arr.rank}-D array", call,
                cutile=("TileTypeError", f"Axis {ax.value} is out of range for rank {arr.rank}'"))
    if len(shape) not in (0, arr.rank):        # (a 0-d shape: one element per tile)
        cx.fail("C2T109", f"ct.num_tiles: a {len(shape)}-entry shape for a {arr.rank}-D array", call,
                cutile=("TileTypeError", f"Expected shape length to be {arr.rank}, got {len(shape)}"))
    order = _order(cx, args, arr.rank, call)
    array_axis = order[axis] if order else axis
    if not shape:
        return V(f"{arr.shapes[array_axis]}", T.SCALAR)
    return V(f"tl.cdiv({arr.shapes[array_axis]}, {shape[axis].code})", T.SCALAR)


@op("cdiv")
def op_cdiv(cx, call, args):
    a, b = _req(cx, "cdiv", args, "x", call), _req(cx, "cdiv", args, "y", call)
    if a.is_static and b.is_static:
        return V(f"({paren(a, 12)} + {paren(b, 12)} - 1) // {paren(b, 14)}", T.STATIC, prec=13)
    return V(f"{cx.use('_c2t_cdiv')}({a.code}, {b.code})", _result_kind(a, b), rank=_rank(a, b))


# Grid dependency control (programmatic dependent launch, sm_90+): Triton 3.6's gdc_wait() and
# gdc_launch_dependents() (triton.language.extra.cuda), through prelude helpers that do nothing
# under the interpreter (which cannot run their inline PTX). Both are safe in a launch that is not
# programmatically dependent: the wait returns at once, the kernel only started after its
# predecessor finished. `ct.launch(..., programmatic_dependent_launch=True)` becomes a launch with
# Triton's `launch_pdl` option (host.py).
@op("grid_dependency_control_wait", ["/"])
def op_gdc_wait(cx, call, args):
    return V(f"{cx.use('_c2t_gdc_wait')}()", T.STATIC, value=None)


@op("grid_dependency_control_launch_dependents", ["/"])
def op_gdc_launch_dependents(cx, call, args):
    return V(f"{cx.use('_c2t_gdc_launch_dependents')}()", T.STATIC, value=None)


# ---------------------------------------------------------------- factories and casts
def _shape_list(cx, v: V, node) -> str:
    elts = _static_tuple(cx, v, "a tile shape", node)
    if v.kind == T.TUPLE:
        return "[" + ", ".join(e.code for e in elts) + "]"
    if isinstance(v.value, tuple) and v.value[:1] == ("shape_of",):
        return v.code             # `t.shape` of a tile of unknown rank: Triton's list of constexprs
    return f"[{v.code}]"


def _shape_codes(v: V) -> list:
    return [e.code for e in v.elts] if v.kind == T.TUPLE else [v.code]


@op("arange")
def op_arange(cx, call, args):
    n = _req(cx, "arange", args, "size", call)
    if not n.is_static:
        cx.fail("C2T105", "ct.arange size must be a compile-time constant", call,
                cutile=("TileTypeError", "Expected an integer constant, but given value is not constant"))
    if n.known and type(n.value) is not int:
        cx.fail("C2T109", f"ct.arange size {n.value!r} is not an integer", call,
                cutile=("TileTypeError", "Expected an integer constant, but given value has type "
                                         f"{'float32' if type(n.value) is float else type(n.value).__name__}"))
    if n.known and (n.value <= 0 or n.value & (n.value - 1)):
        cx.fail("C2T109", f"ct.arange size {n.value} is not a power of two", call,
                cutile=("TileTypeError", f"Result tile shape must be power of 2, got {n.value}"))
    dt = _dtype(cx, args, "dtype", "arange", call)
    if "start" in args or "step" in args:
        start = cx.expr(args["start"]).code if "start" in args else "0"
        step = cx.expr(args["step"]).code if "step" in args else "1"
        return V(f"{cx.use('_c2t_arange')}({n.code}, {start}, {step}, {dt.code})", T.TILE, rank=1,
                 isint=dt.code.startswith(("tl.int", "tl.uint")) and dt.code != "tl.int1", shape=[n.code])
    cx.note_tile([n.code])
    code = f"tl.arange(0, {n.code})"
    if dt.code != "tl.int32":
        code += f".to({dt.code})"
    return V(code, T.TILE, rank=1, isint=dt.code.startswith(("tl.int", "tl.uint")) and dt.code != "tl.int1",
             shape=[n.code], nonneg=frozenset() if dt.code in ("tl.int32", "tl.int64") else None)


@op("full")
def op_full(cx, call, args):
    shape = _req(cx, "full", args, "shape", call)
    dt = _dtype(cx, args, "dtype", "full", call)
    val = _req(cx, "full", args, "fill_value", call)
    rank = len(shape.elts) if shape.kind == T.TUPLE else 1
    cx.note_tile(_shape_codes(shape))
    return V(f"tl.full({_shape_list(cx, shape, call)}, {val.code}, {dt.code})", T.TILE, rank=rank, tf32=dt.tf32,
             shape=_shape_codes(shape), **dtype_facts.of_dtype(dt.code, dt))


@op("zeros")
def op_zeros(cx, call, args):
    shape = _req(cx, "zeros", args, "shape", call)
    dt = _dtype(cx, args, "dtype", "zeros", call)
    rank = len(shape.elts) if shape.kind == T.TUPLE else 1
    cx.note_tile(_shape_codes(shape))
    return V(f"tl.zeros({_shape_list(cx, shape, call)}, {dt.code})", T.TILE, rank=rank, shape=_shape_codes(shape),
             **dtype_facts.of_dtype(dt.code, dt))


@op("ones")
def op_ones(cx, call, args):
    shape = _req(cx, "ones", args, "shape", call)
    dt = _dtype(cx, args, "dtype", "ones", call)
    rank = len(shape.elts) if shape.kind == T.TUPLE else 1
    cx.note_tile(_shape_codes(shape))
    return V(f"tl.full({_shape_list(cx, shape, call)}, 1, {dt.code})", T.TILE, rank=rank, shape=_shape_codes(shape),
             **dtype_facts.of_dtype(dt.code, dt))


@op("astype")
def op_astype(cx, call, args):
    x = _req(cx, "astype", args, "x", call)
    dt = _dtype(cx, args, "dtype", "astype", call)
    if x.is_static and "rounding_mode" not in args:
        return V(f"tl.full([], {x.code}, {dt.code})", T.SCALAR, tf32=dt.tf32, **dtype_facts.of_dtype(dt.code, dt))
    return dtype_facts.set_facts(astype_value(cx, x, dt, call, args), dtype_facts.of_dtype(dt.code, dt))


@op("bitcast")
def op_bitcast(cx, call, args):
    x = _req(cx, "bitcast", args, "x", call)
    dt = _dtype(cx, args, "dtype", "bitcast", call)
    # (_c2t_bitcast: cuTile's rule, widths equal and no bool, checked when Triton compiles)
    return V(f"{cx.use('_c2t_bitcast')}({_as_runtime(x) if x.is_static else x.code}, {dt.code})", x.kind, rank=x.rank)


@op("where")
def op_where(cx, call, args):
    c, x, y = (_req(cx, "where", args, k, call) for k in ("cond", "x", "y"))
    fn = cx.use("_c2t_where_ct") if dtype_facts.mixes_bf16_int(x, y) else "tl.where"
    return V(f"{fn}({c.code}, {x.code}, {y.code})", _result_kind(c, x, y), rank=_rank(c, x, y),
             shape=T.same_shape(c, x, y), **dtype_facts.chosen(x, y))


# ---------------------------------------------------------------- reductions
def _reduce(cx, name, call, args):
    x = _req(cx, name, args, "x", call)
    axis = _axis(cx, args, call)
    keep = _bool_arg(cx, args, "keepdims", False, call)
    mode, ftz = (None, False) if name.startswith("arg") else rounding_ftz(cx, name, args, call)
    nan = ""
    if "propagate_nan" in args:
        pn = cx.expr(args["propagate_nan"])
        if pn.known and pn.value is True and name in ("max", "min", "argmax", "argmin"):
            nan = "_nan"            # a NaN wins (tl.reduce with maximum/minimum propagating NaN;
            if name.startswith("arg"):      # for arg*, the first NaN's index)
                cx.use(f"_c2t_{name}")
                cx.use("_c2t_argmax")
        elif not (pn.known and pn.value is False):
            cx.fail("C2T106", f"ct.{name}: propagate_nan=True is not supported yet"
                    if pn.known else f"ct.{name}: propagate_nan must be a constant", call)
    fn = directed_helper(cx, name, mode) or cx.use(f"_c2t_{name}{nan}")
    if isinstance(axis, list):
        if name in ("argmax", "argmin"):
            cx.fail("C2T106", f"ct.{name}: axis must be an integer", call)
        code = reduce_over_axes(cx, name, x, axis, lambda c, a: f"{fn}({c}, {a}, {keep})", call)
        v = V(code, T.TILE, rank=_reduced_rank(x, len(axis), keep), shape=_reduced_shape(x, axis, keep),
              **dtype_facts.kept(x))
    elif axis is None:
        if name in ("argmax", "argmin"):
            flat = f"tl.reshape({x.code}, [{x.code}.numel])"
            if keep != "False" and x.rank is not None:
                # cuTile keeps every dimension (size 1): the flattened index, reshaped to rank x.rank
                ones = ", ".join(["1"] * x.rank)
                kept = f"tl.reshape({fn}({flat}, 0, True), [{ones}])"
                if keep == "True":
                    return V(kept, T.TILE, rank=x.rank, shape=["1"] * x.rank, **dtype_facts.of_dtype("tl.int32"))
                # (a Constant parameter: Triton picks the form when it compiles the kernel)
                return V(f"({kept} if {keep} else {fn}({flat}, 0, False))", T.TILE, rank=x.rank,
                         **dtype_facts.of_dtype("tl.int32"))
            return V(f"{fn}({flat}, 0, {keep})", T.SCALAR)
        v = V(f"{fn}({x.code}, None, {keep})", T.SCALAR if keep == "False" else T.TILE,
              rank=0 if keep == "False" else x.rank, **_reduced_facts(name, x))
    else:
        v = V(f"{fn}({x.code}, {axis.code}, {keep})", T.TILE, rank=_reduced_rank(x, 1, keep),
              shape=_reduced_shape(x, [axis], keep), **_reduced_facts(name, x))
    return rounding_checked(cx, name, v, mode, ftz, call)


def _reduced_facts(name, x) -> dict:
    """A sum, max... stays in its operand's family; an argmax is an int32."""
    return dtype_facts.of_dtype("tl.int32") if name.startswith("arg") else dtype_facts.kept(x)


def _reduced_shape(x, axes: list, keep) -> Optional[list]:
    """The shape of a reduction of `x` over `axes` (values), when `x`'s shape and the axes are known."""
    if x.shape is None or not all(a.known and isinstance(a.value, int) for a in axes):
        return None
    n = len(x.shape)
    drop = {a.value % n for a in axes if -n <= a.value < n}
    if len(drop) != len(axes):
        return None
    return [("1" if i in drop else d) for i, d in enumerate(x.shape) if keep == "True" or i not in drop]


def _reduced_rank(x, n, keep):
    if x.rank is None:
        return None
    return x.rank if keep == "True" else x.rank - n


def _reduction(name: str):
    """Register the lowering of ct.<name> (one of the reductions _reduce lowers)."""
    @op(name)
    def handler(cx, call, args):
        return _reduce(cx, name, call, args)
    handler.__name__ = f"op_{name}"
    return handler


for _name in ("sum", "max", "min", "argmax", "argmin"):
    _reduction(_name)


# ---------------------------------------------------------------- matmul
@op("mma")
def op_mma(cx, call, args):
    x, y, acc = (_req(cx, "mma", args, k, call) for k in ("x", "y", "acc"))
    fast = ""
    if "use_fast_acc" in args:
        cx.note("C2T202", "ct.mma: use_fast_acc hint dropped", call)
        f = cx.expr(args["use_fast_acc"])
        if not (f.known and f.value is False):      # (cuTile's check: fp8 operands only)
            fast = f", FAST_ACC={f.code}"
    if (x.rank is not None and x.rank != 2) or (y.rank is not None and y.rank != 2):
        if x.rank != y.rank and not (acc.rank == 3 and x.rank in (2, 3) and y.rank in (2, 3)):
            cx.fail("C2T101", "ct.mma with these operand ranks is not supported yet (2-D or 3-D operands with "
                              "a 3-D accumulator are)", call)
    prec = precision(x, y)
    cx.count_dot()
    return V(f"{cx.use('_c2t_mma')}({x.code}, {y.code}, {acc.code}, {prec}{_chain_flag(cx, call)}{fast})", T.TILE,
             rank=acc.rank, shape=acc.shape, **dtype_facts.kept(acc))


@op("matmul")
def op_matmul(cx, call, args):
    x, y = _req(cx, "matmul", args, "x", call), _req(cx, "matmul", args, "y", call)
    return matmul(cx, x, y, call)


# ---------------------------------------------------------------- elementwise
@op("maximum")
def op_maximum(cx, call, args):
    return _minmax(cx, "maximum", call, args)


@op("minimum")
def op_minimum(cx, call, args):
    return _minmax(cx, "minimum", call, args)


def _minmax(cx, name, call, args):
    x, y = _req(cx, name, args, "x", call), _req(cx, name, args, "y", call)
    prop = "tl.PropagateNan.NONE"
    if "propagate_nan" in args:
        pn = cx.expr(args["propagate_nan"])
        if pn.known and pn.value is True:
            prop = "tl.PropagateNan.ALL"
    v = minmax(cx, name, x, y, prop)
    if _ftz(cx, args, name, call, True):       # (cuTile takes it for float32 only)
        return rd_checked(cx, v, name, None, True, call)
    return v


def minmax(cx, name, x: V, y: V, prop: str = "tl.PropagateNan.NONE") -> V:
    """ct.maximum/ct.minimum (and Python's max/min) of x and y. tl.maximum/tl.minimum make a
    Python number an fp32 or int32 tensor before promoting (`tl.maximum(fp16_tile, 0.0)` is fp32)
    and compute bf16 in fp32, where cuTile's result has the operands' promoted dtype (a constant
    takes the tile's, bf16 stays bf16): a loop-carried fp16/bf16 value updated so changed type
    (a Triton CompilationError). Such operands go through `_c2t_maximum`/`_c2t_minimum`, which
    cast the result back to that dtype (it is one of the operands: exact)."""
    if x.is_static and y.is_static:
        return V(f"{'max' if name == 'maximum' else 'min'}({x.code}, {y.code})", T.STATIC)
    kind, rank = _result_kind(x, y), _rank(x, y)
    facts = dtype_facts.chosen(x, y)
    if x.is_static or y.is_static or dtype_facts.may_be_bf16(x) or dtype_facts.may_be_bf16(y):
        fn = cx.use(f"_c2t_{name}")
        return V(f"{fn}({x.code}, {y.code}, {prop.endswith('ALL')})", kind, rank=rank, **facts)
    suffix = "" if prop.endswith("NONE") else f", propagate_nan={prop}"
    return V(f"tl.{name}({x.code}, {y.code}{suffix})", kind, rank=rank, **facts)


@op("divmod")
def op_divmod(cx, call, args):
    x, y = _req(cx, "divmod", args, "x", call), _req(cx, "divmod", args, "y", call)
    return divmod_value(cx, x, y, call)


def divmod_value(cx, x: V, y: V, node) -> V:
    """ct.divmod and Python's divmod: (x // y, x % y)."""
    q, r = binary(cx, "//", x, y, node), binary(cx, "%", x, y, node)
    if q.kind != T.STATIC and not (x.isint and y.isint):
        # operands that may be floats: cuTile's divmod takes integers only (_c2t_divmod_q checks)
        cx.use("_c2t_floordiv")
        q = dtype_facts.set_facts(V(f"{cx.use('_c2t_divmod_q')}({x.code}, {y.code})", q.kind, rank=q.rank),
                                  dtype_facts.facts_of(q))
    return V(f"({q.code}, {r.code})", T.TUPLE, elts=[q, r])


@op("negative")
def op_negative(cx, call, args):
    return negate(cx, _req(cx, "negative", args, "x", call), call)


def warn_negative_zero(cx, value, node):
    """C2T212 where kernel code makes the constant -0.0: Triton turns every float constant equal to
    zero into +0.0 (semantic.scalar_constant), on the GPU as under the interpreter."""
    if type(value) is float and value == 0.0 and math.copysign(1.0, value) < 0:
        cx.note("C2T212", "`-0.0` here becomes +0.0 in the Triton code", node)


def negate(cx, x: V, node=None) -> V:
    """cuTile `-x` and ct.negative. Triton's unary minus computes 0 - x, which gives +0 for +0 where
    cuTile's negation gives -0; tiles go through _c2t_neg (floats: x * -1, exact; ints: -x), and so
    do runtime scalars (_c2t_neg_scalar: under the interpreter a range() loop variable, and what is
    computed from it, is a Python int, with no dtype to test). Integer tensors keep `-x`."""
    if x.kind == T.TILE:
        return V(f"{cx.use('_c2t_neg')}({x.code})", x.kind, rank=x.rank, shape=x.shape, tf32=x.tf32,
                 **dtype_facts.kept(x))
    if x.kind == T.SCALAR and not x.isint:
        cx.use("_c2t_neg")
        return V(f"{cx.use('_c2t_neg_scalar')}({x.code})", x.kind, rank=x.rank, **dtype_facts.kept(x))
    if x.known and type(x.value) is float:
        warn_negative_zero(cx, -x.value, node)
    return V(f"-{paren(x, 14)}", x.kind, prec=14, rank=x.rank, tf32=x.tf32)


def plus(cx, x: V) -> V:
    """cuTile `+x` of a runtime tile or scalar: x itself, a bool as int32 (_c2t_pos; Triton's
    tensors have no unary plus, so `+x` fails to compile there)."""
    return V(f"{cx.use('_c2t_pos')}({x.code})", x.kind, rank=x.rank, shape=x.shape, tf32=x.tf32,
             **dtype_facts.kept(x))


@op("abs")
def op_abs(cx, call, args):
    x = _req(cx, "abs", args, "x", call)
    if x.is_static:
        return static_abs(cx, x, call)
    return V(f"tl.abs({x.code})", x.kind, rank=x.rank)


def static_abs(cx, x: V, node) -> V:
    """abs() of a compile-time value. Triton's compiler has no `abs` builtin (NameError; the
    interpreter runs Python's): a known number is folded, a Constant parameter takes a compile-time
    conditional (`x - x` at zero: abs(-0.0) is +0.0, and nan stays nan)."""
    if x.known and type(x.value) in (int, float):
        return cx.static_value(abs(x.value), node)
    c = paren(x, 14)
    return V(f"({c} if {c} > 0 else -{c} if {c} < 0 else {c} - {c})", T.STATIC, prec=100)


@op("isnan")
def op_isnan(cx, call, args):
    x = _req(cx, "isnan", args, "x", call)
    return V(f"{paren(x, 8)} != {paren(x, 8)}", x.kind, prec=7, rank=x.rank, shape=x.shape,
             **dtype_facts.of_dtype("tl.int1"))


@op("bitwise_not")
def op_bitwise_not(cx, call, args):
    x = _req(cx, "bitwise_not", args, "x", call)
    return V(f"~{paren(x, 14)}", x.kind, prec=14, rank=x.rank, shape=x.shape)


def unary_math(cx, name, call, args):
    if name == "sqrt":
        v = rounding_mode_value(cx, name, call, args)
        if v is not None:
            return v
    x = _req(cx, name, args, "x", call)
    checked = name in ("sqrt", "rsqrt", "exp", "exp2") and not x.is_static   # (cuTile checks modes, ftz)
    if x.is_static:      # the helpers read .dtype: make constants fp32 tensors as cuTile does
        x = V(f"tl.full([], {x.code}, tl.float32)", T.SCALAR)
    helper = rules.UNARY_MATH[name]
    mode = None
    if "rounding_mode" in args:
        rm = cx.expr(args["rounding_mode"])
        mode = str(rm.value).split(".")[-1] if rm.kind == T.ENUM else None
        if mode in ("APPROX", "FULL") or (rm.known and rm.value is None):
            if mode == "APPROX":
                cx.note("C2T203", f"ct.{name}(rounding_mode=APPROX): Triton's fast form is used", call)
            if name == "sqrt" and mode == "APPROX":
                helper = "_c2t_sqrt_approx"
        elif mode != "RN" and not (checked and rm.kind == T.ENUM):
            cx.fail("C2T106", f"ct.{name}: rounding mode {mode} is not supported yet", call)
    xc = unary_checked(cx, x, name, mode, _ftz_value(cx, args), call) if checked else x.code
    return V(f"{cx.use(helper)}({xc})", x.kind if x.kind != T.STATIC else T.SCALAR, rank=x.rank,
             shape=x.shape, **dtype_facts.of_math(x))


def binary_func(cx, name, call, args):
    v = rounding_mode_value(cx, name, call, args)
    if v is not None:
        return v
    x, y = _req(cx, name, args, "x", call), _req(cx, name, args, "y", call)
    op = rules.BINARY_FUNCS[name]
    mode, checked = None, name in ("add", "sub", "mul", "truediv")
    if "rounding_mode" in args:
        rm = cx.expr(args["rounding_mode"])
        mode = str(rm.value).split(".")[-1] if rm.kind == T.ENUM else None
        if op == "/" and mode in ("APPROX", "FULL"):
            cx.note("C2T203", f"ct.{name}(rounding_mode={mode}): Triton's fast division is used", call)
            v = V(f"{cx.use('_c2t_truediv_approx')}({x.code}, {y.code})", _result_kind(x, y),
                  rank=_rank(x, y))
            return rd_checked(cx, v, name, mode, _ftz_value(cx, args), call)
        if (mode not in ("RN", None) and not checked) or not (rm.kind == T.ENUM or (rm.known and rm.value is None)):
            cx.fail("C2T106", f"ct.{name}: rounding mode {mode} is not supported yet", call)
    v = binary(cx, op, x, y, call)
    if v.kind == T.TILE and v.shape is None:
        v.shape = T.same_shape(x, y)
    ftz = _ftz_value(cx, args)
    if checked and (mode is not None or ftz):
        # (RN: cuTile checks the dtype; modes it does not take for the operation fail as there)
        return rd_checked(cx, v, name, mode, ftz, call)
    return v


def _ftz_value(cx, args) -> bool:
    """flush_to_zero=True given (a constant: ops_math._ftz has checked it)."""
    if "flush_to_zero" not in args:
        return False
    v = cx.expr(args["flush_to_zero"])
    return v.known and v.value is True


def compare_func(cx, name, call, args):
    x, y = _req(cx, name, args, "x", call), _req(cx, name, args, "y", call)
    if dtype_facts.mixes_bf16_int(x, y):
        return V(f"{cx.use('_c2t_compare_ct')}({x.code}, {y.code}, \"{rules.COMPARE_FUNCS[name]}\")",
                 _result_kind(x, y), rank=_rank(x, y), shape=T.same_shape(x, y), **dtype_facts.of_dtype("tl.int1"))
    return V(f"{paren(x, 8)} {rules.COMPARE_FUNCS[name]} {paren(y, 8)}", _result_kind(x, y), prec=7,
             rank=_rank(x, y), shape=T.same_shape(x, y), **dtype_facts.of_dtype("tl.int1"))


# ---------------------------------------------------------------- shape ops
@op("reshape")
def op_reshape(cx, call, args):
    x = _req(cx, "reshape", args, "x", call)
    shape = _req(cx, "reshape", args, "shape", call)
    elts = _static_tuple(cx, shape, "reshape shape", call)
    if len(elts) == 1 and elts[0].known and elts[0].value == -1 and not x.shape and x.kind == T.TILE:
        # flatten a tile whose shape is not known here (after a math call, a reduction...)
        return V(f"tl.ravel({x.code})", T.TILE, rank=1)
    if any(e.known and e.value == -1 for e in elts):
        shape = _implicit_extent(cx, x, elts, call)
        elts = shape.elts
    if x.kind == T.STATIC and x.known and type(x.value) in (bool, int, float) and elts \
            and all(e.known and e.value == 1 for e in elts):
        # a Python number is a 0-d tile of cuTile's type for it (int32, float32, bool)
        dt = {bool: "tl.int1", int: "tl.int32", float: "tl.float32"}[type(x.value)]
        return V(f"tl.full({_shape_list(cx, shape, call)}, {x.code}, {dt})", T.TILE, rank=len(elts),
                 shape=_shape_codes(shape), isint=type(x.value) is int, isfloat=type(x.value) is float)
    if (x.kind == T.SCALAR or (x.kind in (T.TILE, T.UNKNOWN) and x.rank in (0, None))) and \
            elts and all(e.known and e.value == 1 for e in elts):
        # a 0-d tile (a full reduction) is a Triton scalar, which tl.reshape rejects; its reshapes
        # are to all-ones shapes. expand_dims splats a scalar to [1] (and adds a unit axis to a
        # block), so this also holds where the rank was lost (e.g. after a loop).
        return V(f"tl.reshape(tl.expand_dims({x.code}, 0), {_shape_list(cx, shape, call)})", T.TILE,
                 rank=len(elts), shape=_shape_codes(shape))
    return V(f"tl.reshape({x.code}, {_shape_list(cx, shape, call)})", T.TILE, rank=len(elts),
             shape=_shape_codes(shape))


def _implicit_extent(cx, x: V, elts: list, call) -> V:
    """The reshape shape with its -1 entry replaced by the extent it stands for: the tile's
    element count (from its shape, known at translation time as Constant expressions) divided by
    the other extents."""
    if sum(1 for e in elts if e.known and e.value == -1) > 1:
        shown = str(tuple(e.value if e.known else "?" for e in elts)).replace("'?'", "?")
        cx.fail("C2T109", "ct.reshape: at most one extent may be -1", call,
                cutile=("TileTypeError", f"Only one dimension can be -1, got {shown}"))
    others = [e for e in elts if not (e.known and e.value == -1)]
    if not x.shape:
        # the element count from Triton's own (constexpr) shape: `t.numel`, where `t` is a name
        if x.kind != T.TILE or not x.code.isidentifier():
            cx.fail("C2T101", "ct.reshape with -1 needs a tile whose shape is known here, or a tile "
                              "variable", call, hint="assign the tile to a variable first, or give every extent")
        den = " * ".join(paren(e, 14) for e in others) or "1"
        extent = V(f"{x.code}.numel // {den if len(others) <= 1 else f'({den})'}", T.STATIC, prec=13)
        new = [extent if e.known and e.value == -1 else e for e in elts]
        return V("(" + ", ".join(e.code for e in new) + ("," if len(new) == 1 else "") + ")", T.TUPLE, elts=new)
    if all(_int_code(c) is not None for c in x.shape) and all(e.known and isinstance(e.value, int) for e in others):
        total = 1
        for c in x.shape:
            total *= _int_code(c)
        rest = 1
        for e in others:
            rest *= e.value
        if rest <= 0 or total % rest:
            cx.fail("C2T109", f"ct.reshape: {total} elements do not divide into extents of {rest}", call)
        extent = V(str(total // rest), T.STATIC, value=total // rest, known=True)
    else:
        def factor(c):
            return c if c.isidentifier() or c.isdigit() else f"({c})"
        nums = [factor(c) for c in x.shape if c != "1"] or ["1"]
        dens = [factor(e.code) for e in others if e.code != "1"]
        num = " * ".join(nums)
        den = " * ".join(dens)
        extent = V(num if not dens else f"{num if len(nums) == 1 else f'({num})'} // {den if len(dens) == 1 else f'({den})'}",
                   T.STATIC, prec=100 if not dens and len(nums) == 1 else 0)
    new = [extent if e.known and e.value == -1 else e for e in elts]
    return V("(" + ", ".join(e.code for e in new) + ("," if len(new) == 1 else "") + ")", T.TUPLE, elts=new)


def _int_code(code: str):
    try:
        return int(code)
    except ValueError:
        return None


@op("permute")
def op_permute(cx, call, args):
    x = _req(cx, "permute", args, "x", call)
    axes = _req(cx, "permute", args, "axes", call)
    elts = _static_tuple(cx, axes, "permute axes", call)
    perm = [e.value for e in elts]
    codes = [e.code for e in elts]
    if all(isinstance(p, int) and not isinstance(p, bool) for p in perm):
        # negative axes count from the end, as in cuTile (tl.permute takes 0..n-1 only)
        perm = [p % len(perm) if -len(perm) <= p < 0 else p for p in perm]
        codes = [str(p) for p in perm]
    shape = ([x.shape[p] for p in perm] if x.shape and all(isinstance(p, int) for p in perm)
             and sorted(perm) == list(range(len(x.shape))) else None)
    cx.note_permute()
    return V(f"tl.permute({x.code}, ({', '.join(codes)}{',' if len(codes) == 1 else ''}))",
             T.TILE, rank=len(elts), shape=shape)


@op("transpose")
def op_transpose(cx, call, args):
    x = _req(cx, "transpose", args, "x", call)
    a0 = cx.expr(args["axis0"]) if "axis0" in args else None
    a1 = cx.expr(args["axis1"]) if "axis1" in args else None
    a0, a1 = (None if a is not None and a.known and a.value is None else a for a in (a0, a1))
    # cuTile's refusals (TileTypeError at its compile): a tile of rank < 2, no axes on rank > 2,
    # one axis without the other
    if x.rank is not None and x.rank < 2:
        cx.fail("C2T109", "ct.transpose needs a tile of at least 2 dimensions", call,
                cutile=("TileTypeError", "Cannot transpose a tile with fewer than 2 dimensions"))
    if (a0 is None) != (a1 is None) and x.rank is not None:
        given = [str(a.value) if a is not None and a.known else "None" if a is None else a.code for a in (a0, a1)]
        cx.fail("C2T109", "ct.transpose: give both axes or neither", call,
                cutile=("TileTypeError", "transpose axes must either both be specified or both be None, "
                                         f"got axis0={given[0]}, axis1={given[1]}"))
    if a0 is None and a1 is None:
        if x.rank not in (None, 2):
            cx.fail("C2T109", "ct.transpose without axes needs a 2-D tile", call,
                    cutile=("TileTypeError", "`axes` must be specified for tile with more than 2 dimensions"))
        cx.note_permute()
        return V(f"tl.trans({x.code})", T.TILE, rank=2, shape=x.shape[::-1] if x.shape and len(x.shape) == 2 else None)
    if x.rank is None or not (a0 and a1 and a0.known and a1.known):
        cx.fail("C2T105", "ct.transpose with axes needs a tile of known rank and constant axes", call)
    perm = list(range(x.rank))
    i, j = a0.value % x.rank, a1.value % x.rank
    perm[i], perm[j] = perm[j], perm[i]
    shape = [x.shape[p] for p in perm] if x.shape and len(x.shape) == x.rank else None
    cx.note_permute()
    return V(f"tl.permute({x.code}, {tuple(perm)})", T.TILE, rank=x.rank, shape=shape)


@op("broadcast_to")
def op_broadcast_to(cx, call, args):
    x = _req(cx, "broadcast_to", args, "x", call)
    shape = _req(cx, "broadcast_to", args, "shape", call)
    rank = len(shape.elts) if shape.kind == T.TUPLE else 1
    return V(f"tl.broadcast_to({x.code}, {_shape_list(cx, shape, call)})", T.TILE, rank=rank,
             shape=_shape_codes(shape))


@op("expand_dims")
def op_expand_dims(cx, call, args):
    x = _req(cx, "expand_dims", args, "x", call)
    ax = _static(cx, _req(cx, "expand_dims", args, "axis", call), "expand_dims axis", call)
    return V(f"tl.expand_dims({x.code}, {ax.code})", T.TILE, rank=(x.rank + 1) if x.rank is not None else None)


# ---------------------------------------------------------------- calls
_BUILTIN_MINMAX = {"min": "minimum", "max": "maximum"}


def call(cx, e: N.Call) -> V:
    f = cx.expr(e.func)
    if f.kind == T.CTFUNC:
        return ct_call(cx, str(f.value), e)
    if f.kind == T.UNKNOWN and isinstance(f.value, tuple) and f.value and f.value[0] == "method":
        return method_call(cx, f.value[1], f.value[2], e)
    if f.kind == T.HELPER:
        if isinstance(f.value, tuple) and f.value[0] == "imported":
            return imported_call(cx, f.value[1], e)
        # module functions, nested defs, lambdas, dataclass methods: helpers.lower_call
        return cx.call_function(f, e)
    if f.kind == T.MODULE and str(f.value).startswith("builtins."):
        return builtin_call(cx, str(f.value)[9:], e)
    if f.kind == T.MODULE and str(f.value).startswith("operator."):
        return operator_call(cx, str(f.value)[9:], e)
    if f.kind == T.CONSTOBJ and isinstance(f.value, Refused):
        return cutile_rejects(cx, f"`{f.code}(...)`", f.value.message, e, error=f.value.error)
    if f.kind == T.CONSTOBJ:   # Mode(1), Cfg(64, 32): built at translation time
        args = [cx.expr(a) for a in e.args]
        kws = {k.name: cx.expr(k.value) for k in e.keywords}
        if isinstance(f.value, type) and issubclass(f.value, enum.Enum) and all(
                v.known or v.is_runtime for v in [*args, *kws.values()]):
            # (a Constant parameter's value, not known here: C2T105 below)
            # cuTile's rules for an enum made from a value: one positional constant, a member's value
            what = f"`{f.code}(...)`"
            if len(args) != 1 or kws or isinstance(e.args[0], N.Starred):
                return cutile_rejects(cx, what, "Enum constructor takes exactly one positional argument", e)
            if args[0].is_runtime:
                return cutile_rejects(cx, what, "Enum constructor argument must be a constant", e)
            try:
                return cx.static_value(f.value(args[0].value), e)
            except ValueError:
                return cutile_rejects(cx, what, f"{args[0].value!r} is not a valid {f.value.__name__}", e,
                                      error="TileValueError")
        if not isinstance(f.value, type) or None in kws or any(isinstance(a, N.Starred) for a in e.args) \
                or not all(v.known for v in [*args, *kws.values()]):
            cx.fail("C2T105", f"`{f.code}(...)` needs arguments known at translation time", e)
        try:
            val = f.value(*[a.value for a in args], **{k: v.value for k, v in kws.items()})
        except (TypeError, ValueError) as err:
            cx.fail("C2T109", f"`{f.code}(...)`: {err}", e)
        return cx.static_value(val, e)
    if f.kind == T.DTYPE:   # ct.int16(5): a strictly typed constant / cast
        if not e.args and not e.keywords:       # ct.float32(), np.int8(): zero of that dtype (as Python's)
            return V(f"tl.full([], 0, {f.code})", T.SCALAR)
        if len(e.args) != 1 or e.keywords:
            cx.fail("C2T109", "a dtype call takes one argument", e)
        x = cx.expr(e.args[0])
        if x.known and isinstance(x.value, str):     # ct.float32("-inf"): the number it spells, as Python's
            try:
                num = float(x.value)
            except ValueError:
                num = None
            if num is not None:
                code = repr(num) if math.isfinite(num) else f'float("{num}")'
                return V(f"tl.full([], {code}, {f.code})", T.SCALAR)
        if x.kind == T.TUPLE or (x.known and isinstance(x.value, str)):
            # cuTile's TileTypeError when Triton compiles the kernel (a tuple or a string is no
            # scalar of any dtype; the shim raises it from ct.launch: shim/kernel.py cutile_error)
            what = x.code if x.kind == T.TUPLE else repr(x.value)
            msg = f"cuTile TileTypeError: cannot convert {what} to a scalar of {f.value or f.code}"
            return V(f"tl.static_assert(False, {msg!r})", T.SCALAR)
        if x.known and type(x.value) in (int, float) and (type(x.value) is int or math.isfinite(x.value)) \
                and f.code in _INT_DTYPE_CODES:
            # ct.int32(1.5), np.int8(-2.7): toward zero, as cuTile (and numpy, torch) convert it
            # (Triton's tl.full takes no float for an integer dtype); ct.uint32(-3), ct.int8(300):
            # wrapped to the dtype's width, as cuTile's strictly typed constants are (Triton refuses
            # a constant out of the dtype's range)
            return V(f"tl.full([], {_wrap_int(int(x.value), f.code)}, {f.code})", T.SCALAR)
        if x.known and type(x.value) is float and f.code == "tl.int1":
            return V(f"tl.full([], {bool(x.value)}, {f.code})", T.SCALAR)
        if x.is_static:
            return V(f"tl.full([], {x.code}, {f.code})", T.SCALAR)
        return V(scalar_cast(x, f.code), x.kind, rank=x.rank)
    cx.fail("C2T103", "this call is not supported in kernel code", e)


def scalar_cast(x: V, dt: str) -> str:
    """`x` converted to the Triton dtype `dt`: `tl.cast(x, dt)` for a scalar, which under the
    interpreter may be a Python int (a range() loop's variable there: `(i - 1).to(...)` raised
    AttributeError), else `x.to(dt)`; compiled, both are the same conversion."""
    return f"tl.cast({x.code}, {dt})" if x.kind == T.SCALAR else f"{paren(x, 100)}.to({dt})"


_INT_DTYPE_CODES = {f"tl.{p}int{n}" for p in ("", "u") for n in (8, 16, 32, 64)}


def _wrap_int(v: int, code: str) -> int:
    """`v` modulo 2**bits of the integer dtype `code` (tl.uint8...), in its range."""
    bits = int(code.rsplit("int", 1)[1])
    v %= 1 << bits
    return v - (1 << bits) if not code.startswith("tl.u") and v >= 1 << (bits - 1) else v


def imported_call(cx, name: str, e: N.Call) -> V:
    """A function imported from another module, called in kernel code: its body is not here, so
    the call assumes that module is translated too (its helper is then a Triton function with the
    same parameter convention: arrays as pointer, extents, strides)."""
    if e.keywords or any(isinstance(a, N.Starred) for a in e.args):
        cx.fail("C2T103", f"call of imported `{name}` with keyword or starred arguments is not supported", e)
    flat = []
    for a in (cx.expr(x) for x in e.args):
        if a.kind in (T.CTFUNC, T.CTMOD, T.MODULE, T.ENUM, T.HELPER):
            cx.fail("C2T101", f"passing `{a.code}` to imported `{name}` is not supported", e)
        if a.kind == T.ARRAY:       # its body is not here: it may load from and store to the array
            cx.helper_access(a.array, reads=True, writes=True)
        flat.extend(a.array.flat() if a.kind == T.ARRAY else [a.code])
    cx.note("C2T205", f"`{name}` comes from `{cx.info.imported[name]}`: the call assumes that module "
                      "is translated too", e)
    return V(f"{name}({', '.join(flat)})", T.UNKNOWN)


def ct_call(cx, path: str, e: N.Call) -> V:
    entry = registry.lookup(path)
    if entry is None and path == "sigmoid":
        # not exported by cuda.tile 1.7, but used by TileGym in flag-guarded branches
        cx.note("C2T206", "`ct.sigmoid` is not a cuda.tile 1.7 name; translated as tl.sigmoid", e)
        x = cx.expr(e.args[0]) if len(e.args) == 1 and not e.keywords else cx.fail(
            "C2T109", "ct.sigmoid takes one argument", e)
        return V(f"{cx.use('_c2t_sigmoid')}({x.code})", x.kind, rank=x.rank)
    if entry is None and path == "static_iter":      # (a for loop's iterable is kernel.py's _static_iter)
        direct = cx.info.ct_path(e.func) == "static_iter"
        cx.fail("C2T103", "ct.static_iter is only allowed as the iterable of a `for` loop, named directly", e,
                cutile=("TileSyntaxError", "static_iter() is only allowed as iterable in a `for` loop, i.e. "
                        "`for i in ct.static_iter(...)`" if direct else "static_iter() must be used directly "
                        "by name, e.g. cuda.tile.static_iter() or ct.static_iter()."))
    if entry is None and path.endswith("fnu") and len(e.args) == 1 and not e.keywords:
        # an unsigned float dtype without a Triton dtype, made of a constant: cuTile's error for a
        # negative one (its strictly typed constant cannot hold it)
        x = cx.expr(e.args[0])
        if x.known and type(x.value) in (int, float) and math.copysign(1.0, x.value) < 0:
            code, msg, hint = refusal(path)
            cx.fail(code, msg, e, hint, cutile=("TileValueError", "Negative values cannot be represented in "
                                                                 "an unsigned float format"))
    if entry is None:
        if not is_exported(path):
            cx.fail("C2T102", f"`ct.{path}` is not a cuda.tile name", e)
        code, msg, hint = refusal(path)
        cx.fail(code, msg, e, hint)
    handler, sig = entry
    args = bind(cx, path, e, sig)
    v = handler(cx, e, args)
    if path in _KEEP_FAMILY and v.kind in (T.TILE, T.SCALAR) and v.dsrc is None and v.mbf is None \
            and not v.isfloat:
        dtype_facts.set_facts(v, _KEEP_FAMILY[path](cx, args))
    return v


def _plain(cx, args, key):
    """The value of argument `key` as the handler lowered it (_req), or a name or constant looked
    up again (nothing is lowered twice); None otherwise."""
    if isinstance(args, Args) and key in args.lowered:
        v = args.lowered[key]
        return v.elts[0] if v.kind == T.TUPLE and v.elts else v
    node = args.get(key)
    if isinstance(node, N.TupleExpr) and node.elts:
        node = node.elts[0]
    return cx.expr(node) if isinstance(node, (N.Name, N.Const)) else None


def _first_tile(key):
    def facts(cx, args):
        x = _plain(cx, args, key)
        return dtype_facts.kept(x) if x is not None and x.kind in (T.TILE, T.SCALAR) else {}
    return facts


def _both(cx, args):
    x, y = _plain(cx, args, "x"), _plain(cx, args, "y")
    return dtype_facts.combined("+", x, y) if x is not None and y is not None else {}


# ops whose result has their (first) operand's dtype (lower/dtype_facts.py); their lowerings
# set no dtype facts themselves
_KEEP_FAMILY = {**{name: _first_tile("x") for name in (
    "reshape", "permute", "transpose", "broadcast_to", "expand_dims", "extract", "negative", "abs",
    "cumsum", "cumprod", "scan", "reduce", "prod")},
    "cat": _first_tile("tiles"), "maximum": _both, "minimum": _both}


def method_call(cx, base: V, name: str, e: N.Call) -> V:
    handler = registry.lookup_method(base.kind, name)
    if handler is not None:
        return handler(cx, base, e)
    if name == "item":      # (the tile's dtype: its family, e.g. an int64 array's)
        if base.kind in (T.STATIC, T.SCALAR) or base.rank == 0:
            return V(f"tl.reshape({base.code}, [])", T.SCALAR, **dtype_facts.kept(base))
        return V(f"{cx.use('_c2t_item')}({base.code})", T.SCALAR, **dtype_facts.kept(base))
    if name in rules.TILE_METHODS:
        this = N.Name(span=e.span, id="__self__")       # the tile, as the ct function's first argument
        fake = N.Call(span=e.span, func=e.func, args=[this] + list(e.args), keywords=e.keywords)
        with cx.binding({id(this): base}):
            return ct_call(cx, rules.TILE_METHODS[name], fake)
    cx.fail("C2T101", f"tile method `.{name}()` is not supported yet", e)


# the operator module's functions of the operators kernel code has: `operator.add(a, b)` is `a + b`
OPERATOR_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
                   "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^", "lshift": "<<",
                   "rshift": ">>"}
OPERATOR_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
OPERATOR_UNARY = {"neg": "-", "pos": "+", "invert": "~", "inv": "~", "not_": "not"}


def operator_call(cx, name: str, e: N.Call) -> V:
    """`operator.add(a, b)`, `from operator import lt`: lowered as the operator they stand for
    (the same node kernel code writes, so the same rules); other operator functions are refused."""
    nargs = 1 if name in OPERATOR_UNARY else 2
    if name not in OPERATOR_BINARY and name not in OPERATOR_COMPARE and name not in OPERATOR_UNARY:
        cx.fail("C2T103", f"`operator.{name}` is not supported in kernel code", e,
                hint="write the operation with Python's operators or cuTile functions")
    if e.keywords or len(e.args) != nargs or any(isinstance(a, N.Starred) for a in e.args):
        cx.fail("C2T109", f"`operator.{name}` takes {nargs} positional argument{'s' if nargs > 1 else ''}", e)
    sp = e.span
    if name in OPERATOR_UNARY:
        node = N.UnaryOp(span=sp, op=OPERATOR_UNARY[name], operand=e.args[0])
    elif name in OPERATOR_COMPARE:
        node = N.Compare(span=sp, left=e.args[0], ops=[OPERATOR_COMPARE[name]], comparators=[e.args[1]])
    else:
        node = N.BinOp(span=sp, op=OPERATOR_BINARY[name], left=e.args[0], right=e.args[1])
    return cx.expr(node)


def _typed_constant(cx, a):
    """The number `a` is when it is a dtype applied to a constant (`ct.float32(5.0)`), else None."""
    if not (isinstance(a, N.Call) and len(a.args) == 1 and not a.keywords):
        return None
    path = cx.info.ct_path(a.func)
    if path not in rules.DTYPES:
        return None
    v = cx.expr(a.args[0])
    return v.value if v.known and type(v.value) in (bool, int, float) else None


def builtin_call(cx, name: str, e: N.Call) -> V:
    if name == "print":
        return print_call(cx, e)
    if name == "tuple":
        if e.keywords or len(e.args) > 1:
            cx.fail("C2T109", "tuple() takes at most one argument", e)
        if not e.args:
            return cx.make_tuple([])
        if isinstance(e.args[0], N.Comprehension) and e.args[0].kind == "generator":
            return cx.make_tuple(cx.unroll_comprehension(e.args[0]))
        x = cx.expr(e.args[0])
        if x.kind == T.TUPLE and x.elts is not None:
            return x
        cx.fail("C2T105", "tuple(...) needs a generator expression or a tuple known at translation time", e)
    args = [cx.expr(a) for a in e.args]
    if name in _BUILTIN_MINMAX and len(args) == 2 and not e.keywords:
        return minmax(cx, _BUILTIN_MINMAX[name], *args)
    if name in ("int", "float", "bool", "len", "abs") and len(args) == 1:
        x = args[0]
        if name == "len" and x.kind == T.LIST:
            return V(f"{x.value.name}_len", T.SCALAR)
        if name == "len" and x.kind == T.TUPLE and x.elts is not None:
            return V(str(len(x.elts)), T.STATIC, value=len(x.elts), known=True)
        if x.is_static and name == "abs":
            return static_abs(cx, x, e)
        const = x.value if x.known else _typed_constant(cx, e.args[0])
        if name in ("int", "float", "bool") and type(const) in (bool, int, float):
            # of a constant (`float(ct.float32(5.0))` too): a loose constant, as in cuTile
            value = {"int": int, "float": float, "bool": bool}[name](const)
            return V(repr(value), T.STATIC, value=value, known=True, prec=14 if repr(value).startswith("-") else 100)
        if x.is_static or name == "len":
            return V(f"{name}({x.code})", T.STATIC)
        if name == "abs":
            return V(f"tl.abs({x.code})", x.kind, rank=x.rank)
    if name == "divmod" and len(args) == 2:
        return divmod_value(cx, *args, e)
    cx.fail("C2T103", f"`{name}(...)` is not supported in kernel code here", e)


def _named(fn, name, cx, call, args):
    return fn(cx, name, call, args)


# ---------------------------------------------------------------- registration
# (the families of rules.py, one handler each: ct.exp, ct.add, ct.equal...)
for _name in rules.UNARY_MATH:
    op(_name)(functools.partial(_named, unary_math, _name))
for _name in rules.BINARY_FUNCS:
    op(_name)(functools.partial(_named, binary_func, _name))
for _name in rules.COMPARE_FUNCS:
    op(_name)(functools.partial(_named, compare_func, _name))
