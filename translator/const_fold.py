"""Translation-time evaluation of constant expressions, without running them.

`ct.static_eval(...)` and `ct.static_assert(...)` take Python expressions that cuTile evaluates
when it compiles. The translator reads a file and must never run it, so these expressions are not
given to Python's `eval` (restricted builtins are no sandbox: `().__class__.__base__` reaches
everything). They are parsed with `ast` (parsing runs nothing) and evaluated here by a walker that
knows a closed set of constructs:

- literals; names bound to known values (the caller's `names`: module constants, known locals,
  Constant parameters whose value is known, enum classes and frozen dataclass values, and `Ref`s:
  opaque stand-ins for functions, which are compared, hashed and held but never called);
- unary, binary and boolean operators, comparisons and `x if c else y` on numbers, strings,
  tuples, lists and ranges (sequence `%` formatting is refused);
- tuple and list displays (with `*unpacking`), dict displays (keys: literals, enum members, `Ref`s
  and tuples of them), subscripts and slices, `k in d`;
- an enum class called with one value (`Op(1)`): its member of that value, found by comparing
  the members' values (the class is not called);
- list comprehensions and generator expressions over known finite iterables;
- calls of the pure builtins in `BUILTINS` and of the `math` functions in `MATH_FUNCS`, and the
  `math` constants in `MATH_CONSTS`; members (`.name`, `.value`) of enum values and fields of
  frozen dataclass values.

Everything else is refused: any attribute or name with a leading underscore, other attributes,
other builtins (`open`, `getattr`, `__import__`, `eval`, `type`...), lambdas, `:=`, f-strings,
`**` in dict displays, set displays and dict and set comprehensions. Sizes are bounded so that a line of source cannot make the translator
hang or exhaust memory: integers (`MAX_INT_BITS`), sequences (`MAX_ITEMS`, `MAX_STR`) and the
work of one evaluation (`MAX_STEPS`) are capped, and `**`, `<<` and `*` are checked before they
are computed.

Errors are exceptions carrying the `ast` node they concern: `Refused` (a construct or size this
folder does not evaluate), `Unknown` (a name without a known value: the caller may lower the
expression instead) and `Raised` (the expression itself raises, as it would in cuTile).
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import math
import operator

MAX_INT_BITS = 4096     # |int| < 2**4096
MAX_ITEMS = 4096        # tuples, lists, comprehensions, iterations (as comprehension unrolling)
MAX_STR = 1 << 16       # characters of a string
MAX_STEPS = 200_000     # nodes evaluated and elements iterated, per evaluation

BUILTINS = frozenset({"abs", "all", "any", "bool", "divmod", "enumerate", "float", "int", "len",
                      "list", "max", "min", "pow", "range", "reversed", "round", "sorted", "str",
                      "sum", "tuple", "zip"})
MATH_CONSTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
MATH_FUNCS = frozenset({"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign",
                        "cos", "cosh", "degrees", "erf", "erfc", "exp", "expm1", "fabs", "floor", "fmod",
                        "frexp", "gamma", "gcd", "hypot", "isfinite", "isinf", "isnan", "isqrt", "lcm",
                        "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "pow", "radians",
                        "sin", "sinh", "sqrt", "tan", "tanh", "trunc"} & set(dir(math)))

ALLOWED = ("literals, arithmetic and comparisons, tuples, comprehensions over known values, "
           "module constants, known Constant parameters, the builtins " + ", ".join(sorted(BUILTINS))
           + " and math." + "/".join(sorted(MATH_CONSTS)) + " and math functions")


class FoldError(Exception):
    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.message = message
        self.node = node


class Refused(FoldError):
    """A construct, a name or a size the folder does not evaluate (never deferred)."""


class Unknown(FoldError):
    """A name whose value is not known at translation time."""

    def __init__(self, name: str, node=None):
        super().__init__(f"`{name}` is not known at translation time", node)
        self.name = name


class Raised(FoldError):
    """Evaluating the expression raised (ZeroDivisionError...), as it would in Python."""

    def __init__(self, err: Exception, node=None):
        super().__init__(f"{type(err).__name__}: {err}", node)
        self.err = err


_MATH = object()        # the value of the name `math`


class Ref:
    """A function the folder holds without calling it (a cuda.tile operation, a module function):
    `kind` says what it is ("ct", "function"), `name` its path or name. Equal by both."""
    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str):
        self.kind, self.name = kind, name

    def __eq__(self, other):
        return isinstance(other, Ref) and (self.kind, self.name) == (other.kind, other.name)

    def __hash__(self):
        return hash(("Ref", self.kind, self.name))

    def __repr__(self):
        return f"Ref({self.kind!r}, {self.name!r})"


class RefSpace:
    """A namespace whose public attributes are `Ref`s of one kind (`ct.atomic_add` with `ct` the
    cuda.tile module: Ref("ct", "atomic_add")); `members`, when given, limits the attributes."""
    __slots__ = ("kind", "prefix", "members")

    def __init__(self, kind: str, prefix: str = "", members=None):
        self.kind, self.prefix, self.members = kind, prefix, members


def _hashable(x) -> bool:
    """Keys of dict displays: literals, enum members, Refs and tuples of them."""
    if x is None or isinstance(x, (bool, int, float, str, enum.Enum, Ref)):
        return True
    return isinstance(x, tuple) and all(_hashable(y) for y in x)


class _Builtin:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _is_enum_class(x) -> bool:
    return isinstance(x, type) and issubclass(x, enum.Enum)


def _is_data(x) -> bool:
    """A frozen dataclass value (an instance, not the class)."""
    return dataclasses.is_dataclass(x) and not isinstance(x, type) and type(x).__dataclass_params__.frozen


def is_value(x, depth: int = 0) -> bool:
    """Whether x is a value this folder works with (anything else is treated as not known)."""
    if x is None or isinstance(x, (bool, int, float, str, range, enum.Enum)):
        return True
    if isinstance(x, (tuple, list)):
        return depth < 32 and len(x) <= MAX_ITEMS and all(is_value(y, depth + 1) for y in x)
    if isinstance(x, dict):
        return depth < 32 and len(x) <= MAX_ITEMS and all(
            _hashable(k) and is_value(v, depth + 1) for k, v in x.items())
    return isinstance(x, Ref) or _is_enum_class(x) or _is_data(x)


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not (isinstance(x, enum.Enum) and not isinstance(x, int))


def _int(x) -> bool:
    return isinstance(x, int)


def _seq(x) -> bool:
    return isinstance(x, (str, tuple, list))


def parse(text: str) -> ast.expr:
    """The expression `text` (possibly spanning lines) as an `ast` node; SyntaxError if it is none.
    It is parsed inside parentheses, so its nodes' columns on the first line are one to the right."""
    try:
        return ast.parse("(" + text + "\n)", mode="eval").body
    except (RecursionError, MemoryError, ValueError) as err:     # too deeply nested, NUL bytes
        raise SyntaxError(str(err)) from None


