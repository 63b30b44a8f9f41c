"""Host imports of other cuTile modules: the translation would still call their cuTile originals.

`from pkg.splitk_reduce import splitk_reduce` in a cuTile module whose sibling defines kernels
stays as written in the translation, so the "Triton" module would launch a cuTile kernel there.
The translator cannot rewrite the import (the sibling's translation lives where the user puts it),
so it says so (C2T208). Only modules found next to the file (relative imports, or absolute ones
under one of the file's parent folders) are looked at; nothing is imported.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from .ir import nodes as N


def _module_file(filename: str, module: str, level: int):
    here = Path(filename)
    if not here.is_file():
        return None
    rel = Path(*module.split(".")) if module else Path()
    if level:
        base = here.parent
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        bases = list(here.parents)
    if not module:      # `from . import x` names modules, not a module's attributes (see below)
        return None
    for b in bases:
        for cand in (b / rel.with_suffix(".py"), b / rel / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def _defines_kernels(path: Path) -> bool:
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return False
    return _text_defines_kernels(text)


@functools.lru_cache(maxsize=256)
def _text_defines_kernels(text: str) -> bool:
    """Whether a module's text defines cuTile kernels (memoized: a package's modules import the
    same few siblings, TileGym's 119 cuda.tile files check 14 modules 181 times)."""
    from .analysis import analyze
    from .diagnostics import Reporter
    from .ir.build import build_module
    from .parse import parse
    if not _may_import_cuda(text):
        return False
    parsed = parse(text, Reporter("<sibling>"))
    return parsed is not None and bool(analyze(build_module(parsed)).kernels)


def _may_import_cuda(text: str) -> bool:
    """False only for a module that cannot define kernels: no `kernel` in it, or (by Python's
    own parser, far cheaper than the translator's) no import of `cuda` or `cuda.*` anywhere."""
    if "cuda" not in text or "kernel" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True         # (the translator's parser decides)
    if "__ct__" in text:    # (analysis's own name of cuda.tile)
        return True
    for n in ast.walk(tree):
        if isinstance(n, ast.Import) and any(a.name == "cuda" or a.name.startswith("cuda.") for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and not n.level and n.module and (
                n.module == "cuda" or n.module.startswith("cuda.")):
            return True
    return False


def check_cutile_imports(info, filename: str, rep) -> None:
    """C2T208 for each from-import of a name out of a module that defines cuTile kernels."""
    for st in info.module.body:
        if not (isinstance(st, N.Import) and st.module is not None) or st in info.ct_import_stmts:
            continue
        if not st.module:       # `from . import sub`: each name is a sibling module
            for name, alias in st.names:
                path = _module_file(filename, name, st.level)
                if path is not None and _defines_kernels(path):
                    rep.add("C2T208", f"module `{'.' * st.level + name}` imported here is a cuTile module (it "
                                      f"defines kernels): the translation still calls its cuTile originals "
                                      f"through `{alias or name}`", st.span)
            continue
        path = _module_file(filename, st.module, st.level)
        if path is None or not _defines_kernels(path):
            continue
        dotted = "." * st.level + st.module
        names = ", ".join(f"`{n[0]}`" for n in st.names)
        rep.add("C2T208", f"{names} imported from `{dotted}`, a cuTile module (it defines kernels): the "
                          f"translation still calls the cuTile original", st.span)
