"""Which parameters of a kernel or helper are Arrays, and their ranks (inferred from use)."""
from __future__ import annotations

import itertools
from typing import Optional

from ..analysis import ModuleInfo
from ..ir import nodes as N
from ..ir.nodes import walk  # noqa: F401  (re-exported: most passes import it from here)

# ct operations whose first argument is an array, and how to read the rank off the call
_ARRAY_OPS = {"load", "store", "gather", "scatter", "num_tiles", "atomic_cas", "atomic_xchg",
              "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
              "load_advanced_indexing", "store_advanced_indexing"}
_ARRAY_ATTRS = {"shape", "strides", "dtype", "ndim", "slice", "tiled_view", "get_raw_memory", "foreign_pointer"}
# Array methods whose result stands for the same parameter (views): `v = x.slice(...)`
_DERIVED = {"slice", "tiled_view", "get_raw_memory"}


def _base(e, alias: dict):
    """(parameter, is_list_element) behind `x`, `x.slice(...)`, `xs[i]`, `xs[i].slice(...)` or an
    alias of one; (None, False) otherwise."""
    elem = False
    for _ in range(32):
        if isinstance(e, N.Name):
            if e.id not in alias:
                return e.id, elem
            e = alias[e.id]
        elif isinstance(e, N.Call) and isinstance(e.func, N.Attr) and e.func.attr in _DERIVED:
            e = e.func.value
        elif isinstance(e, N.Subscript) and not elem and isinstance(e.value, N.Name) \
                and not isinstance(e.index, (N.SliceExpr, N.TupleExpr)) \
                and not (isinstance(e.index, N.Const) and (e.index.value is None or e.index.value is Ellipsis)):
            elem = True       # an element of a list-of-arrays parameter
            e = e.value
        else:
            return None, False
    return None, False


def _base_name(e, alias: dict):
    """The parameter behind `x`, `x.slice(...)`, `x.slice(...).tiled_view(...)` or an alias of one."""
    name, elem = _base(e, alias)
    return None if elem else name


# TiledView methods whose first argument is a tile index with one entry per axis of the array
_VIEW_INDEXED = {"load", "store", "atomic_store_add", "atomic_store_max", "atomic_store_min",
                 "atomic_store_and", "atomic_store_or", "atomic_store_xor"}


def _view_helper(fd: N.FunctionDef):
    """(the parameter `p`, the tile_shape expression) of a function whose body is one
    `return p.tiled_view(shape, ...)` (through `.slice(...)` calls; a docstring aside), else None:
    a call of it makes a view of that argument."""
    body = [st for st in fd.body if not (isinstance(st, N.ExprStmt) and isinstance(st.value, N.Const))]
    if len(body) != 1 or not isinstance(body[0], N.Return) or not isinstance(body[0].value, N.Call):
        return None
    e = body[0].value
    if not (isinstance(e.func, N.Attr) and e.func.attr == "tiled_view"):
        return None
    shape = e.args[0] if e.args else next((k.value for k in e.keywords if k.name == "tile_shape"), None)
    e = e.func.value
    while isinstance(e, N.Call) and isinstance(e.func, N.Attr) and e.func.attr == "slice":
        e = e.func.value
    names = [p.name for p in fd.params if p.kind == "normal"]
    return (e.id, shape) if isinstance(e, N.Name) and e.id in names else None


def _view_helper_args(call: N.Call, fd: N.FunctionDef):
    """(the argument of `call` (of `fd`) that _view_helper's parameter is bound to, the tile
    shape: the argument its parameter is bound to, or its expression), or (None, None)."""
    got = _view_helper(fd)
    if got is None:
        return None, None
    names = [p.name for p in fd.params if p.kind == "normal"]
    positional = list(itertools.takewhile(lambda a: not isinstance(a, N.Starred), call.args))

    def arg(pname):
        k = names.index(pname)
        if k < len(positional):
            return positional[k]
        return next((kw.value for kw in call.keywords if kw.name == pname), None)
    pname, shape = got
    if isinstance(shape, N.Name) and shape.id in names:
        shape = arg(shape.id)
    return arg(pname), shape


