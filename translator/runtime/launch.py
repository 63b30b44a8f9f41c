"""The launchers' common path: streams, grids, array arguments, and the cached launch of a
compiled kernel (`_c2t_run`), with the kernel objects host code uses (`_c2t_kernel_object`).

Part of cutile2triton's launch runtime (translator/runtime/): generated modules import the names
they use from here (a `--standalone` translation carries the same source instead). Names of the
other runtime modules are read through them (`_rt_memo._c2t_memo_record`), so that a value set on
the module that holds it (a test's, `memo._C2T_MEMO_C = None`) is the one every caller sees.
"""
import contextlib
import os

import torch
import triton
import triton.language as tl

from . import base as _rt_base
from . import hints as _rt_hints
from . import memo as _rt_memo
from . import stages as _rt_stages
from . import tma as _rt_tma


_C2T_NO_STREAM = contextlib.nullcontext()


def _c2t_stream(stream):
    """The stream a launch runs on: None means the current torch stream (what cuTile's
    ct.launch(torch.cuda.current_stream(), ...) used); torch, cupy and raw CUstream handles work."""
    if stream is None:
        return _C2T_NO_STREAM
    if isinstance(stream, torch.cuda.Stream):
        if stream.cuda_stream == torch._C._cuda_getCurrentRawStream(stream.device_index):
            return _C2T_NO_STREAM       # already current (the usual torch.cuda.current_stream())
        return torch.cuda.stream(stream)
    handle = stream if isinstance(stream, int) else getattr(stream, "ptr", None)
    if handle is None:
        handle = getattr(stream, "handle", None)
    if handle is None:
        raise TypeError(f"unsupported stream object {stream!r}")
    return torch.cuda.stream(torch.cuda.ExternalStream(int(handle)))


