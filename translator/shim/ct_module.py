"""The shim's `cuda.tile` module and the submodules programs import.

Served on the host: ct.kernel, ct.function, ct.launch, ct.cdiv, the dtypes (torch's where torch
has them: the translation's host code uses torch dtypes for ct ones, rules.HOST_DTYPES), the
annotations (ct.Constant[...] and its aliases, ct.Array, ct.Tile, ...), ct.ByTarget, the enums
(PaddingMode, RoundingMode, MemoryOrder, MemoryScope), the exception classes, ct.compiler_timeout
and ct.tune.exhaustive_search (each config launched and timed). The tile operations (ct.load,
ct.bid, ...) are objects that kernels name and that raise when called on the host. Any other
name, and any other cuda.tile submodule's names, are stand-ins that raise NotImplementedError
naming what was used.
"""
from __future__ import annotations

import contextlib
import enum
import sys
import types
import warnings

from ..coverage import EXPORTS
from . import datatype as _datatype
from . import internals
from . import kernel as _kernel
from . import tune as _tune
from .kernel import ShimFunction, ShimKernel, ShimTranslationError  # noqa: F401 (served names)

_CT = None
_SUBMODULES = {}


# ---------------------------------------------------------------- dtypes
_DTYPE_NAMES = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
                "float8_e5m3fnu", "float8_e8m0fnu", "float4_e2m1fn", "tfloat32")


class DType:
    """A cuTile dtype as cuTile's own DType objects behave: `ct.tfloat32` and the other dtypes torch
    has no dtype for (they name themselves in kernels only), and what `to_dtype` returns (prints as
    cuTile's name, `int32`, and equals ct's, torch's and numpy's dtype of that name)."""

    def __init__(self, name):
        self.name = self.__name__ = name         # (cuTile's DType has __name__: pytest names parameters by it)
        self.__module__ = "cuda.tile._datatype"  # (where pickle finds it again)
        self._c2t_src = f"ct.{name}"

    def __repr__(self):
        return f"<DType '{self.name}'>"

    def __reduce__(self):       # (pickled and copied as the module's object: `pickle.loads(...) is float16`)
        return self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        name = other.name if isinstance(other, DType) else _dtype_name(other)
        return NotImplemented if name is None else name == self.name

    def __hash__(self):         # (equal to torch's dtype of its name: hashes as it does)
        t = _DTYPES.get(self.name) if _DTYPES else None
        return hash(("ct", self.name)) if t is None or isinstance(t, DType) else hash(t)


def _make_dtypes():
    import torch
    out = {}
    for n in _DTYPE_NAMES:
        t = getattr(torch, "bool" if n == "bool_" else n, None)
        out[n] = t if isinstance(t, torch.dtype) else DType(n)
    return out


_DTYPES = None
_DTYPE_BY_ID = {}


def _dtype_name(value):
    """The cuTile dtype name of a dtype object (ct's, torch's, numpy's), else None."""
    d = _DTYPE_BY_ID.get(id(value))
    if d is not None and _DTYPES[d] is value:
        return d
    if isinstance(value, DType):
        return value.name
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
                name = np.dtype(value).name
                name = "bool_" if name == "bool" else name
                return name if name in _DTYPES else None
        except TypeError:
            return None
    return None


# ---------------------------------------------------------------- annotations
class _Annotation:
    """ct.Constant[int], ct.Array[...], ...: remembers its source, which kernels' modules repeat."""

    def __init__(self, src):
        self._c2t_src = src

    def __getitem__(self, item):
        return _Annotation(f"{self._c2t_src}[{_item_src(item)}]")

    def __repr__(self):
        return self._c2t_src

    def __eq__(self, other):
        return isinstance(other, _Annotation) and other._c2t_src == self._c2t_src

    def __hash__(self):
        return hash(self._c2t_src)