def _index_rank(idx, info: ModuleInfo, tuple_names: dict, local: set, counters: set) -> Optional[int]:
    """The entries of a tile index: a tuple's (a literal, a name assigned one, a module constant),
    or 1 for a literal int, a ct.bid(...), an arithmetic expression or a `range` loop's counter
    (a bare index addresses a 1-D array); None when not clear from the text."""
    if isinstance(idx, N.Name) and idx.id in counters and idx.id not in tuple_names:
        return 1
    n = tuple_length(idx, info, tuple_names)
    if n is not None:
        return n
    if isinstance(idx, N.Name) and idx.id not in local and isinstance(info.constants.get(idx.id), (tuple, int)):
        v = info.constants[idx.id]
        return len(v) if isinstance(v, tuple) else None if isinstance(v, bool) else 1
    if isinstance(idx, N.BinOp) and all(tuple_length(x, info, tuple_names) is None for x in (idx.left, idx.right)) \
            or isinstance(idx, N.Const) and type(idx.value) is int \
            or isinstance(idx, N.Call) and info.ct_path(idx.func) == "bid":
        return 1
    return None


def _rank_from(e):
    if isinstance(e, (N.TupleExpr, N.ListExpr)):
        return len(e.elts)
    return None


def _annotation_names_int(ann, info: ModuleInfo) -> bool:
    """`ct.Constant[int]` or an alias of Constant (whose argument is not written here: an int
    unless a tuple is assigned to the name, which tuple_length sees first)."""
    if isinstance(ann, N.Subscript):
        return isinstance(ann.index, N.Name) and ann.index.id == "int"
    return True


def tuple_length(e, info: ModuleInfo, tuple_names: dict, _depth: int = 0) -> Optional[int]:
    """How many entries the tuple `e` has, where that is clear from the kernel's text: a tuple, a
    name assigned one, a conditional between tuples of one length, or a call of a module function
    whose every `return` is one; else None (a tile, a scalar or not known)."""
    if isinstance(e, (N.TupleExpr, N.ListExpr)):
        return len(e.elts)
    if isinstance(e, N.Name):
        return tuple_names.get(e.id)
    if isinstance(e, N.IfExp):
        a, b = (tuple_length(x, info, tuple_names, _depth) for x in (e.body, e.orelse))
        return a if a == b else None
    if isinstance(e, N.BinOp) and e.op in ("+", "*"):
        a, b = (tuple_length(x, info, tuple_names, _depth) for x in (e.left, e.right))
        if e.op == "+":         # concatenation
            return a + b if a is not None and b is not None else None
        count = e.right if a is not None else e.left        # repetition by a literal or a module constant
        n = count.value if isinstance(count, N.Const) else \
            info.constants.get(count.id) if isinstance(count, N.Name) else None
        if (a is None) != (b is None) and type(n) is int:
            return (a if a is not None else b) * max(n, 0)
        return None
    if isinstance(e, N.Call) and isinstance(e.func, N.Name) and e.func.id in info.functions \
            and e.func.id not in info.kernels and _depth < 8:
        rets = [r.value for r in walk(info.functions[e.func.id].body) if isinstance(r, N.Return)]
        lens = {tuple_length(r, info, {}, _depth + 1) for r in rets}
        return lens.pop() if len(lens) == 1 and rets else None
    return None


def static_iter_members(target, src, tuple_elts: dict, candidates: set, out: dict):
    """For `for target in ct.static_iter(src)` over a tuple (a literal or a name assigned one;
    through reversed, enumerate or zip) holding names of `candidates` (None: any name): loop
    variable -> those names, added to `out`."""
    def items(e):
        if isinstance(e, N.Call) and isinstance(e.func, N.Name) and e.func.id in ("reversed", "enumerate", "zip"):
            seqs = [items(a) for a in e.args]
            if any(s is None for s in seqs):
                return None
            if e.func.id == "reversed":
                return seqs[0][::-1] if len(seqs) == 1 else None
            if e.func.id == "enumerate":
                return [(None, x) for x in seqs[0]] if len(seqs) == 1 else None
            return list(zip(*seqs))
        if isinstance(e, N.Name) and e.id in tuple_elts:
            e = N.TupleExpr(elts=tuple_elts[e.id])
        if isinstance(e, N.TupleExpr):
            return [x for x in e.elts]
        return None

    def bind(t, item):
        if isinstance(t, N.Name) and isinstance(item, N.Name) and (candidates is None or item.id in candidates):
            out.setdefault(t.id, []).append(item.id)
        elif isinstance(t, (N.TupleExpr, N.ListExpr)) and isinstance(item, tuple) and len(item) == len(t.elts):
            for sub_t, sub in zip(t.elts, item):
                bind(sub_t, sub)

    for item in items(src) or []:
        bind(target, item)


