"""Reductions and scans: ct.prod, ct.cumsum, ct.cumprod, ct.reduce and ct.scan.

ct.reduce / ct.scan take a user combine function (a lambda, `operator.add`, builtin `max`/`min`,
a ct function, a module-level function, or a nested def / lambda bound in the kernel). Triton wants
a module-level @triton.jit combine function and no identity, so the function body is lowered into
module-level functions (Shared.add_def):

    _c2t_combine_body(<user params>, <captures>)   the user's function, lowered
    _c2t_combine(a..., ca..., b..., cb...)         casts the results back to the input dtypes
                                                   (cuTile casts them implicitly) and carries
                                                   the captures through
    _c2t_reduce_fn / _c2t_scan_fn(x..., c..., AXIS, KEEP/REVERSE)
                                                   broadcasts tuple inputs together (as cuTile
                                                   does), splats runtime captures to the tile
                                                   shape and calls tl.reduce/associative_scan

Captured names: literals are inlined; runtime scalars and Constant parameters (values Triton only
knows at launch) travel as extra reduce/scan operands, which the combine function returns unchanged.
The identity is dropped: for an identity of `func`, the result does not depend on it.
"""
from __future__ import annotations

import dataclasses

from ..diagnostics import Span
from ..ir import nodes as N
from . import types as T
from .context import _axis, _bool_arg, _req, _static
from .ops_math import _mode, rd_checked
from .registry import op
from .types import V

_RED_SIG = ["x", "/", "axis", "*", "keepdims", "rounding_mode", "flush_to_zero"]
_SCAN_SIG = ["x", "/", "axis", "*", "reverse", "rounding_mode", "flush_to_zero"]

# operator-module functions usable as combine functions -> Python operator
_OPERATOR = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
             "pow": "**", "and_": "&", "or_": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}


# ---------------------------------------------------------------- shared checks
# the cuTile operation of each reduction's / scan's steps (ops_math.rd_checked's names)
_STEP_OP = {"sum": "add", "prod": "mul", "cumsum": "add", "cumprod": "mul", "max": "maximum", "min": "minimum"}
_DIRECTED = {"RZ": "rz", "RM": "rd", "RP": "ru"}


def rounding_ftz(cx, name, args, call):
    """(rounding mode, flush_to_zero) of ct.<name> (sum, prod, max, min, cumsum, cumprod): the
    RoundingMode member's name, None for none or RN (the default lowering), and a bool; both must
    be constants."""
    mode = _mode(cx, args, name, call)
    ftz = False
    if "flush_to_zero" in args:
        v = cx.expr(args["flush_to_zero"])
        _static(cx, v, "`flush_to_zero`", call)
        if not (v.known and isinstance(v.value, bool)):
            cx.fail("C2T105", f"ct.{name}: flush_to_zero must be a constant bool", call)
        ftz = v.value
    return (None if mode == "RN" else mode), ftz


def directed_helper(cx, name, mode):
    """The helper computing ct.<name> with every step rounded in `mode` (RZ, RM, RP), else None."""
    if mode not in _DIRECTED:
        return None
    cx.use("_c2t_rounded")
    cx.use(f"_c2t_{_STEP_OP[name]}_{_DIRECTED[mode]}")
    return cx.use(f"_c2t_{name}_{_DIRECTED[mode]}")


def rounding_checked(cx, name, v: V, mode, ftz: bool, call) -> V:
    """`v`, the lowered ct.<name>, checked as cuTile checks its rounding_mode and flush_to_zero
    against the input dtype when Triton compiles the kernel (a mode other than RN/RZ/RM/RP, a mode
    on integers, flush_to_zero off float32: cuTile's TileTypeError). flush_to_zero=True on float32
    is dropped with a note (only subnormals differ), as for cuTile's elementwise operations."""
    if mode is None and not ftz:
        return v
    if ftz:
        cx.note("C2T203", f"ct.{name}(flush_to_zero=True): subnormals are kept (Triton has no per-op "
                          "flush-to-zero); only subnormal inputs/results differ", call,
                "results differ only where cuTile would flush a subnormal to zero")
    return rd_checked(cx, v, _STEP_OP[name], mode, ftz, call)


