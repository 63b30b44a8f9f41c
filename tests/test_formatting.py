"""With `--format` (the command's default; Options.format for the library), generated modules are laid out by ruff's formatter
(translator/formatting.py, issue 36 item 2)."""
import subprocess

import pytest

import translator
from conftest import EXAMPLES
from translator.formatting import LINE_LENGTH, FormatError, format_code, ruff_binary


def _ruff(*args, text):
    return subprocess.run([ruff_binary(), *args, "--isolated", "--line-length", str(LINE_LENGTH), "-"],
                          input=text, capture_output=True, text=True)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_translation_passes_ruff_format_check(example):
    res = translator.translate_file(example, translator.Options(check=False, format=True))
    assert res.code is not None
    r = _ruff("format", "--check", text=res.code)
    assert r.returncode == 0, r.stdout + r.stderr
    assert format_code(res.code) == res.code                        # idempotent


def test_unformatted_when_asked_and_for_files_returned_unchanged():
    src = "import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y):\n    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(16,)))\n"
    laid = translator.translate_source(src, "k.py", translator.Options(check=False, format=True)).code
    raw = translator.translate_source(src, "k.py", translator.Options(check=False)).code
    assert laid != raw and format_code(raw) == laid
    plain = "x = [1,\n  2]\n"                                       # not a cuTile module: C2T001, as it is
    assert translator.translate_source(plain, "p.py", translator.Options(format=True)).code == plain


def test_format_error_is_raised_not_swallowed():
    with pytest.raises(FormatError, match="ruff format failed"):
        format_code("def f(:\n")


def test_imports_only_the_kernels_read_are_dropped_the_users_others_kept():
    from translator.formatting import drop_orphaned_imports
    src = ("import math\nimport os\nimport sys\nimport cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n"
           "    t = ct.full((16,), -math.inf, ct.float32)\n    ct.store(x, (0,), t)\n\n\ndef host():\n"
           "    return sys.argv\n")
    res = translator.translate_source(src, "k.py", translator.Options(check=False, format=True))
    lines = res.code.splitlines()
    assert "import math" not in lines           # read by the kernel only: its translation does not
    assert "import os" in lines                 # the user's, read nowhere in the input either
    assert "import sys" in lines                # the host still reads it
    kept = "import math\n\nx = 1\n"
    assert drop_orphaned_imports("import math\nprint(math.pi)\n", kept) == "\nx = 1\n"
    assert drop_orphaned_imports("import math, os\nprint(math.pi, os.sep)\n", "import math, os\nos.sep\n") == \
        "import math, os\nos.sep\n"             # a statement binding a name still read stays whole


@pytest.mark.parametrize("flag", [[], ["--format"]], ids=["default", "flag"])
def test_cli_format_flag_writes_what_ruff_leaves_alone_and_lint_clean(tmp_path, flag):
    import sys
    from conftest import ROOT
    out = tmp_path / "va.py"
    r = subprocess.run([sys.executable, "-m", "translator", str(ROOT / "examples/vector_add.py"), "-o", str(out),
                        *flag, "--no-compile-check", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert _ruff("format", "--check", text=text).returncode == 0
    lint = _ruff("check", "--select", "E,F", "--output-format", "concise", text=text)
    assert lint.returncode == 0, lint.stdout


def test_cli_no_format_writes_the_translators_own_layout(tmp_path):
    import sys
    from conftest import ROOT
    out = tmp_path / "va.py"
    r = subprocess.run([sys.executable, "-m", "translator", str(ROOT / "examples/vector_add.py"), "-o", str(out),
                        "--no-format", "--no-compile-check", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    raw = translator.translate_file(ROOT / "examples/vector_add.py", translator.Options(check=False)).code
    assert out.read_text() == raw and _ruff("format", "--check", text=raw).returncode != 0
