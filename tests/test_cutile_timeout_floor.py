"""The harness's floor on cuTile's compiler_timeout (GPU mode): TileGym's 5 s ran out on a fresh
device machine, so a cuTile row had no time. The floor must only ever lengthen the timeout."""
import pytest

ct = pytest.importorskip("cuda.tile")

import importlib  # noqa: E402

verify = importlib.import_module("translator.harness.verify")


def _config():
    from cuda.tile._cext import default_tile_context
    return default_tile_context.config


def test_floor_lengthens_short_timeouts_and_keeps_long_ones(monkeypatch):
    monkeypatch.setattr(ct, "compiler_timeout", ct.compiler_timeout)      # undone after the test
    note = verify.raise_cutile_compiler_timeout(60.0)
    assert "60 s" in note
    before = _config().compiler_timeout_sec
    with ct.compiler_timeout(5):
        assert _config().compiler_timeout_sec == 60.0
    with ct.compiler_timeout(300):
        assert _config().compiler_timeout_sec == 300.0
    assert _config().compiler_timeout_sec == before
    # applying it again does not wrap the wrapper (the floor stays what was asked for)
    verify.raise_cutile_compiler_timeout(60.0)
    with ct.compiler_timeout(1):
        assert _config().compiler_timeout_sec == 60.0


def test_floor_zero_is_off(monkeypatch):
    monkeypatch.setattr(ct, "compiler_timeout", ct.compiler_timeout)
    original = ct.compiler_timeout
    assert verify.raise_cutile_compiler_timeout(0) is None
    assert ct.compiler_timeout is original
