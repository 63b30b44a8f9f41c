"""Lark loading (LALR, positions kept, grammar cached) and parse errors as diagnostics."""
from __future__ import annotations

import bisect
import functools
import gc
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from .diagnostics import Reporter, Span
from .lalr import PTree, Runtime, Tok
from .cache_dir import open_private, write_private
from .cache_dir import private_cache_dir as cache_dir
from .paths import GRAMMAR_DIR

_NL = "_python__NEWLINE"


class _CutileIndenter(Indenter):
    NL_type = _NL
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_python__INDENT"
    DEDENT_type = "_python__DEDENT"
    tab_len = 8

    def process(self, stream):
        if not any(_PY310.values()):        # (most modules: no token to rewrite)
            return super().process(stream)
        return _rewrite_310(super().process(stream))


# Python 3.10 forms that Lark's bundled Python 3 grammar lacks, and that LALR(1) cannot take as
# grammar rules (`with (` starts both a parenthesized expression and parenthesized context
# managers): `with (a as b, c as d):` and `match a, b:`. parse() finds them with Python's own
# tokenizer and the token stream is rewritten to the forms the grammar has: the parentheses (and
# a trailing comma) of the `with` dropped (the newlines inside them are gone already: the
# indenter saw the parentheses), the `match` subject put in parentheses; and a statement that
# starts with the name `match` but is no match statement, `match[k] = v`, gets it as a name.
# Only token positions are used, so the source text (which host code is copied from) is untouched.
_PY310 = {"drop": set(), "open": set(), "close": set(), "name": set()}   # character offsets, set per parse


def _rewrite_310(tokens):
    """Lark's token stream rewritten (its Tokens); _rewrite_310_toks is the same for the runtime's."""
    drop, opens, closes = _PY310["drop"], _PY310["open"], _PY310["close"]
    for tok in tokens:
        pos = tok.start_pos
        if pos in opens and tok.type not in (_NL, "_python__INDENT", "_python__DEDENT"):
            opens.discard(pos)
            yield Token.new_borrow_pos("LPAR", "(", tok)
        if pos in closes and tok.type == "COLON":
            closes.discard(pos)
            yield Token.new_borrow_pos("RPAR", ")", tok)
        if pos in drop and tok.type in ("LPAR", "RPAR", "COMMA"):
            continue
        if pos in _PY310["name"] and tok.type == "MATCH":
            tok = Token.new_borrow_pos("python__NAME", tok.value, tok)
        yield tok


def _rewrite_310_toks(tokens):
    drop, opens, closes, names = _PY310["drop"], _PY310["open"], _PY310["close"], _PY310["name"]
    for tok in tokens:
        pos = tok.start
        if pos in opens and tok.type not in (_NL, "_python__INDENT", "_python__DEDENT"):
            opens.discard(pos)
            yield Tok("LPAR", "(", tok.start, tok.end)
        if pos in closes and tok.type == "COLON":
            closes.discard(pos)
            yield Tok("RPAR", ")", tok.start, tok.end)
        if pos in drop and tok.type in ("LPAR", "RPAR", "COMMA"):
            continue
        if pos in names and tok.type == "MATCH":
            tok = Tok("python__NAME", tok.value, tok.start, tok.end)
        yield tok


# what a module needs for _plan_310 to find anything: `with` before `(` (a backslash continuation
# between them), or `match` first on a line; Python's tokenizer runs only then (two searches, each
# led by its word: one alternation of both tried them at every character)
_WITH_PAREN = re.compile(r"with[\s\\]*\(")
_MATCH_LINE = re.compile(r"^[ \t\f]*match\b", re.M)


