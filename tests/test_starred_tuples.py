"""`*t` in kernel code: in a tuple display (`(7, *a, 8)`) and in the arguments of a cuTile call
(a tuple display, or a name bound to a tuple of known length), spread into the tuple's items; a
value that is not a tuple is cuTile's TileTypeError "Expected a tuple after *"."""
import torch

from kernel_util import build, translate


def test_starred_tuple_display_and_call_arguments(tmp_path):
    mod = build("""
    @ct.kernel
    def k(y):
        a = (10, 20, 30)
        b = ()
        t = (7, *a, 8, *b, 9, *(40, 50))
        for i, v in ct.static_iter(enumerate(t)):
            ct.scatter(y, i, v)
        where = (9, 1)
        ct.scatter(y, *where)
        ct.scatter(y, *((10,), len(t)))

    def run():
        y = torch.zeros(11, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (y,))
        return y
    """, tmp_path)
    assert mod.run().tolist() == [7, 10, 20, 30, 8, 9, 40, 50, 0, 1, 8]


def test_star_of_a_tile_is_cutiles_type_error():
    for stmt in ("u = (1, *t)", "ct.scatter(x, *t)"):
        res = translate(f"""
        @ct.kernel
        def k(x):
            t = ct.ones((4,), dtype=ct.int32)
            {stmt}
        """)
        d = [d for d in res.diagnostics if d.code == "C2T103"]
        assert d and d[0].cutile == ("TileTypeError", "Expected a tuple after *"), [x.format() for x in res.diagnostics]
