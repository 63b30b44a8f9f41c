"""What the `cutile2triton` command prints about diagnostics, and its JSON report.

- `--select` / `--ignore` (codes or prefixes: `C2T2` is every C2T2xx) choose the notes and
  warnings reported; errors are always reported (they say what the output lacks).
- One line per code per site: the messages of one code at one place are joined on one line.
- A note or warning repeated with the same message is one line at its first site, with the count
  and the other lines (`(12 sites; also lines 112, 148, ...)`) or files.
- Notes ask for nothing: they are printed after the errors and warnings of the run, one line per
  code per file (its first note, counting the others); the JSON report has each.
- Messages longer than MESSAGE_CAP characters are cut on the terminal (not in the JSON report).
- A hint is printed the first time it is met in a run; `cutile2triton --explain CODE` says more.
- A closing summary counts the diagnostics by code (and, for several files, names the files with
  errors or warnings).
"""
from __future__ import annotations

import sys
from collections import Counter

from .diagnostics import CATALOG, ERROR, INFO, WARNING
from .suppress import matches

SCHEMA_VERSION = 1          # of the --json report: bump when a key changes meaning or goes away
_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}
_WORD = {ERROR: "error", WARNING: "warning", INFO: "note"}
MESSAGE_CAP = 300           # characters of a message on the terminal (the JSON report has it all)


def parse_codes(values) -> tuple:
    """--select/--ignore values (repeatable, comma-separated) -> code prefixes, upper case.
    Raises ValueError naming a value that is no prefix of a catalog code."""
    out = []
    for v in values or ():
        for c in v.split(","):
            c = c.strip().upper()
            if not c:
                continue
            if not any(code.startswith(c) for code in CATALOG):
                raise ValueError(f"{c!r} is not a diagnostic code or a prefix of one (C2T001 ... C2T217; "
                                 "`cutile2triton --explain C2T2` lists them)")
            out.append(c)
    return tuple(out)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def short_list(names, limit: int = 5) -> str:
    """`a, b, c and 4 more`: a list that does not grow a line without bound."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


class Printer:
    """Prints each file's diagnostics (folded) as it comes, and the summary at the end."""

    def __init__(self, stream=None, *, select=(), ignore=(), quiet=False):
        self.stream = stream if stream is not None else sys.stderr
        self.select, self.ignore, self.quiet = tuple(select), tuple(ignore), quiet
        self.hints_shown: set = set()
        self.by_code: Counter = Counter()          # code -> diagnostics reported
        self.by_file: dict = {}                    # file -> Counter of severities
        self.suppressed = 0
        self.notes: list = []                      # notes of the run, printed by finish()
        self.code_sevs: dict = {}                  # code -> the severities it was reported with

    def wanted(self, d) -> bool:
        if d.severity == ERROR:
            return True
        if self.select and not matches(d.code, self.select):
            return False
        return not matches(d.code, self.ignore)

    def split(self, res):
        """(reported, suppressed) diagnostics of a result: --select/--ignore and `# c2t: ignore`."""
        kept = [d for d in res.diagnostics if self.wanted(d)]
        gone = [d for d in res.diagnostics if not self.wanted(d)] + list(res.suppressed)
        return kept, gone

    def warnings(self, res) -> int:
        """Warnings reported for `res` (what --strict counts)."""
        return sum(d.severity == WARNING for d in self.split(res)[0])

    def file(self, res, name: str | None = None):
        """Count `res`'s diagnostics; print its errors and warnings (notes wait for finish()).
        `name`: the file's name in the summary (a folder's files: relative to it)."""
        kept, gone = self.split(res)
        self.suppressed += len(gone)
        counts = self.by_file.setdefault(name or res.filename, Counter())
        for d in kept:
            self.by_code[d.code] += 1
            self.code_sevs.setdefault(d.code, set()).add(d.severity)
            counts[d.severity] += 1
        if not self.quiet:
            self.notes.extend(d for d in kept if d.severity == INFO)
        shown = [d for d in kept if d.severity == ERROR or (d.severity == WARNING and not self.quiet)]
        for line in self.lines(shown):
            print(line, file=self.stream)

    def lines(self, diags: list) -> list:
        """Folded lines: one per code per site (its messages joined); a note or warning repeated
        with the same message, one line at its first site that counts the others."""
        sites: dict = {}
        for d in diags:
            sites.setdefault((d.filename, d.line, d.col, d.code, d.severity), []).append(d)
        entries = []
        for (fn, line, col, code, sev), ds in sites.items():
            msg = "; ".join(dict.fromkeys(d.message for d in ds))
            hints = tuple(dict.fromkeys(d.hint for d in ds if d.hint))
            entries.append((fn, line, col, code, sev, msg, hints, []))
        folded, first = [], {}
        for e in entries:
            key = (e[3], e[4], e[5], e[6])
            if e[4] != ERROR and key in first:
                first[key][7].append(e)
                continue
            first[key] = e
            folded.append(e)
        folded = _cap_notes(folded)
        out = []
        for fn, line, col, code, sev, msg, hints, more, suffix in folded:
            if len(msg) > MESSAGE_CAP:
                msg = msg[:MESSAGE_CAP].rstrip() + " ... (--json REPORT has the whole message)"
            text = f"{fn}:{line}:{col}: {sev} {code}: {msg}{suffix}"
            if more:
                files = list(dict.fromkeys(m[0] for m in more if m[0] != fn))
                if files:
                    text += (f" ({len(more) + 1} sites in {len(files) + 1} files; also "
                             f"{short_list(files, 3)})")
                else:
                    others = sorted(set(m[1] for m in more))
                    text += (f" ({len(more) + 1} sites; also line{'s' if len(others) > 1 else ''} "
                             f"{short_list(map(str, others), 8)})")
            new = [h for h in hints if (code, h) not in self.hints_shown]
            self.hints_shown.update((code, h) for h in new)
            if new:
                text += f" (hint: {'; '.join(new)})"
            out.append(text)
        return out

    def finish(self, several: bool):
        """The notes (folded over the whole run: they ask for nothing), then the summary."""
        for line in self.lines(self.notes):
            print(line, file=self.stream)
        self.notes = []
        self.summary(several)

    def summary(self, several: bool):
        """The closing lines: diagnostics by code, and for several files the files with errors or
        warnings. Nothing when nothing was reported; under -q only the errors."""
        sev = Counter()
        for c in self.by_file.values():
            sev.update(c)
        if self.quiet and not sev[ERROR]:
            return
        if not self.by_code:
            if self.suppressed:
                print(f"cutile2triton: {_plural(self.suppressed, 'diagnostic')} suppressed "
                      "(--select/--ignore, `# c2t: ignore[...]`)", file=self.stream)
            return
        shown = (ERROR,) if self.quiet else (ERROR, WARNING, INFO)
        codes = sorted((c for c in self.by_code if self.code_sevs[c] & set(shown)),
                       key=lambda c: (min(_ORDER[s] for s in self.code_sevs[c]), -self.by_code[c], c))
        parts = [_plural(sev[s], _WORD[s]) for s in shown if sev[s]]
        files = sum(1 for c in self.by_file.values() if any(c[s] for s in shown))
        head = f"cutile2triton: {', '.join(parts)}" + (f" in {_plural(files, 'file')}" if several else "")
        if self.suppressed:
            head += f" ({self.suppressed} suppressed)"
        print(head + "; by code (`cutile2triton --explain CODE` says what each means and what to do):",
              file=self.stream)
        for c in codes:
            print(f"  {c} {self.by_code[c]:>5}  {CATALOG[c][1]}", file=self.stream)
        if several:
            notable = [(fn, c) for fn, c in self.by_file.items() if c[ERROR] or (c[WARNING] and not self.quiet)]
            if notable:
                print("cutile2triton: files with " + ("errors:" if self.quiet else "errors or warnings:"),
                      file=self.stream)
                for fn, c in notable:
                    print(f"  {fn}: " + ", ".join(_plural(c[s], _WORD[s]) for s in shown[:2] if c[s]),
                          file=self.stream)


