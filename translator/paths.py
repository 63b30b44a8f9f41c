"""Where the grammar and templates live (top-level `grammar/` and `templates/` of the project)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR_DIR = ROOT / "grammar"
TEMPLATE_DIR = ROOT / "templates"
