"""Functions called from kernels become module-level @triton.jit helpers.

Module-level functions keep their name (a `_tl` twin is emitted when host code uses them too).
Nested defs and lambdas inside kernels are hoisted to module level; the variables they capture
are passed as extra arguments. A helper is lowered once per distinct argument signature
(static / runtime / array rank), since the lowering of e.g. `//` depends on it.
"""
from __future__ import annotations

import enum

from .. import emit
from ..diagnostics import TranslationError
from ..ir import nodes as N
from ..passes import prepare
from . import ops_dicts
from . import types as T
from .arrays import infer_params, walk
from .context import starred_arguments
from .dtype_facts import may_be_bf16
from .kernel import FunctionLowerer, HelperPlan
from .ops_views import TILEDVIEW, view_arguments, view_parameter, view_signature
from .types import ArrayRef, ListRef, V

_MAX_DEPTH = 16
BIND_ONLY = (T.CTFUNC, T.CTMOD, T.HELPER, T.MODULE, T.ENUM, T.CONSTOBJ)


def _bound(v: V) -> bool:
    """Passed to a helper at translation time, not as an argument: functions, modules, enum classes,
    dataclass values, and members of plain enums (no Triton value; IntEnum members are ints)."""
    return v.kind in BIND_ONLY or (v.known and isinstance(v.value, enum.Enum) and not isinstance(v.value, int))


def _sig_of(v: V):
    if v.kind == ops_dicts.DICT:        # its keys, and its values' signatures
        return (v.kind, v.value, tuple(_sig_of(e) for e in v.elts))
    # a value bound at translation time (a function, an enum member, a dataclass value...) is part
    # of the helper's lowering: each distinct one gets a helper of its own
    bound = None
    if v.kind == T.CONSTOBJ:        # a dataclass value: its fields, whatever name it came by
        bound = (type(v.value).__name__, repr(v.value))
    elif v.kind == T.ENUM or (_bound(v) and isinstance(v.value, enum.Enum)):
        bound = (v.code, repr(v.value))
    elif _bound(v) and isinstance(v.value, tuple) and v.value and v.value[0] == "localfunc":
        bound = (v.code, id(v.value[1]), tuple(v.value[2]) if len(v.value) > 2 else ())
    elif _bound(v):
        bound = (v.code, id(v.value))
    if v.kind == TILEDVIEW:
        bound = view_signature(v)
    return (v.kind, v.rank, v.array.rank if v.array else None, bool(v.tf32),
            v.value.rank if v.kind == T.LIST else None, bound,
            may_be_bf16(v) if v.kind in (T.TILE, T.SCALAR, T.UNKNOWN) else None, v.isfloat,
            # a tuple's elements: the helper unrolls over them (static_iter, indexing)
            tuple(_sig_of(e) for e in v.elts) if v.kind == T.TUPLE and v.elts is not None else None)


def lower_call(lw: FunctionLowerer, f: V, e: N.Call) -> V:
    """A call in kernel code of a function value `f` (T.HELPER; not one imported from another
    module, ops.imported_call): what LoweringContext.call_function does (Shared.calls)."""
    if isinstance(f.value, tuple) and f.value[0] == "dcmethod":
        return method_of_dataclass(lw, f.value[1], f.value[2], e)
    if isinstance(f.value, tuple) and f.value[0] == "localfunc":
        fd = f.value[1]
        made = closure_factory(lw, fd, e, f.value[2] if len(f.value) > 2 else None)
        if made is not None:
            return made
        if len(f.value) > 2:        # passed in from where it was written: its captures came along
            capmap = f.value[2]
            there = {c: lw.env[h] for c, h in capmap.items()}
            captured = free_names(fd, there)        # (the rest are saved defaults, bind_defaults)
            defaults = {id(p.default): there[p.default.id] for p in fd.params
                        if isinstance(p.default, N.Name) and p.default.id in there}
            lw.node_values.update(defaults)
            try:
                return local_call(lw, fd, captured, e, [there[c] for c in captured])
            finally:
                for k in defaults:
                    del lw.node_values[k]
        return local_call(lw, fd, free_names(fd, lw.env), e)
    return helper_call(lw, str(f.value), e)


