"""cuda.tile names in host code that are not calls the other rules rewrite: f-string fields, type
annotations, dtypes (torch's), Constant aliases, and the names that are not translated (C2T108)."""
from __future__ import annotations

import ast

from .. import rules
from ..ir import nodes as N
from ..lower import registry as ops
from .registry import Diag, Edit, Out, below, rule, src


def fstring_ct_names(info, n: N.Raw) -> list:
    """The cuda.tile names (the module's aliases, names imported from it, module aliases of its
    objects) an f-string's fields use: the IR keeps f-strings as text, so host rewrites do not
    reach them (the source is parsed here, never run)."""
    try:
        tree = ast.parse(n.text, mode="eval")
    except SyntaxError:
        return []
    ct = (info.ct_modules | set(info.ct_names) | info.cuda_names | set(info.ct_constants)
          | info.constant_aliases)
    return sorted({x.id for x in ast.walk(tree) if isinstance(x, ast.Name) and x.id in ct})


@rule(N.Raw)
def fstrings(ctx, stmt, n):
    used = fstring_ct_names(ctx.info, n) if n.kind == "fstring" else None
    if not used:
        return None
    return Out(diags=(Diag("C2T108", f"an f-string in host code uses `{used[0]}` (cuda.tile), which is not "
                                     "translated inside f-string fields", n.span,
                           "compute the value before the f-string and format that variable"),))


@rule(N.Attr, N.Name)
def annotations(ctx, stmt, n):
    # `owner: ct.kernel`, `compute_type: ct.DType`, `r: TuningResult[Any]` (type annotations):
    # the whole annotation kept as text (`'TuningResult'[Any]` would fail when evaluated)
    path = ctx.info.ct_path(n)
    if id(n) not in stmt.annotations or path is None or path.startswith("Constant"):
        return None
    whole = stmt.annotations[id(n)]
    return Out(edits=(Edit(whole.span.start, whole.span.end, repr(src(ctx.text, whole))),), covers=below(whole))


def _path(ctx, stmt, n):
    """The cuda.tile path of a name the rules below look at, else None."""
    path = ctx.info.ct_path(n)
    if path is None or (isinstance(n, N.Name) and n.id in ctx.info.ct_constants):
        return None
    if path == "" and id(n) in stmt.rebound:
        return None     # `ct = None` (the fallback of a guarded import) rebinds the name only
    return path


@rule(N.Attr, N.Name)
def dtypes(ctx, stmt, n):
    path = _path(ctx, stmt, n)
    if path not in rules.HOST_DTYPES:
        return None
    return Out(edits=(Edit(n.span.start, n.span.end, rules.HOST_DTYPES[path]),), covers=below(n))


@rule(N.Attr, N.Name)
def constants(ctx, stmt, n):
    """ct.Constant[...] (parameter annotations of kernels the host defines): left as they are."""
    path = _path(ctx, stmt, n)
    return Out(covers=below(n)) if path is not None and path.startswith("Constant") else None


def _nested_diag(stmt, d, paths) -> Diag:
    # (one error for the function, not one per use: a kernel defined inside a test function uses
    # dozens of cuda.tile names)
    return Diag("C2T108", f"function `{d.name}`, defined inside `{stmt.node.name}`, uses cuda.tile ("
                + ", ".join(f"`ct.{p}`" for p in paths) + "): only module-level kernels and the "
                "functions they call are translated; calling it raises", d.span,
                "define the kernel (and its helpers) at module level, with what it reads from the "
                "enclosing function as ct.Constant parameters")


@rule(N.Attr, N.Name)
def nested_functions(ctx, stmt, n):
    path = _path(ctx, stmt, n)
    if path is None or id(n) not in stmt.nested:
        return None
    return Out(covers=below(n), group=(_nested_diag, stmt.nested[id(n)], path))


@rule(N.Attr, N.Name)
def tile_ops(ctx, stmt, n):
    """A function host code calls that uses a tile operation (only kernels can run it)."""
    path, st = _path(ctx, stmt, n), stmt.node
    if not (path is not None and isinstance(st, N.FunctionDef) and ops.lookup(path) is not None
            and ctx.host_calls.get(st.name)):
        return None
    return Out(covers=below(n), diags=(Diag(
        "C2T108", f"function `{st.name}` uses `ct.{path}`, a tile operation, but host code of this module "
                  "refers to it (no kernel calls it), so it is host code, where that is not translated", n.span,
        "tile operations run in kernels: decorate it with @ct.kernel if it is one, or call it only from "
        "kernels (it then becomes a Triton helper)"),))


