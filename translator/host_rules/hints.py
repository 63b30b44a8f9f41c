"""cuTile's compile options on the host: kernels wrapped again with other hints, replace_hints,
ct.ByTarget hint values, ct.compiler_timeout, and the autotuner, ct.tune.exhaustive_search (the
generated module's search, translator/runtime/search.py, autotunes the kernel it is given)."""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.nodes import walk
from ..lower.ops_math import resolve_by_target
from .registry import Diag, Edit, Out, below, is_current_stream, rule, src


def num_ctas_fate(plan) -> str:
    if plan.launch.clusters and plan.launch.cluster_free:
        which = "; ".join(", ".join(f"{f}={v}" for f, v in zip(plan.flags, t)) for t in plan.launch.cluster_free)
        return (f"num_ctas reaches the Triton launch (a CTA cluster) except for `{plan.name}` with {which}: "
                "those variants transpose or permute tiles, which Triton 3.6's num_ctas (CTA clusters) "
                "miscompiles")
    if plan.launch.clusters:
        return "num_ctas reaches the Triton launch (a CTA cluster)"
    return (f"num_ctas is not applied: `{plan.name}`: {plan.launch.no_clusters_why}, and Triton 3.6's num_ctas "
            "(CTA clusters) miscompiles or fails to compile such kernels")


def hints_fate(plan) -> str:
    return (num_ctas_fate(plan) + "; the other cuTile hints (occupancy, opt_level, num_worker_warps) "
            "have no Triton equivalent and are ignored")


def _rewrapped(ctx, n):
    """The kernel of `ct.kernel(K._pyfunc, **hints)` (K a translated or refused kernel) or
    `ct.kernel(f, **hints)` (f a plain function, analysis.host_made_kernels), else None."""
    if not (len(n.args) == 1 and all(k.name for k in n.keywords) and ctx.info.ct_path(n.func) == "kernel"):
        return None
    a = n.args[0]
    if isinstance(a, N.Attr) and a.attr == "_pyfunc" and isinstance(a.value, N.Name) \
            and (a.value.id in ctx.kernels or a.value.id in ctx.refused):
        return a.value.id
    if isinstance(a, N.Name) and a.id in ctx.info.host_made_kernels:
        return a.id
    return None


@rule(N.Call)
def rewrapped_kernel(ctx, stmt, n):
    # K compiled again with other hints (TileGym's unsloth suite caches tuned kernels so), and
    # ct.kernel(f, ...) of a plain function, which is translated as a kernel (cuTile's tests):
    # `K` / `K.replace_hints(...)` (a refused kernel's stand-in gives itself back from replace_hints)
    k = _rewrapped(ctx, n)
    if k is None:
        return None
    covers = below(n.func) | below(n.args[0])
    if not n.keywords:
        return Out(edits=(Edit(n.span.start, n.span.end, k),), covers=covers)
    edits = (Edit(n.func.span.start, n.func.span.end, f"{k}.replace_hints"),
             Edit(n.args[0].span.start, n.keywords[0].span.start, ""))
    if k in ctx.refused:
        return Out(edits=edits, covers=covers)
    return Out(edits=edits, covers=covers, needs=frozenset({"hints"}), diags=(Diag(
        "C2T204", f"`ct.kernel({src(ctx.text, n.args[0])}, ...)` is `{k}.replace_hints(...)`: "
        + hints_fate(ctx.kernels[k]), n.span),))


@rule(N.Call)
def by_target(ctx, stmt, n):
    # a hint value on the host (`k.replace_hints(occupancy=ByTarget(sm_100=4, default=4))`): the
    # translation targets sm_90, so it is that entry's value (ct names in it are rewritten)
    if ctx.info.ct_path(n.func) != "ByTarget":
        return None
    try:
        chosen = resolve_by_target(n, 90)
    except ValueError as exc:
        return Out(diags=(Diag("C2T109", f"ct.ByTarget: {exc}", n.span),), covers=below(n))
    kept = {id(x) for x in walk(chosen)} if chosen is not None else set()
    return Out(edits=(Edit(n.span.start, n.span.end, "None" if chosen is None else f"({src(ctx.text, chosen)})"),),
               covers=frozenset(id(x) for x in walk(n) if id(x) not in kept),
               diags=(Diag("C2T204", "ct.ByTarget on the host: the sm_90 entry (or the default) is used", n.span),))


@rule(N.Call)
def replace_hints(ctx, stmt, n):
    """`K.replace_hints(...)` stays (the launcher takes hints); a note says what becomes of them."""
    f = n.func
    if not (isinstance(f, N.Attr) and f.attr == "replace_hints" and isinstance(f.value, N.Name)
            and f.value.id in ctx.kernels):
        return None
    return Out(needs=frozenset({"hints"}), claims=False, diags=(Diag(
        "C2T204", f"`{f.value.id}.replace_hints(...)`: " + hints_fate(ctx.kernels[f.value.id]), n.span),))


@rule(N.Call)
def compiler_timeout(ctx, stmt, n):
    # a limit on cuTile's compiler; Triton compiles on first launch without one
    if ctx.info.ct_path(n.func) != "compiler_timeout":
        return None
    return Out(edits=(Edit(n.span.start, n.span.end, "contextlib.nullcontext()"),),
               covers=below(n),
               diags=(Diag("C2T204", "ct.compiler_timeout(...) has no Triton equivalent; "
                                     "replaced by contextlib.nullcontext()", n.span),))


@rule(N.Call)
def exhaustive_search(ctx, stmt, n):
    if ctx.info.ct_path(n.func) != "tune.exhaustive_search":
        return None
    edits = [Edit(n.func.span.start, n.func.span.end, "_c2t_exhaustive_search")]
    if len(n.args) > 1 and is_current_stream(ctx.text, n.args[1]):
        # the current stream needs no code (and this also runs on CPU tensors)
        edits.append(Edit(n.args[1].span.start, n.args[1].span.end, "None"))
    diags = [Diag("C2T214", "exhaustive_search: configs that leave SMs idle are also timed with "
                            "other tile sizes (C2T_TILE_VARIANTS, on by default on a GPU)", n.span)]
    tuned, name = None, ""
    if len(n.args) > 3 and isinstance(n.args[3], N.Name) and n.args[3].id in ctx.kernels:
        # the search autotunes it with META, unless it is one kernel per array rank (its launches
        # are timed instead)
        tuned = None if ctx.kernels[n.args[3].id].subs else ctx.kernels[n.args[3].id]
        name = n.args[3].id if tuned else ""
    hints = n.args[5] if len(n.args) > 5 else next((k.value for k in n.keywords if k.name == "hints_fn"), None)
    if hints is not None and not (isinstance(hints, N.Const) and hints.value is None):
        diags.append(Diag("C2T204", "exhaustive_search: the hints function's "
                          + (num_ctas_fate(tuned) if tuned else
                             "num_ctas reaches the kernel's launch where its kernel allows clusters (see C2T201)")
                          + "; its other hints (occupancy, ...) have no Triton equivalent "
                            "(num_warps comes from the tile sizes)", hints.span))
    return Out(edits=tuple(edits), diags=tuple(diags), needs=frozenset(("exhaustive_search", "hints")),
               covers=below(n.func), tuned=name)
