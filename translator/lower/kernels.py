"""Plan and lower each @ct.kernel: parameters (arrays expanded), hints, body."""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from ..analysis import indexed_with_int64, list_static_dims, static_dims
from ..diagnostics import TranslationError
from ..ir import nodes as N
from . import types as T
from .arrays import array_guards, infer_params, ranks_at_least
from .gemm_loops import stage_bytes
from .kernel import FunctionLowerer, KernelTiles, Shared
from .ops_math import is_by_target, resolve_by_target
from .tma import TmaPlan, tma_candidates
from .types import ArrayRef, ListRef, V


@dataclass(frozen=True)
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
    same_as: tuple = ()
    isfloat: bool = False       # scalars annotated `float` (fp32 in cuTile)
    isdtype: bool = False       # `ct.Constant[ct.DType]`: the launcher turns a torch dtype into Triton's
    # arrays: the condition on Constant arguments without which the kernel never uses it
    # (arrays.array_guards); when it is false, the launcher accepts an array of any rank
    needed_if: str = ""
    rank_at_least: bool = False     # arrays: any rank >= `rank` is accepted (arrays.ranks_at_least)
    # arrays: the names of its extents and strides that are compile-time constants (an
    # `Annotated[ct.Array, ct.ArrayAnnotation(static_shape_dims=..., static_stride_dims=...)]` hint):
    # constexpr parameters, so Triton compiles the kernel for each of their values, as cuTile does
    constexprs: frozenset = frozenset()
    int64: bool = False         # arrays: indexed with 64 bits (`ct.IndexedWithInt64`)
    list_static: tuple = ()     # lists: the elements' static extents and strides (ListRef.static)

    def kernel_params(self) -> str:
        if self.kind == "array":
            flat = [f"{n}: tl.constexpr" if n in self.constexprs else n
                    for n in ArrayRef.for_param(self.name, self.rank or 0).flat()]
            if self.tma_blocks:
                flat.append(f"{self.name}_TMA: tl.constexpr")
            flat += [f"{self.name}_IS_{o}: tl.constexpr" for o in self.same_as]
            return ", ".join(flat)
        if self.kind == "list":
            return ListRef(self.name, self.rank, static=self.list_static).decl()
        if self.kind == "constexpr":
            return f"{self.name}: tl.constexpr"
        return self.name


class Variant(NamedTuple):
    """One @triton.jit kernel of a plan: a dual kernel has one per value of its layout flags."""
    name: str
    values: dict        # {flag: value}
    lines: list         # the lowered body


@dataclass(frozen=True)
class LaunchPolicy:
    """How the launcher runs a kernel, decided from its lowering (_launch_policy)."""
    warps_expr: str = ""        # host expression giving num_warps ("" = Triton's default)
    tile_elements: str = ""     # host expression: elements of its largest tile ("" = not known there)
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
    cluster_free: tuple = ()    # flag values of the variants without clusters
    # host expression: bytes one iteration of the kernel's GEMM loops loads (the largest loop), ""
    # when it has none or also other loops with dots; the launcher deepens the pipeline with it
    # (_c2t_num_stages) when each program has an SM to itself
    stage_bytes: str = ""


@dataclass(frozen=True)
class HostUse:
    """What the module's host code does with a kernel (host.rewrite_host; api._apply_host_facts)."""
    tuned: bool = False         # passed to exhaustive_search: emit _c2t_meta_<k> for @triton.autotune
    batched: bool = False       # a host loop launches it: emit the batched twin (seed section 5)
    batch_consts: tuple = ()    # positions of the Constant, array and stored-to array parameters
    batch_arrays: tuple = ()    # (for _C2TBatch's run-time grouping checks)
    batch_written: tuple = ()


