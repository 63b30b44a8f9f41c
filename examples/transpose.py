# SPDX-License-Identifier: Apache-2.0
"""2-D transpose (and batched 3-D transpose of the last two dims).

Each block loads one (TM, TN) tile, transposes it in registers and stores it at
the *swapped* tile index of the output.  Ragged edges need no special code: the
padding value of the partial input tile does not matter (default
``UNDETERMINED`` padding) because exactly those lanes land out of bounds in the
output and are dropped by the store.

* ``transpose_2d_kernel``: 2-D grid, ``ct.transpose``.
* ``transpose_3d_kernel``: 3-D grid (batch on axis 2), a (1, TM, TN) tile,
  ``ct.permute(t, (0, 2, 1))`` and a (1, TN, TM) store.
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_2d_kernel(x, y, TM: ConstInt, TN: ConstInt):
    # Tile coordinates of the input tile handled by this block.
    bm = ct.bid(0)
    bn = ct.bid(1)
    tile = ct.load(x, index=(bm, bn), shape=(TM, TN))
    # (TM, TN) -> (TN, TM), then store at the swapped tile index.
    ct.store(y, index=(bn, bm), tile=ct.transpose(tile))


@ct.kernel
def transpose_3d_kernel(x, y, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    # The batch index is the third grid axis.
    batch = ct.bid(2)
    tile = ct.load(x, index=(batch, bm, bn), shape=(1, TM, TN))
    # Swap the last two axes: (1, TM, TN) -> (1, TN, TM).
    tile_t = ct.permute(tile, (0, 2, 1))
    ct.store(y, index=(batch, bn, bm), tile=tile_t)


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def transpose(x: torch.Tensor) -> torch.Tensor:
    """Host launcher: swaps the last two dims of a 2-D or 3-D tensor (contiguous result)."""
    m, n = x.shape[-2], x.shape[-1]
    # 32x32 tiles (smaller when an extent is smaller).
    tm = min(_next_pow2(m), 32)
    tn = min(_next_pow2(n), 32)
    if x.ndim == 2:
        y = torch.empty((n, m), device=x.device, dtype=x.dtype)
        grid = (ct.cdiv(m, tm), ct.cdiv(n, tn))
        ct.launch(torch.cuda.current_stream(), grid, transpose_2d_kernel, (x, y, tm, tn))
    elif x.ndim == 3:
        b = x.shape[0]
        y = torch.empty((b, n, m), device=x.device, dtype=x.dtype)
        grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), b)
        ct.launch(torch.cuda.current_stream(), grid, transpose_3d_kernel, (x, y, tm, tn))
    else:
        raise ValueError("transpose expects a 2-D or 3-D tensor")
    return y


def transpose_reference(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(-2, -1).contiguous()


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    shape = (case["M"], case["N"]) if "B" not in case else (case["B"], case["M"], case["N"])
    x = torch.randn(*shape, generator=g, dtype=torch.float32)
    return (x.to(dtype).to(device),)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    return 2 * case.get("B", 1) * case["M"] * case["N"] * elem


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "transpose",
    "reference": "transpose_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 37, "N": 50}, {"M": 64, "N": 128}, {"M": 1, "N": 130},
              {"B": 3, "M": 20, "N": 70}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000},
                  {"B": 8, "M": 513, "N": 257}],
    "bench_cases": [{"M": 8192, "N": 4096}, {"B": 16, "M": 1024, "N": 1024}],
    "bytes": "bytes_moved",
}