def _factory_parts(fd: N.FunctionDef):
    """(its nested defs, its return expression) for a function whose body is nested defs and a
    `return` of one of them (or of a tuple holding one): a closure factory; else None."""
    body = [st for st in fd.body if not (isinstance(st, N.ExprStmt) and isinstance(st.value, N.Const)
                                         and isinstance(st.value.value, str))]
    if len(body) < 2 or not isinstance(body[-1], N.Return) or body[-1].value is None:
        return None
    defs = body[:-1]
    if not all(isinstance(st, N.FunctionDef) and not st.decorators for st in defs):
        return None
    names = {st.name for st in defs}
    ret = body[-1].value
    parts = ret.elts if isinstance(ret, N.TupleExpr) else [ret]
    if not any(isinstance(x, N.Name) and x.id in names for x in parts):
        return None
    return defs, ret


def closure_factory(lw, fd: N.FunctionDef, e: N.Call, capmap) -> V:
    """A call of a closure factory (`def make(t): def f(y): return y + t; return f`): evaluated at
    translation time, as cuTile does. Its parameters become variables of the caller
    (`_c2t_clo<k>_<name>`: runtime values are assigned there, once), its nested defs function values
    whose captures are those variables, and the call's value its return expression (a function
    value, or a tuple holding one). None for other functions. `capmap`: where the factory's own
    captures are, for a factory passed in from elsewhere."""
    parts = _factory_parts(fd)
    if parts is None:
        return None
    defs, ret = parts
    params, args = _bind(lw, fd, e)
    k = lw.closures = getattr(lw, "closures", 0) + 1
    frame = {}          # a name of the factory's -> the caller's variable holding it
    outer = capmap if capmap is not None else {c: c for c in free_names(fd, lw.env)}
    frame.update(outer)
    for p, a in zip(params, args):
        hidden = f"_c2t_clo{k}_{p.name}"
        if a.kind in (T.TILE, T.SCALAR, T.UNKNOWN) or (a.kind == T.STATIC and not a.known):
            lw.pre_lines.append(f"{hidden} = {a.code}")
            lw.env[hidden] = V(hidden, a.kind, rank=a.rank, shape=a.shape, array=a.array, isint=a.isint,
                               isfloat=a.isfloat, nonneg=a.nonneg, dsrc=a.dsrc, mbf=a.mbf)
        else:
            lw.env[hidden] = a
        frame[p.name] = hidden
    for st in defs:
        frame[st.name] = f"_c2t_clo{k}_{st.name}"
        lw.env[frame[st.name]] = V(st.name, T.HELPER, value=("localfunc", st))     # (placeholder)
    view = {c: lw.env[h] for c, h in frame.items()}
    for st in defs:
        caps = {c: frame[c] for c in free_names(st, view)}
        caps.update({p.default.id: frame[p.default.id] for p in st.params
                     if isinstance(p.default, N.Name) and p.default.id in frame})
        lw.env[frame[st.name]] = V(st.name, T.HELPER, value=("localfunc", st, caps))
    view = {c: lw.env[h] for c, h in frame.items()}
    saved = lw.env
    lw.env = view
    try:
        return lw.expr(ret)
    finally:
        lw.env = saved


def method_of_dataclass(lw, fd, obj: V, e: N.Call) -> V:
    """`cfg.method(args)` on a frozen dataclass constant: the method as a helper (one per
    instance value), `self` bound to the instance at translation time."""
    self_node = N.Name(span=e.span, id=fd.params[0].name)
    lw.node_values[id(self_node)] = obj
    try:
        call2 = N.Call(span=e.span, func=e.func, args=[self_node, *e.args], keywords=e.keywords)
        return _call(lw, fd, f"_{type(obj.value).__name__}_{fd.name}", call2, [], module_level=False)
    finally:
        del lw.node_values[id(self_node)]


