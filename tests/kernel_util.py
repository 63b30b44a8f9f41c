"""Translate a cuTile source string and import the result (for small semantic tests)."""
import importlib.util
import itertools
import sys
import textwrap

import translator

_ids = itertools.count()
HEADER = "import math\nimport torch\nimport cuda.tile as ct\nConstInt = ct.Constant[int]\n"


def translate(src: str):
    res = translator.translate_source(HEADER + textwrap.dedent(src), "test_kernel.py")
    return res


def build(src: str, tmp_path):
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    name = f"c2t_sem_{next(_ids)}"
    path = tmp_path / f"{name}.py"
    path.write_text(res.code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def codes(src: str) -> list:
    return [d.code for d in translate(src).diagnostics]
