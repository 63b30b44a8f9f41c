"""translator/lalr.py runs Lark's tables for cutile.lark: it must give Lark's own tree (rule names,
children, placeholders, character positions) and refuse what Lark refuses."""
from pathlib import Path

import pytest
from lark import Token, Tree

from translator import parse as P
from translator.lalr import PTree, Refused, Tok

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))

SNIPPETS = [
    # soft keywords as names and as keywords (Lark's contextual lexer tells them apart)
    "match = {1: 2}\nmatch[1] = 3\nmatch.clear()\ncase = 1\n_ = case\nprint(match, _)\n",
    "def f(p):\n    match p:\n        case (1, _):\n            return 1\n        case [a, *rest] if a:\n"
    "            return a\n        case {'k': v, **kw}:\n            return v\n        case Point(x=0) | None:\n"
    "            return 0\n        case _:\n            return -1\n",
    "def g(a, b):\n    match a, b:\n        case (1, 2):\n            return 1\n        case _:\n            return 0\n",
    "with (open(a) as f, open(b) as g,):\n    pass\nwith (open(a)) as f, (open(b)):\n    pass\n",
    "with (\n    open(a) as f,  # first\n    open(b) as g,\n):\n    pass\n",
    # comments, blank lines, continuations, brackets across lines, dedents to several levels
    "# head\nimport os  # trailing\n\n\nclass A(B, metaclass=M):\n    '''doc'''\n    x: int = 1\n\n"
    "    def m(self, *a, b=2, **k) -> 'A':\n        if a:\n            for i in range(3):\n"
    "                while i:\n                    i -= 1\n        # deeper\n    # shallower\n"
    "        return [i for i in a if i for j in b]\n",
    "x = (1 +\n     2)  # c\ny = [\n    1,\n    2,\n]\nz = 1 + \\\n    2\n",
    "@dec\n@dec2(1, k=2)\nasync def f(a, /, b, *, c=3, **kw):\n    await g(*a, *b, **kw, **k2)\n"
    "    async for x in y:\n        yield x\n    async with a as (b, c):\n        pass\n    return (yield from z)\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nelse:\n    pass\nfinally:\n    del a[1:2, ::3]\n",
    "lam = lambda x, /, y=1, *a, z, **k: x if y else z\nf = f'{a!r:>{w}}' 'b' rb'\\x'\n"
    "n = 0x1F + 0o7 + 0b1 + 1_000 + 1.5e-3j + 3.\nglobal q\nassert a, 'm'\nt = a, *b\n"
    "s = {**a, 'b': 1}\nw = {x for x in y}\nv = (u := 3)\ne = ...\nprint(not a in b is not c)\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\nx = a @ b; y = ~c ** -d // e % f << g >> h & i | j ^ k\n",
    "def f():\n\treturn 1\n",     # tabs
    "",
    "\n\n# only a comment\n",
]

BAD = [
    "def f(:\n    pass\n",
    "x = (1,\n",
    "if a:\n        x = 1\n    y = 2\n",      # dedent to no level
    "x = 1 $ 2\n",
    "print(a))\n",
    "def f():\nreturn 1\n",
    "match a:\n    case 1:\n  pass\n",
]


def _same(lark_t, ours, path="root"):
    if lark_t is None or ours is None:
        assert lark_t is None and ours is None, path
        return
    if isinstance(lark_t, Token):
        assert type(ours) is Tok, path
        assert (ours.type, ours.value, ours.start, ours.end) == (
            lark_t.type, str(lark_t), lark_t.start_pos, lark_t.end_pos), path
        return
    assert isinstance(lark_t, Tree) and type(ours) is PTree, path
    assert ours.data == lark_t.data, path
    m = lark_t.meta
    if m.empty:
        assert ours.start is None, path
    else:
        assert (ours.start, ours.end, ours.cstart, ours.cend) == (
            m.start_pos, m.end_pos, m.container_start_pos, m.container_end_pos), path
    assert len(ours.children) == len(lark_t.children), path
    for i, (a, b) in enumerate(zip(lark_t.children, ours.children)):
        _same(a, b, f"{path}/{lark_t.data}[{i}]")


def _both(text: str):
    P._plan_310(text)
    want = P.parser().parse(text)
    P._plan_310(text)
    newlines = []
    got = P.runtime().parse(text, newlines, P._rewrite_310_toks if any(P._PY310.values()) else None)
    return want, got


@pytest.mark.parametrize("text", SNIPPETS + [p.read_text() for p in EXAMPLES],
                         ids=[f"snippet{i}" for i in range(len(SNIPPETS))] + [p.name for p in EXAMPLES])
def test_same_tree_as_lark(text):
    if not text.endswith("\n"):
        text += "\n"
    want, got = _both(text)
    _same(want, got)


@pytest.mark.parametrize("text", BAD)
def test_refuses_what_lark_refuses(text):
    P._plan_310(text)
    with pytest.raises(Exception):
        P.parser().parse(text)
    P._plan_310(text)
    with pytest.raises(Refused):
        P.runtime().parse(text, [], P._rewrite_310_toks if any(P._PY310.values()) else None)


def test_comments_are_collected_from_newline_tokens():
    text = "# a\nx = 1  # b\ny = (2,  # c\n     3)\n    # d\n"
    P._PARSED.clear()
    from translator.diagnostics import Reporter
    parsed = P.parse(text, Reporter("t.py"))
    assert [(c.line, c.col, c.text, c.own_line) for c in parsed.comments] == [
        (1, 1, "# a", True), (2, 8, "# b", False), (3, 10, "# c", False), (5, 5, "# d", True)]
