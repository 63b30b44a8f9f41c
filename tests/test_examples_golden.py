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


def test_generated_modules_carry_the_launch_memos_c_source_unchanged():
    """What the golden files leave out (tests/golden_form.py): the C source at the end of each
    generated module is templates/launch_memo.c, byte for byte."""
    from translator.paths import TEMPLATE_DIR
    code = translator.translate_file(EXAMPLES[0]).code
    c = (TEMPLATE_DIR / "launch_memo.c").read_text().rstrip("\n")
    assert f'_C2T_MEMO_C_SRC = r"""\n{c}"""\n' in code
    assert golden_form(code).count("_C2T_MEMO_C_SRC = None") == 1 and c not in golden_form(code)


def test_generated_modules_carry_the_dtype_rules_unchanged():
    """What the golden files leave out (tests/golden_form.py): the rule block of modules with stores
    is translator/dtype_rules.py's, as written there (one source for the shim and the kernels)."""
    from translator.dtype_rules import device_source
    code = translator.translate_file(EXAMPLES[0]).code
    assert "ct.store(" in EXAMPLES[0].read_text() and code.count(device_source()) == 1
    assert "def _c2t_rule_promote(" in code and "def _c2t_rule_promote(" not in golden_form(code)
    assert "def _c2t_cast(" in golden_form(code)         # (the Triton side stays in the goldens)


def test_golden_form_keeps_a_hash_of_the_launch_memo_it_leaves_out():
    """The memo's Python side is left out of golden files as a hash line: a change to it changes
    the golden; the rest of the module is kept as it is."""
    code = translator.translate_file(EXAMPLES[0]).code
    form = golden_form(code)
    assert "def _c2t_memo(" in code and "def _c2t_memo(" not in form
    assert "def _c2t_dispatch(" in code and "def _c2t_dispatch(" not in form      # the launch path too
    assert form.count("templates/host_memo.py.j2 as rendered (sha256 ") == 1
    for part in ("def _c2t_memo(", "def _c2t_dispatch(", "def _c2t_tensor(", "def _c2t_num_warps(",
                 "def _c2t_coarsen("):        # (the array checks, warps and coarsening too)
        assert part in code and part not in form
        changed = golden_form(code.replace(part, part + " "))
        assert changed != form and len(changed.splitlines()) == len(form.splitlines())
    kept = form.split("templates/host_memo.py.j2 as rendered")
    from golden_form import DTYPE_RULES, RULES_LEFT_OUT       # (left out before the memo: the dtype rules)
    assert DTYPE_RULES.sub(RULES_LEFT_OUT, code).startswith(kept[0].rsplit("\n", 1)[0])
    assert "def launch_copy_kernel(" in kept[1]      # (concat.py)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_translation_is_deterministic_and_idempotent(example):
    a = translator.translate_file(example).code
    b = translator.translate_file(example).code
    assert a == b
    # the output has no cuda.tile import: translating it again changes nothing
    again = translator.translate_source(a, "out.py")
    assert again.code == a
    assert [d.code for d in again.diagnostics] == ["C2T001"]


def test_generated_modules_define_each_name_once():
    """A host helper and a device helper with one name would silently replace each other (the
    host ct.cdiv helper once shadowed the kernels' _c2t_cdiv)."""
    import ast
    from collections import Counter
    goldens = sorted((ROOT / "tests" / "golden").rglob("*.py"))
    assert len(goldens) >= len(EXAMPLES)
    for g in goldens:
        names = Counter(n.name for n in ast.parse(g.read_text()).body
                        if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        assert not [n for n, c in names.items() if c > 1], f"{g.name}: defined twice: {names.most_common(3)}"
