"""The parser's runtime: Lark's tables for cutile.lark, run by a loop of our own (issue 34).

Lark compiles the grammar (translator/parse.py: once per process, cached on disk); this module runs
what it compiled, about four times faster than Lark's own run time, and gives the same tree:

- the lexer: one regular expression of all terminals (ordered, and keywords folded into NAME, as
  Lark's lexer does); where the token it finds is not one the parser's state accepts, the text is
  lexed again with the terminals that state accepts (what Lark's contextual lexer does; in this
  grammar: the soft keywords `match`, `case`, `_` as names);
- the Python indenter (Lark's Indenter: INDENT/DEDENT, newlines inside brackets dropped);
- the LALR(1) loop, with each rule's reduction precomputed (a rule that only renames its single
  child, `?test: or_test`, moves no value at all: most reductions of an expression are such);
- the tree: PTree nodes with the children Lark's tree builder gives (filtered tokens, inlined
  `_rules`, `?rules` of one child, placeholders for missing optionals) and the character positions
  Lark's propagate_positions gives (`start`, `end`; `cstart`, `cend`: the extent of the rule that
  held the node, parentheses included), tokens as Tok (type, value, start, end). Lines and columns
  are not kept: they follow from the positions (translator/ir/build.py).

On any input Lark would refuse (or any surprise) `Runtime.parse` raises `Refused`; parse.py then
lets Lark parse the text to report the error as it always has. tests/test_parse_runtime.py checks
that both give the same tree. Only Lark's documented objects are read: `Lark.terminals`,
`Lark.lexer_conf` (ignore, flags, regex module), and the parse table through `parse_interactive`.
"""
from __future__ import annotations

try:
    import re._constants as _sre
    import re._parser as _sre_parse
except ImportError:     # Python 3.10
    import sre_constants as _sre
    import sre_parse as _sre_parse

from lark.lexer import PatternRE, PatternStr


class Refused(Exception):
    """The runtime cannot parse the text (Lark reports why)."""


class Tok:
    __slots__ = ("type", "value", "start", "end")

    def __init__(self, type: str, value: str, start: int, end: int):
        self.type, self.value, self.start, self.end = type, value, start, end

    def __str__(self):
        return self.value

    def __repr__(self):
        return f"Tok({self.type}, {self.value!r}, {self.start}, {self.end})"


class PTree:
    """A parse tree node: `data` (the rule's name), `children` (PTree, Tok or None); `start`/`end`
    its character extent (None when it spans no token), `cstart`/`cend` that of its container."""
    __slots__ = ("data", "children", "start", "end", "cstart", "cend")

    def __init__(self, data, children, start=None, end=None, cstart=None, cend=None):
        self.data, self.children = data, children
        self.start, self.end, self.cstart, self.cend = start, end, cstart, cend

    def __repr__(self):
        return f"PTree({self.data}, {self.children!r})"


# ------------------------------------------------------------------ lexer

def _sort_key(t):
    return (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name)


