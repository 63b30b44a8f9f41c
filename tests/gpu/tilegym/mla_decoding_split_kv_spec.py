"""Spec for TileGym's split-KV MLA decoding (`tilegym.ops.cutile.mla_decoding_split_kv.mla_decoding_split_kv`).

    cd /work/main && TRITON_INTERPRET=1 PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/mla_decoding_split_kv.py --spec tests/gpu/tilegym/mla_decoding_split_kv_spec.py --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases
next to a plain-torch MLA decode.)  TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `mla_decoding_split_kv(q, qpe, kv, kpe, sm_scale, kv_len_per_split)`:
one query token per head with absorbed latent attention, q [B, H, D], qpe [B, H, Dpe], kv [B, KV, D]
(keys and values are the same latent tensor), kpe [B, KV, Dpe]; it returns out [B, H, D] in q's
dtype only (no lse, unlike the non-split `mla_decoding`).  D and Dpe must be powers of two (host
asserts).  `sm_scale=None` means 1/sqrt(D + Dpe) (the `scale` case key: "none" passes None).

The host picks the split length (unless `kv_len_per_split`, the `split` key, is given; a power of
two >= 128):  next_pow2(KV // max(1, SMS // B)), at least TILE_N = 128, so with the default 132
SMs every small CPU shape gets 128-long splits (one tile each); the `sms` key (emulated SM count,
tests/gpu/tilegym/_cpu_cuda.py) lengthens them so that a split runs several tiles and its online
softmax rescales.  It launches `_naive_absorb_mla_transpose_kernel` on (ceil(H / 16), B, splits),
each program writing its split's normalised partial output [B, H, S, D] (q's dtype) and base-2
lse [B, H, S] (fp32), then `splitk_reduce` (tilegym.ops.cutile.splitk_reduce) merges the splits
(its mma variant once next_pow2(S) >= 16 on sm_90).  The key mask (-1e6 before scaling) is only
compiled when KV % 128 != 0 (EVEN_N) and only applied to the last, ragged tile.

Data: N(0, 1) latents and rope parts, the query parts multiplied by `qs` (default 2), so scores
have a spread of about `qs` and the softmax is peaked (a handful of keys carry the weight, and the
per-split maxima differ): a flat softmax (TileGym's own test data, normal(0.3, 0.2) / (0.3, 0.1),
the `data: "tilegym"` case) averages every output towards 0.3 and hides lost or misweighted splits.
Bench shapes are mla_decoding_spec.py's (TileGym's bench_mla_decoding.py, which itself times this
split-KV op: batch 1, 16 heads, d_pe 64, head_dim 512 / 128, KV 4096 / 16384, plus batch 128);
memory-bound (GB/s): q, qpe, kv and kpe read once and out written (the per-split partials are not
counted: they are not compulsory traffic).
"""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "mla_decoding_split_kv",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float16", "bfloat16"],
    # CPU interpreter: 132 emulated SMs unless `sms` says otherwise; splits = ceil(KV / split length).
    "cases": [
        {"B": 1, "H": 2, "KV": 40, "D": 16, "Dpe": 16},                 # one split, one masked tile
        {"B": 1, "H": 2, "KV": 300, "D": 16, "Dpe": 16},                # 3 splits of 128, last ragged (44)
        {"B": 2, "H": 20, "KV": 256, "D": 32, "Dpe": 16},               # EVEN_N, 2 splits; 2 head blocks, 2nd ragged
        {"B": 1, "H": 3, "KV": 300, "D": 16, "Dpe": 16, "sms": 2},      # split 256: 2 tiles in split 0, then 44
        {"B": 3, "H": 2, "KV": 600, "D": 16, "Dpe": 32, "split": 256},  # explicit split: 3 splits, last 88
        {"B": 1, "H": 2, "KV": 500, "D": 16, "Dpe": 16, "sms": 1, "scale": "none"},  # one split of 4 tiles
        {"B": 1, "H": 2, "KV": 2000, "D": 16, "Dpe": 16},               # 16 splits: the reduce's mma path
        {"B": 2, "H": 2, "KV": 200, "D": 16, "Dpe": 16, "data": "tilegym"},  # TileGym's test distribution
    ],
    "gpu_cases": [
        {"B": 2, "H": 32, "KV": 1000, "D": 512, "Dpe": 64},
        {"B": 3, "H": 16, "KV": 4097, "D": 128, "Dpe": 64},
        {"B": 1, "H": 40, "KV": 2048, "D": 512, "Dpe": 64, "split": 512},   # attn_interface's split
        {"B": 4, "H": 16, "KV": 777, "D": 256, "Dpe": 32, "sms": 8, "data": "tilegym"},
    ],
    "bench_cases": [
        {"B": 1, "H": 16, "KV": 4096, "D": 512, "Dpe": 64},
        {"B": 1, "H": 16, "KV": 16384, "D": 512, "Dpe": 64},
        {"B": 1, "H": 16, "KV": 16384, "D": 128, "Dpe": 64},
        {"B": 128, "H": 16, "KV": 4096, "D": 512, "Dpe": 64},
    ],
    "bound": "memory",
    "bytes": "bytes_moved",
    "peers": {"torch (q's dtype)": "torch_peer"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, `sms` SMs)
    g = torch.Generator().manual_seed(seed)
    B, H, KV, D, Dpe = case["B"], case["H"], case["KV"], case["D"], case["Dpe"]
    q = torch.randn(B, H, D, generator=g)
    qpe = torch.randn(B, H, Dpe, generator=g)
    kv = torch.randn(B, KV, D, generator=g)
    kpe = torch.randn(B, KV, Dpe, generator=g)
    if case.get("data") == "tilegym":
        q, qpe, kv, kpe = q * 0.2 + 0.3, qpe * 0.1 + 0.3, kv * 0.2 + 0.3, kpe * 0.1 + 0.3
    else:
        qs = case.get("qs", 2.0)
        q, qpe = q * qs, qpe * qs
    scale = None if case.get("scale") == "none" else case.get("scale", 1.0 / math.sqrt(D + Dpe))
    return tuple(t.to(dtype).to(device) for t in (q, qpe, kv, kpe)) + (scale, case.get("split"))


