"""Debugging and metaprogramming: ct.printf, ct.print (and builtin print with f-strings),
ct.assert_, ct.static_assert, ct.static_eval, ct.ensure_constant, ct.assume_divisible_by."""
from __future__ import annotations

import ast
import contextlib
import re

from .. import const_fold
from ..diagnostics import Span, TranslationError
from ..ir import nodes as N
from . import ops_dicts
from . import types as T
from .context import _req
from .ops_math import _as_runtime    # (loose constants become i1/i32/f32 scalars, as in math calls)
from .registry import op
from .types import V

_MAX_VARARGS = 32
_VARARGS = [f"_a{k}" for k in range(_MAX_VARARGS)]
_PRINTF_SPEC = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|z|j|t)?([diuoxXeEfFgGaA]))")

_PRINT_HINT = "debug output only; no code is needed for results (a dedicated diagnostic code is pending)"
_FORMAT_NOTE = ("Triton's device_print prints every element with its program id, not cuTile's "
                "`[a, b, ...]` tile format")


def _prefix_text(s: str) -> str:
    """A device_print prefix: printable ASCII, '%' escaped for the device printf."""
    s = s.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    s = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in s)
    return s.replace("%", "%%").strip()


def _device_print(prefix: str, values: list, hex_: bool = False) -> V:
    args = "".join(", " + v for v in values)
    return V(f"tl.device_print({prefix!r}{args}{', hex=True' if hex_ else ''})", T.STATIC, value=None)


# ---------------------------------------------------------------- printf
@op("printf", ["format", *_VARARGS, "/"])
def op_printf(cx, call, args):
    fmt = _req(cx, "printf", args, "format", call)
    if not (fmt.known and isinstance(fmt.value, str)):
        cx.fail("C2T105", "ct.printf: the format must be a string literal", call)
    values = [cx.expr(a) for a in call.args[1:]]
    specs = [m.group(1) for m in _PRINTF_SPEC.finditer(fmt.value) if m.group(1)]
    if len(specs) != len(values):
        cx.fail("C2T109", f"ct.printf: the format has {len(specs)} conversions for {len(values)} arguments", call)
    text = _PRINTF_SPEC.sub(lambda m: "%" if m.group(0) == "%%" else "{}", fmt.value)
    cx.note("C2T203", f"ct.printf: {_FORMAT_NOTE}", call, _PRINT_HINT)
    hex_ = bool(specs) and all(s in "xX" for s in specs)
    return _device_print(_prefix_text(text), [_runtime(v) for v in values], hex_)


def _runtime(v: V) -> str:
    return _as_runtime(v)


# ---------------------------------------------------------------- print / f-strings
def _py_to_ir(e: ast.expr, span) -> N.Expr:
    """The part of Python's AST an f-string field can hold in kernel code, as translator IR."""
    if isinstance(e, ast.Name):
        return N.Name(span=span, id=e.id)
    if isinstance(e, ast.Constant):
        return N.Const(span=span, value=e.value, text=repr(e.value))
    if isinstance(e, ast.Attribute):
        return N.Attr(span=span, value=_py_to_ir(e.value, span), attr=e.attr)
    if isinstance(e, ast.BinOp):
        ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
               ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
               ast.RShift: ">>"}
        if type(e.op) in ops:
            return N.BinOp(span=span, left=_py_to_ir(e.left, span), op=ops[type(e.op)],
                           right=_py_to_ir(e.right, span))
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return N.UnaryOp(span=span, op="-", operand=_py_to_ir(e.operand, span))
    if isinstance(e, ast.Call) and not e.keywords and not any(isinstance(a, ast.Starred) for a in e.args):
        return N.Call(span=span, func=_py_to_ir(e.func, span), args=[_py_to_ir(a, span) for a in e.args])
    if isinstance(e, ast.Tuple):
        return N.TupleExpr(span=span, elts=[_py_to_ir(x, span) for x in e.elts])
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant):
        return N.Subscript(span=span, value=_py_to_ir(e.value, span), index=_py_to_ir(e.slice, span))
    raise ValueError(ast.unparse(e))


