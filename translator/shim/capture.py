"""A self-contained cuTile module for one kernel object, built from its Python function.

`build_source(kernel)` reads the kernel's source (inspect), finds the names it reads from outside
(symtable: closure cells, module globals, annotation names), writes each value as source (module
constants, imports, the source of the `@ct.function` helpers and module functions it calls, with
their own captures, recursively), and returns the module text with a map from its lines back to
the user's files. A value that cannot be written as source is a `ShimCaptureError` naming the
kernel, the name and its type. Nothing here runs the user's code: values are read, not called.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import enum
import inspect
import re
import symtable
import sys
import textwrap
import types
import typing
from dataclasses import dataclass, field

from .errors import TileSyntaxError


class ShimCaptureError(TypeError):
    """A kernel reads a value from outside that cannot be written as cuTile source. `cutile`:
    (cuTile's error class name, its message) where cuTile's compiler rejects the value too."""
    cutile = None


class ShimUndefinedName(ShimCaptureError, TileSyntaxError):
    """A kernel (or a function it calls) reads a name that is bound nowhere: cuTile's compiler
    rejects it too, with a TileSyntaxError "Undefined variable" (this is one)."""

    def __init__(self, message, name):
        super().__init__(message)
        self.cutile = ("TileSyntaxError", f"Undefined variable {name} used")


def _cutile_constant(value) -> bool:
    """Whether cuTile's compiler makes a constant of `value` when a kernel reads it (its
    typing_support.type_of_constant_python_value: scalars, strings, None, enum members, dtypes,
    modules, functions, types, slices, Ellipsis, and tuples/lists of those); other objects (a
    torch.Tensor, a class instance) are its TileTypeError."""
    if isinstance(value, (tuple, list)):
        return all(_cutile_constant(v) for v in value)
    return value is None or value is Ellipsis or isinstance(value, (
        bool, int, float, str, enum.Enum, slice, type, types.ModuleType, types.FunctionType,
        types.BuiltinFunctionType)) or callable(value) or hasattr(value, "_c2t_src") \
        or (dataclasses.is_dataclass(value) and not isinstance(value, type)) \
        or type(value).__module__.split(".")[0] in ("numpy", "cuda") \
        or type(value).__name__ == "dtype"


def _constant_error(value):
    """cuTile's TileTypeError for a value it cannot make a constant of (the name and message of
    typing_support's), else None."""
    if _cutile_constant(value):
        return None
    ty = type(value)
    prefix = "" if ty.__module__ == "builtins" else f"{ty.__module__}."
    return ("TileTypeError", f"Cannot create constant from value of type {prefix}{ty.__qualname__}.")


@dataclass
class Segment:
    """Lines `start`..`start + count - 1` of the built module (1-based) are lines `orig`.. of `filename`,
    shifted right by `indent` columns there."""
    start: int
    count: int
    filename: str
    orig: int
    indent: int


@dataclass
class Built:
    text: str
    segments: list = field(default_factory=list)
    filename: str = "<kernel>"
    line: int = 0       # the kernel's `def` line in the user's file
    # names left unbound because their values are cuTile's compile errors (a captured torch.Tensor,
    # a name bound nowhere): name -> the ShimCaptureError, raised as its cuTile error where the
    # translation fails at reading that name (cuTile's compiler raises it when it reads the name,
    # after the errors of the code before)
    deferred: dict = field(default_factory=dict)

    def where(self, line: int, col: int = 0):
        """(filename, line, col) of a line of the built module in the user's file."""
        for s in self.segments:
            if s.start <= line < s.start + s.count:
                return s.filename, s.orig + line - s.start, col + s.indent
        return self.filename, self.line, 0      # (the captured constants: the kernel's def line)