def helper_call(lw: FunctionLowerer, name: str, e: N.Call) -> V:
    """Call of a module-level function from kernel code."""
    if name not in lw.s.info.functions:        # e.g. a function a helper returned (a closure factory)
        lw.fail("C2T103", "this call's function is not known at translation time (a function returned "
                          "by another function is not supported in kernel code)", e,
                hint="call a module-level function or a nested def by its name; pass values it needs "
                     "as arguments instead of capturing them in a returned closure")
    fd = lw.s.info.functions[name]
    host_used = bool(lw.s.host_uses.get(name))
    return _call(lw, fd, name if not host_used else f"{name}_tl", e, [], module_level=True)


def local_call(lw: FunctionLowerer, fd: N.FunctionDef, captured: list, e: N.Call, cap_vals=None) -> V:
    """Call of a nested def / lambda; `captured` lists the free variable names it reads (their
    values: `cap_vals`, by default the caller's values of those names)."""
    owner = lw.fd.name
    return _call(lw, fd, f"_{owner}_{fd.name}", e, captured, module_level=False, cap_vals=cap_vals)


def _made_closure(v: V) -> bool:
    return v.kind == T.HELPER and isinstance(v.value, tuple) and v.value[0] == "localfunc" and len(v.value) > 2


def _pass_captures(lw, fd, args) -> tuple:
    """Nested defs and lambdas among a helper call's arguments read variables of the function
    they were written in, which the helper cannot see (or has its own of the same name): each
    such value travels as a hidden parameter `_c2t_cap_<function>_<name>`, and the function value
    records which (value ("localfunc", fd, {name: hidden parameter})). Returns (args, extra
    params, extra args)."""
    out, extra_p, extra_a = [], [], []
    for a in args:
        if a.kind == T.HELPER and isinstance(a.value, tuple) and a.value[0] == "localfunc":
            lfd = a.value[1]
            here = a.value[2] if len(a.value) > 2 else {c: c for c in free_names(lfd, lw.env) + [
                p.default.id for p in lfd.params if isinstance(p.default, N.Name) and p.default.id in lw.env]}
            if here:
                capmap = {}
                for c, name in here.items():
                    hidden = f"_c2t_cap_{lfd.name}_{c}"
                    capmap[c] = hidden
                    extra_p.append(N.Param(span=fd.span, name=hidden))
                    extra_a.append(lw.env[name])
                a = V(a.code, T.HELPER, value=("localfunc", lfd, capmap))
        out.append(a)
    return out, extra_p, extra_a


def _signature(lw, fd, e):
    """A helper's parameters in order, as (Param, how it may be passed: "pos" positional only,
    "any", "kw" keyword only, "star" the *args tuple, "kwstar" the **kwargs dictionary)."""
    out, how = [], "any"
    if any(p.kind == "posonly_marker" for p in fd.params):
        how = "pos"
    for p in fd.params:
        if p.kind == "posonly_marker":
            how = "any"
        elif p.kind == "star":
            if p.name != "*":       # *args: the extra positional arguments, as a tuple (_bind)
                out.append((N.Param(span=p.span, name=p.name), "star"))
            how = "kw"
        elif p.kind == "kwstar":        # **kwargs: the other keyword arguments, a dictionary (_bind)
            out.append((N.Param(span=p.span, name=p.name), "kwstar"))
        else:
            out.append((p, how))
    return out


