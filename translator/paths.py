"""Where the grammar and templates live: the project's top-level `grammar/` and `templates/` in a
checkout (and an editable install), or their copies inside the package in a regular install
(pyproject.toml maps them to translator/grammar and translator/templates)."""
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent


def _data_dir(name: str, marker: str) -> Path:
    in_checkout = ROOT / name
    return in_checkout if (in_checkout / marker).is_file() else PACKAGE / name


GRAMMAR_DIR = _data_dir("grammar", "cutile.lark")
TEMPLATE_DIR = _data_dir("templates", "module.py.j2")
RUNTIME_DIR = PACKAGE / "runtime"     # the launch runtime generated modules import (a package)