def _cap_notes(entries: list) -> list:
    """One line per note code per file: its first note, and a count of the others with their lines
    (notes ask for nothing; the JSON report has each). Entries: (..., suffix) appended."""
    groups: dict = {}
    for e in entries:
        if e[4] == INFO:
            groups.setdefault((e[0], e[3]), []).append(e)
    out = []
    for e in entries:
        if e[4] != INFO:
            out.append(e + ("",))
            continue
        group = groups[(e[0], e[3])]
        if group[0] is not e:
            continue
        rest = group[1:]
        suffix = ""
        if rest:
            lines = sorted({r[1] for r in rest} | {m[1] for r in rest for m in r[7] if m[0] == e[0]})
            sites = sum(1 + sum(m[0] == e[0] for m in r[7]) for r in rest)
            suffix = f" (and {_plural(sites, 'other note')} {e[3]} here: line{'s' if len(lines) > 1 else ''} " \
                     f"{short_list(map(str, lines), 8)})"
        out.append(e + (suffix,))
    return out


def json_report(results: list, printer: Printer, **totals) -> dict:
    """The --json report: schema version, one entry per file (Result.as_dict, the diagnostics
    --select/--ignore left out moved to "suppressed"), and totals."""
    from .api import _version
    files, sev, by_code, suppressed = [], Counter(), Counter(), 0
    for res in results:
        kept, gone = printer.split(res)
        entry = res.as_dict()
        entry["diagnostics"] = [d.as_dict() for d in kept]
        entry["suppressed"] = [d.as_dict() for d in gone]
        files.append(entry)
        sev.update(d.severity for d in kept)
        by_code.update(d.code for d in kept)
        suppressed += len(gone)
    return {"schema": SCHEMA_VERSION, "tool": f"cutile2triton {_version()}", "files": files,
            "totals": {"files": len(results),
                       "translated": sum(r.ok for r in results),
                       "partial": sum(r.partial for r in results),
                       "refused": sum(r.code is None for r in results),
                       "kernels": sum(len(r.kernels) for r in results),
                       "errors": sev[ERROR], "warnings": sev[WARNING], "notes": sev[INFO],
                       "suppressed": suppressed, "by_code": dict(sorted(by_code.items())), **totals}}