@dataclass(frozen=True)
class KernelPlan:
    """A @ct.kernel as translated: its signature (name, parameters, decorator hints, layout flags),
    its kernels (`variants`), how it is launched (`launch`) and what the host does with it (`host`).
    A kernel that uses an array parameter with several ranks, in branches that Constant arguments
    select (cuTile compiles only those), becomes one kernel per rank of those arrays (`subs`, each
    with its `rank_choice` and `sub_of`), launched by a dispatcher on the arrays' ranks."""
    name: str
    fd: N.FunctionDef
    params: tuple = ()
    hints: dict = field(default_factory=dict)      # decorator hints as source text
    docstring: str = ""
    ok: bool = True
    flags: tuple = ()           # dual kernels: the layout flag parameters (_layout_flags)
    variants: tuple = ()        # Variant per value of the flags
    written: frozenset = frozenset()    # array params the kernel may store to
    launch: LaunchPolicy = LaunchPolicy()
    host: HostUse = HostUse()
    subs: tuple = ()
    rank_choice: dict = field(default_factory=dict)     # a sub plan's {array: rank}
    sub_of: str = ""            # a sub plan: the kernel it is a variant of (its launcher is internal)

    @property
    def lines(self) -> list:
        return self.variants[0].lines

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
                f"{tup(tup(str(v) for v in t) for t in self.launch.cluster_free)}")


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
    hints, ok = {}, True
    nested = info.nested.get(fd.name)
    if nested is not None and nested.refusal:
        rep.add("C2T108", f"kernel `{nested.fd.name}`, defined inside `{nested.top.name}`, is not translated: "
                          f"{nested.refusal}", nested.fd.span,
                "define it (and what it calls) at module level, or give what it reads from the enclosing "
                "function as ct.Constant parameters")
        return KernelPlan(fd.name, fd, ok=False, variants=(Variant(fd.name, {}, ["    pass"]),))
    deco = info.kernel_decorator(fd)       # None: a kernel made on the host, ct.kernel(f)
    if deco is not None and isinstance(deco.expr, N.Call):
        for kw in deco.expr.keywords:
            value = kw.value
            if kw.name is None:
                rep.add("C2T201", f"kernel `{fd.name}`: hints passed as `**{shared.text[value.span.start:value.span.end]}` "
                                  "are not read at translation time and were dropped (a num_ctas among them does "
                                  "not reach the Triton launch)", kw.span,
                        "name the hints in the decorator, e.g. @ct.kernel(num_ctas=...)", severity="warning")
                continue
            if is_by_target(info, value):
                # ct.ByTarget(sm_90=..., default=...): the translation targets sm_90
                try:
                    value = resolve_by_target(value, 90)
                except ValueError as e:
                    rep.add("C2T109", f"kernel `{fd.name}`: hint `{kw.name}`: {e}", kw.span)
                    ok = False
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
                        "give num_ctas as a number or a module constant", severity="warning")
                continue
            hints[kw.name] = shared.text[s.start:s.end]
            if kw.name == "num_ctas":
                continue        # the launcher passes it as Triton's num_ctas (a CTA cluster on sm_90+)
            rep.add("C2T201", f"kernel `{fd.name}`: hint `{kw.name}={hints[kw.name]}` "
                              + ("(sm_90 entry of its ct.ByTarget) " if value is not kw.value else "")
                              + "has no direct Triton equivalent and was dropped", kw.span)
        if deco.expr.args:
            rep.add("C2T109", "@ct.kernel takes keyword arguments only", deco.span)
    for d in fd.decorators:
        if d is not deco:
            e = d.expr.func if isinstance(d.expr, N.Call) else d.expr
            name = shared.text[e.span.start:e.span.end]
            rep.add("C2T201", f"decorator `@{name}` on kernel `{fd.name}` was dropped", d.span,
                    "re-apply it to the generated kernel if it matters", severity="warning")
    names = {p.name for p in fd.params if p.kind == "normal"}
    for p in fd.params:
        if p.kind != "normal":
            rep.add("C2T103", f"kernel `{fd.name}`: parameter form `{p.name}` ({p.kind}) is not supported", p.span)
            ok = False
        if p.default is not None:
            rep.add("C2T103", f"kernel `{fd.name}`: default values are not allowed on kernel parameters", p.span)
            ok = False
    conflicts = {}
    arrays, lists = infer_params(fd, info, names, conflicts=conflicts)
    _pin_launch_ranks(shared.launch_ranks.get(fd.name, {}), arrays, conflicts, fd)
    choices = _rank_choices(conflicts, shared.launch_ranks.get(fd.name, {}))
    if conflicts and not choices:
        for name, ranks in conflicts.items():
            p = next(p for p in fd.params if p.name == name)
            uses = _rank_uses(ranks)
            rep.add("C2T101", f"kernel `{fd.name}`: array parameter `{name}` is used {uses}: cuTile compiles only "
                              "the branches that Constant arguments (or the arrays' ranks) select, and more than "
                              f"{_MAX_RANK_VARIANTS} kernels (one per combination of ranks) would be needed",
                    p.span, "split the kernel (one per rank), or give the array one rank on the host (e.g. pass "
                            "a 1-D tensor as `t.view(-1, 1)` and index it with 2-D indices)").rank_bound = name
        ok = False
    if choices:
        return _plan_rank_variants(shared, fd, hints, ok, arrays, lists, choices, conflicts,
                                   keep=shared.launch_ranks.get(fd.name, {}))
    return _plan_body(shared, fd, fd.name, hints, ok, arrays, lists)[0]


