"""Module-level functions called from kernels become module-level @triton.jit helpers."""
from __future__ import annotations

from ..ir import nodes as N
from . import types as T
from .kernel import FunctionLowerer, HelperPlan
from .types import ArrayRef, V

_MAX_DEPTH = 16


def helper_call(lw: FunctionLowerer, name: str, e: N.Call) -> V:
    s = lw.s
    fd = s.info.functions[name]
    if e.keywords or any(isinstance(a, N.Starred) for a in e.args):
        lw.fail("C2T103", f"call `{name}(...)` with keyword or starred arguments is not supported yet", e)
    params = [p for p in fd.params if p.kind == "normal"]
    if len(params) != len([p for p in fd.params if p.kind != "posonly_marker"]):
        lw.fail("C2T103", f"helper `{name}` has *args/**kwargs; not supported in kernel code", e)
    args = [lw.expr(a) for a in e.args]
    for p in params[len(args):]:
        if p.default is None:
            lw.fail("C2T109", f"`{name}` is missing the argument `{p.name}`", e)
        args.append(lw.expr(p.default))
    if len(args) > len(params):
        lw.fail("C2T109", f"`{name}` takes {len(params)} arguments", e)
    sig = tuple((a.kind, a.array.rank if a.array else None) for a in args)
    plan = s.helpers.get(name)
    if plan is None:
        plan = HelperPlan(name=name, fd=fd, array_params={})
        plan.signature = sig
        s.helpers[name] = plan
        s.helper_order.append(name)
        _lower_helper(lw, plan, params, args)
    elif any(k1 == T.ARRAY or k2 == T.ARRAY for (k1, _), (k2, _) in zip(plan.signature, sig)) \
            and [r for _, r in plan.signature] != [r for _, r in sig]:
        lw.fail("C2T101", f"helper `{name}` is called with arrays of different ranks; not supported yet", e)
    flat = []
    for a in args:
        flat.extend(a.array.flat() if a.kind == T.ARRAY else [a.code])
    ret = getattr(plan, "ret", None) or V("", T.UNKNOWN)
    return V(f"{plan.emit_name}({', '.join(flat)})", ret.kind if ret.kind != T.STATIC else T.UNKNOWN,
             rank=ret.rank, elts=None)


def _lower_helper(lw: FunctionLowerer, plan: HelperPlan, params, args):
    s = lw.s
    depth = getattr(s, "_helper_depth", 0)
    if depth > _MAX_DEPTH:
        lw.fail("C2T103", "helper recursion is not supported", plan.fd)
    s._helper_depth = depth + 1
    plan.emit_name = plan.name if not getattr(s, "host_uses", {}).get(plan.name) else f"{plan.name}_tl"
    env, out_params = {}, []
    for p, a in zip(params, args):
        if a.kind == T.ARRAY:
            ref = ArrayRef.for_param(p.name, a.array.rank)
            env[p.name] = V(p.name, T.ARRAY, array=ref)
            plan.array_params[p.name] = a.array.rank
            out_params.append(", ".join(ref.flat()))
        else:
            env[p.name] = V(p.name, a.kind if a.kind in (T.STATIC, T.TILE, T.SCALAR) else T.UNKNOWN,
                            rank=a.rank, tf32=a.tf32)
            out_params.append(p.name)
    from ..passes import prepare
    sub = FunctionLowerer(s, prepare(plan.fd), env)
    sub.returns = []
    try:
        plan.lines = sub.lower_body()
    finally:
        s._helper_depth = depth
    plan.params = out_params
    rets = [r for r in sub.returns if r is not None]
    plan.ret = rets[0] if rets else None
    plan.done = True
