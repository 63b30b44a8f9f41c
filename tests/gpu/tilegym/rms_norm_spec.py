"""Spec for TileGym's cuTile RMSNorm forward (`tilegym.ops.cutile.rms_norm.rms_norm`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/rms_norm.py --spec tests/gpu/tilegym/rms_norm_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to TileGym's
hand-written Triton RMSNorm, `tilegym.ops.triton.rms_norm.rms_norm`, called the same way.)

The entry is TileGym's own `rms_norm(x, normalized_shape, weight, eps, bias, mode, offset)`.
`mode` in a case picks the kernel: "static_persistent" (`_rms_norm_kernel_static_persistent`,
grid min(SMs, row tiles)), "multi_wave_reload" (`_rms_norm_kernel_gather`, one row per program,
a loop over column tiles of min(4096 / element size, next_pow2(N))), "multi_wave_cached"
(`_rms_norm_kernel_multi_wave_cached`, one tile per row), or None: TileGym's heuristic
(static_persistent when M > 2 * SMs, else multi_wave_reload). `offset` 1.0 is the Gemma3 form
y = x * rstd * (1 + w). Bias is rejected by every cuTile path, so it is always None.
`sms` (CPU only, see _cpu_cuda.py) makes the persistent programs loop over several row tiles.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

EPS = 1e-6

C2T_SPEC = {
    "entry": "rms_norm",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float16", "bfloat16"],
    "cases": [
        {"M": 5, "N": 37, "mode": "multi_wave_reload"},
        {"M": 3, "N": 2100, "mode": "multi_wave_reload"},          # 2 column tiles (fp16), ragged
        {"M": 4, "N": 37, "mode": "multi_wave_cached"},
        {"M": 3, "N": 128, "mode": "multi_wave_cached", "offset": 1.0},
        {"M": 40, "N": 37, "mode": "static_persistent", "sms": 2},   # 16-row tiles, 2 programs
        {"M": 9, "N": 128, "mode": "static_persistent", "offset": 1.0},
        {"M": 40, "N": 100, "mode": None, "sms": 4},   # heuristic: M > 2 * SMs -> static_persistent
        {"M": 6, "N": 100, "mode": None, "sms": 4},    # heuristic: multi_wave_reload
    ],
    "gpu_cases": [
        {"M": 1000, "N": 1023, "mode": None},
        {"M": 200, "N": 5000, "mode": "multi_wave_reload"},         # 3 column tiles (fp16/bf16)
        {"M": 77, "N": 5000, "mode": "multi_wave_cached"},
        {"M": 3000, "N": 5000, "mode": "static_persistent", "offset": 1.0},
    ],
    "bench_cases": [
        {"M": 4096, "N": 4096, "mode": None},              # H200: static_persistent
        {"M": 4096, "N": 8192, "mode": None},
        {"M": 65536, "N": 4096, "mode": None},
        {"M": 4096, "N": 4096, "mode": "multi_wave_reload"},
        {"M": 4096, "N": 4096, "mode": "multi_wave_cached"},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"TileGym Triton": "tilegym_triton"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    M, N = case["M"], case["N"]
    offset = case.get("offset", 0.0)
    x = torch.randn(M, N, generator=g).to(dtype).to(device)
    w = (torch.randn(N, generator=g) * 0.1 + (0.0 if offset else 1.0)).to(dtype).to(device)
    return (x, (N,), w, EPS, None, case.get("mode"), offset)


def reference(x, normalized_shape, weight, eps, bias=None, mode=None, offset=0.0):
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * rstd * (offset + weight.float())).to(x.dtype)


def tilegym_triton(x, normalized_shape, weight, eps, bias=None, mode=None, offset=0.0):
    """TileGym's Triton RMSNorm; it has no multi_wave_cached kernel, so that case runs its
    multi_wave_reload one (also one row per program)."""
    from tilegym.ops.triton.rms_norm import rms_norm
    if mode == "multi_wave_cached":
        mode = "multi_wave_reload"
    return rms_norm(x, normalized_shape, weight, eps, bias, mode, offset)


def bytes_moved(case, dtype):
    """x read, y written, w read, rstd (fp32, one per row) written."""
    es = torch.empty((), dtype=dtype).element_size()
    M, N = case["M"], case["N"]
    return 2 * M * N * es + N * es + 4 * M