class _Scanner:
    """Lark's BasicLexer over `terminals`: their alternation in Lark's order, and for each regular
    terminal the string terminals it matches in full (keywords in NAME), which retype its tokens.
    `match(text, pos)` tries only the alternatives that can start with the character at `pos`
    (the same first match: the others cannot match there), a regular expression for each ASCII
    character made when first needed; other characters try them all."""

    def __init__(self, terminals, flags, re_):
        terminals = sorted(terminals, key=_sort_key)
        strs = [t for t in terminals if isinstance(t.pattern, PatternStr)]
        regs = [t for t in terminals if isinstance(t.pattern, PatternRE)]
        assert len(strs) + len(regs) == len(terminals)
        embedded, self.retype = set(), {}
        for r in regs:
            unless = []
            for s in strs:
                if s.priority != r.priority:
                    continue
                m = re_.match(r.pattern.to_regexp(), s.pattern.value, flags)
                if m and m.group(0) == s.pattern.value:
                    unless.append(s)
                    if s.pattern.flags <= r.pattern.flags:
                        embedded.add(s.name)
            if unless:
                if any(s.pattern.flags for s in unless):
                    mre = re_.compile("|".join(f"(?P<{s.name}>{s.pattern.to_regexp()})" for s in unless), flags)
                    self.retype[r.name] = _FullMatch(mre)
                else:
                    d = {}
                    for s in unless:
                        d.setdefault(s.pattern.value, s.name)
                    self.retype[r.name] = d
        self._alts = [(t.name, t.pattern.to_regexp()) for t in terminals if t.name not in embedded]
        self._re, self._flags = re_, flags
        self._full = self._compile(self._alts)
        self._firsts = [_first_chars(rx, flags) for _, rx in self._alts]
        self._by_char: list = [None] * 128
        self._by_alts: dict = {}

    def _compile(self, alts):
        return self._re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in alts), self._flags).match

    def _for_char(self, o: int):
        ch = chr(o)
        alts = tuple(a for a, first in zip(self._alts, self._firsts) if first is None or ch in first)
        m = self._by_alts.get(alts)
        if m is None:
            m = self._by_alts[alts] = self._compile(alts) if alts else _no_match
        self._by_char[o] = m
        return m

    def match(self, text: str, pos: int):
        o = ord(text[pos])
        if o < 128:
            m = self._by_char[o] or self._for_char(o)
            return m(text, pos)
        return self._full(text, pos)


def _no_match(text, pos):
    return None


_ASCII = [chr(i) for i in range(128)]
_CATEGORIES = {
    _sre.CATEGORY_DIGIT: {c for c in _ASCII if c.isdecimal()},
    _sre.CATEGORY_WORD: {c for c in _ASCII if c.isalnum() or c == "_"},
    _sre.CATEGORY_SPACE: {c for c in _ASCII if c.isspace()},
}
_CATEGORIES[_sre.CATEGORY_NOT_DIGIT] = set(_ASCII) - _CATEGORIES[_sre.CATEGORY_DIGIT]
_CATEGORIES[_sre.CATEGORY_NOT_WORD] = set(_ASCII) - _CATEGORIES[_sre.CATEGORY_WORD]
_CATEGORIES[_sre.CATEGORY_NOT_SPACE] = set(_ASCII) - _CATEGORIES[_sre.CATEGORY_SPACE]


class _Unknown(Exception):
    pass


def _first_chars(regexp: str, flags: int):
    """The ASCII characters a match of `regexp` can start with (a superset), or None when the
    pattern holds something this does not follow."""
    try:
        sub = _sre_parse.parse(regexp, flags)
        first, nullable = _seq_first(list(sub), sub.state.flags)
    except (_Unknown, Exception):
        return None
    return None if nullable else frozenset(first)


def _seq_first(items, flags):
    out = set()
    for op, av in items:
        first, nullable = _item_first(op, av, flags)
        out |= first
        if not nullable:
            return out, False
    return out, True


def _cased(chars, flags):
    if flags & _sre.SRE_FLAG_IGNORECASE:
        return set(chars) | {c.swapcase() for c in chars}
    return set(chars)


def _item_first(op, av, flags):
    if op is _sre.LITERAL:
        c = chr(av)
        if flags & _sre.SRE_FLAG_IGNORECASE and av >= 128:
            raise _Unknown
        return _cased({c} if av < 128 else set(), flags), False
    if op is _sre.NOT_LITERAL:
        if flags & _sre.SRE_FLAG_IGNORECASE:
            raise _Unknown
        return set(_ASCII) - {chr(av)}, False
    if op is _sre.ANY:
        return set(_ASCII), False
    if op is _sre.IN:
        return _class_first(av, flags), False
    if op is _sre.SUBPATTERN:
        _group, add, remove, p = av
        return _seq_first(list(p), (flags | add) & ~remove)
    if op is _sre.BRANCH:
        out, nullable = set(), False
        for p in av[1]:
            f, n = _seq_first(list(p), flags)
            out |= f
            nullable = nullable or n
        return out, nullable
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(_sre, "POSSESSIVE_REPEAT", None):
        lo, _hi, p = av
        f, n = _seq_first(list(p), flags)
        return f, n or lo == 0
    if op in (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT):     # zero width: what follows starts the match
        return set(), True
    raise _Unknown