def _print_parts(cx, node, out_text: list, out_vals: list):
    """Append the text and runtime values one print() argument contributes."""
    if isinstance(node, N.Raw) and node.kind == "fstring":
        try:
            tree = ast.parse(node.text, mode="eval").body
        except SyntaxError:
            cx.fail("C2T103", "this f-string could not be read", node)
        parts = tree.values if isinstance(tree, ast.JoinedStr) else [tree]
        text = ""
        for p in parts:
            if isinstance(p, ast.Constant):
                text += str(p.value)
                continue
            if not isinstance(p, ast.FormattedValue):
                cx.fail("C2T103", "this f-string could not be read", node)
            try:
                ir = _py_to_ir(p.value, node.span)
            except ValueError as err:
                cx.fail("C2T103", f"f-string field `{err}` is not supported in kernel code", node)
            v = cx.expr(ir)
            if v.is_static and v.known:     # constants are formatted at compile time, as in cuTile
                spec = ast.unparse(p.format_spec)[2:-1] if p.format_spec is not None else ""
                conv = {115: str, 114: repr, 97: ascii}.get(p.conversion, lambda x: x)
                try:
                    text += format(conv(v.value), spec)
                except (ValueError, TypeError):
                    text += str(v.value)
                continue
            if v.kind == T.TUPLE and v.elts is not None:
                t, vals = _tuple_parts(v)
                text += t
                out_vals.extend(vals)
                continue
            text += "{}"
            out_vals.append(v.code)         # a constexpr (Constant parameter) prints as a value
        out_text.append(text)
        return
    v = cx.expr(node)
    if v.kind == T.TUPLE and v.elts is not None:
        t, vals = _tuple_parts(v)
        out_text.append(t)
        out_vals.extend(vals)
    elif v.known and isinstance(v.value, (str, int, float, bool)):
        out_text.append(str(v.value))
    else:
        out_text.append("{}")
        out_vals.append(v.code)


def _tuple_parts(v: V):
    """A tuple printed as Python prints it, `(2, 'a', {})`: known elements as text (repr), runtime
    ones as `{}` with their values (tl.device_print takes no tuple)."""
    texts, vals = [], []
    for e in v.elts:
        if e.kind == T.TUPLE and e.elts is not None:
            t, sub = _tuple_parts(e)
            texts.append(t)
            vals.extend(sub)
        elif e.known and isinstance(e.value, (str, int, float, bool, type(None))):
            texts.append(repr(e.value))
        else:
            texts.append("{}")
            vals.append(e.code)
    return "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")", vals


def print_call(cx, call: N.Call, name: str = "print") -> V:
    """ct.print(*args, sep=' ', end='\\n') and builtin print(...) in kernel code."""
    if any(isinstance(a, N.Starred) for a in call.args):
        cx.fail("C2T103", f"{name}(*args) is not supported in kernel code", call)
    sep = " "
    for kw in call.keywords:
        if kw.name not in ("sep", "end"):
            cx.fail("C2T109", f"{name}() has no keyword argument `{kw.name}`", kw)
        v = cx.expr(kw.value)
        if not (v.known and (isinstance(v.value, str) or v.value is None)):
            cx.fail("C2T105", f"{name}: `{kw.name}` must be a string literal", kw)
        if kw.name == "sep" and v.value is not None:
            sep = v.value
    texts, values = [], []
    for a in call.args:
        _print_parts(cx, a, texts, values)
    cx.note("C2T203", f"{name}: {_FORMAT_NOTE}; format specs of runtime values are dropped", call,
            _PRINT_HINT)
    return _device_print(_prefix_text(sep.join(texts)), values)


@op("print", [*_VARARGS, "/", "*", "sep", "end"])
def op_print(cx, call, args):
    return print_call(cx, call, "ct.print")


# ---------------------------------------------------------------- assertions
@op("assert_", ["cond", "/", "message"])
def op_assert(cx, call, args):
    cond = _req(cx, "assert_", args, "cond", call)
    msg = ""
    if "message" in args:
        m = cx.expr(args["message"])
        if not (m.known and (isinstance(m.value, str) or m.value is None)):
            cx.fail("C2T105", "ct.assert_: the message must be a string literal", call)
        msg = m.value or ""
    if cond.is_static:
        if cond.known and not cond.value:
            cx.fail("C2T106", "ct.assert_ of a constant False condition always fails", call)
        return V("", T.STATIC, value=None)
    cx.use(f"_c2t_debug:{cx.function_name}")   # marks the kernel: the lead may set @triton.jit(debug=True)
    cx.note("C2T203", "ct.assert_ becomes tl.device_assert, which Triton only checks when compiled with "
                      "debug (TRITON_DEBUG=1 or @triton.jit(debug=True)); the interpreter never checks it",
            call, "run with TRITON_DEBUG=1 to check assertions (a dedicated diagnostic code is pending)")
    return V(f"tl.device_assert({cond.code}, {msg!r})", T.STATIC, value=None)


