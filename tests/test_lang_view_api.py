"""TiledView as cuTile types it (issue 35): its attributes as compile-time values in kernels and in
the functions they call, views passed to and returned by helpers, 0-d views (`tiled_view(())`),
views chosen by a condition, and the refusals where the translation would otherwise be wrong."""
import torch

from kernel_util import build, codes, compile_sm90, translate

# a module helper reading the view's dtype and tile_shape (cuTile folds both at compile time), a
# nested def copying between views, helpers returning a view and a bound view method
HELPERS_SRC = """
def check_view(tv, dtype, shape):
    ct.static_assert(tv.dtype == dtype)
    ct.static_assert(tv.tile_shape == shape)
    ct.static_assert(tv.traversal_steps == shape)


def view_of(a, t):
    return a.tiled_view(t)


def adder(tv):
    return tv.atomic_store_add


@ct.kernel
def k(x, y, z, TM: ConstInt, TN: ConstInt):
    def copy(src, dst, i, j):
        dst.store((i, j), src.load((i, j)))

    tv = x.tiled_view((TM, TN))
    check_view(tv, x.dtype, (TM, TN))
    copy(tv, view_of(y, (TM, TN)), ct.bid(0), ct.bid(1))
    adder(z.tiled_view((TM, TN)))((ct.bid(0), ct.bid(1)), tv.load((ct.bid(0), ct.bid(1))))


def run(x, TM, TN):
    y = torch.zeros_like(x)
    z = torch.ones_like(x)
    grid = ((x.shape[0] + TM - 1) // TM, (x.shape[1] + TN - 1) // TN)
    ct.launch(torch.cuda.current_stream(), grid, k, (x, y, z, TM, TN))
    return y, z
"""


def test_view_attributes_and_views_in_helpers(tmp_path):
    m = build(HELPERS_SRC, tmp_path)
    x = torch.randn(10, 12)
    y, z = m.run(x, 4, 8)
    assert torch.equal(y, x) and torch.equal(z, x + 1)
    code = translate(HELPERS_SRC).code
    # the view travels as its array and its Constant tile entries; the bound method is resolved
    # where it is called
    assert "def check_view(tv, tv_shape_0, tv_shape_1, tv_stride_0, tv_stride_1, tv_view_0: tl.constexpr" in code
    assert "@triton.jit\ndef adder(" not in code and "_c2t_tv_atomic_2d(z," in code


def test_a_false_view_assertion_stays_a_compile_time_failure():
    code = translate("""
    def check(tv, shape):
        ct.static_assert(tv.tile_shape == shape)

    @ct.kernel
    def k(x, T: ConstInt):
        check(x.tiled_view(T), (T, T))
    """).code
    assert "tl.static_assert(False, 'cuTile TileStaticAssertionError: ')" in code


ZERO_D_SRC = """
STEPS = (2, 3)
ONE = ()


@ct.kernel
def k(x, n, out, s, z, SH: ConstInt, SW: ConstInt):
    tv = x.tiled_view((), traversal_steps=(SH, SW))     # every SH-th row, SW-th column
    tn = n.tiled_view(())
    ct.static_assert(tn.tile_shape == ())
    ct.static_assert(tn.traversal_steps == (1,))
    ct.static_assert(tv.traversal_steps == (SH, SW))
    tn.store(0, tv.num_tiles(0))
    tn.store(1, tv.num_tiles(1))
    for i in range(tv.num_tiles(0)):
        for j in range(tv.num_tiles(1)):
            s.tiled_view(()).store(i * tv.num_tiles(1) + j, tv.load((i, j)))
    one = x.tiled_view(ONE).load((1, 2))                 # a 0-d tile, broadcast by the store
    out.tiled_view((4, 4)).store((0, 0), one)
    z.tiled_view(()).store((), x.tiled_view(ONE, traversal_steps=STEPS).load((1, 1)))


def run(x, SH, SW):
    n = torch.zeros(2, dtype=torch.int32)
    out = torch.zeros(4, 4)
    s = torch.zeros(((x.shape[0] + SH - 1) // SH) * ((x.shape[1] + SW - 1) // SW))
    z = torch.zeros(())
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, n, out, s, z, SH, SW))
    return n, out, s, z
"""


def test_zero_d_views(tmp_path):
    m = build(ZERO_D_SRC, tmp_path)
    x = torch.arange(35.).reshape(5, 7)
    n, out, s, z = m.run(x, 2, 3)
    assert n.tolist() == [3, 3]
    assert torch.equal(s, x[::2, ::3].flatten())
    assert torch.equal(out, torch.full((4, 4), x[1, 2].item()))
    assert z.item() == x[2, 3].item()


def test_zero_d_view_refusals():
    # one traversal step per axis (cuTile: "Expected traversal_steps length to be 2, got 0")
    assert "C2T109" in codes("""
    @ct.kernel
    def k(x):
        x.tiled_view((), traversal_steps=()).load((0, 0))
    """)
    # a 0-d tile_shape alone does not tell the array's rank
    assert "C2T101" in codes("""
    @ct.kernel
    def k(x):
        tv = x.tiled_view(())
    """)


# the rank of a view's array from its tile_shape as a module constant (the shim writes captured
# values so), from the index of its loads and stores, and through a helper that makes the view
RANK_SRC = """
TILE = (4, 8)


def view_of(a, t):
    return a.tiled_view(t)


@ct.kernel
def k(x, y, w, T: ConstInt):
    src = x.tiled_view(TILE)
    y.tiled_view(TILE).store((ct.bid(0), 0), src.load((ct.bid(0), 0)))
    tw = view_of(w, T)
    if ct.bid(0) == 0:
        for i in range(tw.num_tiles(0)):
            tw.store(i, tw.load(i) * 2)


def run(x, w):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), ((x.shape[0] + 3) // 4,), k, (x, y, w, 4))
    return y
"""


