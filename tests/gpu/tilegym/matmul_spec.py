"""Spec for TileGym's cuTile matmul (`tilegym.ops.cutile.matmul.matmul`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/matmul.py --spec tests/gpu/tilegym/matmul_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU also times the bench_cases next to torch.matmul; `--dtypes float16 bfloat16`
keeps the bench to the anchor dtypes. In float32 both sides multiply in tf32, as TileGym casts to
ct.tfloat32.)

The entry is TileGym's own `matmul(a, b, trans_a, trans_b, static_persistent)`, whose autotuner
(cuda.tile.tune.exhaustive_search over the arch's config table) picks the tiles. Each case picks a
path with `sp` (static_persistent: False = tiled `_matmul_kernel`, True =
`_static_persistent_matmul_kernel`); the persistent path also takes `ta`/`tb` (operands stored
transposed: A as (K, M), B as (N, K)); the tiled path rejects them, as TileGym does.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda        # sibling module: CPU stand-ins for torch.cuda queries (interp mode only)

_cpu_cuda.install()

C2T_SPEC = {
    "entry": "matmul",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["float16", "bfloat16", "float32"],
    "cases": [
        {"M": 64, "N": 48, "K": 40, "sp": False},
        {"M": 70, "N": 50, "K": 90, "sp": False},
        {"M": 64, "N": 48, "K": 40, "sp": True},
        {"M": 70, "N": 50, "K": 90, "sp": True, "ta": True},
        {"M": 70, "N": 50, "K": 90, "sp": True, "tb": True},
        # The interpreter's exhaustive_search keeps the config that ran fastest on the CPU (the
        # biggest tiles), and only the kept config's output is compared; so these shapes are
        # several tiles even for the biggest tiles of each table. `cc` and `sms` only act under
        # the interpreter (_cpu_cuda.emulate): `cc` picks another arch's autotune table, few
        # `sms` make each persistent program loop over several tiles.
        {"M": 520, "N": 300, "K": 70, "sp": False},
        {"M": 200, "N": 150, "K": 90, "sp": False, "cc": "12.0"},
        {"M": 520, "N": 300, "K": 70, "sp": True, "ta": True, "tb": True, "sms": 4},
        {"M": 600, "N": 270, "K": 50, "sp": True, "cc": "12.0", "sms": 2},
    ],
    "gpu_cases": [
        {"M": 1000, "N": 1023, "K": 777, "sp": False},
        {"M": 1000, "N": 1023, "K": 777, "sp": True},
        {"M": 333, "N": 2050, "K": 1500, "sp": True, "ta": True, "tb": True},
    ],
    "bench_cases": [
        {"M": 4096, "N": 4096, "K": 4096, "sp": False},
        {"M": 4096, "N": 4096, "K": 4096, "sp": True},
        {"M": 8192, "N": 8192, "K": 8192, "sp": False},
        {"M": 8192, "N": 8192, "K": 8192, "sp": True},
        {"M": 128, "N": 8192, "K": 8192, "sp": False},
        {"M": 128, "N": 8192, "K": 8192, "sp": True},
    ],
    "flops": "flop_count",
    "bound": "compute",
    "peers": {"torch.matmul": "torch_matmul"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (`cc`, `sms` keys)
    g = torch.Generator().manual_seed(seed)
    M, N, K = case["M"], case["N"], case["K"]
    ta, tb = case.get("ta", False), case.get("tb", False)
    a = torch.randn((K, M) if ta else (M, K), generator=g).to(dtype).to(device)
    b = torch.randn((N, K) if tb else (K, N), generator=g).to(dtype).to(device)
    return (a, b, ta, tb, case["sp"])


def _operands(a, b, trans_a, trans_b):
    return (a.t() if trans_a else a), (b.t() if trans_b else b)


def reference(a, b, trans_a=False, trans_b=False, static_persistent=None):
    x, y = _operands(a, b, trans_a, trans_b)
    return (x.float() @ y.float()).to(a.dtype)


def torch_matmul(a, b, trans_a=False, trans_b=False, static_persistent=None):
    x, y = _operands(a, b, trans_a, trans_b)
    return torch.matmul(x, y)


def flop_count(case, dtype):
    return 2 * case["M"] * case["N"] * case["K"]
