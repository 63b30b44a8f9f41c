"""Execution tests: every translated example runs under the Triton interpreter on CPU tensors
and matches its torch reference on the example's small cases (ragged shapes included), for each
dtype the example declares (fp32, fp16 and bf16 for the float examples), with two seeds."""
import pytest

from conftest import EXAMPLES
from run_example import run_cases


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_matches_reference(example):
    n = run_cases(example, seeds=(0, 1))
    assert n >= 6, f"only {n} cases ran"


def test_a_wrong_reference_is_caught(tmp_path):
    """The comparison can fail: an example whose reference is off on the ragged tail."""
    from conftest import ROOT
    src = (ROOT / "examples" / "vector_add.py").read_text()
    src = src.replace("    return a + b\n", "    out = a + b\n    out[-1:] += 1\n    return out\n", 1)
    bad = tmp_path / "vector_add_badref.py"
    bad.write_text(src)
    with pytest.raises(AssertionError, match="not close"):
        run_cases(bad, dtypes=["float32"])
