"""Host code: keep the user's text, splice in the edits of the host rules (translator/host_rules/)
by source span: launches, cdiv, dtypes, hints, ..."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import MappingProxyType

from .analysis import ModuleInfo, guarded_defs
from .diagnostics import Reporter
from .host_rules import hints, launches, names, registry
from .host_rules.names import fstring_ct_names  # noqa: F401  (public)
from .host_rules.registry import Ctx, Edit, Out, Stmt, apply_edits  # noqa: F401  (Edit, apply_edits: public)
from .ir import nodes as N
from .ir.nodes import walk


# The host rules (registry.rule), in the order they try a node: where two could take one node the
# first has it (a type annotation is kept as text before ct dtypes become torch's).
RULES = registry.collect(hints, launches, names)


@functools.lru_cache(maxsize=None)
def _rules_for(cls) -> tuple:
    """The RULES for nodes of IR class `cls`, in order (a pure function of the class)."""
    return tuple(r for r in RULES if issubclass(cls, r.types))


def host_name_uses(info: ModuleInfo, skip: set) -> dict:
    """Names used outside the functions in `skip` (kernels): name -> count."""
    uses: dict = {}
    for st in info.module.body:
        if isinstance(st, N.FunctionDef) and st.name in skip:
            continue
        inside = _skipped_inside(info, st, skip)
        if inside:
            counts = _names_used(n for n in info.nodes(st) if id(n) not in inside)
        else:       # (most statements: the same counts at each of a translation's calls)
            counts = info.once("names used", st, lambda st: _names_used(info.nodes(st)))
        for name, k in counts.items():
            uses[name] = uses.get(name, 0) + k
    return uses


def _names_used(nodes) -> dict:
    counts: dict = {}
    for n in nodes:
        if isinstance(n, N.Name):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _skipped_inside(info: ModuleInfo, st, skip: set) -> set:
    """Ids of the nodes of the functions in `skip` that module-level `if`/`try` statement `st`
    defines (kernels translated where they stand: analysis.guarded_defs)."""
    guarded = {id(x) for fd in guarded_defs(st) if fd.name in skip and info.functions.get(fd.name) is fd
               for x in walk(fd)}
    return guarded | {id(x) for nk in info.nested.values() if nk.top is st and nk.hoisted.name in skip
                      for x in walk(nk.fd)}


@dataclass(frozen=True)
class HostRewrite:
    """What the host rules made of a module: its edits, the host prelude parts they need, and
    facts about kernel plans for the caller to set (api.py): `tuned`, kernels exhaustive_search
    autotunes (plan.tuned); `batched`, kernels host loops launch, -> their batch positions
    (plan.batched, batch_consts, batch_arrays, batch_written)."""
    edits: tuple
    needs: frozenset
    tuned: tuple
    batched: MappingProxyType


def rewrite_host(info: ModuleInfo, text: str, rep: Reporter, kernels: dict, skip: set,
                 refused: frozenset = frozenset()) -> HostRewrite:
    """Edits for every cuda.tile use outside kernel/helper bodies (skip: their names). `refused`:
    kernels written as stand-ins (partial translation), whose launches raise. Diagnostics go to
    `rep` in the order the rules give them."""
    ctx = Ctx(info, text, MappingProxyType(kernels), frozenset(refused), MappingProxyType(host_name_uses(info, skip)))
    statements = [st for st in info.module.body if not (isinstance(st, N.FunctionDef) and st.name in skip)]
    outs = []
    for st in statements:
        if not _left_alone(info, st):
            outs += _statement(ctx, st, _skipped_inside(info, st, skip))
    inner = [e for o in outs for e in o.edits]
    calls = [o.launch for o in outs if o.launch is not None]
    loops_out, loops, batched = launches.batched_loops(ctx, statements)
    outs.append(loops_out)
    outs += [launches.rewrite_launch(ctx, n, inner, loops.get(id(n))) for n in calls]
    for o in outs:
        for d in o.diags:
            rep.add(d.code, d.message, d.span, d.hint)
    return HostRewrite(edits=tuple(e for o in outs for e in o.edits),
                       needs=frozenset().union(*(o.needs for o in outs)),
                       tuned=tuple(dict.fromkeys(o.tuned for o in outs if o.tuned)), batched=batched)


def drop_ct_aliases(info: ModuleInfo, uses: dict, text: str, rep: Reporter) -> list:
    """Edits removing the kernel-only alias statements (`ConstInt = ct.Constant[int]`) that host
    code does not use (`uses`: name -> count), or giving a dtype alias torch's dtype."""
    out = names.drop_ct_aliases(info, uses, text)
    for d in out.diags:
        rep.add(d.code, d.message, d.span, d.hint)
    return list(out.edits)


