"""Kernels under the shim that read what the capture and the translator used to refuse
(cutile-python's test_contextlib_contextmanager, test_global_variables, test_uninitialized_vars):

- `with` statements over `@contextlib.contextmanager` functions (passes/with_inline.py): the
  generator's code around the body, its cleanup before a break, continue or return, generators
  nested in generators, a yielded closure over the generator's locals, several items, keyword
  arguments; cuTile's errors for a generator with no reachable yield, two, one in an `if`, or a
  `return`;
- a name a kernel assigns read before the assignment (even where the module binds it), and a
  name bound nowhere: cuTile's TileSyntaxError "Undefined variable";
- a captured torch.Tensor: cuTile's TileTypeError "Cannot create constant from value of type
  torch.Tensor.", raised where the kernel reads it (capture.py's deferred names);
- what cuTile's static_eval()/static_assert() refuse (test_static_eval, test_static_assert): calls of
  tile operations (not their arithmetic), of tile methods, of functions defined in the kernel, of
  static_eval itself; `:=`; other argument counts; static_assert used as a value; a run-time
  condition; and a failed static assertion is cuTile's TileStaticAssertionError.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = '''
import contextlib
import re
from contextlib import contextmanager

import pytest
import torch
import cuda.tile as ct
from cuda.tile import TileStaticAssertionError, TileStaticEvalError, TileSyntaxError, TileTypeError


def log(buf, v):
    n = ct.gather(buf, 0) + 1
    ct.scatter(buf, 0, n)
    ct.scatter(buf, n, v)


@contextmanager
def span(buf, first, last=-1):
    log(buf, first)
    yield first * 2
    log(buf, last)


@contextlib.contextmanager
def outer_span(buf, a, b):
    log(buf, a)
    with span(buf, a + 1, b - 1) as inner:
        yield inner + 100
    log(buf, b)


@contextmanager
def counter(buf, start):
    def bump():
        log(buf, start)
    yield bump
    start += 10
    log(buf, start)


def _run(kernel, *args):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, args)


def _buf(n=12):
    return torch.zeros(n, dtype=torch.int32, device="cuda")


def test_with_binds_the_yielded_value():
    @ct.kernel
    def kern(buf):
        log(buf, 1)
        with span(buf, 3, last=8) as v:
            ct.static_assert(v == 6)
            log(buf, v)
        log(buf, 9)

    b = _buf()
    _run(kern, b)
    assert b.tolist()[:6] == [5, 1, 3, 6, 8, 9]


def test_generator_inside_generator_and_several_items():
    @ct.kernel
    def kern(buf):
        with outer_span(buf, 10, 20) as w, span(buf, 40) as u:
            log(buf, w)
            log(buf, u)
        log(buf, 1)

    b = _buf(16)
    _run(kern, b)
    # outer_span: 10, span: 11, yield 122; span(40): 40, yield 80; body; cleanups innermost first
    assert b.tolist()[:11] == [9, 10, 11, 40, 122, 80, -1, 19, 20, 1, 0]


@pytest.mark.parametrize("loop", ["while", "for"])
def test_break_and_continue_run_the_cleanups(loop):
    @ct.kernel
    def k_while(buf):
        i = 0
        while True:
            with span(buf, 50 + i, 60 + i):
                with span(buf, 70 + i, 80 + i):
                    i += 1
                    if i == 2:
                        break
                    continue

    @ct.kernel
    def k_for(buf):
        for i in range(5):
            with span(buf, 50 + i, 60 + i):
                with span(buf, 70 + i, 80 + i):
                    if i == 1:
                        break
                    continue

    b = _buf(12)
    _run(k_while if loop == "while" else k_for, b)
    # (the arguments are read when the `with` enters: 60 + i before the increment)
    assert b.tolist()[:10] == [8, 50, 70, 80, 60, 51, 71, 81, 61, 0]


def test_return_runs_every_cleanup():
    @ct.kernel
    def kern(buf):
        with span(buf, 1, 2):
            with span(buf, 3, 4):
                log(buf, 5)
                return

    b = _buf(8)
    _run(kern, b)
    assert b.tolist()[:7] == [5, 1, 3, 5, 4, 2, 0]


def test_yielded_closure_reads_the_generator_locals_when_called():
    @ct.kernel
    def kern(buf):
        with counter(buf, 7) as bump:
            bump()
        bump()

    b = _buf(8)
    _run(kern, b)
    assert b.tolist()[:5] == [3, 7, 17, 17, 0]


@contextmanager
def two(buf):
    yield
    log(buf, 1)
    yield


@contextmanager
def dead_only(buf):
    for i in range(2):
        log(buf, i)
        break
        yield


@contextmanager
def in_if(buf, flag):
    if flag:
        yield


@contextmanager
def early(buf):
    if ct.bid(0) == 0:
        return
    yield


@pytest.mark.parametrize("cm,cls,message", [
    (two, TileTypeError, "must have one `yield` statement"),
    (dead_only, TileTypeError, "no reachable `yield` statement"),
    (in_if, TileTypeError, "outside of loops and conditional"),
    (early, TileSyntaxError, "Returning from a generator-based context manager"),
])
def test_generators_cutile_refuses(cm, cls, message):
    if cm is in_if:
        @ct.kernel
        def kern(buf):
            with in_if(buf, True):
                log(buf, 2)
    else:
        @ct.kernel
        def kern(buf):
            with cm(buf):
                log(buf, 2)

    with pytest.raises(cls, match=message):
        _run(kern, _buf())


LIMIT = 16


@ct.kernel
def k_reads_before_assigning(buf):
    log(buf, LIMIT)
    LIMIT = 3  # noqa: F841


def test_local_read_before_its_assignment_is_undefined():
    with pytest.raises(TileSyntaxError, match="Undefined variable LIMIT used"):
        _run(k_reads_before_assigning, _buf())


def test_local_unbound_on_one_path_is_undefined():
    @ct.kernel
    def kern(buf):
        if ct.bid(0) == 0:
            acc = ct.gather(buf, 1)
        else:
            log(buf, acc)
        log(buf, acc)

    with pytest.raises(TileSyntaxError, match="Undefined variable acc used"):
        _run(kern, _buf())


def test_name_bound_nowhere_is_undefined():
    @ct.kernel
    def kern(buf):
        log(buf, not_bound_anywhere)  # noqa: F821

    with pytest.raises(TileSyntaxError, match="Undefined variable not_bound_anywhere used"):
        _run(kern, _buf())


TABLE = torch.arange(4, dtype=torch.int32)


def test_captured_tensor_is_cutiles_constant_error():
    local = torch.ones(3)

    @ct.kernel
    def k_global(buf):
        ct.scatter(buf, 0, ct.gather(TABLE, 1))

    @ct.kernel
    def k_closure(buf):
        ct.store(buf, (0,), ct.load(local, (0,), (2,)))

    with pytest.raises(TileTypeError, match=r"Cannot create constant from value of type torch\\.Tensor\\."):
        _run(k_global, _buf())
    with pytest.raises(TileTypeError, match=r"Cannot create constant from value of type torch\\.Tensor\\."):
        _run(k_closure, _buf())


@ct.kernel
def k_eval_tile_op(buf):
    ct.static_eval(ct.full((2,), 0, dtype=ct.int32))


@ct.kernel
def k_assert_tile_op(buf):
    ct.static_assert(ct.zeros((2,), dtype=ct.int16).dtype == ct.int16)


@ct.kernel
def k_eval_method(buf):
    t = ct.load(buf, (0,), (4,))
    ct.static_eval(t.reshape((2, 2)))


@ct.kernel
def k_eval_nested_def(buf):
    def twice(k):
        return k * 2
    ct.scatter(buf, 0, ct.static_eval(twice(5)))


@ct.kernel
def k_eval_in_eval(buf):
    ct.scatter(buf, 0, ct.static_eval(ct.static_eval(3)))


@ct.kernel
def k_eval_walrus(buf):
    ct.static_eval((w := 4))  # noqa: F841


@ct.kernel
def k_eval_two_args(buf):
    ct.static_eval(1, 2)


@ct.kernel
def k_assert_three_args(buf):
    ct.static_assert(True, "m", 3)


@ct.kernel
def k_assert_as_value(buf):
    check = ct.static_assert
    check(True)


@ct.kernel
def k_assert_runtime(buf):
    c = ct.bid(0) > 1
    ct.static_assert(c)


@pytest.mark.parametrize("kernel,cls,message", [
    (k_eval_tile_op, TileStaticEvalError, "full() cannot be called inside static_eval()."),
    (k_assert_tile_op, TileStaticEvalError, "zeros() cannot be called inside static_assert() condition."),
    (k_eval_method, TileStaticEvalError, "reshape() cannot be called inside static_eval()."),
    (k_eval_nested_def, TileStaticEvalError, "twice() cannot be called inside static_eval()."),
    (k_eval_in_eval, TileStaticEvalError, "static_eval() cannot be used inside static_eval()."),
    (k_eval_walrus, TileSyntaxError, "static_eval() expression attempted to modify a local variable 'w'"),
    (k_eval_two_args, TileSyntaxError, "static_eval() expects a single expression"),
    (k_assert_three_args, TileSyntaxError, "static_assert(cond, msg=None, /) expects one or two positional"),
    (k_assert_as_value, TileSyntaxError, "static_assert() must be used directly by name"),
    (k_assert_runtime, TileTypeError, "static_assert() condition must be a compile-time constant"),
])
def test_static_eval_and_assert_misuse_is_cutiles_error(kernel, cls, message):
    with pytest.raises(cls, match=re.escape(message)):
        _run(kernel, _buf())


@ct.kernel
def k_bounded(buf, k: ct.Constant[int]):
    ct.static_assert(k > 3, "k too small")
    ct.static_assert(k < 9)
    ct.scatter(buf, 0, ct.static_eval(ct.maximum(k, 6)))


def test_static_assertion_failure_is_cutiles_error():
    b = _buf()
    _run(k_bounded, b, 5)
    assert b[0].item() == 6
    with pytest.raises(TileStaticAssertionError, match=re.escape("Static assertion failed: k too small\\n")):
        _run(k_bounded, _buf(), 2)
    with pytest.raises(TileStaticAssertionError, match=re.escape("Static assertion failed\\n")):
        _run(k_bounded, _buf(), 10)
'''

N_TESTS = 25


def test_capture_rules_under_the_shim(tmp_path):
    p = tmp_path / "test_capture_rules.py"
    p.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT), C2T_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "translator.shim", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-o", "addopts=", str(p)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=600)
    assert r.returncode == 0 and f"{N_TESTS} passed" in r.stdout, r.stdout[-6000:] + r.stderr[-2000:]