def _bind(lw, fd, e) -> tuple:
    """The call's arguments bound to `fd`'s parameters as Python binds them (positional, then
    keywords, then defaults, each evaluated in the caller): (params, lowered args)."""
    sig = _signature(lw, fd, e)
    call_args = starred_arguments(lw, e.args, f"call `{fd.name}(...)`") if any(
        isinstance(a, N.Starred) for a in e.args) else e.args
    positional = [p for p, how in sig if how in ("pos", "any")]
    star = next((p for p, how in sig if how == "star"), None)
    if len(call_args) > len(positional) and star is None:
        lw.fail("C2T109", f"`{fd.name}` takes {len(positional)} positional argument"
                          f"{'s' if len(positional) != 1 else ''}, got {len(call_args)}", e)
    bound = {}
    for p, a in zip(positional, call_args):
        bound[p.name] = lw.expr(a)
    if star is not None:        # `def helper(arr, *items)`: the rest, a tuple
        bound[star.name] = lw.make_tuple([lw.expr(a) for a in call_args[len(positional):]])
    by_name = {p.name: how for p, how in sig}
    kwstar = next((p for p, how in sig if how == "kwstar"), None)
    extra = {}          # the keyword arguments **kwargs takes, in call order
    for name, value, node in _keywords(lw, fd, e):
        if (name not in by_name or by_name[name] in ("star", "kwstar")) and kwstar is not None:
            if name in extra:
                lw.fail("C2T109", f"`{fd.name}` got two values for the argument `{name}`", node)
            extra[name] = value
            continue
        if name not in by_name or by_name[name] in ("star", "kwstar"):
            lw.fail("C2T109", f"`{fd.name}` has no parameter `{name}`", node)
        if by_name[name] == "pos":
            lw.fail("C2T109", f"`{fd.name}`: parameter `{name}` is positional-only", node)
        if name in bound:
            lw.fail("C2T109", f"`{fd.name}` got two values for the argument `{name}`", node)
        bound[name] = value
    if kwstar is not None:
        bound[kwstar.name] = ops_dicts.make(extra.keys(), extra.values())
    params, args = [], []
    for p, _ in sig:
        if p.name not in bound:
            if p.default is None:
                lw.fail("C2T109", f"`{fd.name}` is missing the argument `{p.name}`", e)
            bound[p.name] = lw.expr(p.default)
        params.append(p)
        args.append(bound[p.name])
    return params, args


def _keywords(lw, fd, e):
    """The call's keyword arguments as (name, lowered value, node), `**d` of a dictionary spread
    into its items (anything else after `**` is cuTile's TileTypeError)."""
    for kw in e.keywords:
        if kw.name is not None:
            yield kw.name, lw.expr(kw.value), kw
            continue
        d = lw.expr(kw.value)
        if d.kind != ops_dicts.DICT:
            lw.fail("C2T103", f"call `{fd.name}(...)`: `**` needs a dictionary (a helper's **kwargs)", kw,
                    cutile=("TileTypeError", "Expected a dictionary after **"))
        for name, value in ops_dicts.items(d):
            yield name, value, kw


def _descriptor_return(fd: N.FunctionDef, params, args):
    """The expression of a helper whose body is one `return` of a parameter given a view, of its
    attributes and methods, or of a view made from a parameter given an array:
    `def get(tv): return tv.atomic_store_add`, `def view(a, t): return a.tiled_view(t)`.
    No Triton function can return such a value; cuTile evaluates it at compile time. None for
    other helpers."""
    body = [st for st in fd.body if not (isinstance(st, N.ExprStmt) and isinstance(st.value, N.Const)
                                         and isinstance(st.value.value, str))]
    if len(body) != 1 or not isinstance(body[0], N.Return) or body[0].value is None:
        return None
    ret = body[0].value
    node, views = ret, False
    while isinstance(node, (N.Attr, N.Call)):
        if isinstance(node, N.Call):
            node = node.func
        else:
            views = views or node.attr in ("tiled_view", "slice")
            node = node.value
    if not isinstance(node, N.Name):
        return None
    kinds = {p.name: a.kind for p, a in zip(params, args)}
    if kinds.get(node.id) == TILEDVIEW or kinds.get(node.id) == T.ARRAY and views:
        return ret
    return None


def _at_translation_time(lw, ret, params, args, captured, cap_vals) -> V:
    """A descriptor helper's result (_descriptor_return): its `return` expression lowered where the
    call is, its parameters bound to the call's values and its captures to theirs (other names
    are the module's)."""
    saved = lw.env
    lw.env = {**dict(zip(captured, cap_vals)), **{p.name: a for p, a in zip(params, args)}}
    try:
        return lw.expr(ret)
    finally:
        lw.env = saved


