"""Idiom: a layout flag (a Constant[bool] choosing how a tile is loaded) gives two kernels.

`transpose` picks between a transposed load and a plain one: the translation has one @triton.jit
kernel per value, each with only its own strategy, and the launcher dispatches on the flag.
"""
import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def scale_t(x, y, TM: ConstInt, TN: ConstInt, transpose: ConstBool):
    i = ct.bid(0)
    if transpose:
        # x is (N, M): read the transposed tile
        t = ct.transpose(ct.load(x, index=(0, i), shape=(TN, TM)))
    else:
        t = ct.load(x, index=(i, 0), shape=(TM, TN))
    ct.store(y, index=(i, 0), tile=t * 2.0)


def run(x, transpose):
    m = x.shape[1] if transpose else x.shape[0]
    n = x.shape[0] if transpose else x.shape[1]
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 8),), scale_t, (x, y, 8, 16, transpose))
    return y
