"""Spec for TileGym's unsloth-suite cuTile SwiGLU forward
(`tilegym.suites.unsloth.cutile.swiglu.swiglu_fg`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/suites/unsloth/cutile/swiglu.py --spec tests/gpu/tilegym/unsloth_swiglu_spec.py \
        --mode interp --seeds 0

h = silu(e) * g = e * sigmoid(e) * g over e and g of shape [batch, seq, hidden]: one program per
1024 elements viewed flat, sigmoid as 0.5 + 0.5 * tanh(0.5 * x) in fp32, the product in g's
dtype. The kernel's comment says its ct.tanh compiles to MUFU.TANH, the hardware approximation
(relative error about 2^-11), while the reference and Triton's tanh are accurate: fp32 is compared
at rtol 2e-3 (the other dtypes' defaults are looser than that already). Host code autotunes
`occupancy` and caches `ct.kernel(kernel._pyfunc, occupancy=...)` (translated as replace_hints).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "swiglu_fg",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "tolerance": {"float32": [2e-3, 1e-5]},
    "cases": [
        {"shape": [2, 3, 37]},
        {"shape": [1, 5, 1000]},
    ],
    "gpu_cases": [
        {"shape": [4, 333, 1001]},
        {"shape": [2, 2048, 4096]},
    ],
    "bench_cases": [
        {"shape": [4, 2048, 4096]},
        {"shape": [8, 4096, 8192]},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    gen = torch.Generator().manual_seed(seed)
    e = (torch.randn(*case["shape"], generator=gen) * 3).to(dtype).to(device)
    g = torch.randn(*case["shape"], generator=gen).to(dtype).to(device)
    return (e, g)


def reference(e, g):
    x = e.float()
    return (x * torch.sigmoid(x)).to(g.dtype) * g


def bytes_moved(case, dtype):
    """e and g read, h written."""
    n = math.prod(case["shape"])
    return 3 * n * torch.empty((), dtype=dtype).element_size()
