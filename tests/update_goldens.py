"""Regenerate tests/golden/*.py from examples/*.py and tests/golden/idioms/*.py from tests/idioms/*.py
(review the diff before committing), in their golden form (tests/golden_form.py)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
import translator  # noqa: E402
from golden_form import golden_form  # noqa: E402

for folder, out in (("examples", "tests/golden"), ("tests/idioms", "tests/golden/idioms")):
    for ex in sorted((ROOT / folder).glob("*.py")):
        if ex.name == "__init__.py":
            continue
        res = translator.translate_file(ex, translator.Options(source_name=f"{folder}/{ex.name}"))
        if res.code is None:
            sys.exit("\n".join(d.format() for d in res.diagnostics))
        (ROOT / out / ex.name).write_text(golden_form(res.code))
        print("wrote", ROOT / out / ex.name)
