"""The launch runtime (translator/runtime/) as generated modules use it: which of its names a
translation refers to, the import lines for them, and (`--standalone`) their source, pasted into
the module with what they use in turn.

A runtime module's top-level statements after its imports are its pieces: each defines names
(or, like `_c2t_tma_scratch.c2t_scratch = True`, none: it goes with the names it reads). The
modules read each other's names as `_rt_<module>.<name>` (translator/runtime/launch.py); pasted
into one module, those are plain names again.
"""
from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass

from .paths import RUNTIME_DIR

PACKAGE = "translator.runtime"
# the order pieces are pasted in (each module's pieces in their order there)
MODULES = ("values", "base", "launch", "memo", "lists", "hints", "stages", "coarsen", "search", "tma", "batch")
MEMO_C_SRC = "_C2T_MEMO_C_SRC"      # read from launch_memo.c; a standalone module ends with it as a literal
_SIBLING = re.compile(r"\b_rt_[a-z]+\.")


@dataclass(frozen=True)
class Piece:
    module: str
    defines: frozenset
    reads: frozenset        # runtime names it refers to
    text: str
    gap: int                # blank lines before it in its module (0: it continues the one before)


def _names_read(node) -> set:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id.startswith("_rt_"):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("_C2T_"):
            out.add(n.value)        # (globals().get("_C2T_MEMO_C_SRC"))
    return out


def _defined(st) -> set:
    if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
        return {st.name}
    out = set()
    for n in ast.walk(st):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id.startswith(("_c2t_", "_C2T")):
            out.add(n.id)
        elif isinstance(n, ast.alias) and (n.asname or n.name).startswith("_c2t_"):
            out.add(n.asname or n.name)
    return out


def _module_pieces(module: str) -> list:
    text = (RUNTIME_DIR / f"{module}.py").read_text()
    lines = text.split("\n")
    body = ast.parse(text).body
    pieces, prev_end = [], 0
    for st in body:
        if isinstance(st, (ast.Import, ast.ImportFrom)) or (
                isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and st is body[0]):
            prev_end = st.end_lineno
            continue
        start = (st.decorator_list[0].lineno if getattr(st, "decorator_list", None) else st.lineno) - 1
        while start > prev_end and lines[start - 1].startswith("#"):
            start -= 1
        gap = sum(1 for line in lines[prev_end:start] if not line.strip())
        pieces.append(Piece(module, frozenset(_defined(st)), frozenset(_names_read(st)),
                            "\n".join(lines[start:st.end_lineno]), gap))
        prev_end = st.end_lineno
    return pieces


@functools.lru_cache(maxsize=1)
def pieces() -> tuple:
    return tuple(p for m in MODULES for p in _module_pieces(m))


@functools.lru_cache(maxsize=1)
def exports() -> dict:
    """Runtime name -> the runtime module that defines it."""
    return {name: p.module for p in pieces() for name in p.defines}


def names_used(text: str) -> set:
    """The names of Python code `text` (not its comments or strings: f-strings' fields count):
    its Name nodes, attribute names and the names its imports bind (CPython's parser: tokenize
    took half of a translation's time); tokens where it does not parse."""
    import ast
    try:
        names = set()
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                names.add(n.attr)
            elif isinstance(n, ast.alias):
                names.update((n.asname or n.name).split("."))
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, ast.arg):
                names.add(n.arg)
        return names
    except (SyntaxError, ValueError):
        pass
    try:
        return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME}
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set(re.findall(r"\b[A-Za-z_]\w*", text))


def runtime_names(used: set) -> list:
    """The runtime names among `used`, sorted."""
    known = exports()
    return sorted(n for n in used if n in known)


def import_lines(names, indent: str = "") -> list:
    """`from translator.runtime.<module> import ...` statements for runtime names, one per module
    (in MODULES order), wrapped at 100 columns; `indent`: that of the lines they go among (the
    first line of each is not indented: the caller joins them)."""
    known = exports()
    out = []
    for module in MODULES:
        mine = sorted(n for n in names if known[n] == module)
        if not mine:
            continue
        head = f"from {PACKAGE}.{module} import "
        if len(indent) + len(head) + sum(len(n) + 2 for n in mine) - 2 <= 100:
            out.append(head + ", ".join(mine))
            continue
        rows, row = [], ""
        for n in mine:
            if row and len(indent) + 4 + len(row) + len(n) + 1 > 100:
                rows.append(row.rstrip())
                row = ""
            row += n + ", "
        rows.append(row.rstrip())
        out.append(head + "(\n" + "".join(f"{indent}    {r}\n" for r in rows) + indent + ")")
    return out


def closure(names) -> set:
    """`names` and the runtime names their pieces read, transitively."""
    by_name = {}
    for p in pieces():
        for n in p.defines:
            by_name[n] = p
    seen, todo = set(), [n for n in names if n in by_name]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(r for r in by_name[n].reads if r in by_name and r not in seen)
    return seen


def vendored(names) -> tuple:
    """(the source of the runtime pieces `names` need, pasted as one module's code; whether they
    need the launch memo's C source, MEMO_C_SRC, which goes at the end of the module)."""
    need = closure(names)
    chosen = []
    for p in pieces():
        if p.defines & need or (not p.defines and p.reads & need):
            chosen.append(p)
    c_source = MEMO_C_SRC in need
    out, last = [], None
    for p in chosen:
        if MEMO_C_SRC in p.defines:
            continue
        text = _SIBLING.sub("", p.text)
        if out and last is not None and last.module == p.module and p.gap == 0 and _follows(last, p):
            out[-1] += "\n" + text
        else:
            out.append(text)
        last = p
    return "\n\n\n".join(out), c_source


def _follows(a: Piece, b: Piece) -> bool:
    """Whether piece b comes right after piece a in their module."""
    ps = pieces()
    i = ps.index(a)
    return i + 1 < len(ps) and ps[i + 1] is b


def memo_c_block() -> str:
    """The launch memo's C source as the literal a standalone module ends with."""
    from .emit import c_source
    return ("# The launch memo's lookup and launch in C (cutile2triton's translator/runtime/launch_memo.c),\n"
            "# which _c2t_load_memo_c builds at the first recorded launch.\n"
            f'{MEMO_C_SRC} = r"""\n{c_source("launch_memo.c")}"""')
