# SPDX-License-Identifier: Apache-2.0
"""Integer floor division and modulo with Python semantics on negative values.

In cuTile, ``//`` on integers rounds toward minus infinity and ``%`` takes the
sign of the divisor (Python semantics), unlike C/Triton truncation.  This
kernel exercises both on int32 tiles holding negative values, against

* a runtime int32 scalar divisor ``d`` (which may itself be negative),
* an int32 tile of divisors ``y`` (mixed signs, never 0), and
* a bucketing formula ``(x - lo) // width`` with a negative runtime ``lo``,

plus ``ct.cdiv`` (true ceiling division) of a tile by the scalar.  ``y`` is
read with ``ct.gather`` and ``padding_value=1`` so the padded lanes of the last
tile never divide by zero.
"""


import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def floordiv_kernel(x, y, q_scalar, r_scalar, q_tile, r_tile, ceil_q, bucket,
                    d, lo, width, TILE: ConstInt):
    pid = ct.bid(0)

    # Tile of x (padded lanes read as 0, their results are never stored).
    xt = ct.load(x, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)

    # Divisor tile via element indices; padded lanes read as 1 (no division by 0).
    offs = pid * TILE + ct.arange(TILE, dtype=ct.int32)
    yt = ct.gather(y, offs, padding_value=1)

    # Scalar divisor: floor quotient and divisor-signed remainder.
    ct.store(q_scalar, index=(pid,), tile=xt // d)
    ct.store(r_scalar, index=(pid,), tile=xt % d)

    # Elementwise divisor tile (mixed signs).
    ct.store(q_tile, index=(pid,), tile=xt // yt)
    ct.store(r_tile, index=(pid,), tile=xt % yt)

    # Ceiling division rounds toward +inf, also for negative operands.
    ct.store(ceil_q, index=(pid,), tile=ct.cdiv(xt, d))

    # Histogram-style bucket index: values below `lo` give negative buckets.
    b = (xt - lo) // width
    ct.scatter(bucket, offs, b)


def floordiv(x: torch.Tensor, y: torch.Tensor, d: int, lo: int, width: int):
    """Host launcher: returns (x // d, x % d, x // y, x % y, ceil(x / d), (x - lo) // width)."""
    assert x.ndim == 1 and x.shape == y.shape and x.dtype == torch.int32 and y.dtype == torch.int32
    n = x.shape[0]
    outs = tuple(torch.empty((n,), device=x.device, dtype=torch.int32) for _ in range(6))
    tile = 256 if n <= 4096 else 1024
    grid = (ct.cdiv(n, tile),)
    ct.launch(torch.cuda.current_stream(), grid, floordiv_kernel,
              (x, y) + outs + (d, lo, width, tile))
    return outs


def floordiv_reference(x: torch.Tensor, y: torch.Tensor, d: int, lo: int, width: int):
    q_s = torch.div(x, d, rounding_mode="floor")
    r_s = torch.remainder(x, d)
    q_t = torch.div(x, y, rounding_mode="floor")
    r_t = torch.remainder(x, y)
    c_s = -torch.div(-x, d, rounding_mode="floor")
    b = torch.div(x - lo, width, rounding_mode="floor")
    return q_s, r_s, q_t, r_t, c_s, b


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    # Integer kernel: the float dtype argument is ignored (always int32).
    g = torch.Generator().manual_seed(seed)
    n = case["N"]
    x = torch.randint(-1000, 1001, (n,), generator=g, dtype=torch.int32)
    # Divisors in [-9, 9] without 0.
    mag = torch.randint(1, 10, (n,), generator=g, dtype=torch.int32)
    sign = torch.randint(0, 2, (n,), generator=g, dtype=torch.int32) * 2 - 1
    y = mag * sign
    return x.to(device), y.to(device), case["d"], case["lo"], case["width"]


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    # 2 int32 inputs, 6 int32 outputs
    return 8 * 4 * case["N"]


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "floordiv",
    "reference": "floordiv_reference",
    "make_args": "make_args",
    "op_class": "integer",
    "dtypes": ["int32"],
    "cases": [{"N": 37, "d": -7, "lo": -100, "width": 30},
              {"N": 256, "d": 5, "lo": -999, "width": 7},
              {"N": 1000, "d": -1, "lo": 3, "width": 64},
              {"N": 3000, "d": 16, "lo": -1, "width": 1}],
    "gpu_cases": [{"N": 1001, "d": -7, "lo": -100, "width": 30},
                  {"N": 1 << 20, "d": 3, "lo": -512, "width": 25},
                  {"N": 5_000_003, "d": -13, "lo": 17, "width": 9}],
    "bench_cases": [{"N": 1 << 24, "d": -7, "lo": -100, "width": 30}],
    "bytes": "bytes_moved",
}