def reduce_over_axes(cx, name, x: V, axes: list, step, call) -> str:
    """The code of a reduction of `x` over the tuple `axes` (values), one axis at a time:
    `step(code, axis code)` lowers one. Axes known here (and the rank) go highest first, normalized;
    others (Constant parameters) are ordered and checked when Triton compiles the kernel
    (_c2t_red_axis: cuTile's TileTypeError for a repeated or out-of-range axis)."""
    vals = [a.value if a.known and type(a.value) is int else None for a in axes]
    if x.rank is not None and None not in vals:
        for v in vals:
            if not -x.rank <= v < x.rank:
                cx.fail("C2T106", f"ct.{name}: axis {v} is out of range for a {x.rank}-D tile", call)
        norm = [v % x.rank for v in vals]
        if len(set(norm)) == len(norm):
            code = x.code
            for n in sorted(norm, reverse=True):
                a = axes[norm.index(n)]
                code = step(code, a.code if a.value == n else str(n))
            return code
        cx.note("C2T218", f"ct.{name}: repeated reduction axis (cuTile's TileTypeError when compiled)", call)
    elif None not in vals and len(set(vals)) == len(vals) and (min(vals) >= 0 or max(vals) < 0):
        # (a rank not known here: non-negative axes highest first, negative ones lowest first)
        code = x.code
        for a in sorted(axes, key=lambda a: -a.value if min(vals) >= 0 else a.value):
            code = step(code, a.code)
        return code
    rank = str(x.rank) if x.rank is not None else f"len({x.code}.shape)"
    fn = cx.use("_c2t_red_axis")
    listed = ", ".join(a.code for a in axes)
    code = x.code
    for k in range(len(axes)):
        code = step(code, f"{fn}({rank}, {k}, {listed})")
    return code


def _int_axis(cx, name, args, call, default=None, rank=None):
    """A single constant integer axis (code text)."""
    if "axis" not in args:
        if default is None:
            cx.fail("C2T109", f"ct.{name} needs the argument `axis`", call)
        return str(default)
    v = cx.expr(args["axis"])
    if v.kind == T.TUPLE or (v.known and v.value is None):
        cx.fail("C2T106", f"ct.{name}: `axis` must be a single integer", call)
    _static(cx, v, "`axis`", call)
    if v.known and not isinstance(v.value, int):
        cx.fail("C2T106", f"ct.{name}: `axis` must be an integer", call)
    if v.known and rank is not None and not -rank <= v.value < rank:
        cx.fail("C2T106", f"ct.{name}: axis {v.value} is out of range for a {rank}-D tile", call)
    return v.code


# ---------------------------------------------------------------- prod, cumsum, cumprod
@op("prod", _RED_SIG)
def op_prod(cx, call, args):
    mode, ftz = rounding_ftz(cx, "prod", args, call)
    x = _req(cx, "prod", args, "x", call)
    axis = _axis(cx, args, call)
    keep = _bool_arg(cx, args, "keepdims", False, call)
    fn = directed_helper(cx, "prod", mode) or cx.use("_c2t_prod")
    if isinstance(axis, list):
        code = reduce_over_axes(cx, "prod", x, axis, lambda c, a: f"{fn}({c}, {a}, {keep})", call)
        rank = None if x.rank is None else (x.rank if keep == "True" else x.rank - len(axis))
        v = V(code, T.TILE if rank != 0 else T.SCALAR, rank=rank)
    elif axis is None:
        if keep == "False":
            v = V(f"{fn}({x.code}, None, False)", T.SCALAR, rank=0)
        else:           # (True, or a Constant parameter: Triton keeps the axes where it is True)
            v = V(f"{fn}({x.code}, None, {keep})", T.TILE, rank=x.rank)
    else:
        if axis.known and x.rank is not None and not -x.rank <= axis.value < x.rank:
            cx.fail("C2T106", f"ct.prod: axis {axis.value} is out of range for a {x.rank}-D tile", call)
        rank = None if x.rank is None else (x.rank if keep == "True" else x.rank - 1)
        v = V(f"{fn}({x.code}, {axis.code}, {keep})", T.TILE if rank != 0 else T.SCALAR, rank=rank)
    return rounding_checked(cx, "prod", v, mode, ftz, call)