def _left_alone(info: ModuleInfo, st) -> bool:
    """Statements no rule looks at: imports (api.py replaces cuda.tile's) and kernel-only aliases
    (`ConstInt = ct.Constant[int]`, dropped by drop_ct_aliases)."""
    return isinstance(st, N.Import) or (
        isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name)
        and (st.targets[0].id in info.constant_aliases or st.targets[0].id in info.ct_constants
             or st.targets[0].id in info.hint_aliases))


def _statement(ctx: Ctx, st, skipped: set = frozenset()) -> list:
    """The rules' Outs for the nodes of one module-level statement, in walk order, then its grouped
    diagnostics (`skipped`: ids of nodes in kernels it defines, which are not host code)."""
    nodes = ctx.info.nodes(st)
    stmt = _facts(st, nodes)
    covered: set = set(skipped)
    outs = []
    groups: dict = {}       # (make, id(node)) -> (make, node, items)
    for n in nodes:
        if id(n) in covered:
            continue
        for r in _rules_for(type(n)):
            out = r.fn(ctx, stmt, n)
            if out is None:
                continue
            outs.append(out)
            covered |= out.covers
            if out.group:
                make, node, item = out.group
                items = groups.setdefault((make, id(node)), (make, node, []))[2]
                if item not in items:
                    items.append(item)
            if out.claims:
                break
    outs += [Out(diags=(make(stmt, node, items),)) for make, node, items in groups.values()]
    return outs


def _facts(st, nodes) -> Stmt:
    annotations = {}        # id of a node in a type annotation (parameters, returns, annotated
    nested: dict = {}       # assignments, dataclass fields) -> the whole annotation
    for n in nodes:
        anns = []
        if isinstance(n, N.AnnAssign):
            anns.append(n.annotation)
        elif isinstance(n, N.FunctionDef):
            anns += [p.annotation for p in n.params] + [n.returns]
        for a in anns:
            if a is not None:
                annotations.update((id(x), a) for x in walk(a))
    for d in (walk(st.body) if isinstance(st, N.FunctionDef) else ()):
        if isinstance(d, N.FunctionDef):
            for x in walk(d):
                nested.setdefault(id(x), d)
    rebound = frozenset(id(t) for x in nodes if isinstance(x, N.Assign) for t in x.targets)
    return Stmt(st, MappingProxyType(annotations), rebound, MappingProxyType(nested), _presence_tests(nodes))


def _presence_tests(nodes) -> frozenset:
    """Ids of the expressions among a statement's `nodes` whose truth or None-ness alone is tested
    (registry.Stmt)."""
    out = set()

    def test(e):
        while isinstance(e, N.UnaryOp) and e.op == "not":
            e = e.operand
        if isinstance(e, N.BoolOp):
            for v in e.values:
                test(v)
        elif e is not None:
            out.add(id(e))
    for n in nodes:
        if isinstance(n, (N.If, N.While, N.IfExp)):
            test(n.test)
        elif isinstance(n, N.UnaryOp) and n.op == "not":
            test(n.operand)
        elif isinstance(n, N.Compare) and len(n.ops) == 1 and n.ops[0] in ("is", "is not"):
            a, b = n.left, n.comparators[0]
            if isinstance(b, N.Const) and b.value is None:
                out.add(id(a))
            elif isinstance(a, N.Const) and a.value is None:
                out.add(id(b))
    return frozenset(out)
