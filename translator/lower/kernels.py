"""Plan and lower each @ct.kernel: parameters (arrays expanded), hints, body."""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from typing import Optional

from ..diagnostics import TranslationError
from ..ir import nodes as N
from . import types as T
from .arrays import array_guards, infer_params, ranks_at_least
from .gemm_loops import stage_bytes
from .kernel import FunctionLowerer, Shared
from .ops_math import is_by_target, resolve_by_target
from .tma import TmaPlan, tma_candidates
from .types import ArrayRef, ListRef, V


@dataclass
class Param:
    name: str
    kind: str                 # "array" | "list" | "constexpr" | "scalar"
    rank: Optional[int] = 0     # arrays: None = rank unknown (used only through its pointer)
    comment: str = ""
    tma_blocks: str = ""        # arrays on the descriptor path: their block shapes (host tuple)
    # whether one of those accesses is inside a loop: only then does C2T_TMA=small (the default)
    # pay for making a descriptor in the kernel (_c2t_tma's `looped`)
    tma_looped: bool = False
    # arrays whose tiles this array's loads may reuse when both are the same memory: one
    # `<name>_IS_<other>` constexpr each, computed by the launcher (kernel.py _reuse_aliased_load)
    same_as: list = field(default_factory=list)
    isfloat: bool = False       # scalars annotated `float` (fp32 in cuTile)
    isdtype: bool = False       # `ct.Constant[ct.DType]`: the launcher turns a torch dtype into Triton's
    # arrays: the condition on Constant arguments without which the kernel never uses it
    # (arrays.array_guards); when it is false, the launcher accepts an array of any rank
    needed_if: str = ""
    rank_at_least: bool = False     # arrays: any rank >= `rank` is accepted (arrays.ranks_at_least)

    def kernel_params(self) -> str:
        if self.kind == "array":
            flat = ArrayRef.for_param(self.name, self.rank or 0).flat()
            if self.tma_blocks:
                flat.append(f"{self.name}_TMA: tl.constexpr")
            flat += [f"{self.name}_IS_{o}: tl.constexpr" for o in self.same_as]
            return ", ".join(flat)
        if self.kind == "list":
            return ListRef(self.name, self.rank).decl()
        if self.kind == "constexpr":
            return f"{self.name}: tl.constexpr"
        return self.name


