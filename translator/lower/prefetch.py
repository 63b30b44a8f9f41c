"""Register prefetch of tile loads in persistent (grid-stride) loops.

cuTile pipelines the loads of `for t in range(bid, n, num_blocks)` loops itself (its `latency=`
hints); Triton 3.6 does not pipeline pointer loads outside dot loops, so with one program per SM
each program has a single tile in flight and a memory-bound kernel stalls on every load
(TileGym's static-persistent RMSNorm: 72% of the copy bandwidth against cuTile's 93%). Loading
the next iteration's tile while this one is used (two tiles in flight) closes that gap: 95% on the
H200 (docs/decisions/009-register-prefetch.md).

A load qualifies when moving it one iteration earlier cannot change what it reads:
- the loop is `range(start, stop, step)` with a run-time step (a grid-stride loop), or any
  `range` loop inside a grid-stride loop (a persistent kernel's walk over one row's column tiles:
  examples/scale_rows went from 63% to 75% of the copy bandwidth in fp16, 2669 -> 3166 GB/s,
  same page), without nested loops or matrix products
  (Triton pipelines dot loops itself);
- the statement is `name = ct.load(array, ...)` or `name = ct.gather(array, indices, ...)` at
  the top of the loop body (a gather's tile shape is the broadcast of its index tiles' shapes;
  TileGym's persistent softmax reads its rows so: its 4096x1024 rows went from 0.80-0.83 of
  cuTile's device time to 0.97-1.06 by graph replay, same page);
- the kernel never writes `array` (a store in this iteration could change the next tile), and
  only the loop variable and names the loop body does not assign appear in the call;
- the load is bounds-checked (no `check_bounds=False`), so loading past the last iteration is
  safe, and has no `memory_order` (an acquire load must stay where it is);
- `continue`/`break` before the load turn it into a guarded statement (passes/loop_exits.py), which
  is no longer at the top of the loop body, so it is not prefetched.
Two tiles in registers only pay off for small tiles: a constexpr picks the prefetch where the
loop's prefetched tiles have at most PREFETCH_MAX_ELEMENTS elements together (measured: one
4x4096 tile gains, one 4x8192 bf16 tile loses, two 4x4096 tiles lose at 16384x4096).
"""
from __future__ import annotations

import dataclasses
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
    load: object = None   # the ct.load/ct.gather call (the statement's value, or the call a cast wraps)
    raw: str = ""     # a cast load's raw tile (`name_loaded`)


def fresh_name(lw, base: str) -> str:
    """`base`, or `base_2`, `base_3`, ... : a name neither the function's source nor an earlier
    prefetch uses. Triton rejects a second `flag: tl.constexpr = ...` of one name in a function
    (cutile-python's static-persistent RMSNorm prefetches `x` in two loops of one grid-stride loop),
    and a buffer must not overwrite a variable of the user's."""
    taken = lw.prefetch_names
    if not taken:       # (first use: every name the function's source has)
        taken |= {n.id for n in walk(lw.fd.body) if isinstance(n, N.Name)} | N.assigned_names(lw.fd.body)
        taken |= {p.name for p in lw.fd.params}
        taken.add("")
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def _load_of(info, value):
    """The ct.load/ct.gather call of a statement's value: the value itself, or the call that
    `ct.astype(call, dtype)` or `call.astype(dtype)` casts (the raw tile is prefetched and cast
    where it is used: a cast at the prefetch would wait for the load there)."""
    if not isinstance(value, N.Call):
        return None
    path = info.ct_path(value.func)
    if path in ("load", "gather"):
        return value
    inner = None
    if path == "astype" and len(value.args) == 2 and not value.keywords:
        inner = value.args[0]
    elif isinstance(value.func, N.Attr) and value.func.attr == "astype" and len(value.args) == 1 \
            and not value.keywords:
        inner = value.func.value
    if isinstance(inner, N.Call) and info.ct_path(inner.func) in ("load", "gather"):
        return inner
    return None


