"""Host code: keep the user's text, splice in launches, cdiv and dtype rewrites by source span."""
from __future__ import annotations

from dataclasses import dataclass

from . import rules
from .analysis import ModuleInfo
from .diagnostics import Reporter
from .ir import nodes as N
from .lower.arrays import walk


@dataclass
class Edit:
    start: int
    end: int
    text: str


def _src(text: str, e) -> str:
    return text[e.span.start:e.span.end]


def _is_current_stream(info: ModuleInfo, text: str, e) -> bool:
    """torch.cuda.current_stream() (any argument): the launch then needs no stream code."""
    if not isinstance(e, N.Call):
        return False
    f = _src(text, e.func).replace(" ", "")
    return f.endswith("cuda.current_stream")


def host_name_uses(info: ModuleInfo, skip: set) -> dict:
    """Names used outside the functions in `skip` (kernels): name -> count."""
    uses: dict = {}
    for st in info.module.body:
        if isinstance(st, N.FunctionDef) and st.name in skip:
            continue
        for n in walk(st):
            if isinstance(n, N.Name):
                uses[n.id] = uses.get(n.id, 0) + 1
    return uses


def fstring_ct_names(info: ModuleInfo, n: N.Raw) -> list:
    """The cuda.tile names (the module's aliases, names imported from it, module aliases of its
    objects) an f-string's fields use: the IR keeps f-strings as text, so host rewrites do not
    reach them (the source is parsed here, never run)."""
    import ast
    try:
        tree = ast.parse(n.text, mode="eval")
    except SyntaxError:
        return []
    ct = (info.ct_modules | set(info.ct_names) | info.cuda_names | set(info.ct_constants)
          | info.constant_aliases)
    return sorted({x.id for x in ast.walk(tree) if isinstance(x, ast.Name) and x.id in ct})


def _num_ctas_fate(plan) -> str:
    if plan.clusters and plan.cluster_free:
        which = "; ".join(", ".join(f"{f}={v}" for f, v in zip(plan.flags, t)) for t in plan.cluster_free)
        return (f"num_ctas reaches the Triton launch (a CTA cluster) except for `{plan.name}` with {which}: "
                "those variants transpose or permute tiles, which Triton 3.6's num_ctas (CTA clusters) "
                "miscompiles")
    if plan.clusters:
        return "num_ctas reaches the Triton launch (a CTA cluster)"
    return (f"num_ctas is not applied: `{plan.name}`: {plan.no_clusters_why}, and Triton 3.6's num_ctas "
            "(CTA clusters) miscompiles or fails to compile such kernels")


def _kernel_side(path: str) -> bool:
    """A cuda.tile operation that only kernels (and their helpers) can run."""
    from .lower import registry
    return registry.lookup(path) is not None


def _rewrapped_kernel(info: ModuleInfo, kernels, n):
    """The kernel of a host call `ct.kernel(K._pyfunc, **hints)` (K a translated kernel) or
    `ct.kernel(f, **hints)` (f a plain function, analysis.host_made_kernels), else None."""
    if not (isinstance(n, N.Call) and len(n.args) == 1 and all(k.name for k in n.keywords)
            and info.ct_path(n.func) == "kernel"):
        return None
    a = n.args[0]
    if isinstance(a, N.Attr) and a.attr == "_pyfunc" and isinstance(a.value, N.Name) and a.value.id in kernels:
        return a.value.id
    if isinstance(a, N.Name) and a.id in info.host_made_kernels:
        return a.id
    return None


def _hints_fate(plan) -> str:
    return (_num_ctas_fate(plan) + "; the other cuTile hints (occupancy, opt_level, num_worker_warps) "
            "have no Triton equivalent and are ignored")


def _annotation_nodes(st) -> set:
    """ids of the nodes of `st` that are type annotations, or inside one (parameters, returns,
    annotated assignments, dataclass fields)."""
    out = set()
    for n in walk(st):
        anns = []
        if isinstance(n, N.AnnAssign):
            anns.append(n.annotation)
        elif isinstance(n, N.FunctionDef):
            anns += [p.annotation for p in n.params] + [n.returns]
        for a in anns:
            if a is not None:
                out.update(id(x) for x in walk(a))
    return out


