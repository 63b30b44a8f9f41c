"""What the other runtime modules read of the launch path, apart so that none of them imports
launch.py back (launch.py imports them): the grid check, the fast-launch switch and the check of
the globals a compiled kernel read.

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import os

import triton.language as tl


def _c2t_grid(grid):
    """cuTile grids are tuples of 1 to 3 positive ints."""
    if not isinstance(grid, tuple) or not 1 <= len(grid) <= 3:
        raise TypeError(f"grid must be a tuple of 1 to 3 ints, got {grid!r}")
    return grid


# Launches with a specialization seen before skip Triton's Python dispatch (argument binding and
# cache key: 12-22 us per launch on the H200's host, about cuTile's whole launch) and call
# the compiled kernel's launcher, as JITFunction.run itself does after its cache lookup. The key
# is finer than Triton's own (exact ints and floats, each tensor's dtype and 16-byte alignment,
# the argument types, device and launch options), so a hit always finds the kernel Triton would
# have picked. C2T_FAST_LAUNCH=0 turns it off.
_C2T_FAST_LAUNCH = os.environ.get("C2T_FAST_LAUNCH", "1") != "0"

_C2T_MISSING = object()


def _c2t_globals_changed(kernel):
    """Whether a global the kernel read when it was compiled has another value now (Triton's own
    dispatch then raises an error, which the cached launch paths must not hide). Triton keeps deep
    copies of the values, and comparing a tl.constexpr copy costs about 0.5 us per global per
    launch on the dev CPU; so once the globals are found unchanged, the objects they are bound to
    are remembered, and while each name is still bound to the same immutable object (and a
    constexpr to the same value object) nothing is compared."""
    used = kernel.used_global_vals
    seen = _C2T_GLOBALS_SEEN.get(id(kernel))
    if seen is not None and seen[0] is kernel and seen[1] is used:
        for name, scope, obj, value in seen[2]:
            if scope.get(name, _C2T_MISSING) is not obj or getattr(obj, "value", None) is not value:
                break
        else:
            return False
    for (name, _), (value, scope) in used.items():
        now = scope.get(name, _C2T_MISSING)
        if now is not value and now != value:
            return True
    bound = tuple((name, scope, scope[name], getattr(scope[name], "value", None))
                  for (name, _), (_, scope) in used.items())
    if all(_c2t_immutable(obj) for _, _, obj, _ in bound):
        _C2T_GLOBALS_SEEN[id(kernel)] = (kernel, used, bound)
    return False


_C2T_GLOBALS_SEEN = {}      # id(kernel) -> (kernel, its used_global_vals, (name, scope, object, .value))


def _c2t_immutable(v):
    """Whether v cannot change without being rebound (so the same object means the same value)."""
    if isinstance(v, tl.constexpr):
        v = v.value
    if type(v) is tuple:
        return all(_c2t_immutable(x) for x in v)
    return v is None or type(v) in (int, float, bool, str) or isinstance(v, tl.dtype)
