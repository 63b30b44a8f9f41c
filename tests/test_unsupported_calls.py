"""Calls cuTile refuses in kernel code with its UnsupportedCallError: a Python builtin it does not
implement (`sorted()`, `eval()`: "X() is not supported in device code"), a builtin class or a
plain class of the program ('Creating instances of type "X" is not supported in device code').
The builtins cuTile implements, a local name shadowing a builtin, and classes that are dataclasses
or enums are not these. Under the shim: cuda.tile._exception's names of cuTile's error classes."""
import pytest

from kernel_util import translate
from test_shim import _run, _script


def _error(src):
    res = translate(src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    return errors[0] if errors else None


@pytest.mark.parametrize("call,message", [
    ("sorted((3, 1))", "sorted() is not supported in device code"),
    ("eval('1 + 1')", "eval() is not supported in device code"),
    ("round(2.5)", "round() is not supported in device code"),
    ("zip((1,), (2,))", 'Creating instances of type "zip" is not supported in device code'),
    ("list()", 'Creating instances of type "list" is not supported in device code'),
])
def test_builtins_cutile_does_not_implement(call, message):
    d = _error(f"""
    @ct.kernel
    def k(y):
        v = {call}
        ct.scatter(y, 0, 1)
    """)
    assert d is not None and d.cutile == ("UnsupportedCallError", message), d and d.format()


def test_builtins_cutile_implements_and_shadowed_names_are_not_refused():
    res = translate("""
    def sorted(t):
        return t * 2

    @ct.kernel
    def k(y):
        round = 3
        v = abs(-2) + min(1, 2) + len((1, 2)) + int(2.0) + sorted(1) + round
        ct.scatter(y, 0, v)
    """)
    assert res.ok, [d.format() for d in res.diagnostics]


def test_a_plain_class_has_no_instances_in_kernels_but_a_dataclass_does():
    res = translate("""
    import dataclasses

    class Plain:
        pass

    class Derived(object):
        scale = 2

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        n: int = 3

    @ct.kernel
    def k(y):
        p = Plain()
        d = Derived()
        ct.scatter(y, 0, Cfg().n)
    """)
    notes = [d for d in res.diagnostics if d.code == "C2T218"]
    assert [n.message for n in notes] == [
        '`Plain(...)`: cuTile refuses it (UnsupportedCallError: Creating instances of type "Plain" is not '
        'supported in device code)',
        '`Derived(...)`: cuTile refuses it (UnsupportedCallError: Creating instances of type "Derived" is not '
        'supported in device code)'], [d.format() for d in res.diagnostics]


SHIM = """
import torch
import cuda.tile as ct
from cuda.tile._exception import (TileError, TypeCheckingError, UnsupportedCallError, UnsupportedSyntaxError,
                                  StaticEvalError, InvalidValueError)

assert TypeCheckingError is ct.TileTypeError and UnsupportedSyntaxError is ct.TileSyntaxError
assert StaticEvalError is ct.TileStaticEvalError and InvalidValueError is ct.TileValueError
assert issubclass(UnsupportedCallError, TileError)


def run():
    class Box:
        size = 4

    @ct.kernel
    def make(y):
        b = Box()
        ct.scatter(y, 0, 1)

    @ct.kernel
    def call_eval(y):
        ct.scatter(y, 0, eval("3"))

    y = torch.zeros(2, dtype=torch.int32)
    for k, text in ((make, 'Creating instances of type "Box" is not supported in device code'),
                    (call_eval, "eval() is not supported in device code")):
        try:
            ct.launch(torch.cuda.current_stream(), (1,), k, (y,))
        except UnsupportedCallError as e:
            assert text in str(e), e
        else:
            raise AssertionError("launched")


run()
print("RESULT OK")
"""


def test_unsupported_calls_raise_cutiles_error_under_the_shim(tmp_path):
    r = _run([str(_script(tmp_path, "calls.py", SHIM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