def _call(lw, fd, base_name, e, captured, module_level, cap_vals=None) -> V:
    s = lw.s
    params, args = _bind(lw, fd, e)
    ret = _descriptor_return(fd, params, args)
    if ret is not None:
        return _at_translation_time(lw, ret, params, args, captured,
                                    [lw.env[c] for c in captured] if cap_vals is None else cap_vals)
    args, pass_p, pass_a = _pass_captures(lw, fd, args)
    cap_vals = [lw.env[c] for c in captured] if cap_vals is None else cap_vals
    if any(_made_closure(v) for v in cap_vals):     # a captured function value with captures of its own
        cap_vals, more_p, more_a = _pass_captures(lw, fd, cap_vals)
        pass_p, pass_a = pass_p + more_p, pass_a + more_a
    all_params = params + pass_p + [N.Param(span=fd.span, name=c) for c in captured]
    all_args = args + pass_a + cap_vals
    sig = tuple(_sig_of(a) for a in all_args)
    key = (id(fd), sig)
    plans = s.helper_plans
    plan = plans.get(key)
    if plan is None:
        n_same = sum(1 for (fid, _) in plans if fid == id(fd))
        emit_name = base_name if n_same == 0 else f"{base_name}_{n_same}"
        plan = HelperPlan(name=fd.name, fd=fd, array_params={})
        plan.emit_name = emit_name
        plans[key] = plan
        _lower_helper(lw, plan, all_params, all_args)
        code = _render(plan)
        if module_level and n_same == 0:
            s.helpers[fd.name] = plan       # emitted where the function was defined
            s.helper_order.append(fd.name)
        else:
            s.add_def(emit_name, lambda _n: code)
    if getattr(plan, "permutes", False):
        lw.permutes_tiles = True
    for name, a in _expanded(all_params, all_args):     # the arrays it loads from and stores to, in order
        if a.kind in (T.ARRAY, TILEDVIEW) and (name in plan.array_reads or name in plan.array_writes):
            lw.helper_access(a.array, name in plan.array_reads, name in plan.array_writes)
    # its dots and reads count where it is called; a loop with dots inside it is one the
    # launcher cannot size a pipeline for (its tile shapes are in the helper's names)
    lw.count_dot(getattr(plan, "dots", 0))
    if getattr(plan, "dots", 0):
        # the kernel calling it has dots: its launcher sizes warps and stages for them (a plan
        # lowered for an earlier kernel set has_dot on that kernel's tiles only)
        lw.tiles.has_dot = True
    lw.count_reads(getattr(plan, "reads", 0))
    if getattr(plan, "dot_loops", False):
        lw.other_dot_loops = True
    flat = []
    for _p, a in _expanded(all_params, all_args):
        if _bound(a):
            continue
        flat.extend(a.array.flat() if a.kind == T.ARRAY else a.value.params() if a.kind == T.LIST
                    else view_arguments(a) if a.kind == TILEDVIEW else [a.code])
    ret = getattr(plan, "ret", None) or V("", T.UNKNOWN)
    if getattr(plan, "pad", False):     # its products take the caller's C2T_PAD (ops._chain_flag)
        lw.pad_products = True
        flat.append("C2T_PAD=C2T_PAD")
    code = f"{plan.emit_name}({', '.join(flat)})"
    if ret.kind == T.TUPLE and ret.elts and all(e.kind in (T.TILE, T.SCALAR, T.STATIC, T.UNKNOWN) for e in ret.elts):
        # a returned tuple of tiles and scalars: its elements can be indexed (`r = f(t); r[0]`)
        elts = [e if e.known and e.kind == T.STATIC else
                V(f"{code}[{i}]", e.kind if e.kind != T.STATIC else T.UNKNOWN, rank=e.rank, tf32=e.tf32)
                for i, e in enumerate(ret.elts)]
        return V(code, T.TUPLE, elts=elts)
    kind = ret.kind if ret.kind not in (T.STATIC, T.TUPLE) else T.UNKNOWN
    return V(code, kind, rank=ret.rank, **_returned_facts(ret, all_params, all_args))