@dataclass
class KernelPlan:
    name: str
    fd: N.FunctionDef
    params: list = field(default_factory=list)
    hints: dict = field(default_factory=dict)      # decorator hints as source text
    lines: list = field(default_factory=list)
    docstring: str = ""
    ok: bool = True
    ops: list = field(default_factory=list)
    warps_expr: str = ""        # host expression giving num_warps ("" = Triton's default)
    # dual kernels: one @triton.jit kernel per value of the layout flags (see _layout_flags)
    flags: list = field(default_factory=list)       # flag parameter names
    variants: list = field(default_factory=list)    # (kernel name, {flag: value}, lines)
    tma: object = None          # tma.TmaPlan when some array uses descriptors
    written: set = field(default_factory=set)       # array params the kernel may store to
    batched: bool = False       # a host loop launches it: emit the batched twin (seed section 5)
    batch_consts: tuple = ()    # positions of the Constant, array and stored-to array parameters
    batch_arrays: tuple = ()    # (for _C2TBatch's run-time grouping checks)
    batch_written: tuple = ()
    tuned: bool = False         # passed to exhaustive_search: emit _c2t_meta_<k> for @triton.autotune
    # Constant parameters that are, as they stand, a dimension of some tile the kernel builds: the
    # ones whose values exhaustive_search's tile variants may change ($C2T_TILE_VARIANTS)
    tile_params: tuple = ()
    has_dot: bool = False       # uses tl.dot: pipelined loads, num_stages shrinks to fit shared memory
    # runs C2T_COARSEN programs of its grid per Triton program (lower/coarsen.py): takes the
    # trailing parameters `c2t_programs, C2T_COARSEN`, which the launcher picks (_c2t_coarsen)
    coarsen: bool = False
    # it has products that may be in a chain of products (ops._chain_flag): takes the trailing
    # constexpr `C2T_PAD`, which the launcher passes (_C2T_PAD) and its spill retry may set
    pad: bool = False
    tile_elements: str = ""     # host expression: elements of its largest tile ("" = not known there)
    # cuTile's num_ctas hint becomes Triton's num_ctas (a CTA cluster) only for kernels whose tiles
    # and arrays are at most 2-D and that take no lists of arrays: on the H200, Triton 3.6 with num_ctas=2
    # failed to compile TileGym's bmm (rank-3 tiles) for some configs and computed wrong results
    # for others, and failed to compile group_gemm (lists of arrays) for sm_90
    # (docs/decisions/005-cta-clusters.md); TileGym's 2-D matmul tiles were right and faster
    # ... and Triton 3.6 computed wrong results with num_ctas=4 for TileGym's persistent matmul
    # with transposed operands (tl.trans of loaded tiles; 333x2050x1500: 679717 of 682650 elements
    # wrong) while the same config without transposes was exact (same page): kernels (or
    # dual-kernel variants) that transpose or permute tiles get no clusters
    clusters: bool = True
    no_clusters_why: str = ""
    cluster_free: list = field(default_factory=list)   # flag values of the variants without clusters
    # host expression: bytes one iteration of the kernel's GEMM loops loads (the largest loop), ""
    # when it has none or also other loops with dots; the launcher deepens the pipeline with it
    # (_c2t_num_stages) when each program has an SM to itself
    stage_bytes: str = ""
    # rank variants: a kernel that uses an array parameter with several ranks, in branches that
    # Constant arguments select (cuTile compiles only those), becomes one kernel per rank of those
    # arrays (`subs`, each with its `rank_choice`), launched by a dispatcher on the arrays' ranks
    subs: list = field(default_factory=list)
    rank_choice: dict = field(default_factory=dict)     # a sub plan's {array: rank}
    sub_of: str = ""            # a sub plan: the kernel it is a variant of (its launcher is internal)
    # a sub plan's `if` branches (line, col, part) that its ranks could not lower, with their
    # diagnostics, and those they could (over all its layout-flag variants)
    rank_dead: dict = field(default_factory=dict)
    rank_lowered: set = field(default_factory=set)
    # what the lowering of each layout-flag variant leaves for the plan (_lower, _add_tma_prologue):
    permutes: bool = False      # the variant just lowered transposes or permutes tiles
    gemm_loops: list = field(default_factory=list)      # per variant: its GEMM loops (None: other dots)
    tma_union: dict = field(default_factory=dict)       # array -> descriptor blocks of every variant
    tma_looped_arrays: set = field(default_factory=set)

    def memo_layout(self):
        """For the launcher's launch memo (_c2t_memo): the names of the array, scalar and Constant
        parameters, and where each array's pointer and each scalar sit among the flattened kernel
        arguments. None when a list-of-arrays parameter rules the memo out (its table is built
        from the arrays' contents)."""
        if any(p.kind == "list" for p in self.params):
            return None
        # (a dual kernel's flags pick the variant and are not passed)
        ptr_at, scalar_at, _ = _flat_positions([p for p in self.params if p.name not in self.flags], 0)
        arrays = [p.name for p in self.params if p.kind == "array"]
        return {"arrays": arrays, "scalars": [p.name for p in self.params if p.kind == "scalar"],
                "consts": [p.name for p in self.params if p.kind == "constexpr"],
                "ptr_at": tuple(ptr_at), "scalar_at": tuple(scalar_at), "same": _same_pairs(self.params, arrays)}

    def batch_memo_layout(self):
        """memo_layout for the batched twin `<kernel>_batch4`: four slots of (the slot's grid size,
        then the runtime parameters flattened), the Constant ones once at the end."""
        if any(p.kind == "list" for p in self.params):
            return None
        runtime = [p for p in self.params if p.kind != "constexpr"]
        ptr_at, scalar_at, per_slot = _flat_positions(runtime, 1)
        scalar_at = [0] + scalar_at                 # the slot's grid size comes first
        arrays = [p.name for p in runtime if p.kind == "array"]
        na, same = len(arrays), _same_pairs(runtime, arrays)
        return {"arrays": arrays, "scalars": [p.name for p in runtime if p.kind == "scalar"],
                "consts": [p.name for p in self.params if p.kind == "constexpr"],
                "ptr_at": tuple(s * per_slot + i for s in range(4) for i in ptr_at),
                "scalar_at": tuple(s * per_slot + i for s in range(4) for i in scalar_at),
                "same": [(s * na + i, s * na + j) for s in range(4) for i, j in same]}

    def cluster_condition(self) -> str:
        """The launcher's `clusters=` argument when only some variants may run in clusters: true
        unless the layout flags pick a variant of `cluster_free`."""
        def tup(items):
            items = list(items)
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        return (f"{tup(f'bool({f})' for f in self.flags)} not in "
                f"{tup(tup(str(v) for v in t) for t in self.cluster_free)}")