def name_copies(body, info: ModuleInfo, params: set) -> dict:
    """Local names bound to other names (`a = x`, `a = y if c else x`, `a, b = (y, x)`; in any
    branch or loop): name -> the names it may stand for, in order (an array chosen at run time is
    any of them). Parameters rebinding themselves are left out (their own value is one of them)."""
    out: dict = {}

    def sources(e):
        if isinstance(e, N.Name):
            return [e.id]
        if isinstance(e, N.IfExp):
            a, b = sources(e.body), sources(e.orelse)
            return a + b if a and b else []
        return []

    def bind(t, v):
        if isinstance(t, N.Name) and t.id not in params:
            for src in sources(v):
                if src != t.id and src not in out.setdefault(t.id, []):
                    out[t.id].append(src)
        elif isinstance(t, (N.TupleExpr, N.ListExpr)) and isinstance(v, (N.TupleExpr, N.ListExpr)) \
                and len(t.elts) == len(v.elts) and not any(isinstance(x, N.Starred) for x in t.elts + v.elts):
            for sub_t, sub_v in zip(t.elts, v.elts):
                bind(sub_t, sub_v)

    for n in info.nodes(body):
        if isinstance(n, N.Assign):
            for t in n.targets:
                bind(t, n.value)
    return {k: v for k, v in out.items() if v}


def infer_arrays(fd: N.FunctionDef, info: ModuleInfo, candidates: set, _depth: int = 0) -> dict:
    """Map parameter name -> rank (None when used as an array but the rank is unknown)."""
    return infer_params(fd, info, candidates, _depth)[0]