def _cum(cx, name, call, args):
    mode, ftz = rounding_ftz(cx, name, args, call)
    x = _req(cx, name, args, "x", call)
    axis = _int_axis(cx, name, args, call, default=0, rank=x.rank)
    rev = _bool_arg(cx, args, "reverse", False, call)
    fn = directed_helper(cx, name, mode) or cx.use('_c2t_' + name)
    return rounding_checked(cx, name, V(f"{fn}({x.code}, {axis}, {rev})", T.TILE, rank=x.rank), mode, ftz, call)


@op("cumsum", _SCAN_SIG)
def op_cumsum(cx, call, args):
    return _cum(cx, "cumsum", call, args)


@op("cumprod", _SCAN_SIG)
def op_cumprod(cx, call, args):
    return _cum(cx, "cumprod", call, args)


# ---------------------------------------------------------------- reduce, scan
@op("reduce", ["x", "/", "axis", "func", "identity", "*", "keepdims"])
def op_reduce(cx, call, args):
    return _custom(cx, "reduce", call, args)


@op("scan", ["x", "/", "axis", "func", "identity", "*", "reverse"])
def op_scan(cx, call, args):
    return _custom(cx, "scan", call, args)


def _custom(cx, name, call, args):
    x = _req(cx, name, args, "x", call)
    if "func" not in args:
        cx.fail("C2T109", f"ct.{name} needs the argument `func`", call)
    tuple_mode = x.kind == T.TUPLE
    if tuple_mode and x.elts is None:
        cx.fail("C2T105", f"ct.{name}: the tuple of inputs must have a known length", call)
    xs = list(x.elts) if tuple_mode else [x]
    if not xs:
        cx.fail("C2T106", f"ct.{name} needs at least one input tile", call)
    for e in xs:
        if e.kind in (T.TUPLE, T.ARRAY, T.DTYPE, T.CTFUNC, T.CTMOD, T.HELPER, T.MODULE, T.ENUM):
            cx.fail("C2T106", f"ct.{name}: the inputs must be tiles", call)
    n = len(xs)
    ranks = [e.rank for e in xs if e.kind == T.TILE]
    rank = max(ranks) if ranks and all(r is not None for r in ranks) else None
    if "axis" in args and cx.expr(args["axis"]).known and cx.expr(args["axis"]).value is None:
        return _cutile_error(cx, name, xs, tuple_mode, "TileTypeError",
                             "Expected an integer constant, but given value has type None", call, rank)
    axis = _int_axis(cx, name, args, call, rank=rank)
    # the identity: checked (constant scalars, one per input) and dropped
    if "identity" not in args:
        cx.fail("C2T109", f"ct.{name} needs the argument `identity`", call)
    ident = cx.expr(args["identity"])
    ids = ident.elts if (tuple_mode and ident.kind == T.TUPLE) else [ident]
    if ident.kind == T.TUPLE and not tuple_mode or len(ids or []) != n:
        cx.fail("C2T106", f"ct.{name}: `identity` must be {'a tuple of ' + str(n) if tuple_mode else 'one'} "
                          "constant scalar(s), one per input tile", call)
    for i in ids:
        _static(cx, i, f"ct.{name} `identity`", call)
    flag_key = "keepdims" if name == "reduce" else "reverse"
    flag = _bool_arg(cx, args, flag_key, False, call)

    comb, captures = _combine_function(cx, name, args["func"], n, call)
    if isinstance(comb, _Refusal):
        out_rank = None if rank is None or name == "scan" else (rank if flag == "True" else rank - 1)
        return _cutile_error(cx, name, xs, tuple_mode, "TileSyntaxError", comb.message, call, out_rank)
    fname = _driver(cx, name, n, len(captures), comb)
    code = f"{fname}({', '.join([e.code for e in xs] + [c.code for c in captures])}, {axis}, {flag})"
    if name == "reduce":
        out_rank = None if rank is None else (rank if flag == "True" else rank - 1)
        kind = T.SCALAR if out_rank == 0 else T.TILE
    else:
        out_rank, kind = rank, T.TILE
    if tuple_mode:
        elts = [V(f"{code}[{i}]", kind, rank=out_rank) for i in range(n)]
        return V(code, T.TUPLE, elts=elts)
    return V(code, kind, rank=out_rank)


