"""The translations of the examples, run under the interpreter on the CPU, match outputs that the
ORIGINAL cuTile kernels produced on an H200 (recorded with `cutile2triton verify --record`, see
tests/gpu/verify_examples.sh; stored in tests/cutile_goldens/<example>/).

Each check runs `cutile2triton verify --mode interp --goldens DIR` in its own process, as a user
would in CI."""
import subprocess
import sys

import pytest

from conftest import EXAMPLES, ROOT

GOLDENS = ROOT / "tests" / "cutile_goldens"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_translation_matches_recorded_cutile_outputs(example):
    gdir = GOLDENS / example.stem
    assert (gdir / "manifest.json").exists(), f"no goldens recorded for {example.name}"
    r = subprocess.run([sys.executable, "-m", "translator", "verify", str(example), "--mode", "interp",
                        "--goldens", str(gdir), "--quiet"], capture_output=True, text=True, timeout=600,
                       cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "vs" in r.stdout and "golden" in r.stdout and "RESULT: PASS" in r.stdout, r.stdout[-2000:]
