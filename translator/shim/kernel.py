"""Kernel objects of the shim's cuda.tile, and their translation at first launch.

A `ShimKernel` wraps the Python function `ct.kernel` was given. Its first launch builds the
kernel's own cuTile module (capture.build_source), translates it with translator.api (no compile
check: Triton compiles the kernel at launch anyway), writes the translation to the private cache
folder (cache_dir.py; Triton's JIT reads a kernel's source from its file) and imports it, then
calls its `launch_<kernel>(grid, *args, stream=...)`. Translations are cached by the hash of the
built text (and of the translator's own files): in memory for the process, on disk across
processes. A translation with errors raises `ShimTranslationError` at launch, quoting the
diagnostics at the user's lines.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

from .capture import ShimCaptureError, build_source

_LOCK = threading.RLock()
_MODULES = {}           # key -> the translated module (or the exception its translation raised)
_TRANSLATOR_HASH = None
CT = None               # the shim's cuda.tile module (ct_module.module() sets it)
ERRORS = {}             # cuTile's error classes by their names in cuda.tile._exception (set there too)


class _Refused(Exception):
    """A translation refused with cuTile's own compile error (`error`), cached as a refusal."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


class ShimTranslationError(RuntimeError):
    """A kernel the translator refused (its diagnostics, at the user's lines). Not a cuTile
    TileError: a test expecting cuTile's own compile error does not pass on it."""

    def __init__(self, kernel, diagnostics, rank_bound=()):
        self.kernel, self.diagnostics = kernel, diagnostics
        # array parameters used with more rank combinations than one translation writes kernels
        # for: the kernel is translated again for each launch's ranks (ShimKernel.launch)
        self.rank_bound = tuple(rank_bound)
        # the first diagnostic on the first line: pytest's short summary and log greps show one line
        super().__init__(f"cutile2triton could not translate kernel `{kernel}`: " + "\n  ".join(diagnostics))


_CUTILE_ERROR = re.compile(r"cuTile ([A-Z][A-Za-z]*Error): ([^\n]*)")


def cutile_error(exc):
    """The cuTile error (the shim's TileTypeError, ...) that a translated kernel's compile-time check
    raised, if `exc` carries one: such checks (templates/prelude_casts.py.j2) fail Triton's
    compilation with 'cuTile <class>: <cuTile's message>', found on the innermost exception of the
    chain (Triton's CompilationError of a helper's static_assert; the interpreter's AssertionError
    under InterpreterErrors, whose texts quote it in repr)."""
    found, seen = None, set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        # (the last: a CompilationError's text quotes the source lines above the failing one
        # first, where another check's message may be written)
        for m in _CUTILE_ERROR.finditer(str(exc)):
            found = m
        exc = exc.__cause__ or exc.__context__
    cls = ERRORS.get(found.group(1)) if found else None
    return cls(found.group(2)) if isinstance(cls, type) and issubclass(cls, Exception) else None


_RANK_ERROR = re.compile(r"argument `(\w+)` must be a \d+-D array(?: \(or of a higher rank\))?, got (\d+)-D$")
_RANKS_ERROR = re.compile(r"`\w+`: \(([\w, ]+)\) of ranks \(([\d, ]+)\); the kernel uses them with ranks")


def _is_array(a) -> bool:
    """Whether a launch argument is an array (a tensor, numpy or cupy array, DLPack or CUDA array
    interface object) whose rank the kernel is compiled for."""
    return isinstance(getattr(a, "shape", None), tuple)     # (torch.Size is a tuple; a parameter the
    # kernel uses as a scalar is not pinned: kernels.py _pin_launch_ranks pins array parameters only)


def _rank_mismatch(exc: ValueError) -> dict:
    """{array parameter: rank} that a translated launcher's rank check refused (its own words:
    templates/host_prelude.py.j2 _c2t_array, rank_dispatch.py.j2), or {} for another error."""
    m = _RANK_ERROR.fullmatch(str(exc))
    if m:
        return {m.group(1): int(m.group(2))}
    m = _RANKS_ERROR.match(str(exc))
    if m:
        names = [n.strip() for n in m.group(1).split(",") if n.strip()]
        ranks = [int(r) for r in m.group(2).split(",") if r.strip()]
        return dict(zip(names, ranks)) if len(names) == len(ranks) else {}
    return {}