def _driver(cx, name, n, m, comb) -> str:
    """The module-level function that broadcasts the inputs, splats the captures and calls
    tl.reduce / tl.associative_scan with the combine function."""
    xs = [f"x{i}" for i in range(n)]
    cs = [f"c{j}" for j in range(m)]
    flag = "KEEP" if name == "reduce" else "REVERSE"

    def make(fname):
        lines = ["@triton.jit",
                 f"def {fname}({', '.join(xs + cs)}, AXIS: tl.constexpr, {flag}: tl.constexpr):",
                 f'    """ct.{name} with `{comb}` (the identity is not needed by Triton)."""']
        for i in range(1, n):       # cuTile broadcasts the inputs to a common shape
            lines.append(f"    x0, x{i} = tl.broadcast(x0, x{i})")
        for i in range(1, n):
            lines.append(f"    x{i}, x0 = tl.broadcast(x{i}, x0)")
        ops = xs + [f"{cx.use('_c2t_splat_like')}({c}, x0)" for c in cs]
        if name == "reduce":
            call = f"tl.reduce(({', '.join(ops)},), AXIS % len(x0.shape), {comb}, keep_dims=KEEP)"
        else:
            call = f"tl.associative_scan(({', '.join(ops)},), AXIS % len(x0.shape), {comb}, reverse=REVERSE)"
        lines.append(f"    r = {call}")
        if n == 1:
            lines.append("    return r[0]")
        else:
            lines.append(f"    return {', '.join(f'r[{i}]' for i in range(n))}")
        return "\n".join(lines) + "\n"
    return cx.add_def(f"_c2t_{name}_fn", make)


# ---------------------------------------------------------------- what cuTile refuses in a body
@dataclasses.dataclass
class _Refusal:
    message: str


_MEMORY = {"load", "store", "printf", "print", "gather", "scatter", "atomic_add", "atomic_and", "atomic_or",
           "atomic_xor", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "assert_"}
_NESTED = {"reduce", "scan", "cumsum", "cumprod"}


def _body_refusal(cx, name, fd):
    """cuTile's TileSyntaxError for a combine function body it does not take (a loop, a branch on a
    run-time value, an operation with memory effects, a nested scan or reduction), the first in
    source order, else None."""
    kind = "reduction" if name == "reduce" else "scan"
    params = {p.name for p in fd.params}
    stack = list(reversed(fd.body))
    while stack:
        nd = stack.pop()
        if isinstance(nd, (N.For, N.While)):
            return _Refusal(f"Loops inside {kind} body are not supported")
        if isinstance(nd, (N.If, N.IfExp)) and not _static_test(cx, nd.test, params):
            return _Refusal(f"Branching inside {kind} body is not supported. Consider ct.where() as a workaround.")
        if isinstance(nd, N.Call):
            path = cx.info.ct_path(nd.func)
            if path in _MEMORY or (isinstance(nd.func, N.Name) and nd.func.id == "print"
                                   and nd.func.id not in cx.env):
                return _Refusal(f"Operations with memory effects are not supported inside {kind} body")
            if path in _NESTED:
                return _Refusal("Nested scan/reduction is not supported")
        stack.extend(reversed(list(_children(nd))))
    return None


