"""Element-wise comparison of output tensors, with error statistics.

Works on any torch device; statistics are computed in float64 on the tensors' device.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .tolerance import dtype_name, tolerance_for


@dataclass
class OutputCheck:
    """One compared tensor (a returned value or a mutated input)."""
    name: str
    passed: bool
    expected_dtype: str
    actual_dtype: str
    expected_shape: list
    actual_shape: list
    rtol: float = 0.0
    atol: float = 0.0
    max_abs: float = 0.0
    max_rel: float = 0.0
    mismatches: int = 0
    numel: int = 0
    problem: str = ""                 # why it failed, in words ("" when it passed)
    first_mismatch: list = field(default_factory=list)   # index of the first bad element

    def to_dict(self) -> dict:
        return asdict(self)


def flatten_tensors(obj: Any, prefix: str) -> list[tuple[str, Any]]:
    """[(name, tensor)] for every torch tensor in obj (tensor, tuple/list, dict), in order."""
    import torch
    if isinstance(obj, torch.Tensor):
        return [(prefix, obj)]
    if isinstance(obj, (list, tuple)):
        out = []
        for i, v in enumerate(obj):
            out += flatten_tensors(v, f"{prefix}[{i}]")
        return out
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            out += flatten_tensors(v, f"{prefix}[{k!r}]")
        return out
    return []


def _as_f64(t):
    import torch
    if t.dtype == torch.bool:
        return t.to(torch.float64)
    if t.is_complex():
        return torch.view_as_real(t).to(torch.float64)
    return t.to(torch.float64)


def compare_tensors(name: str, expected, actual, *, op_class: str = "elementwise",
                    nondeterministic: bool = False, overrides: dict | None = None) -> OutputCheck:
    """Compare ``actual`` against ``expected`` with the policy's tolerance for expected's dtype."""
    import torch
    if not isinstance(actual, torch.Tensor):
        return OutputCheck(name, False, dtype_name(expected.dtype), type(actual).__name__,
                           list(expected.shape), [], problem=f"expected a tensor, got {type(actual).__name__}")
    rtol, atol = tolerance_for(expected.dtype, op_class, nondeterministic=nondeterministic, overrides=overrides)
    chk = OutputCheck(name, True, dtype_name(expected.dtype), dtype_name(actual.dtype),
                      list(expected.shape), list(actual.shape), rtol, atol, numel=expected.numel())
    problems = []
    if expected.dtype != actual.dtype:
        problems.append(f"dtype {chk.actual_dtype} != expected {chk.expected_dtype}")
    if expected.shape != actual.shape:
        problems.append(f"shape {chk.actual_shape} != expected {chk.expected_shape}")
        chk.passed, chk.problem = False, "; ".join(problems)
        return chk
    if expected.numel() == 0:
        chk.passed, chk.problem = not problems, "; ".join(problems)
        return chk
    e = _as_f64(expected.detach())
    a = _as_f64(actual.detach()).to(e.device)
    diff = (a - e).abs()
    both_nan = torch.isnan(e) & torch.isnan(a)
    same_inf = torch.isinf(e) & (a == e)
    ok = ((diff <= atol + rtol * e.abs()) & torch.isfinite(e)) | both_nan | same_inf
    bad = ~ok
    chk.mismatches = int(bad.sum().item())
    finite = torch.isfinite(diff) & ~both_nan & ~same_inf
    if finite.any():
        d = diff[finite]
        chk.max_abs = float(d.max().item())
        denom = e.abs()[finite]
        nz = denom > 0
        chk.max_rel = float((d[nz] / denom[nz]).max().item()) if nz.any() else 0.0
    if (~finite & bad).any():
        chk.max_abs = chk.max_rel = float("inf")
    if chk.mismatches:
        idx = bad.nonzero()[0].tolist()
        chk.first_mismatch = idx
        ev = e[tuple(idx)].item() if idx else e.item()
        av = a[tuple(idx)].item() if idx else a.item()
        problems.append(f"{chk.mismatches}/{chk.numel} elements outside tolerance "
                        f"(first at {idx}: got {av:.6g}, expected {ev:.6g})")
    chk.passed = not problems
    chk.problem = "; ".join(problems)
    return chk


def compare_outputs(expected: list[tuple[str, Any]], actual: list[tuple[str, Any]], **policy) -> list[OutputCheck]:
    """Pair named tensors by name; a missing or extra tensor is itself a failed check."""
    act = dict(actual)
    checks = []
    for name, exp in expected:
        if name not in act:
            checks.append(OutputCheck(name, False, dtype_name(exp.dtype), "missing", list(exp.shape), [],
                                      problem="the translated entry did not produce this tensor"))
            continue
        checks.append(compare_tensors(name, exp, act[name], **policy))
    known = {n for n, _ in expected}
    for name, a in actual:
        if name not in known:
            checks.append(OutputCheck(name, False, "missing", dtype_name(a.dtype), [], list(a.shape),
                                      problem="the translated entry returned a tensor the original did not"))
    return checks