def _class_first(items, flags):
    negate = bool(items) and items[0][0] is _sre.NEGATE
    members = set()
    for op, av in items[1:] if negate else items:
        if op is _sre.LITERAL:
            if av >= 128 and flags & _sre.SRE_FLAG_IGNORECASE:
                raise _Unknown
            if av < 128:
                members.add(chr(av))
        elif op is _sre.RANGE:
            lo, hi = av
            if hi >= 128 and flags & _sre.SRE_FLAG_IGNORECASE:
                raise _Unknown
            members.update(chr(i) for i in range(lo, min(hi, 127) + 1))
        elif op is _sre.CATEGORY and av in _CATEGORIES:
            members |= _CATEGORIES[av]
        else:
            raise _Unknown
    if flags & _sre.SRE_FLAG_IGNORECASE:
        members = {c for c in _ASCII if c in members or c.swapcase() in members}
    return set(_ASCII) - members if negate else members


class _FullMatch:
    def __init__(self, mre):
        self.mre = mre

    def get(self, value, default):
        m = self.mre.fullmatch(value)
        return m.lastgroup if m else default


# ------------------------------------------------------------------ tree building

def _reduction(rule):
    """(size, the rule's name for the goto table, the function building its value from the popped
    values, or None when the value is the single popped one) -- as Lark's ParseTreeBuilder with
    maybe_placeholders and propagate_positions."""
    expansion = rule.expansion
    size = len(expansion)
    opts = rule.options
    name = rule.alias or opts.template_source or rule.origin.name
    expand1 = bool(opts.expand1 and not rule.alias)
    empty = opts.empty_indices
    if empty:
        assert empty.count(False) == size
        bits = "".join(str(int(b)) for b in empty)
        nones = [len(ones) for ones in bits.split("0")]
    else:
        nones = [0] * (size + 1)
    include, pending = [], 0
    for i, sym in enumerate(expansion):
        pending += nones[i]
        if opts.keep_all_tokens or not (sym.is_term and sym.filter_out):
            include.append((i, not sym.is_term and sym.name.startswith("_"), pending))
            pending = 0
    append_none = pending + nones[size]
    filtering = bool(empty) or len(include) < size or any(x for _, x, _ in include)
    if not filtering and expand1 and size == 1:
        return size, rule.origin.name, None       # `?a: b`: the value stays, only the state changes
    return size, rule.origin.name, _build_function(name, expansion, tuple(include), append_none, expand1)


