"""Import the original cuTile module and the translated Triton module from files."""
from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import re
import sys
import tempfile
from pathlib import Path

from ..interp_env import interpreter_env  # noqa: F401  (verify imports it from here)
from .errors import HarnessError

_counter = itertools.count()


@contextlib.contextmanager
def _on_sys_path(folder: Path):
    folder = str(folder)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        yield
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(folder)


def _unique_name(stem: str, tag: str) -> str:
    stem = re.sub(r"\W", "_", stem)
    return f"_c2t_{tag}_{stem}_{next(_counter)}"


def package_of(path: Path):
    """(folder above the package, dotted package name) when ``path`` is inside a package
    (its folder has __init__.py), else (None, None). Such files use relative imports."""
    parts, d = [], Path(path).resolve().parent
    while (d / "__init__.py").is_file():
        parts.insert(0, d.name)
        d = d.parent
    return (d, ".".join(parts)) if parts else (None, None)


def load_module(path, *, tag: str = "orig", search_dir: Path | None = None, package_from=None):
    """Import the Python file at ``path`` under a unique module name.

    The file's folder (or ``search_dir``) is on sys.path while it is imported, so sibling
    imports work.  A file inside a package (or, with ``package_from``, a translation of one) is
    imported as a module of that package, so its relative imports work.  The module stays in
    sys.modules (cuTile and Triton read kernel sources through inspect, which needs the module
    and its file).
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise HarnessError(f"no such file: {path}")
    name = _unique_name(path.stem, tag)
    root, pkg = package_of(Path(package_from) if package_from else path)
    if pkg:
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))          # kept: the package may import lazily later
        try:
            importlib.import_module(pkg)
        except BaseException as exc:              # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise HarnessError(f"importing package {pkg} (for {path.name}) failed: "
                               f"{type(exc).__name__}: {exc}") from exc
        name = f"{pkg}.{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise HarnessError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _on_sys_path(search_dir or path.parent):
            spec.loader.exec_module(module)
    except HarnessError:
        raise
    except BaseException as exc:          # noqa: BLE001 - report any import failure as bad input
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise HarnessError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
    return module


def translate(path) -> tuple[str, list[str]]:
    """Run the translator on ``path`` and return the Triton code, or raise HarnessError."""
    try:
        import translator
        translate_file = getattr(translator, "translate_file", None)
        if translate_file is None:       # package stubbed while its __init__ is being edited
            from translator.api import translate_file
    except Exception as exc:             # noqa: BLE001
        raise HarnessError(f"the translator could not be imported: {type(exc).__name__}: {exc}") from exc
    res = translate_file(str(path))
    if getattr(res, "code", None) is None:
        lines = [d.format() if hasattr(d, "format") else str(d) for d in getattr(res, "diagnostics", [])]
        raise HarnessError(f"the translator refused {path}:\n  " + ("\n  ".join(lines) or "(no diagnostics)"))
    return res.code, [d.format() for d in getattr(res, "diagnostics", []) if hasattr(d, "format")]


def resolve_translated(path, translated) -> tuple[str, list[str]]:
    """The translated code for ``path``: ``translated`` as code, a .py file path, or translate it."""
    if translated is None:
        return translate(path)
    if isinstance(translated, Path) or (isinstance(translated, str) and "\n" not in translated
                                        and translated.endswith(".py")):
        p = Path(translated)
        if not p.is_file():
            raise HarnessError(f"translated file not found: {p}")
        return p.read_text(), []
    if isinstance(translated, str):
        return translated, []
    raise HarnessError(f"translated= must be code or a .py path, got {type(translated).__name__}")


def load_translated(code: str, original_path, *, out_dir: str | None = None):
    """Write ``code`` to a real file (Triton needs inspect.getsource) and import it.

    Returns (module, file path).  The file is kept so users can read what ran.
    """
    original_path = Path(original_path).resolve()
    folder = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="c2t_verify_"))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{original_path.stem}_triton.py"
    target.write_text(code)
    module = load_module(target, tag="triton", search_dir=original_path.parent, package_from=original_path)
    return module, str(target)


def _defines_kernels(mod) -> bool:
    """Whether an imported module defines cuTile kernels (objects of cuda.tile's kernel type)."""
    return any(type(v).__module__.startswith("cuda.tile") and callable(v) and hasattr(v, "replace_hints")
               for v in vars(mod).values())


def _tile_helper(obj, mod) -> bool:
    """Whether `obj` is a plain function of a module that imports cuda.tile (a tile helper that
    other modules' kernels call, e.g. TileGym unsloth's ct_ops.erf_ct: its translation is a
    Triton helper)."""
    import types
    return isinstance(obj, types.FunctionType) and any(
        getattr(v, "__name__", "") == "cuda.tile" for v in vars(mod).values())


def rebind_cutile_imports(module, *, out_dir: str | None = None, _done: dict | None = None) -> list[str]:
    """Point names that the translated ``module`` imported from OTHER cuTile modules (e.g.
    ``from tilegym.ops.cutile.splitk_reduce import splitk_reduce``) at the translations of those
    modules, translated here on the fly, so no cuTile kernel runs inside the "Triton" side.
    Returns one note per rebound name; raises HarnessError when such a module does not translate."""
    import types
    done = {} if _done is None else _done
    notes = []
    for name, obj in list(vars(module).items()):
        if not isinstance(obj, (types.FunctionType, type)) or obj.__module__ == module.__name__:
            continue
        src_mod = sys.modules.get(obj.__module__)
        src = getattr(src_mod, "__file__", None)
        kernels = src is not None and _defines_kernels(src_mod)
        if not src or not (kernels or _tile_helper(obj, src_mod)):
            continue
        if src not in done:
            try:
                code, _ = translate(src)
            except HarnessError:
                if kernels:
                    raise
                done[src] = None    # a module of tile helpers that does not translate: noted below
            else:
                dep, dep_file = load_translated(code, src, out_dir=out_dir)
                done[src] = dep
                notes += rebind_cutile_imports(dep, out_dir=out_dir, _done=done)
        if done[src] is None:
            notes.append(f"`{name}` (imported from {obj.__module__}, which did not translate) is left as "
                         "the original")
            continue
        new = getattr(done[src], getattr(obj, "__name__", name), None)
        if not kernels and not any(c.__name__ == "KernelInterface" for c in type(new).__mro__):
            continue        # a host function of a module without kernels: the original is the same
        if new is None:
            raise HarnessError(f"{module.__name__} imports {name} from {obj.__module__}, a cuTile module whose "
                               f"translation has no {obj.__name__!r}")
        setattr(module, name, new)
        notes.append(f"`{name}` (imported from cuTile module {obj.__module__}) rebound to its translation")
    return notes


