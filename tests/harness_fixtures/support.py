"""Shared helpers for tests/test_harness_*.py: fixture paths and a tolerant harness import."""
from __future__ import annotations

import sys
import types
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent
ROOT = FIXTURES.parents[1]


def import_harness():
    """import translator.harness, even while translator/__init__.py cannot be imported.

    When the translator package's __init__ fails (the lead is mid-edit), a bare namespace
    package stands in for ``translator`` so that ``translator.harness`` still imports.
    """
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        import translator.harness as harness
        return harness
    except ImportError:
        for name in [n for n in sys.modules if n == "translator" or n.startswith("translator.")]:
            del sys.modules[name]
        stub = types.ModuleType("translator")
        stub.__path__ = [str(ROOT / "translator")]
        stub.__file__ = str(ROOT / "translator" / "__init__.py")
        sys.modules["translator"] = stub
        import translator.harness as harness
        return harness


def fixture(name: str) -> Path:
    return FIXTURES / name


def code(name: str) -> str:
    return (FIXTURES / name).read_text()