def _flat_positions(params, at: int):
    """Where each array's pointer and each runtime scalar sit when `params` are flattened from
    position `at` as the launchers flatten them (an array: pointer, extents, strides, then its
    descriptor flag and aliasing flags, see Param.kernel_params); and the position after them."""
    ptr_at, scalar_at = [], []
    for p in params:
        if p.kind == "array":
            ptr_at.append(at)
            at += 1 if p.rank is None else 1 + 2 * p.rank + bool(p.tma_blocks) + len(p.same_as)
        else:
            if p.kind == "scalar":
                scalar_at.append(at)
            at += 1
    return ptr_at, scalar_at, at


def _same_pairs(params, arrays: list) -> list:
    """`<array>_IS_<other>` flags as positions in `arrays`: whether two arrays are the same memory
    (_c2t_same) is part of the memo key, by their pointers (their dtypes, extents and strides are
    in it already)."""
    return [(arrays.index(p.name), arrays.index(o)) for p in params if p.kind == "array" for o in p.same_as]


def plan_kernel(shared: Shared, fd: N.FunctionDef) -> KernelPlan:
    info, rep = shared.info, shared.reporter
    plan = KernelPlan(fd.name, fd)
    deco = info.kernel_decorator(fd)       # None: a kernel made on the host, ct.kernel(f)
    if deco is not None and isinstance(deco.expr, N.Call):
        for kw in deco.expr.keywords:
            value = kw.value
            if kw.name is None:
                rep.add("C2T201", f"kernel `{fd.name}`: hints passed as `**{shared.text[value.span.start:value.span.end]}` "
                                  "are not read at translation time and were dropped (a num_ctas among them does "
                                  "not reach the Triton launch)", kw.span,
                        "name the hints in the decorator, e.g. @ct.kernel(num_ctas=...)")
                continue
            if is_by_target(info, value):
                # ct.ByTarget(sm_90=..., default=...): the translation targets sm_90
                try:
                    value = resolve_by_target(value, 90)
                except ValueError as e:
                    rep.add("C2T109", f"kernel `{fd.name}`: hint `{kw.name}`: {e}", kw.span)
                    plan.ok = False
                    continue
                if value is None:
                    rep.add("C2T201", f"kernel `{fd.name}`: hint `{kw.name}` has no sm_90 entry and no "
                                      "default in its ct.ByTarget (cuTile's automatic choice applies)",
                            kw.span)
                    continue
            s = value.span
            ct_used = next((x for x in N.walk(value) if isinstance(x, (N.Name, N.Attr)) and info.ct_path(x) is not None), None)
            if ct_used is not None and kw.name == "num_ctas":
                # (the launcher would run this text on the host, where cuda.tile is gone)
                rep.add("C2T201", f"kernel `{fd.name}`: hint `num_ctas={shared.text[s.start:s.end]}` uses cuda.tile "
                                  "names, which the launcher cannot evaluate: dropped", kw.span,
                        "give num_ctas as a number or a module constant")
                continue
            plan.hints[kw.name] = shared.text[s.start:s.end]
            if kw.name == "num_ctas":
                continue        # the launcher passes it as Triton's num_ctas (a CTA cluster on sm_90+)
            rep.add("C2T201", f"kernel `{fd.name}`: hint `{kw.name}={plan.hints[kw.name]}` "
                              + ("(sm_90 entry of its ct.ByTarget) " if value is not kw.value else "")
                              + "has no direct Triton equivalent and was dropped", kw.span)
        if deco.expr.args:
            rep.add("C2T109", "@ct.kernel takes keyword arguments only", deco.span)
    for d in fd.decorators:
        if d is not deco:
            e = d.expr.func if isinstance(d.expr, N.Call) else d.expr
            name = shared.text[e.span.start:e.span.end]
            rep.add("C2T201", f"decorator `@{name}` on kernel `{fd.name}` was dropped", d.span,
                    "re-apply it to the generated kernel if it matters")
    names = {p.name for p in fd.params if p.kind == "normal"}
    for p in fd.params:
        if p.kind != "normal":
            rep.add("C2T103", f"kernel `{fd.name}`: parameter form `{p.name}` ({p.kind}) is not supported", p.span)
            plan.ok = False
        if p.default is not None:
            rep.add("C2T103", f"kernel `{fd.name}`: default values are not allowed on kernel parameters", p.span)
            plan.ok = False
    conflicts = {}
    arrays, lists = infer_params(fd, info, names, conflicts=conflicts)
    choices = _rank_choices(conflicts)
    if conflicts and not choices:
        for name, ranks in conflicts.items():
            p = next(p for p in fd.params if p.name == name)
            uses = _rank_uses(ranks)
            rep.add("C2T101", f"kernel `{fd.name}`: array parameter `{name}` is used {uses}: cuTile compiles only "
                              "the branches that Constant arguments (or the arrays' ranks) select, and more than "
                              f"{_MAX_RANK_VARIANTS} kernels (one per combination of ranks) would be needed",
                    p.span, "split the kernel (one per rank), or give the array one rank on the host (e.g. pass "
                            "a 1-D tensor as `t.view(-1, 1)` and index it with 2-D indices)")
        plan.ok = False
    if choices:
        return _plan_rank_variants(shared, fd, plan, arrays, lists, choices, conflicts)
    _plan_body(shared, fd, plan, arrays, lists)
    return plan


