# SPDX-License-Identifier: Apache-2.0
"""A foreach op over a list of tensors, as people write it around one kernel (issue 37):

    for t in tensors:  o = torch.empty_like(t);  ct.launch(..., axpb, (t, o, a, b, TILE));  outs.append(o)

cuTile runs one launch per tensor; the translation batches the loop (up to four launches in one,
translator/host_rules/launches.py), so at small sizes, where the launches dominate, the row shows
what the batching buys. Written for this project in the cuTile style.
"""
import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]
TILE = 1024


@ct.kernel
def axpb(x, out, a, b, T: ConstInt):
    i = ct.bid(0)
    t = ct.astype(ct.load(x, index=(i,), shape=(T,), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(i,), tile=ct.astype(t * a + b, out.dtype))


def foreach_axpb(tensors, a, b):
    outs = []
    for t in tensors:
        o = torch.empty_like(t)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(t.shape[0], TILE),), axpb, (t, o, a, b, TILE))
        outs.append(o)
    return outs


def foreach_axpb_reference(tensors, a, b):
    return [(t.float() * a + b).to(t.dtype) for t in tensors]


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    sizes = [case["n"] + 37 * k for k in range(case["count"])]       # ragged, none a tile multiple
    return [torch.randn(s, generator=g).to(dtype).to(device) for s in sizes], 1.5, -0.25


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    elem = torch.empty((), dtype=dtype).element_size()
    return 2 * elem * sum(case["n"] + 37 * k for k in range(case["count"]))


C2T_SPEC = {
    "entry": "foreach_axpb",
    "reference": "foreach_axpb_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "bfloat16"],
    "cases": [{"n": 5, "count": 6}, {"n": 1500, "count": 3}],
    "gpu_cases": [{"n": 100000, "count": 9}],
    "bench_cases": [{"n": 4096, "count": 16}, {"n": 65536, "count": 16}],
    "bytes": "bytes_moved",
    "bound": "memory",
}
