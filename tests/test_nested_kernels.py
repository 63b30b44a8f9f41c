"""Kernels defined inside functions (translator/nested_kernels.py; issue 35, item 1): a test
function's kernel capturing its locals, a factory's, one two functions deep. Each becomes a
module-level kernel taking its captures as Constant parameters, launched through the object bound
where it was defined. The translated modules run under the interpreter."""
import textwrap

import pytest
import torch

import translator
from kernel_util import load

SRC = """
import cuda.tile as ct
import torch


def fill(dtype, n):
    TILE = 8

    @ct.kernel
    def kernel(x, y):
        bid = ct.bid(0)
        tx = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(y, index=(bid,), tile=tx.astype(dtype) + ct.full((TILE,), 1, dtype=dtype))

    x = torch.arange(n, dtype=torch.float32)
    y = torch.zeros(n, dtype=dtype)
    ct.launch(torch.cuda.current_stream(), (n // TILE,), kernel, (x, y))
    return x, y


def make_scale_kernel(factor):
    @ct.kernel
    def scale(x, y, T: ct.Constant[int]):
        bid = ct.bid(0)
        ct.store(y, index=(bid,), tile=ct.load(x, index=(bid,), shape=(T,)) * factor)
    return scale


def run_scaled(kernel, x):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 8,), kernel, (x, y, 8))
    return y


def late_binding(x):
    factor = 2

    @ct.kernel
    def k(x, y):
        ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)) * factor)

    factor = 5      # the kernel reads the value at launch, as a closure does
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
    return y


def outer(x):
    def inner(offset):
        @ct.kernel
        def add(x, y):
            ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)) + offset)
        y = torch.zeros_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), add, (x, y))
        return y
    return inner(3)


def calls_a_capture(x):
    fn = abs

    @ct.kernel
    def bad(x):
        ct.store(x, index=(0,), tile=fn(ct.load(x, index=(0,), shape=(8,))))

    ct.launch(torch.cuda.current_stream(), (1,), bad, (x,))
"""


@pytest.fixture(scope="module")
def translated(tmp_path_factory):
    res = translator.translate_source(SRC, "nested.py")
    assert res.code is not None, [d.format() for d in res.diagnostics]
    return res, load(res.code, tmp_path_factory.mktemp("nested"), "c2t_nested")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_a_kernel_capturing_a_tile_size_and_a_dtype(translated, dtype):
    _, mod = translated
    x, y = mod.fill(dtype, 16)
    assert y.dtype == dtype and torch.equal(y, (x + 1).to(dtype))


def test_a_factorys_kernels_keep_their_own_captures(translated):
    _, mod = translated
    x = torch.arange(16, dtype=torch.float32)
    k3, k5 = mod.make_scale_kernel(3), mod.make_scale_kernel(5)
    assert torch.equal(mod.run_scaled(k3, x), x * 3) and torch.equal(mod.run_scaled(k5, x), x * 5)


def test_captures_are_read_at_launch_and_two_functions_deep(translated):
    _, mod = translated
    x = torch.arange(8, dtype=torch.float32)
    assert torch.equal(mod.late_binding(x), x * 5)
    assert torch.equal(mod.outer(x), x + 3)


def test_a_kernel_calling_a_captured_value_is_a_stand_in_naming_it(translated):
    res, mod = translated
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.code == "C2T108" and "`bad`" in d.message and "`fn`" in d.message and d.line == 63
    with pytest.raises(NotImplementedError, match="bad"):
        mod.calls_a_capture(torch.zeros(8))


def test_the_module_level_kernels_take_the_captures_as_constants(translated):
    res, _ = translated
    code = res.code
    assert "def _fill_kernel(" in code and "    TILE: tl.constexpr,\n    dtype: tl.constexpr,\n" in code
    assert "kernel = _c2t_closure_kernel(_fill_kernel, lambda: (TILE, dtype))" in code
    assert "scale = _c2t_closure_kernel(_make_scale_kernel_scale, lambda: (factor,))" in code
    assert "def _outer_inner_add(" in code
    # (a leading underscore: pytest does not collect the hoisted `_test_x_kernel` of a test module)
    assert sorted(k.name for k in res.kernels if k.translated) == [
        "_fill_kernel", "_late_binding_k", "_make_scale_kernel_scale", "_outer_inner_add"]


def test_a_kernel_using_a_captured_value_as_an_array_is_refused():
    res = translator.translate_source(textwrap.dedent("""
    import cuda.tile as ct

    def f(buf):
        @ct.kernel
        def k(y):
            ct.store(y, index=(0,), tile=ct.load(buf, index=(0,), shape=(8,)))
        return k
    """), "nested.py")
    assert any(d.code == "C2T108" and "`buf`" in d.message and "as an array" in d.message for d in res.diagnostics)


# Kernels in a class body (cutile-python's test_control_flow and test_token_order: `self.kernel`,
# `getattr(self, name)`) and in its methods: hoisted as `_<Class>_<name>`, the class binding the
# name to the launchable object. Both files failed at collection (`@ct.kernel` in the class body
# was an untranslated host use of ct.kernel).
CLASS_SRC = """
import cuda.tile as ct
import torch


class Loops:
    TILE = 16       # (class attributes are not visible to the functions of the body)

    @ct.kernel
    def plus_n(x, n, tile: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(tile,))
        for i in range(n):
            t = t + 1
        ct.store(x, index=(bid,), tile=t)

    def run(self, n, by_name=False):
        x = torch.zeros(32)
        k = getattr(self, "plus_n") if by_name else self.plus_n
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, n, 16))
        return x

    def run_inner(self, value):
        @ct.kernel
        def inner(x, tile: ct.Constant[int]):
            ct.store(x, index=(ct.bid(0),), tile=ct.full((tile,), value, dtype=ct.float32))
        x = torch.zeros(32)
        ct.launch(torch.cuda.current_stream(), (2,), inner, (x, 16))
        return x
"""


def test_kernels_in_a_class_and_its_methods(tmp_path):
    res = translator.translate_source(CLASS_SRC, "classes.py")
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "def _Loops_plus_n(" in res.code and "def _Loops_run_inner_inner(" in res.code
    if not __import__("os").environ.get("TRITON_INTERPRET"):
        return
    mod = load(res.code, tmp_path, "c2t_classes")
    obj = mod.Loops()
    assert torch.equal(obj.run(3), torch.full((32,), 3.0))
    assert torch.equal(obj.run(1, by_name=True), torch.ones(32))
    assert torch.equal(obj.run_inner(2.5), torch.full((32,), 2.5))
