"""Spec for `cutile2triton verify <TileGym>/src/tilegym/ops/cutile/softmax.py --spec THIS`.

TileGym is fetched, never committed: point the command at your checkout (with its `src` folder
importable). The entry is TileGym's own `softmax(x, use_tma=...)`, which picks the kernel."""
import torch

C2T_SPEC = {
    "entry": "softmax",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 4, "N": 37}, {"M": 3, "N": 128}],
    "gpu_cases": [{"M": 1000, "N": 1023}, {"M": 4096, "N": 4096}, {"M": 77, "N": 5000}],
    "bench_cases": [{"M": 4096, "N": 4096}, {"M": 65536, "N": 4096}],
    "bytes": "bytes_moved",
}


def make_args(case, dtype, seed, device):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(case["M"], case["N"], generator=g).to(dtype).to(device),)


def reference(x, use_tma=False):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


def bytes_moved(case, dtype):
    return 2 * case["M"] * case["N"] * torch.empty((), dtype=dtype).element_size()
