"""Stand-in original that works in place: y += a * x, returns nothing."""
import torch


def axpy_(y, x, a):
    y.add_(x, alpha=a)


def make_args(case, dtype, seed, device):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(case["M"], case["N"], generator=g).to(dtype).to(device)
    y = torch.randn(case["M"], case["N"], generator=g).to(dtype).to(device)
    return y, x, 0.5


C2T_SPEC = {
    "entry": "axpy_",
    "reference": "axpy_",
    "make_args": "make_args",
    "dtypes": ["float32"],
    "cases": [{"M": 3, "N": 5}],
}
