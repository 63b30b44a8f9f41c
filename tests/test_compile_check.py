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


# ---------------------------------------------------------------- types that differ by path
# (issue 33 item 5) Triton rejects a variable whose type differs between a loop's iterations or an
# `if`'s branches; so does cuTile ("Type of `x` depends on path taken"). With int64 index arrays,
# which the check assumes and the host may not pass, `n = 0; n = n + counts[e]` is such a
# variable in both languages: an info (C2T217), not a warning. Float types stay C2T215, the
# message saying which variable.
PATH_TYPED = """
@ct.kernel
def k(counts, x, out, E: ConstInt, T: ConstInt):
    total = 0
    for e in range(E):
        total = total + ct.load(counts, index=(e,), shape=(1,)).item()
    v = 0.0
    if total > 3:
        v = ct.load(x, index=(0,), shape=(1,)).item()
    ct.store(out, index=(0,), tile=ct.full((T,), v * total, dtype=out.dtype))

def run(counts, x, out):
    ct.launch(torch.cuda.current_stream(), (1,), k, (counts, x, out, counts.shape[0], 16))
"""


def test_int64_index_arrays_cutile_rejects_too_are_an_info():
    res = translator.translate_source(HEADER + textwrap.dedent(PATH_TYPED), "k.py", CHECK)
    assert res.ok and res.exit_code() == 0, [d.format() for d in res.diagnostics]
    found = {d.code: d for d in res.diagnostics if d.code in ("C2T110", "C2T215", "C2T216", "C2T217")}
    assert set(found) == {"C2T215", "C2T217"}, [d.format() for d in res.diagnostics]
    info = found["C2T217"]
    assert info.severity == "info" and "int64 index arrays (counts)" in info.message
    assert "`total`" in info.message and "int32 and int64" in info.message
    assert info.line == HEADER.count("\n") + 5          # the loop whose iterations disagree
    warn = found["C2T215"]          # fp16/bf16 x: `v` is fp32 before the `if`, fp16 in it
    assert "float16 arrays" in warn.message and "int64" not in warn.message.split("rejects it with")[1].split(":")[0]
    assert "the type of `v` depends on the path taken" in warn.message


def test_float_types_by_path_stay_a_warning():
    """Where the path-dependent type is a float one, the lowering's promotion could be what
    differs from cuTile (a running ct.maximum of fp16 data was fp32 in Triton): C2T215."""
    src = PATH_TYPED.replace("ct.load(counts, index=(e,), shape=(1,)).item()", "e")
    res = translator.translate_source(HEADER + textwrap.dedent(src), "k.py", CHECK)
    assert [d.code for d in res.diagnostics if d.code.startswith("C2T21") and d.code != "C2T213"] == ["C2T215"]
