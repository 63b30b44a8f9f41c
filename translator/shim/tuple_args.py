"""Tuple arguments of kernels (`ct.launch(..., k, (a, out, (3, 7)))`, nested, holding arrays or
lists): cuTile takes any nesting, which only the launch shows. The shim translates one variant of
the kernel per nesting of its tuple arguments, with each tuple parameter flattened into one
parameter per leaf, and flattens the arguments the same way at each launch:

    def k(a, out, cfg):                    def k(a, out, cfg__0__0, cfg__0__1, cfg__1):
        x = cfg[0][1] + cfg[1]     ->          x = cfg__0__1 + cfg__1
        f(cfg)                                 f(((cfg__0__0, cfg__0__1), cfg__1))

A chain of constant indices of the parameter becomes the leaf (or the sub-tuple) it names; any
other use is the tuple of its leaves, written in place. A leaf's annotation is the matching entry
of a `tuple[...]` annotation (`tuple[ct.Constant[int], int]`, `tuple[X, ...]`). Edits keep every
line where it was (diagnostics still point at the user's lines). Parameters that are not flattened:
those annotated ct.Constant (the whole tuple is a constant), those the kernel assigns, and any
whose text does not allow it (a parameter written over several lines); their tuples are passed
as they are.
"""
from __future__ import annotations

import ast
import types
import typing

SEP = "__"


def _shape(value):
    """The nesting of a plain tuple (None for a leaf): (3, (4, 5)) -> (None, (None, None))."""
    return tuple(_shape(v) if type(v) is tuple else None for v in value)


def structure(params, constants, args):
    """Per positional parameter, the nesting of its tuple argument (None where it is no plain
    tuple or is not flattened); None when no argument is flattened (the kernel as written)."""
    if not any(type(a) is tuple for a in args) or len(args) > len(params):
        return None
    key = tuple(_shape(a) if type(a) is tuple and p not in constants else None for p, a in zip(params, args))
    return key if any(k is not None for k in key) else None


def flatten(args, key):
    out = []

    def leaves(v, shape):
        for x, s in zip(v, shape):
            if s is None:
                out.append(x)
            else:
                leaves(x, s)
    for a, k in zip(args, key):
        if k is None:
            out.append(a)
        else:
            leaves(a, k)
    return tuple(out)


def _paths(shape, prefix=()):
    """(path, shape) of each leaf and sub-tuple of a nesting, leaves in order."""
    for i, s in enumerate(shape):
        yield prefix + (i,), s
        if s is not None:
            yield from _paths(s, prefix + (i,))


def _literal(name, shape, path=()):
    parts = [_literal(name, s, path + (i,)) if s is not None else name + SEP + SEP.join(map(str, path + (i,)))
             for i, s in enumerate(shape)]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _at(shape, path):
    for i in path:
        if shape is None or not -len(shape) <= i < len(shape):
            return False, None
        shape = shape[i]
    return True, shape


def _element_annotations(node, value, shape, source, value_src):
    """{leaf path: annotation source} from a `tuple[...]` annotation (its text, else its value)."""
    out = {}

    def from_node(n, shp, path):
        if not (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in ("tuple", "Tuple")):
            return
        elts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        if len(elts) == 2 and isinstance(elts[1], ast.Constant) and elts[1].value is Ellipsis:
            elts = [elts[0]] * len(shp)
        for i, (e, s) in enumerate(zip(elts, shp)):
            if s is None:
                out[path + (i,)] = ast.get_source_segment(source, e)
            else:
                from_node(e, s, path + (i,))

    def from_value(v, shp, path):
        if typing.get_origin(v) is not tuple:
            return
        elts = list(typing.get_args(v))
        if len(elts) == 2 and elts[1] is Ellipsis:
            elts = [elts[0]] * len(shp)
        for i, (e, s) in enumerate(zip(elts, shp)):
            if s is None:
                out[path + (i,)] = value_src(e)
            else:
                from_value(e, s, path + (i,))

    if node is not None and not isinstance(node, ast.Name):
        from_node(node, shape, ())
    elif isinstance(value, types.GenericAlias):
        from_value(value, shape, ())
    return {p: a for p, a in out.items() if a}


