"""Spec for TileGym's cuTile SiLU-and-mul (`tilegym.ops.cutile.silu_and_mul.silu_and_mul`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/silu_and_mul.py --spec tests/gpu/tilegym/silu_and_mul_spec.py \
        --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases; TileGym has no
hand-written Triton silu_and_mul to time next to it, so there are no peers.)

The entry is TileGym's own `silu_and_mul(input, out=None)`: input (..., 2 * hidden) -> output
(..., hidden) = silu(a) * b with a = input[..., :hidden], b = input[..., hidden:]. There is one
forward kernel: one program per row of input viewed as (rows, 2 * hidden), the whole row in one
tile of next_power_of_2(hidden) (a non-power-of-two hidden exercises the masked gather/scatter).
In the kernel, a and b are widened to fp32, sigmoid(a) = 1 / (1 + exp(-a)) (the division with
rounding_mode=APPROX and flush_to_zero: Triton's fast division, only the last bits and subnormals
can differ), silu(a) * b in fp32, one cast to the output's dtype at the store; the reference
does the same in fp32 and casts once, so the elementwise row applies. Host paths: `out` given
(written in place and returned as a view: compared as a mutated input too; its dtype may differ
from input's, the kernel casts to out's dtype), `out` absent, 1-D / 3-D inputs (flattened to
rows), and a non-contiguous input (the `_ensure_contiguous` wrapper copies it first). The
`requires_grad` branch (an autograd.Function with the same forward kernel, and a backward kernel
that recomputes sigmoid) cannot be reached here: the harness detaches the inputs it copies.
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "silu_and_mul",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    # input (*lead, 2 * hidden); "out": pass an output tensor ("out_dtype": of another dtype);
    # "noncontig": input is a transposed view (the wrapper makes it contiguous)
    "cases": [
        {"lead": [5], "hidden": 37},                               # tile 64, ragged row
        {"lead": [2, 3], "hidden": 64},                            # 3-D input, exact power of two
        {"lead": [], "hidden": 33},                                # 1-D input: one row
        {"lead": [7], "hidden": 1},                                # tile 1
        {"lead": [4], "hidden": 50, "out": True},                  # out= written in place
        {"lead": [3], "hidden": 20, "out": True, "out_dtype": "float32"},   # cast to out's dtype
        {"lead": [6], "hidden": 24, "noncontig": True},            # copied by _ensure_contiguous
    ],
    "gpu_cases": [
        {"lead": [1000], "hidden": 1001},
        {"lead": [4, 333], "hidden": 2048, "out": True},
        {"lead": [257], "hidden": 14336, "noncontig": True},
    ],
    "bench_cases": [
        {"lead": [4096], "hidden": 4096},
        {"lead": [4096], "hidden": 11008},
        {"lead": [4096], "hidden": 14336},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    lead, hidden = list(case["lead"]), case["hidden"]
    if case.get("noncontig"):
        # (2 * hidden, rows) transposed: a (rows, 2 * hidden) view with strides (1, rows)
        x = (torch.randn(2 * hidden, *lead, generator=g) * 3).to(dtype).to(device).t()
    else:
        x = (torch.randn(*lead, 2 * hidden, generator=g) * 3).to(dtype).to(device)
    if not case.get("out"):
        return (x,)
    out_dtype = getattr(torch, case["out_dtype"]) if "out_dtype" in case else dtype
    out = torch.full((*lead, hidden), float("nan"), dtype=out_dtype, device=device)
    return (x, out)


def reference(input, out=None):
    hidden = input.shape[-1] // 2
    a = input[..., :hidden].float()
    b = input[..., hidden:2 * hidden].float()
    res = a * (1.0 / (1.0 + torch.exp(-a))) * b          # silu(a) * b in fp32
    if out is None:
        return res.to(input.dtype)
    out.copy_(res.to(out.dtype))
    return out


def bytes_moved(case, dtype):
    """input (rows, 2 * hidden) read, output (rows, hidden) written."""
    rows = 1
    for s in case["lead"]:
        rows *= s
    es = torch.empty((), dtype=dtype).element_size()
    out_es = torch.empty((), dtype=getattr(torch, case["out_dtype"])).element_size() if "out_dtype" in case else es
    return rows * case["hidden"] * (2 * es + out_es)
