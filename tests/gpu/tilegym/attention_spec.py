"""Spec for TileGym's fused attention forward (`tilegym.ops.cutile.attention.tile_fmha`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/attention.py --spec tests/gpu/tilegym/attention_spec.py --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases
next to torch SDPA.)  TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `tile_fmha(q, k, v, scaling, is_causal)`: it picks the tile configs
from the device capability, autotunes them with cuda.tile.tune.exhaustive_search (unless
TILEGYM_DISABLE_AUTOTUNE=1) and launches `_fmha_kernel`; q_len == k_len here (input_pos 0).
Causal on and off are separate cases (`causal` key); `Hkv` < `H` is grouped-query attention.
Performance anchor A2 of dev-corpus.md 5c (compute-bound, reported in TFLOP/s).
"""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "tile_fmha",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["bfloat16", "float16"],
    # CPU interpreter: tiny. The sm_90 configs (all four run by the autotune search, then the
    # best once more) have TILE_M 128/256 and TILE_N 128, so S=40 and S=64 are one ragged tile
    # (EVEN_K False: the key-bound mask and the causal mask both apply). Multi-tile loops
    # (mask_start, the causal trip count) are left to gpu_cases.
    "cases": [
        {"B": 1, "H": 2, "Hkv": 2, "S": 40, "D": 16, "causal": False},
        {"B": 1, "H": 2, "Hkv": 2, "S": 40, "D": 16, "causal": True},
        {"B": 1, "H": 2, "Hkv": 1, "S": 64, "D": 16, "causal": True},
    ],
    "gpu_cases": [
        {"B": 2, "H": 8, "Hkv": 8, "S": 1000, "D": 128, "causal": True},
        {"B": 1, "H": 16, "Hkv": 4, "S": 777, "D": 64, "causal": False},
        {"B": 3, "H": 4, "Hkv": 4, "S": 2049, "D": 128, "causal": True},
    ],
    "bench_cases": [
        {"B": 4, "H": 32, "Hkv": 32, "S": 1024, "D": 128, "causal": True},
        {"B": 4, "H": 32, "Hkv": 32, "S": 1024, "D": 128, "causal": False},
        {"B": 4, "H": 32, "Hkv": 32, "S": 4096, "D": 128, "causal": True},
        {"B": 4, "H": 32, "Hkv": 32, "S": 4096, "D": 128, "causal": False},
    ],
    "bound": "compute",
    "flops": "flop_count",
    "peers": {"torch SDPA": "sdpa_peer"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, 132 SMs)
    g = torch.Generator().manual_seed(seed)
    B, H, Hkv, S, D = case["B"], case["H"], case.get("Hkv", case["H"]), case["S"], case["D"]
    q = torch.randn(B, H, S, D, generator=g)
    k = torch.randn(B, Hkv, S, D, generator=g)
    v = torch.randn(B, Hkv, S, D, generator=g)
    scale = 1.0 / D ** 0.5
    return (q.to(dtype).to(device), k.to(dtype).to(device), v.to(dtype).to(device), scale, case["causal"])


def reference(q, k, v, scaling=None, is_causal=True, **kwargs):
    out = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=is_causal, scale=scaling,
        enable_gqa=k.shape[1] != q.shape[1])
    return out.to(q.dtype)


def sdpa_peer(q, k, v, scaling=None, is_causal=True, **kwargs):
    return torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=is_causal, scale=scaling, enable_gqa=k.shape[1] != q.shape[1])


def flop_count(case, dtype):
    f = 4 * case["B"] * case["H"] * case["S"] * case["S"] * case["D"]
    return f // 2 if case["causal"] else f
