"""`x in (a, b, ...)` / `not in` on tuples known at translation time, as cuTile evaluates them:
`x == item` in turn, stopping at the first known match, runtime comparisons or-ed, tuples entry
by entry; a tile that is not 0-d is cuTile's TileTypeError."""
import torch

from kernel_util import build, translate

CONTAINS = """
@ct.kernel
def k(y, N: ConstInt):
    a = ct.bid(0)
    t = ct.ones((4,), dtype=ct.int32)
    r = 0
    if a in (0, 2, N):                  # runtime: or-ed
        r += 1
    if a not in (1,):
        r += 10
    if (a, N) in ((3, 5), (a, 5)):       # tuples entry by entry; the second matches when N == 5
        r += 100
    if 2 in (1, 2, t):                   # a known match before the tile stops the search
        r += 1000
    if N not in (1, 2, 3) and 7 not in ():
        r += 10000
    ct.scatter(y, (a,), r)

def run(n):
    y = torch.zeros(6, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (6,), k, (y, n))
    return y
"""


def test_contains_on_tuples(tmp_path):
    mod = build(CONTAINS, tmp_path)
    for n in (5, 3):
        want = [(a in (0, 2, n)) + 10 * (a != 1) + 100 * (n == 5) + 1000 + 10000 * (n not in (1, 2, 3))
                for a in range(6)]
        assert mod.run(n).tolist() == want, n


def test_contains_with_a_tile_is_cutiles_type_error():
    for body in ("ct.ones((4,), dtype=ct.int32) in (1, 2)", "2 in (1, ct.ones((4,), dtype=ct.int32), 2)"):
        res = translate(f"""
        @ct.kernel
        def k(x):
            b = {body}
            ct.scatter(x, (0,), 1)
        """)
        notes = [d for d in res.diagnostics if d.code == "C2T218"]
        assert notes and "'in' requires scalar operands, but got shape (4,)" in notes[0].message, \
            [d.format() for d in res.diagnostics]


def test_contains_on_a_runtime_sequence_is_refused():
    res = translate("""
    @ct.kernel
    def k(x):
        t = ct.load(x, index=(0,), shape=(4,))
        if 1 in t:
            ct.scatter(x, (0,), 1)
    """)
    assert not res.ok
    assert any(d.code == "C2T103" and "only on a tuple known at translation time" in d.message
               for d in res.diagnostics), [d.format() for d in res.diagnostics]
