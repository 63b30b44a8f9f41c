"""Inline suppression: `# c2t: ignore[C2T202]` on the line of a diagnostic's site (like ruff's
`# noqa: CODE`). `# c2t: ignore` with no codes silences every note and warning of its line; a code
may be a prefix (`C2T2` is every C2T2xx). Errors are never silenced: they say what the output
lacks (a stand-in raises where a refused kernel is used), so hiding them would hide that."""
from __future__ import annotations

import io
import re
import tokenize

from .diagnostics import ERROR

_DIRECTIVE = re.compile(r"#\s*c2t:\s*ignore(?:\[([^\]]*)\])?", re.I)


def _comments(text: str):
    """(line, comment text) of each comment; a file that does not tokenize: each `#` of a line."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.start[0], tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        for n, line in enumerate(text.splitlines(), 1):
            if "#" in line:
                yield n, line[line.index("#"):]


def inline_ignores(text: str) -> dict:
    """line -> the codes its `# c2t: ignore[...]` names (a tuple), or None for every code."""
    out: dict = {}
    if "c2t:" not in text.lower():
        return out
    for line, comment in _comments(text):
        for m in _DIRECTIVE.finditer(comment):
            if m.group(1) is None:
                out[line] = None
            elif out.get(line, ()) is not None:
                codes = tuple(c.strip().upper() for c in m.group(1).split(",") if c.strip())
                out[line] = out.get(line, ()) + codes
    return out


def matches(code: str, patterns) -> bool:
    """`code` is one of `patterns` or starts with one (C2T2 matches C2T201)."""
    return any(code.startswith(p) for p in patterns)


def split(diagnostics: list, ignores: dict) -> tuple[list, list]:
    """(kept, suppressed): the notes and warnings whose line's directive names their code go to
    the second list; errors always stay."""
    if not ignores:
        return list(diagnostics), []
    kept, gone = [], []
    for d in diagnostics:
        codes = ignores.get(d.line, ())
        hit = d.line in ignores and (codes is None or matches(d.code, codes))
        (gone if hit and d.severity != ERROR else kept).append(d)
    return kept, gone