_OPEN, _CLOSE = "([{", ")]}"
_BLANK = " \t\r\n\\"


def enclose(text: str, start: int, end: int) -> tuple[int, int]:
    """text[start:end] widened to balance its brackets: Lark's positions of an expression leave out
    the parentheses around its first or last operand (`(a + b) * (c + d)` spans `a + b) * (c + d`).
    Strings and comments are skipped; it stops where the brackets cannot be balanced."""
    for _ in range(64):
        depth, low, i = 0, 0, start
        while i < end:
            ch = text[i]
            if ch in "'\"":
                q = text[i:i + 3] if text[i:i + 3] in ("'''", '"""') else ch
                j = i + len(q)
                while j < len(text) and not text.startswith(q, j):
                    j += 2 if text[j] == "\\" else 1
                i = j + len(q)
                continue
            if ch == "#":
                while i < end and text[i] != "\n":
                    i += 1
                continue
            depth += (ch in _OPEN) - (ch in _CLOSE)
            low = min(low, depth)
            i += 1
        if low < 0:         # a `)` without its `(`: take the `(` before start
            j = start - 1
            while j >= 0 and text[j] in _BLANK:
                j -= 1
            if j < 0 or text[j] not in _OPEN:
                break
            start = j
        elif depth > 0:     # a `(` without its `)`: take the `)` after end
            j = end
            while j < len(text) and text[j] in _BLANK:
                j += 1
            if j >= len(text) or text[j] not in _CLOSE:
                break
            end = j + 1
        else:
            break
    return start, end