def rewrite_host(info: ModuleInfo, text: str, rep: Reporter, kernels: dict, skip: set,
                 refused: frozenset = frozenset(), needs: set = None) -> list:
    """Edits for every cuda.tile use outside kernel/helper bodies. `refused`: kernels written as
    stand-ins (partial translation), whose launches raise."""
    needs = set() if needs is None else needs     # what the edits need of the host prelude (filled here)
    host_calls = host_name_uses(info, skip)
    edits: list = []
    handled: set = set()
    launches: list = []
    for st in info.module.body:
        if isinstance(st, N.FunctionDef) and st.name in skip:
            continue
        if isinstance(st, N.Import):
            continue
        if isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name) \
                and (st.targets[0].id in info.constant_aliases or st.targets[0].id in info.ct_constants):
            continue    # kernel-only aliases (ConstInt = ct.Constant[int]) are dropped from the output
        annotations = _annotation_nodes(st)
        rebound = {id(t) for x in walk(st) if isinstance(x, N.Assign) for t in x.targets}
        nested: dict = {}       # id(node) -> the outermost function defined inside `st` holding it
        for d in (walk(st.body) if isinstance(st, N.FunctionDef) else ()):
            if isinstance(d, N.FunctionDef):
                for x in walk(d):
                    nested.setdefault(id(x), d)
        nested_uses: dict = {}  # id(that function) -> (it, the cuda.tile names it uses)
        for n in walk(st):
            if id(n) in handled:
                continue
            k = _rewrapped_kernel(info, set(kernels) | set(refused), n)
            if k is not None:
                # ct.kernel(K._pyfunc, occupancy=...): K compiled again with other hints (TileGym's
                # unsloth suite caches tuned kernels so), and ct.kernel(f, ...) of a plain function,
                # which is translated as a kernel (cuTile's tests): `K` / `K.replace_hints(...)`
                # (a refused kernel's stand-in gives itself back from replace_hints)
                if n.keywords:
                    edits.append(Edit(n.func.span.start, n.func.span.end, f"{k}.replace_hints"))
                    edits.append(Edit(n.args[0].span.start, n.keywords[0].span.start, ""))
                    if k not in refused:
                        needs.add("hints")
                        rep.add("C2T204", f"`ct.kernel({_src(text, n.args[0])}, ...)` is `{k}.replace_hints(...)`: "
                                          + _hints_fate(kernels[k]), n.span)
                else:
                    edits.append(Edit(n.span.start, n.span.end, k))
                handled.update(id(x) for x in (*walk(n.func), *walk(n.args[0])))
                continue
            if isinstance(n, N.Call) and info.ct_path(n.func) == "ByTarget":
                # a hint value on the host (`k.replace_hints(occupancy=ByTarget(sm_100=4,
                # default=4))`): the translation targets sm_90, so it is that entry's value
                from .lower.ops_math import resolve_by_target
                try:
                    chosen = resolve_by_target(n, 90)
                except ValueError as exc:
                    rep.add("C2T109", f"ct.ByTarget: {exc}", n.span)
                    handled.update(id(x) for x in walk(n))
                    continue
                edits.append(Edit(n.span.start, n.span.end, "None" if chosen is None else f"({_src(text, chosen)})"))
                kept = {id(x) for x in walk(chosen)} if chosen is not None else set()
                handled.update(id(x) for x in walk(n) if id(x) not in kept)   # (ct names in the value are rewritten)
                rep.add("C2T204", "ct.ByTarget on the host: the sm_90 entry (or the default) is used", n.span)
                continue
            if isinstance(n, N.Raw) and n.kind == "fstring":
                used = fstring_ct_names(info, n)
                if used:
                    rep.add("C2T108", f"an f-string in host code uses `{used[0]}` (cuda.tile), which is not "
                                      "translated inside f-string fields", n.span,
                            "compute the value before the f-string and format that variable")
                continue
            if isinstance(n, (N.Attr, N.Name)) and id(n) in annotations and info.ct_path(n) is not None \
                    and not info.ct_path(n).startswith("Constant"):
                # `owner: ct.kernel`, `compute_type: ct.DType` (type annotations): kept as text
                edits.append(Edit(n.span.start, n.span.end, repr(_src(text, n))))
                handled.update(id(x) for x in walk(n))
                continue
            if isinstance(n, N.Call):
                if isinstance(n.func, N.Attr) and n.func.attr == "replace_hints" \
                        and isinstance(n.func.value, N.Name) and n.func.value.id in kernels:
                    needs.add("hints")
                    rep.add("C2T204", f"`{n.func.value.id}.replace_hints(...)`: "
                                      + _hints_fate(kernels[n.func.value.id]), n.span)
                path = info.ct_path(n.func)
                if path == "launch":
                    launches.append(n)
                    handled.update(id(x) for x in walk(n.func))
                elif path == "cdiv":
                    # cuTile's own formula (exact for negative values too), without the cost of
                    # calling triton.cdiv, a JIT-side function, on the host
                    edits.append(Edit(n.func.span.start, n.func.span.end, "_c2t_host_cdiv"))
                    needs.add("cdiv")
                    handled.update(id(x) for x in walk(n.func))
                elif path in ("tune.exhaustive_search",):
                    # cuTile's autotuner: the generated module has a do_bench search with its API
                    edits.append(Edit(n.func.span.start, n.func.span.end, "_c2t_exhaustive_search"))
                    handled.update(id(x) for x in walk(n.func))
                    if len(n.args) > 1 and _is_current_stream(info, text, n.args[1]):
                        # the current stream needs no code (and this also runs on CPU tensors)
                        edits.append(Edit(n.args[1].span.start, n.args[1].span.end, "None"))
                    needs.update(("exhaustive_search", "hints"))
                    rep.add("C2T214", "exhaustive_search: configs that leave SMs idle are also timed with "
                                      "other tile sizes (C2T_TILE_VARIANTS, on by default on a GPU)", n.span)
                    tuned = None
                    if len(n.args) > 3 and isinstance(n.args[3], N.Name) and n.args[3].id in kernels:
                        tuned = kernels[n.args[3].id]
                        if tuned.subs:          # one kernel per array rank: its launches are timed instead
                            tuned = None
                        else:
                            tuned.tuned = True      # the search autotunes it with META
                    hints = n.args[5] if len(n.args) > 5 else next(
                        (k.value for k in n.keywords if k.name == "hints_fn"), None)
                    if hints is not None and not (isinstance(hints, N.Const) and hints.value is None):
                        rep.add("C2T204", "exhaustive_search: the hints function's "
                                          + (_num_ctas_fate(tuned) if tuned else
                                             "num_ctas reaches the kernel's launch where its kernel allows clusters (see C2T201)")
                                          + "; its other hints (occupancy, ...) have no Triton equivalent "
                                            "(num_warps comes from the tile sizes)", hints.span)
                elif path == "compiler_timeout":
                    # a limit on cuTile's compiler; Triton compiles on first launch without one
                    edits.append(Edit(n.span.start, n.span.end, "contextlib.nullcontext()"))
                    handled.update(id(x) for x in walk(n))
                    rep.add("C2T204", "ct.compiler_timeout(...) has no Triton equivalent; "
                                      "replaced by contextlib.nullcontext()", n.span)
                continue
            if isinstance(n, (N.Attr, N.Name)):
                path = info.ct_path(n)
                if path is None or (isinstance(n, N.Name) and n.id in info.ct_constants):
                    continue
                if path == "" and id(n) in rebound:
                    continue    # `ct = None` (the fallback of a guarded import) rebinds the name only
                handled.update(id(x) for x in walk(n))
                if path in rules.HOST_DTYPES:
                    edits.append(Edit(n.span.start, n.span.end, rules.HOST_DTYPES[path]))
                elif path == "Constant" or path.startswith("Constant"):
                    continue
                elif id(n) in nested:
                    d = nested[id(n)]
                    names = nested_uses.setdefault(id(d), (d, []))[1]
                    if path not in names:
                        names.append(path)
                elif isinstance(st, N.FunctionDef) and _kernel_side(path) and host_calls.get(st.name):
                    rep.add("C2T108", f"function `{st.name}` uses `ct.{path}`, a tile operation, but host code "
                                      "of this module refers to it (no kernel calls it), so it is host code, where "
                                      "that is not translated", n.span,
                            "tile operations run in kernels: decorate it with @ct.kernel if it is one, or "
                            "call it only from kernels (it then becomes a Triton helper)")
                elif path in ("launch", "cdiv"):
                    rep.add("C2T108", f"`ct.{path}` is used here as a value; host code translates it only where "
                                      f"it is called", n.span,
                            f"call it directly, e.g. `ct.{path}(...)`"
                            + (" (not through functools.partial or an alias)" if path == "launch" else ""))
                else:
                    rep.add("C2T108", f"host code uses `ct.{path}`, which is not translated", n.span)
        for d, names in nested_uses.values():
            # (one error for the function, not one per use: a kernel defined inside a test function
            # uses dozens of cuda.tile names)
            rep.add("C2T108", f"function `{d.name}`, defined inside `{st.name}`, uses cuda.tile ("
                              + ", ".join(f"`ct.{p}`" for p in names) + "): only module-level kernels and the "
                              "functions they call are translated; calling it raises", d.span,
                    "define the kernel (and its helpers) at module level, with what it reads from the "
                    "enclosing function as ct.Constant parameters")
    inner = list(edits)
    batched = _launch_loops(info, text, rep, kernels, skip, needs)
    for n in launches:
        if id(n) in batched:
            edits.extend(_batched_launch(info, text, kernels, n, batched[id(n)], inner))
        else:
            edits.append(_launch(info, text, rep, kernels, n, inner, refused, needs))
    return edits