def _expanded(params, args):
    """(parameter name, value) pairs of a helper call, a dictionary's as one per key, in the order
    _parameter declares them."""
    for p, a in zip(params, args):
        name = p.name if isinstance(p, N.Param) else p
        if a.kind == ops_dicts.DICT:
            yield from _expanded([f"_c2t_kw_{name}_{k}" for k in a.value], a.elts)
        else:
            yield name, a


def _returned_facts(ret: V, params, args) -> dict:
    """The dtype facts of a helper's result, its family named in the caller's terms (a parameter's
    family is its argument's; an array parameter's, the array's)."""
    if ret.kind not in (T.TILE, T.SCALAR):
        return {}
    dsrc = ret.dsrc
    if dsrc is not None and not dsrc.startswith("dt:"):
        kind_, _, name = dsrc.partition(":")
        arg = next((a for p, a in zip(params, args) if p.name == name), None)
        if arg is None:
            dsrc = None
        elif kind_ == "param":
            dsrc = arg.dsrc
        else:
            dsrc = f"arr:{arg.array.ptr}" if arg.kind == T.ARRAY and arg.array else None
    return dict(dsrc=dsrc, mbf=may_be_bf16(ret), isfloat=ret.isfloat)


def lower_library_helper(s, fd: N.FunctionDef):
    """A module-level function with tile operations that no kernel of this module calls
    (helper_sets.library_helpers): lowered once as a Triton helper under its own name, its parameters
    typed from its body (arrays by their use, `Constant` annotations as constants, the rest as
    tiles or scalars), the convention kernels of other modules call it with."""
    params = [p for p in fd.params if p.kind == "normal"]
    lw = FunctionLowerer(s, fd, {})
    try:
        if any(p.kind == "kwstar" or (p.kind == "star" and p.name != "*") for p in fd.params):
            lw.fail("C2T103", f"`{fd.name}` has *args/**kwargs; not supported in kernel code", fd)
        arrays, lists = infer_params(fd, s.info, {p.name for p in params})
        args = []
        for p in params:
            if p.name in lists:
                args.append(V(p.name, T.LIST, value=ListRef(p.name, lists[p.name])))
            elif arrays.get(p.name) is not None:    # (`x.dtype` alone does not make x an array)
                args.append(V(p.name, T.ARRAY, array=ArrayRef.for_param(p.name, arrays[p.name])))
            elif s.info.is_constant_annotation(p.annotation):
                args.append(V(p.name, T.STATIC))
            else:
                args.append(V(p.name, T.UNKNOWN))
        plan = HelperPlan(name=fd.name, fd=fd, array_params={})
        plan.emit_name = fd.name
        s.helper_plans[(id(fd), tuple(_sig_of(a) for a in args))] = plan
        _lower_helper(lw, plan, params, args)
    except TranslationError as e:
        s.reporter.items.append(e.diag)
        return
    s.helpers[fd.name] = plan
    s.helper_order.append(fd.name)


def _render(plan) -> str:
    return emit.render("helper.py.j2", h=plan)


def _lower_helper(lw: FunctionLowerer, plan: HelperPlan, params, args):
    s = lw.s
    depth = s.helper_depth
    if depth > _MAX_DEPTH:
        lw.fail("C2T103", "recursive helper functions are not supported", plan.fd)
    s.helper_depth = depth + 1
    env, out_params = {}, []
    for p, a in zip(params, args):
        _parameter(plan, env, out_params, p, a)
    sub = FunctionLowerer(s, prepare(plan.fd), env, lw.tiles)
    sub.local_funcs = dict(getattr(lw, "local_funcs", {}))
    try:
        plan.lines = sub.lower_body()
    finally:
        s.helper_depth = depth
    plan.pad = sub.pad_products
    if plan.pad:        # (callers from other modules, which do not pass it, get the plain form)
        out_params.append("C2T_PAD: tl.constexpr = False")
    plan.params = out_params
    plan.permutes = sub.permutes_tiles or sub.emits_permute
    plan.dots, plan.reads = sub.n_dots, sub.n_reads
    plan.array_reads = sub.all_read & set(plan.array_params)
    plan.array_writes = sub.all_written & set(plan.array_params)
    plan.dot_loops = bool(sub.gemm_loops) or sub.other_dot_loops
    rets = [r for r in sub.returns if r is not None]
    plan.ret = rets[0] if rets else None
    plan.done = True


