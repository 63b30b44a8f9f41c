"""A Triton translation of add_orig.py that also calls triton.language's own @jit library
(tl.max, tl.sum): these are decorated when triton is first imported, in that process's mode."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    zero = 0.0 * (tl.max(x, axis=0) + x.sum(axis=0))          # finite inputs: exactly 0
    tl.store(out_ptr + offs, (x + y + zero).to(out_ptr.dtype.element_ty), mask=mask)


def vec_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32)
    return out
