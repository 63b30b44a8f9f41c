# SPDX-License-Identifier: Apache-2.0
"""Row softmax: y[i, :] = softmax(x[i, :]).

One block per row.  The row is read with ``ct.gather`` using element indices
(the scalar row index broadcast against a ``ct.arange`` of column offsets);
columns past the end read as ``-inf`` so they vanish from the max and from the
exponential sum.  The arithmetic is done in float32 and the result is cast back
to the input dtype before ``ct.scatter`` writes it (out-of-range columns are
dropped).
"""

import math

import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel(occupancy=2)
def softmax_kernel(x, y, TILE_N: ConstInt):
    # Block `row` handles one full row; TILE_N >= number of columns.
    row = ct.bid(0)
    cols = ct.arange(TILE_N, dtype=ct.int32)

    # Element-index gather: (scalar, tile) indices broadcast to shape (TILE_N,).
    # Columns >= N are out of bounds and come back as -inf.
    vals = ct.gather(x, (row, cols), padding_value=-math.inf)
    vals = ct.astype(vals, ct.float32)

    # Subtract the row max for numerical stability (keepdims -> shape (1,)).
    row_max = ct.max(vals, axis=0, keepdims=True)
    num = ct.exp(vals - row_max)  # exp(-inf) == 0 for the padded columns

    # Normalise by the sum of the exponentials.
    den = ct.sum(num, axis=0, keepdims=True)
    out = num / den

    # Cast back down explicitly: float32 -> float16 is not an implicit store cast.
    ct.scatter(y, (row, cols), ct.astype(out, y.dtype))


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Host launcher: softmax over the last dim of a 2-D tensor."""
    assert x.ndim == 2
    m, n = x.shape
    y = torch.empty((m, n), device=x.device, dtype=x.dtype)
    tile_n = _next_pow2(n)
    grid = (m,)
    ct.launch(torch.cuda.current_stream(), grid, softmax_kernel, (x, y, tile_n))
    return y


def softmax_reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    x = 3.0 * torch.randn(case["M"], case["N"], generator=g, dtype=torch.float32)
    return (x.to(dtype).to(device),)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    return 2 * case["M"] * case["N"] * elem


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "softmax",
    "reference": "softmax_reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 3, "N": 37}, {"M": 8, "N": 64}, {"M": 5, "N": 130}, {"M": 1, "N": 1}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000}],
    "bench_cases": [{"M": 8192, "N": 4096}],
    "bytes": "bytes_moved",
}
