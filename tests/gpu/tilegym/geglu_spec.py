"""Spec for TileGym's cuTile GEGLU forward (`tilegym.ops.cutile.activation.geglu.geglu`).

    cd /work/main && TRITON_INTERPRET=1 PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator \
        verify .corpus/src/tilegym/ops/cutile/activation/geglu.py --spec tests/gpu/tilegym/geglu_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to plain torch,
chunk + `F.gelu(approximate="tanh")` + mul; TileGym has no hand-written Triton GEGLU in `tilegym.ops`.
The unsloth suite's GEGLU, a different kernel with separate gate/up tensors and an exact erf, has
its own spec, unsloth_geglu_spec.py.)

The entry is TileGym's own `geglu(input, dim=-1, approximate="none")` (an autograd.Function; only its
forward runs here): x (contiguous, x.shape[dim] even) is split in two halves along `dim`, a (first)
and b (second), and y = a * GELU(b), of x's shape with shape[dim] halved. GELU is applied to the
*second* half (TileGym's PartiallyFusedGEGLUMLP stacks [up, gate] for that reason). Host code views
x flat: one program per 256 outputs, a gather of a and of b (bounds-checked, padded) and a
bounds-checked scatter; for dim = 0 the row stride is 0 and the out-of-range lanes of the last
program wrap onto valid columns, rewriting the same values (the dim=0 cases cover it).

Both modes compute the *tanh* form, as gelu.py does (geglu imports its helpers): "none"
(x * Phi(x), with Phi's erf approximated by tanh(sqrt(2/pi) * (x + 0.044715 x^3))) is not the
exact erf GELU, and "tanh" differs from it only in the order of exact power-of-two products, so the
reference is torch's tanh GELU for both modes (torch's exact GELU is up to 4.7e-4 away). The kernel
casts nothing: every step runs in x's dtype (constants rounded to it; tanh as 2 * sigmoid(2z) - 1,
exp and division in that dtype). The reference computes a * gelu_tanh(b) in fp32 and rounds once to
x's dtype (modelling the kernel's roundings of tanh is no closer to it).

op_class "reduction", not "elementwise": in fp16/bf16, 1 + tanh(z) cancels for b around -2..-4
(tanh is rounded near -1, ulp 2^-11 in fp16, 2^-8 in bf16), so GELU(b) carries an absolute error
of about |b| * ulp / 4 that the product then scales by |a|. For GELU alone atol hides it (gelu_spec),
but here it outgrows the elementwise tolerance once |a| > ~1: a torch model of the kernel's op-by-op
arithmetic, over every finite fp16/bf16 b and |a| <= 6, reaches 2.6x (fp16) and 1.7x (bf16) the
elementwise tolerance (1.2x in fp16 already for |a| <= 1, several roundings in the positive range),
and 0.52x (fp16) / 0.88x (bf16) of the reduction row. fp32 stays within 0.4x of the elementwise row.
So a, the "up" half, is standard normal (|a| <= ~6 even in the gpu_cases); b, the gate half, is
standard normal times `scale` (default 3: the cancelling range and the saturated tails are hit;
scale 20 reaches |b| > 40, where b^3 overflows fp16 and GELU saturates to b or -0).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "geglu",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [                                                  # shape: x's (dim halved in y)
        {"shape": [3, 74]},                                     # 111 outputs: one ragged program
        {"shape": [3, 74], "approximate": "tanh"},
        {"shape": [5, 222]},                                    # 555 outputs, 3 programs, rows straddle them
        {"shape": [2, 3, 200], "approximate": "tanh"},          # 3-D
        {"shape": [4, 6, 5], "dim": 1},                         # split a middle dim: halves of 15 elements
        {"shape": [2, 4, 3], "dim": -2, "approximate": "tanh"},  # negative dim
        {"shape": [6, 7], "dim": 0},                            # dim 0: row stride 0
        {"shape": [300, 3], "dim": 0, "approximate": "tanh"},   # dim 0, 2 programs, wrapped tail lanes
        {"shape": [4, 512], "scale": 1.0},                      # 1024 outputs: 4 full programs
        {"shape": [1, 2]},                                      # halves of one element
        {"shape": [7, 66], "scale": 20.0},                      # saturated tails, fp16 b^3 overflow
        {"shape": [7, 66], "approximate": "tanh", "scale": 20.0},
    ],
    "gpu_cases": [
        {"shape": [333, 2002]},
        {"shape": [4, 1000, 4098], "approximate": "tanh"},
        {"shape": [8, 1024, 64], "dim": 1},
        {"shape": [1000, 28672], "scale": 20.0},
    ],
    "bench_cases": [
        {"shape": [4096, 28672]},                               # 4096 tokens, intermediate 14336
        {"shape": [4096, 28672], "approximate": "tanh"},        # Gemma-2-9B MLP (gelu_pytorch_tanh)
        {"shape": [2, 4096, 43008], "approximate": "tanh"},     # Gemma-3-27B MLP (intermediate 21504)
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"torch (chunk, F.gelu tanh, mul)": "torch_geglu"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    shape, dim = list(case["shape"]), case.get("dim", -1)
    x = torch.randn(*shape, generator=g)
    n = shape[dim] // 2
    x.narrow(dim, n, n).mul_(case.get("scale", 3.0))        # the gate half b; a stays standard normal
    return (x.to(dtype).to(device), dim, case.get("approximate", "none"))


def reference(input, dim=-1, approximate="none"):
    # the kernel's tanh form in both modes (see the docstring), in fp32, rounded once to x's dtype
    a, b = input.float().chunk(2, dim=dim)
    return (a * torch.nn.functional.gelu(b, approximate="tanh")).to(input.dtype)


def torch_geglu(input, dim=-1, approximate="none"):
    """plain torch, in x's dtype, of the formula the kernel computes (tanh form)."""
    a, b = input.chunk(2, dim=dim)
    return a * torch.nn.functional.gelu(b, approximate="tanh")


def bytes_moved(case, dtype):
    """x read (both halves), y written (half of x's size)."""
    n = math.prod(case["shape"]) // 2
    return 3 * n * torch.empty((), dtype=dtype).element_size()
