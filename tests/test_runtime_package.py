"""The launch runtime as a package (translator/runtime/): generated modules import from it exactly
the names they use; `--standalone` carries those names' pieces (and what they use) instead, and
such a module runs where translator is not importable."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import translator
from conftest import EXAMPLES, ROOT
from translator import vendor

IDIOMS = sorted((ROOT / "tests" / "idioms").glob("*.py"))
MODULES = [*EXAMPLES, *IDIOMS]


def _translate(path, standalone=False, format=False):
    res = translator.translate_file(path, translator.Options(standalone=standalone, format=format))
    assert res.code is not None, "\n".join(d.format() for d in res.diagnostics)
    return res.code


def _top_level(tree) -> set:
    out = set()
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
            out.add(st.name)
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_translation_imports_the_runtime_names_it_uses_and_no_others(path):
    code = _translate(path)
    tree = ast.parse(code)
    imported = {}
    for st in ast.walk(tree):
        if isinstance(st, ast.ImportFrom) and (st.module or "").startswith("translator"):
            assert st.module.startswith(vendor.PACKAGE + "."), st.module
            for a in st.names:
                imported[a.asname or a.name] = st.module
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert imported and set(imported) <= loads, sorted(set(imported) - loads)        # none unused
    known = vendor.exports()
    for name, module in imported.items():
        assert module == f"{vendor.PACKAGE}.{known[name]}"
    missing = {n for n in loads if n in known} - set(imported)
    assert not missing, sorted(missing)
    assert not set(imported) & _top_level(tree), "the module defines a name it imports from the runtime"
    assert "def _c2t_run(" not in code and "_C2T_MEMO_C_SRC" not in code


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_standalone_translation_defines_every_runtime_name_it_uses(path):
    code = _translate(path, standalone=True)
    assert "translator.runtime" not in code
    tree = ast.parse(code)
    defined = _top_level(tree) | {a.asname or a.name.split(".")[0] for n in ast.walk(tree)
                                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(vendor.exports())
    assert used and used <= defined, sorted(used - defined)
    for module in ("contextlib", "os", "torch", "triton"):
        if any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == module
               for n in ast.walk(tree)):
            assert module in defined, module


@pytest.mark.parametrize("standalone", [False, True])
def test_translations_are_deterministic_and_idempotent(standalone):
    for path in (EXAMPLES[0], ROOT / "examples" / "matmul.py"):
        assert _translate(path, standalone) == _translate(path, standalone)
    assert vendor.vendored(sorted(vendor.exports()))[0] == vendor.vendored(sorted(vendor.exports()))[0]


def test_the_whole_runtime_pasted_into_one_module_defines_every_name():
    """Every piece with what it reads, as --standalone pastes them (sibling prefixes dropped): it
    runs as one module and defines each runtime name."""
    code, c = vendor.vendored(sorted(vendor.exports()))
    assert c and "_rt_" not in code
    ns = {}
    exec(compile("import contextlib, functools, os\nimport torch\nimport triton\nimport triton.language as tl\n"
                 + code + "\n" + vendor.memo_c_block(), "<vendored>", "exec"), ns)
    assert set(vendor.exports()) <= set(ns), sorted(set(vendor.exports()) - set(ns))


def test_pieces_bring_what_they_read():
    need = vendor.closure({"_c2t_memo", "_c2t_run"})      # (what every launcher with a memo calls)
    assert {"_C2T_FAST_LAUNCH", "_C2T_TMA_MODE", "_c2t_globals_changed", "_C2T_MEMO_C_SRC"} <= need
    assert "_c2t_exhaustive_search" not in need and "_C2TBatch" not in need
    code, c = vendor.vendored(["_c2t_host_cdiv"])
    assert not c and code.startswith("def _c2t_host_cdiv(") and "_c2t_run" not in code


_FIRST = """
import importlib, sys
for module in sys.argv[1:]:
    for name in [n for n in sys.modules if n.startswith("translator")]:
        del sys.modules[name]
    importlib.import_module("translator.runtime." + module)
print("OK")
"""


def test_each_runtime_module_imports_on_its_own():
    """The modules read each other's names at call time (`_rt_<module>.<name>`), so that any one
    of them imports first (each imported with no runtime module loaded before it)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _FIRST, *vendor.MODULES], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "OK", done.stderr


_ALONE = """
import sys
sys.modules["translator"] = None        # translator cannot be imported here
sys.path.insert(0, sys.argv[1])
import torch
import {name} as m
{body}
print("OK")
"""


@pytest.mark.parametrize("example, body", [
    ("vector_add", "a, b = torch.randn(3000), torch.randn(3000)\nassert torch.equal(m.vector_add(a, b), a + b)"),
    ("matmul", "a, b = torch.randn(70, 48), torch.randn(48, 40)\n"
               "torch.testing.assert_close(m.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)"),
])
def test_a_standalone_translation_runs_without_translator(tmp_path, example, body):
    (tmp_path / f"{example}_alone.py").write_text(_translate(ROOT / "examples" / f"{example}.py", standalone=True))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TRITON_INTERPRET"] = "1"
    done = subprocess.run([sys.executable, "-I", "-c", _ALONE.format(name=f"{example}_alone", body=body),
                           str(tmp_path)], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stdout[-2000:] + done.stderr[-3000:]


def test_the_cli_writes_a_standalone_translation(tmp_path):
    out = tmp_path / "va.py"
    done = subprocess.run([sys.executable, "-m", "translator", "--standalone", "--no-compile-check",
                           str(EXAMPLES[0]), "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "cutile2triton --standalone " in text.splitlines()[1] and "translator.runtime" not in text
    assert text == _translate(EXAMPLES[0], standalone=True, format=True)     # (the command formats by default)


def test_the_package_and_standalone_modules_build_one_c_lookup():
    """translator.runtime.memo's C source is the very text a standalone module carries as its
    literal: Triton's cache (keyed by the source) builds the lookup once for both."""
    from translator.runtime import memo
    ns = {}
    exec(compile(vendor.memo_c_block(), "<memo-c>", "exec"), ns)
    assert ns["_C2T_MEMO_C_SRC"] == memo._C2T_MEMO_C_SRC and "PyInit_" not in memo._C2T_MEMO_C_SRC[:10]
