"""Spec for TileGym's standalone cuTile RMSNorm backward (`tilegym.ops.cutile.rms_norm.rms_norm_backward`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/rms_norm.py --spec tests/gpu/tilegym/rms_norm_backward_spec.py --mode interp

The entry is TileGym's `rms_norm_backward(x, dy, weight, rstd)`: one persistent launch of
`_rms_bwd_kernel` (a grid-stride loop over row tiles, min(SMs, tiles) programs) returning
(dx, dw). Its loop loads x and dy tiles cast to float32: the translation prefetches them (the next
row tile is loaded while this one is used, translator/lower/prefetch.py). The reference is
TileGym's formula in float32 (`rms_norm_backward_torch`'s math, written here).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

EPS = 1e-6

C2T_SPEC = {
    "entry": "rms_norm_backward",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float16", "bfloat16"],
    "cases": [
        {"M": 9, "N": 37},               # 4-row tiles, ragged rows and columns
        {"M": 40, "N": 100, "sms": 3},   # 10 row tiles over 3 programs: the loop runs several times
        {"M": 5, "N": 3000},             # one row per tile (T = 4096)
    ],
    "gpu_cases": [
        {"M": 1000, "N": 1023},
        {"M": 3000, "N": 5000},
    ],
    "bench_cases": [
        {"M": 4096, "N": 4096},
        {"M": 16384, "N": 4096},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(M, N, generator=g).to(dtype).to(device)
    dy = torch.randn(M, N, generator=g).to(dtype).to(device)
    w = (torch.randn(N, generator=g) * 0.1 + 1.0).to(dtype).to(device)
    rstd = torch.rsqrt(x.float().pow(2).mean(-1) + EPS).to(device)
    return (x, dy, w, rstd)


def reference(x, dy, weight, rstd):
    xf, dyf, wf = x.float(), dy.float(), weight.float()
    r = rstd.float().reshape(-1, 1)
    xhat = xf * r
    wdy = dyf * wf
    dx = r * (wdy - xhat * (wdy * xhat).mean(-1, keepdim=True))
    dw = (dyf * xhat).sum(0)
    return dx.to(x.dtype), dw.to(weight.dtype)


def bytes_moved(case, dtype):
    elem = torch.empty((), dtype=dtype).element_size()
    return 3 * case["M"] * case["N"] * elem       # x and dy read, dx written (dw partials aside)
