"""Closure factories in kernel code (`def make(t): def f(y): return y + t; return f`), evaluated
at translation time as cuTile does: the returned function keeps the factory's arguments (constant
or run-time), also returned in a tuple, capturing a sibling def, nested several deep; a name
bound to a different function on each path of a run-time `if` is refused (C2T105)."""
import torch

from kernel_util import build, translate

FACTORIES = """
@ct.kernel
def k(x, y):
    def make(t):
        def g(v):
            return v * 2 + t
        def f(v):
            return g(v) + 100
        return f

    def pair(t):
        def add(v):
            return v + t
        return add, "tag"

    def outer(a):
        def mid(b):
            def inner(c):
                ct.scatter(y, 2, a + b + c)
            return inner
        h = mid(20)
        h(300)

    tx = ct.gather(x, 0)
    c1 = make(30)                # 2 * v + 30 + 100
    c2 = pair(tx)[0]             # a run-time capture: v + x[0]
    ct.scatter(y, 0, c1(tx))
    ct.scatter(y, 1, c2(5))
    outer(tx)

def run(x):
    y = torch.zeros(3, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
    return y
"""


def test_closure_factories(tmp_path):
    mod = build(FACTORIES, tmp_path)
    x = torch.tensor([7], dtype=torch.int32)
    assert mod.run(x).tolist() == [7 * 2 + 30 + 100, 5 + 7, 7 + 20 + 300]


def test_function_chosen_at_run_time_is_refused():
    res = translate("""
    @ct.kernel
    def k(x):
        def make(t):
            def f(v):
                return v + t
            return f
        if ct.bid(0) == 0:
            c = make(30)
        else:
            c = make(40)
        ct.scatter(x, 0, c(1))
    """)
    assert not res.ok
    assert any(d.code == "C2T105" and "`c` is a different function on each path" in d.message
               for d in res.diagnostics), [d.format() for d in res.diagnostics]


def test_same_function_on_both_paths_is_kept(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x):
        def f(v):
            return v + 1
        g = f
        if ct.bid(0) == 0:
            g = f
        ct.scatter(x, 0, g(1))

    def run():
        x = torch.zeros(1, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [2]
