"""ct.printf / ct.print / builtin print with f-strings, ct.assert_, ct.static_assert, ct.static_eval,
ct.ensure_constant, ct.assume_divisible_by (translator/lower/ops_debug.py)."""
import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate

PRINT_SRC = """
@ct.kernel
def k(x, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.printf("val %d|%5.1f\\n", t, t * 0.5)
    ct.print("tile", t, sep=":")
    print(f"T={T} t={t:.2f}")
    print(f"K={K} w={t + 1}")

K = 7

def run(x):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, 4))
"""


def test_print_forms_run_in_the_interpreter(tmp_path, capfd):
    mod = build(PRINT_SRC, tmp_path)
    code = open(mod.__file__).read()
    assert "tl.device_print('val {}|{}', t, t * 0.5)" in code
    assert "tl.device_print('tile:{}', t)" in code
    assert "tl.device_print('T={} t={}', T, t)" in code          # T is a constexpr: printed as a value
    assert "tl.device_print('K=7 w={}', t + 1)" in code          # known constants are formatted statically
    mod.run(torch.tensor([1, 2, 3, 4], dtype=torch.int32))
    out = capfd.readouterr().out
    out = " ".join(out.split())
    assert "val {}|{}: [1 2 3 4]" in out and "val {}|{}: [0.5 1. 1.5 2. ]" in out
    assert "tile:{}: [1 2 3 4]" in out and "K=7 w={}: [2 3 4 5]" in out and "T={} t={}: [4]" in out


def test_print_diagnostics():
    res = translate(PRINT_SRC)
    assert res.ok
    assert {d.code for d in res.diagnostics} == {"C2T203"}
    assert all(d.severity == "info" for d in res.diagnostics)
    bad = """
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.printf("%d %d\\n", t)
    """
    assert codes(bad) == ["C2T109"]
    assert codes(bad.replace('ct.printf("%d %d\\n", t)', 'ct.printf(t, t)')) == ["C2T105"]
    hexed = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        ct.printf("%x\\n", ct.load(x, index=(0,), shape=(T,)))
    """).code
    assert "hex=True" in hexed


def test_assert_and_static_assert(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.static_assert(T % 4 == 0, "T must be a multiple of 4")
        ct.static_assert(True)
        ct.assert_(t >= 0, "negative input")
        if T == 1:
            ct.static_assert(False, "never taken")
        ct.store(x, index=(0,), tile=t + 1)

    def run(x, n):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n))
    """, tmp_path)
    code = open(mod.__file__).read()
    # (the message names cuTile's error, which the shim raises: TileStaticAssertionError)
    assert "tl.static_assert(T % 4 == 0, 'cuTile TileStaticAssertionError: T must be a multiple of 4')" in code
    assert "tl.device_assert(t >= 0, 'negative input')" in code
    assert "tl.static_assert(False, 'cuTile TileStaticAssertionError: never taken')" in code
    assert "tl.static_assert(True" not in code
    x = torch.arange(4, dtype=torch.int32)
    mod.run(x, 4)
    assert x.tolist() == [1, 2, 3, 4]
    with pytest.raises(Exception, match="multiple of 4"):
        mod.run(torch.arange(4, dtype=torch.int32), 2)
    diags = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        ct.assert_(ct.load(x, index=(0,), shape=(T,)) > 0)
    """).diagnostics
    assert [d.code for d in diags] == ["C2T203"] and "debug" in diags[0].message
    assert codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        ct.static_assert(ct.bid(0) == 0)
    """) == ["C2T105"]


def test_static_assert_fstring_message_is_formatted_where_its_fields_are_known():
    """cuTile formats a static_assert's f-string at compile time; the message was its source text."""
    code = translate("""
    WEIGHTS = (0.5, 0.25)

    @ct.kernel
    def k(x, T: ConstInt):
        ct.static_assert(len(WEIGHTS) == 2, f"expected 2 weights, got {len(WEIGHTS)}: {WEIGHTS[0]:.2f}")
        ct.static_assert(T % 4 == 0, f"T = {T} is no multiple of 4")
        ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)) + 1)
    """).code
    assert "'cuTile TileStaticAssertionError: expected 2 weights, got 2: 0.50'" in code
    assert """'cuTile TileStaticAssertionError: f"T = {T} is no multiple of 4"'""" in code      # T: a Triton constexpr, left as written


