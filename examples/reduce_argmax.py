# SPDX-License-Identifier: Apache-2.0
"""Per-row sum, max and argmax of a 2-D tensor, several rows per block.

Each block loads a (TILE_M, TILE_N) tile (TILE_N covers every column) padded
with ``-inf`` (``PaddingMode.NEG_INF``) so that padded columns never win the
max/argmax.  For the sum those columns are switched back to 0 with
``ct.where`` on an ``ct.arange`` compare.  Outputs:

* row sums, float32, kept 2-D with ``keepdims=True``: a (TILE_M, 1) tile stored
  into an (M, 1) array;
* row argmax, int32 (ties resolve to the smallest column index);
* row max, in the input dtype.
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def row_sum_argmax_kernel(x, sums, argmax_out, max_out, TILE_M: ConstInt, TILE_N: ConstInt):
    # Block `bm` owns rows [bm * TILE_M, (bm + 1) * TILE_M).
    bm = ct.bid(0)
    n_cols = x.shape[1]

    # Columns (and rows) past the end read as -inf.
    xt = ct.load(x, index=(bm, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)

    # Row sums in float32; padded columns are replaced by 0 first.
    cols = ct.arange(TILE_N, dtype=ct.int32)
    xs = ct.where(cols[None, :] < n_cols, ct.astype(xt, ct.float32), 0.0)
    row_sum = ct.sum(xs, axis=1, keepdims=True)  # (TILE_M, 1)
    ct.store(sums, index=(bm, 0), tile=row_sum)

    # Argmax along the columns -> int32 tile of shape (TILE_M,).
    idx = ct.argmax(xt, axis=1)
    ct.store(argmax_out, index=(bm,), tile=idx)

    # Max keeps the input dtype.
    row_max = ct.max(xt, axis=1)
    ct.store(max_out, index=(bm,), tile=row_max)


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def row_sum_argmax(x: torch.Tensor):
    """Host launcher: returns (sums (M, 1) float32, argmax (M,) int32, max (M,) x.dtype)."""
    assert x.ndim == 2
    m, n = x.shape
    sums = torch.empty((m, 1), device=x.device, dtype=torch.float32)
    idx = torch.empty((m,), device=x.device, dtype=torch.int32)
    mx = torch.empty((m,), device=x.device, dtype=x.dtype)
    tile_n = _next_pow2(n)
    # About 8K elements per block: several rows when rows are short.
    tile_m = max(1, min(_next_pow2(m), 8192 // tile_n))
    grid = (ct.cdiv(m, tile_m),)
    ct.launch(torch.cuda.current_stream(), grid, row_sum_argmax_kernel,
              (x, sums, idx, mx, tile_m, tile_n))
    return sums, idx, mx


def row_sum_argmax_reference(x: torch.Tensor):
    sums = x.float().sum(dim=1, keepdim=True)
    idx = torch.argmax(x, dim=1).to(torch.int32)
    mx = x.max(dim=1).values
    return sums, idx, mx


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    # Values are multiples of 0.25 in about [-12, 12]: exact in float16 and
    # bfloat16, so every dtype sees the same data, the float32 row sums are exact
    # whatever the summation order, and each row has repeated values: the row
    # max often occurs several times, which checks that argmax ties resolve to
    # the smallest index.
    m, n = case["M"], case["N"]
    x = torch.round(8.0 * torch.randn(m, n, generator=g, dtype=torch.float32)) / 4.0
    return (x.to(dtype).to(device),)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    m, n = case["M"], case["N"]
    return m * n * elem + m * (4 + 4 + elem)


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "row_sum_argmax",
    "reference": "row_sum_argmax_reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 3, "N": 37}, {"M": 8, "N": 64}, {"M": 45, "N": 130}, {"M": 1, "N": 1}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000}],
    "bench_cases": [{"M": 8192, "N": 4096}],
    "bytes": "bytes_moved",
}