def test_view_ranks_from_module_constants_indices_and_helpers(tmp_path):
    m = build(RANK_SRC, tmp_path)
    x, w = torch.randn(10, 8), torch.randn(10)
    w0 = w.clone()
    assert torch.equal(m.run(x, w), x)
    assert torch.equal(w, w0 * 2)


CHOICE_SRC = """
@ct.kernel
def k(x, y, z, c, TILE: ConstInt, USE_X: ct.Constant[bool]):
    tv = x.tiled_view(TILE) if USE_X else y.tiled_view(TILE)
    for i in range(tv.num_tiles(0)):
        z.tiled_view(TILE).store(i, tv.load(i))
    if USE_X:                       # a Constant condition: the view after it is the one it chose
        other = y.tiled_view(TILE)
        a = x.slice(0, c - 1, c - 1 + TILE)     # (run-time bounds: temporaries of this branch only)
    else:
        other = x.tiled_view(TILE)
        a = y.slice(0, TILE, 2 * TILE)
    ct.store(z, (1,), ct.load(a, (0,), (TILE,)) + other.load(0))
    run_time = x.tiled_view(TILE) if c > 0 else y.tiled_view(TILE)
    ct.store(z, (2,), run_time.load(1))


def run(x, y, c, use_x):
    z = torch.zeros(3 * 4)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, c, 4, use_x))
    return z
"""


def test_views_chosen_by_a_condition(tmp_path):
    m = build(CHOICE_SRC, tmp_path)
    x, y = torch.randn(8), torch.randn(8)
    z = m.run(x, y, 1, True)
    assert torch.equal(z[:4], x[:4]) and torch.equal(z[4:8], x[:4] + y[:4]) and torch.equal(z[8:], x[4:])
    z = m.run(x, y, 0, False)
    assert torch.equal(z[:4], y[:4]) and torch.equal(z[4:8], y[4:] + x[:4]) and torch.equal(z[8:], y[4:])


def test_a_chosen_view_orders_memory_as_both_arrays():
    code = translate("""
    @ct.kernel
    def k(x, y, c, T: ConstInt):
        y.tiled_view(T).store(0, ct.full((T,), 1.0, ct.float32))
        tv = x.tiled_view(T) if c > 0 else y.tiled_view(T)
        x.tiled_view(T).store(1, tv.load(0))
    """).code
    assert "tl.debug_barrier()" in code        # (the load may read y, which the block stored)


def test_views_bound_differently_on_run_time_paths_are_refused():
    # before: the `else` branch's view (or the one before the loop) was used on every path
    src_if = """
    @ct.kernel
    def k(x, y, z, c, T: ConstInt):
        if c > 0:
            tv = x.tiled_view(T)
        else:
            tv = y.tiled_view(T)
        z.tiled_view(T).store(0, tv.load(0))
    """
    src_loop = """
    @ct.kernel
    def k(x, y, z, T: ConstInt):
        tv = x.tiled_view(T)
        for i in range(2):
            z.tiled_view(T).store(i, tv.load(0))
            tv = y.tiled_view(T)
    """
    src_while = src_loop.replace("for i in range(2):", "i = 0\n        while i < 2:").replace(
        "tv = y.tiled_view(T)", "tv = y.tiled_view(T)\n            i += 1")
    for src in (src_if, src_loop, src_while):
        assert "C2T101" in codes(src), src
    # views of another type on each path: cuTile's "depends on path taken"
    assert "C2T109" in codes("""
    @ct.kernel
    def k(x, c, A: ConstInt, B: ConstInt):
        if c > 0:
            tv = x.tiled_view(A)
        else:
            tv = x.tiled_view(B)
        tv.store(0, ct.full((A,), 1.0, ct.float32))
    """)
    assert "C2T109" in codes("""
    @ct.kernel
    def k(x, c, A: ConstInt, B: ConstInt):
        tv = x.tiled_view(A) if c > 0 else x.tiled_view(B)
        tv.store(0, ct.full((A,), 1.0, ct.float32))
    """)


def test_tiles_that_cannot_broadcast_to_the_view_are_refused():
    for op in ("store", "atomic_store_add"):
        assert "C2T109" in codes(f"""
        @ct.kernel
        def k(x, y):
            tv = x.tiled_view(16)
            tv.{op}(0, y.tiled_view(8).load(0))
        """)


def test_tuple_comparisons_fold():
    code = translate("""
    @ct.kernel
    def k(x, M: ConstInt, N: ConstInt):
        ct.static_assert((M, N) == (M, N))
        ct.static_assert((1, 2) != (1, 2, 3))
        if (M, 4) == (8, 4):
            ct.store(x, (0,), ct.full((1,), 1.0, ct.float32))
    """).code
    body = code[code.index("def k("):code.index("def launch_k(")]     # (the prelude's helpers assert too)
    assert "tl.static_assert" not in body and "if M == 8:" in body.replace("(M == 8)", "M == 8")


def test_view_api_compiles_for_sm90(tmp_path):
    src = (HELPERS_SRC + ZERO_D_SRC.replace("def k(", "def k2(").replace(", k, (", ", k2, (")
           .replace("def run(x, SH, SW)", "def run2(x, SH, SW)")
           + CHOICE_SRC.replace("def k(", "def k3(").replace(", k, (", ", k3, (")
           .replace("def run(x, y, c, use_x)", "def run3(x, y, c, use_x)") + """
def all_(x):
    run(x, 4, 8)
    run2(x, 2, 3)
    run3(x[0], x[1], 1, True)
""")
    out = compile_sm90(src, "all_", "torch.zeros(8, 8),", tmp_path)
    assert out.count("OK ") == 3, out
