"""What `cutile2triton` prints about diagnostics (issue 36, item 3): folding, the summary by code
and file, --select/--ignore, `# c2t: ignore[...]`, --strict on the examples, --explain and
docs/diagnostics.md, the JSON report, file-level diagnostics at line 1."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT

EX = ROOT / "examples"

LAT = """import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    a = ct.load(x, index=(0,), shape=(T,), latency=2)
    b = ct.load(x, index=(1,), shape=(T,), latency=2)
    c = ct.load(x, index=(2,), shape=(T,), latency=2)
    d = ct.truediv(a, b, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(y, index=(0,), tile=d + c)
"""

DECO = """import cuda.tile as ct


def mark(f):
    return f


@ct.kernel
@mark
def k(x, T: ct.Constant[int]):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(T,), latency=2))
"""


def cli(*args, cwd=ROOT, stdin=None):
    return subprocess.run([sys.executable, "-m", "translator", *map(str, args)], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=300)


def _lines(r, code):
    return [l for l in r.stderr.splitlines() if f" {code}: " in l]


def test_repeated_notes_fold_into_one_line_and_the_summary_counts_them(tmp_path):
    (tmp_path / "lat.py").write_text(LAT)
    r = cli("lat.py", "-o", "out.py", "--no-compile-check", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lat = _lines(r, "C2T202")
    assert len(lat) == 1 and lat[0].startswith("lat.py:6:9: info C2T202: ct.load: `latency` hint dropped "
                                               "(3 sites; also lines 7, 8) (hint: "), lat
    # one code at one site: one line, its messages joined
    div = _lines(r, "C2T203")
    assert len(div) == 1 and "flush_to_zero" in div[0] and "APPROX" in div[0], div
    assert "\n  C2T202     3  scheduling hint dropped\n" in r.stderr
    assert "cutile2triton: 5 notes; by code" in r.stderr


def test_a_hint_is_printed_once_per_run_and_files_with_warnings_are_summarized(tmp_path):
    src = tmp_path / "pkg"
    src.mkdir()
    (src / "a.py").write_text(DECO)
    (src / "b.py").write_text(DECO.replace("def k(", "def k2("))
    r = cli(src, "-o", tmp_path / "out", "--no-compile-check")
    assert r.returncode == 0, r.stderr
    deco = _lines(r, "C2T201")
    assert len(deco) == 2 and "(hint: re-apply it" in deco[0] and "(hint:" not in deco[1], deco
    # the same note in two files: one line, at the first
    lat = _lines(r, "C2T202")
    assert len(lat) == 1 and "(2 sites in 2 files; also " in lat[0] and lat[0].split(":")[0].endswith("a.py")
    assert "cutile2triton: 2 warnings, 2 notes in 2 files; by code" in r.stderr
    assert "files with errors or warnings:\n  a.py: 1 warning\n  b.py: 1 warning\n" in r.stderr


def test_select_and_ignore_choose_notes_and_warnings_but_not_errors(tmp_path):
    (tmp_path / "d.py").write_text(DECO)
    r = cli("d.py", "--no-compile-check", "--ignore", "C2T202", cwd=tmp_path)
    assert not _lines(r, "C2T202") and _lines(r, "C2T201") and "(1 suppressed)" in r.stderr
    r = cli("d.py", "--no-compile-check", "--select", "C2T202", "--strict", cwd=tmp_path)
    assert r.returncode == 0 and _lines(r, "C2T202") and not _lines(r, "C2T201"), r.stderr
    r = cli("d.py", "--no-compile-check", "--ignore", "C2T2", "--strict", cwd=tmp_path)     # a prefix
    assert r.returncode == 0 and "C2T2" not in r.stderr.replace("suppressed", ""), r.stderr
    r = cli("d.py", "--no-compile-check", "--strict", cwd=tmp_path)
    assert r.returncode == 1
    # errors are always reported
    (tmp_path / "bad.py").write_text("import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n    t = ct.lod(x)\n")
    r = cli("bad.py", "--no-compile-check", "--ignore", "C2T1", "--select", "C2T202", cwd=tmp_path)
    assert r.returncode == 2 and _lines(r, "C2T102"), r.stderr
    r = cli("d.py", "--ignore", "X9", cwd=tmp_path)
    assert r.returncode == 2 and "'X9' is not a diagnostic code" in r.stderr


def test_inline_suppression_on_the_line_of_the_site(tmp_path):
    src = tmp_path / "d.py"
    src.write_text(DECO.replace("@mark\n", "@mark  # c2t: ignore[C2T201]\n"))
    r = cli(src, "--no-compile-check", "--strict")
    assert r.returncode == 0 and not _lines(r, "C2T201") and _lines(r, "C2T202"), r.stderr
    src.write_text(DECO.replace("latency=2))", "latency=2))  # c2t: ignore").replace(
        "@mark\n", "@mark  # c2t: ignore[C2T202]\n"))    # (another code on the decorator's line)
    r = cli(src, "--no-compile-check", "--strict")
    assert r.returncode == 1 and _lines(r, "C2T201") and not _lines(r, "C2T202"), r.stderr
    # an error is not silenced
    bad = tmp_path / "bad.py"
    bad.write_text("import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n    t = ct.lod(x)  # c2t: ignore\n")
    r = cli(bad, "--no-compile-check")
    assert r.returncode == 2 and _lines(r, "C2T102")


def test_inline_directives_are_read_from_comments_only():
    from translator.suppress import inline_ignores
    text = 's = "# c2t: ignore[C2T202]"\nx = 1  # c2t: ignore[c2t202, C2T203]\ny = 2  # C2T: IGNORE\n'
    assert inline_ignores(text) == {2: ("C2T202", "C2T203"), 3: None}


def test_strict_passes_on_the_examples_and_on_a_package_with_an_empty_init(tmp_path):
    r = cli(EX, "-o", tmp_path / "ex", "--strict", "--no-compile-check")
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr.replace("errors or warnings", ""), r.stderr
    for f in sorted(EX.glob("*.py")):
        r = cli(f, "-o", tmp_path / f.name, "--strict", "--no-compile-check")
        assert r.returncode == 0, (f, r.stderr)
    pkg = tmp_path / "emptypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    r = cli(pkg, "-o", tmp_path / "out", "--strict")
    assert r.returncode == 0, r.stderr
    assert "emptypkg/__init__.py:1:1: info C2T001" in r.stderr      # (a file-level note: line 1, not 0:0)


def test_file_level_diagnostics_are_at_line_1(tmp_path):
    from translator.api import translate_file, translate_source
    assert [(d.code, d.line, d.col) for d in translate_source("x = 1\n").diagnostics] == [("C2T001", 1, 1)]
    assert [(d.code, d.line, d.col) for d in translate_file(tmp_path / "nope.py").diagnostics] == [("C2T004", 1, 1)]


def test_explain_prints_one_entry_per_code_and_the_docs_are_generated_from_it():
    from translator.diagnostics import CATALOG
    from translator.explain import EXPLAIN, markdown
    assert set(EXPLAIN) == set(CATALOG)
    r = cli("--explain", "c2t202")
    assert r.returncode == 0 and r.stdout.startswith("C2T202 (note): scheduling hint dropped")
    for part in ("Why: ", "What to do: ", "Example:\n    t = ct.load(", "# c2t: ignore[C2T202]"):
        assert part in r.stdout
    r = cli("--explain", "C2T10")
    assert r.returncode == 0 and r.stdout.splitlines()[0].startswith("C2T101 error")
    assert cli("--explain", "C2T999").returncode == 2
    doc = (ROOT / "docs" / "diagnostics.md").read_text()
    assert doc == markdown(), "regenerate: python -m translator.explain --markdown docs/diagnostics.md"
    assert all(f"\n## {c}\n" in doc for c in CATALOG)


def test_json_report_has_a_schema_version_and_totals(tmp_path):
    (tmp_path / "lat.py").write_text(LAT.replace("latency=2)\n    c", "latency=2)  # c2t: ignore[C2T202]\n    c"))
    (tmp_path / "plain.py").write_text("x = 1\n")
    r = cli("lat.py", "plain.py", "-o", "out", "--no-compile-check", "--json", "r.json", "--ignore", "C2T203",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["schema"] == 1 and rep["tool"].startswith("cutile2triton ")
    assert [f["file"] for f in rep["files"]] == ["lat.py", "plain.py"]
    t = rep["totals"]
    assert (t["files"], t["translated"], t["partial"], t["refused"], t["kernels"]) == (2, 2, 0, 0, 1)
    assert (t["errors"], t["warnings"], t["notes"]) == (0, 0, 3)
    assert t["by_code"] == {"C2T001": 1, "C2T202": 2} and t["suppressed"] == 3    # 1 inline, 2 --ignore
    assert {d["code"] for d in rep["files"][0]["suppressed"]} == {"C2T202", "C2T203"}


def test_a_sibling_module_translated_in_the_same_run_is_a_note(tmp_path):
    """C2T205/C2T208 ask to translate the module a name comes from: in a folder that has it, done."""
    pkg = tmp_path / "c2tsib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "lib.py").write_text("import cuda.tile as ct\n\n\ndef twice(t):\n    return t * 2\n\n\n"
                                "@ct.kernel\ndef other(x, T: ct.Constant[int]):\n"
                                "    ct.store(x, index=(0,), tile=twice(ct.load(x, index=(0,), shape=(T,))))\n")
    (pkg / "use.py").write_text("import cuda.tile as ct\nfrom .lib import twice\n\n\n@ct.kernel\n"
                                "def k(x, T: ct.Constant[int]):\n"
                                "    ct.store(x, index=(0,), tile=twice(ct.load(x, index=(0,), shape=(T,))))\n")
    r = cli(pkg, "-o", tmp_path / "out", "--strict", "--no-compile-check")
    assert r.returncode == 0, r.stderr
    assert "info C2T208" in r.stderr and "that module is translated in this run too" in r.stderr
    r = cli(pkg / "use.py", "--strict", "--no-compile-check")        # (alone: still a warning)
    assert r.returncode == 1 and "warning C2T208" in r.stderr