def _parameter(plan, env: dict, out_params: list, p, a: V):
    """A helper's parameter `p` given `a`: its value in the helper's `env`, its declarations in
    `out_params` (none for values bound at translation time). A dictionary (**kwargs) is a
    parameter per key, `_c2t_kw_<name>_<key>`, and a dictionary of them."""
    if a.kind == ops_dicts.DICT:
        vals = []
        for key, v in ops_dicts.items(a):
            hidden = f"_c2t_kw_{p.name}_{key}"
            _parameter(plan, env, out_params, N.Param(span=p.span, name=hidden), v)
            vals.append(env[hidden])
        env[p.name] = ops_dicts.make(a.value, vals)
        return
    if a.kind == T.ARRAY:
        ref = ArrayRef.for_param(p.name, a.array.rank)
        env[p.name] = V(p.name, T.ARRAY, array=ref)
        plan.array_params[p.name] = a.array.rank
        out_params.append(", ".join(ref.flat()))
    elif a.kind == TILEDVIEW:     # a view: its array, and its unknown tile entries as constexprs
        env[p.name], decls = view_parameter(p.name, a)
        plan.array_params[p.name] = a.array.rank
        out_params.append(", ".join(decls))
    elif a.kind == T.LIST:     # a list of arrays: its table, length and dtype
        ref = ListRef(p.name, a.value.rank, static=a.value.static)
        env[p.name] = V(p.name, T.LIST, value=ref)
        out_params.append(ref.decl())
    elif _bound(a):
        env[p.name] = a          # functions, modules, enum members: bound at translation time
    elif a.kind == T.DTYPE:
        env[p.name] = V(p.name, T.DTYPE, tf32=a.tf32)
        out_params.append(p.name)
    else:
        env[p.name] = V(p.name, a.kind if a.kind in (T.STATIC, T.TILE, T.SCALAR, T.TUPLE) else T.UNKNOWN,
                        rank=a.rank, tf32=a.tf32, elts=_param_elts(p.name, a), isint=a.isint,
                        # its own dtype family; whether it may be bf16 is part of the signature
                        dsrc=f"param:{p.name}", mbf=may_be_bf16(a), isfloat=a.isfloat)
        out_params.append(p.name)


def _param_elts(name, a: V):
    if a.kind != T.TUPLE or not a.elts:
        return None
    return [V(f"{name}[{i}]", e.kind, rank=e.rank, tf32=e.tf32) for i, e in enumerate(a.elts)]


def free_names(fd: N.FunctionDef, env: dict) -> list:
    """Names a nested function reads from the enclosing kernel (its captures), in first-use order."""
    params = {p.name for p in fd.params}
    assigned = set()
    for n in walk(fd.body):
        if isinstance(n, (N.Assign,)):
            for t in n.targets:
                for x in walk(t):
                    if isinstance(x, N.Name):
                        assigned.add(x.id)
        elif isinstance(n, (N.AugAssign, N.AnnAssign)) and isinstance(n.target, N.Name):
            assigned.add(n.target.id)
        elif isinstance(n, N.For):
            for x in walk(n.target):
                if isinstance(x, N.Name):
                    assigned.add(x.id)
    out = []
    for n in walk(fd.body):
        if isinstance(n, N.Name) and n.id not in params and n.id not in assigned and n.id in env \
                and n.id not in out:
            v = env[n.id]
            if v.kind in (T.CTFUNC, T.CTMOD, T.MODULE):
                continue
            out.append(n.id)
    return out
