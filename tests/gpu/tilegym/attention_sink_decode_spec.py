"""Spec for TileGym's split-KV decode attention with sinks
(`tilegym.ops.cutile.attention_sink_decode.attention_sink_decode`).

    cd /work/main && TRITON_INTERPRET=1 PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/attention_sink_decode.py --spec tests/gpu/tilegym/attention_sink_decode_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases.)
TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `attention_sink_decode(query, key, value, sinks, sm_scale,
sliding_window, start_q, kv_len_per_split)` (the GPT-OSS decode path of
tilegym.ops.attn_interface): one query token, query [B, 1, Hkv, G, D] (query head h = kv_head * G + g),
key/value [B, KV, Hkv, D] (sequence before heads), sinks [Hkv * G] (one learned logit per query
head, in q's dtype, or None), start_q a one-element integer tensor: the query's position in the KV
cache.  It returns [B, 1, Hkv * G * D] in q's dtype.  The math (what `reference` computes in fp32):

    logit_j = sm_scale * q . k_j   for the allowed keys j: j <= start_q (causal) and, with a
              sliding window W, j >= start_q - W + 1;
    out     = sum_j exp(logit_j) v_j / (sum_j exp(logit_j) + exp(sink_h)),

i.e. the sink is a virtual key with logit sink_h and a zero value: it only adds to the softmax
denominator (sinks=None: plain softmax).  Keys past start_q are ignored even when KV is longer.

Host code: key and value are transposed to [B, Hkv, KV, D] with `.contiguous()` (a torch copy of
both on every call unless Hkv == 1); the KV splits are sized from the SM count (NUM_SMS // (B * Hkv)
splits, each a power of two >= 128 keys) or from `kv_len_per_split` (the `split` key); the kernel
(grid B x Hkv x splits, BLOCK_N = 128, query-group tile max(8, next_pow2(G))) adds the sink to the
first split's denominator and LSE, stores the per-split LSE rounded to q's dtype (at bf16 this
moves the split weights by up to ~2% against the fp32 reference), and TileGym's splitk_reduce
merges the splits (the translation imports the cuTile reduce, C2T208; verify rebinds it to its
translation); with >= 16 splits (sm_90) the reduce takes its mma variant.  G == 8 stores with ct.store, other G with a scatter; G > 8 widens
the query-group tile (G = 16 below).  The `sms` key emulates fewer SMs on the CPU (longer splits).

Cases stay clear of two behaviours of the original that do not match the math (both reproduced
on the interpreter when this file was written: the translation computes what the source says):
- sliding window with splits longer than 128 keys: a split whose range the window start cuts after
  its first 128-key tile starts its loop at the window's tile but still runs all of its tiles, so
  it also covers the first tiles of the next split (masked only by KV, causality and the window,
  not by the split's end): those keys are counted twice whenever the window reaches past the
  split's end (e.g. KV=300, split=256, window=100: keys 256..299 twice).  Reachable in the
  auto-sized mode on the GPU too (132 SMs, B=1, Hkv=8: 256-key splits from KV 2049 on).  Window
  cases here use 128-key splits, or the window inside one split or starting on a split boundary;
- sliding window without sinks when the whole first split lies before the window: split 0 has
  m = -inf and sink -inf, so exp2(-inf - -inf) = NaN poisons the output.  Windowed cases without
  sinks keep part of split 0 inside the window.
Also kv_len_per_split < 128 (documented as >= BLOCK_N) double-counts: not used.

Bench sizes follow flash_decode_spec.py (batch 1, KV 4096 and 16384, 32 query heads over 8 KV heads,
head_dim 128; batch 16 rather than 32, see bench_cases) and TileGym's decode perf case, with sinks,
no window; memory-bound (GB/s over the compulsory bytes, see
bytes_moved).
"""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "attention_sink_decode",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["bfloat16", "float16"],
    # CPU interpreter, 132 emulated SMs unless `sms`: splits = NUM_SMS // (B * Hkv), each
    # max(128, next_pow2(ceil(KV / splits))) keys.  `back`: start_q = KV - 1 - back.
    "cases": [
        # one split, one ragged tile, scatter store (G=2 < 8)
        {"B": 1, "Hkv": 1, "G": 2, "KV": 40, "D": 16},
        # 3 splits of 128 (padded to 4 in the reduce), ct.store path (G=8), batch 2
        {"B": 2, "Hkv": 2, "G": 8, "KV": 300, "D": 32},
        # no sinks (plain softmax), 2 splits, int64 start_q (as attn_interface builds it)
        {"B": 1, "Hkv": 2, "G": 4, "KV": 200, "D": 16, "sinks": False, "pos_dtype": "int64"},
        # G=16: query-group tile 16; 2 splits of 256 keys (2 tiles each)
        {"B": 1, "Hkv": 1, "G": 16, "KV": 260, "D": 16, "split": 256},
        # sliding window 100: split 0 lies before the window (sink only), split 1 cut mid-tile
        {"B": 1, "Hkv": 2, "G": 2, "KV": 300, "D": 16, "window": 100},
        # window without sinks, window start inside split 0
        {"B": 1, "Hkv": 1, "G": 4, "KV": 300, "D": 16, "window": 200, "sinks": False},
        # query before the end of the cache: keys past start_q (all of split 2) masked
        {"B": 1, "Hkv": 1, "G": 8, "KV": 300, "D": 16, "back": 120},
        # window + earlier query, 256-key splits, window start on the split boundary (256)
        {"B": 1, "Hkv": 1, "G": 8, "KV": 400, "D": 16, "split": 256, "window": 40, "back": 100},
        # 2 emulated SMs: 2 splits of 512 keys (4 tiles each), the second ragged
        {"B": 1, "Hkv": 1, "G": 8, "KV": 700, "D": 16, "sms": 2},
        # 17 splits of 128: the reduce's mma variant (USE_DOT, >= 16 splits on sm_90)
        {"B": 1, "Hkv": 1, "G": 8, "KV": 2100, "D": 16},
        # GPT-OSS-like: head_dim 64, window 128 across 2 splits of 128
        {"B": 1, "Hkv": 2, "G": 8, "KV": 150, "D": 64, "window": 128},
    ],
    "gpu_cases": [
        # H200, 132 SMs: 132 // 24 = 5 -> 4 splits of 256
        {"B": 3, "Hkv": 8, "G": 8, "KV": 1000, "D": 64},
        # 132 // 8 = 16 -> 10 splits of 512; window 128 inside the last split
        {"B": 2, "Hkv": 4, "G": 4, "KV": 5000, "D": 128, "window": 128},
        # 9 splits of 512, the last two past start_q (empty)
        {"B": 1, "Hkv": 8, "G": 2, "KV": 4321, "D": 128, "sinks": False, "back": 1000},
        # 128-key splits (safe with a window), G=16: (TILE_N, D) @ (D, 16) products, which Triton
        # 3.6 computed wrongly on the H200 until the translation computed them transposed
        # (docs/decisions/010-narrow-products-transposed.md); also G=32 and D=64 (where the
        # wrong code faulted: an illegal memory access)
        {"B": 1, "Hkv": 4, "G": 16, "KV": 777, "D": 128, "split": 128, "window": 300},
        {"B": 1, "Hkv": 2, "G": 32, "KV": 777, "D": 128, "split": 128},
        {"B": 1, "Hkv": 4, "G": 16, "KV": 777, "D": 64, "split": 128},
    ],
    # B * Hkv stays at most the SM count: beyond it TileGym's host code computes 0 splits and
    # divides by zero (NUM_SMS // (B * Hkv) == 0; both sides raised ZeroDivisionError at B=32
    # Hkv=8 on the H200), unless kv_len_per_split is given
    "bench_cases": [
        {"B": 1, "Hkv": 8, "G": 4, "KV": 4096, "D": 128},
        {"B": 1, "Hkv": 8, "G": 4, "KV": 16384, "D": 128},
        # TileGym's own decode perf case (tests/ops/test_attention_sink.py: 10919 keys, G=8, D=64)
        {"B": 1, "Hkv": 8, "G": 8, "KV": 10919, "D": 64},
        # batch 16: 132 // 128 = 1 split of 16384 keys per (batch, KV head)
        {"B": 16, "Hkv": 8, "G": 4, "KV": 16384, "D": 128},
        # 16 query heads per KV head: the (b^T a^T)^T products of _c2t_mma (mma.sync, not wgmma)
        {"B": 4, "Hkv": 2, "G": 16, "KV": 16384, "D": 128},
    ],
    "bound": "memory",
    "bytes": "bytes_moved",
}


