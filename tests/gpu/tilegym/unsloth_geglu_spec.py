"""Spec for TileGym's unsloth-suite cuTile GEGLU, exact form
(`tilegym.suites.unsloth.cutile.geglu.geglu_exact_forward`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/suites/unsloth/cutile/geglu.py --spec tests/gpu/tilegym/unsloth_geglu_spec.py \
        --mode interp --seeds 0

The entry takes gate and up of shape [batch, seq, hidden] and returns
h = 0.5 * gate * (1 + erf(gate / sqrt(2))) * up: one program per 1024 elements viewed flat
(gathers and a bounds-checked scatter), computed in fp32, cast to up's dtype before the product.
Its erf is `erf_ct` of the suite's `ct_ops` module (an Abramowitz-Stegun polynomial, absolute error
below 1.5e-7), a tile helper of a module without kernels: the translation calls ct_ops's
translation of it. Host code autotunes `occupancy` with exhaustive_search and caches
`ct.kernel(kernel._pyfunc, occupancy=...)`, which the translation turns into `replace_hints`.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "geglu_exact_forward",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [
        {"shape": [2, 3, 37]},            # 222 elements: one ragged program
        {"shape": [1, 5, 1000]},          # 5000 elements: 5 programs, the last ragged
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
    g = torch.Generator().manual_seed(seed)
    gate = (torch.randn(*case["shape"], generator=g) * 2).to(dtype).to(device)
    up = torch.randn(*case["shape"], generator=g).to(dtype).to(device)
    return (gate, up)


def reference(gate, up):
    e = gate.float()
    f = (0.5 * e * (1.0 + torch.erf(e / math.sqrt(2.0)))).to(up.dtype)
    return f * up


def bytes_moved(case, dtype):
    """gate and up read, h written."""
    n = math.prod(case["shape"])
    return 3 * n * torch.empty((), dtype=dtype).element_size()