_MAX_RANK_VARIANTS = 4


def _rank_uses(ranks: dict) -> str:
    """`as a 2-D array (line 85) and as a 1-D array (line 87)`: {rank: first use} in words."""
    return " and ".join(f"as a {r}-D array (line {n.span.line})" for r, n in sorted(ranks.items(), reverse=True))


def _rank_choices(conflicts: dict) -> list:
    """The rank combinations of the arrays used with several ranks ({array: rank} each), or [] when
    there are none or more than _MAX_RANK_VARIANTS."""
    if not conflicts:
        return []
    names = sorted(conflicts)
    combos = list(itertools.product(*(sorted(conflicts[n]) for n in names)))
    if len(combos) > _MAX_RANK_VARIANTS:
        return []
    return [dict(zip(names, c)) for c in combos]


def _plan_rank_variants(shared, fd, plan, arrays, lists, choices, conflicts) -> KernelPlan:
    """One sub plan (kernel and internal launcher) per rank combination. In each, a branch of an
    `if` that cannot be lowered with those ranks becomes `tl.static_assert(False, ...)` (Triton,
    as cuTile, compiles only the branches Constant arguments select); a branch that no
    combination can lower is an error, reported as such."""
    n0 = len(shared.reporter.items)
    names = [fd.name + "".join(f"_{n}_{r}d" for n, r in choice.items()) for choice in choices]
    for name, ranks in sorted(conflicts.items()):
        p = next(p for p in fd.params if p.name == name)
        uses = _rank_uses(ranks)
        shared.reporter.add("C2T211", f"kernel `{fd.name}`: array parameter `{name}` is used {uses}: one Triton "
                                      f"kernel per rank ({', '.join(f'`{n}`' for n in names)}), launched by the "
                                      "arrays' ranks; in each, a branch for other ranks is a compile-time assert",
                            p.span)
    for name, choice in zip(names, choices):
        sub = KernelPlan(name, fd, hints=dict(plan.hints), rank_choice=choice, sub_of=fd.name)
        sub.ok = plan.ok
        _plan_body(shared, fd, sub, {**arrays, **choice}, lists)
        plan.subs.append(sub)
    dead, lowered = {}, set()
    for sub in plan.subs:
        for key, diags in sub.rank_dead.items():
            dead.setdefault(key, diags)
        lowered |= sub.rank_lowered
    for key in sorted(dead.keys() - lowered):       # no lowering (rank or layout flag) lowered it
        shared.reporter.restore(dead[key])
    plan.ok = all(s.ok for s in plan.subs) and not any(
        d.severity == "error" for d in shared.reporter.items[n0:])
    first = plan.subs[0]
    plan.params = [dataclasses.replace(p, rank=None, tma_blocks="", same_as=[]) if p.name in choices[0] else p
                   for p in first.params]
    plan.variants, plan.lines, plan.docstring = first.variants, first.lines, first.docstring
    plan.written = set().union(*(s.written for s in plan.subs))
    plan.has_dot = any(s.has_dot for s in plan.subs)
    return plan


