"""num_stages of dot kernels (from shared memory and the GEMM loop's launch) and the retries of
one that does not fit: one stage less, more warps or padded products where it spills registers.

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import functools
import os

import torch
import triton

from . import base as _rt_base


_C2T_STAGES = {}            # (kernel, Constant args, first num_stages) -> num_stages that fits in shared memory
_C2T_LAST_LAUNCH = [None]   # (that key, the num_stages the launch was given)
_C2T_DEEP = {}              # (bytes per GEMM-loop iteration, grid) -> first num_stages
_C2T_DEEP_SMEM = 192 * 1024     # shared memory a deep pipeline may take (the H200 has 227 KiB per block)
_C2T_DEEP_MAX = 8              # skinny matmul 128x128x32 fp16/bf16 on the H200: 64 us at 6, 61 at 8-12


def _c2t_deep_stages(stage_bytes, programs, sms):
    """num_stages of a GEMM loop (one dot per iteration, loading tiles of `stage_bytes` bytes):
    when the `programs` of the launch have an SM each (at most `sms` of them, as a skinny or a
    persistent matmul has), as many stages as fit in _C2T_DEEP_SMEM, 3 to 8: such a loop streams
    its operands and has no other program to hide its load latency. Measured on the H200
    (docs/decisions/001-gemm-pipeline-depth.md): TileGym matmul 128x8192x8192 fp16 ran in 86 us with 3
    stages, 64 us with 6 (cuTile 56 us) and 61 with 8, 10 or 12;
    its persistent kernel in 77 and 54-57 us (cuTile 54).
    Otherwise Triton's default, 3 (several programs per SM hide each other's latency)."""
    if not stage_bytes or programs > sms:
        return 3
    return max(3, min(_C2T_DEEP_MAX, _C2T_DEEP_SMEM // stage_bytes))


def _c2t_deep_start(stage_bytes, grid):
    """_c2t_deep_stages for a launch grid on the current GPU (3 under the interpreter), cached
    per (bytes, grid): this runs on every launch."""
    start = 3
    if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        programs = 1
        for g in _rt_base._c2t_grid(grid):
            programs *= g
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
        start = _c2t_deep_stages(stage_bytes, programs, sms)
    if len(_C2T_DEEP) >= 4096:
        _C2T_DEEP.clear()
    _C2T_DEEP[(stage_bytes, grid)] = start
    return start


def _c2t_num_stages(kernel, consts, stage_bytes=0, grid=None):
    """Software-pipelining depth of a dot kernel: 3 (Triton's default) or, for a GEMM loop whose
    launch gives each program an SM (`stage_bytes`: bytes one iteration loads, from the
    translator; `grid`: the launch grid), a deeper one (_c2t_deep_stages); a launch that ran out
    of shared memory gets one stage less each time (see _c2t_fit_shared_memory)."""
    start = 3
    if stage_bytes and type(grid) is tuple:
        start = _C2T_DEEP.get((stage_bytes, grid))
        if start is None:
            start = _c2t_deep_start(stage_bytes, grid)
    key = (kernel, consts, start)
    stages = _C2T_STAGES.get(key, start)
    _C2T_LAST_LAUNCH[0] = (key, stages)
    return stages


# A dot kernel whose pipelined loop spills registers runs up to 2x slower than a variant that does
# not (measured on the H200, docs/decisions/002-spill-retry.md: TileGym MLA decoding 716 us at 4
# warps / 3 stages with 352 B of spills, 332 us at 2 stages and 284 us at 8 warps, none spilled;
# flash_decode B=32 168 us, 139 at 2 stages, 145 at 8 warps;
# group_gemm 128x128x128 384 us at 4 / 3 (32 B spilled), 461 at 4 / 2, 276 at 8 / 3): more warps
# are tried first. $C2T_SPILL_RETRY=0 keeps the first compile.
_C2T_SPILL_RETRY = os.environ.get("C2T_SPILL_RETRY", "1") != "0"
# A dot kernel at 4 warps whose registers reach ptxas's cap (255) without spilling may also run
# faster with 8: cutile-python's AttentionFMHA at 128x64 tiles and D=128 took 544 us at 4 warps
# (255 registers, none spilled) and 329 us at 8, cuTile 283 (docs/decisions/004-register-cap-retry-off.md).
# Timed both ways on the H200, it
# also slows the sample's 128x128 D=64 config (182 -> 225 us) and leaves TileGym's bmm entries,
# attention_sink_decode and attention_sink where they were (within run-to-run spread): a kernel at
# the cap does not tell which way 8 warps go, so this retry is off unless $C2T_CAP_RETRY is set
# (it then compiles the 8-warp variant and takes it when it does not spill).
_C2T_CAP_RETRY = os.environ.get("C2T_CAP_RETRY", "0") != "0"     # as the other switches: any value but 0 is on


def _c2t_at_register_cap(compiled, options):
    """Whether a compiled dot kernel is one for the register-cap retry (see _C2T_CAP_RETRY)."""
    return (_C2T_CAP_RETRY and getattr(compiled, "n_spills", 0) == 0 and getattr(compiled, "n_regs", 0) >= 255
            and options.get("num_warps", 4) == 4)


def _c2t_leaner_if_spilling(kernel, grid, args, options, compiled):
    """After the first launch of a specialization that spilled registers: compile it with its narrow
    products padded (a kernel that takes C2T_PAD, passed False), then with twice the warps (up to
    8), then with one stage less, and return the first variant that does not spill (else the one
    that spills least, when it spills less): the cached launch path runs it for later launches with
    the same arguments (a compiled kernel ignores its constexpr arguments, so the launch's own
    C2T_PAD does not undo the padded compile). Without tile-level semantics of warps in cuTile, the
    variants compute the same results, and so does the padded form (zero columns, dropped).
    Padding first: TileGym's flash decode with 16 query heads per KV head spilled 48 B at 255
    registers as translated, and ran at 0.88 of cuTile (graph replay) with the 8 warps this retry
    then took; padded it compiles to 167 registers without spilling and ran at 0.97 (H200,
    docs/gpu-runs/ncu-short-rows-2026-12-01.md section 4). Padding slowed TileGym's MLA decoding,
    whose compiles do not spill, so it stays a retry for spilling kernels."""
    return _c2t_leaner_variant(kernel, grid, args, options, compiled, pad=True)[0]


def _c2t_padded_args(kernel, args):
    """`args` with the kernel's C2T_PAD argument True; None where it takes none or it is True."""
    names = getattr(kernel, "arg_names", ())
    if "C2T_PAD" not in names:
        return None
    i = names.index("C2T_PAD")
    if i >= len(args) or args[i]:
        return None
    return (*args[:i], True, *args[i + 1:])


def _c2t_leaner_variant(kernel, grid, args, options, compiled, pad=False):
    """_c2t_leaner_if_spilling's pick, with the options it was compiled with: (compiled, options).
    `pad`: also try the padded form (the launch path; a config search passes its Constant
    arguments as options and times the others)."""
    warps, stages = options.get("num_warps", 4), options["num_stages"]
    if not getattr(compiled, "n_spills", 0):        # at the register cap: 8 warps, when they do not spill
        variants = [(args, {**options, "num_warps": 8})] if _c2t_at_register_cap(compiled, options) else []
    else:
        padded = _c2t_padded_args(kernel, args) if pad else None
        variants = ([(padded, options)] if padded is not None else []) \
            + ([(args, {**options, "num_warps": warps * 2})] if warps * 2 <= 8 else []) \
            + ([(args, {**options, "num_stages": stages - 1})] if stages > 2 else [])
    best = (compiled, options)
    for vargs, opts in variants:
        try:
            leaner = kernel.warmup(*vargs, grid=grid, **opts)
            leaner._init_handles()
        except Exception:   # noqa: BLE001 - a variant is an optimization; keep the one that runs
            continue
        if leaner.n_spills < best[0].n_spills or (leaner.n_spills == 0 and not getattr(compiled, "n_spills", 0)):
            best = (leaner, opts)
        if best[0].n_spills == 0:
            break
    return best


def _c2t_fit_shared_memory(launcher):
    """A dot kernel whose tiles, times the pipelining depth, need more shared memory than the GPU
    has is compiled again with one stage less (cuTile's compiler sizes its pipeline itself). A
    launch whose num_stages did not come from _c2t_num_stages (a launcher edited to pass its own)
    gets Triton's error."""
    @functools.wraps(launcher)
    def launch(*args, **kwargs):
        while True:
            _C2T_LAST_LAUNCH[0] = None      # set again by this launch's _c2t_num_stages, if it calls it
            try:
                return launcher(*args, **kwargs)
            except triton.runtime.errors.OutOfResources as exc:
                last = _C2T_LAST_LAUNCH[0]
                if last is None or "shared memory" not in str(exc) or last[1] <= 1:
                    raise
                key, stages = last
                _C2T_STAGES[key] = stages - 1
    return launch