def infer_params(fd: N.FunctionDef, info: ModuleInfo, candidates: set, _depth: int = 0,
                 conflicts: Optional[dict] = None):
    """(arrays, lists): parameter name -> rank for array parameters, and for list-of-arrays
    parameters (`xs[i]` used as an array, or `len(xs)`), the rank of their elements
    (None when unknown). `conflicts`, when given, receives array parameter name -> {rank: node
    of its first use} for parameters that ct.load/store/gather/... calls of the body use with
    different ranks (cuTile compiles only the branch a Constant selects; one Triton kernel needs
    one rank per array)."""
    found: dict = {}
    lists: dict = {}
    exact: dict = {}

    def note(target, rank, _seen=()):
        name, elem = target if isinstance(target, tuple) else (target, False)
        if name in iterated:        # `for A in ct.static_iter((x, y))`: a use of A is one of x, y
            for member in iterated[name]:
                note((member, elem), rank)
            return
        if name in copies and name not in _seen:    # `a = y if c else x`: a use of a is one of x, y
            for member in copies[name]:
                note((member, elem), rank, (*_seen, name))
            return
        if name not in candidates:
            return
        table = lists if elem else found
        old = table.get(name)
        if rank is not None and (old is None or rank > old):
            table[name] = rank
        else:
            table.setdefault(name, old)

    tuple_names, alias, tuple_elts = {}, {}, {}
    copies = name_copies(fd.body, info, candidates)
    int_constants = {p.name for p in fd.params if info.is_constant_annotation(p.annotation)
                     and not info.is_constant_bool(p.annotation) and not info.is_constant_dtype(p.annotation)
                     and _annotation_names_int(p.annotation, info)}
    iterated: dict = {}     # static_iter loop variable -> the parameters it stands for in turn
    local = {p.name for p in fd.params}     # (names that are not module constants here)
    views = set()           # names bound to a view (`tv = x.tiled_view(...)`, a helper's view)
    counters = set()        # `for i in range(...)` loop variables
    nested = {n.name: n for n in info.nodes(fd.body) if isinstance(n, N.FunctionDef)}

    def callee_of(call):
        if not isinstance(call, N.Call) or not isinstance(call.func, N.Name):
            return None
        name = call.func.id
        return nested.get(name) or (info.functions.get(name) if name not in info.kernels else None)

    def view_root(e):
        """The expression a view stands for (`tv`, `x.tiled_view(...)`, `get_view(x, T)`: x's
        view), or None when `e` is not a view."""
        if isinstance(e, N.Name) and e.id in views or isinstance(e, N.Call) and isinstance(e.func, N.Attr) \
                and e.func.attr == "tiled_view":
            return e
        callee = callee_of(e)
        return _view_helper_args(e, callee)[0] if callee is not None else None

    for n in info.nodes(fd.body):
        if isinstance(n, N.Assign):
            local.update(x.id for t in n.targets for x in walk(t) if isinstance(x, N.Name))
        elif isinstance(n, N.For):
            local.update(x.id for x in walk(n.target) if isinstance(x, N.Name))
            if isinstance(n.target, N.Name) and isinstance(n.iter, N.Call) and isinstance(n.iter.func, N.Name) \
                    and n.iter.func.id == "range":
                counters.add(n.target.id)
        if isinstance(n, N.Assign) and view_root(n.value) is not None:
            for t in n.targets:         # `tv = x.tiled_view(...)`, `tv = get_view(x, TILE)`
                if isinstance(t, N.Name):
                    views.add(t.id)
                    if isinstance(n.value, N.Call) and callee_of(n.value) is not None:
                        alias[t.id] = view_root(n.value)
        callee = callee_of(n)
        if callee is not None and callee.name in nested:
            # a nested def's parameters given views: uses of them in its body are uses of the views
            pnames = [p.name for p in callee.params if p.kind == "normal"]
            for pname, a in zip(pnames, itertools.takewhile(lambda a: not isinstance(a, N.Starred), n.args)):
                root = view_root(a)
                if root is not None and pname not in alias:
                    alias[pname] = root
                    views.add(pname)
    for n in info.nodes(fd.body):
        if isinstance(n, N.Assign) and isinstance(n.value, N.TupleExpr):
            for t in n.targets:
                if isinstance(t, N.Name):
                    tuple_names[t.id] = len(n.value.elts)
                    tuple_elts[t.id] = n.value.elts
        elif isinstance(n, N.Assign) and tuple_length(n.value, info, tuple_names) is not None:
            for t in n.targets:       # `idx = (r, c) if ... else (r, 0)`, `idx = make_index(r, c)`
                if isinstance(t, N.Name):
                    tuple_names[t.id] = tuple_length(n.value, info, tuple_names)
        if isinstance(n, N.For) and isinstance(n.iter, N.Call) and info.ct_path(n.iter.func) == "static_iter" \
                and len(n.iter.args) == 1:
            static_iter_members(n.target, n.iter.args[0], tuple_elts, candidates, iterated)
        if isinstance(n, N.Assign) and isinstance(n.value, N.Call) and isinstance(n.value.func, N.Attr) \
                and n.value.func.attr in _DERIVED:
            for t in n.targets:
                if isinstance(t, N.Name):
                    alias[t.id] = n.value
        if isinstance(n, N.Assign) and isinstance(n.value, N.Subscript) and isinstance(n.value.value, N.Name) \
                and n.value.value.id in candidates:
            for t in n.targets:       # `A = As[g]`
                if isinstance(t, N.Name):
                    alias[t.id] = n.value
    for n in info.nodes(fd.body):
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            if isinstance(n.func, N.Name) and n.func.id == "len" and len(n.args) == 1 \
                    and isinstance(n.args[0], N.Name) and n.args[0].id in candidates \
                    and n.args[0].id not in alias:
                lists.setdefault(n.args[0].id, None)
            view_of, shape = None, None
            if isinstance(n.func, N.Attr) and n.func.attr == "tiled_view":
                view_of = n.func.value
                shape = n.args[0] if n.args else next((k.value for k in n.keywords if k.name == "tile_shape"), None)
            elif callee_of(n) is not None:        # `get_view(x, TILE)`: x.tiled_view(TILE)
                view_of, shape = _view_helper_args(n, callee_of(n))
            if view_of is not None:
                rank = _rank_from(shape)
                if rank is None and shape is not None:
                    rank = tuple_length(shape, info, tuple_names)
                if rank is None and (isinstance(shape, N.Const) and isinstance(shape.value, int)
                                     or isinstance(shape, N.Name) and shape.id in int_constants):
                    rank = 1        # an int tile_shape: a 1-D view
                if rank is None and isinstance(shape, N.Name) and shape.id not in local \
                        and type(info.constants.get(shape.id)) in (int, tuple):
                    value = info.constants[shape.id]        # a module constant (a shim's capture)
                    rank = len(value) if isinstance(value, tuple) else 1
                if rank == 0:
                    rank = None     # a 0-d tile_shape: a view of an array of any rank
                steps = next((k.value for k in n.keywords if k.name == "traversal_steps"), None) \
                    if isinstance(n.func, N.Attr) else None
                if rank is None and steps is not None:      # one step per axis
                    rank = _rank_from(steps) or tuple_length(steps, info, tuple_names) or None
                    if rank is None and isinstance(steps, N.Name) and steps.id not in local \
                            and isinstance(info.constants.get(steps.id), tuple):
                        rank = len(info.constants[steps.id]) or None
                base = _base(view_of, alias)
                if base[0] is not None:
                    note(base, rank)
            if isinstance(n.func, N.Attr) and n.func.attr in _VIEW_INDEXED and view_root(n.func.value) is not None:
                idx = n.args[0] if n.args else next((k.value for k in n.keywords if k.name == "index"), None)
                base = _base(view_root(n.func.value), alias)
                if idx is not None and base[0] is not None:     # one index entry per array axis
                    note(base, _index_rank(idx, info, tuple_names, local, counters))
            if path in _ARRAY_OPS and n.args and _base(n.args[0], alias)[0] is not None:
                kw = {k.name: k.value for k in n.keywords}
                idx = n.args[1] if len(n.args) > 1 else kw.get("index", kw.get("indices"))
                shape = n.args[2] if path == "load" and len(n.args) > 2 else kw.get("shape")
                rank = _rank_from(idx) if idx is not None else None
                if rank is None and idx is not None:
                    rank = tuple_length(idx, info, tuple_names)
                if rank is None and shape is not None and _rank_from(shape):
                    rank = _rank_from(shape)    # a non-empty shape tuple has one entry per axis
                if rank is None and idx is not None and (path in ("load", "store", "gather", "scatter")
                                                         or path.startswith("atomic_")):
                    rank = 1   # a bare scalar/tile index addresses a 1-D array
                base = _base(n.args[0], alias)
                note(base, rank)
                if rank is not None and not base[1]:
                    exact.setdefault(base[0], {}).setdefault(rank, n)
            elif isinstance(n.func, N.Name) and n.func.id in info.functions and _depth < 8:
                callee = info.functions[n.func.id]
                if callee.name in info.kernels:
                    continue
                pnames = [p.name for p in callee.params if p.kind == "normal"]
                # (parameter, argument) pairs: positional arguments in order up to a starred one
                # (after it, which parameter an argument binds to is not known here), keywords by name
                positional = list(itertools.takewhile(lambda a: not isinstance(a, N.Starred), n.args))
                pairs = list(zip(pnames, positional))
                pairs += [(k.name, k.value) for k in n.keywords if k.name in pnames]
                for pname, a in pairs:
                    if isinstance(a, N.Name) and a.id in candidates:
                        sub_arrays, sub_lists = _callee_params(callee, info, pname, _depth + 1)
                        if pname in sub_arrays:
                            note(_base(a, alias), sub_arrays[pname])
                        if pname in sub_lists and _base(a, alias) == (a.id, False):
                            note((a.id, True), sub_lists[pname])
                    elif isinstance(a, N.Subscript) and _base(a, alias)[1]:
                        sub_arrays, _ = _callee_params(callee, info, pname, _depth + 1)
                        if pname in sub_arrays:
                            note(_base(a, alias), sub_arrays[pname])
        elif isinstance(n, N.Attr) and isinstance(n.value, (N.Name, N.Subscript)) and n.attr in _ARRAY_ATTRS:
            note(_base(n.value, alias), None)
        elif isinstance(n, N.Subscript) and isinstance(n.value, N.Attr) \
                and n.value.attr in ("shape", "strides") and _base(n.value.value, alias)[0] is not None \
                and isinstance(n.index, N.Const) and isinstance(n.index.value, int):
            note(_base(n.value.value, alias), n.index.value + 1)
    for name in lists:          # a parameter used both ways is a list (its elements are arrays)
        found.pop(name, None)
    if conflicts is not None:
        conflicts.update({name: ranks for name, ranks in exact.items() if name in found and len(ranks) > 1})
    return found, lists


