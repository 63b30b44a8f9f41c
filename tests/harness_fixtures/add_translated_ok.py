"""A correct 'translation' of add_orig.py: blocked loop with a ragged tail."""
import torch

BLOCK = 16


def vec_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        out[start:stop] = x[start:stop] + y[start:stop]
    return out
