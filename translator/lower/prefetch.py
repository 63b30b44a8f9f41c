"""Register prefetch of tile loads in persistent (grid-stride) loops.

cuTile pipelines the loads of `for t in range(bid, n, num_blocks)` loops itself (its `latency=`
hints); Triton 3.6 does not pipeline pointer loads outside dot loops, so with one program per SM
each program has a single tile in flight and a memory-bound kernel stalls on every load
(TileGym's static-persistent RMSNorm: 72% of the copy bandwidth against cuTile's 93%). Loading
the next iteration's tile while this one is used (two tiles in flight) closes that gap: 95% on the
H200 (tests/gpu/exp_loop_prefetch.py, docs/gpu-runs/).

A load qualifies when moving it one iteration earlier cannot change what it reads:
- the loop is `range(start, stop, step)` with a run-time step (a grid-stride loop), without
  nested loops or matrix products (Triton pipelines dot loops itself);
- the statement is `name = ct.load(array, ...)` or `name = ct.gather(array, indices, ...)` at
  the top of the loop body (a gather's tile shape is the broadcast of its index tiles' shapes;
  TileGym's persistent softmax reads its rows so: its 4096x1024 rows went from 0.80-0.83 of
  cuTile's device time to 0.97-1.06, docs/gpu-runs/earlier-tables.tar.xz: bench-2026-11-29-s5.md, graph replay);
- the kernel never writes `array` (a store in this iteration could change the next tile), and
  only the loop variable and names the loop body does not assign appear in the call;
- the load is bounds-checked (no `check_bounds=False`), so loading past the last iteration is
  safe, and has no `memory_order` (an acquire load must stay where it is);
- `continue`/`break` before the load turn it into a guarded statement (passes/loop_exits.py), which
  is no longer at the top of the loop body, so it is not prefetched.
Two tiles in registers only pay off for small tiles: a constexpr picks the prefetch for tiles of
at most PREFETCH_MAX_ELEMENTS elements (measured: 4x4096 gains, 4x8192 bf16 loses).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import nodes as N
from .arrays import walk
from .types import ARRAY, SCALAR, V

PREFETCH_MAX_ELEMENTS = 16384


@dataclass
class Prefetch:
    target: str       # the loaded tile's name
    buffer: str       # the register buffer holding the next iteration's tile
    flag: str         # constexpr: whether this specialization prefetches
    loop: tuple = ()  # (loop variable, step code), set by the loop's lowering


def _assigned(body) -> set:
    names = set()
    for n in walk(body):
        targets = n.targets if isinstance(n, N.Assign) else [n.target] if isinstance(
            n, (N.AugAssign, N.AnnAssign, N.For)) else []
        for t in targets:
            names |= {x.id for x in walk(t) if isinstance(x, N.Name)}
    return names


def candidates(lw, st, step: V) -> list:
    """The top-level `name = ct.load(...)` / `ct.gather(...)` statements of loop `st` that may be loaded one
    iteration early (see the module docstring)."""
    info = lw.s.info
    if len(st.iter.args) != 3 or step.is_static or not isinstance(st.target, N.Name):
        return []
    for n in walk(st.body):
        if isinstance(n, (N.For, N.While)):
            return []
        if isinstance(n, N.Call) and info.ct_path(n.func) in ("mma", "matmul", "mma_scaled"):
            return []
        if isinstance(n, N.BinOp) and getattr(n, "op", None) == "@":
            return []
    assigned = _assigned(st.body)
    if st.target.id in assigned:
        return []
    written = lw._loop_writes(lw.fd.body)
    out = []
    for s in st.body:
        if not (isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], N.Name)
                and isinstance(s.value, N.Call) and info.ct_path(s.value.func) in ("load", "gather")):
            continue
        kws = {k.name: k.value for k in s.value.keywords}
        if len(s.value.args) > 3 or "memory_order" in kws or "memory_scope" in kws or (
                "check_bounds" in kws and not (isinstance(kws["check_bounds"], N.Const)
                                               and kws["check_bounds"].value is True)):
            continue
        arr = s.value.args[0] if s.value.args else None     # ct.load takes the array first
        v = lw.env.get(arr.id) if isinstance(arr, N.Name) else None
        if v is None or v.kind != ARRAY or lw._root(v.array) in written:
            continue
        names = {x.id for x in walk([s.value.args, s.value.keywords]) if isinstance(x, N.Name)}
        if names & assigned:
            continue
        out.append(s)
    return out


def _atom(v: V) -> str:
    return v.code if v.prec >= 100 else f"({v.code})"


def lowered_load(lw, s, loop_var: str, code: str) -> V:
    """The load of statement `s` with the loop variable standing for `code`."""
    saved = lw.env.get(loop_var)
    lw.env[loop_var] = V(f"({code})" if not code.isidentifier() else code, SCALAR)
    try:
        return lw.expr(s.value)
    finally:
        if saved is None:
            lw.env.pop(loop_var, None)
        else:
            lw.env[loop_var] = saved


def emit_before_loop(lw, loads, loop_var: str, start: str, depth: int) -> dict:
    """Before the loop: each prefetched load's constexpr switch and the first iteration's tile.
    Returns {id(statement): Prefetch} for the loop body's lowering."""
    plans = {}
    for s in loads:
        target = s.targets[0].id
        first = lowered_load(lw, s, loop_var, start)
        if not first.shape:
            continue
        buf, flag = f"{target}_next", f"{target}_prefetch"
        if not lw.prefetch_comment_done:
            lw.emit(depth, "# the next iteration's tile is loaded while this one is used (two tiles in "
                           "flight: cuTile pipelines these loads itself)")
            lw.prefetch_comment_done = True
        elements = " * ".join(f"({d})" if not str(d).isidentifier() and not str(d).isdigit() else str(d)
                              for d in first.shape)
        lw.emit(depth, f"{flag}: tl.constexpr = {elements} <= {PREFETCH_MAX_ELEMENTS}")
        lw.emit(depth, f"{buf} = {_atom(first)} if {flag} else None")
        plans[id(s)] = Prefetch(target, buf, flag)
    return plans


def emit_in_loop(lw, s, plan: Prefetch, loop_var: str, step: str, depth: int) -> V:
    """`name = ct.load(...)` inside the loop: take the prefetched tile, load the next one."""
    here = lw.expr(s.value)
    nxt = lowered_load(lw, s, loop_var, f"{loop_var} + {step}")
    lw.emit(depth, f"if {plan.flag}:")
    lw.emit(depth + 1, f"{plan.target} = {plan.buffer}")
    lw.emit(depth + 1, f"{plan.buffer} = {nxt.code}")
    lw.emit(depth, "else:")
    lw.emit(depth + 1, f"{plan.target} = {here.code}")
    return here
