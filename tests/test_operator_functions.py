"""operator-module functions in kernel code (`operator.add(a, b)` is `a + b`, in kernels and in
ct.static_eval), `import cuda.tile` written out as `cuda.tile.X`, and the shim's capture of a
stdlib builtin function (operator.add: its __module__ is the C module `_operator`)."""
import operator

import torch

from kernel_util import build, translate

OPERATORS = """
import operator
from operator import add, lt as less, neg

@ct.kernel
def k(x, y, T: ConstInt):
    a = ct.load(x, index=(0,), shape=(T,))
    b = ct.load(x, index=(1,), shape=(T,))
    s = operator.mul(add(a, b), b)          # (a + b) * b: the operator's own precedence
    m = ct.where(less(a, b), neg(a), operator.sub(a, b))
    c = ct.static_eval(operator.truediv(a, 2.0))
    ct.store(y, index=(0,), tile=s + m + c)

def run(x):
    y = torch.empty((x.shape[0] // 2,), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[0] // 2))
    return y
"""


def test_operator_functions_lower_as_operators(tmp_path):
    mod = build(OPERATORS, tmp_path)
    x = torch.randn(16)
    a, b = x[:8], x[8:]
    ref = (a + b) * b + torch.where(a < b, -a, a - b) + a / 2.0
    torch.testing.assert_close(mod.run(x), ref)
    code = open(mod.__file__).read()
    assert "(a + b) * b" in code


def test_operator_function_without_an_operator_is_refused():
    res = translate("""
    import operator

    @ct.kernel
    def k(x):
        t = ct.load(x, index=(0,), shape=(4,))
        ct.store(x, index=(0,), tile=operator.abs(t))
    """)
    assert not res.ok
    d = [d for d in res.diagnostics if d.code == "C2T103"]
    assert d and "`operator.abs` is not supported in kernel code" in d[0].message, [x.format() for x in res.diagnostics]


def test_operator_function_arity_is_checked():
    res = translate("""
    from operator import add

    @ct.kernel
    def k(x):
        t = ct.load(x, index=(0,), shape=(4,))
        ct.store(x, index=(0,), tile=add(t))
    """)
    assert not res.ok
    assert any(d.code == "C2T109" and "takes 2 positional arguments" in d.message for d in res.diagnostics)


def test_import_cuda_tile_spelled_in_full(tmp_path):
    mod = build("""
    import cuda.tile

    @ct.kernel
    def k(x, y, T: ConstInt):
        t = cuda.tile.load(x, index=(0,), shape=(T,))
        n = cuda.tile.static_eval(sum((1, 2, 3)))
        cuda.tile.store(y, index=(0,), tile=t + n)

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[0]))
        return y
    """, tmp_path)
    x = torch.randn(8)
    torch.testing.assert_close(mod.run(x), x + 6)


def test_shim_writes_stdlib_builtins_as_imports():
    from translator.shim.capture import _stdlib_import
    assert _stdlib_import("func", operator.add) == "from operator import add as func"
    assert _stdlib_import("lt", operator.lt) == "from operator import lt"
    # a C module's function that its public module does not hold under that name: not imported
    assert _stdlib_import("f", torch.add) is None
