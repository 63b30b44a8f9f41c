# SPDX-License-Identifier: Apache-2.0
"""Vector addition: c = a + b on 1-D arrays.

Shows the most basic cuTile pattern: a 1-D grid, one tile of ``TILE`` elements
per block, tile-space ``ct.load``/``ct.store`` (the ``index`` counts tiles, not
elements) and a ``ct.Constant[int]`` tile size.  The ragged tail of the last
tile is zero-padded on load and its out-of-bounds lanes are dropped on store.
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def vector_add_kernel(a, b, c, TILE: ConstInt):
    # One block per tile: block `pid` covers elements [pid * TILE, (pid + 1) * TILE).
    pid = ct.bid(0)

    # Tile-space loads; lanes past the end of the arrays read as 0.
    a_tile = ct.load(a, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    b_tile = ct.load(b, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)

    # Same dtype on both sides, so the sum keeps the array dtype.
    result = a_tile + b_tile

    # Out-of-bounds lanes of the last (partial) tile are dropped by the store.
    ct.store(c, index=(pid,), tile=result)


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def vector_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Host launcher: returns a + b (same shape and dtype as ``a``)."""
    assert a.shape == b.shape and a.ndim == 1 and a.dtype == b.dtype
    n = a.shape[0]
    c = torch.empty((n,), device=a.device, dtype=a.dtype)
    # Small vectors get a single small tile; large ones 1024-element tiles.
    tile = min(_next_pow2(n), 1024)
    grid = (ct.cdiv(n, tile),)
    ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, tile))
    return c


def vector_add_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    n = case["N"]
    a = torch.randn(n, generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn(n, generator=g, dtype=torch.float32).to(dtype)
    return a.to(device), b.to(device)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    # read a and b, write c
    elem = torch.empty((), dtype=dtype).element_size()
    return 3 * case["N"] * elem


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "vector_add",
    "reference": "vector_add_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"N": 1}, {"N": 37}, {"N": 1000}, {"N": 5000}],
    "gpu_cases": [{"N": 1}, {"N": 98_765}, {"N": 1 << 20}, {"N": 10_000_019}],
    "bench_cases": [{"N": 1 << 24}],
    "bytes": "bytes_moved",
}
