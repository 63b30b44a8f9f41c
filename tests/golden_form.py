"""The form generated modules are checked in as golden files. The launch runtime is not in them
(generated modules import it from translator.runtime, tests/test_runtime_*.py test it there); one
part that modules with stores or atomics carry alike is left out, so that the goldens show what
differs between translations:
- the rule block of translator/dtype_rules.py (its source, copied: templates/prelude_casts.py.j2),
  replaced by a line (tests/test_examples_golden.py checks that the full output carries it
  unchanged).
Each golden test compares this form."""
import re

DTYPE_RULES = re.compile(r"^# cuTile's dtype rules: cutile2triton's translator/dtype_rules\.py, as written there\n.*?"
                         r"^# \(end of translator/dtype_rules\.py's rules\)$", re.S | re.M)
RULES_LEFT_OUT = "# translator/dtype_rules.py's rule block, left out of golden files (tests/golden_form.py)"


def golden_form(code: str) -> str:
    """The generated module as its golden file holds it (at most one rule block left out)."""
    form, n = DTYPE_RULES.subn(RULES_LEFT_OUT, code)
    assert n <= 1, f"{n} dtype rule blocks in the module"
    return form
