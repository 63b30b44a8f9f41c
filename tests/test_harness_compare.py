"""Tolerance policy and tensor comparison (translator/harness/tolerance.py, compare.py)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import import_harness  # noqa: E402

import_harness()
import torch  # noqa: E402

from translator.harness.compare import compare_outputs, compare_tensors  # noqa: E402
from translator.harness.tolerance import policy_table, tolerance_for  # noqa: E402


def test_policy_values():
    assert tolerance_for(torch.bfloat16) == (1.6e-2, 1e-2)
    assert tolerance_for(torch.float32) == (1e-5, 1e-5)
    assert tolerance_for(torch.float32, "matmul")[0] > tolerance_for(torch.float32)[0]
    assert tolerance_for(torch.int32, "matmul") == (0.0, 0.0)
    assert tolerance_for(torch.float16, "integer") == (0.0, 0.0)
    assert tolerance_for("float16", overrides={"float16": (1e-1, 2e-1)}) == (0.1, 0.2)
    loose = tolerance_for(torch.float16, "elementwise", nondeterministic=True)
    assert loose[0] >= tolerance_for(torch.float16, "reduction")[0]
    rows = {r["dtype"]: r for r in policy_table("reduction")}
    assert rows["float16"]["rtol"] == 5e-3 and rows["int*/uint*/bool"]["atol"] == 0


def test_one_ulp_fp16_passes_but_two_percent_fails():
    e = torch.tensor([1.0, 1000.0, -3.5], dtype=torch.float16)
    a = e.clone()
    a[1] = torch.nextafter(a[1:2].float(), torch.tensor([2000.0])).half()[0] + 0.5   # one fp16 ulp at 1000
    assert compare_tensors("out", e, a).passed
    b = e * 1.02
    chk = compare_tensors("out", e, b)
    assert not chk.passed and chk.mismatches == 3 and chk.max_rel == pytest.approx(0.02, rel=0.1)


def test_nan_inf_dtype_shape_and_integers():
    e = torch.tensor([float("nan"), float("inf"), 1.0])
    assert compare_tensors("o", e, e.clone()).passed
    assert not compare_tensors("o", e, torch.tensor([0.0, float("inf"), 1.0])).passed
    assert not compare_tensors("o", e, torch.tensor([float("nan"), -float("inf"), 1.0])).passed
    d = compare_tensors("o", e, e.double())
    assert not d.passed and "dtype" in d.problem
    s = compare_tensors("o", e, e[:2])
    assert not s.passed and "shape" in s.problem
    i = torch.arange(10, dtype=torch.int32)
    assert not compare_tensors("o", i, i + (i == 9).int()).passed


def test_compare_outputs_pairs_by_name():
    x = torch.ones(3)
    checks = compare_outputs([("out[0]", x), ("arg[1]", x)], [("out[0]", x)])
    assert [c.passed for c in checks] == [True, False]
    checks = compare_outputs([("out", x)], [("out", x), ("out[1]", x)])
    assert [c.passed for c in checks] == [True, False]
