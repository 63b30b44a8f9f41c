"""A spec that names an entry the original does not define."""
C2T_SPEC = {"entry": "does_not_exist", "make_args": "make_args", "cases": [{"N": 4}]}


def make_args(case, dtype, seed, device):
    return ()