def _fstring_source(cx, node) -> str:
    """The text of a static_assert message: literals as they are, an f-string whose fields are all
    known at translation time formatted (as cuTile formats it), anything else as its source."""
    if isinstance(node, N.Const) and isinstance(node.value, str):
        return node.value
    if isinstance(node, N.Raw):
        if node.kind == "fstring":
            text, vals = [], []
            try:
                _print_parts(cx, node, text, vals)
            except TranslationError:
                return node.text
            if not vals:
                return text[0]
        return node.text
    return ""


@op("static_assert", ["condition", "message", "/"])
def op_static_assert(cx, call, args):
    cond = _static_eval(cx, args.get("condition"), call, "ct.static_assert condition",
                        where="static_assert() condition")
    if not cond.is_static:
        # cuTile's error too, unless the condition calls a function of the module, which cuTile
        # runs on the host while it compiles (the translation calls it in the kernel)
        helper = any(isinstance(n, N.Call) and isinstance(n.func, N.Name) and (
            n.func.id in cx.info.functions or getattr(cx.env.get(n.func.id), "kind", None) == T.HELPER)
            for n in N.walk(args["condition"]))
        cx.fail("C2T105", "ct.static_assert: the condition must be a compile-time constant", call,
                cutile=None if helper else ("TileTypeError", "static_assert() condition must be a compile-time constant"))
    msg = _fstring_source(cx, args["message"]) if "message" in args else ""
    if cond.known and cond.value:
        return V("", T.STATIC, value=None)
    # a False constant is kept: like cuTile, Triton only fails if this (static) branch is taken;
    # the message names cuTile's error, which the shim raises (kernel.py cutile_error)
    msg = f"cuTile TileStaticAssertionError: {msg}"
    return V(f"tl.static_assert({cond.code}, {msg!r})", T.STATIC, value=None)


# ---------------------------------------------------------------- metaprogramming
_FOLD_HINT = ("translation never runs the source: these expressions are folded from " + const_fold.ALLOWED
              + "; anything else is refused")


def _known_names(cx):
    """The values const_fold may use (module constants, enum classes and frozen dataclasses, known
    locals and Constant parameters), and the local names without a known value."""
    names = dict(cx.info.classes)
    names.update(cx.info.constants)
    bound = set()
    for k, v in cx.env.items():
        if isinstance(v, V) and v.known and const_fold.is_value(v.value):
            names[k] = v.value
        else:
            names.pop(k, None)
            bound.add(k)
    return names, bound


