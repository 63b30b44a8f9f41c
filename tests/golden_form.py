"""The form generated modules are checked in as golden files. Two parts that every module with
launchers carries, rendered from templates alike, are left out, so that the goldens show what
differs between translations and the tree stays small:
- the launch memo's C source (templates/launch_memo.c, ~30 KB), replaced by a line
  (tests/test_examples_golden.py checks that the full output carries the template unchanged);
- the launchers' common path: templates/host_prelude.py.j2 from its start (stream handling,
  `_c2t_run`, the dispatch and its retries) through the launch memo (templates/host_memo.py.j2),
  the array checks, `_c2t_num_warps` and program coarsening's `_c2t_coarsen`, to the line that
  says where it ends, as rendered (~35 KB), replaced by a line with the SHA-256 of its text: any
  change to it still changes the golden (that line). The launchers, kernels and the helpers after
  it (descriptors, config searches, batched launches: the issue's idioms) stay in the goldens as
  they are.
- the rule block of translator/dtype_rules.py that modules with stores or atomics carry (its
  source, copied: templates/prelude_casts.py.j2), replaced by a line.
Each golden test compares this form."""
import hashlib
import re

C_SOURCE = re.compile(r'^_C2T_MEMO_C_SRC = r"""\n.*?"""$', re.S | re.M)
LEFT_OUT = '_C2T_MEMO_C_SRC = None    # templates/launch_memo.c, left out of golden files (tests/golden_form.py)'
# host_prelude.py.j2 opens with `_C2T_NO_STREAM` and marks where its common path ends
MEMO_PY = re.compile(r"^_C2T_NO_STREAM = contextlib\.nullcontext\(\)\n.*?"
                     r"^# \(the launchers' common path ends here: templates/host_prelude\.py\.j2\)$", re.S | re.M)


DTYPE_RULES = re.compile(r"^# cuTile's dtype rules: cutile2triton's translator/dtype_rules\.py, as written there\n.*?"
                         r"^# \(end of translator/dtype_rules\.py's rules\)$", re.S | re.M)
RULES_LEFT_OUT = "# translator/dtype_rules.py's rule block, left out of golden files (tests/golden_form.py)"


def _memo_line(match) -> str:
    digest = hashlib.sha256(match.group(0).encode()).hexdigest()[:16]
    return (f"# templates/host_prelude.py.j2's launch path and templates/host_memo.py.j2 as rendered (sha256 {digest}),"
            f"\n# left out of golden files (tests/golden_form.py)")


def golden_form(code: str) -> str:
    """The generated module as its golden file holds it (exactly one C source and one memo left out)."""
    launchers = "def _c2t_load_memo_c(" in code
    form, n = C_SOURCE.subn(LEFT_OUT, code)
    assert n == (1 if launchers else 0), f"{n} launch-memo C sources in the module"
    form, n = MEMO_PY.subn(_memo_line, form)
    assert n == (1 if launchers else 0), f"{n} launch-memo Python sections in the module"
    form, n = DTYPE_RULES.subn(RULES_LEFT_OUT, form)
    assert n <= 1, f"{n} dtype rule blocks in the module"
    return form
