"""Arrays chosen at run time: a name bound to different arrays on the paths through a run-time
`if` or a loop (`a = y if ... else x` written as statements; `a = x` then `for ...: a = y`).

An array is a translation-time descriptor (a pointer, extents and strides, each a Triton value).
- After a run-time `if` whose branches bind a name to two arrays, the name is the choice between
  their parts (ops_views.choose_views: `(y if c else x)` per part), the condition evaluated again
  after the `if`: only where that gives the same answer (`reusable_test`: its names are not
  rebound by the branches, and it calls no operation that writes or could differ).
- A name a loop body rebinds to an array becomes loop-carried Triton variables (`carry_into_loop`):
  `_c2t_<name>_ptr`, `_c2t_<name>_shape_<k>`, `_c2t_<name>_stride_<k>` are set before the loop and
  again where the body assigns the name (`assign_carried`); extents and strides as int64 run-time
  values (`_c2t_carried_int`), so that a constexpr (Triton specializes an argument equal to 1) and
  a run-time value carry as one type. Memory ordering counts every array the name may be.
Anything else (tiled views, arrays of other ranks, a non-array assigned to such a name) is refused
where it happens.
"""
from __future__ import annotations

import dataclasses

from ..ir import nodes as N
from . import types as T
from .arrays import name_copies
from .types import ArrayRef, V

# operations a re-evaluated `if` condition may call: their value does not change with the `if`
_PURE_CT = {"bid", "num_blocks", "num_tiles", "cdiv", "minimum", "maximum", "where"}


def reusable_test(info, st: N.If) -> bool:
    """Whether the condition of `st` gives the same answer evaluated again after it."""
    rebound = N.assigned_names(st.body + st.orelse)
    for n in N.walk(st.test):
        if isinstance(n, N.Name) and n.id in rebound:
            return False
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            if path not in _PURE_CT and not (isinstance(n.func, N.Name) and n.func.id in ("len", "min", "max")):
                return False
    return True


def _parts(name: str, arr: ArrayRef):
    base = f"_c2t_{name}"
    return (f"{base}_ptr", [f"{base}_shape_{k}" for k in range(len(arr.shapes))],
            [f"{base}_stride_{k}" for k in range(len(arr.strides))])


def _lines(lw, ref: ArrayRef, arr: ArrayRef) -> list:
    """Lines setting the carried parts of `ref` to those of `arr`."""
    f = lw.s.use("_c2t_carried_int")
    out = [f"{ref.ptr} = {arr.ptr}"]
    out += [f"{c} = {f}({x})" for c, x in zip(ref.shapes + ref.strides, arr.shapes + arr.strides)]
    return out


def _carriable(v) -> bool:
    return isinstance(v, V) and v.kind == T.ARRAY and v.array is not None and not v.array.from_list \
        and not v.array.rank_unknown


def carry_into_loop(lw, body) -> dict:
    """Make the array names `body` rebinds (`a = y`, `a = y if c else x`, `a, b = b, a`) loop-carried
    variables, set before the loop (lw.pre_lines); returns lw.carried as it was (to restore)."""
    saved = dict(lw.carried)
    copies = name_copies(body, lw.s.info, set())
    for k in sorted(N.assigned_names(body) & set(copies)):
        v = lw.env.get(k)
        if k in lw.carried or not _carriable(v):
            continue
        arr = v.array
        roots = [T.array_root(arr), *arr.also]
        for src in _resolve(lw, k, copies):
            w = lw.env.get(src)
            if _carriable(w):
                roots += [T.array_root(w.array), *w.array.also]
        roots = list(dict.fromkeys(roots))
        ptr, shapes, strides = _parts(k, arr)
        ref = ArrayRef(ptr, arr.rank, shapes, strides, root=roots[0], also=tuple(roots[1:]), int64=arr.int64)
        lw.pre_lines.extend(_lines(lw, ref, arr))
        carried = V(ptr, T.ARRAY, array=ref)
        lw.carried[k] = carried
        lw.carried_ptrs.add(ptr)
        lw.env[k] = carried
    return saved


def _resolve(lw, k, copies, seen=()):
    for src in copies.get(k, []):
        if src in copies and src not in seen and src not in lw.env:
            yield from _resolve(lw, src, copies, (*seen, k))
        else:
            yield src


def assign_carried(lw, target: str, v: V, node, depth) -> bool:
    """`target = <array>` where target is loop-carried: its parts are set (True), or refused."""
    carried = lw.carried.get(target)
    if carried is None:
        return False
    if v is carried:
        return True
    if v.kind != T.ARRAY or v.array is None or v.array.from_list or v.array.rank != carried.array.rank:
        what = "an array of another rank" if v.kind == T.ARRAY and not v.array.from_list else \
            "an element of a list of arrays" if v.kind == T.ARRAY else "a value that is not an array"
        lw.fail("C2T101", f"`{target}` stands for an array chosen in this loop, and is assigned {what} here "
                          "(an array a loop rebinds is one pointer, extents and strides of one rank)", node,
                "use another name for it")
    for ln in _lines(lw, carried.array, v.array):
        lw.emit(depth, ln)
    lw.env[target] = carried
    return True


def merge_if(lw, k: str, v: V, w: V, before: dict, test: V, st) -> V | None:
    """The value of `k` after a run-time `if` whose body left it `v` and other path `w` (arrays),
    or None (not chosen here: refused by the caller)."""
    if not (_carriable(v) and _carriable(w)):
        return None
    made_v, made_w = (x.array.ptr in lw.carried_ptrs and x is not before.get(k) for x in (v, w))
    if made_v or made_w:
        # a loop in one branch made `k` carried there: the other path's array, unchanged by the
        # `if`, is set to the carried parts before it (the names exist on both paths)
        carried, other = (v, w) if made_v else (w, v)
        if made_v and made_w or other is not before.get(k) or other.array.rank != carried.array.rank:
            return None
        lw.pre_lines.extend(_lines(lw, carried.array, other.array))
        roots = [carried.array.root, *carried.array.also, T.array_root(other.array), *other.array.also]
        roots = list(dict.fromkeys(roots))
        return V(carried.code, T.ARRAY, array=dataclasses.replace(carried.array, also=tuple(roots[1:])))
    if not reusable_test(lw.s.info, st):
        return None
    from .ops_views import choose_views
    return choose_views(lw.cx, test, v, w, st)