def rewrite(text: str, key, annotations: dict, value_src) -> str:
    """The kernel's source (`def` line first, dedented) with its tuple parameters flattened for the
    nesting `key` (see the module's doc); unchanged where it cannot be."""
    tree = ast.parse(text)
    fdef = tree.body[0]
    lines = text.splitlines(keepends=True)
    params = fdef.args.posonlyargs + fdef.args.args
    assigned = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | {p.arg for p in params}
    edits = []          # (line, start col, end col, text) in characters, one line each

    def span(n):
        ln = lines[n.lineno - 1]
        return (n.lineno, len(ln.encode()[:n.col_offset].decode()), len(ln.encode()[:n.end_col_offset].decode()))

    flat = {}
    for p, shape in zip(params, key):
        if shape is None or p.arg in assigned or p.lineno != p.end_lineno:
            continue
        names = [p.arg + SEP + SEP.join(map(str, path)) for path, s in _paths(shape) if s is None]
        if any(n in taken for n in names):
            continue
        anns = _element_annotations(p.annotation, annotations.get(p.arg), shape, text, value_src)
        leaf_paths = [path for path, s in _paths(shape) if s is None]
        decl = ", ".join(n + (f": {anns[path]}" if path in anns else "") for n, path in zip(names, leaf_paths))
        edits.append((*span(p), decl) if decl else (*span(p), ""))
        flat[p.arg] = shape
    if not flat:
        return text

    done = set()
    for n in ast.walk(fdef):       # (breadth first: the outermost subscript of a chain comes first)
        if not isinstance(n, ast.Subscript) or id(n) in done:
            continue
        chain, base = [], n          # `cfg[0][1]`: the outermost subscript of a chain on a parameter
        while isinstance(base, ast.Subscript):
            chain.append(base)
            base = base.value
        if not (isinstance(base, ast.Name) and base.id in flat):
            continue
        path = []
        for sub in reversed(chain):
            idx = sub.slice
            if isinstance(idx, ast.UnaryOp) and isinstance(idx.op, ast.USub) and isinstance(idx.operand, ast.Constant):
                idx = -idx.operand.value if type(idx.operand.value) is int else None
            elif isinstance(idx, ast.Constant) and type(idx.value) is int:
                idx = idx.value
            else:
                break
            ok, _ = _at(flat[base.id], path + [idx])
            if not ok:
                break
            path.append(idx)
            last = sub
        if not path:
            continue
        shape = flat[base.id]
        norm = []
        for i in path:
            norm.append(i % len(shape))
            shape = shape[norm[-1]]
        text_of = base.id + SEP + SEP.join(map(str, norm)) if shape is None else _sub_literal(base.id, flat[base.id], norm)
        if last.lineno != last.end_lineno or _in_nested(fdef, last):
            continue
        edits.append((*span(last), text_of))
        done.update(id(x) for x in ast.walk(last))
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and n.id in flat and isinstance(n.ctx, ast.Load) and id(n) not in done \
                and not _in_nested(fdef, n):
            edits.append((*span(n), _literal(n.id, flat[n.id])))
    out = list(lines)
    for ln, a, b, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        s = out[ln - 1]
        out[ln - 1] = s[:a] + new + s[b:]
    return "".join(out)


def _sub_literal(name, shape, path):
    for i in path:
        shape = shape[i]
    return _literal(name + SEP + SEP.join(map(str, path)), shape)


def _in_nested(fdef, node):
    """Whether `node` is inside a function or lambda nested in `fdef` (whose own parameters may
    reuse the name: left as written)."""
    for n in ast.walk(fdef):
        if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not fdef:
            if any(x is node for x in ast.walk(n)):
                return True
    return False