def _translator_hash() -> str:
    """A hash of the translator's files (code, templates, grammar): a disk cache entry made by
    another version of the translator is never read back."""
    global _TRANSLATOR_HASH
    if _TRANSLATOR_HASH is None:
        import translator
        root = Path(translator.__file__).resolve().parent
        h = hashlib.sha256(translator.__version__.encode())
        files = [p for d in (root, root.parent / "templates", root.parent / "grammar") if d.is_dir()
                 for p in d.rglob("*") if p.is_file() and p.suffix in (".py", ".j2", ".lark", ".c")
                 and "__pycache__" not in p.parts]
        for p in sorted(files):
            h.update(str(p.relative_to(root.parent)).encode())
            h.update(p.read_bytes())
        _TRANSLATOR_HASH = h.hexdigest()
    return _TRANSLATOR_HASH


def _folder() -> Path:
    from ..cache_dir import private_cache_dir
    d = private_cache_dir("shim")
    if d is None:
        d = Path(tempfile.mkdtemp(prefix="c2t-shim-"))
    return d


_UNBOUND = re.compile(r"name `([A-Za-z_][A-Za-z0-9_]*)` is not defined")


def _unbound_name(diag):
    """The name a C2T103 'name `x` is not defined' diagnostic is about, else None."""
    m = _UNBOUND.match(diag.message) if diag.code == "C2T103" else None
    return m.group(1) if m else None


def _user_lines(message: str, built) -> str:
    """A cuTile message quoting lines of the kernel's source (`(line 12)`: its path-dependent types),
    with the built module's lines as the user's file numbers them."""
    return re.sub(r"\(line (\d+)\)", lambda m: f"(line {built.where(int(m.group(1)))[1]})", message)


def _format(diag, built) -> str:
    fname, line, col = built.where(diag.line, diag.col)
    text = f"{fname}:{line}:{col}: {diag.severity} {diag.code}: {diag.message}"
    return text + (f" (hint: {diag.hint})" if diag.hint else "")


def translated_module(built, kernel_name: str, ranks=()):
    """The imported translation of a built kernel module (cached), or raises ShimTranslationError.
    `ranks`: ((array parameter, rank), ...) the launch gives where the kernel's text shows others
    (Options.ranks: the kernel lowered for them, as cuTile compiles it for its arguments)."""
    pins = "".join(f"\0{n}={r}" for n, r in sorted(ranks))
    key = hashlib.sha256((_translator_hash() + "\0" + built.filename + "\0" + built.text + pins).encode()
                         ).hexdigest()[:32]
    with _LOCK:
        got = _MODULES.get(key)
        if got is None:
            try:
                got = _load(key, built, kernel_name, dict(ranks))
            except ShimTranslationError as e:
                got = e
            except _Refused as e:
                got = e
            _MODULES[key] = got
    if isinstance(got, _Refused):
        raise got.error.with_traceback(None)
    if isinstance(got, Exception):
        raise got
    return got


def _load(key, built, kernel_name, ranks=None):
    from ..cache_dir import open_private, write_private
    folder = _folder()
    path = folder / f"k_{kernel_name}_{key}.py"
    code = None
    f, _writable = open_private(path)
    if f is not None:
        with f:
            code = f.read().decode("utf-8")
    if code is None:
        from ..api import Options, translate_source
        # (every launcher takes c2t_pdl: ct.launch(..., programmatic_dependent_launch=True) passes it)
        options = Options(check=False, partial=False, launcher_needs=frozenset({"pdl"}),
                          ranks={kernel_name: ranks} if ranks else None)
        res = translate_source(built.text, built.filename, options)
        if os.environ.get("C2T_SHIM_VERBOSE", "0") != "0":
            for d in res.diagnostics:
                print("cutile2triton shim: " + _format(d, built), file=sys.stderr)
        if not res.ok:
            errors = [d for d in res.diagnostics if d.severity == "error"] or res.diagnostics
            refused = ShimTranslationError(kernel_name, [_format(d, built) for d in errors],
                                           sorted({d.rank_bound for d in errors if d.rank_bound}))
            cutile = errors[0].cutile
            unbound = _unbound_name(errors[0])
            if unbound in built.deferred:
                # a name the capture left unbound (a torch.Tensor, a name bound nowhere): cuTile's
                # error for that value, raised where its compiler reads the name
                refused = built.deferred[unbound]
                cutile = refused.cutile
            cls = ERRORS.get(cutile[0]) if cutile else None
            if isinstance(cls, type) and issubclass(cls, Exception):
                # cuTile refuses this too, at its compile (the launch): its error, the diagnostic as cause
                err = cls(_user_lines(cutile[1], built))
                err.__cause__ = refused
                raise _Refused(err)
            raise refused
        code = res.code
        write_private(path, lambda fh: fh.write(code.encode("utf-8")))
        if not path.exists():       # (no private folder: a temporary file of this process)
            path = Path(tempfile.mkdtemp(prefix="c2t-shim-")) / path.name
            path.write_text(code)
    _interpreter_numerics()
    name = f"c2t_shim_{kernel_name}_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        exec(compile(code, str(path), "exec"), mod.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