# Calls a batched loop may make while it runs: they read only metadata, never array contents
# (launches are deferred until a group is full, so a data read could see memory before a launch
# cuTile would already have made). Anything else in the loop keeps its launches one by one.
_METADATA_CALLS = {"zip", "enumerate", "range", "reversed", "len", "min", "max"}
_METADATA_METHODS = {"size", "stride", "dim", "numel", "element_size", "data_ptr"}


def _reads_only_metadata(info, e) -> bool:
    for n in walk(e):
        if isinstance(n, (N.Lambda, N.Comprehension)):
            return False
        if isinstance(n, N.Call):
            f = n.func
            if info.ct_path(f) == "cdiv":
                continue
            if isinstance(f, N.Name) and f.id in _METADATA_CALLS:
                continue
            if isinstance(f, N.Attr) and f.attr in _METADATA_METHODS:
                continue
            return False
    return True


def _launch_loops(info, text, rep, kernels, skip, needs: set) -> dict:
    """Host `for` loops whose body is one ct.launch of a translated kernel (cat/stack/split/copy
    style): id(launch call) -> the loop. Their launches are grouped up to four per launch at run
    time (seed section 5); a loop that cannot be batched gets a note saying why."""
    from .lower.kernels import batch_refusal
    found = {}
    for st in info.module.body:
        if isinstance(st, N.FunctionDef) and st.name in skip:
            continue
        for n in walk(st):
            if not (isinstance(n, N.For) and not n.orelse and len(n.body) == 1
                    and isinstance(n.body[0], N.ExprStmt) and isinstance(n.body[0].value, N.Call)):
                continue
            call = n.body[0].value
            if info.ct_path(call.func) != "launch" or len(call.args) != 4 or call.keywords:
                continue
            kern = call.args[2]
            if not (isinstance(kern, N.Name) and kern.id in kernels):
                continue
            plan = kernels[kern.id]
            line_start = text.rfind("\n", 0, n.span.start) + 1
            why = batch_refusal(plan, info)
            if not why and text[line_start:n.span.start].strip():
                why = "the `for` does not start its line"
            if not why and not all(_reads_only_metadata(info, e) for e in (n.iter, call.args[1], call.args[3])):
                why = ("the loop's iterable, grid or arguments call something that may read array data "
                       "(only zip/enumerate/range/len/min/max, ct.cdiv and size/stride/... are known not to), "
                       "and batched launches are deferred")
            if why:
                rep.add("C2T207", f"the loop launches `{kern.id}` once per iteration; they stay separate "
                                  f"launches because {why}", n.span)
                continue
            plan.batched = True
            plan.batch_consts = tuple(i for i, p in enumerate(plan.params) if p.kind == "constexpr")
            plan.batch_arrays = tuple(i for i, p in enumerate(plan.params) if p.kind == "array")
            plan.batch_written = tuple(i for i, p in enumerate(plan.params)
                                       if p.kind == "array" and p.name in plan.written)
            found[id(call)] = n
    if found:
        needs.add("batched")
    return found