_MAX_RANK_VARIANTS = 4


def _pin_launch_ranks(pins: dict, arrays: dict, conflicts: dict, fd: N.FunctionDef) -> None:
    """The ranks a launch gives (Options.ranks) in place of those the text shows: cuTile compiles
    the kernel for its arguments' ranks, so a use of another rank is the error cuTile reports at
    it, and a kernel whose uses show no rank gets the argument's. A parameter the text uses with
    several ranks (in branches Constant arguments select) keeps its one variant of that rank
    (_plan_rank_variants lowers them all, so a branch that only another rank lowers is still a
    compile-time assert, and keeps that one)."""
    for name, rank in pins.items():
        if name not in arrays:
            continue
        arrays[name] = rank
        if name in conflicts and rank not in conflicts[name]:
            conflicts[name][rank] = next(iter(conflicts[name].values()))


def _rank_uses(ranks: dict) -> str:
    """`as a 2-D array (line 85) and as a 1-D array (line 87)`: {rank: first use} in words."""
    return " and ".join(f"as a {r}-D array (line {n.span.line})" for r, n in sorted(ranks.items(), reverse=True))


def _rank_choices(conflicts: dict, given: dict) -> list:
    """The rank combinations of the arrays used with several ranks ({array: rank} each), or [] when
    there are none or more than _MAX_RANK_VARIANTS; then, where `given` (a launch's ranks,
    Options.ranks) names a rank for each of them that the kernel uses, that one combination."""
    if not conflicts:
        return []
    names = sorted(conflicts)
    combos = list(itertools.product(*(sorted(conflicts[n]) for n in names)))
    if len(combos) > _MAX_RANK_VARIANTS:
        if all(given.get(n) in conflicts[n] for n in names):
            return [{n: given[n] for n in names}]
        return []
    return [dict(zip(names, c)) for c in combos]


def _plan_rank_variants(shared, fd, hints, ok, arrays, lists, choices, conflicts, keep=None) -> KernelPlan:
    """One sub plan (kernel and internal launcher) per rank combination. In each, a branch of an
    `if` that cannot be lowered with those ranks becomes `tl.static_assert(False, ...)` (Triton,
    as cuTile, compiles only the branches Constant arguments select); a branch that no
    combination can lower is an error, reported as such (not where the one combination lowered is
    a launch's ranks, `keep`, of a kernel with more combinations than are written: other launches
    lower the other branches)."""
    n0 = len(shared.reporter.items)
    launched = bool(keep) and len(choices) == 1 and \
        len(list(itertools.product(*conflicts.values()))) > _MAX_RANK_VARIANTS
    names = [fd.name + "".join(f"_{n}_{r}d" for n, r in choice.items()) for choice in choices]
    for name, ranks in sorted(conflicts.items()):
        p = next(p for p in fd.params if p.name == name)
        uses = _rank_uses(ranks)
        shared.reporter.add("C2T211", f"kernel `{fd.name}`: array parameter `{name}` is used {uses}: one Triton "
                                      f"kernel per rank ({', '.join(f'`{n}`' for n in names)}), launched by the "
                                      "arrays' ranks; in each, a branch for other ranks is a compile-time assert",
                            p.span)
    subs, dead, lowered = [], {}, set()
    for name, choice in zip(names, choices):
        sub, sub_dead, sub_lowered = _plan_body(shared, fd, name, dict(hints), ok, {**arrays, **choice}, lists,
                                                rank_choice=choice)
        subs.append(sub)
        for key, diags in sub_dead.items():
            dead.setdefault(key, diags)
        lowered |= sub_lowered
    for key in (sorted(dead.keys() - lowered) if not launched else ()):    # no lowering lowered it
        shared.reporter.restore(dead[key])
    if keep:        # a launch's ranks (Options.ranks): its variant only
        subs = [s for s in subs if all(s.rank_choice.get(n, r) == r for n, r in keep.items())] or subs
    first = subs[0]
    return KernelPlan(
        fd.name, fd, hints=hints, subs=tuple(subs),
        ok=all(s.ok for s in subs) and not any(d.severity == "error" for d in shared.reporter.items[n0:]),
        params=tuple(dataclasses.replace(p, rank=None, tma_blocks="", same_as=()) if p.name in choices[0] else p
                     for p in first.params),
        variants=first.variants, docstring=first.docstring,
        written=frozenset().union(*(s.written for s in subs)),
        launch=LaunchPolicy(has_dot=any(s.launch.has_dot for s in subs)))


