"""Spec for TileGym's split-KV decode attention (`tilegym.ops.cutile.flash_decode.fmha_decode`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/flash_decode.py --spec tests/gpu/tilegym/flash_decode_spec.py --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases
next to torch SDPA.)  TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `fmha_decode(q, k, v, sm_scale, kv_len_per_split)`: one query token per
head, q [B, Hq, 1, D], k/v [B, Hkv, KV, D].  It sizes the KV splits from the SM count (or from
`kv_len_per_split`, the `split` key), launches `_attention_decode_kernel_grouped` (grid
B x Hkv x splits) and then `splitk_reduce` (tilegym.ops.cutile.splitk_reduce), which merges the
splits by their log-sum-exp; with >= 16 splits (sm_90) the reduce uses its mma variant (USE_DOT).
The decode kernel stores with ct.store when Hq/Hkv == 8 (its query-group tile) and with a scatter
otherwise.  Performance anchor A11 of dev-corpus.md 5c (memory-bound: KV streaming, GB/s).

Known translator gap (when this spec was written): the translation keeps
`from tilegym.ops.cutile.splitk_reduce import splitk_reduce`, i.e. it calls the cuTile reduce, so
under the interpreter every case fails with cuTile's "Stream is required, got None", and a GPU run
times a Triton decode kernel followed by the cuTile reduce kernel.
"""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "fmha_decode",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["bfloat16"],
    # CPU interpreter. TILE_N is fixed at 128 and a split is at least one tile, so KV > 128 is
    # needed for several splits: KV=200 gives 2 (ragged last tile), KV=2000 gives 16 (the
    # mma variant of splitk_reduce), split=128 with KV=300 gives 3 (padded to 4 in the reduce).
    "cases": [
        {"B": 1, "Hq": 2, "Hkv": 1, "KV": 40, "D": 16},
        {"B": 1, "Hq": 2, "Hkv": 2, "KV": 200, "D": 16},
        {"B": 1, "Hq": 8, "Hkv": 1, "KV": 300, "D": 16, "split": 128},
        {"B": 1, "Hq": 2, "Hkv": 1, "KV": 2000, "D": 16},
    ],
    "gpu_cases": [
        {"B": 3, "Hq": 32, "Hkv": 8, "KV": 1000, "D": 128},
        {"B": 2, "Hq": 16, "Hkv": 16, "KV": 5000, "D": 64},
        {"B": 1, "Hq": 8, "Hkv": 1, "KV": 777, "D": 128, "split": 256},
        # query-group tiles of 16 and 32: (TILE_N, D) @ (D, 16|32) products, which Triton 3.6
        # computed wrongly on the H200 until the translation computed them transposed
        # (docs/decisions/010-narrow-products-transposed.md)
        {"B": 2, "Hq": 32, "Hkv": 2, "KV": 1000, "D": 128},
        {"B": 1, "Hq": 64, "Hkv": 2, "KV": 1000, "D": 128},
    ],
    "bench_cases": [
        {"B": 1, "Hq": 32, "Hkv": 8, "KV": 4096, "D": 128},
        {"B": 1, "Hq": 32, "Hkv": 8, "KV": 16384, "D": 128},
        {"B": 32, "Hq": 32, "Hkv": 8, "KV": 4096, "D": 128},
        {"B": 32, "Hq": 32, "Hkv": 8, "KV": 16384, "D": 128},
        # 16 query heads per KV head: the (b^T a^T)^T products of _c2t_mma (mma.sync, not wgmma)
        {"B": 8, "Hq": 32, "Hkv": 2, "KV": 16384, "D": 128},
    ],
    "bound": "memory",
    "bytes": "bytes_moved",
    "peers": {"torch SDPA": "sdpa_peer"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, 132 SMs)
    g = torch.Generator().manual_seed(seed)
    B, Hq, Hkv, KV, D = case["B"], case["Hq"], case["Hkv"], case["KV"], case["D"]
    q = torch.randn(B, Hq, 1, D, generator=g)
    k = torch.randn(B, Hkv, KV, D, generator=g)
    v = torch.randn(B, Hkv, KV, D, generator=g)
    scale = 1.0 / D ** 0.5
    return (q.to(dtype).to(device), k.to(dtype).to(device), v.to(dtype).to(device), scale, case.get("split"))


def reference(q, k, v, sm_scale, kv_len_per_split=None, **kwargs):
    out = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), scale=sm_scale, enable_gqa=k.shape[1] != q.shape[1])
    return out.to(q.dtype)


def sdpa_peer(q, k, v, sm_scale, kv_len_per_split=None, **kwargs):
    return torch.nn.functional.scaled_dot_product_attention(
        q, k, v, scale=sm_scale, enable_gqa=k.shape[1] != q.shape[1])


def bytes_moved(case, dtype):
    """K and V read once, q read and the output written once (the per-split partials are not
    compulsory traffic)."""
    es = torch.empty((), dtype=dtype).element_size()
    kv = 2 * case["B"] * case["Hkv"] * case["KV"] * case["D"]
    qo = 2 * case["B"] * case["Hq"] * case["D"]
    return (kv + qo) * es