def _batched_launch(info, text, kernels, call: N.Call, loop: N.For, inner: list) -> list:
    """`for ...: ct.launch(s, grid, k, args)` -> a _C2TBatch made before the loop, `.add(grid, *args)`
    in it, `.flush()` after it."""
    stream, grid, kern, kargs = call.args
    var = f"_c2t_batch_{loop.span.line}"
    indent = text[text.rfind("\n", 0, loop.span.start) + 1:loop.span.start]
    parts = [_part(text, grid, inner)]
    if isinstance(kargs, N.TupleExpr):
        parts += [_part(text, a, inner) for a in kargs.elts]
    else:
        parts.append("*" + _part(text, kargs, inner))
    if not _is_current_stream(info, text, stream):
        parts.append(f"stream={_part(text, stream, inner)}")
    return [Edit(loop.span.start, loop.span.start,
                 f"{var} = _c2t_batch_{kern.id}()  # this loop's launches run up to four per launch\n{indent}"),
            Edit(call.span.start, call.span.end, f"{var}.add({', '.join(parts)})"),
            Edit(loop.span.end, loop.span.end, f"\n{indent}{var}.flush()")]


def _part(text: str, e, inner: list) -> str:
    """Source of `e` with the host edits that fall inside it applied."""
    sub = [Edit(x.start - e.span.start, x.end - e.span.start, x.text) for x in inner
           if e.span.start <= x.start and x.end <= e.span.end]
    return apply_edits(_src(text, e), sub)


