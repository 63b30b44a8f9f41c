# SPDX-License-Identifier: Apache-2.0
"""Tiled matrix multiply: C = A @ B.

A 2-D grid of (BM, BN) output tiles (``ct.bid(0)`` over rows, ``ct.bid(1)``
over columns).  Each block walks the K dimension in BK-wide steps
(``ct.num_tiles`` gives the trip count), loads zero-padded A and B tiles (so a
ragged K tail contributes nothing) and accumulates with ``ct.mma`` into a
float32 accumulator made by ``ct.full``.  The accumulator is cast to C's dtype
with ``ct.astype`` before the store.  Note that cuTile's float32 ``mma`` is full
precision (no implicit TF32).
"""

import math

import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def matmul_kernel(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    # Output tile coordinates (tile space, not elements).
    bm = ct.bid(0)
    bn = ct.bid(1)

    # float32 accumulator, whatever the input dtype.
    acc = ct.full((BM, BN), 0.0, dtype=ct.float32)

    # Number of BK-wide tiles along K (ceil(K / BK)).
    num_k = ct.num_tiles(a, axis=1, shape=(BM, BK))
    for k in range(num_k):
        # Zero padding: rows/cols past M, N and the K tail read as 0.
        a_tile = ct.load(a, index=(bm, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b_tile = ct.load(b, index=(k, bn), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        # acc += a_tile @ b_tile (operands share a dtype, acc is float32).
        acc = ct.mma(a_tile, b_tile, acc)

    # Explicit down-cast (float32 -> float16/bfloat16 is not an implicit store cast).
    ct.store(c, index=(bm, bn), tile=ct.astype(acc, c.dtype))


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _pick_tile(n: int, lo: int, hi: int) -> int:
    return min(hi, max(lo, _next_pow2(n)))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Host launcher: returns a @ b in a's dtype."""
    assert a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    # Tile sizes are powers of two >= 16 (MMA minimum); big problems get 128x128
    # output tiles, small ones 32x32 so that the grid still has several blocks.
    bm = _pick_tile(m, 16, 128 if m >= 512 else 32)
    bn = _pick_tile(n, 16, 128 if n >= 512 else 32)
    bk = _pick_tile(k, 16, 32)
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (a, b, c, bm, bn, bk))
    return c


def matmul_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float()).to(a.dtype)


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    m, n, k = case["M"], case["N"], case["K"]
    # Scaled so that the entries of C stay O(1) whatever K is.
    a = torch.randn(m, k, generator=g, dtype=torch.float32) / math.sqrt(k)
    b = torch.randn(k, n, generator=g, dtype=torch.float32)
    return a.to(dtype).to(device), b.to(dtype).to(device)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    m, n, k = case["M"], case["N"], case["K"]
    return (m * k + k * n + m * n) * elem


def flop_count(case: dict, dtype: torch.dtype) -> int:
    return 2 * case["M"] * case["N"] * case["K"]


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "matmul",
    "reference": "matmul_reference",
    "make_args": "make_args",
    "op_class": "matmul",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 37, "N": 50, "K": 70}, {"M": 64, "N": 64, "K": 64},
              {"M": 100, "N": 33, "K": 17}, {"M": 1, "N": 16, "K": 5}],
    "gpu_cases": [{"M": 1000, "N": 1023, "K": 777}, {"M": 4096, "N": 4096, "K": 4096},
                  {"M": 77, "N": 5000, "K": 300}],
    "bench_cases": [{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 8192, "K": 2048}],
    "bytes": "bytes_moved",
    "flops": "flop_count",
}
