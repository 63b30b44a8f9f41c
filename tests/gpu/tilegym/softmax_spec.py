"""Spec for TileGym's cuTile softmax (`tilegym.ops.cutile.softmax.softmax`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/softmax.py --spec tests/gpu/tilegym/softmax_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to torch.softmax.)

The entry is TileGym's own `softmax(x, use_tma=...)`, which picks the kernel: `tma` in a case
is `use_tma` (False: the persistent gather/scatter `_softmax_kernel`, grid min(4 * SMs, M);
True: `_softmax_kernel_tma`, one tile per row, grid min(2 * SMs, M)). The chunked and
multi-wave kernels are chosen by keyword arguments only (`use_chunked=`, `use_multi_wave=`),
which a spec cannot pass (make_args gives positional arguments), so they are not run.
`sms` (CPU only, see _cpu_cuda.py) makes the persistent programs loop over several rows.
TileGym has no hand-written Triton softmax in its src tree; torch.softmax is the peer.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "softmax",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "bfloat16", "float16"],
    "cases": [
        {"M": 4, "N": 37, "tma": False},
        {"M": 3, "N": 128, "tma": False},
        {"M": 9, "N": 37, "tma": False, "sms": 1},      # 4 programs over 9 rows
        {"M": 4, "N": 37, "tma": True},
        {"M": 3, "N": 128, "tma": True},
        {"M": 7, "N": 100, "tma": True, "sms": 1},      # 2 programs over 7 rows
    ],
    "gpu_cases": [
        {"M": 1000, "N": 1023, "tma": False},
        {"M": 1000, "N": 1023, "tma": True},
        {"M": 77, "N": 5000, "tma": False},
        {"M": 77, "N": 5000, "tma": True},
    ],
    "bench_cases": [
        {"M": 4096, "N": 1024, "tma": False},
        {"M": 4096, "N": 1024, "tma": True},
        {"M": 4096, "N": 4096, "tma": False},
        {"M": 4096, "N": 4096, "tma": True},
        {"M": 4096, "N": 16384, "tma": False},
        {"M": 4096, "N": 16384, "tma": True},
        {"M": 65536, "N": 4096, "tma": False},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"torch.softmax": "torch_softmax"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(case["M"], case["N"], generator=g).to(dtype).to(device)
    return (x, case.get("tma", False))


def reference(x, use_tma=False):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


def torch_softmax(x, use_tma=False):
    return torch.softmax(x, dim=-1)


def bytes_moved(case, dtype):
    """x read once, y written once."""
    return 2 * case["M"] * case["N"] * torch.empty((), dtype=dtype).element_size()