def _item_src(item):
    if isinstance(item, tuple):
        return ", ".join(_item_src(i) for i in item)
    if item is Ellipsis:
        return "..."
    if isinstance(item, types.UnionType):           # ct.Constant[int | float]
        return " | ".join(_item_src(i) for i in item.__args__)
    if isinstance(item, types.GenericAlias) and item.__args__:     # ct.Constant[tuple[ct.ScalarInt64, int]]
        return f"{_item_src(item.__origin__)}[{_item_src(item.__args__)}]"
    if isinstance(item, type) and item.__module__ == "builtins":
        return item.__name__
    name = _dtype_name(item)
    if name is not None:
        return f"ct.{name}"
    src = getattr(item, "_c2t_src", None)
    if isinstance(src, str):
        return src
    if item is DType:
        return "ct.DType"
    if isinstance(item, (int, str)) or item is None:
        return repr(item)
    raise NotImplementedError(f"the cutile2triton shim cannot write the annotation argument {item!r} as source")


def _arg_src(value):
    """An argument of an annotation's constructor as source (tuples keep their parentheses)."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_arg_src(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, (bool, float)):
        return repr(value)
    return _item_src(value)


class _AnnotationClass(type):
    def __getitem__(cls, item):
        return _Annotation(f"ct.{cls.__name__}[{_item_src(item)}]")

    def __call__(cls, *args, **kwargs):
        """ct.ArrayAnnotation(static_shape_dims=(0,)), ct.ListAnnotation(element=...), ct.ConstantAnnotation():
        `typing.Annotated` metadata that remembers its source."""
        if cls.__name__ == "ArrayAnnotation":
            _check_array_annotation(kwargs)
        parts = [_arg_src(a) for a in args] + [f"{k}={_arg_src(v)}" for k, v in kwargs.items()]
        return _Annotation(f"ct.{cls.__name__}({', '.join(parts)})")

    @property
    def _c2t_src(cls):
        return f"ct.{cls.__name__}"


def _check_array_annotation(kwargs):
    """cuTile's checks of ct.ArrayAnnotation's fields, made when it is built."""
    for key in ("static_shape_dims", "static_stride_dims"):
        dims = kwargs.get(key, ())
        if not isinstance(dims, tuple):
            raise TypeError(f"`{key}` must be a tuple of integers, got {dims!r}")
        for i, d in enumerate(dims):
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"entry {i} of `{key}` must be int, got {d!r}")
    dt = kwargs.get("index_dtype")
    if dt is not None and _dtype_name(dt) not in ("int32", "int64"):
        raise ValueError(f"`index_dtype` must be int32 or int64, got {dt!r}")


def _annotation(name):
    return _AnnotationClass(name, (), {"__module__": "cuda.tile"})


# ---------------------------------------------------------------- ByTarget, enums, exceptions
from .compiler_options import ByTarget  # noqa: E402  (ct.ByTarget; its checks are cuTile's)


class PaddingMode(enum.Enum):
    UNDETERMINED = "undetermined"
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class RoundingMode(enum.Enum):
    RN = "nearest_even"
    RZ = "zero"
    RM = "negative_inf"
    RP = "positive_inf"
    RA = "nearest_away"
    FULL = "full"
    APPROX = "approx"
    RZI = "nearest_int_to_zero"


class MemoryOrder(enum.Enum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class MemoryScope(enum.Enum):
    NONE = "none"
    BLOCK = "block"
    CLUSTER = "cluster"
    DEVICE = "device"
    SYS = "sys"


for _e in (PaddingMode, RoundingMode, MemoryOrder, MemoryScope):
    _e.__module__ = "cuda.tile"


from .errors import (  # noqa: E402  (served as cuda.tile's; capture.py raises one too)
    StaticException, TileCompilerError, TileCompilerExecutionError, TileCompilerTimeoutError, TileError,
    TileInternalError, TileRecursionError, TileStaticAssertionError, TileStaticEvalError, TileSyntaxError, TileTypeError,
    TileUnsupportedFeatureError, TileValueError)


class UnsupportedCallError(TileError):
    """cuTile's error for a call kernel code cannot make (`eval()`, a class's constructor)."""


_EXCEPTIONS = {c.__name__: c for c in (
    TileError, TileSyntaxError, TileTypeError, TileValueError, TileUnsupportedFeatureError,
    TileRecursionError, TileStaticAssertionError, TileStaticEvalError, StaticException,
    TileInternalError, TileCompilerExecutionError, TileCompilerTimeoutError)}
# cuda.tile._exception's own names of these classes (cuTile's TileTypeError is its TypeCheckingError),
# and the classes it has that ct does not export
_EXCEPTION_NAMES = dict(
    _EXCEPTIONS, UnsupportedSyntaxError=TileSyntaxError, TypeCheckingError=TileTypeError,
    RecursionLimitError=TileRecursionError, InvalidValueError=TileValueError,
    UnsupportedFeatureError=TileUnsupportedFeatureError, InternalError=TileInternalError,
    StaticEvalError=TileStaticEvalError, StaticAssertionError=TileStaticAssertionError,
    TileCompilerError=TileCompilerError, InternalCompilerError=TileCompilerError,
    CompilerExecutionError=TileCompilerExecutionError, CompilerTimeoutError=TileCompilerTimeoutError,
    UnsupportedCallError=UnsupportedCallError)
for _c in _EXCEPTIONS.values():
    _c.__module__ = "cuda.tile"


# ---------------------------------------------------------------- host functions
kernel = ShimKernel        # ct.kernel / @ct.kernel / @ct.kernel(**hints)


def function(func=None, /, **hints):
    """@ct.function / @ct.function(**hints)."""
    if func is None:
        return lambda f: function(f, **hints)
    return ShimFunction(func, hints)


def launch(stream, grid, kernel, kernel_args, /, *, programmatic_dependent_launch=False):
    """ct.launch: the kernel's translation (made at its first launch) on `stream`."""
    if not isinstance(kernel, ShimKernel):
        raise TypeError(f"ct.launch: {kernel!r} is not a cuTile kernel (@ct.kernel)")
    if not isinstance(grid, tuple):
        grid = tuple(grid)
    if grid == ():
        grid = (1,)         # cuTile's 0-D grid is (1, 1, 1)
    kernel_args = tuple(kernel_args)
    _check_launch(grid, kernel, kernel_args)
    return kernel.launch(stream, grid, tuple(kernel_args), programmatic_dependent_launch)


