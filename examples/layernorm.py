# SPDX-License-Identifier: Apache-2.0
"""Layer-norm forward over the rows of a 2-D tensor, with weight and bias.

    y = (x - mean) * rstd * weight + bias,   rstd = 1 / sqrt(var + eps)

One block per row, the whole row in one (1, TILE_N) tile.  Shows 2-D tile-space
loads with ZERO padding, masking the padded columns with ``ct.where`` on an
``ct.arange`` compare (so they do not pollute the variance), the dynamic int32
array extent ``x.shape[1]`` taking part in float arithmetic, ``ct.rsqrt``, a
runtime float scalar argument (``eps``), broadcasting a 1-D tile against a 2-D
one, and three outputs: y in the input dtype plus float32 mean and rstd, written
with ``ct.store`` (a (1,) tile at tile index ``row``) and ``ct.scatter`` (a 0-d
value at element index ``row``).
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def layernorm_fwd_kernel(x, weight, bias, y, mean_out, rstd_out, eps, TILE_N: ConstInt):
    row = ct.bid(0)
    # Runtime number of columns (dynamic int32).
    n_cols = x.shape[1]

    # Whole row as a (1, TILE_N) tile; columns >= n_cols read as 0.
    xr = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    xr = ct.astype(xr, ct.float32)

    # Mean over the row: the zero padding does not change the sum.
    mean = ct.sum(xr, axis=1, keepdims=True) / n_cols  # shape (1, 1)

    # Centre, then force the padded columns back to 0 (they would be -mean).
    cols = ct.arange(TILE_N, dtype=ct.int32)
    valid = cols[None, :] < n_cols  # (1, TILE_N) bool
    xc = ct.where(valid, xr - mean, 0.0)

    # Biased variance and reciprocal standard deviation.
    var = ct.sum(xc * xc, axis=1, keepdims=True) / n_cols
    rstd = ct.rsqrt(var + eps)

    # Affine transform; the 1-D (TILE_N,) weight/bias tiles broadcast over the row tile.
    w = ct.astype(ct.load(weight, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    b = ct.astype(ct.load(bias, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    yr = xc * rstd * w + b

    # y keeps the input dtype: cast down explicitly before the store.
    ct.store(y, index=(row, 0), tile=ct.astype(yr, y.dtype))

    # Per-row statistics (float32): a (1,) tile at tile index `row` ...
    ct.store(mean_out, index=(row,), tile=ct.reshape(mean, (1,)))
    # ... and a 0-d value scattered to element index `row`.
    ct.scatter(rstd_out, row, ct.reshape(rstd, ()))


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float):
    """Host launcher: returns (y, mean, rstd)."""
    assert x.ndim == 2 and weight.shape == (x.shape[1],) and bias.shape == (x.shape[1],)
    m, n = x.shape
    y = torch.empty((m, n), device=x.device, dtype=x.dtype)
    mean = torch.empty((m,), device=x.device, dtype=torch.float32)
    rstd = torch.empty((m,), device=x.device, dtype=torch.float32)
    tile_n = _next_pow2(n)
    grid = (m,)
    ct.launch(torch.cuda.current_stream(), grid, layernorm_fwd_kernel,
              (x, weight, bias, y, mean, rstd, eps, tile_n))
    return y, mean, rstd


def layernorm_reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float):
    xf = x.float()
    mean = xf.mean(dim=1)
    xc = xf - mean[:, None]
    var = (xc * xc).mean(dim=1)
    rstd = torch.rsqrt(var + eps)
    y = xc * rstd[:, None] * weight.float() + bias.float()
    return y.to(x.dtype), mean, rstd


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    m, n = case["M"], case["N"]
    # A non-zero mean and a scale != 1 so that mean and rstd are both exercised.
    x = 0.5 + 2.0 * torch.randn(m, n, generator=g, dtype=torch.float32)
    w = 1.0 + 0.1 * torch.randn(n, generator=g, dtype=torch.float32)
    b = 0.1 * torch.randn(n, generator=g, dtype=torch.float32)
    eps = 1e-5
    return x.to(dtype).to(device), w.to(dtype).to(device), b.to(dtype).to(device), eps


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    m, n = case["M"], case["N"]
    return 2 * m * n * elem + 2 * n * elem + 2 * m * 4


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "layernorm",
    "reference": "layernorm_reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 3, "N": 37}, {"M": 8, "N": 64}, {"M": 5, "N": 130}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000}],
    "bench_cases": [{"M": 8192, "N": 4096}],
    "bytes": "bytes_moved",
}
