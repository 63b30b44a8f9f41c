"""Lark loading (LALR, positions kept, grammar cached) and parse errors as diagnostics."""
from __future__ import annotations

import functools
import hashlib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from .diagnostics import Reporter, Span
from .paths import GRAMMAR_DIR

_NL = "_python__NEWLINE"


class _CutileIndenter(Indenter):
    NL_type = _NL
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_python__INDENT"
    DEDENT_type = "_python__DEDENT"
    tab_len = 8


@dataclass(frozen=True)
class Comment:
    line: int
    col: int
    text: str          # including the leading '#'
    own_line: bool     # nothing but blanks before it on its line


_COMMENTS: list[Token] = []


def _collect(tok: Token) -> Token:
    _COMMENTS.append(tok)
    return tok


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    grammar = (GRAMMAR_DIR / "cutile.lark").read_text()
    cache_dir = Path(tempfile.gettempdir()) / "cutile2triton-cache"
    cache_dir.mkdir(exist_ok=True)
    import lark
    digest = hashlib.sha256(grammar.encode()).hexdigest()[:16]     # stable across processes
    cache_file = cache_dir / f"cutile-{lark.__version__}-{digest}.lark-cache"
    return Lark(grammar, parser="lalr", postlex=_CutileIndenter(), propagate_positions=True,
                maybe_placeholders=True, cache=str(cache_file), lexer_callbacks={_NL: _collect})


_COMMENT_RE = re.compile(r"#[^\r\n]*")


@dataclass
class Parsed:
    tree: Tree
    comments: list[Comment]
    text: str


def parse(text: str, reporter: Reporter) -> Parsed | None:
    """Parse a whole module; on a syntax error report C2T002 and return None."""
    if not text.endswith("\n"):
        text += "\n"
    _COMMENTS.clear()
    try:
        tree = parser().parse(text)
    except UnexpectedInput as e:
        reporter.add("C2T002", _describe(e), Span(getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0))
        return None
    except LarkError as e:  # indentation errors etc.
        line = 0
        m = re.search(r"line (\d+)", str(e))
        if m:
            line = int(m.group(1))
        reporter.add("C2T002", f"cannot parse: {str(e).splitlines()[0]}", Span(line, 1))
        return None
    comments = _comments_from_tokens(list(_COMMENTS), text)
    _COMMENTS.clear()
    return Parsed(tree, comments, text)


def _comments_from_tokens(tokens: list[Token], text: str) -> list[Comment]:
    out: dict[tuple[int, int], Comment] = {}
    line_starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            line_starts.append(i + 1)
    for tok in tokens:
        base = tok.start_pos
        for m in _COMMENT_RE.finditer(str(tok)):
            pos = base + m.start()
            # line/col from the absolute position
            lo, hi = 0, len(line_starts) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if line_starts[mid] <= pos:
                    lo = mid
                else:
                    hi = mid - 1
            line, col = lo + 1, pos - line_starts[lo] + 1
            own = text[line_starts[lo]:pos].strip() == ""
            out[(line, col)] = Comment(line, col, m.group(0).rstrip(), own)
    # a comment on the very first line is not inside a NEWLINE token
    first = text.split("\n", 1)[0]
    if first.lstrip().startswith("#"):
        out.setdefault((1, 1 + len(first) - len(first.lstrip())),
                       Comment(1, 1 + len(first) - len(first.lstrip()), first.strip(), True))
    return [out[k] for k in sorted(out)]


def _describe(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            return "unexpected end of file"
        if tok.type.endswith("INDENT"):
            return "unexpected indentation"
        return f"unexpected token {str(tok)!r}"
    if isinstance(e, UnexpectedCharacters):
        return f"unexpected character {e.char!r}"
    if isinstance(e, UnexpectedEOF):
        return "unexpected end of file"
    return "invalid syntax"
