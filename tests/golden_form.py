"""The form generated modules are checked in as golden files: the launch memo's C source, which every
generated module carries verbatim (templates/launch_memo.c, ~30 KB), is left out, so that the
goldens show what differs between translations and the tree stays small. Each golden test compares
this form, and tests/test_examples_golden.py checks that the C source in the full output is the
template's, unchanged."""
import re

C_SOURCE = re.compile(r'^_C2T_MEMO_C_SRC = r"""\n.*?"""$', re.S | re.M)
LEFT_OUT = '_C2T_MEMO_C_SRC = None    # templates/launch_memo.c, left out of golden files (tests/golden_form.py)'


def golden_form(code: str) -> str:
    """The generated module as its golden file holds it (exactly one C source left out)."""
    form, n = C_SOURCE.subn(LEFT_OUT, code)
    assert n == (1 if "def _c2t_load_memo_c(" in code else 0), f"{n} launch-memo C sources in the module"
    return form
