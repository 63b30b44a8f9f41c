"""Spec for TileGym's cuTile grouped GEMM (`tilegym.ops.cutile.group_gemm.group_gemm`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/group_gemm.py --spec tests/gpu/tilegym/group_gemm_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU also times the bench_cases next to a plain torch loop of matmuls;
`--dtypes float16` keeps the bench to the anchor dtype.)

The entry is TileGym's own `group_gemm(group_A, group_B, static_persistent, transpose_b)`: one
persistent launch (NUM_SMS programs) walks the tiles of every problem in the group, with tiles
from exhaustive_search over the arch's table. A case lists its problems as `g` = [[M, N, K], ...]
(each C_i = A_i @ B_i, A_i (M, K), B_i (K, N), or (N, K) with `tb`). TileGym has one kernel
(`static_persistent` is accepted and ignored). TileGym is never committed: `.corpus/src` is a
copy of its `src` folder."""
import torch

import _cpu_cuda        # sibling module: CPU stand-ins for torch.cuda queries (interp mode only)

_cpu_cuda.install()

C2T_SPEC = {
    "entry": "group_gemm",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["float16", "bfloat16", "float32"],
    "cases": [
        {"g": [[64, 48, 40], [70, 50, 90]]},
        {"g": [[64, 48, 40], [70, 50, 90]], "tb": True},
        # The interpreter's exhaustive_search keeps the config that ran fastest on the CPU (the
        # biggest tiles) and only its output is compared, so some problems here are several
        # 256x256 tiles; `sms` (interpreter only, _cpu_cuda.emulate) is the number of programs
        # sharing out the tiles of all problems, so each program walks several tiles and groups.
        {"g": [[300, 270, 70], [20, 130, 300], [130, 520, 50]], "sms": 4},
        {"g": [[300, 270, 70], [20, 130, 300], [130, 520, 50]], "tb": True, "sms": 3},
    ],
    "gpu_cases": [
        {"g": [[1000, 1023, 777], [333, 2050, 1500], [17, 300, 4000], [2048, 512, 64]]},
        {"g": [[1000, 1023, 777], [333, 2050, 1500], [17, 300, 4000], [2048, 512, 64]], "tb": True},
    ],
    "bench_cases": [
        {"g": [[2048, 2048, 2048]] * 8},
        {"g": [[4096, 4096, 4096]] * 8},
    ],
    "flops": "flop_count",
    "bound": "compute",
    "peers": {"torch loop of matmuls": "torch_loop"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (`cc`, `sms` keys)
    g = torch.Generator().manual_seed(seed)
    tb = case.get("tb", False)
    group_A, group_B = [], []
    for M, N, K in case["g"]:
        group_A.append(torch.randn(M, K, generator=g).to(dtype).to(device))
        group_B.append(torch.randn((N, K) if tb else (K, N), generator=g).to(dtype).to(device))
    return (group_A, group_B, True, tb)


def reference(group_A, group_B, static_persistent=True, transpose_b=False):
    return [(a.float() @ (b.t() if transpose_b else b).float()).to(a.dtype) for a, b in zip(group_A, group_B)]


def torch_loop(group_A, group_B, static_persistent=True, transpose_b=False):
    return [a @ (b.t() if transpose_b else b) for a, b in zip(group_A, group_B)]


def flop_count(case, dtype):
    return sum(2 * M * N * K for M, N, K in case["g"])
