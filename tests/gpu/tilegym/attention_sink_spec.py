"""Spec for TileGym's prefill attention with sinks (`tilegym.ops.cutile.attention_sink.attention_sink`).

    cd /work/main && TRITON_INTERPRET=1 PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/attention_sink.py --spec tests/gpu/tilegym/attention_sink_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases.)
TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `attention_sink(query, key, value, sinks, sm_scale, sliding_window,
start_q)` (the GPT-OSS prefill path): query [B, S, Hkv, G, D] (query head h = kv_head * G + g),
key/value [B, KV, Hkv, D], sinks [Hkv * G] (one learned logit per query head), start_q the position
of the first query in the KV cache (an int here: TileGym moves a tensor one to "cuda"). It returns
[B, S, Hkv * G * D] in q's dtype. Query i sits at position p = start_q + i and attends the keys
j <= p (j < KV), and with a sliding window W only j >= p - W + 1; the sink is a virtual key with
logit sink_h and a zero value (denominator only):

    out_i = sum_j exp(s * q_i . k_j) v_j / (sum_j exp(s * q_i . k_j) + exp(sink_h)).

The kernel loads K as (1, 1, D, TILE_N) tiles with order=(0, 1, 3, 2), then `k = k.reshape(...)`:
the method spelling the translator recognizes as a squeezed load since the eighteenth session
(one 2-D load; a tensor descriptor where legal and the launcher takes one, which at the bench
shapes' grids it does not: docs/decisions/006-squeezed-loads.md). Host code
transposes q, k and v to [B, H, S, D] with `.contiguous()` and autotunes 18 (TILE_M, TILE_N,
occupancy) configs on sm_90 (TILE_M 256/128/64, TILE_N 128/64); the CPU emulates sm_90, so
the interpreter runs all 18 per case: the cases are small. Compute-bound (TFLOP/s over the
attended pairs, see flop_count).
"""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "attention_sink",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["bfloat16", "float16"],
    "cases": [
        # one ragged query tile and key tile, 2 KV heads
        {"B": 1, "S": 40, "Hkv": 2, "G": 1, "D": 16},
        # grouped queries (G=2), a cache before the queries (start_q 32), sliding window 20
        {"B": 1, "S": 24, "Hkv": 1, "G": 2, "D": 16, "start": 32, "window": 20},
        # batch 2, 70 queries: two query tiles at TILE_M 64, key tiles past the window's start
        {"B": 2, "S": 70, "Hkv": 1, "G": 1, "D": 32, "window": 50},
    ],
    "gpu_cases": [
        {"B": 2, "S": 1000, "Hkv": 4, "G": 2, "D": 128},
        {"B": 1, "S": 700, "Hkv": 8, "G": 8, "D": 64, "start": 500, "window": 128},
        {"B": 3, "S": 777, "Hkv": 2, "G": 4, "D": 64, "window": 300},
    ],
    # GPT-OSS-like prefill: 64 query heads over 8 KV heads, head_dim 64, with and without the
    # 128-key sliding window of its windowed layers
    "bench_cases": [
        {"B": 1, "S": 4096, "Hkv": 8, "G": 8, "D": 64},
        {"B": 1, "S": 4096, "Hkv": 8, "G": 8, "D": 64, "window": 128},
    ],
    "bound": "compute",
    "flops": "flop_count",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, 132 SMs)
    g = torch.Generator().manual_seed(seed)
    B, S, Hkv, G, D = case["B"], case["S"], case["Hkv"], case["G"], case["D"]
    KV = case.get("start", 0) + S
    q = torch.randn(B, S, Hkv, G, D, generator=g)
    k = torch.randn(B, KV, Hkv, D, generator=g)
    v = torch.randn(B, KV, Hkv, D, generator=g)
    # sink logits around log(keys a query attends): the sink takes a sizeable share of the mass
    sinks = torch.randn(Hkv * G, generator=g) * 2 + math.log(min(KV, case.get("window") or KV))
    return (q.to(dtype).to(device), k.to(dtype).to(device), v.to(dtype).to(device),
            sinks.to(dtype).to(device), 1.0 / D ** 0.5, case.get("window"), case.get("start", 0))


def reference(query, key, value, sinks, sm_scale=0.125, sliding_window=None, start_q=0, **kwargs):
    B, S, Hkv, G, D = query.shape
    KV = key.shape[1]
    q = query.float().permute(0, 2, 3, 1, 4)                # [B, Hkv, G, S, D]
    k = key.float().permute(0, 2, 1, 3)                     # [B, Hkv, KV, D]
    v = value.float().permute(0, 2, 1, 3)
    logits = torch.einsum("bhgsd,bhnd->bhgsn", q, k) * sm_scale
    p = start_q + torch.arange(S, device=query.device)[:, None]
    j = torch.arange(KV, device=query.device)[None, :]
    allowed = j <= p
    if sliding_window:
        allowed = allowed & (j > p - sliding_window)
    logits = logits.masked_fill(~allowed, float("-inf"))
    sink_col = sinks.float().reshape(1, Hkv, G, 1, 1).expand(B, Hkv, G, S, 1)
    probs = torch.softmax(torch.cat([logits, sink_col], dim=-1), dim=-1)[..., :KV]
    out = torch.einsum("bhgsn,bhnd->bhgsd", probs, v)       # [B, Hkv, G, S, D]
    return out.permute(0, 3, 1, 2, 4).reshape(B, S, Hkv * G * D).to(query.dtype)


def flop_count(case, dtype):
    """2 * 2 * D flops per attended (query, key) pair (q . k and p * v)."""
    start, w = case.get("start", 0), case.get("window")
    pairs = sum(min(start + i + 1, w) if w else start + i + 1 for i in range(case["S"]))
    return 4 * case["B"] * case["Hkv"] * case["G"] * pairs * case["D"]