def _query_pos(case):
    return case["KV"] - 1 - case.get("back", 0)


def _attended(case):
    """Number of keys the query attends to (causal, then the sliding window)."""
    pos = _query_pos(case)
    lo = max(0, pos - case["window"] + 1) if case.get("window") else 0
    return pos + 1 - lo


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, 132 SMs)
    g = torch.Generator().manual_seed(seed)
    B, Hkv, G, KV, D = case["B"], case["Hkv"], case["G"], case["KV"], case["D"]
    # q of std 1.5: a more peaked softmax than std 1 (outputs of a few tenths rather than ~0.1, so
    # an error of a few percent shows above bf16's atol); not more: the original rounds each
    # split's LSE to q's dtype, which at bf16 moves the split weights by up to ~2% and, with std 2,
    # already brings some seeds to the tolerance's edge against the fp32 reference
    q = torch.randn(B, 1, Hkv, G, D, generator=g) * 1.5
    k = torch.randn(B, KV, Hkv, D, generator=g)
    v = torch.randn(B, KV, Hkv, D, generator=g)
    sinks = None
    if case.get("sinks", True):
        # sink logits around log(attended keys): the sink takes a sizeable share of each head's mass
        sinks = (torch.randn(Hkv * G, generator=g) * 2 + math.log(_attended(case))).to(dtype).to(device)
    start_q = torch.tensor([_query_pos(case)], dtype=getattr(torch, case.get("pos_dtype", "int32")), device=device)
    scale = 1.0 / D ** 0.5
    return (q.to(dtype).to(device), k.to(dtype).to(device), v.to(dtype).to(device), sinks, scale,
            case.get("window"), start_q, case.get("split"))


