"""ct.static_iter forms from cutile-python's test_static_iter.py, in our own small programs: enumerate
with a start, tuples built by concatenation in an unrolled loop, and the loops cuTile refuses
(break or return in the unrolled body, more than 1000 iterations), which the translation refuses
too instead of emitting code that fails (a NameError at launch) or never finishes unrolling."""
import torch

from kernel_util import build, checked, translate


def test_enumerate_with_a_start(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y):
        a = ct.load(x, (0,), (8,))
        b = ct.load(x, (1,), (8,))
        s = ct.zeros((8,), dtype=x.dtype)
        for i, t in ct.static_iter(enumerate((a, b), 2)):
            s += i * t
        for i, t in ct.static_iter(enumerate((a, b), start=-1)):
            s += i * t
        ct.store(y, (0,), s)

    def run(x):
        y = torch.empty(8, dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
        return y
    """, tmp_path)
    x = torch.arange(16, dtype=torch.int32)
    torch.testing.assert_close(mod.run(x), 2 * x[:8] + 3 * x[8:] - x[:8])


CONCAT = """
@ct.kernel
def k(x, y, z):
    a = ct.load(x, (0,), (8,))
    b = ct.load(x, (1,), (8,))
    built = ()
    for t in ct.static_iter((a, b)):
        built += (t, t * 3)
    for i, t in ct.static_iter(enumerate(built)):
        ct.store(y, (i,), t)
    joined = (a,) + (b, a + b)
    ct.store(z, (0,), joined[2])
    ct.scatter(z, 8, len(joined))

def run(x):
    y = torch.zeros(32, dtype=x.dtype)
    z = torch.zeros(9, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z))
    return y, z
"""


def test_tuples_of_tiles_built_by_concatenation(tmp_path):
    mod = build(CONCAT, tmp_path)
    x = torch.arange(16, dtype=torch.int32)
    y, z = mod.run(x)
    a, b = x[:8], x[8:]
    torch.testing.assert_close(y, torch.cat([a, 3 * a, b, 3 * b]))
    torch.testing.assert_close(z[:8], a + b)
    assert z[8].item() == 3
    code = open(mod.__file__).read()
    assert "joined: tl.constexpr" not in code     # (a tuple of tiles is no compile-time value)
    checked(CONCAT)


def test_break_and_return_in_a_static_iter_loop_are_refused():
    for leave in ("break", "return"):
        res = translate(f"""
        @ct.kernel
        def k(x):
            for i in ct.static_iter(range(3)):
                if i == 1:
                    {leave}
                ct.scatter(x, i, 1)
        """)
        errors = [d for d in res.diagnostics if d.severity == "error"]
        assert [d.code for d in errors] == ["C2T103"], [d.format() for d in res.diagnostics]
        assert f"`{leave}` in a for loop over ct.static_iter" in errors[0].message
        assert errors[0].line == 10     # (at the statement: 4 header lines, then the program)


def test_a_break_of_a_loop_inside_static_iter_still_works(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y):
        for c in ct.static_iter(range(2)):
            s = ct.zeros((4,), dtype=x.dtype)
            r = 0
            while r < 4:
                t = ct.load(x, (r, c), (1, 4)).reshape((4,))
                s += t
                if ct.sum(t) > 100:
                    break
                r += 1
            ct.store(y, (c,), s)

    def run(x):
        y = torch.zeros(8, dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
        return y
    """, tmp_path)
    x = torch.arange(32, dtype=torch.int32).reshape(4, 8)
    ref = []
    for c in range(2):
        s = torch.zeros(4, dtype=torch.int32)
        for r in range(4):
            t = x[r, 4 * c:4 * c + 4]
            s += t
            if t.sum() > 100:
                break
        ref.append(s)
    torch.testing.assert_close(mod.run(x), torch.cat(ref))


def test_more_than_1000_static_iterations_are_refused():
    res = translate("""
    @ct.kernel
    def k(x):
        for i in ct.static_iter(range(1000000)):
            ct.scatter(x, i, 1)
    """)
    assert [d.code for d in res.diagnostics if d.severity == "error"] == ["C2T105"]
    assert "at most 1000 iterations" in res.diagnostics[0].message
    res = translate("""
    @ct.kernel
    def k(x):
        for i in ct.static_iter(range(0, 2000, 2)):
            ct.scatter(x, i, 1)
    """)
    assert res.ok, [d.format() for d in res.diagnostics]     # (exactly 1000: cuTile unrolls it)