def _plan_body(shared: Shared, fd: N.FunctionDef, plan: KernelPlan, arrays: dict, lists: dict):
    """The kernel's parameters and its lowering (one per layout-flag variant)."""
    info, rep = shared.info, shared.reporter
    deco = info.kernel_decorator(fd)
    comments = {c.line: c.text for c in shared.comments if not c.own_line}
    for p in fd.params:
        if p.kind != "normal":
            continue
        if info.is_constant_annotation(p.annotation):
            kp = Param(p.name, "constexpr")
            kp.isdtype = info.is_constant_dtype(p.annotation)
        elif p.name in lists:
            kp = Param(p.name, "list", lists[p.name])
        elif p.name in arrays:
            kp = Param(p.name, "array", arrays[p.name])
        else:
            kp = Param(p.name, "scalar")
            # `x: float` is an fp32 argument (lower/dtype_facts.py: never combined as bf16 with an int)
            kp.isfloat = isinstance(p.annotation, N.Name) and p.annotation.id == "float"
        kp.comment = comments.get(p.span.line, "") if p.span.line != fd.span.line else ""
        plan.params.append(kp)
    guards = array_guards(fd, shared.text, {p.name for p in plan.params if p.kind == "array"},
                          {p.name for p in plan.params if p.kind == "constexpr"})
    at_least = ranks_at_least(fd, {p.name for p in plan.params if p.kind == "array"})
    for kp in plan.params:
        kp.needed_if = guards.get(kp.name, "") if kp.kind == "array" and kp.rank is not None else ""
        kp.rank_at_least = kp.kind == "array" and kp.rank is not None and kp.name in at_least
    env = {}
    for kp in plan.params:
        if kp.kind == "array":
            ref = ArrayRef.for_param(kp.name, kp.rank or 0)
            ref.rank_unknown = kp.rank is None
            env[kp.name] = V(kp.name, T.ARRAY, array=ref)
        elif kp.kind == "list":
            env[kp.name] = V(kp.name, T.LIST, value=ListRef(kp.name, kp.rank))
        elif kp.kind == "constexpr" and kp.isdtype:
            env[kp.name] = V(kp.name, T.DTYPE)      # (a tl.dtype constexpr)
        elif kp.kind == "constexpr":
            env[kp.name] = V(kp.name, T.STATIC)
        else:       # an int, float or bool argument: its own dtype family (lower/dtype_facts.py)
            env[kp.name] = V(kp.name, T.SCALAR, dsrc=f"arg:{kp.name}", isfloat=kp.isfloat)
    body = fd.body
    if body and isinstance(body[0], N.ExprStmt) and isinstance(body[0].value, N.Const) \
            and isinstance(body[0].value.value, str):
        plan.docstring = body[0].value.text
    n_err = sum(1 for d in shared.reporter.items if d.severity == "error")
    shared.tile_shapes, shared.has_dot = [], False
    plan.flags = _layout_flags(fd, info)
    if not plan.flags and not plan.rank_choice:
        from .coarsen import coarsen_refusal
        plan.coarsen = not coarsen_refusal(fd, info, rep.filename)
    combos = list(itertools.product((True, False), repeat=len(plan.flags)))
    permuting = []      # per variant: whether it (or a helper it calls) transposes or permutes tiles
    for values in combos:
        venv = dict(env)
        for flag, val in zip(plan.flags, values):
            venv[flag] = V(str(val), T.STATIC, value=val, known=True)
        lines = _lower(shared, fd, venv, plan)
        permuting.append(plan.permutes)
        plan.permutes = False
        name = plan.name if not plan.flags else plan.name + "".join(
            f"_{f}" if v else f"_not_{f}" for f, v in zip(plan.flags, values))
        plan.variants.append((name, dict(zip(plan.flags, values)), lines))
    plan.lines = plan.variants[0][2]
    plan.warps_expr = _warps_expr(plan, shared)
    plan.tile_params = _tile_params(plan, shared)
    plan.stage_bytes = stage_bytes(plan.params, plan.gemm_loops)
    plan.gemm_loops = []
    plan.has_dot = shared.has_dot
    if any(len(shape) > 2 for shape in shared.tile_shapes) \
            or any(p.kind == "array" and (p.rank or 0) > 2 for p in plan.params):
        # (arrays too: squeezed loads make 2-D tiles of 3-D arrays, as in the bmm that failed)
        plan.no_clusters_why = "it has tiles or arrays of rank 3 or more"
    elif any(p.kind == "list" for p in plan.params):
        plan.no_clusters_why = "it takes lists of arrays"
    permuting = [tuple(values[f] for f in plan.flags) for (_, values, _), p in zip(plan.variants, permuting) if p]
    if not plan.no_clusters_why and permuting:
        if len(permuting) == len(plan.variants):
            plan.no_clusters_why = "it transposes or permutes tiles"
        else:
            plan.cluster_free = permuting
            if "num_ctas" in plan.hints:
                kw = next(k for k in deco.expr.keywords if k.name == "num_ctas")
                rep.add("C2T201", f"kernel `{fd.name}`: hint `num_ctas={plan.hints['num_ctas']}` reaches only the "
                                  f"variants that do not transpose or permute tiles: Triton 3.6's num_ctas "
                                  f"(CTA clusters) computed wrong results for those that do", kw.span,
                        "nothing to do; the other variants run without clusters")
    plan.clusters = not plan.no_clusters_why
    if "num_ctas" in plan.hints and not plan.clusters:
        kw = next(k for k in deco.expr.keywords if k.name == "num_ctas")
        rep.add("C2T201", f"kernel `{fd.name}`: hint `num_ctas={plan.hints['num_ctas']}` was dropped: "
                          f"{plan.no_clusters_why}, and Triton 3.6's num_ctas (CTA clusters) miscompiles or fails "
                          "to compile such kernels", kw.span, "nothing to do; the kernel runs without clusters")
    plan.ok = plan.ok and sum(1 for d in shared.reporter.items if d.severity == "error") == n_err


