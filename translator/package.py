"""`cutile2triton DIR -o OUTDIR`: translate every Python file of a package (a folder tree).

Modules of one package call each other: kernels call tile helpers imported from sibling modules
(C2T205), host code imports launchers. Translating the whole tree into OUTDIR (same relative
paths) gives the translated modules each other to import. Files without cuda.tile are copied as
they are (the translator returns them unchanged); refused files are reported and not written.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .api import Options, translate_file


def python_files(root: Path) -> list:
    """The .py files under `root`, sorted, without hidden folders and __pycache__."""
    return sorted(p for p in root.rglob("*.py")
                  if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(root).parts))


def translate_tree(src: Path, out: Path, *, strict: bool = False, quiet: bool = False, check: bool = False,
                   report: str | None = None, compile_check=None) -> int:
    """Translate (or with `check`, compare) every file; returns the exit status: 2 when a file was
    refused, 1 when --check found a difference or --strict a warning, else 0."""
    files = python_files(src)
    if not files:
        print(f"cutile2triton: no .py files under {src}", file=sys.stderr)
        return 2
    refused, stale, warned, kernels, results = [], [], 0, 0, []
    for i, path in enumerate(files, 1):
        rel = path.relative_to(src)
        res = translate_file(path, Options(strict=strict, source_name=str(path), check=compile_check))
        results.append(res.as_dict())
        for d in res.diagnostics:
            if not quiet or d.severity == "error":
                print(d.format(), file=sys.stderr)
        target = out / rel
        if res.code is None:
            refused.append(str(rel))
            status = "REFUSED"
        elif check:
            same = target.exists() and target.read_text() == res.code
            if not same:
                stale.append(str(rel))
            status = "up to date" if same else "OUT OF DATE"
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(res.code)
            status = f"{len(res.kernels)} kernel(s)" if res.kernels else "written"
        warned += bool(res.warnings)
        kernels += len(res.kernels)
        if not quiet:
            print(f"[{i}/{len(files)}] {rel}: {status}", file=sys.stderr)
    if report:
        Path(report).write_text(json.dumps(results, indent=2) + "\n")
    done = len(files) - len(refused)
    print(f"cutile2triton: {src} -> {out}: {done} of {len(files)} files "
          f"{'checked' if check else 'written'} ({kernels} kernels), {len(refused)} refused"
          + (f": {', '.join(refused)}" if refused else "")
          + (f"; out of date: {', '.join(stale)}" if stale else ""), file=sys.stderr)
    if refused:
        return 2
    return 1 if stale or (strict and warned) else 0
