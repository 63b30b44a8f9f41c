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


def test_helper_star_args_gather_the_rest_as_a_tuple(tmp_path):
    mod = build("""
    def put(arr, first, *items, scale=1):
        ct.scatter(arr, 0, first * scale)
        for i, v in ct.static_iter(enumerate(items)):
            ct.scatter(arr, i + 1, v * scale)

    def count(*items):
        return len(items)

    @ct.kernel
    def k(y, z):
        t = ct.gather(y, 0)
        put(y, t, 123, *(10, t), 456, scale=2)
        def nested(*xs):
            return xs[0] + xs[-1]
        ct.scatter(z, 0, count() + count(1, 2) * 10 + nested(t, 5, 7) * 100)

    def run():
        y = torch.full((5,), 3, dtype=torch.int32)
        z = torch.zeros(1, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (y, z))
        return y, z
    """, tmp_path)
    y, z = mod.run()
    assert y.tolist() == [6, 246, 20, 6, 912]
    assert z.tolist() == [0 + 2 * 10 + (3 + 7) * 100]


def test_helper_star_args_refusals():
    res = translate("""
    def h(*items):
        pass

    @ct.kernel
    def k(x):
        t = ct.ones((4,), dtype=ct.int32)
        h(*t)
    """)
    d = [d for d in res.diagnostics if d.code == "C2T103"]
    assert d and d[0].cutile == ("TileTypeError", "Expected a tuple after *"), [x.format() for x in res.diagnostics]
    res = translate("""
    def h(a, *items):
        pass

    @ct.kernel
    def k(x):
        h(1, items=2)
    """)
    assert any(d.code == "C2T109" and "has no parameter `items`" in d.message for d in res.diagnostics)
