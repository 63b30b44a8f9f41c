"""Spec for TileGym's split-KV decode reduction (`tilegym.ops.cutile.splitk_reduce.splitk_reduce`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/splitk_reduce.py --spec tests/gpu/tilegym/splitk_reduce_spec.py --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases
next to the same reduction in plain torch.)  TileGym is fetched, never committed: its `src` must be
importable.

The entry is TileGym's own `splitk_reduce(attn_splitk_out, lse_splitk_out, attn_out, S_kv)`, the
second step of split-KV decode attention (flash_decode, mla_decoding_split_kv, attention_sink_decode
and gemma_attention_decode all call it): attn_splitk_out [B, H, S, D] holds each KV split's already
normalised partial output (in the query's dtype), lse_splitk_out [B, H, S] (fp32) each split's
log-sum-exp *in base 2* (the decode kernels scale scores by 1/ln 2, use exp2, and store
m + log2(l)).  The result, written into attn_out [B, H, D] (in its dtype) and also returned, is

    attn_out[b, h] = sum_s 2^lse[b, h, s] * o[b, h, s] / sum_s 2^lse[b, h, s]

computed with the row maximum of lse subtracted.  S, the number of splits, is attn_splitk_out's
third dimension; `S_kv` is passed to the kernel as a constant but never used (a `KV` case key sets
it; default S * 256).  One program per (batch, head, 128-wide slice of D): the splits are padded to
a power of two (lse with -inf, outputs with 0) and D to min(128, next_pow2(D)), so non-power-of-two
S and D (and D > 128: several slices, the last ragged) are covered below.  The weighted sum is an
mma (USE_DOT) once the padded split count reaches 16 on sm_90+ (4 below sm_90; the `cc` key picks
the emulated capability on the CPU), an elementwise product and sum otherwise.

Inputs: partial outputs ~ N(0, 1); lse = `offset` (default 8) + `spread` (default 2) x N(0, 1),
plus `peak` added to one random split per (b, h) (that split then carries almost all the weight).
attn_out starts as NaN, so an element the kernel fails to write shows up.  attn_out is compared
both as the returned tensor and as a mutated input.

Split counts of the bench cases are TileGym's own on an H200 (132 SMs): fmha_decode with batch 1
and 8 KV heads makes 132 // 8 -> 16 splits (KV 4096 and 16384 alike: the split length grows);
batch 32 with one KV head (MQA), and mla_decoding_split_kv at batch 32, make 4; mla_decoding_split_kv
at batch 1 and KV 16384 makes 128 splits of 128 (head_dim 512, 16 heads as in TileGym's MLA bench).
Memory-bound: the partial outputs are read once.
"""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "splitk_reduce",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["bfloat16", "float16", "float32"],
    # CPU interpreter (emulated sm_90 unless `cc` says otherwise: USE_DOT when next_pow2(S) >= 16).
    "cases": [
        {"B": 1, "H": 2, "S": 1, "D": 16},                      # one split: a copy
        {"B": 2, "H": 3, "S": 3, "D": 16},                      # splits padded 3 -> 4, elementwise path
        {"B": 1, "H": 2, "S": 5, "D": 24},                      # ragged D (tile 32), splits 5 -> 8
        {"B": 1, "H": 2, "S": 13, "D": 16, "spread": 12.0},     # 13 -> 16: mma path; weights span ~2^-60..1
        {"B": 2, "H": 2, "S": 16, "D": 32, "peak": 30.0},       # one split per row dominates (2^30)
        {"B": 1, "H": 2, "S": 5, "D": 16, "cc": "8.0"},         # sm_80 threshold 4: mma path with 8
        {"B": 1, "H": 1, "S": 4, "D": 160, "offset": 90.0},     # two D slices (128 + ragged 32); large lse
    ],
    "gpu_cases": [
        {"B": 3, "H": 32, "S": 16, "D": 128},
        {"B": 4, "H": 20, "S": 7, "D": 80, "spread": 8.0},
        {"B": 5, "H": 8, "S": 33, "D": 192, "peak": 20.0},
        {"B": 2, "H": 16, "S": 128, "D": 512, "offset": -40.0},
    ],
    "bench_cases": [
        {"B": 1, "H": 32, "S": 16, "D": 128, "KV": 16384},     # fmha_decode, 8 KV heads
        {"B": 32, "H": 32, "S": 4, "D": 128, "KV": 4096},      # fmha_decode MQA / MLA split-KV at batch 32
        {"B": 1, "H": 16, "S": 128, "D": 512, "KV": 16384},    # mla_decoding_split_kv at batch 1
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"torch (fp32 math)": "torch_peer"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the capability the host code sees (USE_DOT threshold)
    g = torch.Generator().manual_seed(seed)
    B, H, S, D = case["B"], case["H"], case["S"], case["D"]
    o = torch.randn(B, H, S, D, generator=g)
    lse = case.get("offset", 8.0) + case.get("spread", 2.0) * torch.randn(B, H, S, generator=g)
    if case.get("peak"):
        idx = torch.randint(0, S, (B, H, 1), generator=g)
        lse.scatter_add_(-1, idx, torch.full((B, H, 1), float(case["peak"])))
    attn_out = torch.full((B, H, D), float("nan"), dtype=dtype)
    S_kv = case.get("KV", S * 256)
    return (o.to(dtype).to(device), lse.to(torch.float32).to(device), attn_out.to(device), S_kv)


def reference(attn_splitk_out, lse_splitk_out, attn_out, S_kv, **kwargs):
    """Base-2 log-sum-exp weighted mean of the splits, in fp32, written into attn_out."""
    lse = lse_splitk_out.float()
    w = torch.exp2(lse - lse.amax(dim=-1, keepdim=True))            # [B, H, S]
    num = (w.unsqueeze(-1) * attn_splitk_out.float()).sum(dim=-2)   # [B, H, D]
    attn_out.copy_((num / w.sum(dim=-1, keepdim=True)).to(attn_out.dtype))
    return attn_out


def torch_peer(attn_splitk_out, lse_splitk_out, attn_out, S_kv, **kwargs):
    return reference(attn_splitk_out, lse_splitk_out, attn_out, S_kv)


def bytes_moved(case, dtype):
    """Partial outputs and lse read once, attn_out written once."""
    es = torch.empty((), dtype=dtype).element_size()
    B, H, S, D = case["B"], case["H"], case["S"], case["D"]
    return B * H * S * D * es + B * H * S * 4 + B * H * D * es