GRID_MAX = 2 ** 24 - 1       # cuTile's launch limit on each grid dimension


def _check_launch(grid, kernel, args):
    """cuTile's launch-time checks that need no compilation, with its messages: each grid
    dimension below 2**24 (ValueError) and as many arguments as the kernel has parameters
    (TypeError). A grid past the limit would otherwise run (and under the interpreter, take hours)."""
    for i, n in enumerate(grid):
        if isinstance(n, int) and n > GRID_MAX:
            raise ValueError(f"Grid[{i}] exceeds 24-bit limit: max={GRID_MAX}, got={n}. "
                             "Use multiple kernel launches for larger workloads.")
    want = len(kernel._tuple_params()[0])
    if len(args) != want:
        raise TypeError(f"Kernel expects {want} argument{'' if want == 1 else 's'} but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")


def cdiv(x, y):
    """ct.cdiv on the host: ceil(x / y)."""
    return -((-x) // y)


@contextlib.contextmanager
def compiler_timeout(*args, **kwargs):
    """ct.compiler_timeout: a limit on cuTile's compiler; Triton compiles without one."""
    yield


class _DeviceOp:
    """A tile operation (ct.load, ct.bid, ...): kernels name it; the host cannot call it."""

    def __init__(self, name):
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"ct.{self.__name__} is a tile operation: it runs inside a @ct.kernel or "
                           "@ct.function only (cutile2triton shim)")

    def __repr__(self):
        return f"<cuTile operation ct.{self.__name__} (cutile2triton shim)>"


class ShimUnservedWarning(UserWarning):
    """A module called a name the shim does not serve while it was imported (it goes on)."""


