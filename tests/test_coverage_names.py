"""translator/coverage.py lists exactly the names the installed cuda.tile exports."""
import pytest

from translator import coverage


def test_export_list_matches_installed_cuda_tile():
    ct = pytest.importorskip("cuda.tile")
    assert set(ct.__all__) == set(coverage.EXPORTS)