def reference(query, key, value, sinks, sm_scale=0.125, sliding_window=None, start_q=0,
              kv_len_per_split=None, **kwargs):
    B, _, Hkv, G, D = query.shape
    KV = key.shape[1]
    q = query.float().reshape(B, Hkv, G, D)
    k = key.float().permute(0, 2, 1, 3)                    # [B, Hkv, KV, D]
    v = value.float().permute(0, 2, 1, 3)
    logits = torch.einsum("bhgd,bhnd->bhgn", q, k) * sm_scale
    pos = int(start_q.reshape(-1)[0]) if torch.is_tensor(start_q) else int(start_q)
    j = torch.arange(KV, device=query.device)
    allowed = j <= pos
    if sliding_window:
        allowed = allowed & (j > pos - sliding_window)
    logits = logits.masked_fill(~allowed, float("-inf"))
    if sinks is not None:
        # the sink: one more logit per head whose value row is zero (denominator only)
        sink_col = sinks.float().reshape(1, Hkv, G, 1).expand(B, Hkv, G, 1)
        probs = torch.softmax(torch.cat([logits, sink_col], dim=-1), dim=-1)[..., :KV]
    else:
        probs = torch.softmax(logits, dim=-1)
    out = torch.einsum("bhgn,bhnd->bhgd", probs, v)
    return out.reshape(B, 1, Hkv * G * D).to(query.dtype)


def bytes_moved(case, dtype):
    """Compulsory traffic: the attended keys and values read once, q and sinks read, the output
    written.  Not counted: the per-split partials, and the host's `.contiguous()` transposes of
    key and value (a full read and write of both per call when Hkv > 1)."""
    es = torch.empty((), dtype=dtype).element_size()
    hq = case["Hkv"] * case["G"]
    kv = 2 * case["B"] * case["Hkv"] * _attended(case) * case["D"]
    qo = 2 * case["B"] * hq * case["D"]
    sinks = hq if case.get("sinks", True) else 0
    return (kv + qo + sinks) * es