def _dunder(name: str) -> bool:
    """A name no constant expression needs (`__import__`, `__builtins__`, `__class__`...)."""
    return name.startswith("__")


# builtins that reach files, code or the interpreter's internals: an expression naming one (or
# any `_`-attribute, a dunder name or a string holding one) is an attempt the whole module is
# refused for; other refusals (`repr`, a lambda, `:=`) only refuse the kernel they are in
_REACHING = frozenset({"eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "vars", "globals",
                       "locals", "dir", "breakpoint", "input", "help", "memoryview", "type", "object",
                       "super", "classmethod", "staticmethod", "property", "__import__"})


def hostile(tree: ast.AST) -> bool:
    """Whether `tree` reaches for what no constant expression needs (see _REACHING)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and (n.attr.startswith("_") or n.attr == "format"):
            return True
        if isinstance(n, ast.Name) and (n.id in _REACHING or _dunder(n.id)):
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "__" in n.value:
            return True
    return False


def check(tree: ast.AST, names=(), bound=(), dicts: bool = False) -> None:
    """Refuse constructs that are never evaluated, wherever they are in `tree` (before anything is
    evaluated: a refused part is reported even where an earlier part is not known). Dict displays
    only where `dicts` (a module-level table: analysis.py), never in kernel expressions."""
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            if n.attr.startswith("_"):
                raise Refused(f"attribute `{n.attr}` cannot be evaluated at translation time", n)
        elif isinstance(n, ast.Name):
            if _dunder(n.id) and n.id not in names and n.id not in bound and n.id not in local:
                raise Refused(f"name `{n.id}` cannot be evaluated at translation time", n)
            if hasattr(builtins, n.id) and n.id not in BUILTINS and n.id not in ("True", "False", "None") \
                    and n.id not in names and n.id not in bound and n.id not in local:
                raise Refused(f"builtin `{n.id}` cannot be used at translation time", n)
        elif isinstance(n, ast.Dict) and (not dicts or any(k is None for k in n.keys)):
            raise Refused("a dict cannot be evaluated at translation time" if not dicts else
                          "`**` in a dict display cannot be evaluated at translation time", n)
        elif isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.JoinedStr,
                            ast.Set, ast.DictComp, ast.SetComp)):
            what = {ast.Lambda: "a lambda", ast.NamedExpr: "`:=`", ast.JoinedStr: "an f-string",
                    ast.Set: "a set", ast.DictComp: "a dict comprehension",
                    ast.SetComp: "a set comprehension"}.get(type(n), type(n).__name__)
            raise Refused(f"{what} cannot be evaluated at translation time", n)
        elif isinstance(n, ast.Constant) and (isinstance(n.value, (bytes, complex)) or n.value is Ellipsis):
            raise Refused("only int, float, bool, str and None literals are evaluated", n)


def fold(text: str, names: dict | None = None, bound=(), dicts: bool = False) -> object:
    """Parse and evaluate `text`. `names` maps names to known values; `bound` holds names that
    have a value not known now (they shadow builtins and raise Unknown); `dicts`: dict displays
    are evaluated (module-level tables only)."""
    try:
        tree = parse(text)
    except SyntaxError as err:
        raise Refused(f"this is not an expression ({err})") from None
    return fold_tree(tree, names, bound, dicts)


def fold_tree(tree: ast.expr, names: dict | None = None, bound=(), dicts: bool = False) -> object:
    names = names or {}
    check(tree, names, bound, dicts)
    try:
        return _Folder(names, bound).ev(tree)
    except RecursionError:
        raise Refused("this expression is nested too deeply", tree) from None


# ---------------------------------------------------------------- operators
def _check_size(x, node):
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > MAX_INT_BITS:
        raise Refused(f"an integer of more than {MAX_INT_BITS} bits", node)
    if isinstance(x, str) and len(x) > MAX_STR:
        raise Refused(f"a string of more than {MAX_STR} characters", node)
    if isinstance(x, (tuple, list)) and len(x) > MAX_ITEMS:
        raise Refused(f"a sequence of more than {MAX_ITEMS} elements", node)
    if isinstance(x, complex):
        raise Refused("a complex number", node)
    return x


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.MatMult: "@"}
_BY_SYMBOL = {s: k for k, s in _SYMBOL.items()}


def binop(op: str, a, b, node=None):
    """`a op b` (op a Python operator symbol) with Python semantics, within the size limits."""
    k = _BY_SYMBOL.get(op)
    if k is None or k is ast.MatMult:
        raise Refused(f"operator `{op}` is not evaluated at translation time", node)
    if _num(a) and _num(b):
        if k is ast.Pow and _int(a) and _int(b) and b > 0 and abs(a) > 1 \
                and (abs(a).bit_length() - 1) * b > MAX_INT_BITS:
            raise Refused(f"`{a} ** {b}` has more than {MAX_INT_BITS} bits", node)
        if k is ast.LShift and _int(a) and _int(b) and a != 0 and b > 0 and a.bit_length() + b > MAX_INT_BITS:
            raise Refused(f"`{a} << {b}` has more than {MAX_INT_BITS} bits", node)
    elif k is ast.Add and type(a) is type(b) and _seq(a):
        if len(a) + len(b) > (MAX_STR if isinstance(a, str) else MAX_ITEMS):
            raise Refused(f"this concatenation makes more than "
                          f"{MAX_STR if isinstance(a, str) else MAX_ITEMS} elements", node)
    elif k is ast.Mult and (_seq(a) and _int(b) or _int(a) and _seq(b)):
        s, n = (a, b) if _seq(a) else (b, a)
        if n > 0 and len(s) * n > (MAX_STR if isinstance(s, str) else MAX_ITEMS):
            raise Refused(f"repeating a sequence {n} times makes more than "
                          f"{MAX_STR if isinstance(s, str) else MAX_ITEMS} elements", node)
    elif k is ast.Mod and isinstance(a, str):
        raise Refused("`%` formatting of strings is not evaluated at translation time", node)
    else:
        raise Raised(TypeError(f"unsupported operand types for {op}: '{type(a).__name__}' and "
                               f"'{type(b).__name__}'"), node)
    try:
        r = _BINOPS[k](a, b)
    except (ArithmeticError, ValueError, TypeError) as err:
        raise Raised(err, node) from None
    return _check_size(r, node)


def _compare(op: ast.cmpop, a, b, node):
    if isinstance(op, (ast.In, ast.NotIn)):
        if isinstance(b, dict):
            if not _hashable(a):
                raise Raised(TypeError(f"unhashable type: '{type(a).__name__}'"), node)
            return (a in b) if isinstance(op, ast.In) else (a not in b)
        if not (isinstance(b, (str, tuple, list, range)) or _is_enum_class(b)):
            raise Raised(TypeError(f"argument of type '{type(b).__name__}' is not iterable"), node)
        try:
            r = a in b
        except TypeError as err:
            raise Raised(err, node) from None
        return r if isinstance(op, ast.In) else not r
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    f = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
         ast.Gt: operator.gt, ast.GtE: operator.ge}[type(op)]
    try:
        return f(a, b)
    except (TypeError, ValueError, ArithmeticError) as err:
        raise Raised(err, node) from None


# ---------------------------------------------------------------- the walker
class _Folder:
    def __init__(self, names: dict, bound):
        self.names = names
        self.bound = set(bound)
        self.scopes: list[dict] = []
        self.steps = 0

    def step(self, node, n: int = 1):
        self.steps += n
        if self.steps > MAX_STEPS:
            raise Refused(f"evaluating this takes more than {MAX_STEPS} steps", node)

    def ev(self, node):
        self.step(node)
        fn = getattr(self, "e_" + type(node).__name__, None)
        if fn is None:
            raise Refused(f"`{_text(node)}` cannot be evaluated at translation time", node)
        return fn(node)

    # names and literals
    def e_Constant(self, node):
        v = node.value
        if v is None or isinstance(v, (bool, int, float, str)):
            return _check_size(v, node)
        raise Refused("only int, float, bool, str and None literals are evaluated", node)

    def e_Name(self, node):
        nm = node.id
        for scope in reversed(self.scopes):
            if nm in scope:
                return scope[nm]
        if nm in self.names:
            v = self.names[nm]
            if is_value(v) or isinstance(v, RefSpace):
                return v
            raise Unknown(nm, node)
        if nm in self.bound:
            raise Unknown(nm, node)
        if nm == "math":
            return _MATH
        if nm in BUILTINS:
            return _Builtin(nm)
        if _dunder(nm) or hasattr(builtins, nm):
            raise Refused(f"name `{nm}` cannot be evaluated at translation time", node)
        raise Unknown(nm, node)

    def value(self, node):
        """ev, for a value that is data (not `math` or a builtin function)."""
        v = self.ev(node)
        if v is _MATH or isinstance(v, (_Builtin, RefSpace)):
            raise Refused(f"`{_text(node)}` can only be called or have a constant taken", node)
        return v

    def e_Attribute(self, node):
        if node.attr.startswith("_"):
            raise Refused(f"attribute `{node.attr}` cannot be evaluated at translation time", node)
        base = self.ev(node.value)
        if isinstance(base, RefSpace):
            if base.members is not None and node.attr not in base.members:
                raise Unknown(f"{base.prefix}{node.attr}", node)
            return Ref(base.kind, base.prefix + node.attr)
        if base is _MATH:
            if node.attr in MATH_CONSTS:
                return MATH_CONSTS[node.attr]
            if node.attr in MATH_FUNCS:
                return _Builtin("math." + node.attr)
            raise Refused(f"math.{node.attr} is not evaluated at translation time (math constants: "
                          f"{', '.join(sorted(MATH_CONSTS))})", node)
        if _is_enum_class(base) and node.attr in base.__members__:
            return base.__members__[node.attr]
        if isinstance(base, enum.Enum) and node.attr in ("name", "value"):
            return getattr(base, node.attr)
        if _is_data(base) and node.attr in {f.name for f in dataclasses.fields(base)}:
            v = getattr(base, node.attr)
            if is_value(v):
                return v
        raise Refused(f"attribute `{node.attr}` of this value is not evaluated at translation time "
                      "(only enum members and frozen dataclass fields)", node)

    # operators
    def e_UnaryOp(self, node):
        v = self.value(node.operand)
        if isinstance(node.op, ast.Not):
            return not self.truth(v, node)
        if not _num(v) or isinstance(node.op, ast.Invert) and not _int(v):
            raise Raised(TypeError(f"bad operand type for unary operator: '{type(v).__name__}'"), node)
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](v)

    def truth(self, v, node) -> bool:
        if isinstance(v, (range, tuple, list, str)) or _num(v) or v is None:
            return bool(v)
        return True         # enum members, dataclass values: no __bool__ of their own here

    def e_BinOp(self, node):
        a, b = self.value(node.left), self.value(node.right)
        return binop(_SYMBOL.get(type(node.op), "?"), a, b, node)

    def e_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        v = None
        for x in node.values:
            v = self.value(x)
            if self.truth(v, x) != is_and:
                return v
        return v

    def e_Compare(self, node):
        a = self.value(node.left)
        for op, right in zip(node.ops, node.comparators):
            b = self.value(right)
            if not _compare(op, a, b, node):
                return False
            a = b
        return True

    def e_IfExp(self, node):
        return self.value(node.body) if self.truth(self.value(node.test), node.test) else self.value(node.orelse)

    # sequences
    def items(self, v, node) -> list:
        """The elements of an iterable known value (bounded)."""
        if _is_enum_class(v) or isinstance(v, dict):
            v = list(v)
        if not isinstance(v, (tuple, list, str, range)):
            raise Raised(TypeError(f"'{type(v).__name__}' object is not iterable"), node)
        if len(v) > MAX_ITEMS:
            raise Refused(f"iterating over more than {MAX_ITEMS} elements", node)
        self.step(node, len(v))
        return list(v)

    def elements(self, elts, node) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.items(self.value(e.value), e))
            else:
                out.append(self.value(e))
            if len(out) > MAX_ITEMS:
                raise Refused(f"a sequence of more than {MAX_ITEMS} elements", node)
        return out

    def e_Tuple(self, node):
        return tuple(self.elements(node.elts, node))

    def e_List(self, node):
        return self.elements(node.elts, node)

    def e_Dict(self, node):
        if len(node.keys) > MAX_ITEMS:
            raise Refused(f"a dict of more than {MAX_ITEMS} entries", node)
        out = {}
        for k, v in zip(node.keys, node.values):
            key = self.value(k)
            if not _hashable(key):
                raise Raised(TypeError(f"unhashable type: '{type(key).__name__}'"), k)
            out[key] = self.value(v)
        return out

    def e_Subscript(self, node):
        base = self.value(node.value)
        if isinstance(base, dict) and not isinstance(node.slice, ast.Slice):
            key = self.value(node.slice)
            if not _hashable(key):
                raise Raised(TypeError(f"unhashable type: '{type(key).__name__}'"), node)
            if key not in base:
                raise Raised(KeyError(key), node)
            return base[key]
        if not isinstance(base, (tuple, list, str, range)):
            raise Raised(TypeError(f"'{type(base).__name__}' object is not subscriptable"), node)
        if isinstance(node.slice, ast.Slice):
            bounds = [None if b is None else self.value(b) for b in (node.slice.lower, node.slice.upper,
                                                                         node.slice.step)]
            if not all(b is None or _int(b) for b in bounds):
                raise Raised(TypeError("slice indices must be integers or None"), node)
            idx = slice(*bounds)
        else:
            idx = self.value(node.slice)
            if not _int(idx):
                raise Raised(TypeError(f"indices must be integers, not {type(idx).__name__}"), node)
        try:
            return base[idx]
        except (IndexError, ValueError, TypeError, OverflowError) as err:
            raise Raised(err, node) from None

    def e_Starred(self, node):
        raise Refused("`*` is only evaluated in tuple and list displays and call arguments", node)

    # comprehensions
    def _comprehension(self, node) -> list:
        out = []
        self.scopes.append({})
        try:
            self._level(node, 0, out)
        finally:
            self.scopes.pop()
        return out

    def _level(self, node, k, out):
        if k == len(node.generators):
            out.append(self.value(node.elt))
            if len(out) > MAX_ITEMS:
                raise Refused(f"this comprehension makes more than {MAX_ITEMS} elements", node)
            return
        gen = node.generators[k]
        if gen.is_async:
            raise Refused("async comprehensions are not evaluated", gen)
        for item in self.items(self.value(gen.iter), gen.iter):
            self._bind(gen.target, item)
            if all(self.truth(self.value(c), c) for c in gen.ifs):
                self._level(node, k + 1, out)

    def _bind(self, target, item):
        if isinstance(target, ast.Name):
            self.scopes[-1][target.id] = item
            return
        if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(t, ast.Starred) for t in target.elts):
            vals = self.items(item, target)
            if len(vals) != len(target.elts):
                raise Raised(ValueError(f"cannot unpack {len(vals)} values into {len(target.elts)} names"),
                             target)
            for t, v in zip(target.elts, vals):
                self._bind(t, v)
            return
        raise Refused("a comprehension target must be names", target)

    def e_ListComp(self, node):
        return self._comprehension(node)

    def e_GeneratorExp(self, node):
        return self._comprehension(node)      # materialized: its consumers take every element

    # calls
    def e_Call(self, node):
        f = self.ev(node.func)
        if _is_enum_class(f):
            return self._enum_member(f, node)
        if not isinstance(f, _Builtin):
            raise Refused(f"`{_text(node.func)}` cannot be called at translation time; only "
                          + ", ".join(sorted(BUILTINS)) + " and math functions", node)
        args = self.elements(node.args, node)
        kw = {}
        for k in node.keywords:
            if k.arg is None:
                raise Refused("`**` arguments are not evaluated at translation time", k)
            kw[k.arg] = self.value(k.value)
        if f.name.startswith("math."):
            return self._math(f.name[5:], args, kw, node)
        return getattr(self, "b_" + f.name)(args, kw, node)

    def _enum_member(self, cls, node):
        """`Op(v)`: the member whose value equals v (the class is not called: its members are
        compared with the literal), or ValueError as Enum raises it."""
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
            raise Refused(f"`{cls.__name__}(...)` is evaluated only with one value", node)
        v = self.value(node.args[0])
        if isinstance(v, cls):
            return v
        if v is None or isinstance(v, (bool, int, float, str)):
            for m in cls.__members__.values():
                mv = m.value
                if (mv is None or isinstance(mv, (bool, int, float, str))) and mv == v:
                    return m
        raise Raised(ValueError(f"{v!r} is not a valid {cls.__name__}"), node)

    def _math(self, name, args, kw, node):
        if kw:
            raise Refused(f"math.{name} takes no keyword arguments here", node)
        if not all(_num(a) for a in args):
            raise Raised(TypeError(f"math.{name} needs numbers"), node)
        try:
            return _check_size(getattr(math, name)(*args), node)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise Raised(err, node) from None

    @staticmethod
    def _kw(name, kw, allowed, node):
        extra = set(kw) - set(allowed)
        if extra:
            raise Raised(TypeError(f"{name}() got an unexpected keyword argument '{sorted(extra)[0]}'"), node)

    @staticmethod
    def _arity(name, args, lo, hi, node):
        if not lo <= len(args) <= hi:
            raise Raised(TypeError(f"{name}() takes {lo} to {hi} arguments ({len(args)} given)"), node)

    def _call(self, fn, args, node):
        try:
            return _check_size(fn(*args), node)
        except (ArithmeticError, ValueError, TypeError, IndexError) as err:
            raise Raised(err, node) from None

    def b_len(self, args, kw, node):
        self._kw("len", kw, (), node)
        self._arity("len", args, 1, 1, node)
        x = args[0]
        if not (isinstance(x, (tuple, list, str, range, dict)) or _is_enum_class(x)):
            raise Raised(TypeError(f"object of type '{type(x).__name__}' has no len()"), node)
        return self._call(len, args, node)

    def b_range(self, args, kw, node):
        self._kw("range", kw, (), node)
        self._arity("range", args, 1, 3, node)
        if not all(_int(a) for a in args):
            raise Raised(TypeError("range() arguments must be integers"), node)
        return self._call(range, [int(a) for a in args], node)    # lazy: only iterating it is bounded

    def _iterable_arg(self, name, args, kw, node, allowed=()):
        self._kw(name, kw, allowed, node)
        self._arity(name, args, 1, 1, node)
        return self.items(args[0], node)

    def b_tuple(self, args, kw, node):
        if not args:
            return ()
        return tuple(self._iterable_arg("tuple", args, kw, node))

    def b_list(self, args, kw, node):
        if not args:
            return []
        return self._iterable_arg("list", args, kw, node)

    def b_reversed(self, args, kw, node):
        return self._iterable_arg("reversed", args, kw, node)[::-1]

    def b_sorted(self, args, kw, node):
        xs = self._iterable_arg("sorted", args, kw, node, ("reverse",))
        return self._call(lambda: sorted(xs, reverse=bool(kw.get("reverse", False))), [], node)

    def b_all(self, args, kw, node):
        return all(self.truth(x, node) for x in self._iterable_arg("all", args, kw, node))

    def b_any(self, args, kw, node):
        return any(self.truth(x, node) for x in self._iterable_arg("any", args, kw, node))

    def b_enumerate(self, args, kw, node):
        self._kw("enumerate", kw, ("start",), node)
        self._arity("enumerate", args, 1, 2, node)
        start = kw.get("start", args[1] if len(args) > 1 else 0)
        if not _int(start):
            raise Raised(TypeError("enumerate() start must be an integer"), node)
        return [(start + i, x) for i, x in enumerate(self.items(args[0], node))]

    def b_zip(self, args, kw, node):
        self._kw("zip", kw, (), node)
        return list(zip(*[self.items(a, node) for a in args]))

    def b_sum(self, args, kw, node):
        self._kw("sum", kw, ("start",), node)
        self._arity("sum", args, 1, 2, node)
        total = kw.get("start", args[1] if len(args) > 1 else 0)
        for x in self.items(args[0], node):
            total = binop("+", total, x, node)
        return total

    def _minmax(self, name, args, kw, node):
        self._kw(name, kw, ("default",), node)
        if not args:
            raise Raised(TypeError(f"{name} expected at least 1 argument, got 0"), node)
        xs = self.items(args[0], node) if len(args) == 1 else list(args)
        if not xs and "default" in kw:
            return kw["default"]
        return self._call(min if name == "min" else max, [xs], node)

    def b_min(self, args, kw, node):
        return self._minmax("min", args, kw, node)

    def b_max(self, args, kw, node):
        return self._minmax("max", args, kw, node)

    def b_abs(self, args, kw, node):
        self._kw("abs", kw, (), node)
        self._arity("abs", args, 1, 1, node)
        if not _num(args[0]):
            raise Raised(TypeError(f"bad operand type for abs(): '{type(args[0]).__name__}'"), node)
        return self._call(abs, args, node)

    def b_bool(self, args, kw, node):
        self._kw("bool", kw, (), node)
        self._arity("bool", args, 0, 1, node)
        return self.truth(args[0], node) if args else False

    def b_int(self, args, kw, node):
        self._kw("int", kw, ("base",), node)
        self._arity("int", args, 0, 2, node)
        if not all(_num(a) or isinstance(a, str) for a in args + list(kw.values())):
            raise Raised(TypeError("int() needs a number or a string"), node)
        if isinstance(args[0] if args else 0, str) and len(args[0]) > 1300:
            raise Refused(f"an integer of more than {MAX_INT_BITS} bits", node)
        return self._call(lambda *a: int(*a, **kw), args, node)

    def b_float(self, args, kw, node):
        self._kw("float", kw, (), node)
        self._arity("float", args, 0, 1, node)
        if args and not (_num(args[0]) or isinstance(args[0], str)):
            raise Raised(TypeError("float() needs a number or a string"), node)
        return self._call(float, args, node)

    def b_str(self, args, kw, node):
        self._kw("str", kw, (), node)
        self._arity("str", args, 0, 1, node)
        return self._call(str, args, node)

    def b_round(self, args, kw, node):
        self._kw("round", kw, ("ndigits",), node)
        self._arity("round", args, 1, 2, node)
        if not all(_num(a) for a in args + list(kw.values())):
            raise Raised(TypeError("round() needs numbers"), node)
        return self._call(lambda *a: round(*a, **kw), args, node)

    def b_divmod(self, args, kw, node):
        self._kw("divmod", kw, (), node)
        self._arity("divmod", args, 2, 2, node)
        return (binop("//", *args, node), binop("%", *args, node))

    def b_pow(self, args, kw, node):
        self._kw("pow", kw, (), node)
        self._arity("pow", args, 2, 3, node)
        if len(args) == 2:
            return binop("**", *args, node)
        if not all(_int(a) for a in args):
            raise Raised(TypeError("pow() 3rd argument not allowed unless all arguments are integers"), node)
        return self._call(pow, args, node)


def _text(node) -> str:
    try:
        return ast.unparse(node)
    except Exception:       # unparse of odd trees: only for messages
        return type(node).__name__