def _build_function(name, expansion, include, append_none, expand1):
    """The reduction's function, written out for its rule: the children list, then the positions
    from the first and last popped value that spans text (a token; a tree that is not empty)."""
    items, static = [], True
    for i, inline, add_none in include:
        items += ["None"] * add_none
        if inline:
            items.append(f"*c[{i}].children")
            static = False
        else:
            items.append(f"c[{i}]")
    items += ["None"] * append_none
    lines = ["def build(c):", f"    kids = [{', '.join(items)}]"]
    single = expand1 and (not static or len(items) == 1)
    if single:
        if static:
            lines += ["    res = kids[0]", "    if type(res) is not PTree:", "        return res"]
        else:
            lines += ["    if len(kids) == 1:", "        res = kids[0]", "        if type(res) is not PTree:",
                      "            return res", "    else:", "        res = None"]

    def find(order, var, tok_attr, tree_attr, indent):
        """Code setting `var` from the first value in `order` spanning text (else it stays None)."""
        out, pad = [], "    " * indent
        if not order:
            return [f"{pad}{var} = None"]
        for k, j in enumerate(order):
            pad = "    " * (indent + k)
            if expansion[j].is_term:            # (a terminal's value is always its token)
                out.append(f"{pad}{var} = c[{j}].{tok_attr}")
                return out
            out += [f"{pad}x = c[{j}]",
                    f"{pad}if type(x) is PTree and x.start is not None:",
                    f"{pad}    {var} = x.{tree_attr}",
                    f"{pad}elif type(x) is Tok:",
                    f"{pad}    {var} = x.{tok_attr}",
                    f"{pad}else:"]
        out.append(f"{pad}    {var} = None")
        return out
    n = len(expansion)
    lines += find(range(n), "first", "start", "cstart", 1)
    lines += ["    if first is None:"]
    if single:
        lines += ["        return PTree(NAME, kids, None, None, None, None) if res is None else res"
                  if not static else "        return res"]
    else:
        lines += ["        return PTree(NAME, kids, None, None, None, None)"]
    lines += find(range(n - 1, -1, -1), "last", "end", "cend", 1)
    if single:
        if not static:
            lines += ["    if res is None:", "        res = new(PTree)", "        res.data, res.children = NAME, kids",
                      "        res.start = res.cstart = first", "        res.end = res.cend = last", "        return res"]
        lines += ["    if res.start is None:", "        res.start, res.end = first, last",
                  "    res.cstart, res.cend = first, last", "    return res"]
    else:
        lines += ["    res = new(PTree)", "    res.data, res.children = NAME, kids",       # (no __init__ call)
                  "    res.start = res.cstart = first", "    res.end = res.cend = last", "    return res"]
    env = {"PTree": PTree, "Tok": Tok, "NAME": name, "new": object.__new__}
    exec("\n".join(lines), env)
    return env["build"]


# ------------------------------------------------------------------ the runtime

