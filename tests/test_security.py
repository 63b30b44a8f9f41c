"""Reading a file never runs it (issue 33, item 4): ct.static_eval / ct.static_assert expressions
are folded by translator/const_fold.py, never given to Python's eval."""
import time

import pytest

from kernel_util import HEADER, translate

KERNEL = """
@ct.kernel
def k(x, T: ConstInt):
    n = {expr}
    ct.store(x, index=(0,), tile=ct.full((T,), 1, dtype=ct.int32))
"""
EXPR_LINE = HEADER.count("\n") + 4          # the line of `n = ...` in the translated source
EXPR_COL = len("    n = ") + 1


def _refused(expr: str, code: str = "C2T105"):
    """Translate a kernel whose `n = ...` line is `expr`: one `code` error located inside expr."""
    res = translate(KERNEL.format(expr=expr))
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert [d.code for d in errs] == [code], [d.format() for d in res.diagnostics]
    d = errs[0]
    assert d.line == EXPR_LINE and EXPR_COL <= d.col < EXPR_COL + len(expr), d.format()
    assert not res.ok and not res.code
    return d


def _hostile(marker):
    m = repr(str(marker))
    return [
        # the escape of issue 33: object's subclasses reach os.system
        f"ct.static_eval([s for s in ().__class__.__base__.__subclasses__() if s.__name__ == '_wrap_close']"
        f"[0].__init__.__globals__['system']('touch ' + {m}))",
        "ct.static_eval(().__class__.__base__.__subclasses__())",
        f"ct.static_eval([__import__('os').system('touch ' + {m}) for _ in range(1)])",
        f"ct.static_assert(len([open({m}, 'w') for _ in range(1)]) == 1)",
        f"ct.static_eval(open({m}, 'w'))",
        # a builtin's __self__ is the builtins module; a lambda reaches it as well
        f"ct.static_eval([len.__self__.open({m}, 'w') for _ in range(1)])",
        f"ct.static_eval([(lambda: len.__self__.open({m}, 'w'))() for _ in range(1)])",
        "ct.static_eval([c for c in ().__class__.__mro__])",
        "ct.static_eval(tuple(c.__name__ for c in ().__class__.__mro__))",
        f"ct.static_eval([getattr(len, '__self__').open({m}, 'w') for _ in range(1)])",
        f"ct.static_eval([vars(len)['open']({m}, 'w') for _ in range(1)])",
        f"ct.static_eval(['{{0.__init__.__globals__}}'.format(x) for x in (1,)])",
        f"ct.static_eval([eval('open(' + repr({m}) + ', \"w\")') for _ in range(1)])",
        f"ct.static_assert([(x := len.__self__) for _ in range(1)] == [])",
    ]


@pytest.mark.parametrize("k", range(len(_hostile("M"))))
def test_hostile_static_expressions_are_refused_and_run_nothing(tmp_path, k):
    marker = tmp_path / "MARKER"
    expr = _hostile(marker)[k]
    d = _refused(expr)
    assert "translation time" in d.message or "does not evaluate" in d.message, d.format()
    assert not marker.exists()


def test_legit_static_expressions_still_fold():
    res = translate("""
    SIZES = (2, 4, 8)
    SCALE = 3

    @ct.kernel
    def k(x, T: ConstInt):
        K = 4
        a = ct.static_eval(sum(s * SCALE for s in SIZES if s > 2))
        b = ct.static_eval(len(SIZES) + max(SIZES) - min(s for s in SIZES))
        c = ct.static_eval(tuple(i * K for i in range(K)))
        d = ct.static_eval(sum([i for i in range(10) if i % 2 == 0]) * SCALE ** 2)
        e = ct.static_eval(round(math.pi * 100) + int(math.sqrt(16)) + (1 << 4))
        f = ct.static_eval(T * 2)
        ct.static_assert(len(SIZES) == 3 and all(s % 2 == 0 for s in SIZES), "even sizes")
        ct.static_assert(sorted(SIZES, reverse=True)[0] == 8 if SIZES else False)
        ct.static_assert(T % 4 == 0, "T must be a multiple of 4")
        ct.store(x, index=(0,), tile=ct.full((T,), a + b + c[1] + d + e + f, dtype=ct.int32))
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    for line in ("a: tl.constexpr = 36", "b: tl.constexpr = 9", "c = (0, 4, 8, 12)", "d: tl.constexpr = 180",
                 "e: tl.constexpr = 334", "f: tl.constexpr = T * 2",
                 "tl.static_assert(T % 4 == 0, 'T must be a multiple of 4')"):
        assert line in res.code, res.code
    assert "even sizes" not in res.code     # folded to True: nothing to check


def test_static_eval_errors_keep_their_codes():
    _refused("ct.static_eval(sum(1 // i for i in range(3)))", "C2T106")     # ZeroDivisionError
    _refused("ct.static_eval([i for i in range(T)])")               # T is known only to Triton
    _refused("ct.static_eval(ct.bid(0) for _ in range(2))")


@pytest.mark.parametrize("expr", [
    "ct.static_eval(10 ** 10 ** 10)",
    "ct.static_eval('a' * 10 ** 9)",
    "ct.static_eval(sum(range(10 ** 12)))",
    "ct.static_eval(len([i for i in range(10 ** 12)]))",
    "ct.static_eval(sum(1 for i in range(4096) for j in range(4096) if i < 0))",
    "ct.static_eval(len((1,) * 10 ** 12))",
    "ct.static_eval(sum(x for x in [1 << 10 ** 8]))",
    "ct.static_eval(pow(7, 10 ** 10))",
])
def test_huge_static_expressions_are_refused_quickly(expr):
    t0 = time.monotonic()
    d = _refused(expr)
    assert time.monotonic() - t0 < 10
    assert "more than" in d.message, d.format()


def test_module_constant_power_chain_is_not_computed():
    """Module constants are folded by translator/analysis.py with const_fold's size limits."""
    t0 = time.monotonic()
    res = translate("""
    X = ((((10 ** 63) ** 63) ** 63) ** 63) ** 63

    @ct.kernel
    def k(x, T: ConstInt):
        ct.store(x, index=(0,), tile=ct.full((T,), 1, dtype=ct.int32))
    """)
    assert time.monotonic() - t0 < 10
    assert res.ok, [d.format() for d in res.diagnostics]
