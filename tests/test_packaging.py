"""A regular (non-editable) install must carry every subpackage, the grammar and the templates:
`pip install cutile2triton-checkout/` once installed a package without translator.ir and without
templates, and `cutile2triton` failed on import."""
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_carries_subpackages_grammar_and_templates(tmp_path):
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(tmp_path),
                    str(ROOT)], check=True, capture_output=True, text=True, cwd=tmp_path)
    (wheel,) = tmp_path.glob("cutile2triton-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {str(p.parent.relative_to(ROOT)) for p in (ROOT / "translator").rglob("__init__.py")}
    for pkg in packages:
        assert f"{pkg}/__init__.py" in names, f"{pkg} missing from the wheel"
    for t in (ROOT / "templates").glob("*.j2"):
        assert f"translator/templates/{t.name}" in names
    assert "translator/grammar/cutile.lark" in names
    assert "translator/runtime/launch_memo.c" in names and "translator/runtime/memo.py" in names


def test_installed_layout_finds_its_data(tmp_path, monkeypatch):
    """Outside a checkout (no top-level grammar/ and templates/ beside the package), the copies
    inside the package are used."""
    import translator.paths as paths
    pkg = tmp_path / "translator"
    (pkg / "templates").mkdir(parents=True)
    (pkg / "grammar").mkdir()
    monkeypatch.setattr(paths, "PACKAGE", pkg)
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    assert paths._data_dir("templates", "module.py.j2") == pkg / "templates"
    (tmp_path / "templates").mkdir()                 # an unrelated top-level templates/ folder
    assert paths._data_dir("templates", "module.py.j2") == pkg / "templates"
    monkeypatch.setattr(paths, "ROOT", ROOT)
    assert paths._data_dir("grammar", "cutile.lark") == ROOT / "grammar"
