"""ct.launch -> the kernel's launcher (`launch_K(grid, *args)`; `_c2t_launch` for a kernel chosen at
run time), rewritten after the walk (`rewrite_launch`: the other rules' edits are then known, and
the loops of launches that are batched, seed section 5); ct.cdiv."""
from __future__ import annotations

from types import MappingProxyType

from ..ir import nodes as N
from ..ir.nodes import walk
from ..lower.kernels import batch_refusal
from .registry import Diag, Edit, Out, apply_edits, below, is_current_stream, rule, src


@rule(N.Call)
def launch(ctx, stmt, n):
    if ctx.info.ct_path(n.func) != "launch":
        return None
    return Out(launch=n, covers=below(n.func))


@rule(N.Call)
def cdiv(ctx, stmt, n):
    # cuTile's own formula (exact for negative values too), without the cost of calling
    # triton.cdiv, a JIT-side function, on the host
    if ctx.info.ct_path(n.func) != "cdiv":
        return None
    return Out(edits=(Edit(n.func.span.start, n.func.span.end, "_c2t_host_cdiv"),), needs=frozenset({"cdiv"}),
               covers=below(n.func))


# Calls a batched loop may make while it runs: they read only metadata, never array contents
# (launches are deferred until a group is full, so a data read could see memory before a launch
# cuTile would already have made). Anything else in the loop keeps its launches one by one.
_METADATA_CALLS = frozenset({"zip", "enumerate", "range", "reversed", "len", "min", "max"})
_METADATA_METHODS = frozenset({"size", "stride", "dim", "numel", "element_size", "data_ptr"})


def _reads_only_metadata(info, e) -> bool:
    for n in walk(e):
        if isinstance(n, (N.Lambda, N.Comprehension)):
            return False
        f = n.func if isinstance(n, N.Call) else None
        if f is not None and not (info.ct_path(f) == "cdiv" or (isinstance(f, N.Name) and f.id in _METADATA_CALLS)
                                  or (isinstance(f, N.Attr) and f.attr in _METADATA_METHODS)):
            return False
    return True


# Statements a batched loop's body may have next to its launch: allocating an output (torch.empty,
# empty_like, empty_strided, zeros-free: nothing written, so nothing a deferred launch could race
# with) and collecting it (`outs.append(o)`), with arguments that read only metadata.
_ALLOC_TORCH = frozenset({"empty", "empty_like", "empty_strided"})
_ALLOC_METHODS = frozenset({"new_empty", "new_empty_strided"})


def _metadata_call_args(info, call: N.Call) -> bool:
    return all(_reads_only_metadata(info, a) for a in call.args) and \
        all(_reads_only_metadata(info, k.value) for k in call.keywords)


def _allocates(info, st) -> bool:
    """`name = torch.empty_like(t)` (torch.empty, empty_strided, t.new_empty) on metadata only."""
    if not (isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name)
            and isinstance(st.value, N.Call) and isinstance(st.value.func, N.Attr)):
        return False
    f = st.value.func
    known = (f.attr in _ALLOC_TORCH and isinstance(f.value, N.Name) and f.value.id == "torch") or \
        (f.attr in _ALLOC_METHODS and _reads_only_metadata(info, f.value))
    return known and _metadata_call_args(info, st.value)


def _collects(info, st) -> bool:
    """`outs.append(o)`: a list method call on metadata-only values."""
    if not (isinstance(st, N.ExprStmt) and isinstance(st.value, N.Call)):
        return False
    f = st.value.func
    return isinstance(f, N.Attr) and f.attr == "append" and isinstance(f.value, N.Name) \
        and not st.value.keywords and _metadata_call_args(info, st.value)


def _launch_stmt(info, st):
    """The ct.launch call of an expression statement, or None."""
    if isinstance(st, N.ExprStmt) and isinstance(st.value, N.Call) and info.ct_path(st.value.func) == "launch":
        return st.value
    return None


def batched_loops(ctx, statements) -> tuple:
    """Host `for` loops whose body is one ct.launch of a translated kernel (cat/stack/split/copy
    style), with any allocations of its outputs and appends that collect them
    (`o = torch.empty_like(t); ct.launch(...); outs.append(o)`), run up to four launches per launch:
    (an Out with a C2T207 note for each loop that cannot be, {id(launch call): its loop},
    {kernel: its batch_consts, batch_arrays, batch_written})."""
    info, text = ctx.info, ctx.text
    found, slots, diags = {}, {}, []
    for n in (x for st in statements for x in info.nodes(st)):
        if not isinstance(n, N.For):
            continue
        calls = [c for c in (_launch_stmt(info, st) for st in n.body) if c is not None]
        if not calls:
            continue
        call = calls[0]
        if len(call.args) != 4 or call.keywords:
            continue
        kern = call.args[2]
        if not (isinstance(kern, N.Name) and kern.id in ctx.kernels):
            continue
        others = [st for st in n.body if _launch_stmt(info, st) is None]
        why = ""
        if n.orelse:
            why = "the loop has an `else` block"
        elif len(calls) > 1:
            why = "its body launches more than once"
        elif not all(_allocates(info, st) or _collects(info, st) for st in others):
            why = ("its body does more than launch, allocate outputs (torch.empty, empty_like, empty_strided, "
                   "new_empty on sizes, dtypes and devices) and collect them (`list.append`)")
        if not why:
            why = batch_refusal(ctx.kernels[kern.id], info)
        if not why and text[text.rfind("\n", 0, n.span.start) + 1:n.span.start].strip():
            why = "the `for` does not start its line"
        if not why and not all(_reads_only_metadata(info, e) for e in (n.iter, call.args[1], call.args[3])):
            why = ("the loop's iterable, grid or arguments call something that may read array data "
                   "(only zip/enumerate/range/len/min/max, ct.cdiv and size/stride/... are known not to), "
                   "and batched launches are deferred")
        if why:
            diags.append(Diag("C2T207", f"the loop launches `{kern.id}` once per iteration; they stay separate "
                                        f"launches because {why}", n.span))
            continue
        plan = ctx.kernels[kern.id]
        ps = list(enumerate(plan.params))
        slots[kern.id] = (tuple(i for i, p in ps if p.kind == "constexpr"), tuple(i for i, p in ps if p.kind == "array"),
                          tuple(i for i, p in ps if p.kind == "array" and p.name in plan.written))
        found[id(call)] = n
    out = Out(diags=tuple(diags), needs=frozenset({"batched"}) if found else frozenset())
    return out, MappingProxyType(found), MappingProxyType(slots)