class Runtime:
    def __init__(self, lark, nl_type: str, indenter):
        conf = lark.lexer_conf
        self.re, self.flags = conf.re_module, conf.g_regex_flags
        self.terminals = {t.name: t for t in lark.terminals}
        self.ignore = frozenset(conf.ignore)
        self.nl = nl_type
        ind = indenter
        self.indent_t, self.dedent_t, self.tab_len = ind.INDENT_type, ind.DEDENT_type, ind.tab_len
        self.open_t, self.close_t = frozenset(ind.OPEN_PAREN_types), frozenset(ind.CLOSE_PAREN_types)
        self.scanner = _Scanner(lark.terminals, self.flags, self.re)
        pconf = lark.parse_interactive("").parser_state.parse_conf
        self.start_state, self.end_state = pconf.start_state, pconf.end_state
        reductions: dict = {}       # id(rule) -> its reduction (rules hash by content, slowly)
        self.actions, self.lexable = {}, {}
        always = self.ignore | {self.nl}
        from lark.parsers.lalr_analysis import Shift
        for state, acts in pconf.states.items():
            table = {}
            for sym, (action, arg) in acts.items():
                if action is Shift:
                    table[sym] = (True, arg)
                else:
                    red = reductions.get(id(arg))
                    if red is None:
                        red = reductions[id(arg)] = (arg, _reduction(arg))
                    table[sym] = (False, red[1])
            self.actions[state] = table
            self.lexable[state] = frozenset(s for s in acts if s in self.terminals) | always
        self._state_scanners: dict = {}
        self.units: dict = {}       # (state below, state, token type) -> end of its `?a: b` chain

    def _state_scanner(self, state) -> _Scanner:
        key = self.lexable[state]
        sc = self._state_scanners.get(key)
        if sc is None:
            sc = self._state_scanners[key] = _Scanner([self.terminals[n] for n in key if n in self.terminals],
                                                       self.flags, self.re)
        return sc

    def tokens(self, text: str, states: list, newlines: list):
        """The token stream the parser reads (after the indenter); the newline tokens (comments
        are in them) are appended to `newlines` as they are lexed."""
        match, retype = self.scanner.match, self.scanner.retype
        ignore, nl, lexable = self.ignore, self.nl, self.lexable
        opens, closes = self.open_t, self.close_t
        indent_t, dedent_t, tab_len = self.indent_t, self.dedent_t, self.tab_len
        levels, paren = [0], 0
        pos, n, last, new = 0, len(text), None, object.__new__
        while pos < n:
            m = match(text, pos)
            if m is None:
                raise Refused
            typ, end = m.lastgroup, m.end()
            if typ in ignore:
                pos = end
                continue
            value = m.group()
            r = retype.get(typ)
            if r is not None:
                typ = r.get(value, typ)
            if typ not in lexable[states[-1]]:          # as the state's own lexer would
                sc = self._state_scanner(states[-1])
                while True:
                    m = sc.match(text, pos)
                    if m is None:
                        raise Refused
                    typ, end = m.lastgroup, m.end()
                    if typ not in ignore:
                        break
                    pos = end
                    if pos >= n:
                        typ = None
                        break
                if typ is None:
                    break
                value = m.group()
                r = sc.retype.get(typ)
                if r is not None:
                    typ = r.get(value, typ)
            tok = last = new(Tok)        # (no __init__ call: one token for each lexed)
            tok.type, tok.value, tok.start, tok.end = typ, value, pos, end
            pos = end
            if typ == nl:
                newlines.append(tok)
                if paren:
                    continue
                yield tok
                ind = value.rsplit("\n", 1)[1]
                width = ind.count(" ") + ind.count("\t") * tab_len
                if width > levels[-1]:
                    levels.append(width)
                    yield Tok(indent_t, ind, tok.start, tok.end)
                else:
                    while width < levels[-1]:
                        levels.pop()
                        yield Tok(dedent_t, ind, tok.start, tok.end)
                    if width != levels[-1]:
                        raise Refused
                continue
            yield tok
            if typ in opens:
                paren += 1
            elif typ in closes:
                paren -= 1
                if paren < 0:
                    raise Refused
        while len(levels) > 1:
            levels.pop()
            if last is None:
                raise Refused
            yield Tok(dedent_t, "", last.start, last.end)

    def parse(self, text: str, newlines: list, rewrite=None) -> PTree:
        """The tree of `text` (the start rule's); `rewrite` wraps the token stream (parse.py's
        Python 3.10 forms)."""
        actions, units = self.actions, self.units
        states = [self.start_state]
        values = []
        stream = self.tokens(text, states, newlines)
        if rewrite is not None:
            stream = rewrite(stream)
        for tok in stream:
            typ = tok.type
            while True:
                top = states[-1]
                try:
                    shift, arg = actions[top][typ]
                except KeyError:
                    raise Refused from None
                if shift:
                    states.append(arg)
                    values.append(tok)
                    break
                size, origin, build = arg
                if build is None:       # a chain of `?a: b` reductions: where it ends, from the state below
                    key = (states[-2], top, typ)
                    end = units.get(key)
                    if end is None:
                        end = units[key] = self._unit_chain(states[-2], top, typ)
                    states[-1] = end
                    continue
                if size:
                    kids = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    kids = []
                values.append(build(kids))
                states.append(actions[states[-1]][origin][1])
        end = self.end_state
        while True:
            try:
                shift, arg = actions[states[-1]]["$END"]
            except KeyError:
                raise Refused from None
            if shift:
                raise Refused
            size, origin, build = arg
            if build is None:
                states[-1] = actions[states[-2]][origin][1]
            else:
                if size:
                    kids = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    kids = []
                values.append(build(kids))
                states.append(actions[states[-1]][origin][1])
            if states[-1] == end:
                return values[-1]

    def _unit_chain(self, below, top, typ):
        """The state that `?a: b` reductions lead to from `top` (over `below`) on token `typ`:
        the first whose action on it is a shift or another reduction (or an error)."""
        actions = self.actions
        while True:
            act = actions[top].get(typ)
            if act is None or act[0] or act[1][2] is not None:
                return top
            top = actions[below][act[1][1]][1]
