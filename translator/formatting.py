"""The layout of generated modules: ruff's formatter (`ruff format`, the Black style) at a line
length of 120, run on every translated module so that it passes `ruff format --check
--line-length 120` as written (issue 36). ruff is a dependency (pyproject.toml): one binary, about
10 ms a module, and the same formatter users run in CI; it reads no configuration file here
(`--isolated`), so the output does not depend on the folder it is written to.

The formatter changes layout only (ruff checks that the formatted module parses to the same
tree); the shim does not format (its line numbers map back to the user's source)."""
from __future__ import annotations

import subprocess

LINE_LENGTH = 120


class FormatError(RuntimeError):
    pass


def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin
    return find_ruff_bin()


def format_code(code: str) -> str:
    """`code` as ruff formats it (raises FormatError where ruff cannot)."""
    r = subprocess.run([ruff_binary(), "format", "--isolated", "--line-length", str(LINE_LENGTH),
                        "--stdin-filename", "generated.py", "-"],
                       input=code, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise FormatError(f"ruff format failed: {r.stderr.strip()[:500]}")
    return r.stdout


def _names_used(tree) -> set:
    import ast
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
    return used


def drop_orphaned_imports(source: str, code: str) -> str:
    """`code` without the module-level imports that only translated code used: a name the input
    reads somewhere, that the output binds by an import and no longer reads (the kernels that read
    it became Triton code). Imports the input does not read either are the user's and stay. A
    statement goes only when every name it binds goes."""
    import ast
    try:
        out_tree, in_tree = ast.parse(code), ast.parse(source)
    except SyntaxError:
        return code
    used_in, used_out = _names_used(in_tree), _names_used(out_tree)
    drop = []
    for stmt in out_tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) or getattr(stmt, "module", None) == "__future__":
            continue
        bound = [a.asname or a.name.split(".")[0] for a in stmt.names]
        if "*" not in bound and all(b in used_in and b not in used_out for b in bound):
            drop.append((stmt.lineno, stmt.end_lineno))
    if not drop:
        return code
    lines = code.split("\n")
    for start, end in reversed(drop):
        del lines[start - 1:end]
    return "\n".join(lines)