class _Unserved:
    """A name the shim does not serve (cuTile's compiler internals: compile_tile, its IR classes,
    ct.compilation's export API): using it raises NotImplementedError naming it. Its attributes
    are stand-ins too (`ir.Block` in an annotation, `ct.compilation.KernelSignature`), and a call
    made by the body of a module being imported (a test module's parametrize list of
    `ArrayConstraint(...)`) gives a stand-in for its result, with a ShimUnservedWarning, rather
    than raising: the module's other tests still run. (A script's own body raises.)"""

    def __init__(self, path):
        object.__setattr__(self, "_path", path)

    def _raise(self, *args, **kwargs):
        raise NotImplementedError(f"`{self._path}` is not served by the cutile2triton shim "
                                  "(docs/shim.md lists what it serves)")

    def __call__(self, *args, **kwargs):
        caller = sys._getframe(1)
        if caller.f_code.co_name == "<module>" and caller.f_globals.get("__name__") != "__main__":
            warnings.warn(f"`{self._path}` is not served by the cutile2triton shim: the module "
                          f"{caller.f_globals.get('__name__')} called it while it was imported; what it "
                          "returned is a stand-in that raises NotImplementedError when used", ShimUnservedWarning, 2)
            return _Unserved(f"{self._path}(...)")
        self._raise()

    __getitem__ = _raise
    __iter__ = _raise
    __len__ = __contains__ = _raise
    __lt__ = __le__ = __gt__ = __ge__ = _raise
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = _raise
    __mod__ = __pow__ = __neg__ = _raise

    def __or__(self, other):        # `ir.Block | None` in an annotation: a stand-in too
        return _Unserved(f"{self._path} | {other!r}")

    __ror__ = __or__
    __bool__ = _raise
    __enter__ = _raise
    __index__ = _raise
    __int__ = _raise

    def __getattr__(self, name):
        if name.startswith("_"):     # (private and special names: hasattr() and pytest's probes see none)
            raise AttributeError(f"{name}: `{self._path}` is not served by the cutile2triton shim")
        return _Unserved(f"{self._path}.{name}")

    def __mro_entries__(self, bases):
        self._raise()

    def __repr__(self):
        return f"<not served by the cutile2triton shim: {self._path}>"


_CUTILE_DTYPES = {}


def _to_dtype(x):
    """cuda.tile._ir.typing_support.to_dtype: cuTile's dtype of a torch/numpy/ct dtype, as a `DType`
    (prints as cuTile's name: tests put it in the messages they expect)."""
    name = _dtype_name(x)
    if name is None:
        raise TypeError(f"{x} is not a dtype")
    got = _DTYPES[name]
    return got if isinstance(got, DType) else _CUTILE_DTYPES.setdefault(name, DType(name))


def _is_implicit_cast_ok(src_dtype, target_dtype):
    """cuda.tile._ir.cast_ops._is_implicit_cast_ok: whether cuTile implicitly casts a value of
    dtype `src_dtype` to `target_dtype` (translator/dtype_rules.py, which translated kernels check)."""
    from ..dtype_rules import implicit_cast_ok
    a, b = _dtype_name(src_dtype), _dtype_name(target_dtype)
    if a is None or b is None:
        raise TypeError(f"_is_implicit_cast_ok({src_dtype!r}, {target_dtype!r}): not dtypes")
    return implicit_cast_ok(a, b)


# ---------------------------------------------------------------- the modules
def _public_name(value):
    """The name under which the shim's cuda.tile serves `value` (an object it defines), else None."""
    ct = module()
    for n, v in ct.__dict__.items():
        if v is value and not n.startswith("_"):
            return n
    return None


_HOST = {
    "kernel": kernel, "function": function, "launch": launch, "cdiv": cdiv,
    "compiler_timeout": compiler_timeout, "ByTarget": ByTarget, "DType": DType,
    "PaddingMode": PaddingMode, "RoundingMode": RoundingMode, "MemoryOrder": MemoryOrder,
    "MemoryScope": MemoryScope,
}
_ANNOTATIONS = ("Constant", "ConstantAnnotation", "Array", "ArrayAnnotation", "ListAnnotation", "Tile",
                "Scalar", "ScalarInt64", "IndexedWithInt64", "TiledView", "Slice")


def _getattr_for(modname):
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unserved(f"{modname}.{name}")
    return __getattr__


