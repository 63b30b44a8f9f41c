"""`cutile2triton DIR -o OUTDIR`: translate every Python file of a package (a folder tree).

Modules of one package call each other: kernels call tile helpers imported from sibling modules
(C2T205), host code imports launchers. Translating the whole tree into OUTDIR (same relative
paths) gives the translated modules each other to import. Files without cuda.tile are copied as
they are (the translator returns them unchanged); partial translations are written with stand-ins
(translator/partial.py), and a file that cannot be translated at all becomes a stand-in module,
so that the package always imports.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .api import Options, translate_file


def _translations(files: list, options: list, jobs: int):
    """translate_file of each file, in order: in this process, or in `jobs` worker processes (each
    file one task, so a large module does not hold up a batch of others)."""
    if jobs <= 1 or len(files) <= 1:
        yield from map(translate_file, files, options)
        return
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        yield from pool.map(translate_file, files, options)


def python_files(root: Path) -> list:
    """The .py files under `root`, sorted, without hidden folders and __pycache__."""
    return sorted(p for p in root.rglob("*.py")
                  if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(root).parts))


def translate_tree(src: Path, out: Path, *, strict: bool = False, quiet: bool = False, check: bool = False,
                   report: str | None = None, compile_check=None, jobs: int = 1) -> int:
    """Translate (or with `check`, compare) every file; returns the exit status: 1 when a file was
    written with parts not translated (partial translation or a stand-in module), --check found a
    difference or --strict a warning, else 0. The package written always imports: a file that cannot
    be translated at all becomes a module whose names are stand-ins that raise when used.
    `jobs` > 1: the files are translated by that many processes; what is written and printed, and
    in which order, is the same as with one (results are taken in the files' order)."""
    from . import partial
    from .api import _version
    files = python_files(src)
    if not files:
        print(f"cutile2triton: no .py files under {src}", file=sys.stderr)
        return 2
    partly, stood_in, stale, warned, kernels, results = [], [], [], 0, 0, []
    options = [Options(strict=strict, source_name=str(path), check=compile_check) for path in files]
    for i, (path, res) in enumerate(zip(files, _translations(files, options, jobs)), 1):
        rel = path.relative_to(src)
        results.append(res.as_dict())
        for d in res.diagnostics:
            if not quiet or d.severity == "error":
                print(d.format(), file=sys.stderr)
        code = res.code
        if code is None:
            code = partial.module_stub(_version(), str(path), res.diagnostics, _text(path))
            stood_in.append(str(rel))
            status = "NOT TRANSLATED (written as a stand-in module)"
        elif res.partial:
            partly.append(f"{rel}" + (f" (kernels {', '.join(res.stubs)})" if res.stubs else ""))
            status = "PARTIAL" + (f" (stand-ins: {', '.join(res.stubs)})" if res.stubs else " (host names stand in)")
        else:
            status = f"{len(res.kernels)} kernel(s)" if res.kernels else "written"
        target = out / rel
        if check:
            same = target.exists() and target.read_text() == code
            if not same:
                stale.append(str(rel))
            status = ("up to date" if same else "OUT OF DATE") + ("" if res.ok else f"; {status}")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(code)
        warned += bool(res.warnings)
        kernels += len(res.kernels)
        if not quiet:
            print(f"[{i}/{len(files)}] {rel}: {status}", file=sys.stderr)
    if report:
        Path(report).write_text(json.dumps(results, indent=2) + "\n")
    whole = len(files) - len(partly) - len(stood_in)
    print(f"cutile2triton: {src} -> {out}: {len(files)} files {'checked' if check else 'written'} ({kernels} kernels): "
          f"{whole} translated, {len(partly)} partly"
          + (f" ({'; '.join(partly)})" if partly else "")
          + f", {len(stood_in)} not at all (stand-in modules)"
          + (f": {', '.join(stood_in)}" if stood_in else "")
          + (f"; out of date: {', '.join(stale)}" if stale else ""), file=sys.stderr)
    if partly or stood_in:
        print("cutile2triton: the package imports; what was not translated raises NotImplementedError "
              "when used (the errors above say why)", file=sys.stderr)
    return 1 if partly or stood_in or stale or (strict and warned) else 0


def _text(path: Path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
