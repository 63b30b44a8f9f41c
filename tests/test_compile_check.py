"""The translation check (translator/check.py): a translation that exits 0 parses and Triton's
front end accepts its kernels; what Triton rejects is a located C2T110 error naming the kernel,
the argument types and Triton's message (C2T215 when only some types fail, C2T216 when the check
cannot tell)."""
import textwrap

import pytest

import translator
from translator import check as C
from translator.api import Options
from conftest import EXAMPLES
from kernel_util import HEADER

CHECK = Options(check=True)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_pass_the_check(path):
    res = translator.translate_file(path, CHECK)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert not [d for d in res.diagnostics if d.code in ("C2T110", "C2T215", "C2T216", "C2T005")]


def test_invalid_python_is_reported_not_claimed():
    found = C.check_module("def f(a, , b):\n    pass\n", [])
    assert [f.code for f in found] == ["C2T005"] and "not valid Python" in found[0].message


def test_check_cases_in_a_compiling_process():
    """tests/compile_check_cases.py, run by pytest in a process without TRITON_INTERPRET."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parent
    env = dict(os.environ, TRITON_INTERPRET="0")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(here / "compile_check_cases.py")],
                       capture_output=True, text=True, env=env, cwd=here.parent, timeout=900)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout


from compile_check_cases import SRC  # noqa: E402  (one kernel for both files)


def test_the_check_runs_elsewhere_under_the_interpreter():
    """Here TRITON_INTERPRET=1 (conftest): the check runs in a process of its own, and finds
    nothing wrong with a correct kernel."""
    res = translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py", CHECK)
    assert res.ok and res.exit_code() == 0, [d.format() for d in res.diagnostics]
    # (a check that could not run is a C2T216 warning, which would leave res.ok true)
    assert not [d for d in res.diagnostics if d.code in ("C2T110", "C2T215", "C2T216")]


def test_check_is_the_default_unless_turned_off(monkeypatch):
    import translator.api as api
    called = []
    monkeypatch.setattr(api, "_check", lambda code, info, plans, rep, options, source=None: called.append(len(plans)))
    monkeypatch.setenv("C2T_CHECK", "1")
    translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py")
    assert called == [1]
    translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py", Options(check=False))
    assert called == [1]




def test_folder_mode_passes_the_option_on(tmp_path):
    from translator.cli import main
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "m.py").write_text(HEADER + textwrap.dedent(SRC))
    assert main([str(tmp_path / "p"), "-o", str(tmp_path / "o"), "--no-compile-check", "-q"]) == 0
    assert main([str(tmp_path / "p" / "m.py"), "-o", str(tmp_path / "o.py"), "-q"]) == 0