def _static_test(cx, test, params) -> bool:
    """Whether an `if` condition in a combine function is a constant (cuTile folds the branch):
    no calls, and only names of constants (Constant parameters, module constants)."""
    stack = [test]
    while stack:
        nd = stack.pop()
        if isinstance(nd, N.Call):
            return False
        if isinstance(nd, N.Name):
            v = cx.env.get(nd.id)
            if nd.id in params or (v is None and nd.id not in cx.info.constants) or (v is not None and not v.is_static):
                return False
        stack.extend(_children(nd))
    return True


def _cutile_error(cx, name, xs, tuple_mode, cls, message, call, rank):
    """A ct.reduce / ct.scan cuTile refuses: the kernel fails with cuTile's error when it compiles."""
    cx.note("C2T218", f"ct.{name}: cuTile refuses this ({cls}: {message})", call)
    fn = cx.use("_c2t_cutile_error")
    out = [V(f'{fn}({e.code}, "cuTile {cls}: {message}")', T.TILE, rank=rank) for e in xs]
    if tuple_mode:
        return V("(" + ", ".join(v.code for v in out) + ",)", T.TUPLE, elts=out)
    return out[0]


# ---------------------------------------------------------------- combine functions
def _local_func(v):
    """The IR of a nested def / lambda bound in the kernel (see the LOCALFUNC hook), else None."""
    if v is None:
        return None
    val = v.value
    if isinstance(val, tuple) and len(val) >= 2 and val[0] == "localfunc":
        val = val[1]
    return val if isinstance(val, (N.FunctionDef, N.Lambda)) else None


def _operator_name(cx, node):
    """`operator.add` / `from operator import add` -> "add", else None."""
    info = cx.info
    if isinstance(node, N.Attr) and isinstance(node.value, N.Name) and node.value.id not in cx.env \
            and info.other_modules.get(node.value.id) == "operator":
        return node.attr
    if isinstance(node, N.Name) and node.id not in cx.env:
        mod = info.other_modules.get(node.id, "")
        if mod.startswith("operator."):
            return mod.split(".", 1)[1]
    return None


