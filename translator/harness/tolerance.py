"""Tolerance policy: one table of (rtol, atol) per output dtype and op class.

An element passes when ``|actual - expected| <= atol + rtol * |expected|`` (NaN matches
NaN, infinities must match exactly).  Integer and bool outputs are always compared
exactly, whatever the op class.  The table is printed in every report.
"""
from __future__ import annotations

OP_CLASSES = ("elementwise", "reduction", "matmul", "integer")

# dtype name -> op class -> (rtol, atol)
POLICY: dict[str, dict[str, tuple[float, float]]] = {
    "float64": {"elementwise": (1e-12, 1e-12), "reduction": (1e-10, 1e-12), "matmul": (1e-10, 1e-10)},
    "float32": {"elementwise": (1e-5, 1e-5), "reduction": (1e-4, 1e-5), "matmul": (1e-4, 1e-4)},
    "float16": {"elementwise": (1e-3, 1e-3), "reduction": (5e-3, 5e-3), "matmul": (1e-2, 1e-2)},
    "bfloat16": {"elementwise": (1.6e-2, 1e-2), "reduction": (1.6e-2, 2e-2), "matmul": (3.2e-2, 4e-2)},
    "float8_e4m3fn": {"elementwise": (1.25e-1, 1.6e-2), "reduction": (1.25e-1, 3e-2), "matmul": (1.25e-1, 6e-2)},
    "float8_e5m2": {"elementwise": (2.5e-1, 3e-2), "reduction": (2.5e-1, 6e-2), "matmul": (2.5e-1, 1.2e-1)},
}

# Nondeterministic kernels (atomics order, split-K): the op class's tolerance times this,
# and never tighter than the reduction row.
NONDETERMINISTIC_FACTOR = 4.0

EXACT_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def dtype_name(dtype) -> str:
    """'float16' for torch.float16, numpy float16 or the string 'float16'."""
    s = str(dtype)
    return s.split(".", 1)[1] if s.startswith("torch.") else s


def tolerance_for(dtype, op_class: str = "elementwise", *, nondeterministic: bool = False,
                  overrides: dict | None = None) -> tuple[float, float]:
    """(rtol, atol) for an output of ``dtype`` produced by a kernel of ``op_class``."""
    name = dtype_name(dtype)
    if overrides and name in overrides:
        rtol, atol = overrides[name]
        return float(rtol), float(atol)
    if name in EXACT_DTYPES or op_class == "integer":
        return 0.0, 0.0
    row = POLICY.get(name, POLICY["float32"])
    rtol, atol = row.get(op_class, row["elementwise"])
    if nondeterministic:
        red = row["reduction"]
        rtol = max(rtol * NONDETERMINISTIC_FACTOR, red[0])
        atol = max(atol * NONDETERMINISTIC_FACTOR, red[1])
    return rtol, atol


def policy_table(op_class: str, *, nondeterministic: bool = False,
                 overrides: dict | None = None) -> list[dict]:
    """Rows {dtype, rtol, atol, source} for every dtype the policy knows, for reports."""
    rows = []
    for name in list(POLICY) + ["int*/uint*/bool"]:
        probe = "int32" if name.startswith("int*") else name
        rtol, atol = tolerance_for(probe, op_class, nondeterministic=nondeterministic, overrides=overrides)
        src = "spec override" if overrides and probe in overrides else (
            "exact" if (rtol, atol) == (0.0, 0.0) else op_class + (" x nondeterministic" if nondeterministic else ""))
        rows.append({"dtype": name, "rtol": rtol, "atol": atol, "source": src})
    return rows


def describe_rule() -> str:
    return ("pass when |actual - expected| <= atol + rtol * |expected| for every element "
            "(NaN == NaN, infinities exact); dtype and shape must match; integer/bool outputs exact")