def _signature(shared: Shared, fd: N.FunctionDef, arrays: dict, lists: dict) -> list:
    """The kernel's parameters as the launcher and the lowering see them (arrays by rank)."""
    info = shared.info
    comments = {c.line: c.text for c in shared.comments if not c.own_line}
    params = []
    for p in fd.params:
        if p.kind != "normal":
            continue
        comment = comments.get(p.span.line, "") if p.span.line != fd.span.line else ""
        if info.is_constant_annotation(p.annotation):
            kp = Param(p.name, "constexpr", isdtype=info.is_constant_dtype(p.annotation), comment=comment)
        elif p.name in lists:
            kp = Param(p.name, "list", lists[p.name], comment=comment,
                       list_static=_list_static_dims(shared, p, lists[p.name]))
        elif p.name in arrays:
            kp = Param(p.name, "array", arrays[p.name], comment=comment,
                       constexprs=_static_dims(shared, p, arrays[p.name]),
                       int64=indexed_with_int64(info, p.annotation))
        else:
            # `x: float` is an fp32 argument (lower/dtype_facts.py: never combined as bf16 with an int)
            kp = Param(p.name, "scalar", comment=comment,
                       isfloat=isinstance(p.annotation, N.Name) and p.annotation.id == "float")
        params.append(kp)
    guards = array_guards(fd, shared.text, {p.name for p in params if p.kind == "array"},
                          {p.name for p in params if p.kind == "constexpr"})
    at_least = ranks_at_least(fd, {p.name for p in params if p.kind == "array"})
    return [dataclasses.replace(
        kp, needed_if=guards.get(kp.name, "") if kp.kind == "array" and kp.rank is not None else "",
        rank_at_least=kp.kind == "array" and kp.rank is not None and kp.name in at_least) for kp in params]


def _static_dims(shared: Shared, p, rank) -> frozenset:
    """The extents and strides of array parameter `p` its hint makes constexprs (analysis.static_dims)."""
    dims = static_dims(shared.info, p.annotation)
    names = set()
    for key, what in (("static_shape_dims", "shape"), ("static_stride_dims", "stride")):
        if key not in dims:
            continue
        axes = dims[key]
        if axes is None:
            shared.reporter.add("C2T105", f"`{p.name}`: {key} must be a tuple of int literals", p.span)
            continue
        if rank is None:        # (used only through its pointer: nothing reads them)
            continue
        for a in axes:
            if not -rank <= a < rank:
                shared.reporter.add("C2T106", f"`{p.name}`: {key} contains axis {a}, but the kernel uses it "
                                              f"as a {rank}-D array", p.span)
            else:
                names.add(f"{p.name}_{what}_{a % rank}")
    return frozenset(names)


def _list_static_dims(shared: Shared, p, rank) -> tuple:
    """(what, axis) of the static extents and strides of list parameter `p`'s arrays
    (`ct.ListAnnotation(element=ct.ArrayAnnotation(static_*_dims=...))`: analysis.list_static_dims)."""
    dims = list_static_dims(shared.info, p.annotation)
    out = []
    for key, what in (("static_shape_dims", "shape"), ("static_stride_dims", "stride")):
        if key not in dims:
            continue
        axes = dims[key]
        if axes is None:
            shared.reporter.add("C2T105", f"`{p.name}`: {key} must be a tuple of int literals", p.span)
            continue
        if rank is None:        # (only the arrays' pointers are used)
            continue
        for a in axes:
            if not -rank <= a < rank:
                shared.reporter.add("C2T106", f"`{p.name}`: {key} contains axis {a}, but the kernel uses its "
                                              f"arrays as {rank}-D arrays", p.span)
            elif (what, a % rank) not in out:
                out.append((what, a % rank))
    return tuple(out)


