# SPDX-License-Identifier: Apache-2.0
"""Concatenate 1-D tensors: one launch of a copy kernel per input, from a host loop.

Each launch copies one input into its slice of the output, tile by tile
(``ct.bid(0)`` walks the tiles; the ragged last tile is masked by ``ct.load`` /
``ct.store`` bounds). cuTile runs the launches one after another; for many small
inputs (KV-cache pieces) the launch overhead dominates, so the translation runs
the loop's launches up to four per launch (grid axis 1 picks the input), which
is safe here because every launch writes its own slice of the output.
"""

import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def copy_kernel(src, dst, TILE: ConstInt):
    # Tile `i` of this input (tile space: elements i*TILE .. i*TILE + TILE - 1).
    i = ct.bid(0)
    t = ct.load(src, index=(i,), shape=(TILE,))
    ct.store(dst, index=(i,), tile=t)


def concat(tensors: list) -> torch.Tensor:
    """Host launcher: torch.cat(tensors) for 1-D tensors of one dtype."""
    total = sum(t.shape[0] for t in tensors)
    out = torch.empty(total, device=tensors[0].device, dtype=tensors[0].dtype)
    pieces, start = [], 0
    for t in tensors:
        pieces.append(out[start:start + t.shape[0]])
        start += t.shape[0]
    tile = 1024
    for src, dst in zip(tensors, pieces):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(src.shape[0], tile),), copy_kernel, (src, dst, tile))
    return out


def concat_reference(tensors: list) -> torch.Tensor:
    return torch.cat(tensors)


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    sizes = [max(1, (case["N"] * (k + 1)) // 7 + k) for k in range(case["parts"])]
    return ([torch.randn(n, generator=g).to(dtype).to(device) for n in sizes],)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    sizes = [max(1, (case["N"] * (k + 1)) // 7 + k) for k in range(case["parts"])]
    return 2 * sum(sizes) * torch.empty((), dtype=dtype).element_size()


# Verification spec: used by `cutile2triton verify` and by the project's tests.
C2T_SPEC = {
    "entry": "concat",
    "reference": "concat_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"N": 100, "parts": 3}, {"N": 3000, "parts": 6}],
    "gpu_cases": [{"N": 100000, "parts": 5}, {"N": 7, "parts": 9}],
    "bench_cases": [{"N": 4096, "parts": 8}, {"N": 1 << 20, "parts": 8}],
    "bytes": "bytes_moved",
}
