"""A spec kept outside the original module (--spec); make_args is defined here, the entry there."""
import torch

C2T_SPEC = {
    "entry": "vec_add",
    "make_args": "make_ints",
    "reference": "vec_add_reference",
    "op_class": "integer",
    "dtypes": ["int32"],
    "cases": [{"N": 33}],
}


def make_ints(case, dtype, seed, device):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-100, 100, (case["N"],), generator=g, dtype=dtype).to(device),
            torch.randint(-100, 100, (case["N"],), generator=g, dtype=dtype).to(device))
