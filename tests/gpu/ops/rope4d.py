# SPDX-License-Identifier: Apache-2.0
"""Rotary position embedding of 4-D q and k, forward and backward, as one autograd op (issue 37).

q (B, H, S, D) and k (B, Hk, S, D); cos and sin of shape (S, D/2), or (S, D) with the two halves
equal (the Llama form, `cat([freqs, freqs])`), broadcast over batch and heads. The pair of each
rotated element is the other half of its head (x1 = x[..., :D/2], x2 = x[..., D/2:]):

    forward:   o1 = x1 cos - x2 sin,   o2 = x2 cos + x1 sin      (rotation by theta)
    backward:  g1 = d1 cos + d2 sin,   g2 = d2 cos - d1 sin      (rotation by -theta)

One kernel, written for this project in the cuTile style: a program takes TILE_S positions of
HEADS heads of one batch as (1, HEADS, TILE_S, D/2) tiles, the two halves loaded at tile index 0
and 1 along the last axis, and cos/sin as one (TILE_S, D/2) tile (only the first D/2 columns of
an (S, D) table are read). `BACKWARD` flips the sign of sin. `RopeOp` (a torch.autograd.Function)
launches it for q and for k, out of place; the spec's entry `rope_train` runs forward and backward
and returns the rotated q, k and their gradients, so that the bench times the whole op.
"""
import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def rope_rotate(x, cos, sin, out, BACKWARD: ConstInt, HEADS: ConstInt, TILE_S: ConstInt, HALF: ConstInt):
    s_blk = ct.bid(0)
    b = ct.bid(1)
    h_blk = ct.bid(2)
    c = ct.astype(ct.load(cos, index=(s_blk, 0), shape=(TILE_S, HALF), padding_mode=ZERO), ct.float32)
    s = ct.astype(ct.load(sin, index=(s_blk, 0), shape=(TILE_S, HALF), padding_mode=ZERO), ct.float32)
    if BACKWARD:
        s = -s
    c = ct.reshape(c, (1, 1, TILE_S, HALF))
    s = ct.reshape(s, (1, 1, TILE_S, HALF))
    x1 = ct.astype(ct.load(x, index=(b, h_blk, s_blk, 0), shape=(1, HEADS, TILE_S, HALF), padding_mode=ZERO), ct.float32)
    x2 = ct.astype(ct.load(x, index=(b, h_blk, s_blk, 1), shape=(1, HEADS, TILE_S, HALF), padding_mode=ZERO), ct.float32)
    ct.store(out, index=(b, h_blk, s_blk, 0), tile=ct.astype(x1 * c - x2 * s, out.dtype))
    ct.store(out, index=(b, h_blk, s_blk, 1), tile=ct.astype(x2 * c + x1 * s, out.dtype))


def _pow2_at_least(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _rotate(x, cos, sin, backward: int):
    bsz, heads, seq, dim = x.shape
    half = dim // 2
    assert dim % 2 == 0 and half == _pow2_at_least(half), "head dim: twice a power of two"
    assert cos.shape == sin.shape and cos.shape[0] == seq and cos.shape[1] in (half, dim)
    out = torch.empty_like(x)
    tile_h = min(4, _pow2_at_least(heads))
    tile_s = min(32, _pow2_at_least(seq))
    grid = (_cdiv(seq, tile_s), bsz, _cdiv(heads, tile_h))
    ct.launch(torch.cuda.current_stream(), grid, rope_rotate, (x, cos, sin, out, backward, tile_h, tile_s, half))
    return out


class RopeOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, cos, sin):
        ctx.save_for_backward(cos, sin)
        return _rotate(q.contiguous(), cos, sin, 0), _rotate(k.contiguous(), cos, sin, 0)

    @staticmethod
    def backward(ctx, dq, dk):
        cos, sin = ctx.saved_tensors
        return _rotate(dq.contiguous(), cos, sin, 1), _rotate(dk.contiguous(), cos, sin, 1), None, None


def rope_train(q, k, cos, sin, dq, dk):
    """Forward, then backward from (dq, dk). Returns (q rotated, k rotated, q.grad, k.grad)."""
    q = q.detach().requires_grad_()
    k = k.detach().requires_grad_()
    qo, ko = RopeOp.apply(q, k, cos, sin)
    torch.autograd.backward((qo, ko), (dq, dk))
    return qo.detach(), ko.detach(), q.grad, k.grad


def _rotate_reference(x, cos, sin, sign):
    half = x.shape[-1] // 2
    c = cos[:, :half].float()
    s = sign * sin[:, :half].float()
    x1, x2 = x[..., :half].float(), x[..., half:].float()
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


def rope_train_reference(q, k, cos, sin, dq, dk):
    return (_rotate_reference(q, cos, sin, 1.0), _rotate_reference(k, cos, sin, 1.0),
            _rotate_reference(dq, cos, sin, -1.0), _rotate_reference(dk, cos, sin, -1.0))


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    bsz, hq, hk, seq, dim = case["B"], case["H"], case["Hk"], case["S"], case["D"]
    width = case["cs"]                       # cos/sin columns: dim // 2, or dim (halves equal)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dim // 2, dtype=torch.float32) * 2.0 / dim))
    ang = torch.arange(seq, dtype=torch.float32)[:, None] * inv_freq[None, :]
    if width == dim:
        ang = torch.cat([ang, ang], dim=-1)
    q = torch.randn(bsz, hq, seq, dim, generator=g)
    k = torch.randn(bsz, hk, seq, dim, generator=g)
    dq = torch.randn(bsz, hq, seq, dim, generator=g)
    dk = torch.randn(bsz, hk, seq, dim, generator=g)
    return tuple(t.to(dtype).to(device) for t in (q, k, ang.cos(), ang.sin(), dq, dk))


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    """q, k read and written forward; dq, dk read and their gradients written backward
    (cos/sin: small, and cached)."""
    elem = torch.empty((), dtype=dtype).element_size()
    return 4 * case["B"] * (case["H"] + case["Hk"]) * case["S"] * case["D"] * elem


C2T_SPEC = {
    "entry": "rope_train",
    "reference": "rope_train_reference",
    "make_args": "make_args",
    # each output is a two-term sum x1 c - x2 s: where the products nearly cancel, FMA contraction
    # (Triton fuses, cuTile may round the product first) moves it by an ulp of the inputs
    "op_class": "reduction",
    "dtypes": ["bfloat16", "float32"],
    "cases": [{"B": 1, "H": 3, "Hk": 1, "S": 5, "D": 16, "cs": 8},
              {"B": 2, "H": 4, "Hk": 2, "S": 40, "D": 8, "cs": 8},
              {"B": 1, "H": 6, "Hk": 5, "S": 3, "D": 32, "cs": 32}],
    "gpu_cases": [{"B": 2, "H": 12, "Hk": 4, "S": 333, "D": 128, "cs": 128}],
    "bench_cases": [{"B": 4, "H": 32, "Hk": 8, "S": 2048, "D": 128, "cs": 64},
                    {"B": 4, "H": 32, "Hk": 8, "S": 2048, "D": 128, "cs": 128}],
    "bytes": "bytes_moved",
    "bound": "memory",
}
