"""Stand-in for an original cuTile module: plain torch, runs on any device."""
import torch


def vec_add(x, y):
    return x + y


def vec_add_reference(x, y):
    return x + y


def make_args(case, dtype, seed, device):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(case["N"], generator=g).to(dtype).to(device)
    y = torch.randn(case["N"], generator=g).to(dtype).to(device)
    return x, y


def bytes_moved(case, dtype):
    return 3 * case["N"] * torch.empty((), dtype=dtype).element_size()


C2T_SPEC = {
    "entry": "vec_add",
    "reference": "vec_add_reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"N": 37}, {"N": 64}],
    "gpu_cases": [{"N": 1000}, {"N": 1023}],
    "bench_cases": [{"N": 1 << 20}],
    "bytes": "bytes_moved",
}