def _interpreter_numerics() -> None:
    """Under Triton's interpreter, the harness's numerics patch (bf16 by value, GPU-like downcast
    rounding, fp8 upcasts, bool/float scalar arguments: harness/interp_numerics.py), as the
    harness's own interpreter runs have it: without it the stock interpreter computes bf16 on its
    bit patterns and a shimmed program's bf16 results are wrong where the GPU's are right."""
    from ..check import interpreted
    if interpreted():
        from ..harness import interp_numerics
        interp_numerics.install()


def _is_constant(annotation) -> bool:
    """Whether a parameter's annotation makes it a compile-time constant as a whole (ct.Constant[...],
    an alias of it, Annotated[..., ct.ConstantAnnotation()]); not a tuple[...] holding Constants."""
    src = getattr(annotation, "_c2t_src", None)
    if isinstance(src, str):
        return src.startswith("ct.Constant")
    if isinstance(annotation, str):
        return annotation.replace(" ", "").startswith(("ct.Constant", "Constant"))
    meta = getattr(annotation, "__metadata__", ())
    return any(str(getattr(m, "_c2t_src", "")).startswith("ct.ConstantAnnotation") for m in meta)


class ShimFunction:
    """`@ct.function` (a tile helper): its Python function, translated with the kernels that call it."""
    _c2t_kind = "function"

    def __init__(self, pyfunc, hints):
        self.pyfunc, self.hints = pyfunc, dict(hints)
        self.__name__ = getattr(pyfunc, "__name__", "function")
        self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.__wrapped__ = pyfunc

    def decorator_src(self, builder) -> str:
        if not self.hints:
            return "@ct.function"
        return "@ct.function(" + ", ".join(f"{k}={builder.value_src(k, v)}" for k, v in self.hints.items()) + ")"

    def __call__(self, *args, **kwargs):
        # (cuTile raises RuntimeError here, as it does for ct.load on the host)
        raise RuntimeError(f"Device functions can only be called from device code: `{self.__name__}` is a "
                           "cuTile function (@ct.function); call it from a kernel (cutile2triton shim)")

    def __repr__(self):
        return f"<cuTile function {self.__qualname__} (cutile2triton shim)>"


