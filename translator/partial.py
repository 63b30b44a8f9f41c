"""Partial translation: a construct that cannot be translated refuses the kernel it is in, not the
module. The module is written with everything else translated; a refused kernel becomes a stand-in
whose launch raises NotImplementedError quoting the diagnostic, and host uses of cuda.tile names
that are not translated read stand-ins that raise when called (templates/placeholders.py.j2).
A module that cannot be translated at all becomes, in folder mode, a module whose every name is
such a stand-in (`module_stub`), so that the package around it still imports."""
from __future__ import annotations

import re

from . import emit
from .analysis import CT_MODULE
from .diagnostics import ERROR
from .helper_sets import _callees
from .host import Edit


def reason(diags: list) -> str:
    """The first error of `diags`, as the message a stand-in raises."""
    d = next((d for d in diags if d.severity == ERROR), diags[0])
    return f"{d.code} at line {d.line}: {d.message}"


def helper_reach(info, kernels: dict) -> dict:
    """helper name -> the kernels (of `kernels`) that reach it through calls."""
    reach: dict = {}
    for name, fd in kernels.items():
        for h in _callees(info, [fd], set()):
            reach.setdefault(h, set()).add(name)
    return reach


def _holds(fd, line: int) -> bool:
    return fd.full_span.line <= line <= fd.span.end_line


def owners(diag, info, kernels: dict, reach: dict) -> set:
    """The kernels a lowering error belongs to: the kernel whose text holds its line, or those
    that reach the helper whose text holds it; empty when it is in neither (a module-level error)."""
    for name, fd in kernels.items():
        if _holds(fd, diag.line):
            return {name}
    for h, ks in reach.items():
        fd = info.functions.get(h)
        if fd is not None and _holds(fd, diag.line):
            return set(ks)
    return set()


def kernel_stub(name: str, fd, diags: list) -> Edit:
    """The refused kernel's text (decorators included) -> a stand-in whose launch raises."""
    why = reason(diags)
    text = (f"# cutile2triton did not translate kernel `{name}` ({why.split(':')[0]}); launching it raises\n"
            f"{name} = _C2TUntranslatedKernel({name!r}, {why!r})")
    return Edit(fd.full_span.start, fd.full_span.end, text, block=True)


def helper_stub(name: str, fd, why: str) -> Edit:
    message = repr(f"cutile2triton did not translate `{name}`: {why}")
    return Edit(fd.full_span.start, fd.full_span.end,
                emit.render("untranslated.py.j2", fn=name, message=message), block=True)


_CT_NAME = re.compile(r"`ct\.([A-Za-z_]\w*)")


def placeholder_block(info, host_errors: list) -> str:
    """The stand-in classes, and (where host code uses cuda.tile names that are not translated)
    the module's cuda.tile aliases bound to stand-ins that raise, each name with its diagnostic."""
    details: dict = {}
    bindings = []
    if host_errors:
        for d in host_errors:
            for name in _CT_NAME.findall(d.message):
                details.setdefault(name, f"{d.code} at line {d.line}: {d.message}")
        for st in info.ct_import_stmts:
            for name, alias in st.names:
                if st.module is None and name == CT_MODULE:
                    bindings.append((alias or "cuda", "cuda.tile" if alias else "cuda", None))
                elif st.module is None and name.startswith(CT_MODULE + "."):
                    # `import cuda.tile._cext as _cext` (without `as`: `cuda`, as above)
                    bindings.append((alias, name, None) if alias else ("cuda", "cuda", None))
                elif st.module == "cuda" and name == "tile":
                    bindings.append((alias or "tile", "cuda.tile", None))
                elif st.module is not None and st.module.startswith(CT_MODULE):
                    bindings.append((alias or name, f"{st.module}.{name}", name))
    generic = "see the diagnostics printed when this module was translated"
    return emit.render("placeholders.py.j2", bindings=sorted(set(bindings), key=str), details=sorted(details.items()),
                       generic=generic)


def module_stub(version: str, source: str, diags: list, text: str = None) -> str:
    """A module that could not be translated at all: it imports, and each of its names (the
    top-level names of `text`, where it parses; else any name) is a stand-in that raises when
    called, quoting the first error. Other names are an AttributeError, as in any module
    (pytest reads `pytest_plugins` and such with getattr)."""
    errors = [d for d in diags if d.severity == ERROR] or diags
    return emit.format_module(emit.render(
        "module_stub.py.j2", version=version, source=source, message=repr(reason(errors)) if errors else "''",
        lines=[d.format() for d in errors[:20]], more=max(0, len(errors) - 20), names=top_level_names(text),
        placeholders=emit.render("placeholders.py.j2", bindings=[], details=[], generic="")))


def top_level_names(text: str):
    """The names a module's top level binds (defs, classes, assignments, imports), sorted; None
    when `text` is None or does not parse. (Parsed with ast, never run.)"""
    import ast
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names = set()
    for st in tree.body:
        for n in ast.walk(st) if isinstance(st, (ast.If, ast.Try)) else [st]:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    names.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in n.names if a.name != "*")
    return sorted(names)