def reference(q, qpe, kv, kpe, sm_scale=None, kv_len_per_split=None, **kwargs):
    """softmax(scale * (q kv^T + qpe kpe^T)) kv per (batch, head), in fp32, returned in q's dtype."""
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.size(-1) + qpe.size(-1))
    kvf = kv.float()
    scores = (torch.matmul(q.float(), kvf.transpose(1, 2))
              + torch.matmul(qpe.float(), kpe.float().transpose(1, 2))) * sm_scale   # [B, H, KV]
    return torch.matmul(torch.softmax(scores, dim=-1), kvf).to(q.dtype)


def torch_peer(q, qpe, kv, kpe, sm_scale=None, kv_len_per_split=None, **kwargs):
    """The same decode as plain torch ops in q's dtype (fp32 softmax), what a framework would run."""
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.size(-1) + qpe.size(-1))
    scores = torch.matmul(q, kv.transpose(1, 2)).float() + torch.matmul(qpe, kpe.transpose(1, 2)).float()
    p = torch.softmax(scores * sm_scale, dim=-1)
    return torch.matmul(p.to(q.dtype), kv)


def bytes_moved(case, dtype):
    """q, qpe, kv, kpe read once; out written (TileGym's bench count; the partials are not counted)."""
    es = torch.empty((), dtype=dtype).element_size()
    B, H, KV, D, Dpe = case["B"], case["H"], case["KV"], case["D"], case["Dpe"]
    return (2 * B * H * D + B * H * Dpe + B * KV * (D + Dpe)) * es