@rule(N.Name)
def presence(ctx, stmt, n):
    """`if ct is not None:`, `if not ct:`, `HAVE = ct is not None` (after a guarded import): in the
    translation, cuda.tile is there (its translation is): the name tests as `True`."""
    if _path(ctx, stmt, n) != "" or id(n) not in stmt.presence:
        return None
    return Out(edits=(Edit(n.span.start, n.span.end, "True"),), covers=below(n))


def _assigns_ct(ctx, st) -> bool:
    """`ct.pack_to_bytes = ...`: a statement that patches cuda.tile (left to `untranslated`)."""
    return isinstance(st, N.Assign) and any(ctx.info.ct_path(t) is not None for t in st.targets)


@rule(N.Attr, N.Name)
def device_function_values(ctx, stmt, n):
    """`{Op.ADD: ct.atomic_add, ...}`: a tile operation held as a value by host code (a table
    kernels read at translation time, passes/fn_values.py): a stand-in that names it and raises
    when the host calls it."""
    path = _path(ctx, stmt, n)
    if not path or path in ("launch", "cdiv", "kernel", "function") or ops.lookup(path) is None \
            or path in rules.HOST_DTYPES or id(n) in stmt.rebound or _assigns_ct(ctx, stmt.node):
        return None
    called = ctx.info.once("called functions", stmt.node, lambda st: frozenset(
        id(c.func) for c in ctx.info.nodes(st) if isinstance(c, N.Call)))
    if id(n) in called:
        return None
    return Out(edits=(Edit(n.span.start, n.span.end, f"_c2t_device_function({path!r})"),), covers=below(n),
               needs=frozenset({"device_function"}))


@rule(N.Attr, N.Name)
def untranslated(ctx, stmt, n):
    """Any other cuda.tile name; ct.launch and ct.cdiv are translated only where they are called."""
    path = _path(ctx, stmt, n)
    if path is None:
        return None
    if path in ("launch", "cdiv"):
        d = Diag("C2T108", f"`ct.{path}` is used here as a value; host code translates it only where it is called",
                 n.span, f"call it directly, e.g. `ct.{path}(...)`"
                 + (" (not through functools.partial or an alias)" if path == "launch" else ""))
    elif path == "":
        d = Diag("C2T108", f"host code uses the cuda.tile module `{src(ctx.text, n)}` as a value, which is not "
                           "translated", n.span, "only tests of whether it is there (`if ct is not None:`) are "
                           "translated (as True); use its names (ct.launch, ct.cdiv, dtypes) directly")
    else:
        d = Diag("C2T108", f"host code uses `ct.{path}`, which is not translated", n.span)
    return Out(covers=below(n), diags=(d,))


def drop_ct_aliases(info, uses: dict, text: str) -> Out:
    """`ConstInt = ct.Constant[int]`, `PAD = ct.PaddingMode.ZERO`, `I64s = Annotated[list,
    ct.ListAnnotation(...)]`: kernel-only names, removed
    (host.rewrite_host leaves these statements alone). `uses`: name -> uses outside what the
    translation replaces."""
    edits, diags = [], []
    defs: dict = {}
    for st in info.module.body:
        if isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name):
            defs[st.targets[0].id] = defs.get(st.targets[0].id, 0) + 1
    for st in info.module.body:
        if not (isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name)):
            continue
        name = st.targets[0].id
        if name not in info.constant_aliases and name not in info.ct_constants and name not in info.hint_aliases:
            continue
        if uses.get(name, 0) > defs[name]:
            path = info.ct_constants.get(name)
            if path in rules.HOST_DTYPES:
                # `OUT_DTYPE = ct.float16` read on the host (passed to a launch): torch's dtype there
                edits.append(Edit(st.value.span.start, st.value.span.end, rules.HOST_DTYPES[path]))
                continue
            diags.append(Diag("C2T108", f"`{name}` (a cuda.tile alias) is used by host code", st.span))
            continue
        start = text.rfind("\n", 0, st.span.start) + 1
        end = text.find("\n", max(st.span.end - 1, st.span.start))     # (its last line: it may span several)
        end = len(text) if end < 0 else end + 1
        edits.append(Edit(start, end, ""))
    return Out(edits=tuple(edits), diags=tuple(diags))
