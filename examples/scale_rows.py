# SPDX-License-Identifier: Apache-2.0
"""Row-scaled leaky ReLU with a persistent (grid-stride) schedule.

    y[i, j] = scale[i] * (x[i, j] if x[i, j] >= 0 else slope * x[i, j])

The grid has fewer blocks than rows: block ``b`` handles rows
``b, b + num_blocks, b + 2 * num_blocks, ...`` via
``for row in range(ct.bid(0), n_rows, ct.num_blocks(0))``, and walks each row
in TILE_N-wide column tiles (a nested dynamic loop bounded by
``ct.num_tiles``).  Shows ``ct.where`` with a scalar-times-tile branch, a 0-d
``ct.gather`` of a per-row float32 scale, and a ``ct.Constant[float]``
parameter (``SLOPE``).
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstFloat = ct.Constant[float]


@ct.kernel(occupancy=2)
def scale_rows_kernel(x, scale, y, SLOPE: ConstFloat, TILE_N: ConstInt):
    n_rows = x.shape[0]
    # Number of TILE_N-wide column tiles per row.
    n_col_tiles = ct.num_tiles(x, axis=1, shape=(1, TILE_N))

    # Grid-stride loop over rows.
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        # Per-row factor: a 0-d gather at element index `row` (float32).
        s = ct.gather(scale, row)
        for j in range(n_col_tiles):
            xt = ct.astype(ct.load(x, index=(row, j), shape=(1, TILE_N)), ct.float32)
            # Leaky ReLU in float32, then the row scale.
            act = ct.where(xt >= 0.0, xt, xt * SLOPE)
            ct.store(y, index=(row, j), tile=ct.astype(act * s, y.dtype))


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def scale_rows(x: torch.Tensor, scale: torch.Tensor, slope: float) -> torch.Tensor:
    """Host launcher: returns scale[:, None] * leaky_relu(x, slope) in x's dtype."""
    assert x.ndim == 2 and scale.shape == (x.shape[0],) and scale.dtype == torch.float32
    m, n = x.shape
    y = torch.empty((m, n), device=x.device, dtype=x.dtype)
    tile_n = min(_next_pow2(n), 512)
    # About four rows per block, capped at 1024 blocks.
    grid = (min(ct.cdiv(m, 4), 1024),)
    ct.launch(torch.cuda.current_stream(), grid, scale_rows_kernel, (x, scale, y, slope, tile_n))
    return y


def scale_rows_reference(x: torch.Tensor, scale: torch.Tensor, slope: float) -> torch.Tensor:
    xf = x.float()
    act = torch.where(xf >= 0.0, xf, xf * slope)
    return (act * scale[:, None]).to(x.dtype)


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    m, n = case["M"], case["N"]
    x = torch.randn(m, n, generator=g, dtype=torch.float32)
    scale = torch.rand(m, generator=g, dtype=torch.float32) * 4.0 - 2.0
    return x.to(dtype).to(device), scale.to(device), 0.125


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    return 2 * case["M"] * case["N"] * elem + 4 * case["M"]


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "scale_rows",
    "reference": "scale_rows_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 7, "N": 37}, {"M": 9, "N": 700}, {"M": 1, "N": 1}, {"M": 6, "N": 1025}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000},
                  {"M": 100_003, "N": 65}],
    "bench_cases": [{"M": 8192, "N": 4096}],
    "bytes": "bytes_moved",
}
