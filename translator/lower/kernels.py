"""Plan and lower each @ct.kernel: parameters (arrays expanded), hints, body."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..diagnostics import TranslationError
from ..ir import nodes as N
from . import types as T
from .arrays import infer_arrays
from .kernel import FunctionLowerer, Shared
from .tma import TmaPlan, tma_candidates
from .types import ArrayRef, V


@dataclass
class Param:
    name: str
    kind: str                 # "array" | "constexpr" | "scalar"
    rank: Optional[int] = 0     # arrays: None = rank unknown (used only through its pointer)
    comment: str = ""
    tma_blocks: str = ""        # arrays on the descriptor path: their block shapes (host tuple)

    def kernel_params(self) -> str:
        if self.kind == "array":
            flat = ArrayRef.for_param(self.name, self.rank or 0).flat()
            if self.tma_blocks:
                flat.append(f"{self.name}_TMA: tl.constexpr")
            return ", ".join(flat)
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
    tma: object = None          # tma.TmaPlan when some array uses descriptors


def plan_kernel(shared: Shared, fd: N.FunctionDef) -> KernelPlan:
    info, rep = shared.info, shared.reporter
    plan = KernelPlan(fd.name, fd)
    deco = info.kernel_decorator(fd)
    if isinstance(deco.expr, N.Call):
        for kw in deco.expr.keywords:
            s = kw.value.span
            plan.hints[kw.name] = shared.text[s.start:s.end]
            rep.add("C2T201", f"kernel `{fd.name}`: hint `{kw.name}={plan.hints[kw.name]}` has no direct "
                              "Triton equivalent and was dropped", kw.span)
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
    arrays = infer_arrays(fd, info, names)
    comments = {c.line: c.text for c in shared.comments if not c.own_line}
    for p in fd.params:
        if p.kind != "normal":
            continue
        if info.is_constant_annotation(p.annotation):
            kp = Param(p.name, "constexpr")
        elif p.name in arrays:
            kp = Param(p.name, "array", arrays[p.name])
        else:
            kp = Param(p.name, "scalar")
        kp.comment = comments.get(p.span.line, "") if p.span.line != fd.span.line else ""
        plan.params.append(kp)
    env = {}
    for kp in plan.params:
        if kp.kind == "array":
            env[kp.name] = V(kp.name, T.ARRAY, array=ArrayRef.for_param(kp.name, kp.rank or 0))
        elif kp.kind == "constexpr":
            env[kp.name] = V(kp.name, T.STATIC)
        else:
            env[kp.name] = V(kp.name, T.SCALAR)
    body = fd.body
    if body and isinstance(body[0], N.ExprStmt) and isinstance(body[0].value, N.Const) \
            and isinstance(body[0].value.value, str):
        plan.docstring = body[0].value.text
    from ..passes import prepare
    lw = FunctionLowerer(shared, prepare(fd), env)
    consts = {p.name for p in plan.params if p.kind == "constexpr"}
    cands = tma_candidates(fd, info, {p.name: p.rank for p in plan.params if p.kind == "array"})
    lw.tma = TmaPlan(cands, consts) if cands else None
    # parameter comments are re-attached to the parameter lines, not the body
    for c in shared.comments:
        if not c.own_line and any(c.line == p.span.line for p in fd.params) and c.line != fd.span.line:
            lw._emitted.add((c.line, c.col))
    n_err = sum(1 for d in shared.reporter.items if d.severity == "error")
    shared.tile_shapes, shared.has_dot = [], False
    try:
        plan.lines = lw.lower_body()
    except TranslationError as e:
        shared.reporter.items.append(e.diag)
    if lw.tma is not None and lw.tma.descs:
        _add_tma_prologue(plan, lw.tma)
    plan.warps_expr = _warps_expr(plan, shared)
    plan.ok = plan.ok and sum(1 for d in shared.reporter.items if d.severity == "error") == n_err
    return plan


def _add_tma_prologue(plan: KernelPlan, tma) -> None:
    """Descriptors are made once, at the top of the kernel (after its docstring)."""
    plan.tma = tma
    for kp in plan.params:
        if kp.kind == "array" and kp.name in tma.blocks:
            kp.tma_blocks = tma.launcher_blocks(kp.name)
    flags = ", ".join(f"`{kp.name}_TMA`" for kp in plan.params if kp.tma_blocks)
    prologue = [f"    # TMA descriptors, made once (None where the launcher chose masked pointers: {flags})"]
    prologue += ["    " + ln for ln in tma.lines]
    at = 0
    if plan.docstring and plan.lines and plan.lines[0] == "    " + plan.docstring:
        at = 1
    plan.lines[at:at] = prologue + [""]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


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
    return f"_c2t_num_warps({biggest}, dot={shared.has_dot})"
