"""The launch memo (`_c2t_memo`): a launcher's launch with the layouts of an earlier one runs
the compiled kernel directly (with its lookup in C: launch_memo.c, next to this file).

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import os
from pathlib import Path

import torch
import triton

from . import base as _rt_base
from . import tma as _rt_tma


# The launch memo. All of a launcher's work (argument checks and flattening, descriptor legality,
# warps and stages, the specialization key above) depends only on the grid, each array's dtype,
# extents, strides, 16-byte alignment and device, each scalar argument's type (for ints, what
# Triton specializes on: equal to 1, a multiple of 16, the range) and the Constant values. A
# launch that repeats those (each step of a model after the first) skips that work: its arrays'
# pointers and its scalars are put into the argument list recorded at the first such launch, and
# the compiled kernel's C launcher runs with the pointers as ints (so without its driver query
# per pointer: the arrays are on the devices of the recorded launch, which Triton checked).
# Measured on the H200: docs/decisions/022-launch-memo.md.
# Anything else (a stream other than the current one, launch hooks, a changed global the kernel
# read, arrays that are not tensors, the Triton interpreter) takes the launcher's full path.
# C2T_FAST_LAUNCH=0 turns it off.
# The memo's key holds what is cheap to read (grid, device, Constants, pointer alignments, scalar
# kinds); each entry under it checks the arrays' dtypes, devices, extents and strides with torch's
# C++ tensor check (_c2t_layout_check), which costs about a quarter of reading them in Python.
_C2T_MEMO = {}                  # key -> [entry, ...], the newest last
_C2T_MEMO_MAX = 4096            # keys
_C2T_MEMO_PER_KEY = 8           # entries under one key (layouts launched with equal keys)
_C2T_CUDA = torch._C            # current device and stream queries (tests stand in for them)
_C2T_SCRATCH = {}               # (device, stream) -> (address, bytes, buffer): the descriptor scratch memo launches share
# the C launcher's argument order is Triton 3.6's (CudaLauncher.__call__); other versions go
# through the compiled kernel's `run`, which knows its own
_C2T_DIRECT_LAUNCH = triton.__version__.startswith("3.6.")


# The memo's lookup and launch in C (_C2T_MEMO_C_SRC, at the end of this module: the same steps as
# the Python below): compiled at the first recorded launch with Triton's own helper (its launchers
# need the same C compiler and Python headers) and cached by Triton. On the H200's host, TileGym
# flash_decode's launcher took 14.9 us per call from the memo with it, 20.7 us with the Python
# lookup (cutile2triton's docs/decisions/023-memo-lookup-in-c.md). Where it cannot be built, a warning
# says so and the Python path runs; C2T_C_MEMO=0 keeps the Python path.
_C2T_C_MEMO = os.environ.get("C2T_C_MEMO", "1") != "0"     # not tried yet (and wanted)
_C2T_MEMO_C = None              # the compiled module, once built


def _c2t_load_memo_c():
    """Build (or load from Triton's cache) the memo's C lookup; on failure warn once and keep the
    Python path. Launches made while this module is still being imported (before its end, where
    the C source is) keep the Python path and try again later."""
    global _C2T_C_MEMO, _C2T_MEMO_C
    source = globals().get("_C2T_MEMO_C_SRC")
    if source is None:
        return
    _C2T_C_MEMO = False
    try:
        from triton.runtime.build import compile_module_from_src
        module = compile_module_from_src(source, "c2t_launch_memo")
        if getattr(module, "ABI", None) != 3:
            raise ImportError(f"{module!r} is not this version of the launch memo")
        _C2T_MEMO_C = module
    except Exception as exc:    # noqa: BLE001 - a speed-up: report it and keep the Python path
        import warnings
        warnings.warn(f"cutile2triton: the launch memo's C lookup could not be built ({type(exc).__name__}: "
                      f"{exc}); launches take its Python path, a few microseconds slower each. "
                      "C2T_C_MEMO=0 chooses the Python path without trying.", RuntimeWarning, stacklevel=2)


# Memo launches of Triton 3.6 kernels call cuLaunchKernelEx from the C lookup, with the arguments
# packed by the kernel's signature, instead of Triton's C launcher (which parses every argument
# again): on the H200 the same bytes as Triton's launcher on every suite kernel compared, and a
# microsecond or so less per launch on most (docs/decisions/024-direct-launch.md).
# C2T_CU_LAUNCH=0 keeps Triton's launcher.
_C2T_CU_LAUNCH = os.environ.get("C2T_CU_LAUNCH", "1") != "0"
_C2T_CU_CODES = {"i1": "b", "i8": "b", "i16": "h", "i32": "i", "i64": "l", "u1": "B", "u8": "B", "u16": "H",
                 "u32": "I", "u64": "L", "fp16": "e", "bf16": "g", "fp32": "f", "f32": "f", "fp64": "d",
                 "constexpr": "x"}


def _c2t_cu_launch(compiled, run, nargs):
    """A memo entry's direct launch (see launch_memo.c, cutile2triton's translator/runtime/launch_memo.c): ("cu", one packing code per
    argument, the kernel's CUfunction, num_warps, num_ctas, shared memory, cooperative, PDL), or
    None when the kernel's signature has a type it does not pack (tensor descriptors...)."""
    signature = getattr(getattr(compiled, "src", None), "signature", None)
    packed = getattr(compiled, "packed_metadata", None)
    if not isinstance(signature, dict) or len(signature) != nargs or type(packed) is not tuple \
            or len(packed) != 3 or packed[1] == 16:     # (16-CTA clusters need a non-portable attribute)
        return None
    codes = []
    for ty in signature.values():
        code = "p" if isinstance(ty, str) and ty.startswith("*") else _C2T_CU_CODES.get(ty)
        if code is None:
            return None
        codes.append(code)
    return ("cu", "".join(codes).encode(), compiled.function, *packed, bool(run.launch_cooperative_grid),
            bool(run.launch_pdl))


def _c2t_memo(name, grid, stream, arrays, scalars, consts, same=(), hints=None):
    """Launch from the memo when this launch was seen before, and return None. Otherwise return
    what _c2t_run records the launcher's launch under: (key, pointers, scalars, arrays), or () when
    this launch cannot be memoized. `name`: what keys the launcher's entries (generated launchers
    pass themselves: the memo is shared by every module, and kernels of one name in two modules,
    or in two imports of one module, are different kernels). `same`: pairs of positions in `arrays` whose aliasing the kernel
    specializes on (its aliased-load flags, see _c2t_same); `hints`: cuTile hints the launch
    carries (kernel.replace_hints(...): the launch options derive from them)."""
    if not _rt_base._C2T_FAST_LAUNCH or type(grid) is not tuple:
        return ()
    try:
        if stream is not None and (type(stream) is not torch.cuda.Stream or stream.cuda_stream
                                   != _C2T_CUDA._cuda_getCurrentRawStream(stream.device_index)):
            return ()
        device = _C2T_CUDA._cuda_getDevice()
        raw_stream = _C2T_CUDA._cuda_getCurrentRawStream(device)
    except (AttributeError, TypeError, RuntimeError):   # no CUDA
        return ()
    post = (tuple(sorted(hints.items())),) if hints else ()
    enter, leave = triton.knobs.runtime.launch_enter_hook, triton.knobs.runtime.launch_exit_hook
    if getattr(enter, "calls", True) or getattr(leave, "calls", True):
        return ()                               # profilers' hooks get the full path's arguments
    if _C2T_MEMO_C is not None:
        found = _C2T_MEMO_C.memo(_C2T_MEMO, name, grid, device, (_rt_tma._C2T_TMA_MODE,), consts, post,
                                 arrays, scalars, same, raw_stream)
        if found is True:
            return None
        return () if found is None else (*found, scalars, arrays)
    # the same in Python
    try:
        key = [name, grid, device, _rt_tma._C2T_TMA_MODE, *consts, *map(type, consts), *post]
        ptrs = [a.data_ptr() for a in arrays]
        key += [p & 15 for p in ptrs]
        for i, j in same:
            key.append(ptrs[i] == ptrs[j])
        for v in scalars:
            t = type(v)
            if t is int:        # what Triton specializes an int on: its type by range, 16 | v, v == 1
                if -0x80000000 <= v < 0x80000000:
                    key.append(1 if v == 1 else 0 if v & 15 else 16)
                elif v < 1 << 63:
                    key.append(2 if v & 15 else 17)
                else:
                    key.append(3 if v & 15 else 18)
            elif t is float or t is bool:
                key.append(t)
            else:               # (numpy scalars, 0-d tensors...: the key would keep them alive)
                return ()
        key = tuple(key)
        hit = None
        for entry in _C2T_MEMO.get(key, ()):
            if entry[0](*arrays):
                hit = entry
                break
    except (AttributeError, TypeError, RuntimeError):   # not tensors, unhashable
        return ()
    if hit is None:
        return (key, ptrs, scalars, arrays)
    _, call, head, template, ptr_at, scalar_at, scratch, globals_check = hit
    if type(call) is tuple:
        return ()                               # a direct launch: the C lookup's alone
    changed, kernel = globals_check[:2]
    if kernel.used_global_vals and changed(kernel):
        return ()                               # the full path: Triton's dispatch raises its error
    args = [*head[:3], raw_stream, *head[3:], *template]
    at = len(head) + 1
    for i, p in zip(ptr_at, ptrs):
        args[at + i] = p
    for i, v in zip(scalar_at, scalars):
        args[at + i] = v
    if scratch is not None:
        allocate, nbytes, align, where = scratch
        buffer = allocate(device, raw_stream, nbytes, align)
        if buffer is None:
            return ()
        args[where] = buffer
    call(*args)
    return None


def _c2t_memo_record(memo, kernel, grid, args, compiled):
    """Record a launcher's launch for _c2t_memo: the compiled kernel (the one the cached path runs
    for these arguments) and the argument list without its pointers and scalars (the memo must not
    keep arrays alive). The entry is the call to make (see launch_memo.c, cutile2triton's translator/runtime/launch_memo.c)."""
    if _C2T_C_MEMO:
        _c2t_load_memo_c()
    (key, _, _, arrays), (ptr_at, scalar_at) = memo
    try:
        check = _c2t_layout_check(arrays)
    except (AttributeError, TypeError, RuntimeError):   # arrays whose layout cannot be read: no entry
        return
    template = list(args)
    for i in (*ptr_at, *scalar_at):
        template[i] = None
    g = (*grid, *(1,) * (3 - len(grid)))
    # the compiled kernel's `run` (CudaLauncher.__call__ in Triton 3.6), with the pointers as ints
    run, md = getattr(compiled, "run", None), getattr(compiled, "metadata", None)
    call, head, scratch = run, (*g, compiled.function, compiled.packed_metadata, None, None, None), None
    if _C2T_DIRECT_LAUNCH and type(run).__name__ == "CudaLauncher" and hasattr(run, "launch") \
            and md is not None and not getattr(md, "profile_scratch_size", 0) \
            and not (md.global_scratch_size and run.launch_pdl):    # (PDL launches may overlap: no shared scratch)
        # Triton 3.6's CudaLauncher.__call__ without its scratch allocation, called directly:
        # launch(g0, g1, g2, stream, function, cooperative, pdl, scratch, profile scratch, metadata,
        # launch metadata, enter hook, exit hook, *args)
        call = run.launch
        head = (*g, compiled.function, run.launch_cooperative_grid, run.launch_pdl, None, None,
                compiled.packed_metadata, None, None, None)
        if md.global_scratch_size:
            scratch = (_c2t_scratch, g[0] * g[1] * g[2] * md.global_scratch_size * run.num_ctas,
                       md.global_scratch_align, 7)
        if _C2T_CU_LAUNCH and _C2T_MEMO_C is not None:
            call = _c2t_cu_launch(compiled, run, len(template)) or call
    if len(_C2T_MEMO) >= _C2T_MEMO_MAX:
        _C2T_MEMO.clear()
    entries = _C2T_MEMO.setdefault(key, [])
    if len(entries) >= _C2T_MEMO_PER_KEY:
        del entries[0]
    entries.append((check, call, head, tuple(template), tuple(ptr_at), tuple(scalar_at), scratch,
                    _c2t_globals_entry(kernel)))


def _c2t_globals_entry(kernel):
    """A memo entry's check of the globals the kernel read (see _rt_base._c2t_globals_changed): (changed,
    kernel, its used_global_vals, bound), where `bound` lists what the C lookup compares by
    identity while those are unchanged: (scope, name, object, (its .value,) or () when it has
    none), or is None (then each launch calls changed(kernel))."""
    used, bound = kernel.used_global_vals, None
    if used and not _rt_base._c2t_globals_changed(kernel):
        seen = _rt_base._C2T_GLOBALS_SEEN.get(id(kernel))
        if seen is not None and seen[0] is kernel and seen[1] is used:
            bound = tuple((scope, name, obj, (obj.value,) if hasattr(obj, "value") else ())
                          for name, scope, obj, _ in seen[2])
    return (_rt_base._c2t_globals_changed, kernel, used, bound)


def _c2t_layouts(arrays):
    """The arrays' dtypes, devices, extents and strides (and what else torch's check compares)."""
    return tuple((type(a), a.dtype, a.device, a.shape, a.stride(), a.requires_grad) for a in arrays)


def _c2t_layout_check(arrays):
    """A function of arrays that tells whether they have these arrays' types, dtypes, devices,
    extents and strides, and keeps none of them alive: torch's C++ tensor check (TensorGuards, what
    torch.compile checks its inputs with; about 0.1 us an array on the dev CPU against 0.4 us to
    read those through Python), or the same comparison in Python where torch has no such check or
    an array is not a torch tensor (raising AttributeError when it cannot be read so). torch's
    check fails when one object is given twice (a batch's unused slots, TileGym MLA's K and
    V), so such arrays are checked one by one."""
    if _C2T_TENSOR_GUARDS is None or not all(isinstance(a, torch.Tensor) for a in arrays):
        layouts = _c2t_layouts(arrays)
        return lambda *now: _c2t_layouts(now) == layouts
    if len({id(a) for a in arrays}) == len(arrays):
        return _C2T_TENSOR_GUARDS(*arrays, dynamic_dims_sizes=[list(a.shape) for a in arrays],
                                  dynamic_dims_strides=[list(a.stride()) for a in arrays]).check
    checks = [_C2T_TENSOR_GUARDS(a, dynamic_dims_sizes=[list(a.shape)], dynamic_dims_strides=[list(a.stride())]).check
              for a in arrays]
    return lambda *now: len(now) == len(checks) and all(map(_c2t_call, checks, now))


def _c2t_call(f, x):
    return f(x)


def _c2t_tensor_guards():
    """torch's TensorGuards class when it is there and checks what the memo needs (it is internal
    to torch: a torch that changed it gets the Python check)."""
    try:
        from torch._C._dynamo.guards import TensorGuards
        x = torch.zeros(2, 3)
        check = TensorGuards(x, dynamic_dims_sizes=[[2, 3]], dynamic_dims_strides=[[3, 1]]).check
        if check(torch.ones(2, 3)) and not any(check(y) for y in (
                torch.zeros(3, 2), torch.zeros(3, 2).t(), torch.zeros(2, 3, dtype=torch.float64),
                torch.zeros(2, 3, requires_grad=True), torch.zeros(2, 4)[:, :3])):
            return TensorGuards
    except Exception:
        pass
    return None


_C2T_TENSOR_GUARDS = _c2t_tensor_guards()


def _c2t_scratch(device, stream, nbytes, align):
    """Global scratch memory (in-kernel descriptors) for a launch from the memo, as Triton's
    CudaLauncher gets it from the allocator the program installed. When that is a translated
    module's own (_c2t_tma_scratch, marked `c2t_scratch`), launches outside CUDA-graph capture
    share one buffer per device and stream, grown when needed (launches on one stream run one
    after another). None (the full path, which installs an allocator) when there is none."""
    if _rt_tma._c2t_allocation is None:
        return None
    allocator = _rt_tma._c2t_allocation._allocator.get()
    if not getattr(allocator, "c2t_scratch", False):     # the program's own allocator
        if isinstance(allocator, _rt_tma._c2t_allocation.NullAllocator):
            return None
        return allocator(nbytes, align, stream)
    if torch.cuda.is_current_stream_capturing():    # a graph's launches keep their own memory
        return allocator(nbytes, align, stream)
    hit = _C2T_SCRATCH.get((device, stream))     # (address, bytes, buffer): 0.2-0.45 us less per
    if hit is None or hit[1] < nbytes:              # launch than asking the tensor (H200, docs/decisions/022-launch-memo.md)
        buffer = torch.empty(max(nbytes, 1 << 16), dtype=torch.int8, device=f"cuda:{device}")
        hit = _C2T_SCRATCH[(device, stream)] = (buffer.data_ptr(), buffer.numel(), buffer)
    return hit[0]


# The launch memo's lookup and launch in C (launch_memo.c, next to this file), which
# _c2t_load_memo_c builds at the first recorded launch. (The same text as a standalone
# translation's literal, so that both find one build in Triton's cache.)
_C2T_MEMO_C_SRC = "\n" + Path(__file__).with_name("launch_memo.c").read_text().rstrip("\n")
