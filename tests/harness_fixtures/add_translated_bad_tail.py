"""A wrong 'translation' of add_orig.py: it forgets the ragged tail (last n % BLOCK elements)."""
import torch

BLOCK = 16


def vec_add(x, y):
    out = torch.zeros_like(x)
    n = x.numel()
    for start in range(0, n - n % BLOCK, BLOCK):
        out[start:start + BLOCK] = x[start:start + BLOCK] + y[start:start + BLOCK]
    return out