def _callee_params(callee: N.FunctionDef, info: ModuleInfo, pname: str, depth: int):
    """infer_params of a module function for one of its parameters, once per module (kernels and
    their helpers call the same helpers; the result is only read)."""
    return info.once(f"infer_params {pname} {depth}", callee, lambda fd: infer_params(fd, info, {pname}, depth))


def array_guards(fd: N.FunctionDef, text: str, arrays: set, constexprs: set) -> dict:
    """Array parameter -> the source of a condition on Constant parameters without which the
    kernel never uses it (`HAS_BIAS` for an array used only under `if HAS_BIAS:`), for the
    arrays that have one. cuTile compiles only the branches Constant arguments select, so such an
    array may be a placeholder of any rank when the condition is false (a layer norm's bias
    gradient buffer without a bias); the launcher then checks its rank only when it is true."""
    if not any(isinstance(n, N.If) and _launcher_evaluable(n.test, constexprs)
               and not getattr(n, "c2t_dispatch", False) for n in walk(fd.body)):
        return {}
    names: dict = {}       # id(node) -> the names below it (each node walked once per level)
    guards = {}
    for name in arrays:
        g = _needed(fd.body, name, text, constexprs, names)
        if isinstance(g, str):
            guards[name] = g
    return guards


def _needed(stmts, name: str, text: str, constexprs: set, names: dict):
    """When `stmts` use array `name`: True (always), False (never) or a condition's source."""
    def used(e):
        if isinstance(e, list):
            return any(used(x) for x in e)
        if id(e) not in names:
            names[id(e)] = {n.id for n in walk(e) if isinstance(n, N.Name)}
        return name in names[id(e)]

    def either(*xs):
        if any(x is True for x in xs):
            return True
        xs = list(dict.fromkeys(x for x in xs if x is not False))
        return False if not xs else xs[0] if len(xs) == 1 else " or ".join(f"({x})" for x in xs)

    def both(cond, x):
        return False if x is False else cond if x is True else f"{cond} and ({x})"

    out = []
    for st in stmts:
        if isinstance(st, N.If) and _launcher_evaluable(st.test, constexprs) \
                and not getattr(st, "c2t_dispatch", False):      # (passes/fn_values.py: no text of its own)
            cond = text[st.test.span.start:st.test.span.end]
            b = _needed(st.body, name, text, constexprs, names)
            o = _needed(st.orelse, name, text, constexprs, names)
            out.append(b if b == o else either(both(f"({cond})", b), both(f"not ({cond})", o)))
        elif isinstance(st, (N.If, N.For, N.While)):
            head = [st.test] if not isinstance(st, N.For) else [st.target, st.iter]
            out.append(either(used(head), _needed(st.body, name, text, constexprs, names),
                              _needed(st.orelse, name, text, constexprs, names)))
        elif isinstance(st, N.Other) and st.children:
            out.append(either(used(st.exprs), _needed(st.children, name, text, constexprs, names)))
        else:
            out.append(used(st))
    return either(*out)