def _param_env(params) -> dict:
    """The kernel body's environment: each parameter's value kind."""
    env = {}
    for kp in params:
        if kp.kind == "array":
            ref = ArrayRef.for_param(kp.name, kp.rank or 0)
            ref.rank_unknown = kp.rank is None
            ref.constexprs = kp.constexprs
            ref.int64 = kp.int64
            env[kp.name] = V(kp.name, T.ARRAY, array=ref)
        elif kp.kind == "list":
            env[kp.name] = V(kp.name, T.LIST, value=ListRef(kp.name, kp.rank, static=kp.list_static))
        elif kp.kind == "constexpr" and kp.isdtype:
            env[kp.name] = V(kp.name, T.DTYPE)      # (a tl.dtype constexpr)
        elif kp.kind == "constexpr":
            env[kp.name] = V(kp.name, T.STATIC)
        else:       # an int, float or bool argument: its own dtype family (lower/dtype_facts.py)
            env[kp.name] = V(kp.name, T.SCALAR, dsrc=f"arg:{kp.name}", isfloat=kp.isfloat)
    return env


@dataclass(frozen=True)
class LoweredVariant:
    """What one lowering of a kernel body (one layout-flag variant) gives its plan (_lower)."""
    lines: list
    written: frozenset = frozenset()    # arrays it may store to
    pad: bool = False                   # it has products that may be in a chain (C2T_PAD)
    gemm_loops: Optional[list] = None   # its GEMM loops (gemm_loops.py); None: other loops with dots
    aliases: dict = field(default_factory=dict)     # array -> arrays whose loaded tiles it may reuse
    permutes: bool = False              # it (or a helper it calls) transposes or permutes tiles
    tma: object = None                  # its tma.TmaPlan when some array uses descriptors
    rank_dead: dict = field(default_factory=dict)   # a rank variant's branches it could not lower
    rank_lowered: frozenset = frozenset()           # ... and those it lowered


def _plan_body(shared: Shared, fd: N.FunctionDef, name: str, hints: dict, ok: bool, arrays: dict, lists: dict,
               rank_choice: dict = None):
    """The kernel's parameters and its lowering (one per layout-flag variant): (the plan, the
    `if` branches a rank variant could not lower with their diagnostics, those it lowered)."""
    info, rep = shared.info, shared.reporter
    rank_choice = rank_choice or {}
    params = _signature(shared, fd, arrays, lists)
    env = _param_env(params)
    body = fd.body
    docstring = ""
    if body and isinstance(body[0], N.ExprStmt) and isinstance(body[0].value, N.Const) \
            and isinstance(body[0].value.value, str):
        docstring = body[0].value.text
    n_err = sum(1 for d in shared.reporter.items if d.severity == "error")
    tiles = KernelTiles()
    flags = tuple(_layout_flags(fd, info))
    coarsen = False
    if not flags and not rank_choice:
        from .coarsen import coarsen_refusal
        coarsen = not coarsen_refusal(fd, info, rep.filename)
    variants, lowered = [], []
    for values in itertools.product((True, False), repeat=len(flags)):
        venv = dict(env)
        for flag, val in zip(flags, values):
            venv[flag] = V(str(val), T.STATIC, value=val, known=True)
        low = _lower(shared, fd, venv, params, docstring, tiles, rank_choice, coarsen)
        vname = name if not flags else name + "".join(
            f"_{f}" if v else f"_not_{f}" for f, v in zip(flags, values))
        variants.append(Variant(vname, dict(zip(flags, values)), low.lines))
        lowered.append(low)
    params = _with_lowering_facts(params, lowered)
    rank_dead, rank_lowered = {}, set()
    for low in lowered:
        for key, diags in low.rank_dead.items():
            rank_dead.setdefault(key, diags)
        rank_lowered |= low.rank_lowered
    tile_elements, warps_expr = _num_warps(params, tiles)
    no_clusters_why, cluster_free = _clusters(shared, fd, hints, params, tiles, flags, variants, lowered)
    plan = KernelPlan(
        name, fd, params=tuple(params), hints=hints, docstring=docstring, flags=flags, variants=tuple(variants),
        written=frozenset().union(*(low.written for low in lowered)),
        launch=LaunchPolicy(
            warps_expr=warps_expr, tile_elements=tile_elements, tile_params=_tile_params(params, flags, tiles),
            has_dot=tiles.has_dot, coarsen=coarsen, pad=any(low.pad for low in lowered),
            clusters=not no_clusters_why, no_clusters_why=no_clusters_why, cluster_free=cluster_free,
            stage_bytes=stage_bytes(params, [low.gemm_loops for low in lowered])),
        rank_choice=rank_choice, sub_of=fd.name if rank_choice else "",
        ok=ok and sum(1 for d in shared.reporter.items if d.severity == "error") == n_err)
    return plan, rank_dead, rank_lowered