def _lower(shared: Shared, fd: N.FunctionDef, env: dict, plan: KernelPlan) -> list:
    """One lowering of the kernel body (one per dual-kernel variant), with its TMA prologue."""
    from ..passes import prepare
    lw = FunctionLowerer(shared, prepare(fd), env)
    lw.fd_is_kernel, lw.param_arrays = True, {p.name for p in plan.params if p.kind == "array"}
    lw.rank_choice = plan.rank_choice
    lw.coarsen = plan.coarsen
    consts = {p.name for p in plan.params if p.kind == "constexpr"}
    cands = tma_candidates(fd, shared.info, {p.name: p.rank for p in plan.params if p.kind == "array"})
    lw.tma = TmaPlan(cands, consts) if cands else None
    # parameter comments are re-attached to the parameter lines, not the body
    for c in shared.comments:
        if not c.own_line and any(c.line == p.span.line for p in fd.params) and c.line != fd.span.line:
            lw._emitted.add((c.line, c.col))
    try:
        lines = lw.lower_body()
    except TranslationError as e:
        shared.reporter.items.append(e.diag)
        return ["    pass"]
    plan.written |= lw.all_written
    plan.pad = plan.pad or lw.pad_products
    if plan.rank_choice:        # branches these ranks could or could not lower (_plan_rank_variants)
        for key, diags in lw.rank_dead.items():
            plan.rank_dead.setdefault(key, diags)
        plan.rank_lowered |= lw.rank_lowered
    plan.gemm_loops.append(None if lw.other_dot_loops else lw.gemm_loops)
    for kp in plan.params:      # aliased-load reuse: `<array>_IS_<other>` flags (all variants)
        for other in lw.aliases.get(kp.name, []):
            if other not in kp.same_as:
                kp.same_as.append(other)
    from .helpers import permutes_tiles
    plan.permutes = lw.permutes_tiles or permutes_tiles(lines)
    if lw.tma is not None and lw.tma.descs:
        lines = _add_tma_prologue(plan, lw.tma, lines)
    return lines


