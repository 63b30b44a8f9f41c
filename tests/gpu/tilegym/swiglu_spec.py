"""Spec for TileGym's cuTile SwiGLU forward (`tilegym.ops.cutile.swiglu.swiglu`).

    cd /work/main && TRITON_INTERPRET=1 PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator \
        verify .corpus/src/tilegym/ops/cutile/swiglu.py --spec tests/gpu/tilegym/swiglu_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases; TileGym has no
hand-written Triton SwiGLU in `tilegym.ops.triton`, so there is no peer.)

The entry is TileGym's own `swiglu(a, b)` (an autograd.Function; only its forward runs here):
c = silu(a) * b elementwise, a and b of the same shape and dtype, viewed as (-1, n_cols) with
n_cols the last dim (so 1-D, 2-D, 3-D and 4-D inputs all work; they must be viewable, i.e.
contiguous in the last dim). One program per row, the whole row in one tile of
next_power_of_2(n_cols) lanes (gather/scatter with bounds checks clip the ragged tail).
silu is computed in fp32 as a * (1 / (1 + exp(-a))) (the division approximate and
flush-to-zero on the GPU: a few fp32 ulps, inside the elementwise row), rounded to a's dtype,
and then multiplied by b in that dtype (one more rounding): the reference does the same in
plain torch. For a < -88.7 exp(-a) overflows to inf and silu is exactly (-)0, as in the
reference (the `scale` case reaches that range).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "swiglu",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [
        {"shape": [37]},                     # 1-D: one row, tile 64
        {"shape": [3, 37]},                  # 2-D, ragged row
        {"shape": [2, 3, 100]},              # 3-D (batch, seq, intermediate)
        {"shape": [1, 5, 1000]},             # tile 1024, 24 lanes clipped
        {"shape": [2, 2, 3, 17]},            # 4-D
        {"shape": [4, 1]},                   # n_cols = 1: tile of one lane
        {"shape": [2, 7, 33], "scale": 40.0},  # |a| up to ~150: exp(-a) overflows, sigmoid saturates
    ],
    "gpu_cases": [
        {"shape": [4, 333, 1001]},
        {"shape": [2048, 11008]},
        {"shape": [3, 257, 14336], "scale": 10.0},
    ],
    "bench_cases": [
        {"shape": [4, 2048, 11008]},         # Llama-2-7B MLP
        {"shape": [4096, 14336]},            # Llama-3-8B / Mistral-7B MLP
        {"shape": [8, 2048, 14336]},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    a = (torch.randn(*case["shape"], generator=g) * case.get("scale", 3.0)).to(dtype).to(device)
    b = torch.randn(*case["shape"], generator=g).to(dtype).to(device)
    return (a, b)


def reference(a, b):
    x = a.float()
    silu = x * (1.0 / (1.0 + torch.exp(-x)))        # fp32, as the kernel
    return silu.to(a.dtype) * b                      # rounded to a's dtype, product in that dtype


def bytes_moved(case, dtype):
    """a and b read, c written."""
    n = math.prod(case["shape"])
    return 3 * n * torch.empty((), dtype=dtype).element_size()