def _new_module(name, doc):
    m = types.ModuleType(name, doc)
    m.__path__ = []         # a package: its submodules are served too
    m.__getattr__ = _getattr_for(name)
    return m


def module():
    """The shim's cuda.tile module (made once)."""
    global _CT, _DTYPES
    if _CT is not None:
        return _CT
    _DTYPES = _make_dtypes()
    _DTYPE_BY_ID.update((id(v), k) for k, v in _DTYPES.items())
    ct = _new_module("cuda.tile", "cuda.tile served by the cutile2triton shim (translator/shim): "
                                  "kernels are translated to Triton at their first launch.")
    for n in sorted(EXPORTS):
        ct.__dict__[n] = _DeviceOp(n)
    for n in ("compilation", "pack_to_bytes", "unpack_from_bytes", "tune"):
        del ct.__dict__[n]          # (host-side names the shim does not serve: __getattr__ says so)
    ct.__dict__.update(_HOST)
    ct.__dict__.update(_DTYPES)
    ct.__dict__.update(_EXCEPTIONS)
    for n in _ANNOTATIONS:
        ct.__dict__[n] = _annotation(n)
    ct._dtype_name = _dtype_name
    ct._public_name = _public_name
    ct.ShimTranslationError = ShimTranslationError
    ct.__all__ = sorted(n for n in ct.__dict__ if not n.startswith("_") and n in EXPORTS)
    _CT = _kernel.CT = ct
    tune_modules = _tune.modules(_new_module)
    ct.tune = tune_modules["cuda.tile.tune"]
    exc = _new_module("cuda.tile._exception", "cuTile's exception classes (cutile2triton shim).")
    exc.__dict__.update(_EXCEPTION_NAMES)
    _kernel.ERRORS = _EXCEPTION_NAMES
    numeric = _new_module("cuda.tile._numeric_semantics", "cutile2triton shim")
    numeric.__dict__.update(RoundingMode=RoundingMode, PaddingMode=PaddingMode)
    datatype = _new_module("cuda.tile._datatype", "cutile2triton shim")
    datatype.__dict__.update(_datatype.names(lambda x: _to_dtype(_DTYPES[x] if isinstance(x, str) else x),
                                             _dtype_name, _DTYPE_NAMES), DType=DType)
    for name, served in internals.served(_to_dtype, _is_implicit_cast_ok).items():
        m = _new_module(name, "cuTile internals its tests read (cutile2triton shim); other names are stand-ins")
        m.__dict__.update(served)
        _SUBMODULES[name] = m
    _SUBMODULES.update(tune_modules)
    _SUBMODULES.update({"cuda.tile._exception": exc,
                        "cuda.tile._numeric_semantics": numeric, "cuda.tile._datatype": datatype})
    ct.compilation = _SUBMODULES["cuda.tile.compilation"]   # (its export API: stand-ins)
    return ct


def submodule(name):
    """The shim's module `name` (cuda.tile or below): served ones, else a stand-in module."""
    ct = module()
    if name == "cuda.tile":
        return ct
    m = _SUBMODULES.get(name)
    if m is None:
        m = _new_module(name, "not served by the cutile2triton shim: its names raise NotImplementedError when used")
        _SUBMODULES[name] = m
    return m


# what a static translation's host code must not take from the shim: its kernels and launches
_NOT_FOR_TRANSLATIONS = frozenset({"kernel", "function", "launch"})


def served(path: str):
    """The shim's object for the cuda.tile name `path` (`cuda.tile._cext.get_compute_capability`,
    `cuda.tile.TileTypeError`), for the host code of a static translation (templates/
    placeholders.py.j2): exceptions, dtypes, enums, annotations, device queries. None where the
    shim does not serve it, where it is a tile operation, a module, or needs the shim's kernels."""
    mod, _, attr = path.rpartition(".")
    if not (mod == "cuda.tile" or mod.startswith("cuda.tile.")) or attr in _NOT_FOR_TRANSLATIONS \
            or attr.startswith("__"):
        return None
    obj = getattr(submodule(mod), attr, None)
    if obj is None or isinstance(obj, (_Unserved, _DeviceOp, types.ModuleType)):
        return None
    return obj