def candidates(lw, st, step: V | None, in_grid_stride: bool) -> list:
    """The top-level `name = ct.load(...)` / `ct.gather(...)` statements of loop `st` that may be loaded one
    iteration early (see the module docstring). `step`: the range's step (None: 1);
    `in_grid_stride`: whether a grid-stride loop encloses `st`."""
    info = lw.s.info
    grid_stride = step is not None and not step.is_static
    if not (grid_stride or in_grid_stride) or not isinstance(st.target, N.Name):
        return []
    for n in walk(st.body):
        if isinstance(n, (N.For, N.While)):
            return []
        if isinstance(n, N.Call) and info.ct_path(n.func) in ("mma", "matmul", "mma_scaled"):
            return []
        if isinstance(n, N.BinOp) and getattr(n, "op", None) == "@":
            return []
    assigned = N.assigned_names(st.body)
    if st.target.id in assigned:
        return []
    written = lw._loop_writes(lw.fd.body)
    out = []
    for s in st.body:
        load = _load_of(info, s.value) if isinstance(s, N.Assign) else None
        if load is None or len(s.targets) != 1 or not isinstance(s.targets[0], N.Name):
            continue
        kws = {k.name: k.value for k in load.keywords}
        if len(load.args) > 3 or "memory_order" in kws or "memory_scope" in kws or (
                "check_bounds" in kws and not (isinstance(kws["check_bounds"], N.Const)
                                               and kws["check_bounds"].value is True)):
            continue
        arr = load.args[0] if load.args else None     # ct.load takes the array first
        v = lw.env.get(arr.id) if isinstance(arr, N.Name) else None
        if v is None or v.kind != ARRAY or lw._root(v.array) in written:
            continue
        names = {x.id for x in walk([s.value.args, s.value.keywords, s.value.func]) if isinstance(x, N.Name)}
        if names & assigned:
            continue
        out.append(s)
    return out


def _atom(v: V) -> str:
    return v.code if v.prec >= 100 else f"({v.code})"


def lowered_load(lw, load, loop_var: str, code: str) -> V:
    """The load call `load` with the loop variable standing for `code`."""
    saved = lw.env.get(loop_var)
    lw.env[loop_var] = V(code if code.isidentifier() or code.isdigit() else f"({code})", SCALAR)
    try:
        return lw.expr(load)
    finally:
        if saved is None:
            lw.env.pop(loop_var, None)
        else:
            lw.env[loop_var] = saved


def emit_before_loop(lw, loads, loop_var: str, start: str, depth: int) -> dict:
    """Before the loop: the constexpr switch and each prefetched load's first-iteration tile. The
    switch counts the elements of all the loop's prefetched tiles together (TileGym's RMSNorm
    backward prefetching two 4x4096 tiles ran at 0.79-0.82 of cuTile where it was at 1.34-1.36
    without: docs/decisions/009-register-prefetch.md). Returns {id(statement):
    Prefetch} for the loop body's lowering."""
    firsts = []
    for s in loads:
        load = _load_of(lw.s.info, s.value)
        first = lowered_load(lw, load, loop_var, start)
        if first.shape:
            firsts.append((s, load, first))
    if not firsts:
        return {}
    if not lw.prefetch_comment_done:
        lw.emit(depth, "# the next iteration's tile is loaded while this one is used")
        lw.emit(depth, "# (two tiles in flight: cuTile pipelines these loads itself)")
        lw.prefetch_comment_done = True
    flag = fresh_name(lw, f"{firsts[0][0].targets[0].id}_prefetch" if len(firsts) == 1 else f"{loop_var}_prefetch")
    elements = " + ".join(" * ".join(f"({d})" if not str(d).isidentifier() and not str(d).isdigit() else str(d)
                                     for d in first.shape) for _, _, first in firsts)
    lw.emit(depth, f"{flag}: tl.constexpr = {elements} <= {PREFETCH_MAX_ELEMENTS}")
    plans = {}
    for s, load, first in firsts:
        target = s.targets[0].id
        buf = fresh_name(lw, f"{target}_next")
        lw.emit(depth, f"{buf} = {_atom(first)} if {flag} else None")
        raw = target if load is s.value else fresh_name(lw, f"{target}_loaded")
        plans[id(s)] = Prefetch(target, buf, flag, load=load, raw=raw)
    return plans


def emit_in_loop(lw, s, plan: Prefetch, loop_var: str, step: str, depth: int) -> V:
    """`name = ct.load(...)` inside the loop: take the prefetched tile, load the next one. A cast
    load (`name = ct.astype(ct.load(...), dt)`) takes the raw tile as `name_loaded` and casts it."""
    here = lw.expr(plan.load)
    nxt = lowered_load(lw, plan.load, loop_var, f"{loop_var} + {step}")
    raw = plan.raw
    lw.emit(depth, f"if {plan.flag}:")
    lw.emit(depth + 1, f"{raw} = {plan.buffer}")
    lw.emit(depth + 1, f"{plan.buffer} = {nxt.code}")
    lw.emit(depth, "else:")
    lw.emit(depth + 1, f"{raw} = {here.code}")
    if plan.load is s.value:
        return here
    lw.node_values[id(plan.load)] = dataclasses.replace(here, code=raw, prec=100)
    try:
        v = lw.expr(s.value)
    finally:
        del lw.node_values[id(plan.load)]
    lw.emit(depth, f"{plan.target} = {v.code}")
    return v
