"""`cutile2triton survey PATH...`: translate every .py file under the paths and report, per
file and per kernel, what translates and why the rest is refused (Markdown or JSON).

Kernels the translator cannot see as `@ct.kernel` functions (at module level, under module-level
`if`/`try`, or inside functions; not those built from source strings or defined in classes) are
counted from the text, so the totals say how much of a corpus the table covers.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from .api import translate_file

_KERNEL_TEXT = re.compile(r"^\s*@\s*(?:ct|cuda\.tile)\.kernel\b", re.M)
_IDENTS = re.compile(r"`[^`]*`")


_CHECK_CODES = ("C2T005", "C2T110", "C2T215", "C2T216")


def _parses(code) -> bool:
    if code is None:
        return False
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def _reason(d) -> str:
    """A diagnostic message with names blanked, so equal causes group together."""
    return f"{d.code} {_IDENTS.sub('`…`', d.message)}"


def survey(paths, progress=True) -> dict:
    files = []
    for p in map(Path, paths):
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    rows, reasons, examples, t0 = [], Counter(), {}, time.perf_counter()
    for i, f in enumerate(files, 1):
        text = f.read_text(errors="replace")
        in_text = len(_KERNEL_TEXT.findall(text))
        res = translate_file(f)
        codes = {d.code for d in res.diagnostics}
        if "C2T001" in codes:
            continue
        errors = [d for d in res.diagnostics if d.severity == "error"]
        kernels = []
        for k in res.kernels:
            first = next((d for d in errors if k.line - 2 <= d.line), None) if not k.translated else None
            kernels.append({"name": k.name, "line": k.line, "translated": k.translated,
                            "reason": _reason(first) if first else ""})
            if first:
                reasons[_reason(first)] += 1
                examples.setdefault(_reason(first), f"{f.name}:{first.line}: {first.message}")
        host_errors = [d for d in errors if not any(k["reason"] == _reason(d) for k in kernels)]
        status = "whole" if res.ok else "partial" if res.partial else "refused"
        rows.append({"file": str(f), "ok": res.ok, "status": status, "kernels_in_text": in_text,
                     "kernels": kernels, "stubs": list(res.stubs), "parses": _parses(res.code),
                     "check": sorted(d.code for d in res.diagnostics if d.code in _CHECK_CODES),
                     "host_errors": [_reason(d) for d in host_errors][:5]})
        if progress:
            print(f"[{i}/{len(files)}] {f}: {status}", file=sys.stderr)
    seen = sum(len(r["kernels"]) for r in rows)
    return {
        "files": len(rows), "files_ok": sum(r["ok"] for r in rows),
        "kernels_in_text": sum(r["kernels_in_text"] for r in rows),
        "kernels_seen": seen,
        "kernels_translated": sum(k["translated"] for r in rows for k in r["kernels"]),
        "status": dict(Counter(r["status"] for r in rows)),
        "written_not_parsing": [r["file"] for r in rows if r["status"] != "refused" and not r["parses"]],
        "kernels_stubbed": sum(len(r["stubs"]) for r in rows),
        "check": dict(Counter(c for r in rows for c in r["check"])),
        "check_files": {c: sorted({Path(r["file"]).name for r in rows if c in r["check"]}) for c in _CHECK_CODES},
        "reasons": reasons.most_common(), "examples": examples, "rows": rows,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def to_markdown(s: dict) -> str:
    out = ["# cutile2triton survey", "",
           f"- files with cuTile code: {s['files']} ({s['files_ok']} translate whole)",
           f"- `@ct.kernel` decorators in the text: {s['kernels_in_text']}; kernels the translator sees: "
           f"{s['kernels_seen']} (module level and inside functions; the rest are in classes or source strings)",
           f"- kernels that translate: {s['kernels_translated']} of {s['kernels_seen']}",
           f"- files: {s['status'].get('whole', 0)} translated whole, {s['status'].get('partial', 0)} partly "
           f"({s['kernels_stubbed']} kernels as stand-ins), {s['status'].get('refused', 0)} refused; "
           f"written but not valid Python: {len(s['written_not_parsing'])}",
           "- the translation check (diagnostics): " + (", ".join(
               f"{c} x{n} ({', '.join(s['check_files'][c][:6])}{', ...' if len(s['check_files'][c]) > 6 else ''})"
               for c, n in sorted(s["check"].items())) or "no findings"),
           f"- time: {s['seconds']} s", "", "## Why kernels are refused", "",
           "| kernels | first diagnostic | example |", "| --- | --- | --- |"]
    out += [f"| {n} | {r} | {s['examples'].get(r, '')[:140].replace('|', '/')} |" for r, n in s["reasons"]]
    out += ["", "## Files", "", "| file | whole file | kernels translated | refused (first reason) |",
            "| --- | --- | --- | --- |"]
    for r in s["rows"]:
        ok = sum(k["translated"] for k in r["kernels"])
        bad = "; ".join(f"{k['name']}: {k['reason'][:7]}" for k in r["kernels"] if not k["translated"])
        if not bad and r["host_errors"]:
            bad = "host: " + r["host_errors"][0]
        out.append(f"| {Path(r['file']).name} | {'yes' if r['ok'] else 'no'} | {ok}/{len(r['kernels'])} | "
                   f"{bad.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="cutile2triton survey",
                                description="Translate every .py file under PATH and report what translates.")
    p.add_argument("paths", nargs="+")
    p.add_argument("--json", metavar="OUT", help="write the survey as JSON")
    p.add_argument("--md", metavar="OUT", help="write the survey as Markdown (default: stdout)")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-file progress")
    a = p.parse_args(argv)
    missing = [x for x in a.paths if not Path(x).exists()]
    if missing:
        print(f"cutile2triton survey: no such path: {', '.join(missing)}", file=sys.stderr)
        return 2
    s = survey(a.paths, progress=not a.quiet)
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1) + "\n")
    md = to_markdown(s)
    if a.md:
        Path(a.md).write_text(md)
    elif not a.json:
        sys.stdout.write(md)
    return 0
