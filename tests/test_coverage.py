"""The coverage table: every cuda.tile export classified, table current, translated ops tested."""
import re

import pytest

from conftest import ROOT
from translator import coverage, coverage_report


def test_every_export_is_classified():
    unclassified = [n for n in coverage.EXPORTS if coverage_report.classify(n)[0] is None]
    assert not unclassified


def test_no_registered_lowering_for_a_name_cuda_tile_does_not_export():
    from translator.lower import registry
    assert not registry.translated_names() - set(coverage.EXPORTS)


def test_installed_cuda_tile_matches_the_table():
    ct = pytest.importorskip("cuda.tile")
    assert set(ct.__all__) == set(coverage.EXPORTS)
    for enum, members in coverage_report.CT.ENUMS.items():
        assert [m.name for m in getattr(ct, enum)] == members


def test_coverage_md_is_current():
    assert (ROOT / "COVERAGE.md").read_text() == coverage_report.build(), \
        "regenerate with: python -m translator.coverage_report > COVERAGE.md"


def test_every_translated_operation_is_used_by_a_test_or_example():
    sources = "".join(p.read_text() for d in ("tests", "examples") for p in (ROOT / d).glob("*.py"))
    # test_lang_*.py files may build `ct.{name}(...)` calls from tables of quoted names
    tables = "".join(p.read_text() for p in (ROOT / "tests").glob("test_lang_*.py"))
    untested = [n for n in sorted(coverage.EXPORTS)
                if coverage_report.classify(n)[0] == "translated"
                and not re.search(rf"\bct\.{re.escape(n)}\(", sources)
                and f'"{n}"' not in tables]
    assert not untested, f"translated but never exercised: {untested}"