def _plan_310(text: str) -> None:
    """Find parenthesized `with` items and tuple `match` subjects (see _PY310)."""
    import io
    import tokenize
    for v in _PY310.values():
        v.clear()
    drop = _PY310["drop"]
    if not (_WITH_PAREN.search(text) or ("match" in text and _MATCH_LINE.search(text))):
        return
    starts = line_starts(text)
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return          # the parser reports what is wrong

    def off(t):
        return starts[t.start[0] - 1] + t.start[1]

    def top_level(lo, hi):
        """Strings of the tokens in toks[lo:hi] outside any nested brackets."""
        depth, out = 0, []
        for t in toks[lo:hi]:
            if t.string in ("(", "[", "{"):
                depth += 1
            elif t.string in (")", "]", "}"):
                depth -= 1
            elif depth == 0:
                out.append(t.string)
        return out

    starts_stmt = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    for i, t in enumerate(toks):
        if t.type != tokenize.NAME or i + 1 >= len(toks):
            continue
        if t.string == "with" and toks[i + 1].string == "(":
            depth, j = 0, i + 1
            while j < len(toks):
                depth += toks[j].string in ("(", "[", "{")
                depth -= toks[j].string in (")", "]", "}")
                if depth == 0:
                    break
                j += 1
            inner = top_level(i + 2, j)
            if j + 1 < len(toks) and toks[j + 1].string == ":" and ("as" in inner or "," in inner):
                drop.update((off(toks[i + 1]), off(toks[j])))
                if toks[j - 1].string == ",":
                    drop.add(off(toks[j - 1]))
        elif t.string == "match" and (i == 0 or toks[i - 1].type in starts_stmt):
            depth, k = 0, i + 1
            while k < len(toks) and toks[k].type != tokenize.NEWLINE:
                depth += toks[k].string in ("(", "[", "{")
                depth -= toks[k].string in (")", "]", "}")
                if depth == 0 and toks[k].string == ":":
                    break
                k += 1
            if not (k + 1 < len(toks) and toks[k].string == ":" and toks[k + 1].type == tokenize.NEWLINE):
                _PY310["name"].add(off(t))          # `match[k] = v`, `match.x()`: a name
            elif "," in top_level(i + 1, k):
                _PY310["open"].add(off(toks[i + 1]))
                _PY310["close"].add(off(toks[k]))


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


# The grammar cache. A cache of a Lark parser is a pickle, so whoever can write it runs code in the
# next translation: it lives in a per-user directory (C2T_CACHE_DIR, else
# $XDG_CACHE_HOME/cutile2triton, else ~/.cache/cutile2triton) created private (0700), and it is
# read only when that directory and the file are the user's own and writable by nobody else (else
# the parser is built without it: 0.4 s instead of 0.04 s). It is written under a fresh name in
# that directory (0600) and renamed into place, so no reader sees a partial file; its first line
# names the grammar, Lark and Python it was built for, checked before anything is unpickled.
_CACHE_FORMAT = 1       # bump when _lark's options change: caches of the old ones are then rebuilt


def _cache_key(grammar: str) -> bytes:
    import lark
    return (hashlib.sha256(grammar.encode()).hexdigest() + f" c2t {_CACHE_FORMAT} lark {lark.__version__} python "
            f"{sys.version_info[0]}.{sys.version_info[1]}\n").encode()


def cache_name(grammar: str) -> str:
    import lark
    digest = hashlib.sha256(grammar.encode()).hexdigest()[:16]     # stable across processes
    return f"cutile-{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}-{digest}.lark-cache"


def _load_cache(path: Path, key: bytes):
    """(the parser saved at path or None, whether path may be (re)written)."""
    f, write = open_private(path)
    if f is None:
        return None, write
    with f:
        try:
            if f.readline(len(key) + 1) != key:
                return None, True
            return Lark.load(f), False
        except Exception:   # truncated or stale: built again and rewritten
            return None, True


def _save_cache(p: Lark, path: Path, key: bytes) -> None:
    def write(f):
        f.write(key)
        p.save(f)
    write_private(path, write)


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    grammar = (GRAMMAR_DIR / "cutile.lark").read_text()
    d = cache_dir()
    if d is None:
        return _lark(grammar)
    path, key = d / cache_name(grammar), _cache_key(grammar)
    p, write = _load_cache(path, key)
    if p is None:
        p = _lark(grammar)
        if write:
            _save_cache(p, path, key)
    return p


