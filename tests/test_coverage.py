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
    assert not {n.split(".")[0] for n in registry.translated_names()} - set(coverage.EXPORTS)     # (Array.from_foreign)


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


def test_member_statuses_match_what_the_translator_does():
    """A TiledView member the table calls translated lowers; one it calls refused is refused with a
    diagnostic (the table once called dtype, tile_shape and traversal_steps refused, which the
    lowering and test_lang_views.py's kernels use)."""
    from kernel_util import translate
    src = """
    @ct.kernel
    def k(x, y, B: ConstInt):
        tv = x.tiled_view((B,))
        t = tv.load((ct.bid(0),))
        ct.store(y, index=(ct.bid(0),), tile=t + {use})
    """
    uses = {"dtype": "ct.zeros((B,), dtype=tv.dtype)", "tile_shape": "tv.tile_shape[0]",
            "traversal_steps": "tv.traversal_steps[0]", "num_tiles": "tv.num_tiles(0)"}
    for member in coverage_report.CT.TILEDVIEW_MEMBERS:
        status = coverage_report.member_status("TiledView", member)
        if member in uses:
            res = translate(src.format(use=uses[member]))
            assert status == "translated" and res.ok, (member, [d.format() for d in res.diagnostics])
    res = translate(src.format(use="tv.no_such_member"))
    assert not res.ok and any(d.code == "C2T101" for d in res.diagnostics)


def test_op_handlers_see_only_the_lowering_context():
    """Issue 34: ops modules import neither the lowerer nor helpers.py, the lowering package has no
    import circle, and the context's fields are set once."""
    import ast
    import house_facts
    from translator.lower import context
    lower = ROOT / "translator" / "lower"
    for path in [*lower.glob("ops*.py"), lower / "context.py"]:
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.ImportFrom):
                assert not {n.module, *(a.name for a in n.names)} & {"kernel", "helpers", "exprs"}, path
    assert house_facts.facts()["import_circles"] == 0
    cx = object.__new__(context.LoweringContext)
    cx.info = 1
    with pytest.raises(AttributeError):
        cx.info = 2
