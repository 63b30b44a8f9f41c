"""Spec for TileGym's liger-suite cuTile total variation distance
(`tilegym.suites.liger.cutile.tvd._tvd_forward_ct`, the forward of its autograd function).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/suites/liger/cutile/tvd.py --spec tests/gpu/tilegym/liger_tvd_spec.py \
        --mode interp --seeds 0

The entry returns (loss, grads) for p and q of shape (BT, V): loss is 0.5 * |p - q| per element
for reduction "none" (a (BT, V) array) and its row sums times a scale otherwise (a (BT,) array,
summed on the host); grads is +-0.5 * scale (+ where p > q). Rows whose label is `ignore_index`
give zeros. Host code picks one of three kernels: `_aligned` (V a multiple of the block),
`_ct` (16-byte rows) and `_gather` (other rows). Each kernel takes LOSS as 2-D or 1-D by
reduction, which the translation turns into one kernel per rank (tests/test_rank_variants.py).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

_REDUCTIONS = ("none", "sum", "mean", "batchmean")

C2T_SPEC = {
    "entry": "_tvd_forward_ct",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "bfloat16"],
    # V=64: the aligned kernel; V=100: 16-byte rows, not a multiple of the block (fp32 only;
    # bf16 rows of 200 bytes are not 16-byte multiples); V=37: the gather kernel
    "cases": [{"BT": 6, "V": v, "reduction": r, "label": lab}
              for v in (64, 100, 37) for r in _REDUCTIONS for lab in (False, True)],
    "gpu_cases": [{"BT": 300, "V": v, "reduction": r, "label": True}
                  for v in (4096, 5000, 1001) for r in _REDUCTIONS],
    "bench_cases": [{"BT": 4096, "V": 32768, "reduction": "batchmean", "label": False},
                    {"BT": 4096, "V": 32768, "reduction": "none", "label": False}],
    "bytes": "bytes_moved",
    "bound": "memory",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    bt, v = case["BT"], case["V"]
    p = torch.softmax(torch.randn(bt, v, generator=g), -1).to(dtype).to(device)
    q = torch.softmax(torch.randn(bt, v, generator=g), -1).to(dtype).to(device)
    labels = None
    if case["label"]:
        labels = torch.randint(0, v, (bt,), generator=g)
        labels[::3] = -100                      # every third row is ignored
        labels = labels.to(device)
    return (p, q, labels, case["reduction"], -100, case["label"])


def reference(p, q, shift_labels, reduction, ignore_index, has_label):
    pf, qf = p.float(), q.float()
    bt, v = p.shape
    keep = torch.ones(bt, dtype=torch.bool, device=p.device) if not has_label else shift_labels != ignore_index
    n = int(keep.sum()) if has_label else bt
    scale = {"batchmean": 1.0 / n, "mean": 1.0 / (n * v)}.get(reduction, 1.0)
    loss = 0.5 * (pf - qf).abs() * keep[:, None]
    grads = (torch.where(pf > qf, 0.5, -0.5) * scale * keep[:, None]).to(p.dtype)
    if reduction == "none":
        return loss.to(p.dtype), grads
    rows = loss.sum(1) * scale
    return (rows.sum(0) if reduction == "sum" else rows.sum()), grads


def bytes_moved(case, dtype):
    """p and q read, grads written, the loss written in float32 (per element for reduction "none",
    per row otherwise); for "none" in another dtype the host then casts the loss to that dtype
    (`output_tensor.to(p.dtype)`: the float32 loss read again and written in the input's dtype)."""
    size = torch.empty((), dtype=dtype).element_size()
    n = case["BT"] * case["V"]
    if case["reduction"] != "none":
        return 3 * n * size + case["BT"] * 4
    cast = 0 if dtype == torch.float32 else n * 4 + n * size
    return 3 * n * size + n * 4 + cast
