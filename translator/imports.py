"""Host imports of other cuTile modules: the translation would still call their cuTile originals.

`from pkg.splitk_reduce import splitk_reduce` in a cuTile module whose sibling defines kernels
stays as written in the translation, so the "Triton" module would launch a cuTile kernel there.
The translator cannot rewrite the import (the sibling's translation lives where the user puts it),
so it says so (C2T208). Only modules found next to the file (relative imports, or absolute ones
under one of the file's parent folders) are looked at; nothing is imported.
"""
from __future__ import annotations

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
    from .analysis import analyze
    from .diagnostics import Reporter
    from .ir.build import build_module
    from .parse import parse
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return False
    if "cuda" not in text or "kernel" not in text:
        return False
    parsed = parse(text, Reporter(str(path)))
    return parsed is not None and bool(analyze(build_module(parsed)).kernels)


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
