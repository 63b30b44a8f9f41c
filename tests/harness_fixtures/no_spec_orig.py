"""An original without C2T_SPEC (verify must refuse it with exit code 2)."""


def vec_add(x, y):
    return x + y
