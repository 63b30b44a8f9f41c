"""Hand-written Triton translation of examples/vector_add.py (tests the harness on a real cuTile
kernel without depending on the translator)."""
import torch
import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, c_ptr, n, TILE: tl.constexpr):
    offs = tl.program_id(0) * TILE + tl.arange(0, TILE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, a + b, mask=mask)


def vector_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    n = a.shape[0]
    c = torch.empty((n,), device=a.device, dtype=a.dtype)
    tile = min(1 << max(n - 1, 0).bit_length(), 1024)
    vector_add_kernel[(triton.cdiv(n, tile),)](a, b, c, n, TILE=tile)
    return c
