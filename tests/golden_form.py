"""The form generated modules are checked in as golden files. Two parts that every module with
launchers carries, rendered from templates alike, are left out, so that the goldens show what
differs between translations and the tree stays small:
- the launch memo's C source (templates/launch_memo.c, ~30 KB), replaced by a line
  (tests/test_examples_golden.py checks that the full output carries the template unchanged);
- the launch memo's Python side (templates/host_memo.py.j2 as rendered, ~20 KB), replaced by a
  line with the SHA-256 of its text: any change to it still changes the golden (that line).
Each golden test compares this form."""
import hashlib
import re

C_SOURCE = re.compile(r'^_C2T_MEMO_C_SRC = r"""\n.*?"""$', re.S | re.M)
LEFT_OUT = '_C2T_MEMO_C_SRC = None    # templates/launch_memo.c, left out of golden files (tests/golden_form.py)'
# host_memo.py.j2 renders from its opening comment to the end of _c2t_scratch; host_prelude.py.j2
# puts `_c2t_tensor` right after it
MEMO_PY = re.compile(r"^# The launch memo\. All of a launcher's work.*?(?=\n\n\ndef _c2t_tensor\()", re.S | re.M)


def _memo_line(match) -> str:
    digest = hashlib.sha256(match.group(0).encode()).hexdigest()[:16]
    return f"# templates/host_memo.py.j2 as rendered (sha256 {digest}), left out of golden files (tests/golden_form.py)"


def golden_form(code: str) -> str:
    """The generated module as its golden file holds it (exactly one C source and one memo left out)."""
    launchers = "def _c2t_load_memo_c(" in code
    form, n = C_SOURCE.subn(LEFT_OUT, code)
    assert n == (1 if launchers else 0), f"{n} launch-memo C sources in the module"
    form, n = MEMO_PY.subn(_memo_line, form)
    assert n == (1 if launchers else 0), f"{n} launch-memo Python sections in the module"
    return form
