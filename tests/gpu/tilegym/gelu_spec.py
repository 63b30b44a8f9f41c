"""Spec for TileGym's cuTile GELU (`tilegym.ops.cutile.activation.gelu.gelu`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/activation/gelu.py --spec tests/gpu/tilegym/gelu_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to torch's own
`torch.nn.functional.gelu(x, approximate="tanh")`; TileGym has no hand-written Triton GELU.)

The entry is TileGym's own `gelu(input, approximate)`, which goes through a torch.autograd.Function
(forward only: its backward raises): one program per 1024 elements of x viewed flat (a gather
padded with 0 and a bounds-checked scatter), y = torch.empty_like(x). Both modes compute the
*tanh* form 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))): `approximate="none"` (any
string other than "tanh") is not the exact erf GELU, since the kernel's normal CDF approximates
erf by that same tanh. The two modes differ only in the order of the last products
(x * (0.5 * (1 + t)) against (0.5 * x) * (1 + t)). So the reference is torch's tanh GELU for both
modes; torch's exact GELU differs from it by up to 4.7e-4 (near x = 2.70), far outside the fp32
tolerance (1e-5 + 1e-5 * |y|), inside the fp16/bf16 ones. The kernel computes in x's dtype, op by
op (tanh as 2 * sigmoid(2z) - 1, with exp in that dtype); the reference computes in fp32 and rounds
once to x's dtype. Over every finite fp16 and bf16 input, a torch model of the kernel's op-by-op
arithmetic in the input dtype stays within the elementwise tolerance of that reference (at worst
0.65 of it in fp16, at x = 2.06; 0.34 in bf16), and within 5e-7 in fp32, so the elementwise row
applies. Inputs are randn times `scale` (default 3: the tails, where exp(-2z) overflows in fp16
and the output saturates to x or -0, are exercised).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "gelu",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [
        {"shape": [3000]},                                         # 3 programs, the last ragged
        {"shape": [3000], "approximate": "tanh"},
        {"shape": [2, 3, 37]},                                     # 222 elements: one ragged program
        {"shape": [7, 333], "approximate": "tanh", "scale": 6.0},  # 2331 elements, saturated tails
        {"shape": [4, 256], "scale": 1.0},                         # exactly one full program
    ],
    "gpu_cases": [
        {"shape": [1000003]},
        {"shape": [333, 4097], "approximate": "tanh"},
        {"shape": [8, 2048, 1024], "scale": 6.0},
    ],
    "bench_cases": [
        {"shape": [4096, 14336]},
        {"shape": [4096, 14336], "approximate": "tanh"},
        {"shape": [1 << 24]},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"torch F.gelu (tanh)": "torch_gelu"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(*case["shape"], generator=g) * case.get("scale", 3.0)).to(dtype).to(device)
    return (x, case.get("approximate", "none"))


def reference(input, approximate="none"):
    # the kernel's tanh form in both modes (see the docstring), in fp32, rounded once to x's dtype
    y = torch.nn.functional.gelu(input.float(), approximate="tanh")
    return y.to(input.dtype)


def torch_gelu(input, approximate="none"):
    """torch's native GELU of the formula the kernel computes (tanh form), in x's dtype."""
    return torch.nn.functional.gelu(input, approximate="tanh")


def bytes_moved(case, dtype):
    """x read, y written."""
    n = math.prod(case["shape"])
    return 2 * n * torch.empty((), dtype=dtype).element_size()