def _part(text: str, e, inner) -> str:
    """Source of `e` with the host edits that fall inside it applied."""
    sub = [Edit(x.start - e.span.start, x.end - e.span.start, x.text) for x in inner
           if e.span.start <= x.start and x.end <= e.span.end]
    return apply_edits(src(text, e), sub)


def _launcher_args(text: str, grid, kargs, stream, inner) -> list:
    """`grid, *args, stream=...` (no stream for the current one) of a launcher's call."""
    parts = [_part(text, grid, inner)]
    if isinstance(kargs, N.TupleExpr):
        parts += [_part(text, a, inner) for a in kargs.elts]
    else:
        parts.append("*" + _part(text, kargs, inner))
    if not is_current_stream(text, stream):
        parts.append(f"stream={_part(text, stream, inner)}")
    return parts


def _batched_launch(ctx, call: N.Call, loop: N.For, inner) -> Out:
    """`for ...: ct.launch(s, grid, k, args)` -> a _C2TBatch made before the loop, `.add(grid, *args)`
    in it, `.flush()` after it."""
    text = ctx.text
    stream, grid, kern, kargs = call.args
    var = f"_c2t_batch_{loop.span.line}"
    indent = text[text.rfind("\n", 0, loop.span.start) + 1:loop.span.start]
    parts = _launcher_args(text, grid, kargs, stream, inner)
    return Out(edits=(
        Edit(loop.span.start, loop.span.start,
             f"{var} = _c2t_batch_{kern.id}()  # this loop's launches run up to four per launch\n{indent}"),
        Edit(call.span.start, call.span.end, f"{var}.add({', '.join(parts)})"),
        Edit(loop.span.end, loop.span.end, f"\n{indent}{var}.flush()")))


def rewrite_launch(ctx, call: N.Call, inner, loop=None) -> Out:
    """The edit of one ct.launch call (`loop`: the batched loop it is the body of)."""
    if loop is not None:
        return _batched_launch(ctx, call, loop, inner)
    text, args = ctx.text, call.args
    kw = {k.name: k for k in call.keywords}
    if len(args) != 4 or any(isinstance(a, N.Starred) for a in args):
        return Out(edits=(Edit(call.span.start, call.span.end, src(text, call)),),
                   diags=(Diag("C2T107", "ct.launch needs exactly (stream, grid, kernel, args)", call.span),))
    stream, grid, kern, kargs = args
    diags = []
    if set(kw) - {"programmatic_dependent_launch"}:
        diags.append(Diag("C2T107", f"ct.launch: unknown keyword(s) {sorted(set(kw))}", call.span))
    # programmatic dependent launch: Triton's launch_pdl launch option (the launcher's c2t_pdl)
    pdl = _part(text, kw["programmatic_dependent_launch"].value, inner) \
        if "programmatic_dependent_launch" in kw else None
    needs = frozenset() if pdl is None else frozenset({"pdl"})
    if isinstance(kern, N.Name) and kern.id in ctx.refused:
        # a kernel that was not translated: its stand-in raises, quoting why
        code = f"{kern.id}.c2t_launch({_part(text, grid, inner)}, {_part(text, kargs, inner)})"
    elif not (isinstance(kern, N.Name) and kern.id in ctx.kernels):
        # a kernel chosen at run time (tuned variants, kernel tables): dispatch by the object
        stream_code = "None" if is_current_stream(text, stream) else _part(text, stream, inner)
        code = (f"_c2t_launch({stream_code}, {_part(text, grid, inner)}, {_part(text, kern, inner)}, "
                f"{_part(text, kargs, inner)}{'' if pdl is None else f', pdl={pdl}'})")
    else:
        parts = _launcher_args(text, grid, kargs, stream, inner)
        n = len(ctx.kernels[kern.id].params)
        if isinstance(kargs, N.TupleExpr) and len(kargs.elts) != n \
                and not any(isinstance(a, N.Starred) for a in kargs.elts):
            diags.append(Diag("C2T109", f"ct.launch passes {len(kargs.elts)} arguments to `{kern.id}`, "
                                        f"which takes {n}", kargs.span))
        if pdl is not None:
            parts.append(f"c2t_pdl={pdl}")
        code = f"launch_{kern.id}({', '.join(parts)})"
    return Out(edits=(Edit(call.span.start, call.span.end, code),), diags=tuple(diags), needs=needs)