def _combine_function(cx, name, fnode, n, call):
    """Lower the combine function; returns (combine function name, captured values)."""
    sp = fnode.span
    fd = None
    target = fnode
    capmap = None       # a function passed in from where it was written: its captures' names here
    if isinstance(fnode, N.Name) and fnode.id in cx.env:
        target = _local_func(cx.env[fnode.id]) or fnode
        val = cx.env[fnode.id].value
        if isinstance(val, tuple) and len(val) > 2 and val[0] == "localfunc":
            capmap = val[2]
    if isinstance(target, N.Lambda):
        fd = N.FunctionDef(span=Span(), name="<lambda>", params=list(target.params),
                           body=[N.Return(value=target.body)])
    elif isinstance(target, N.FunctionDef):
        fd = target
    elif isinstance(fnode, N.Name) and fnode.id in cx.info.functions and _operator_name(cx, fnode) is None:
        fd = cx.info.functions[fnode.id]      # a module-level def: its body, as a nested def's
    else:
        opname = _operator_name(cx, fnode)
        pa, pb = N.Param(span=sp, name="_c2t_a"), N.Param(span=sp, name="_c2t_b")
        na, nb = N.Name(span=sp, id="_c2t_a"), N.Name(span=sp, id="_c2t_b")
        if opname is not None:
            if opname not in _OPERATOR:
                cx.fail("C2T106", f"ct.{name}: `operator.{opname}` is not a supported combine function",
                        fnode)
            body = N.BinOp(span=sp, op=_OPERATOR[opname], left=na, right=nb)
        else:
            body = N.Call(span=sp, func=fnode, args=[na, nb])
        if n != 1:
            cx.fail("C2T109", f"ct.{name}: with {n} input tiles `func` must take {2 * n} arguments "
                              "(write a lambda or a def)", fnode)
        fd = N.FunctionDef(span=Span(), name="<func>", params=[pa, pb], body=[N.Return(value=body)])
    refused = _body_refusal(cx, name, fd)
    if refused is not None:
        return refused, []
    params = [p for p in fd.params if p.kind != "posonly_marker"]
    if any(p.kind != "normal" for p in params):
        cx.fail("C2T103", f"ct.{name}: the combine function cannot take *args/**kwargs", fnode)
    if len(params) != 2 * n:
        cx.fail("C2T109", f"ct.{name}: the combine function takes {len(params)} arguments; "
                          f"{2 * n} are needed for {n} input tile(s)", fnode)

    # names the body reads from the kernel: inline literals, carry runtime values
    local = {p.name for p in params} | N.assigned_names(fd.body, defs=True)
    env, captures, cap_params = {}, [], []
    for nm in sorted(_names(fd.body) - local):
        if capmap is not None and nm not in capmap:
            continue        # not a variable where the function was written: a module-level name
        src = capmap[nm] if capmap is not None else nm
        if src not in cx.env:
            continue        # module constants, ct, helpers, builtins: resolved as usual
        v = cx.env[src]
        if v.kind in (T.CTFUNC, T.CTMOD, T.HELPER, T.MODULE, T.ENUM):
            env[nm] = v
        elif _local_func(v) is not None:
            cx.fail("C2T101", f"ct.{name}: the combine function calls the nested function `{nm}`; "
                              "not supported yet", fnode, "move that function to module level")
        elif v.known and v.is_static:
            env[nm] = cx.static_value(v.value, fnode)
        elif v.kind == T.DTYPE and v.code.startswith("tl."):
            env[nm] = v
        elif v.kind in (T.SCALAR, T.STATIC) or (v.kind == T.TILE and v.rank == 0):
            pname = f"_c2t_cap{len(captures)}"
            captures.append(V(v.code, v.kind))
            cap_params.append(pname)
            env[nm] = V(pname, T.SCALAR, rank=0)
        else:
            cx.fail("C2T101", f"ct.{name}: the combine function captures `{nm}`, which is not a "
                              "scalar (only constants and scalars can be captured)", fnode)
    for p in params:
        env[p.name] = V(p.name, T.SCALAR, rank=0)

    lines, returned = cx.lower_function(fd, env)
    rets = [r for r in returned if r is not None]
    if not rets:
        cx.fail("C2T106", f"ct.{name}: the combine function returns nothing", fnode)
    if n > 1 and any(r.kind == T.TUPLE and r.elts is not None and len(r.elts) != n for r in rets):
        cx.fail("C2T106", f"ct.{name}: the combine function must return a tuple of {n} values", fnode)
    if n == 1 and any(r.kind == T.TUPLE for r in rets):
        cx.fail("C2T106", f"ct.{name}: the combine function must return one value", fnode)
    body_params = [p.name for p in params] + cap_params

    def make_body(fname):
        return "\n".join(["@triton.jit", f"def {fname}({', '.join(body_params)}):"] + lines) + "\n"
    body_name = cx.add_def("_c2t_combine_body", make_body)

    a = [f"a{i}" for i in range(n)]
    b = [f"b{i}" for i in range(n)]
    ca = [f"ca{j}" for j in range(len(captures))]
    cb = [f"cb{j}" for j in range(len(captures))]

    def make(fname):
        res = ["r"] if n == 1 else [f"r[{i}]" for i in range(n)]
        # cuTile casts the results to the input dtypes; tl.full([], v, dt) casts tensors and constants
        outs = [f"tl.full([], {r}, a{i}.dtype)" for i, r in enumerate(res)] + ca
        return "\n".join([
            "@triton.jit",
            f"def {fname}({', '.join(a + ca + b + cb)}):",
            f"    r = {body_name}({', '.join(a + b + ca)})",
            f"    return {', '.join(outs)}",
        ]) + "\n"
    return cx.add_def("_c2t_combine", make), captures


def _children(node):
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        val = getattr(node, f.name)
        for x in (val if isinstance(val, list) else [val]):
            if isinstance(x, N.Node):
                yield x


def _names(nodes) -> set:
    out = set()
    stack = list(nodes)
    while stack:
        nd = stack.pop()
        if isinstance(nd, N.Name):
            out.add(nd.id)
        stack.extend(_children(nd))
    return out