_LAYOUT_OPS = {"load", "store", "gather", "scatter", "mma", "matmul", "transpose", "permute", "tiled_view",
               "load_advanced_indexing", "store_advanced_indexing"}


def _layout_flags(fd: N.FunctionDef, info) -> list:
    """`Constant[bool]` parameters that choose how operands are laid out or loaded: an `if FLAG:`
    (or `if not FLAG:`) whose branches load, store, transpose or multiply tiles. Each value gets
    its own kernel (seed: dual kernels for layout flags), at most two flags."""
    from .arrays import walk
    bools = [p.name for p in fd.params if p.kind == "normal" and info.is_constant_bool(p.annotation)]
    flags = []
    for n in walk(fd.body):
        if not isinstance(n, N.If):
            continue
        t = n.test.operand if isinstance(n.test, N.UnaryOp) and n.test.op == "not" else n.test
        if not (isinstance(t, N.Name) and t.id in bools) or t.id in flags:
            continue
        branch_ops = {info.ct_path(c.func) for c in walk(n.body + n.orelse) if isinstance(c, N.Call)}
        matmul = any(isinstance(c, N.BinOp) and c.op == "@" for c in walk(n.body + n.orelse))
        if branch_ops & _LAYOUT_OPS or matmul:
            flags.append(t.id)
    return sorted(flags)[:2]



