"""Which module-level functions of a cuTile module become @triton.jit helpers: those its
kernels call (`kernel_helpers`) and the tile-helper libraries for other modules' kernels
(`library_helpers`). The rest is host code (host.py)."""
from __future__ import annotations

from .analysis import ModuleInfo
from .host import host_name_uses
from .ir import nodes as N


def _callees(info: ModuleInfo, roots, skip: set) -> set:
    """Module-level functions (not kernels, not in `skip`) that the functions `roots` reach
    through calls."""
    seen, todo = set(), list(roots)
    while todo:
        for name in info.once("called names", todo.pop(), lambda fd: _called_names(info.nodes(fd.body))):
            if name in info.functions and name not in info.kernels and name not in skip and name not in seen:
                seen.add(name)
                todo.append(info.functions[name])
    return seen


def _called_names(nodes) -> list:
    """The names a function's body (its nodes) calls (`f(...)`), in order."""
    return [n.func.id for n in nodes if isinstance(n, N.Call) and isinstance(n.func, N.Name)]


def kernel_helpers(info: ModuleInfo) -> set:
    """Module-level functions reachable from kernels through calls (they become jit helpers)."""
    return _callees(info, info.kernels.values(), set())


# cuda.tile calls that host code may make too: a function using only these is host code
_HOST_CALLS = {"cdiv", "launch", "kernel", "tune.exhaustive_search", "compiler_timeout"}


def library_helpers(info: ModuleInfo, helpers: set) -> set:
    """Module-level functions that use tile operations but that neither a kernel of this module
    nor host code here calls (a library of tile helpers for other modules' kernels, e.g. TileGym
    unsloth's `ct_ops.erf_ct`), with the module functions they call: lowered as Triton helpers
    on their own, their parameters typed from their bodies."""
    from .lower import registry
    found, candidates, tile_helpers = set(), {}, set()
    for name, fd in info.functions.items():
        if name in info.kernels:
            continue
        nodes = info.nodes(fd.body)
        paths = [info.ct_path(n.func) for n in nodes if isinstance(n, N.Call)]
        tile_ops = any(p and p not in _HOST_CALLS and registry.lookup(p) for p in paths)
        if name in helpers:
            if tile_ops:
                tile_helpers.add(name)
            continue
        if any(isinstance(n, N.FunctionDef) for n in nodes):
            continue        # e.g. a test function defining kernels inside it: host code
        if any(p in _HOST_CALLS - {"cdiv"} for p in paths):
            continue
        if tile_ops:
            found.add(name)
        else:
            candidates[name] = {n.func.id for n in nodes if isinstance(n, N.Call) and isinstance(n.func, N.Name)}
    grew = True
    while grew:         # and those that call them: a wrapper around a tile helper is device code too
        grew = False
        for name, calls in list(candidates.items()):
            if calls & (found | tile_helpers):
                found.add(name)
                del candidates[name]
                grew = True
    found |= _callees(info, (info.functions[f] for f in found), helpers)   # what they call is too
    uses = host_name_uses(info, set(info.kernels) | helpers | found)
    return {n for n in found if not uses.get(n)}