def _with_lowering_facts(params: list, lowered: list) -> list:
    """The parameters with what the variants' lowerings found: the arrays whose loaded tiles an
    array's loads may reuse (`<array>_IS_<other>` flags) and the descriptor blocks of each array
    on the TMA path (the union over the variants, which all take the same `<array>_TMA` flags)."""
    blocks, looped = {}, set()
    for low in lowered:
        if low.tma is not None and low.tma.descs:
            looped |= low.tma.looped
            for kp in params:
                if kp.kind == "array" and kp.name in low.tma.blocks:
                    seen = blocks.setdefault(kp.name, [])
                    seen.extend(b for b in low.tma.blocks[kp.name] if b not in seen)
    out = []
    for kp in params:
        same = []
        for low in lowered:
            same.extend(o for o in low.aliases.get(kp.name, []) if o not in same)
        tma = {}
        if kp.name in blocks:
            tma = dict(tma_looped=kp.name in looped, tma_blocks="(" + "".join(
                f"({', '.join(b)},), " if len(b) == 1 else f"({', '.join(b)}), " for b in blocks[kp.name]).rstrip(" ") + ")")
        out.append(dataclasses.replace(kp, same_as=tuple(same), **tma))
    return out


def _clusters(shared, fd, hints, params, tiles, flags, variants, lowered) -> tuple:
    """Whether the kernel may run in CTA clusters (LaunchPolicy.clusters): (why not, "" when it
    may; the flag values of the variants that may not, when only some)."""
    rep = shared.reporter
    deco = shared.info.kernel_decorator(fd)
    why = ""
    if any(len(shape) > 2 for shape in tiles.shapes) \
            or any(p.kind == "array" and (p.rank or 0) > 2 for p in params):
        # (arrays too: squeezed loads make 2-D tiles of 3-D arrays, as in the bmm that failed)
        why = "it has tiles or arrays of rank 3 or more"
    elif any(p.kind == "list" for p in params):
        why = "it takes lists of arrays"
    permuting = [tuple(v.values[f] for f in flags) for v, low in zip(variants, lowered) if low.permutes]
    cluster_free = ()
    if not why and permuting:
        if len(permuting) == len(variants):
            why = "it transposes or permutes tiles"
        else:
            cluster_free = tuple(permuting)
            if "num_ctas" in hints:
                kw = next(k for k in deco.expr.keywords if k.name == "num_ctas")
                rep.add("C2T201", f"kernel `{fd.name}`: hint `num_ctas={hints['num_ctas']}` reaches only the "
                                  f"variants that do not transpose or permute tiles: Triton 3.6's num_ctas "
                                  f"(CTA clusters) computed wrong results for those that do", kw.span,
                        "nothing to do; the other variants run without clusters")
    if "num_ctas" in hints and why:
        kw = next(k for k in deco.expr.keywords if k.name == "num_ctas")
        rep.add("C2T201", f"kernel `{fd.name}`: hint `num_ctas={hints['num_ctas']}` was dropped: "
                          f"{why}, and Triton 3.6's num_ctas (CTA clusters) miscompiles or fails "
                          "to compile such kernels", kw.span, "nothing to do; the kernel runs without clusters")
    return why, cluster_free


