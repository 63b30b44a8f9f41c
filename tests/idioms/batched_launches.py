"""Idiom: a host loop of launches becomes batched launches (program_id(1) picks the launch).

Up to four launches of `add_k` share one launch of its `_batch4` twin when the run-time checks
allow it (1-D grids, equal Constant arguments, no launch writing memory another one touches).
"""
import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def add_k(src, dst, c, T: ConstInt):
    i = ct.bid(0)
    t = ct.load(src, index=(i,), shape=(T,))
    ct.store(dst, index=(i,), tile=t + c)


def run(srcs, dsts, c, tiles):
    for s, d, t in zip(srcs, dsts, tiles):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(s.shape[0], t),), add_k, (s, d, c, t))
