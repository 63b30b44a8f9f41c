"""Test setup: the Triton interpreter runs generated kernels on the CPU.

TRITON_INTERPRET must be set before any @triton.jit decorator runs, so it is set here, before
the tests import anything. Compile-only checks for the H200 run in a subprocess without it.
"""
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
# the translation check (translator/check.py) is the default for users; the tests that are about
# it (tests/test_compile_check.py) ask for it with Options(check=True), the others translate
# without it so that the suite does not compile every test kernel once more
os.environ.setdefault("C2T_CHECK", "0")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if p.name != "__init__.py")


@pytest.fixture(autouse=True)
def fresh_runtime():
    """Before each test: the launch runtime's caches empty (tests/kernel_util.py reset_runtime)."""
    from kernel_util import reset_runtime
    reset_runtime()
    yield


def _slow_ids():
    lines = (ROOT / "tests" / "slow_tests.txt").read_text().splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def pytest_collection_modifyitems(config, items):
    """Mark the tests tests/slow_tests.txt lists `slow` (the fast subset: -m "not slow and not gpu")."""
    import pytest
    slow = _slow_ids()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
