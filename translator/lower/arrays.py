"""Which parameters of a kernel or helper are Arrays, and their ranks (inferred from use)."""
from __future__ import annotations

from ..analysis import ModuleInfo
from ..ir import nodes as N

# ct operations whose first argument is an array, and how to read the rank off the call
_ARRAY_OPS = {"load", "store", "gather", "scatter", "num_tiles", "atomic_cas", "atomic_xchg",
              "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
              "load_advanced_indexing", "store_advanced_indexing"}
_ARRAY_ATTRS = {"shape", "strides", "dtype", "ndim", "slice", "tiled_view", "get_raw_memory"}
# Array methods whose result stands for the same parameter (views): `v = x.slice(...)`
_DERIVED = {"slice", "tiled_view", "get_raw_memory"}


def _base_name(e, alias: dict):
    """The parameter behind `x`, `x.slice(...)`, `x.slice(...).tiled_view(...)` or an alias of one."""
    for _ in range(32):
        if isinstance(e, N.Name):
            if e.id not in alias:
                return e.id
            e = alias[e.id]
        elif isinstance(e, N.Call) and isinstance(e.func, N.Attr) and e.func.attr in _DERIVED:
            e = e.func.value
        else:
            return None
    return None


def walk(node):
    """Yield every IR node below `node` (statements and expressions)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if not isinstance(n, N.Node):
            continue
        yield n
        for f in reversed(list(vars(n).keys())):
            if f in ("span", "full_span"):
                continue
            v = getattr(n, f)
            if isinstance(v, (N.Node, list)):
                stack.append(v)


def _rank_from(e):
    if isinstance(e, (N.TupleExpr, N.ListExpr)):
        return len(e.elts)
    return None


def infer_arrays(fd: N.FunctionDef, info: ModuleInfo, candidates: set, _depth: int = 0) -> dict:
    """Map parameter name -> rank (None when used as an array but the rank is unknown)."""
    found: dict = {}

    def note(name, rank):
        if name not in candidates:
            return
        old = found.get(name)
        if rank is not None and (old is None or rank > old):
            found[name] = rank
        else:
            found.setdefault(name, old)

    tuple_names, alias = {}, {}
    for n in walk(fd.body):
        if isinstance(n, N.Assign) and isinstance(n.value, N.TupleExpr):
            for t in n.targets:
                if isinstance(t, N.Name):
                    tuple_names[t.id] = len(n.value.elts)
        if isinstance(n, N.Assign) and isinstance(n.value, N.Call) and isinstance(n.value.func, N.Attr) \
                and n.value.func.attr in _DERIVED:
            for t in n.targets:
                if isinstance(t, N.Name):
                    alias[t.id] = n.value
    for n in walk(fd.body):
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            if isinstance(n.func, N.Attr) and n.func.attr == "tiled_view":
                shape = n.args[0] if n.args else next((k.value for k in n.keywords if k.name == "tile_shape"), None)
                rank = _rank_from(shape)
                if rank is None and isinstance(shape, N.Const) and isinstance(shape.value, int):
                    rank = 1
                base = _base_name(n.func.value, alias)
                if base is not None:
                    note(base, rank)
            if path in _ARRAY_OPS and n.args and _base_name(n.args[0], alias) is not None:
                kw = {k.name: k.value for k in n.keywords}
                idx = n.args[1] if len(n.args) > 1 else kw.get("index", kw.get("indices"))
                shape = n.args[2] if path == "load" and len(n.args) > 2 else kw.get("shape")
                rank = _rank_from(idx) if idx is not None else None
                if rank is None and isinstance(idx, N.Name):
                    rank = tuple_names.get(idx.id)
                if rank is None and shape is not None and _rank_from(shape):
                    rank = _rank_from(shape)    # a non-empty shape tuple has one entry per axis
                if rank is None and idx is not None and (path in ("load", "store", "gather", "scatter")
                                                         or path.startswith("atomic_")):
                    rank = 1   # a bare scalar/tile index addresses a 1-D array
                note(_base_name(n.args[0], alias), rank)
            elif isinstance(n.func, N.Name) and n.func.id in info.functions and _depth < 8:
                callee = info.functions[n.func.id]
                if callee.name in info.kernels:
                    continue
                pnames = [p.name for p in callee.params if p.kind == "normal"]
                for i, a in enumerate(n.args):
                    if isinstance(a, N.Name) and a.id in candidates and i < len(pnames):
                        sub = infer_arrays(callee, info, {pnames[i]}, _depth + 1)
                        if pnames[i] in sub:
                            note(a.id, sub[pnames[i]])
        elif isinstance(n, N.Attr) and isinstance(n.value, N.Name) and n.attr in _ARRAY_ATTRS:
            note(_base_name(n.value, alias), None)
        elif isinstance(n, N.Subscript) and isinstance(n.value, N.Attr) \
                and n.value.attr in ("shape", "strides") and _base_name(n.value.value, alias) is not None \
                and isinstance(n.index, N.Const) and isinstance(n.index.value, int):
            note(_base_name(n.value.value, alias), n.index.value + 1)
    return found
