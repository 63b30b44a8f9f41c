"""Spec for TileGym's cuTile LayerNorm forward (`tilegym.ops.cutile.layer_norm_legacy.layer_norm_legacy`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/layer_norm_legacy.py --spec tests/gpu/tilegym/layer_norm_legacy_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to TileGym's
hand-written Triton LayerNorm, `tilegym.ops.triton.layer_norm_legacy.layer_norm`, called the
same way.)

The entry is TileGym's own `layer_norm_legacy(x, normalized_shape, weight, bias, eps,
weight_shift)`: one program per row (`_layer_norm_fwd_kernel`), three loops over column blocks
of the largest power of two <= N (so N = 37 runs two blocks, the second one ragged). It has no
mode flag. `weight_shift` is added to the weight in the weight's dtype (y = x_hat * (w + shift)
+ b). The same file's `persistent_layer_norm` (autotuned persistent kernel) is a different
entry and needs its own spec. Its mean/rstd buffers are allocated with device="cuda"; on the
CPU _cpu_cuda.py puts them on the CPU.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

EPS = 1e-5

C2T_SPEC = {
    "entry": "layer_norm_legacy",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float16", "bfloat16"],
    "cases": [
        {"M": 4, "N": 37},
        {"M": 3, "N": 128},
        {"M": 5, "N": 100, "shift": 1.0},
        {"M": 2, "N": 1},
    ],
    "gpu_cases": [
        {"M": 1000, "N": 1023},
        {"M": 77, "N": 5000, "shift": 1.0},
        {"M": 3000, "N": 4096},
    ],
    "bench_cases": [
        {"M": 4096, "N": 4096},
        {"M": 65536, "N": 4096},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"TileGym Triton": "tilegym_triton"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    M, N = case["M"], case["N"]
    shift = case.get("shift", 0.0)
    x = (torch.randn(M, N, generator=g) * 2 + 0.5).to(dtype).to(device)
    w = (torch.randn(N, generator=g) * 0.1 + (0.0 if shift else 1.0)).to(dtype).to(device)
    b = (torch.randn(N, generator=g) * 0.1).to(dtype).to(device)
    return (x, (N,), w, b, EPS, shift)


def reference(x, normalized_shape, weight, bias, eps, weight_shift=0.0):
    xf = x.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt((xf - mean).pow(2).mean(-1, keepdim=True) + eps)
    w = (weight + weight_shift).float()          # cuTile adds the shift to the weight tile (its dtype)
    return ((xf - mean) * rstd * w + bias.float()).to(x.dtype)


def tilegym_triton(x, normalized_shape, weight, bias, eps, weight_shift=0.0):
    from tilegym.ops.triton.layer_norm_legacy import layer_norm
    return layer_norm(x, normalized_shape, weight, bias, eps, weight_shift)


def bytes_moved(case, dtype):
    """x read, y written, w and b read, mean and rstd (fp32, one per row) written."""
    es = torch.empty((), dtype=dtype).element_size()
    M, N = case["M"], case["N"]
    return 2 * M * N * es + 2 * N * es + 8 * M