def _add_tma_prologue(plan: KernelPlan, tma, lines: list) -> list:
    """Descriptors are made once, at the top of the kernel (after its docstring). Every variant of
    a dual kernel takes the same `<array>_TMA` flags (the union of their descriptor blocks)."""
    plan.tma = tma
    union = plan.tma_union
    looped = plan.tma_looped_arrays
    looped |= tma.looped
    for kp in plan.params:
        if kp.kind == "array" and kp.name in tma.blocks:
            seen = union.setdefault(kp.name, [])
            seen.extend(b for b in tma.blocks[kp.name] if b not in seen)
            kp.tma_looped = kp.name in looped
            kp.tma_blocks = "(" + "".join(f"({', '.join(b)},), " if len(b) == 1 else f"({', '.join(b)}), "
                                          for b in seen).rstrip(" ") + ")"
    flags = ", ".join(f"`{kp.name}_TMA`" for kp in plan.params if kp.tma_blocks and kp.name in tma.blocks)
    prologue = [f"    # TMA descriptors, made once (None where the launcher chose masked pointers: {flags})"]
    prologue += ["    " + ln for ln in tma.lines]
    at = 0
    if plan.docstring and lines and lines[0] == "    " + plan.docstring:
        at = 1
    return lines[:at] + prologue + [""] + lines[at:]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def batch_refusal(plan: KernelPlan, info) -> str:
    """Why launches of this kernel cannot share one launch ("" when they can): the batched twin
    puts the launch index on grid axis 1, so the kernel must be 1-D (bid(0) only, no num_blocks),
    and it must not call functions of other modules (the stores they make are not tracked; those
    of this module's functions are: helpers.py records which of its arrays a helper stores to)."""
    from .arrays import walk
    if not plan.ok:
        return "the kernel did not translate"
    if plan.flags:
        return "it has dual-kernel layout flags"
    if plan.subs:
        return "the ranks of its arrays pick one of several kernels"
    if any(p.isdtype for p in plan.params):
        return "a ct.Constant[ct.DType] parameter takes the launcher's dtype conversion"
    if any(p.kind == "list" for p in plan.params):
        return "it takes a list of arrays"
    for n in walk(plan.fd.body):
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            if path == "num_blocks":
                return "it reads ct.num_blocks (the batched grid is wider than each launch's)"
            if path == "bid" and not (n.args and isinstance(n.args[0], N.Const) and n.args[0].value == 0):
                return "it uses a block index other than ct.bid(0)"
            if isinstance(n.func, N.Name) and n.func.id in info.imported:
                return f"it calls `{n.func.id}` of another module (stores made there are not tracked)"
    return ""


def _tile_params(plan: KernelPlan, shared: Shared) -> tuple:
    """The Constant parameters written as a whole dimension of a tile shape (`shape=(TILE_M,
    TILE_K)`, `ct.full((TILE_M, TILE_N), ...)`), in parameter order."""
    dims = {c for shape in shared.tile_shapes for c in shape}
    return tuple(p.name for p in plan.params if p.kind == "constexpr" and p.name in dims
                 and p.name not in plan.flags)


def _warps_expr(plan: KernelPlan, shared: Shared) -> str:
    """num_warps for the launch, from the largest tile the kernel builds (cuTile sizes its CTAs
    itself; Triton's default of 4 warps starves large row tiles). Only tile extents written with
    literals and the kernel's Constant parameters can be evaluated by the launcher."""
    consts = {p.name for p in plan.params if p.kind == "constexpr"}
    sizes = []
    for shape in shared.tile_shapes:
        if shape and all(set(_IDENT.findall(c)) <= consts for c in shape):
            sizes.append(" * ".join(f"({c})" if not c.isidentifier() and not c.isdigit() else c for c in shape))
    if not sizes:
        return ""
    sizes = list(dict.fromkeys(sizes))
    biggest = sizes[0] if len(sizes) == 1 else f"max({', '.join(sizes)})"
    plan.tile_elements = biggest
    return f"_c2t_num_warps({biggest}, dot={shared.has_dot})"