def _located(node, src: str, base) -> N.Expr:
    """An IR stand-in spanning the const_fold (ast) node `node` of `src`, which starts at `base`."""
    if node is None or not hasattr(node, "lineno"):
        return N.Expr(span=base)
    text = "(" + src + "\n)"           # what const_fold.parse parsed
    lines = re.split(r"(?<=\r\n)|(?<=\n)|(?<=\r)(?!\n)", text)

    def pos(lineno, col_offset):
        line = lines[min(lineno, len(lines)) - 1]
        ch = len(line.encode("utf-8")[:col_offset].decode("utf-8", "ignore"))
        offset = sum(len(x) for x in lines[:lineno - 1]) + ch - 1       # into src
        if lineno == 1:
            return base.line, base.col + ch - 1, base.start + offset
        return base.line + lineno - 1, ch + 1, base.start + offset

    line, col, start = pos(node.lineno, node.col_offset)
    end_line, end_col, end = pos(node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
    return N.Expr(span=Span(line, col, end_line, end_col, start, end))


def _source(text: str, span):
    """The source text of an expression, with the parentheses its span leaves out, and its Span."""
    start, end = const_fold.enclose(text, span.start, span.end)
    if start == span.start:
        return text[start:end], span
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    return text[start:end], Span(line, col, span.end_line, span.end_col, start, end)


# cuTile functions its static evaluation may call (its stubs with static_eval_ok: the arithmetic,
# comparisons and bitwise operations); the other tile operations and tile functions are its
# TileStaticEvalError "<name>() cannot be called inside static_eval()."
_STATIC_EVAL_OK = {"matmul", "add", "sub", "mul", "truediv", "floordiv", "pow", "mod", "divmod",
                   "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_lshift", "bitwise_rshift",
                   "bitwise_not", "minimum", "maximum", "cdiv", "greater", "greater_equal", "less",
                   "less_equal", "equal", "not_equal", "negative"}
_KEYWORD_LIKE = ("static_eval", "static_assert", "static_iter")
_VALUE_KINDS = (T.TILE, T.ARRAY, T.SCALAR, T.LIST)


def _static_eval_calls(cx, node, where):
    """cuTile's rules for what a static_eval()/static_assert() expression may call: not another
    static_eval/static_assert/static_iter, not a tile operation (but its arithmetic), not a
    method of a tile or an array, not a function defined in the kernel."""
    from . import registry
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
            continue
        if not isinstance(n, N.Node) or isinstance(n, N.Lambda):
            continue
        for f in N.child_fields(type(n)) or ():
            v = getattr(n, f)
            if isinstance(v, (N.Node, list)):
                stack.append(v)
        if not isinstance(n, N.Call):
            continue
        path = cx.info.ct_path(n.func)
        what = None
        if path in _KEYWORD_LIKE:
            what = f"{path}() cannot be used"
        elif path and path not in _STATIC_EVAL_OK and registry.lookup(path) is not None:
            what = f"{path.rsplit('.', 1)[-1]}() cannot be called"
        elif path is None and isinstance(n.func, N.Attr) and isinstance(n.func.value, N.Name):
            v = cx.env.get(n.func.value.id)
            if isinstance(v, V) and v.kind in _VALUE_KINDS:
                what = f"{n.func.attr}() cannot be called"
        elif isinstance(n.func, N.Name):
            v = cx.env.get(n.func.id)
            if isinstance(v, V) and v.kind == T.HELPER and isinstance(v.value, tuple) and v.value[:1] == ("localfunc",):
                what = f"{n.func.id}() cannot be called"
        if what is not None:
            cx.fail("C2T105", f"ct.{where.split('(')[0]}: {what} inside it (cuTile evaluates the expression "
                              "on the host while it compiles)", n, cutile=("TileStaticEvalError", f"{what} inside {where}."))


def _static_eval(cx, node, call, what, where="static_eval()") -> V:
    """Evaluate `node` at translation time (const_fold: nothing of the source is run). What const_fold
    refuses (a construct or a size) is refused; an expression kernel code can lower is lowered
    (a constexpr expression, or a runtime value where static_eval returns a proxy), else its folded
    value is used; comprehensions and other forms kernel code has no lowering for must fold.
    `where`: cuTile's name of the expression, in its errors."""
    if node is None:
        cx.fail("C2T109", f"{what} is missing", call)
    _static_eval_calls(cx, node, where)
    if not node.span.end > node.span.start:
        return cx.expr(node)
    if _has_dict(node):
        # dict displays: evaluated here (a static_assert's `kwargs == {"a": 1}`), as cuTile's static
        # evaluation does; const_fold takes none, and kernel code has none (ops_dicts.display)
        with contextlib.ExitStack() as stack:
            for n in _dicts(node):      # (innermost first: an outer display reads the inner ones)
                stack.enter_context(cx.binding({id(n): ops_dicts.display(cx, n)}))
            return cx.expr(node)
    src, base = _source(cx.source, node.span)
    must = _has_raw(node)
    try:
        tree = const_fold.parse(src)
    except SyntaxError:
        if must:
            cx.fail("C2T103", f"{what}: `{src}` could not be read", node)
        return cx.expr(node)
    stored = sorted({x.target.id for x in ast.walk(tree) if isinstance(x, ast.NamedExpr)
                     and isinstance(x.target, ast.Name)})
    if stored and not const_fold.hostile(tree):     # (a hostile one: the security refusal below)
        cx.fail("C2T105", f"{what}: `:=` assigns `{stored[0]}` (the expression may not bind names)", node,
                cutile=("TileSyntaxError", f"static_eval() expression attempted to modify a local variable '{stored[0]}'"))
    names, bound = _known_names(cx)
    try:
        val = const_fold.fold_tree(tree, names, bound)
    except const_fold.Unknown as err:
        if not must:
            return cx.expr(node)
        cx.fail("C2T105", f"{what}: `{src}` uses a value the translator does not know ({err.message})",
                _located(err.node, src, base),
                "beyond the kernel Python subset, only literals, module constants, constant locals and "
                "Constant parameters known at translation time can be evaluated")
    except const_fold.Raised as err:   # the expression itself raises, as it would in cuTile
        cx.fail("C2T106", f"{what}: evaluating `{src}` raised {err.message}", _located(err.node, src, base))
    except const_fold.Refused as err:
        # (outside what the folder evaluates: where the expression reaches for files, code or
        # interpreter internals, a security refusal, which refuses the whole module)
        cx.fail("C2T105", f"{what}: {err.message}", _located(err.node, src, base), _FOLD_HINT,
                module=const_fold.hostile(tree))
    simple = isinstance(val, (bool, int, float, str, tuple, type(None)))
    if not must:    # what kernel code lowers is lowered as before; the folded value where it cannot be
        try:
            return cx.expr(node)
        except TranslationError:
            if not simple:
                raise
    if not simple:
        cx.fail("C2T105", f"{what}: `{src}` does not evaluate to a constant", node)
    return cx.static_value(val, node)


def _dicts(node) -> list:
    """The dict displays in an expression, innermost first."""
    out = []
    if isinstance(node, N.Node):
        for f in getattr(node, "__dataclass_fields__", {}):
            if f != "span":
                out += _dicts(getattr(node, f))
        if isinstance(node, N.Raw) and node.kind == "dict":
            out.append(node)
    elif isinstance(node, list):
        for x in node:
            out += _dicts(x)
    return out


def _has_dict(node) -> bool:
    return bool(_dicts(node))


def _has_raw(node) -> bool:
    if isinstance(node, N.Raw) and node.kind in ("dict", "key_value"):
        return _has_raw(node.parts)     # (kernel code lowers dict displays: lower/ops_dicts.py)
    if isinstance(node, (N.Raw, N.Comprehension)):
        return True
    if isinstance(node, N.Node):
        return any(_has_raw(getattr(node, f)) for f in getattr(node, "__dataclass_fields__", {}) if f != "span")
    if isinstance(node, list):
        return any(_has_raw(x) for x in node)
    return False


@op("static_eval", ["expr", "/"])
def op_static_eval(cx, call, args):
    return _static_eval(cx, args.get("expr"), call, "ct.static_eval")


@op("ensure_constant", ["value", "/"])
def op_ensure_constant(cx, call, args):
    v = _req(cx, "ensure_constant", args, "value", call)
    if not v.is_static:
        # cuTile's StaticAssertionError where the value surely is no constant of cuTile's either:
        # a block index or count, a value loaded from an array
        node = args["value"]
        runtime = (isinstance(node, N.Call) and cx.info.ct_path(node.func) in ("bid", "num_blocks")) \
            or (v.dsrc or "").startswith("arr:")
        cx.fail("C2T105", "ct.ensure_constant: the value is not a compile-time constant", call,
                cutile=("TileStaticAssertionError", "Static assertion failed: Argument of ensure_constant() "
                        "is not a compile-time constant") if runtime else None)
    return v


@op("assume_divisible_by", ["x", "divisor"])
def op_assume_divisible_by(cx, call, args):
    x = _req(cx, "assume_divisible_by", args, "x", call)
    d = _req(cx, "assume_divisible_by", args, "divisor", call)
    if not (d.known and isinstance(d.value, int) and not isinstance(d.value, bool)):
        cx.fail("C2T105", "ct.assume_divisible_by: the divisor must be an integer literal or module constant", call)
    if d.value < 1:
        cx.fail("C2T106", f"ct.assume_divisible_by: the divisor must be positive, got {d.value}", call)
    if x.kind == T.TILE and x.rank not in (0, None):
        cx.fail("C2T106", "ct.assume_divisible_by needs an integer scalar, not a tile", call)
    if x.is_static:
        if x.known and isinstance(x.value, int) and x.value % d.value != 0:
            cx.fail("C2T106", f"ct.assume_divisible_by: {x.value} is not divisible by {d.value}", call)
        return x
    if d.value == 1:
        return x
    return V(f"{cx.use('_c2t_assume_div')}({x.code}, {d.code})", x.kind, rank=x.rank)