def _lower(shared: Shared, fd: N.FunctionDef, env: dict, params: list, docstring: str, tiles: KernelTiles,
           rank_choice: dict, coarsen: bool) -> LoweredVariant:
    """One lowering of the kernel body (one per dual-kernel variant), with its TMA prologue."""
    from ..passes import prepare
    lw = FunctionLowerer(shared, prepare(fd), env, tiles)
    lw.fd_is_kernel, lw.param_arrays = True, {p.name for p in params if p.kind == "array"}
    lw.rank_choice = rank_choice
    lw.coarsen = coarsen
    consts = {p.name for p in params if p.kind == "constexpr"}
    # (not arrays indexed with 64 bits: a descriptor's coordinates are 32-bit)
    cands = tma_candidates(fd, shared.info, {p.name: p.rank for p in params if p.kind == "array" and not p.int64})
    lw.tma = TmaPlan(cands, consts) if cands else None
    # parameter comments are re-attached to the parameter lines, not the body
    for c in shared.comments:
        if not c.own_line and any(c.line == p.span.line for p in fd.params) and c.line != fd.span.line:
            lw._emitted.add((c.line, c.col))
    try:
        lines = lw.lower_body()
    except TranslationError as e:
        shared.reporter.items.append(e.diag)
        return LoweredVariant(["    pass"], gemm_loops=[])     # (a variant that failed counts no loops)
    permutes = lw.permutes_tiles or lw.emits_permute
    tma = lw.tma if lw.tma is not None and lw.tma.descs else None
    if tma is not None:
        lines = _add_tma_prologue(params, docstring, tma, lines)
    return LoweredVariant(
        lines, written=frozenset(lw.all_written), pad=lw.pad_products,
        gemm_loops=None if lw.other_dot_loops else lw.gemm_loops,
        aliases={k: list(v) for k, v in lw.aliases.items()},
        permutes=permutes,
        tma=tma, rank_dead=dict(lw.rank_dead) if rank_choice else {},
        rank_lowered=frozenset(lw.rank_lowered) if rank_choice else frozenset())


_LAYOUT_OPS = {"load", "store", "gather", "scatter", "mma", "matmul", "transpose", "permute", "tiled_view",
               "load_advanced_indexing", "store_advanced_indexing"}


def _layout_flags(fd: N.FunctionDef, info) -> list:
    """`Constant[bool]` parameters that choose how operands are laid out or loaded: an `if FLAG:`
    (or `if not FLAG:`) whose branches load, store, transpose or multiply tiles. Each value gets
    its own kernel (seed: dual kernels for layout flags), at most two flags."""
    from .arrays import walk
    bools = [p.name for p in fd.params if p.kind == "normal" and info.is_constant_bool(p.annotation)]
    flags = []
    for n in info.nodes(fd.body):
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



def _add_tma_prologue(params, docstring: str, tma, lines: list) -> list:
    """Descriptors are made once, at the top of the kernel (after its docstring)."""
    flags = ", ".join(f"`{kp.name}_TMA`" for kp in params if kp.kind == "array" and kp.name in tma.blocks)
    prologue = [f"    # TMA descriptors, made once (None where the launcher chose masked pointers: {flags})"]
    prologue += ["    " + ln for ln in tma.lines]
    at = 0
    if docstring and lines and lines[0] == "    " + docstring:
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


def _tile_params(params, flags, tiles: KernelTiles) -> tuple:
    """The Constant parameters written as a whole dimension of a tile shape (`shape=(TILE_M,
    TILE_K)`, `ct.full((TILE_M, TILE_N), ...)`), in parameter order."""
    dims = {c for shape in tiles.shapes for c in shape}
    return tuple(p.name for p in params if p.kind == "constexpr" and p.name in dims and p.name not in flags)


def _num_warps(params, tiles: KernelTiles) -> tuple:
    """(elements of the largest tile the kernel builds, num_warps for the launch) as host
    expressions, "" where not known there: cuTile sizes its CTAs itself; Triton's default of 4
    warps starves large row tiles. Only tile extents written with literals and the kernel's
    Constant parameters can be evaluated by the launcher."""
    consts = {p.name for p in params if p.kind == "constexpr"}
    sizes = []
    for shape in tiles.shapes:
        if shape and all(set(_IDENT.findall(c)) <= consts for c in shape):
            sizes.append(" * ".join(f"({c})" if not c.isidentifier() and not c.isdigit() else c for c in shape))
    if not sizes:
        return "", ""
    sizes = list(dict.fromkeys(sizes))
    biggest = sizes[0] if len(sizes) == 1 else f"max({', '.join(sizes)})"
    return biggest, f"_c2t_num_warps({biggest}, dot={tiles.has_dot})"
