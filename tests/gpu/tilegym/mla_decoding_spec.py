"""Spec for TileGym's MLA decoding (`tilegym.ops.cutile.mla_decoding.mla_decoding`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/mla_decoding.py --spec tests/gpu/tilegym/mla_decoding_spec.py --mode interp --seeds 0

(`--mode gpu` on the GPU machine runs gpu_cases against the cuTile original and times bench_cases
next to a plain-torch MLA decode.)  TileGym is fetched, never committed: its `src` must be importable.

The entry is TileGym's own `mla_decoding(q, qpe, kv, kpe, sm_scale, transpose)`: one query token per
head with absorbed latent attention, q [B, H, D], qpe [B, H, Dpe], kv [B, KV, D] (keys and values
are the same latent tensor), kpe [B, KV, Dpe].  It launches `_naive_absorb_mla_transpose_kernel`
once per (16-head block, batch) and returns (out [B, H, D], lse [B, H] in log2 units, fp32).

`transpose` is a case key, but the cuTile original only implements transpose=True: with False it
raises AssertionError("CuTile MLA Decoding only supports transpose=True") before any launch
(TileGym's own test skips transpose=False for the cutile backend), so every case here uses True.
The kernel's two code paths are EVEN_N (KV % 128 == 0: no key mask) and the masked last tile;
the cases cover both, and H=20 covers a ragged second head block.
Bench shapes follow TileGym's tests/benchmark/bench_mla_decoding.py (batch 1, 16 heads, d_pe 64,
head_dim 128 and 512, fp16), KV 4096 and 16384, plus batch 128 from tests/ops/test_mla_decoding.py's
perf mode; memory-bound (GB/s, the bench's byte count).  (That bench script itself times
mla_decoding_split_kv, the split-KV variant; this file's kernel is one CTA per 16 heads and batch.)
"""
import math

import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "mla_decoding",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["float16"],
    "cases": [
        {"B": 1, "H": 2, "KV": 40, "D": 16, "Dpe": 16, "transpose": True},
        {"B": 2, "H": 2, "KV": 256, "D": 16, "Dpe": 16, "transpose": True},
        {"B": 1, "H": 20, "KV": 200, "D": 16, "Dpe": 16, "transpose": True},
    ],
    "gpu_cases": [
        {"B": 2, "H": 32, "KV": 1000, "D": 512, "Dpe": 64, "transpose": True},
        {"B": 3, "H": 16, "KV": 4097, "D": 128, "Dpe": 64, "transpose": True},
        {"B": 1, "H": 40, "KV": 2048, "D": 512, "Dpe": 64, "transpose": True},
    ],
    "bench_cases": [
        {"B": 1, "H": 16, "KV": 4096, "D": 512, "Dpe": 64, "transpose": True},
        {"B": 1, "H": 16, "KV": 16384, "D": 512, "Dpe": 64, "transpose": True},
        {"B": 1, "H": 16, "KV": 16384, "D": 128, "Dpe": 64, "transpose": True},
        # batch 1 is one CTA (latency-bound); TileGym's tests/ops/test_mla_decoding.py perf mode
        # also runs batch 128, which fills the GPU
        {"B": 128, "H": 16, "KV": 4096, "D": 512, "Dpe": 64, "transpose": True},
    ],
    "bound": "memory",
    "bytes": "bytes_moved",
    "peers": {"torch (TileGym bench reference)": "torch_peer"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)      # interp only: the device the host code sees (sm_90, 132 SMs)
    g = torch.Generator().manual_seed(seed)
    B, H, KV, D, Dpe = case["B"], case["H"], case["KV"], case["D"], case["Dpe"]
    # TileGym's test data: normal(0.3, 0.2) for the latent parts, normal(0.3, 0.1) for rope parts
    q = torch.randn(B, H, D, generator=g) * 0.2 + 0.3
    qpe = torch.randn(B, H, Dpe, generator=g) * 0.1 + 0.3
    kv = torch.randn(B, KV, D, generator=g) * 0.2 + 0.3
    kpe = torch.randn(B, KV, Dpe, generator=g) * 0.1 + 0.3
    scale = 1.0 / math.sqrt(D + Dpe)
    return tuple(t.to(dtype).to(device) for t in (q, qpe, kv, kpe)) + (scale, case["transpose"])


def reference(q, qpe, kv, kpe, sm_scale, transpose=True, **kwargs):
    """(out, lse): fp32 math; lse = log2(sum exp(scores)), what the kernel stores in L."""
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.size(-1) + qpe.size(-1))
    kvf = kv.float()
    qk = (torch.matmul(q.float(), kvf.transpose(1, 2))
          + torch.matmul(qpe.float(), kpe.float().transpose(1, 2))) * sm_scale
    out = torch.matmul(torch.softmax(qk, dim=-1), kvf).to(q.dtype)
    lse = torch.logsumexp(qk, dim=-1) / math.log(2)
    return out, lse


def torch_peer(q, qpe, kv, kpe, sm_scale, transpose=True, **kwargs):
    """TileGym's bench_mla_decoding reference (the 'PyTorch' line of its plot), in q's dtype."""
    qk = torch.matmul(q, kv.transpose(1, 2)).float() + torch.matmul(qpe, kpe.transpose(1, 2)).float()
    qk = qk * sm_scale
    m = torch.max(qk, dim=-1)[0]
    p = torch.exp(qk - m.unsqueeze(-1))
    l = torch.sum(p, dim=-1)
    o = torch.matmul((p / l.unsqueeze(-1)).to(q.dtype), kv)
    return o, m / math.log(2) + torch.log2(l)


def bytes_moved(case, dtype):
    """q, qpe, kv, kpe read once; out written (TileGym's bench count) plus the fp32 lse."""
    es = torch.empty((), dtype=dtype).element_size()
    B, H, KV, D, Dpe = case["B"], case["H"], case["KV"], case["D"], case["Dpe"]
    return (2 * B * H * D + B * H * Dpe + B * KV * (D + Dpe)) * es + B * H * 4
