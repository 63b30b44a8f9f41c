"""Golden tests: each example's generated Triton is checked in (tests/golden/) and must match.

After an intended change of the output, regenerate with `python tests/update_goldens.py`
and review the diff.
"""
import pytest

from conftest import EXAMPLES, ROOT
from golden_form import golden_form

import translator


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_translation_matches_golden(example):
    res = translator.translate_file(example, translator.Options(source_name=f"examples/{example.name}"))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    golden = ROOT / "tests" / "golden" / f"{example.stem}.py"
    assert golden.exists(), f"missing golden {golden}; run python tests/update_goldens.py"
    assert golden_form(res.code) == golden.read_text(), f"{example.name}: output differs from {golden}"


def test_generated_modules_import_the_runtime_and_carry_none_of_it():
    """A translation imports the launch runtime's names it uses from translator.runtime (the
    goldens show the translation, not the runtime); a standalone one carries them, and the launch
    memo's C source (translator/runtime/launch_memo.c, byte for byte) at its end."""
    from translator.paths import RUNTIME_DIR
    code = translator.translate_file(EXAMPLES[0]).code
    assert "from translator.runtime.launch import" in code and "from translator.runtime.memo import _c2t_memo" in code
    assert "def _c2t_run(" not in code and "def _c2t_memo(" not in code and "_C2T_MEMO_C_SRC" not in code
    alone = translator.translate_file(EXAMPLES[0], translator.Options(standalone=True)).code
    c = (RUNTIME_DIR / "launch_memo.c").read_text().rstrip("\n")
    assert alone.rstrip().endswith(f'_C2T_MEMO_C_SRC = r"""\n{c}"""') and alone.count(c) == 1
    assert "from translator" not in alone and "import translator" not in alone
    assert "def _c2t_run(" in alone and "def _c2t_memo(" in alone


def test_generated_modules_carry_the_dtype_rules_unchanged():
    """What the golden files leave out (tests/golden_form.py): the rule block of modules with stores
    is translator/dtype_rules.py's, as written there (one source for the shim and the kernels)."""
    from translator.dtype_rules import device_source
    code = translator.translate_file(EXAMPLES[0]).code
    assert "ct.store(" in EXAMPLES[0].read_text() and code.count(device_source()) == 1
    assert "def _c2t_rule_promote(" in code and "def _c2t_rule_promote(" not in golden_form(code)
    assert "def _c2t_cast(" in golden_form(code)         # (the Triton side stays in the goldens)