def test_static_eval_and_ensure_constant(tmp_path):
    mod = build("""
    SIZES = (2, 4, 8)

    @ct.kernel
    def k(x, T: ConstInt):
        n = ct.static_eval(sum(s for s in SIZES if s > 2))
        m = ct.static_eval(T * 2)
        if ct.ensure_constant(T > 2):
            ct.store(x, index=(0,), tile=ct.full((T,), n + m, dtype=ct.int32))

    def run(x):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, 4))
    """, tmp_path)
    code = open(mod.__file__).read()
    assert "n: tl.constexpr = 12" in code and "m: tl.constexpr = T * 2" in code
    x = torch.zeros(4, dtype=torch.int32)
    mod.run(x)
    assert x.tolist() == [20] * 4
    assert codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        n = ct.ensure_constant(ct.bid(0))
    """) == ["C2T105"]
    assert codes("""
    @ct.kernel
    def k(x, T: ConstInt):
        n = ct.static_eval([i for i in range(T)])
    """) == ["C2T105"]   # T is only known when Triton compiles


def test_assume_divisible_by(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, n, T: ConstInt):
        m = ct.assume_divisible_by(n, 4)
        ct.store(x, index=(0,), tile=ct.full((T,), m // 4, dtype=ct.int32))

    def run(x, n):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, 4))
    """, tmp_path)
    assert "_c2t_assume_div(n, 4)" in open(mod.__file__).read()
    x = torch.zeros(4, dtype=torch.int32)
    mod.run(x, 12)
    assert x.tolist() == [3] * 4
    with pytest.raises(Exception):          # the interpreter checks tl.assume (UB in cuTile)
        mod.run(x, 13)
    src = """
    @ct.kernel
    def k(x, n, T: ConstInt):
        m = ct.assume_divisible_by(n, {d})
    """
    assert codes(src.format(d="0")) == ["C2T106"]
    assert codes(src.format(d="T")) == ["C2T105"]


def test_debug_ops_compile_for_sm90(tmp_path):
    out = compile_sm90("""
    @ct.kernel
    def k(x, n, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        m = ct.assume_divisible_by(n, 16)
        ct.static_assert(T > 0, "positive")
        ct.assert_(t >= 0, "negative input")
        ct.printf("%d %f\\n", t, t * 0.5)
        print(f"m={m} t={t}")
        ct.store(x, index=(0,), tile=t + m)

    def run(x, n):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, 16))
    """, "run", "torch.zeros(16, dtype=torch.int32), 32", tmp_path)
    assert "OK" in out, out


# tuples print as Python prints them: known elements as text, runtime ones as values (found by the
# check on cutile-python's test_print: `tl.device_print('{}', x.shape)` took a tuple, a C2T110)
PRINT_TUPLES = """
@ct.kernel
def k(x, n, T: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(2, T))
    ct.print(t.shape)
    ct.print("x:", x.shape, sep=" ")
    print(f"nested={((T, 'a'), n)} one={(n,)} none={()}")
    ct.store(x, index=(0, 0), tile=t)

def run(x, n):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, 4))
"""


def test_tuples_print_as_python_prints_them(tmp_path, capfd):
    mod = build(PRINT_TUPLES, tmp_path)
    code = open(mod.__file__).read()
    assert "tl.device_print('(2, {})', T)" in code          # (T: a constexpr, printed as a value)
    assert "tl.device_print('x: ({}, {})', x_shape_0, x_shape_1)" in code
    assert """tl.device_print("nested=(({}, 'a'), {}) one=({},) none=()", T, n, n)""" in code
    mod.run(torch.zeros(2, 4, dtype=torch.int32), 9)
    out = capfd.readouterr().out
    assert "(2, {})" in out and "x: ({}, {})" in out and "none=()" in out
    assert compile_sm90(PRINT_TUPLES, "run", "torch.zeros(2, 4, dtype=torch.int32), 9", tmp_path).count("OK")


def test_shape_of_an_array_of_unknown_rank_is_refused_not_printed_empty():
    # (x is never indexed, so its rank is unknown: printing its shape as `()` would be wrong)
    res = translate("""
    @ct.kernel
    def k(x, y):
        ct.print(x.shape)
        ct.print(y.shape)
        ct.store(y, index=(0, 0), tile=ct.zeros((2, 2), dtype=ct.float32))
    """)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert [d.code for d in errs] == ["C2T104"] and "`x.shape`" in errs[0].message and res.stubs == ["k"]