def _launcher_evaluable(e, constexprs: set) -> bool:
    """An expression of Constant parameters and literals that means the same in the launcher
    (Python, on the arguments) as in cuTile's compile-time evaluation."""
    for n in walk(e):
        if isinstance(n, N.Name):
            if n.id not in constexprs:
                return False
        elif isinstance(n, N.Const):
            if not (n.value is None or isinstance(n.value, (bool, int, float, str))):
                return False
        elif isinstance(n, N.UnaryOp):
            if n.op not in ("not", "-", "+"):
                return False
        elif isinstance(n, N.BinOp):
            if n.op not in ("+", "-", "*", "//", "%"):
                return False
        elif not isinstance(n, (N.BoolOp, N.Compare)):
            return False
    return True


def ranks_at_least(fd: N.FunctionDef, arrays: set) -> set:
    """The arrays the kernel uses only through `A.shape[k]`, `A.strides[k]` (k a literal >= 0)
    and `A.dtype`: their inferred rank is only the least one cuTile accepts (a kernel that reads
    `X.shape[0]` compiles for an X of any rank >= 1), so the launcher takes a higher rank too."""
    covered, names = set(), {}
    for n in walk(fd.body):
        if isinstance(n, N.Name) and n.id in arrays:
            names.setdefault(n.id, []).append(n)
        elif isinstance(n, N.Subscript) and isinstance(n.value, N.Attr) and n.value.attr in ("shape", "strides") \
                and isinstance(n.value.value, N.Name) and isinstance(n.index, N.Const) \
                and type(n.index.value) is int and n.index.value >= 0:
            covered.add(id(n.value.value))
        elif isinstance(n, N.Attr) and n.attr == "dtype" and isinstance(n.value, N.Name):
            covered.add(id(n.value))
    return {name for name, uses in names.items() if all(id(u) in covered for u in uses)}