def _forwarded(fn):
    """The function a decorator's wrapper stands for: `fn.__wrapped__` where `fn` only forwards
    to it (`def wrapper(*args, **kwargs): return func(*args, **kwargs)`, func its closure's
    `__wrapped__`), recursively; else `fn` itself, whose own source is written (a wrapper that
    changes the arguments or the result, as `return func(x + 3)`, is the function called)."""
    while callable(getattr(fn, "__wrapped__", None)) and isinstance(fn, types.FunctionType):
        inner = fn.__wrapped__
        try:
            lines, _ = inspect.getsourcelines(fn.__code__)
            fdef = ast.parse(textwrap.dedent("".join(lines))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            return fn
        free = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        a = fdef.args if isinstance(fdef, ast.FunctionDef) else None
        body = fdef.body[1:] if fdef.body and isinstance(fdef.body[0], ast.Expr) \
            and isinstance(fdef.body[0].value, ast.Constant) else fdef.body       # (a docstring)
        call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
        if not (a is not None and a.vararg and a.kwarg and not (a.posonlyargs or a.args or a.kwonlyargs)
                and isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and len(call.args) == 1 and isinstance(call.args[0], ast.Starred)
                and isinstance(call.args[0].value, ast.Name) and call.args[0].value.id == a.vararg.arg
                and len(call.keywords) == 1 and call.keywords[0].arg is None
                and isinstance(call.keywords[0].value, ast.Name) and call.keywords[0].value.id == a.kwarg.arg
                and call.func.id in free and _cell(free[call.func.id]) is inner):
            return fn
        fn = inner
    return fn


_CONTEXTMANAGER_CODE = contextlib.contextmanager(lambda: None).__code__


def _contextmanager_of(fn):
    """The generator function a `@contextlib.contextmanager` function wraps, else None."""
    inner = getattr(fn, "__wrapped__", None)
    if isinstance(fn, types.FunctionType) and fn.__code__ is _CONTEXTMANAGER_CODE \
            and isinstance(inner, types.FunctionType):
        return inner
    return None


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


def _function_source(fn):
    """(def-onward text dedented, filename, def line in the file, indent, ast.FunctionDef).
    (Read from its code object: inspect would read the source of what a wrapper wraps.)"""
    try:
        lines, start = inspect.getsourcelines(fn.__code__)
    except (OSError, TypeError) as e:
        raise ShimCaptureError(f"cannot read the source of `{getattr(fn, '__qualname__', fn)}`: {e}") from None
    first = next((ln for ln in lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip())
    text = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise ShimCaptureError(f"cannot parse the source of `{fn.__qualname__}` on its own ({e.msg}); "
                               "define it at one indentation level") from None
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ShimCaptureError(f"the source of `{fn.__qualname__}` is not a function definition")
    body = "".join(text.splitlines(keepends=True)[fdef.lineno - 1:])
    if not body.endswith("\n"):
        body += "\n"
    return body, fn.__code__.co_filename, start + fdef.lineno - 1, indent, fdef


def _outside_names(text: str, name: str, filename: str) -> list:
    """Names the function `name` defined by `text` (at module level) reads from outside it:
    globals of its body and of functions nested in it, and its annotations' and defaults' names."""
    top = symtable.symtable(text, filename, "exec")
    names = []

    def visit(tab):
        for s in tab.get_symbols():
            if s.is_global() and s.is_referenced() and s.get_name() not in names:
                names.append(s.get_name())
        for c in tab.get_children():
            visit(c)

    for c in top.get_children():
        if c.get_name() == name:
            visit(c)
    for s in top.get_symbols():     # annotations and defaults are read where the def is
        if s.is_referenced() and s.get_name() != name and s.get_name() not in names:
            names.append(s.get_name())
    return names


_MISSING = object()


class Builder:
    def __init__(self, ct, kernel_name: str):
        self.ct = ct                    # the shim's cuda.tile module
        self.kernel = kernel_name
        self.imports = {}               # bound name -> import line
        self.consts = {}                # bound name -> source of its value
        self.defs = []                  # (name, text, filename, def line, indent) in output order
        self.bound = {}                 # bound name -> (kind, identity) for conflict checks
        self.done = set()               # (id, bound name) of functions, ids of classes, already written
        self.classes = set()            # names of the classes in defs (written before the functions)
        self.tuple_key = None           # (kernel function, nesting of its tuple arguments): tuple_args.py
        self.deferred = {}              # name -> ShimCaptureError with a cuTile error (Built.deferred)

    # ---------------------------------------------------------------- binding names
    def _bind(self, name, key, what):
        old = self.bound.get(name)
        if old is not None and old != key:
            raise ShimCaptureError(f"kernel `{self.kernel}`: the name `{name}` stands for two different "
                                   f"values in the kernel and the functions it calls ({what}); rename one")
        self.bound[name] = key

    def _fail(self, name, value, why=""):
        r = repr(value)
        r = r if len(r) <= 60 else r[:57] + "..."
        e = ShimCaptureError(
            f"kernel `{self.kernel}` reads `{name}`, a {type(value).__module__}.{type(value).__qualname__} "
            f"({r}), which the shim cannot write as cuTile source{': ' + why if why else ''}; pass it as a "
            "kernel argument (a ct.Constant parameter for a compile-time value) or make it a literal, a "
            "tuple of literals, a dtype or an enum member")
        e.cutile = _constant_error(value)
        raise e

    # ---------------------------------------------------------------- values as source
    def value_src(self, name, value) -> str:
        """Source text for a value (constants, dtypes, enum members, ...), or raises."""
        ct = self.ct
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            return repr(value) if value == value and abs(value) != float("inf") else f'float("{value}")'
        if isinstance(value, (tuple, list)):
            items = [self.value_src(name, v) for v in value]
            if isinstance(value, tuple):
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
        if isinstance(value, dict):
            if len(value) > 4096:
                self._fail(name, value, "a dict of more than 4096 entries")
            return "{" + ", ".join(f"{self.value_src(name, k)}: {self.value_src(name, v)}"
                                   for k, v in value.items()) + "}"
        dt = ct._dtype_name(value)
        if dt is not None:
            return f"ct.{dt}"
        if isinstance(value, enum.Enum):
            cls = type(value)
            if getattr(ct, cls.__name__, None) is cls:
                return f"ct.{cls.__name__}.{value.name}"
            self.add_class(cls.__name__, cls)
            return f"{cls.__name__}.{value.name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            # a dataclass instance (`fb = FooBar(2, 7)` read from a closure): its class's source and
            # a call with its fields' values, as keywords (fields without init=: cuTile refuses them)
            cls = type(value)
            self.add_class(cls.__name__, cls)
            args = ", ".join(f"{f.name}={self.value_src(name, getattr(value, f.name))}"
                             for f in dataclasses.fields(value) if f.init)
            return f"{cls.__name__}({args})"
        # the shim's annotations, ByTarget (not an `Annotated[ct.Array, ...]` alias, which would
        # answer for the ct.Array it wraps: typing forwards attribute reads to its origin)
        src = getattr(value, "_c2t_src", None) if typing.get_origin(value) is not typing.Annotated else None
        if isinstance(src, str):
            return src
        attr = ct._public_name(value) if callable(value) and not isinstance(value, type) else None
        if attr is not None:        # a cuda.tile operation held in a table (`{Op.ADD: ct.atomic_add}`)
            return f"ct.{attr}"
        kind = getattr(type(value), "_c2t_kind", None)
        if kind == "function" or isinstance(value, types.FunctionType):
            # a function held in a table (`{Op.ADD: add_func}`): its source, under its own name
            fn = value.pyfunc if kind == "function" else value
            if fn.__name__ == "<lambda>" or not fn.__name__.isidentifier():
                self._fail(name, value, "a lambda")
            self.add_function(fn.__name__, value)
            return fn.__name__
        src = self.type_src(name, value)
        if src is not None:
            return src
        self._fail(name, value)

    def type_src(self, name, value):
        """Source for a type hint a kernel's annotations read (`tuple[ct.ScalarInt64, int]`,
        `int | float`, `Annotated[list, ct.ListAnnotation(...)]`, `torch.Tensor`), else None.
        The names the source uses (`Annotated`, `torch`) are bound as imports."""
        if value is Ellipsis:
            return "..."
        if isinstance(value, types.UnionType):
            return " | ".join(self.value_src(name, v) for v in value.__args__)
        if isinstance(value, types.GenericAlias) and value.__args__:
            return f"{self.value_src(name, value.__origin__)}[{', '.join(self.value_src(name, v) for v in value.__args__)}]"
        if typing.get_origin(value) is typing.Annotated:
            self.capture("Annotated", typing.Annotated)
            parts = [self.value_src(name, value.__origin__)] + [self.value_src(name, m) for m in value.__metadata__]
            return f"Annotated[{', '.join(parts)}]"
        if isinstance(value, type):
            if getattr(builtins, value.__name__, None) is value:
                return value.__name__
            mod = sys.modules.get(value.__module__)
            if mod is not None and "." not in value.__module__ and getattr(mod, value.__qualname__, None) is value \
                    and not value.__module__.startswith(("__main__", "cuda")):
                self.capture(value.__module__, mod)
                return f"{value.__module__}.{value.__qualname__}"
        return None

    def capture(self, name, value):
        """Bind `name` to `value` in the built module."""
        ct = self.ct
        if isinstance(value, types.ModuleType):
            if value is ct:
                line = f"import cuda.tile as {name}"
            else:
                mod = value.__name__
                if mod.startswith("cuda.tile"):
                    self._fail(name, value, "a cuda.tile submodule")
                line = f"import {mod}" if mod == name else f"import {mod} as {name}"
            self._bind(name, ("import", line), "a module")
            self.imports[name] = line
            return
        line = _stdlib_import(name, value)
        if line is not None:          # `Enum`, `IntEnum` (the bases of a user enum's class source)
            self._bind(name, ("import", line), line)
            self.imports[name] = line
            return
        kind = getattr(type(value), "_c2t_kind", None)     # (kernel.py's ShimKernel, ShimFunction)
        if kind == "kernel":
            self._fail(name, value, "a kernel cannot call another kernel")
        if kind == "function" or isinstance(value, types.FunctionType):
            self.add_function(name, value)
            return
        if isinstance(value, type) and issubclass(value, enum.Enum) and getattr(ct, value.__name__, None) is not value:
            self.add_class(name, value)
            return
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            self.add_class(name, value)
            return
        if type(value) is type and value.__bases__ == (object,) and getattr(builtins, name, None) is not value:
            self.add_class(name, value)     # a plain class (kernels may not create its instances: cuTile's error)
            return
        if _typing_name(value) == name:     # (Annotated, ...: the typing module's own objects)
            line = f"from typing import {name}"
            self._bind(name, ("import", line), f"typing.{name}")
            self.imports[name] = line
            return
        attr = ct._public_name(value)
        if attr is not None and ct._dtype_name(value) is None and not isinstance(value, enum.Enum):
            line = f"from cuda.tile import {attr}" + ("" if attr == name else f" as {name}")
            self._bind(name, ("import", line), f"ct.{attr}")
            self.imports[name] = line
            return
        if isinstance(value, type) and getattr(ct, value.__name__, None) is value:
            line = f"from cuda.tile import {value.__name__}" + ("" if value.__name__ == name else f" as {name}")
            self._bind(name, ("import", line), f"ct.{value.__name__}")
            self.imports[name] = line
            return
        try:
            src = self.value_src(name, value)
        except ShimCaptureError as e:
            if e.cutile is None or self.bound.get(name, ("deferred",))[0] != "deferred":
                raise
            self.bound[name] = ("deferred", id(value))
            self.deferred[name] = e     # (left unbound: cuTile's error where the kernel reads it)
            return
        self._bind(name, ("const", src), src)
        self.consts[name] = src

    # ---------------------------------------------------------------- functions and classes
    def add_function(self, name, value, decorator=None):
        shim_function = getattr(type(value), "_c2t_kind", None) == "function"
        fn = value.pyfunc if shim_function else value
        if decorator is None and shim_function:
            decorator = value.decorator_src(self)
        if _contextmanager_of(fn) is not None:
            # a @contextlib.contextmanager function: its generator's source under that decorator
            # (the translator inlines `with` statements over it, passes/with_inline.py)
            fn, decorator = _contextmanager_of(fn), "@contextmanager"
            self.capture("contextmanager", contextlib.contextmanager)
        fn = _forwarded(fn)
        if fn.__name__ == "<lambda>":
            self._fail(name, value, "a lambda")
        self._bind(name, ("def", id(fn)), f"the function {fn.__qualname__}")
        if (id(fn), name) in self.done:
            return
        self.done.add((id(fn), name))
        text, filename, line, indent, _fdef = _function_source(fn)
        if _fdef.name != name:
            # bound under another name (`get = xor_method`, a parameter of a kernel factory, a
            # decorator's wrapper, whose __name__ functools.wraps made the wrapped one's):
            # its source with the def renamed, so that the module calls it by the name the
            # kernel reads (a name that reads the function's own name gets it too)
            text = _renamed_def(text, _fdef, name)
        slot = len(self.defs)
        self.defs.append(None)          # (its callees' definitions go before it)
        free = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        annotations = getattr(fn, "__annotations__", {}) or {}
        if self.tuple_key is not None and fn is self.tuple_key[0]:     # (the kernel, for tuple arguments)
            from . import tuple_args
            text = tuple_args.rewrite(text, self.tuple_key[1], annotations, lambda v: self.value_src(name, v))
        for n in _outside_names(text, name, filename):
            if n == name:
                continue
            if n in free:
                try:
                    v = free[n].cell_contents
                except ValueError:
                    raise ShimCaptureError(f"kernel `{self.kernel}`: `{fn.__qualname__}` reads `{n}` from the "
                                           "enclosing function before it is assigned") from None
            elif n in fn.__globals__:
                v = fn.__globals__[n]
            elif hasattr(builtins, n):
                continue
            else:
                v = _annotation_value(n, _fdef, annotations)
                if v is _MISSING:
                    # left unbound: cuTile's "Undefined variable" where the translation reads it
                    if n not in self.bound:
                        self.bound[n] = ("deferred", None)
                        self.deferred[n] = ShimUndefinedName(
                            f"kernel `{self.kernel}`: `{fn.__qualname__}` reads `{n}`, which is neither a "
                            "variable of an enclosing function, a global nor a builtin", n)
                    elif self.bound[n][0] != "deferred":
                        raise ShimCaptureError(f"kernel `{self.kernel}`: the name `{n}` is bound in a function "
                                               f"the kernel calls and read unbound in `{fn.__qualname__}`")
                    continue
            self.capture(n, v)
        self.defs[slot] = (name, ((decorator + "\n") if decorator else "") + text, filename, line,
                           indent, 1 if decorator else 0)

    def add_class(self, name, cls):
        if cls.__name__ != name:
            self._fail(name, cls, f"a class named `{cls.__name__}` bound to another name")
        self._bind(name, ("class", id(cls)), f"the class {cls.__qualname__}")
        if id(cls) in self.done:
            return
        self.done.add(id(cls))
        try:
            lines, start = inspect.getsourcelines(cls)
        except (OSError, TypeError) as e:
            raise ShimCaptureError(f"kernel `{self.kernel}`: cannot read the source of the class "
                                   f"`{cls.__qualname__}`: {e}") from None
        first = next((ln for ln in lines if ln.strip()), "")
        indent = len(first) - len(first.lstrip())
        text = textwrap.dedent("".join(lines))
        if not text.endswith("\n"):
            text += "\n"
        glb = getattr(sys.modules.get(cls.__module__), "__dict__", {})
        # the names it reads from outside: its decorators' and bases' (the module's scope), its
        # body's and its methods' (`x: int = dataclasses.field(...)`); its base classes of its own
        # module (globals or defined next to it in a function) are written before it (the
        # translator reads classes in order)
        top = symtable.symtable(text, "<class>", "exec")
        read, tables = [], [top]
        while tables:
            t = tables.pop()
            tables.extend(t.get_children())
            read += [s.get_name() for s in t.get_symbols() if s.is_referenced()
                     and (t is top or s.is_global()) and s.get_name() not in read]
        bases = {n: b for n in read for b in cls.__mro__[1:] if b.__name__ == n
                 and glb.get(n, b) is b and b.__module__ == cls.__module__}
        for n, b in bases.items():
            self.add_class(n, b)
        slot = len(self.defs)
        self.defs.append(None)
        for n in read:
            if n == name or n in bases:
                continue
            if n in glb:
                self.capture(n, glb[n])
            elif not hasattr(builtins, n):
                raise ShimCaptureError(f"kernel `{self.kernel}`: the class `{cls.__qualname__}` reads `{n}`, "
                                       "which is not a global of its module")
        self.defs[slot] = (name, text, inspect.getsourcefile(cls) or "<class>", start, indent, 0)
        self.classes.add(name)

    # ---------------------------------------------------------------- the module
    def module(self, filename, line) -> Built:
        if "ct" in self.bound and self.bound["ct"] != ("import", "import cuda.tile as ct"):
            raise ShimCaptureError(f"kernel `{self.kernel}`: the name `ct` is bound to something other than "
                                   "cuda.tile, which the shim's generated module needs")
        out = ["import cuda.tile as ct\n"]
        out += [ln + "\n" for n, ln in self.imports.items() if ln != "import cuda.tile as ct"]
        # constants naming a class written here (`enum_value = Color.BLUE`) after the classes, and
        # the classes before the functions: the translator reads module-level names in order
        classes = self.classes
        functions = {d[0] for d in self.defs if d[0] not in classes}
        # tables holding functions (`{Op.ADD: add_func}`) after every definition
        last = {n for n, src in self.consts.items() if any(re.search(rf"\b{re.escape(f)}\b", src) for f in functions)}
        later = {n for n, src in self.consts.items() if n not in last
                 and any(re.search(rf"\b{re.escape(c)}\b", src) for c in classes)}
        out += [f"{n} = {src}\n" for n, src in self.consts.items() if n not in later and n not in last]
        defs = [d for d in self.defs if d[0] in classes] + [d for d in self.defs if d[0] not in classes]
        segments = []
        for i, (_name, text, fname, orig, indent, extra) in enumerate(defs):
            if later and i == len(classes):
                out.append("\n\n" + "".join(f"{n} = {self.consts[n]}\n" for n in self.consts if n in later))
            out.append("\n\n")
            start = sum(s.count("\n") for s in out) + 1 + extra
            out.append(text)
            segments.append(Segment(start, text.count("\n") - extra, fname, orig, indent))
        if later and len(defs) == len(classes):
            out.append("\n\n" + "".join(f"{n} = {self.consts[n]}\n" for n in self.consts if n in later))
        if last:
            out.append("\n\n" + "".join(f"{n} = {self.consts[n]}\n" for n in self.consts if n in last))
        return Built("".join(out), segments, filename, line, dict(self.deferred))


def _stdlib_import(name: str, value):
    """`from enum import IntEnum` for a class or function of the standard library found under
    its own module path (sys.stdlib_module_names), or a builtin function of a C module `_name`
    found under the public `name` (`from operator import add`), else None (`dataclass`:
    imported, not written as its source)."""
    mod = getattr(value, "__module__", None)
    qual = getattr(value, "__qualname__", None)
    if isinstance(value, types.BuiltinFunctionType) and mod and mod.startswith("_") \
            and getattr(sys.modules.get(mod[1:]), qual or "", None) is value:
        mod = mod[1:]       # `operator.add` (its __module__ is `_operator`, the C module behind it)
    if not isinstance(value, (type, types.BuiltinFunctionType, types.FunctionType)) or not mod or not qual \
            or "." in qual or mod.split(".")[0] not in sys.stdlib_module_names or mod.startswith("_"):
        return None
    if getattr(sys.modules.get(mod), qual, None) is not value:
        return None
    return f"from {mod} import {qual}" + ("" if qual == name else f" as {name}")


def _renamed_def(text: str, fdef, name: str) -> str:
    """`text` (a function's source from its def line) with the def's name replaced by `name`."""
    lines = text.splitlines(keepends=True)
    k = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith(("def ", "async def ")))
    head = lines[k]
    at = head.index("def ") + 4
    while head[at] == " ":
        at += 1
    assert head.startswith(fdef.name, at), (head, fdef.name)
    lines[k] = head[:at] + name + head[at + len(fdef.name):]
    return "".join(lines)


def _typing_name(value):
    """The name under which the typing module holds `value` (Annotated, Any, ...), else None."""
    for n in ("Annotated", "Any", "Optional", "Union", "Tuple", "List", "Sequence"):
        if getattr(typing, n, None) is value:
            return n
    return None


def _annotation_value(n, fdef, annotations):
    """The value of an annotation that names `n` (a name of the enclosing function's, evaluated
    when the def ran, so only in __annotations__)."""
    args = fdef.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if isinstance(a.annotation, ast.Name) and a.annotation.id == n and a.arg in annotations:
            v = annotations[a.arg]
            return _MISSING if isinstance(v, str) else v
    return _MISSING


def build_source(kernel, ct, tuple_key=None) -> Built:
    """The cuTile module text of one kernel object (a ShimKernel), with its line map; `ct`: the
    shim's cuda.tile module; `tuple_key`: the nesting of its tuple arguments, whose parameters
    are flattened (tuple_args.py)."""
    fn = kernel.pyfunc
    b = Builder(ct, fn.__name__)
    if tuple_key is not None:
        b.tuple_key = (_forwarded(fn), tuple_key)
    b.add_function(fn.__name__, fn, decorator=kernel.decorator_src(b))
    _t, filename, line, _i, _f = _function_source(fn)
    return b.module(filename, line)
