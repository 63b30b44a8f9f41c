"""Function values in kernel code (translator/passes/fn_values.py), run under the interpreter:
locals bound to cuTile operations, helpers and array methods, module functions returning
methods, module-level tables read with a known key or dispatched on a Constant parameter."""
import os

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

from kernel_util import build, codes, translate  # noqa: E402
from translator import const_fold as C  # noqa: E402

PRELUDE = """
from enum import Enum

class Op(Enum):
    XCHG = 0
    ADD = 1
    MAX = 2

    def is_max(self):
        return self is Op.MAX

def add_method(x):
    return x.get_raw_memory().atomic_add_offset

_BY_OP = {Op.XCHG: ct.atomic_xchg, Op.ADD: ct.atomic_add}
_BY_INT = {0: ct.atomic_xchg, 1: ct.atomic_add, 2: ct.atomic_max}
_RAW = {Op.ADD: add_method}
_FNS = (ct.atomic_xchg, ct.atomic_add)
_TILES = {1: 4, 2: 8}
"""

LAUNCH = """
def run(x, y, *consts):
    ct.launch(None, (1,), k, (x, y, *consts))
"""


def _run(body: str, tmp_path, *consts, params="", extra=""):
    src = PRELUDE + extra + f"""
@ct.kernel
def k(x, y{params}):
    i = ct.arange(4, dtype=ct.int64)
    v = ct.gather(y, i)
{body}
    ct.scatter(y, i, old)
""" + LAUNCH
    mod = build(src, tmp_path)
    x = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
    y = torch.tensor([10, 1, 20, 2], dtype=torch.int32)
    mod.run(x, y, *consts)
    return x.tolist(), y.tolist()


ADDED = ([11, 3, 23, 6], [1, 2, 3, 4])
SWAPPED = ([10, 1, 20, 2], [1, 2, 3, 4])
MAXED = ([10, 2, 20, 4], [1, 2, 3, 4])


def test_ct_op_alias(tmp_path):
    assert _run("    func = ct.atomic_add\n    old = func(x, i, v)", tmp_path) == ADDED


def test_helper_alias(tmp_path):
    extra = "\n@ct.function\ndef twice(t):\n    return t * 2\n"
    assert _run("    f = twice\n    old = ct.atomic_add(x, i, f(v) - v)", tmp_path, extra=extra) == ADDED


def test_method_value(tmp_path):
    assert _run("    f = x.get_raw_memory().atomic_xchg_offset\n    old = f(i, v)", tmp_path) == SWAPPED


def test_module_function_returning_a_method(tmp_path):
    assert _run("    f = add_method(x)\n    old = f(i, v)", tmp_path) == ADDED


def test_tuple_of_functions_indexed_by_a_literal(tmp_path):
    assert _run("    fs = (ct.atomic_xchg, ct.atomic_add)\n    old = fs[1](x, i, v)", tmp_path) == ADDED


def test_table_by_enum_key(tmp_path):
    assert _run("    func = ct.static_eval(_BY_OP[Op.XCHG])\n    old = func(x, i, v)", tmp_path) == SWAPPED


def test_table_by_int_key_plain_subscript(tmp_path):
    assert _run("    old = _BY_INT[1](x, i, v)", tmp_path) == ADDED


def test_literal_table_entry(tmp_path):
    assert _run("    old = ct.atomic_add(x, i, v + _TILES[1] - 4)", tmp_path) == ADDED


@pytest.mark.parametrize("op,want", [(0, SWAPPED), (1, ADDED)])
def test_constant_dependent_enum_key(tmp_path, op, want):
    body = "    func = ct.static_eval(_BY_OP[Op(op)])\n    old = func(x, i, v)"
    assert _run(body, tmp_path, op, params=", op: ConstInt") == want


@pytest.mark.parametrize("op,want", [(1, ADDED), (2, MAXED)])
def test_constant_dependent_int_key_through_a_module_function(tmp_path, op, want):
    body = ("    if op == 1:\n        get = ct.static_eval(_RAW[Op(op)])\n        f = get(x)\n        old = f(i, v)\n"
            "    else:\n        old = _BY_INT[op](x, i, v)")
    assert _run(body, tmp_path, op, params=", op: ConstInt") == want


@pytest.mark.parametrize("op,want", [(0, SWAPPED), (1, ADDED)])
def test_tuple_of_functions_indexed_by_a_constant(tmp_path, op, want):
    assert _run("    old = _FNS[op](x, i, v)", tmp_path, op, params=", op: ConstInt") == want


def test_missing_key_fails_like_cutiles_key_error(tmp_path):
    body = "    func = ct.static_eval(_BY_OP[Op(op)])\n    old = func(x, i, v)"
    with pytest.raises(Exception, match="no entry for this value of `op`"):
        _run(body, tmp_path, 2, params=", op: ConstInt")


def test_known_missing_key_is_refused():
    src = PRELUDE + """
@ct.kernel
def k(x, y):
    func = ct.static_eval(_BY_OP[Op.MAX])
    func(x, 0, 1)
"""
    res = translate(src)
    assert not res.ok and any(d.code == "C2T106" and "KeyError" in d.message for d in res.diagnostics)


def test_host_keeps_the_table():
    res = translate(PRELUDE + "\n@ct.kernel\ndef k(x):\n    _BY_OP[Op.ADD](x, 0, 1)\n")
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "_c2t_device_function('atomic_xchg')" in res.code


def test_const_fold_dicts_only_when_asked():
    with pytest.raises(C.Refused):
        C.fold("{1: 2}")
    f = C.Ref("function", "f")
    d = C.fold("{Op.A: f, 2: ct.atomic_add}", {"Op": __import__("enum").Enum("Op", [("A", 1)]), "f": f,
                                                  "ct": C.RefSpace("ct")}, dicts=True)
    assert list(d.values()) == [f, C.Ref("ct", "atomic_add")]
    assert C.fold("D[E(1)]", {"D": d, "E": next(iter(d)).__class__}) is f
    with pytest.raises(C.Raised, match="KeyError"):
        C.fold("D[3]", {"D": d})
    with pytest.raises(C.Refused):
        C.fold("{**D}", {"D": d}, dicts=True)
    with pytest.raises(C.Refused):
        C.fold("f()", {"f": f})
