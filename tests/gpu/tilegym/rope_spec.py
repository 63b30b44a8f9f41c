"""Spec for TileGym's cuTile RoPE (`tilegym.ops.cutile.rope.apply_rope_base`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/rope.py --spec tests/gpu/tilegym/rope_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to TileGym's
hand-written Triton RoPE, `tilegym.ops.triton.rope.apply_rope_base`, with its TMA kernel (the
default, use_tma=True) and without.)

The entry is TileGym's own `apply_rope_base(q, k, cos, sin, position_ids, unsqueeze_dim,
partial_rotary_factor)`: q (B, Hq, S, D) and k (B, Hkv, S, D) are rotated in place (HF Llama
convention: the first and second halves of the rotated dims are the pair) and returned; both
the outputs and the mutated q/k are compared. One program per (batch, position), heads padded
to a power of two (Hq = 3 exercises the clipped store). cos/sin are (1, S, rope_dim), or
(B, S, rope_dim) with `cos_b` (per-batch positions); `prf` < 1 is partial RoPE (rope_dim =
D * prf; the rest of each head passes through). TileGym picks the kernel's occupancy with
cuda.tile.tune.exhaustive_search unless TILEGYM_DISABLE_AUTOTUNE=1 (the translation keeps that:
it times the configs, which only differ in a hint Triton drops). It has no other mode flag.
The reference computes in the tensors' dtype, op by op, as the kernel's tile arithmetic does.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "apply_rope_base",
    "reference": "reference",
    "make_args": "make_args",
    # each output is x1*cos - x2*sin: where the two products nearly cancel, FMA contraction (Triton
    # fuses, cuTile may round the product first) moves the result by an ulp of the inputs, not of the
    # output (H200: 1 element of 1M off by 0.014 in bf16), so the two-term-sum (reduction) row applies
    "op_class": "reduction",
    "dtypes": ["bfloat16", "float16"],
    "cases": [
        {"B": 1, "Hq": 2, "Hkv": 1, "S": 5, "D": 16},
        {"B": 2, "Hq": 3, "Hkv": 1, "S": 4, "D": 8},
        {"B": 2, "Hq": 4, "Hkv": 2, "S": 3, "D": 16, "cos_b": True},
        {"B": 1, "Hq": 2, "Hkv": 2, "S": 4, "D": 16, "prf": 0.5},
    ],
    "gpu_cases": [
        {"B": 2, "Hq": 12, "Hkv": 4, "S": 333, "D": 128},
        {"B": 3, "Hq": 7, "Hkv": 7, "S": 100, "D": 64, "cos_b": True},
        {"B": 1, "Hq": 16, "Hkv": 16, "S": 257, "D": 128, "prf": 0.25},
    ],
    "bench_cases": [
        {"B": 4, "Hq": 32, "Hkv": 8, "S": 4096, "D": 128},
        {"B": 1, "Hq": 16, "Hkv": 16, "S": 16384, "D": 64},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"TileGym Triton (TMA)": "tilegym_triton_tma", "TileGym Triton": "tilegym_triton"},
}


def _cos_sin(S, rope_dim, positions, dtype):
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rope_dim, 2, dtype=torch.float32) / rope_dim))
    freqs = positions[..., None].float() * inv_freq                 # (cb, S, rope_dim / 2)
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    B, Hq, Hkv, S, D = case["B"], case["Hq"], case["Hkv"], case["S"], case["D"]
    prf = case.get("prf", 1.0)
    rope_dim = int(D * prf)
    q = torch.randn(B, Hq, S, D, generator=g).to(dtype).to(device)
    k = torch.randn(B, Hkv, S, D, generator=g).to(dtype).to(device)
    if case.get("cos_b"):
        positions = torch.arange(S)[None, :] + 7 * torch.arange(B)[:, None]
    else:
        positions = torch.arange(S)[None, :]
    cos, sin = _cos_sin(S, rope_dim, positions, dtype)
    return (q, k, cos.to(device), sin.to(device), None, 1, prf)


def _rotate(x, cos, sin, rope_dim):
    h = rope_dim // 2
    c, s = cos[:, None, :, :h], sin[:, None, :, :h]                 # (cb, 1, S, h)
    x1, x2 = x[..., :h], x[..., h:2 * h]
    out = x.clone()
    out[..., :h] = x1 * c - x2 * s
    out[..., h:2 * h] = x2 * c + x1 * s
    return out


def reference(q, k, cos, sin, position_ids=None, unsqueeze_dim=1, partial_rotary_factor=1.0):
    rope_dim = int(q.shape[-1] * partial_rotary_factor) if partial_rotary_factor < 1.0 else q.shape[-1]
    qo, ko = _rotate(q, cos, sin, rope_dim), _rotate(k, cos, sin, rope_dim)
    q.copy_(qo)                      # in place, as the kernel
    k.copy_(ko)
    return q, k


def tilegym_triton_tma(q, k, cos, sin, position_ids=None, unsqueeze_dim=1, partial_rotary_factor=1.0):
    from tilegym.ops.triton.rope import apply_rope_base
    return apply_rope_base(q, k, cos, sin, position_ids, unsqueeze_dim, True, partial_rotary_factor)


def tilegym_triton(q, k, cos, sin, position_ids=None, unsqueeze_dim=1, partial_rotary_factor=1.0):
    from tilegym.ops.triton.rope import apply_rope_base
    return apply_rope_base(q, k, cos, sin, position_ids, unsqueeze_dim, False, partial_rotary_factor)


def bytes_moved(case, dtype):
    """q and k read and written; the first half of each cos/sin row (the kernel reads only
    rope_dim / 2 of them) read once."""
    es = torch.empty((), dtype=dtype).element_size()
    B, Hq, Hkv, S, D = case["B"], case["Hq"], case["Hkv"], case["S"], case["D"]
    rope_dim = int(D * case.get("prf", 1.0))
    cb = B if case.get("cos_b") else 1
    return 2 * B * (Hq + Hkv) * S * D * es + 2 * cb * S * (rope_dim // 2) * es