def _launch(info, text, rep, kernels, call: N.Call, inner: list, refused=frozenset(), needs=None) -> Edit:
    args = call.args
    kw = {k.name: k for k in call.keywords}
    if len(args) != 4 or any(isinstance(a, N.Starred) for a in args):
        rep.add("C2T107", "ct.launch needs exactly (stream, grid, kernel, args)", call.span)
        return Edit(call.span.start, call.span.end, _src(text, call))
    stream, grid, kern, kargs = args
    if set(kw) - {"programmatic_dependent_launch"}:
        rep.add("C2T107", f"ct.launch: unknown keyword(s) {sorted(set(kw))}", call.span)
    # programmatic dependent launch: Triton's launch_pdl launch option (the launcher's c2t_pdl)
    pdl = _part(text, kw["programmatic_dependent_launch"].value, inner) \
        if "programmatic_dependent_launch" in kw else None
    if pdl is not None:
        needs.add("pdl")
    if isinstance(kern, N.Name) and kern.id in refused:
        # a kernel that was not translated: its stand-in raises, quoting why
        return Edit(call.span.start, call.span.end, f"{kern.id}.c2t_launch({_part(text, grid, inner)}, "
                                                    f"{_part(text, kargs, inner)})")
    if not (isinstance(kern, N.Name) and kern.id in kernels):
        # a kernel chosen at run time (tuned variants, kernel tables): dispatch by the object
        stream_code = "None" if _is_current_stream(info, text, stream) else _part(text, stream, inner)
        return Edit(call.span.start, call.span.end,
                    f"_c2t_launch({stream_code}, {_part(text, grid, inner)}, {_part(text, kern, inner)}, "
                    f"{_part(text, kargs, inner)}{'' if pdl is None else f', pdl={pdl}'})")
    parts = [_part(text, grid, inner)]
    if isinstance(kargs, N.TupleExpr):
        parts += [_part(text, a, inner) for a in kargs.elts]
        plan = kernels[kern.id]
        if len(kargs.elts) != len(plan.params) and not any(isinstance(a, N.Starred) for a in kargs.elts):
            rep.add("C2T109", f"ct.launch passes {len(kargs.elts)} arguments to `{kern.id}`, "
                              f"which takes {len(plan.params)}", kargs.span)
    else:
        parts.append("*" + _part(text, kargs, inner))
    if not _is_current_stream(info, text, stream):
        parts.append(f"stream={_part(text, stream, inner)}")
    if pdl is not None:
        parts.append(f"c2t_pdl={pdl}")
    return Edit(call.span.start, call.span.end, f"launch_{kern.id}({', '.join(parts)})")


def apply_edits(text: str, edits: list) -> str:
    # at one position: insertions first, then the widest replacement; an edit nested in an
    # earlier replacement is covered by it
    edits = sorted(edits, key=lambda e: (e.start, e.end != e.start, -e.end))
    out, pos = [], 0
    for e in edits:
        if e.start < pos:       # nested in an earlier edit: already covered
            continue
        out.append(text[pos:e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)
