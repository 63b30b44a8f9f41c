"""Spec for TileGym's cuTile batched matmul (`tilegym.ops.cutile.bmm.bmm`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/bmm.py --spec tests/gpu/tilegym/bmm_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU also times the bench_cases next to torch.bmm; `--dtypes float16` keeps the
bench to the anchor dtype.)

The entry is TileGym's own `bmm(a, b, transpose_a, transpose_b, static_persistent)`. Each case
picks a path with `sp`: True (TileGym's default) = `_static_persistent_bmm_kernel`, whose tiles
come from exhaustive_search over the arch's table (H100/H200: 18 configs); False = `_bmm_kernel`
with TileGym's fixed 128x128x32 tiles. The persistent path also takes `ta`/`tb` (operands stored
transposed: A as (B, K, M), B as (B, N, K)); the other path rejects them, as TileGym does.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda        # sibling module: CPU stand-ins for torch.cuda queries (interp mode only)

_cpu_cuda.install()

C2T_SPEC = {
    "entry": "bmm",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["float16", "bfloat16", "float32"],
    "cases": [
        {"B": 2, "M": 64, "N": 48, "K": 40, "sp": False},
        {"B": 3, "M": 70, "N": 50, "K": 90, "sp": False},
        {"B": 2, "M": 64, "N": 48, "K": 40, "sp": True},
        {"B": 3, "M": 70, "N": 50, "K": 90, "sp": True, "ta": True},
        {"B": 3, "M": 70, "N": 50, "K": 90, "sp": True, "tb": True},
        # The interpreter's exhaustive_search keeps the config that ran fastest on the CPU (the
        # biggest tiles) and only its output is compared, so these shapes are several tiles even
        # for 256x256 tiles; `sms` (interpreter only, _cpu_cuda.emulate) makes each persistent
        # program loop over several tiles and batches.
        {"B": 2, "M": 300, "N": 270, "K": 70, "sp": True, "sms": 4},
        {"B": 3, "M": 130, "N": 200, "K": 50, "sp": False},
    ],
    "gpu_cases": [
        {"B": 3, "M": 1000, "N": 1023, "K": 777, "sp": True},
        {"B": 3, "M": 1000, "N": 1023, "K": 777, "sp": False},
        {"B": 5, "M": 333, "N": 515, "K": 1500, "sp": True, "ta": True, "tb": True},
        # the bench shapes of the persistent path: checked in the entry that times them, so each
        # side searches once per shape
        {"B": 16, "M": 1024, "N": 1024, "K": 1024, "sp": True},
        {"B": 4, "M": 2048, "N": 2048, "K": 2048, "sp": True},
    ],
    "bench_cases": [
        {"B": 16, "M": 1024, "N": 1024, "K": 1024, "sp": True},
        {"B": 16, "M": 1024, "N": 1024, "K": 1024, "sp": False},
        {"B": 4, "M": 2048, "N": 2048, "K": 2048, "sp": True},
        {"B": 4, "M": 2048, "N": 2048, "K": 2048, "sp": False},
    ],
    "flops": "flop_count",
    "bound": "compute",
    "peers": {"torch.bmm": "torch_bmm"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (`cc`, `sms` keys)
    g = torch.Generator().manual_seed(seed)
    Q, M, N, K = case["B"], case["M"], case["N"], case["K"]
    ta, tb = case.get("ta", False), case.get("tb", False)
    a = torch.randn((Q, K, M) if ta else (Q, M, K), generator=g).to(dtype).to(device)
    b = torch.randn((Q, N, K) if tb else (Q, K, N), generator=g).to(dtype).to(device)
    return (a, b, ta, tb, case["sp"])


def _operands(a, b, transpose_a, transpose_b):
    return (a.transpose(1, 2) if transpose_a else a), (b.transpose(1, 2) if transpose_b else b)


def reference(a, b, transpose_a=False, transpose_b=False, static_persistent=True):
    x, y = _operands(a, b, transpose_a, transpose_b)
    return torch.bmm(x.float(), y.float()).to(a.dtype)


def torch_bmm(a, b, transpose_a=False, transpose_b=False, static_persistent=True):
    x, y = _operands(a, b, transpose_a, transpose_b)
    return torch.bmm(x, y)


def flop_count(case, dtype):
    return 2 * case["B"] * case["M"] * case["N"] * case["K"]