# Triton dtypes of torch ones: a ct.Constant[ct.DType] argument's, and the element dtypes of
# list-of-arrays arguments (passed to the kernel as constexprs)
_C2T_TL_DTYPES = {getattr(torch, _t): getattr(tl, _d) for _t, _d in (
    ("bool", "int1"), ("int8", "int8"), ("int16", "int16"), ("int32", "int32"), ("int64", "int64"),
    ("uint8", "uint8"), ("uint16", "uint16"), ("uint32", "uint32"), ("uint64", "uint64"),
    ("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
    ("float8_e4m3fn", "float8e4nv"), ("float8_e5m2", "float8e5")) if hasattr(torch, _t)}


def _c2t_tl_dtype(dtype):
    """A ct.Constant[ct.DType] argument (the host's cuTile dtypes are torch's here) as a Triton dtype."""
    if isinstance(dtype, tl.dtype):
        return dtype
    if dtype not in _C2T_TL_DTYPES:
        raise TypeError(f"{dtype!r} is not a dtype a kernel takes")
    return _C2T_TL_DTYPES[dtype]


_C2T_COMPILED = {}
_C2T_COMPILED_MAX = 4096    # many distinct scalar values (a seed per call) must not grow it forever
_C2T_TENSOR_AT = {}         # argument types -> (their number, positions of the tensors among them)
_C2T_JIT = triton.runtime.jit.JITFunction


def _c2t_run(kernel, grid, args, *, c2t_memo=None, **options):
    """kernel[grid](*args, **options), through the cache of compiled kernels above. `c2t_memo`: a
    launcher's launch-memo miss and argument layout (see _c2t_memo), recorded after the launch."""
    if type(grid) is not tuple or not 0 < len(grid) < 4:
        grid = _rt_base._c2t_grid(grid)      # raises the error
    compiled, cached = _c2t_dispatch(kernel, grid, args, options)
    if c2t_memo is not None and c2t_memo[0] and cached is not None:
        _rt_memo._c2t_memo_record(c2t_memo, kernel, grid, args, cached)
    return compiled


def _c2t_interpreted_floats(kernel, args):
    """Under TRITON_INTERPRET=1, a kernel's float arguments as fp32 scalars, as a compiled kernel
    types them (cuTile too: a float argument is a float32 scalar). The stock interpreter passes a
    Python float on as a Python number, which Triton's promotion treats as weakly typed: an fp16
    tile times a float argument stayed fp16 there (fp32 on the GPU). Constexpr parameters (cuTile
    Constants, loosely typed in both) keep their Python values."""
    fn = kernel
    while not hasattr(fn, "arg_names") and hasattr(fn, "fn"):   # (autotuner wrappers)
        fn = fn.fn
    if type(fn).__name__ != "InterpretedFunction":
        return args
    import numpy as np
    from triton.runtime.interpreter import TensorHandle
    notes = getattr(fn.fn, "__annotations__", {})
    return tuple(tl.tensor(TensorHandle(np.array([a], dtype=np.float32), tl.float32), tl.float32)
                 if type(a) is float and "constexpr" not in str(notes.get(name, "")) else a
                 for name, a in zip(fn.arg_names, args))


def _c2t_dispatch(kernel, grid, args, options):
    """Launch; return (what Triton returned, the compiled kernel later launches with these
    arguments run, or None when they go through Triton's dispatch)."""
    if not _rt_base._C2T_FAST_LAUNCH or type(kernel) is not _C2T_JIT or kernel.pre_run_hooks:
        if type(kernel) is not _C2T_JIT and float in map(type, args):
            args = _c2t_interpreted_floats(kernel, args)
        return _rt_hints._c2t_first_launch(kernel, grid, args, options), None
    device = triton.runtime.driver.active.get_current_device()
    try:
        # the specialization: argument types, then each value, with tensors as (dtype, alignment);
        # where the tensors are depends on the types only, and is looked up rather than scanned
        types = tuple(map(type, args))
        seen = _C2T_TENSOR_AT.get(types)
        if seen is None:
            if len(_C2T_TENSOR_AT) >= _C2T_COMPILED_MAX:
                _C2T_TENSOR_AT.clear()
                _C2T_COMPILED.clear()       # its keys name the types by their number here
            seen = _C2T_TENSOR_AT[types] = (len(_C2T_TENSOR_AT),
                                            tuple(i for i, t in enumerate(types) if issubclass(t, torch.Tensor)))
        types_id, where = seen
        values = list(args)
        for i in where:
            a = values[i]
            values[i] = (a.dtype, a.data_ptr() & 15)
        key = (id(kernel), device, types_id, *options.items(), *values)
        kernel_and_compiled = _C2T_COMPILED.get(key)
    except TypeError:       # an unhashable argument: Triton's own dispatch
        return kernel[grid](*args, **options), None
    if kernel_and_compiled is None or kernel_and_compiled[0] is not kernel:
        compiled = _rt_hints._c2t_first_launch(kernel, grid, args, options)
        cached = compiled
        if "num_stages" in options and _rt_stages._C2T_SPILL_RETRY and (getattr(compiled, "n_spills", 0) > 0
                                                             or _rt_stages._c2t_at_register_cap(compiled, options)):
            cached = _rt_stages._c2t_leaner_if_spilling(kernel, grid, args, options, compiled)
        if "num_stages" not in options and "maxnreg" not in options and _C2T_OCCUPANCY_RETRY:
            cached = _c2t_two_programs_per_sm(kernel, grid, args, options, compiled)
        if compiled is None or hasattr(compiled, "result"):
            return compiled, None
        if len(_C2T_COMPILED) >= _C2T_COMPILED_MAX:
            _C2T_COMPILED.clear()
        _C2T_COMPILED[key] = (kernel, cached)
        return compiled, cached
    if kernel.used_global_vals and _rt_base._c2t_globals_changed(kernel):
        return kernel[grid](*args, **options), None     # Triton's dispatch raises its own error
    compiled = kernel_and_compiled[1]
    stream = triton.runtime.driver.active.get_current_stream(device)
    enter, leave = triton.knobs.runtime.launch_enter_hook, triton.knobs.runtime.launch_exit_hook
    if not getattr(enter, "calls", True) and not getattr(leave, "calls", True):
        enter = leave = metadata = None     # empty hook chains: nothing to call around the launch
    else:
        metadata = compiled.launch_metadata(grid, stream, *args)
    compiled.run(grid[0], grid[1] if len(grid) > 1 else 1, grid[2] if len(grid) > 2 else 1, stream,
                 compiled.function, compiled.packed_metadata, metadata, enter, leave, *args)
    return compiled, compiled


# Registers per thread decide how many programs of a kernel an SM runs at once. A kernel without
# dots whose registers leave room for one program per SM has nothing to hide its memory latency
# with while that program computes: TileGym's softmax over rows of 16384 (16 warps) compiles to 71
# registers in bfloat16 (one program per SM) and to 64 in float16 (two), and on the H200 the
# bfloat16 rows ran 25% slower than the float16 ones; capped at 64 registers they run as fast
# (1.01 -> 1.25 of cuTile), and TileGym liger tvd's batchmean kernel in float32, capped from 156 to
# 128 registers at 8 warps, went from 0.93 to 1.00 (docs/decisions/015-occupancy-retry.md).
# $C2T_OCCUPANCY_RETRY=0 keeps the first compile.
_C2T_OCCUPANCY_RETRY = os.environ.get("C2T_OCCUPANCY_RETRY", "1") != "0"
_C2T_SM_LIMITS = {}         # device -> (SMs, registers per SM, threads per SM)


def _c2t_sm_limits():
    """(SMs, registers per SM, threads per SM) of the current GPU, looked up once per device."""
    device = torch.cuda.current_device()
    limits = _C2T_SM_LIMITS.get(device)
    if limits is None:
        p = torch.cuda.get_device_properties(device)
        limits = _C2T_SM_LIMITS[device] = (p.multi_processor_count, getattr(p, "regs_per_multiprocessor", 65536),
                                           getattr(p, "max_threads_per_multi_processor", 2048))
    return limits


def _c2t_two_programs_per_sm(kernel, grid, args, options, compiled):
    """After the first launch of a kernel without dots (one specialization): when its registers let
    an SM hold one program only, and the grid has more programs than the GPU has SMs, compile it
    again with a register cap (Triton's maxnreg) that fits two programs per SM; the cached launch
    path runs that compile when it does not spill registers (else the first one). The cap changes
    how registers are allocated, not what the kernel computes."""
    regs = getattr(compiled, "n_regs", 0)
    if not regs:            # not a compiled CUDA kernel
        return compiled
    threads = 32 * options.get("num_warps", 4)
    sms, sm_regs, sm_threads = _c2t_sm_limits()
    cap = min(255, sm_regs // (2 * threads) // 8 * 8)     # registers are given out 8 per thread at a time
    programs = grid[0] * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
    if regs <= cap or 2 * threads > sm_threads or programs <= sms:
        return compiled
    try:
        capped = kernel.warmup(*args, grid=grid, maxnreg=cap, **options)
        capped._init_handles()
    except Exception:   # noqa: BLE001 - the cap is an optimization; keep the compile that runs
        return compiled
    return capped if capped.n_spills == 0 else compiled


def _c2t_tensor(a, name):
    """An Array argument as a torch tensor (DLPack and CUDA array interface objects are wrapped)."""
    if not isinstance(a, torch.Tensor):
        if hasattr(a, "__dlpack__"):
            a = torch.from_dlpack(a)
        elif hasattr(a, "__cuda_array_interface__"):
            a = torch.as_tensor(a, device="cuda")
        else:
            raise TypeError(f"argument `{name}` must be an array (torch tensor, DLPack or CUDA array "
                            f"interface object), got {type(a).__name__}")
    return a


def _c2t_rank(a, name):
    """The rank of an Array argument (what picks a rank variant of a kernel)."""
    return (a if type(a) is torch.Tensor else _c2t_tensor(a, name)).dim()


def _c2t_array(a, rank, name, tma=None, grid=None, looped=True, gemm=False, same=(), unused=False, at_least=False, i64=False):
    """An Array argument as pointer, extents and strides (in elements); with `tma` (the
    block shapes of its descriptors), also whether the kernel may use them (`<name>_TMA`; `grid`:
    the launch's grid, None when not known here; `looped`: whether the kernel moves tiles of it
    inside a loop; `gemm`: whether the kernel has a GEMM loop); `unused`: whether the
    kernel's Constant arguments leave out every use of it; `at_least`: whether the kernel reads
    only its first `rank` extents and strides (then a higher rank is fine); `i64`: whether the
    kernel indexes it with 64 bits (a `ct.IndexedWithInt64` parameter)."""
    if type(a) is not torch.Tensor:
        a = _c2t_tensor(a, name)
    if rank is None:        # the kernel uses only the pointer (e.g. get_raw_memory): any rank
        if not i64:
            _c2t_int32_indexable(a, name, offsets=False)
        return (a,)
    if a.dim() != rank and unused:
        # the Constant arguments leave out every use of it (cuTile compiles only the branches
        # they select, where a placeholder of any rank is fine): a view of the rank the kernel
        # was translated for, which it never reads
        a = a.as_strided((1 if a.numel() else 0,) * rank, (1,) * rank)
    if a.dim() > rank and at_least:
        a = a.as_strided(a.shape[:rank], a.stride()[:rank])
    if a.dim() != rank:
        raise ValueError(f"argument `{name}` must be a {rank}-D array{' (or of a higher rank)' if at_least else ''}, got {a.dim()}-D")
    if not i64:
        _c2t_int32_indexable(a, name)
    if same:        # `<name>_IS_<other>` flags: whether `other` is this very array (aliased-load reuse)
        return (a, *a.shape, *a.stride(), *((_rt_tma._c2t_tma(a, tma, grid, looped, gemm),) if tma is not None else ()),
                *(_c2t_same(a, o) for o in same))
    if tma is not None:
        return (a, *a.shape, *a.stride(), _rt_tma._c2t_tma(a, tma, grid, looped, gemm))
    return (a, *a.shape, *a.stride())


def _c2t_int32_indexable(a, name, offsets=True):
    """cuTile's rule for an array not annotated `ct.IndexedWithInt64`: its extents and strides are
    int32 (OverflowError otherwise, as cuTile's launch raises); and, with `offsets` (the kernel
    indexes it), the translation's: the offsets of its elements fit in 32 bits too (the kernel
    computes them in int32, which would wrap)."""
    sh, st = a.shape, a.stride()
    if max(sh, default=0) <= 0x7FFFFFFF and max(map(abs, st), default=0) <= 0x7FFFFFFF \
            and (not offsets or sum((n - 1) * abs(s) for n, s in zip(sh, st) if n) <= 0x7FFFFFFF):
        return
    if max(sh, default=0) > 0x7FFFFFFF or max(map(abs, st), default=0) > 0x7FFFFFFF:
        raise OverflowError(f"argument `{name}`: shape {tuple(sh)} / strides {tuple(st)} do not fit in int32; "
                            "annotate the parameter with ct.IndexedWithInt64 to use 64-bit shape and strides")
    raise OverflowError(f"argument `{name}`: its elements (shape {tuple(sh)}, strides {tuple(st)}) lie past "
                        "2**31 - 1 elements from its start, which the translation indexes only for a parameter "
                        "annotated ct.IndexedWithInt64 (32-bit offsets would wrap): annotate it so")


def _c2t_same(a, other):
    """Whether array arguments `a` and `other` are the same memory seen the same way (pointer,
    extents, strides, dtype, device): then a kernel's load of one may reuse its load of the other
    at the same index (TileGym MLA decoding passes one latent cache as both K and V)."""
    if type(other) is not torch.Tensor:
        other = _c2t_tensor(other, "argument")
    return (a.data_ptr() == other.data_ptr() and a.dtype == other.dtype and a.device == other.device
            and a.shape == other.shape and a.stride() == other.stride())


def _c2t_launch(stream, grid, kernel, args, pdl=False):
    """ct.launch of a kernel object chosen at run time: dispatch to its generated launcher."""
    launcher = getattr(kernel, "c2t_launch", None)
    if launcher is None:
        raise TypeError(f"{kernel!r} is not a kernel translated by cutile2triton")
    if pdl:
        return launcher(grid, *args, stream=stream, c2t_pdl=True)
    return launcher(grid, *args, stream=stream)


def _c2t_pdl_options(pdl):
    """ct.launch(..., programmatic_dependent_launch=True): Triton's launch_pdl option (the launch may
    start while the stream's previous kernel runs; ct.grid_dependency_control_wait waits for it).
    Not under the interpreter, which runs one launch at a time and has no such option."""
    if pdl and torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        return {"launch_pdl": True}
    return {}


def _c2t_kernel_object(kernel, launcher, meta=None, tiles=(), hints=False):
    """Give a translated kernel what host code used on the cuTile kernel object (`hints`: whether
    its launcher takes cuTile hints, `c2t_hints`)."""
    kernel.c2t_launch = launcher
    kernel._pyfunc = kernel.fn      # (cuTile's kernel._pyfunc, read e.g. for its __name__: the translated function)
    if meta is not None:            # kernels tuned by exhaustive_search: their launch split for autotune
        kernel.c2t_meta = meta
        kernel.c2t_tile_params = tiles      # its Constant parameters that are tile dimensions
    if hints:
        # kernel.replace_hints(...) returned a re-tuned cuTile kernel: here, the same kernel launched
        # with those hints (only num_ctas has a Triton meaning, see _c2t_hint_options)
        kernel.replace_hints = lambda **hints: _rt_hints._C2THinted(kernel, hints)
    else:
        # kernel.replace_hints(...) returned a re-tuned cuTile kernel; the module's launchers take
        # no hints, so it returns the same kernel
        kernel.replace_hints = lambda **hints: kernel
    return kernel


class _c2t_closure_kernel:
    """A kernel defined inside a function (cutile2triton's nested_kernels.py): the module-level
    kernel it became takes the values it read from the enclosing function as its last Constant
    parameters; `captures()` gives them as they are at launch time, as cuTile compiled them."""

    def __init__(self, kernel, captures):
        self.kernel, self.captures = kernel, captures

    def c2t_launch(self, grid, *args, **kw):
        return self.kernel.c2t_launch(grid, *args, *self.captures(), **kw)

    def replace_hints(self, **hints):
        return _c2t_closure_kernel(self.kernel.replace_hints(**hints), self.captures)


def _c2t_num_warps(elements, dot=False, coarsen=1):
    """Warps per program for a kernel whose largest tile has `elements` elements (`coarsen`: how
    many programs of its grid each program runs, see _c2t_coarsen)."""
    if dot:
        # measured on the H200 (docs/decisions/014-num-warps.md): 128x128 fp16/bf16 tiles run
        # 5-20% faster with 4 warps than with 8; 8 pays off from 128x256 up
        return 8 if elements >= 128 * 256 else 4
    if coarsen > 1:
        # grouped programs of 512-element tiles ran 4-5% faster with 1 or 2 warps than with 4, and
        # 256-element ones best with 2 (docs/decisions/016-program-coarsening.md)
        return 1 if elements < 256 else 2
    return 4 if elements <= 2048 else 8 if elements <= 8192 else 16
