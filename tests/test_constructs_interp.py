"""The construct modules used for the H200 check against real cuTile (tests/gpu/constructs.py)
also pass under the interpreter against their torch references, through `cutile2triton verify
--mode interp` (one process each)."""
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "gpu"))
import constructs  # noqa: E402

NAMES = sorted({**constructs.CONSTRUCTS, **constructs.CUSTOM})


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    d = tmp_path_factory.mktemp("constructs")
    return {p.stem: p for p in constructs.write_modules(d)}


def test_at_least_twenty_constructs():
    assert len(NAMES) >= 20


@pytest.mark.parametrize("name", NAMES)
def test_construct_matches_reference_in_interpreter(name, modules):
    r = subprocess.run([sys.executable, "-m", "translator", "verify", str(modules[name]), "--mode", "interp",
                        "--quiet"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "RESULT: PASS" in r.stdout