class ShimKernel:
    """`ct.kernel(f, **hints)` (served as ct.kernel itself, so that `isinstance(k, ct.kernel)` holds):
    launched by ct.launch, translated at its first launch. `ct.kernel(**hints)` is a decorator."""
    _c2t_kind = "kernel"

    def __new__(cls, function=None, /, **hints):
        if function is None:
            return lambda f: cls(f, **hints)
        if isinstance(function, ShimKernel):
            return function.replace_hints(**hints)
        return super().__new__(cls)

    def __init__(self, pyfunc, /, **hints):
        if isinstance(pyfunc, ShimKernel):
            return          # (__new__ gave back a kernel with these hints)
        from .compiler_options import check_hints
        check_hints(hints)          # (cuTile's ValueError for a hint out of range, at ct.kernel)
        self._pyfunc = pyfunc
        self.hints = dict(hints)
        # (no __name__, __qualname__ or __wrapped__: cuTile's kernel objects have none, and pytest
        # names parameters by __name__ where there is one: test ids would differ from cuTile's)
        self._name = getattr(pyfunc, "__name__", "kernel")
        self._qualname = getattr(pyfunc, "__qualname__", self._name)
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self._launcher = None
        self._built = None
        self._params = None         # (positional parameter names, those annotated ct.Constant)
        self._variants = {}         # nesting of tuple arguments -> launcher (tuple_args.py)
        self._by_rank = {}          # (nesting, array ranks) -> launcher (a launch's ranks: _rank_mismatch)
        self._arg_nodes = None      # per parameter, its annotation tree (launch_args.py)

    @property
    def pyfunc(self):
        return self._pyfunc

    def replace_hints(self, **hints):
        return ShimKernel(self._pyfunc, **{**self.hints, **hints})

    def decorator_src(self, builder) -> str:
        if not self.hints:
            return "@ct.kernel"
        return "@ct.kernel(" + ", ".join(f"{k}={builder.value_src(k, v)}" for k, v in self.hints.items()) + ")"

    def source(self) -> str:
        """The cuTile module the shim translates for this kernel (built at the first launch)."""
        return self._build().text

    def _build(self):
        if self._built is None:
            try:
                self._built = build_source(self, CT)
            except ShimCaptureError as e:
                raise type(e)(f"{e} (cutile2triton shim, at the first launch of `{self._qualname}`)") from None
        return self._built

    def translation(self):
        """The imported translated module of this kernel."""
        return translated_module(self._build(), self._name)

    def launcher(self):
        if self._launcher is None:
            mod = self.translation()
            self._launcher = getattr(mod, f"launch_{self._name}")
        return self._launcher

    def _tuple_params(self):
        if self._params is None:
            from .capture import _forwarded
            fn = _forwarded(self._pyfunc)
            code = fn.__code__
            names = list(code.co_varnames[:code.co_posonlyargcount + code.co_argcount])
            notes = getattr(fn, "__annotations__", {}) or {}
            self._params = (names, {n for n in names if n in notes and _is_constant(notes[n])})
        return self._params

    def prepared(self, args):
        """(the launcher for these arguments, the arguments as it takes them): tuple arguments
        flattened into a variant of the kernel per nesting (tuple_args.py), else as they are."""
        from . import tuple_args
        key = tuple_args.structure(*self._tuple_params(), args) if any(type(a) is tuple for a in args) else None
        if key is None:
            if self._launcher is not None:
                return self._launcher, args
            try:
                return self.launcher(), args
            except (ShimTranslationError, CT.TileError) as refused:
                # refused with the ranks the kernel's text shows (or lacks): translated for the
                # launch's array ranks, as cuTile compiles it; its own refusal is the one raised
                names = self._tuple_params()[0]
                pins = {n: len(a.shape) for n, a in zip(names, args) if _is_array(a)}
                if not pins:
                    raise
                try:
                    return self._ranked(args, pins), args
                except (ShimTranslationError, CT.TileError) as e:
                    raise e.with_traceback(None) from e.__cause__
        launcher = self._variants.get(key)
        if launcher is None:
            try:
                built = build_source(self, CT, key)
            except ShimCaptureError as e:
                raise type(e)(f"{e} (cutile2triton shim, at the first launch of `{self._qualname}`)") from None
            launcher = self._variants[key] = getattr(translated_module(built, self._name), f"launch_{self._name}")
        return launcher, tuple_args.flatten(args, key)

    def _ranked(self, args, pins: dict):
        """The launcher of the kernel translated for these array ranks (`pins`, {parameter: rank}):
        a variant per rank signature, as cuTile compiles one per launch signature."""
        from . import tuple_args
        key = tuple_args.structure(*self._tuple_params(), args) if any(type(a) is tuple for a in args) else None
        vkey = (key, tuple(sorted(pins.items())))
        launcher = self._by_rank.get(vkey)
        if launcher is None:
            built = self._build() if key is None else build_source(self, CT, key)
            mod = translated_module(built, self._name, tuple(sorted(pins.items())))
            launcher = self._by_rank[vkey] = getattr(mod, f"launch_{self._name}")
        return launcher

    def check_args(self, args):
        """cuTile's launch-time checks of the arguments against the annotations (launch_args.py)."""
        from . import launch_args
        if self._arg_nodes is None:
            from .capture import _forwarded
            self._arg_nodes = launch_args.parameter_nodes(_forwarded(self._pyfunc), self._tuple_params()[0])
        launch_args.check(self._arg_nodes, args)

    def launch(self, stream, grid, args, pdl=False):
        self.check_args(args)
        launcher, flat = self.prepared(args)
        pins = {}
        while True:
            try:
                if pdl:
                    return launcher(grid, *flat, stream=stream, c2t_pdl=True)
                return launcher(grid, *flat, stream=stream)
            except ValueError as e:
                # an array of a rank other than the kernel's text shows (a rank-polymorphic kernel,
                # or a use cuTile refuses for this rank): the kernel translated for the launch's ranks
                more = {n: r for n, r in _rank_mismatch(e).items() if pins.get(n) != r}
                if not more:
                    err = cutile_error(e)
                    if err is None:
                        raise
                    raise err from e
                pins.update(more)
                launcher = self._ranked(args, pins)
            except Exception as e:
                err = cutile_error(e)
                if err is None:
                    raise
                raise err from e

    def __call__(self, *args, **kwargs):
        raise TypeError(f"`{self._name}` is a cuTile kernel: launch it with ct.launch(stream, grid, kernel, args)")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        # an AttributeError (as on cuTile's kernel objects, for names they lack): `getattr(k, name,
        # default)` and `hasattr` work; the message says what the shim serves
        raise AttributeError(f"kernel.{name} is not served by the cutile2triton shim "
                             "(it serves ct.launch, replace_hints and _pyfunc on kernel objects)")

    def __repr__(self):
        return f"<cuTile kernel {self._qualname} (cutile2triton shim)>"
