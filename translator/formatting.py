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