def runtime() -> Runtime:
    """The runtime of the parser() Lark built (its tables converted once per parser)."""
    return _runtime_of(parser())


@functools.lru_cache(maxsize=1)
def _runtime_of(p: Lark) -> Runtime:
    return Runtime(p, _NL, _CutileIndenter)


def _lark(grammar: str) -> Lark:
    return Lark(grammar, parser="lalr", postlex=_CutileIndenter(), propagate_positions=True,
                maybe_placeholders=True, lexer_callbacks={_NL: _collect})


_COMMENT_RE = re.compile(r"#[^\r\n]*")


@dataclass
class Parsed:
    tree: PTree
    comments: list[Comment]
    text: str


# text -> Parsed: modules read again (a sibling each of its importers reads). Kept small: every tree
# kept alive is scanned by each full collection of the garbage collector (TileGym src/tilegym in
# folder mode: 4.2 s with 64 kept, 3.6 s with 8, for 5 more parses of 201)
_PARSED: dict = {}
_PARSED_MAX = 8


def parse(text: str, reporter: Reporter) -> Parsed | None:
    """Parse a whole module; on a syntax error report C2T002 and return None. A text parsed
    before gives the same result (nothing downstream changes a Parsed)."""
    if not text.endswith("\n"):
        text += "\n"
    if text in _PARSED:
        return _PARSED[text]
    parsed = _parse(text, reporter)
    if parsed is not None:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[text] = parsed
    return parsed


def _parse(text: str, reporter: Reporter) -> Parsed | None:
    _plan_310(text)
    newlines: list = []
    collecting = gc.isenabled()
    gc.disable()        # (a parse makes ~5 objects a token and no cycles: the collector only scans them)
    try:
        tree = runtime().parse(text, newlines, _rewrite_310_toks if any(_PY310.values()) else None)
    except Exception:       # (Refused; or anything else: Lark says what is wrong, as it always has)
        tree = None
    finally:
        if collecting:
            gc.enable()
    if tree is None:
        _lark_error(text, reporter)
        return None
    return Parsed(tree, _comments_from_tokens(newlines, text), text)


def _lark_error(text: str, reporter: Reporter) -> None:
    """Report why Lark does not parse `text` (C2T002), which the runtime refused."""
    _COMMENTS.clear()
    _plan_310(text)
    try:
        parser().parse(text)
    except UnexpectedInput as e:
        reporter.add("C2T002", _describe(e), Span(getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0))
        return
    except LarkError as e:  # indentation errors etc.
        line = 0
        m = re.search(r"line (\d+)", str(e))
        if m:
            line = int(m.group(1))
        reporter.add("C2T002", f"cannot parse: {str(e).splitlines()[0]}", Span(line, 1))
        return
    finally:
        _COMMENTS.clear()
    raise RuntimeError("the parser's runtime refused a module Lark parses (translator/lalr.py)")


def line_starts(text: str) -> list[int]:
    """The character offset at which each line of `text` starts."""
    out = [0]
    find, i = text.find, text.find("\n")
    while i >= 0:
        out.append(i + 1)
        i = find("\n", i + 1)
    return out


def _comments_from_tokens(tokens: list, text: str) -> list[Comment]:
    out: dict[tuple[int, int], Comment] = {}
    starts = line_starts(text)
    for tok in tokens:
        if "#" not in tok.value:
            continue
        base = tok.start
        for m in _COMMENT_RE.finditer(tok.value):
            pos = base + m.start()
            lo = bisect.bisect_right(starts, pos) - 1       # (its line's start)
            line, col = lo + 1, pos - starts[lo] + 1
            own = text[starts[lo]:pos].strip() == ""
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
