"""Tensor descriptors (TMA): whether a launch's array may use them (`_c2t_tma`), and the scratch
memory in-kernel descriptors need.

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import os

import torch
import triton

from . import base as _rt_base


# Tensor descriptors (TMA). $C2T_TMA (read at import; tests may assign _C2T_TMA_MODE):
# - "small" (the default): for CUDA tensors that pass the checks below, in launches of fewer
#   programs than the GPU has SMs, for arrays the kernel moves tiles of inside a loop. There each
#   program's own load rate bounds the kernel, and the copy engine feeds a program better than its
#   threads' masked loads do (H200, TileGym MLA decoding B=1, one program: 223 -> 183 us; B=128,
#   128 programs: device time 0.85 -> 0.90 of cuTile's; docs/decisions/013-tensor-descriptors-small-grids.md), while
#   full grids ran no faster with descriptors (matmul) or slower (transposes 0.3-0.7x:
#   same page), and a program that moves one tile pays for making the
#   descriptor without reusing it (TileGym splitk_reduce: 3.8 us with descriptors, 1.3 us without:
#   same page). The arrays of a kernel with a GEMM loop (`gemm`) also
#   take them in a grid of exactly one program per SM, a persistent GEMM's: TileGym bmm
#   16x1024^3 (132 programs) ran 0.80 -> 0.83 of cuTile and 4x2048^3 0.84 -> 0.92, while TileGym
#   rms_norm's persistent grid of 132 programs ran 1.01 -> 0.72 with descriptors, so other
#   kernels keep the stricter bound (same page);
# - "auto": for every CUDA tensor that passes the checks; "on": also for CPU tensors (the Triton
#   interpreter runs descriptors too: tests exercise both paths with it); "off": never.
_C2T_TMA_MODE = os.environ.get("C2T_TMA", "small")
if _C2T_TMA_MODE not in ("small", "auto", "on", "off"):
    raise ValueError(f"C2T_TMA must be small, auto, on or off, not {_C2T_TMA_MODE!r}")
_C2T_TMA_DTYPES = {torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8,
                   torch.int16, torch.int32, torch.int64,
                   *(getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n))}
_C2T_SMALL = {}             # (grid, device index, gemm) -> few enough programs (_c2t_small_grid)
_C2T_TMA_LEGAL = {}         # (dtype, extents, strides, base % 16, blocks) -> the copy engine's rules hold


def _c2t_small_grid(grid, device, gemm=False):
    """Whether a launch grid (a tuple; a META grid is not known here) has fewer programs than
    device `device` (an index) has SMs, or (`gemm`) at most as many."""
    if grid is None or callable(grid):
        return False
    small = _C2T_SMALL.get((_rt_base._c2t_grid(grid), device, gemm))
    if small is None:
        n = 1
        for g in grid:
            n *= g
        if len(_C2T_SMALL) >= 4096:
            _C2T_SMALL.clear()
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        small = _C2T_SMALL[(grid, device, gemm)] = n <= sms if gemm else n < sms
    return small


def _c2t_tma_legal(a, blocks):
    """The copy engine's rules on tensor `a` and the block shapes `blocks`."""
    size = a.element_size()
    if a.dtype not in _C2T_TMA_DTYPES or a.numel() == 0 or max(a.shape) >= 2 ** 31:
        return False
    if a.stride(-1) != 1 or a.data_ptr() % 16:
        return False
    if any(s <= 0 or s * size % 16 or s * size >= 2 ** 40 for s in a.stride()[:-1]):
        return False
    return not any(b[-1] * size < 16 or b[-1] * size % 16 for b in blocks)


def _c2t_tma(a, blocks, grid=None, looped=True, gemm=False):
    """Whether the kernel may move `a`'s tiles (`blocks`: their shapes) with TMA descriptors:
    the `<array>_TMA` constexpr (`gemm`: the kernel has a GEMM loop, see _c2t_small_grid). A
    descriptor that breaks the copy engine's rules kills the CUDA context, so anything not proven
    legal here keeps the masked-pointer specialization. The rules are checked once per layout
    (dtype, extents, strides, base alignment), since this runs on every launch."""
    mode = _C2T_TMA_MODE
    if mode == "off":
        return False
    if not a.is_cuda:
        if mode != "on":
            return False
    elif mode == "small" and not (looped and _c2t_small_grid(grid, a.get_device(), gemm)):
        return False
    key = (a.dtype, a.shape, a.stride(), a.data_ptr() & 15, blocks)
    legal = _C2T_TMA_LEGAL.get(key)
    if legal is None:
        if len(_C2T_TMA_LEGAL) >= 4096:
            _C2T_TMA_LEGAL.clear()
        legal = _C2T_TMA_LEGAL[key] = _c2t_tma_legal(a, blocks)
    if legal and a.is_cuda and (_c2t_allocation is None or
                                isinstance(_c2t_allocation._allocator.get(), _c2t_allocation.NullAllocator)):
        triton.set_allocator(_c2t_tma_scratch)  # descriptors need scratch memory: see below
    return legal


def _c2t_tma_scratch(size, alignment, stream):
    """In-kernel descriptors live in global scratch memory the launch asks Triton's allocator
    for: _c2t_tma installs this CUDA one unless the program set its own. Launches from the launch
    memo share one buffer per device and stream instead when this allocator (or another
    translated module's: `c2t_scratch`) is the installed one (_c2t_scratch)."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


_c2t_tma_scratch.c2t_scratch = True


try:
    from triton.runtime import _allocation as _c2t_allocation
except ImportError:     # another Triton layout: set the allocator on every descriptor launch
    _c2t_allocation = None
