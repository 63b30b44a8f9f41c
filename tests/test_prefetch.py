"""Register prefetch in persistent (grid-stride) loops (translator/lower/prefetch.py): the next
iteration's tile is loaded while this one is used, where that cannot change what is read."""
import pytest
import torch

from kernel_util import build, checked, compile_sm90, translate

ROWS = """
@ct.kernel
def rows_k(x, y, TM: ConstInt, TN: ConstInt):
    bid = ct.bid(0)
    nprog = ct.num_blocks(0)
    for t in range(bid, ct.cdiv(x.shape[0], TM), nprog):
        xt = ct.load(x, index=(t, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        xt = ct.astype(xt, ct.float32)
        s = ct.sum(xt * xt, axis=1, keepdims=True)
        ct.store(y, index=(t, 0), tile=ct.astype(xt * s, y.dtype))

def run(x, y, tm, tn, programs):
    ct.launch(torch.cuda.current_stream(), (programs,), rows_k, (x, y, tm, tn))
"""


def _ref(x):
    xf = x.float()
    return (xf * (xf * xf).sum(1, keepdim=True)).to(x.dtype)


def test_persistent_loop_prefetches_the_next_tile():
    code = translate(ROWS).code
    body = code.split("def rows_k(")[1].split("def launch_rows_k")[0]
    assert "xt_prefetch: tl.constexpr = TM * TN <= 16384" in body
    pre, loop = body.split("    for t in range(")
    assert "xt_next = " in pre and ", bid, 0, TM, TN," in pre                     # first tile: t = bid
    assert "if xt_prefetch:\n            xt = xt_next\n            xt_next = " in loop
    assert "(t + nprog), 0, TM, TN," in loop                                     # next tile
    assert "else:\n            xt = " in loop                                     # big tiles: as before


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("rows, tm, tn, programs", [(37, 4, 16, 3),        # ragged, 10 tiles over 3 programs
                                                    (5, 4, 16, 4),         # programs past the last tile
                                                    (9, 2, 16384, 2)])     # 32768-element tiles: no prefetch
def test_prefetched_loop_computes_the_same(tmp_path, dtype, rows, tm, tn, programs):
    mod = build(ROWS, tmp_path)
    x = (0.1 * torch.randn(rows, min(tn, 40) if tn < 1000 else tn)).to(dtype)
    y = torch.zeros_like(x)
    mod.run(x, y, tm, tn, programs)
    torch.testing.assert_close(y.float(), _ref(x).float(), rtol=2e-2 if dtype == torch.float16 else 1e-5, atol=1e-3)


GATHER_ROWS = """
@ct.kernel
def softmax_rows(y, x, N_ROWS: ConstInt, T: ConstInt):
    # TileGym's static-persistent softmax: one row per iteration, read with ct.gather
    pid = ct.bid(0)
    nprog = ct.num_blocks(0)
    offs = ct.arange(T, dtype=ct.int32)
    for r in range(pid, N_ROWS, nprog):
        row = ct.gather(x, (r, offs), check_bounds=True, padding_value=-math.inf)
        row = ct.astype(row, ct.float32)
        e = ct.exp(row - ct.max(row, 0, keepdims=True))
        ct.scatter(y, (r, offs), ct.astype(e / ct.sum(e, 0, keepdims=True), y.dtype), check_bounds=True)

def run(x, t, programs):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (programs,), softmax_rows, (y, x, x.shape[0], t))
    return y
"""


def test_persistent_gather_prefetches_the_next_row():
    """A ct.gather whose indices are the loop variable and loop-invariant tiles is prefetched like
    a ct.load (its shape is the broadcast of its index tiles' shapes); past the last row the
    bounds check pads, as it does for the loop's own last rows."""
    code = translate("import math\n" + GATHER_ROWS).code
    body = code.split("def softmax_rows(")[1].split("def launch_softmax_rows")[0]
    assert "row_prefetch: tl.constexpr = T <= 16384" in body
    assert "row_next = _c2t_gather_2d(x, x_shape_0, x_shape_1, x_stride_0, x_stride_1, (r + nprog), offs," in body


@pytest.mark.parametrize("rows, cols, t, programs", [(9, 37, 64, 4), (3, 16, 16, 5)])
def test_prefetched_gather_loop_computes_the_same(tmp_path, rows, cols, t, programs):
    mod = build("import math\n" + GATHER_ROWS, tmp_path)
    x = torch.randn(rows, cols)
    torch.testing.assert_close(mod.run(x, t, programs), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("store", [
    "xv = x.tiled_view((TM, TN))\n        xv.store((t, 0), xt)",
    "touch(x, t, TM, TN)",
    "imported_touch(x, t, TM, TN)",
])
def test_no_prefetch_of_an_array_the_kernel_may_write(store):
    """A store through a tiled view, or in a module function the array is passed to, could change
    the next iteration's tile: no prefetch. Nor where it is passed to a function of another module,
    whose body is not seen (it was prefetched before the twenty-seventh session)."""
    src = ("""
def touch(X, t, TM, TN):
    ct.store(X, index=(t, 0), tile=ct.zeros((TM, TN), dtype=ct.float32))

""" if "touch(" in store and not store.startswith("imported") else
           "from other_module import imported_touch\n" if store.startswith("imported") else "") + ROWS.replace("        ct.store(y, index=(t, 0), tile=ct.astype(xt * s, y.dtype))",
                   "        ct.store(y, index=(t, 0), tile=ct.astype(xt * s, y.dtype))\n        " + store)
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = res.code.split("def rows_k(")[1]
    assert "xt_next" not in body and "xt_prefetch" not in body


def test_non_contiguous_input(tmp_path):
    mod = build(ROWS, tmp_path)
    x = torch.randn(40, 23)[::2, :20]
    y = torch.zeros(20, 20)
    mod.run(x, y, 4, 32, 2)
    torch.testing.assert_close(y, _ref(x), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("variant, why", [
    ("ct.store(x, index=(t, 0), tile=ct.astype(xt, x.dtype))", "in place: the next tile may be this store's"),
    ("row = t\n        xt = ct.load(x, index=(row, 0), shape=(TM, TN))", "index from a name the loop assigns"),
    ("acc = ct.mma(xt, xt, ct.zeros((TM, TM), dtype=ct.float32))", "dot loop: Triton pipelines it"),
    ("acc = xt @ xt", "matmul operator: a dot loop too"),
])
def test_no_prefetch_where_it_could_change_what_is_read(variant, why):
    src = ROWS
    if variant.startswith("ct.store(x"):
        src = src.replace("ct.store(y, index=(t, 0), tile=ct.astype(xt * s, y.dtype))", variant)
    elif variant.startswith("row"):
        src = src.replace("xt = ct.load(x, index=(t, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)", variant)
    else:
        src = src.replace("s = ct.sum(", variant + "\n        s = ct.sum(")
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "_prefetch" not in res.code, why


LOAD = "xt = ct.load(x, index=(t, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)"


@pytest.mark.parametrize("load, why", [
    ("if t == 3:\n            continue\n        " + LOAD, "a skipped iteration would leave the wrong tile"),
    (LOAD[:-1] + ", check_bounds=False)", "an unchecked load past the last iteration could fault"),
    (LOAD[:-1] + ", memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)", "an acquire load must stay in place"),
])
def test_no_prefetch_for_loads_that_must_stay_in_their_iteration(load, why):
    res = translate(ROWS.replace(LOAD, load))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "_prefetch" not in res.code, why
    assert "_prefetch" in translate(ROWS).code


def test_bad_load_call_in_a_persistent_loop_gets_its_diagnostic():
    """The prefetch planning looks at the call before it is lowered: a call cuTile rejects must
    still get the lowering's located diagnostic, not an internal error."""
    res = translate(ROWS.replace("ct.load(x, index=(t, 0)", "ct.load(array=x, index=(t, 0)"))
    assert [d.code for d in res.diagnostics] == ["C2T109"]


def test_fixed_step_loop_is_left_to_triton():
    src = ROWS.replace("range(bid, ct.cdiv(x.shape[0], TM), nprog)", "range(bid, ct.cdiv(x.shape[0], TM), 1)")
    assert "_prefetch" not in translate(src).code


def test_both_specializations_compile_for_sm90(tmp_path):
    out = compile_sm90(ROWS, "run", "(torch.randn(64, 4096, dtype=torch.float16), "
                                    "torch.empty(64, 4096, dtype=torch.float16), 4, 4096, 3)", tmp_path)
    assert "OK rows_k" in out
    out = compile_sm90(ROWS, "run", "(torch.randn(64, 8192, dtype=torch.float16), "
                                    "torch.empty(64, 8192, dtype=torch.float16), 4, 8192, 3)", tmp_path)
    assert "OK rows_k" in out


@pytest.mark.parametrize("cast", ["ct.astype({load}, ct.float32)", "{load}.astype(ct.float32)"])
def test_a_cast_load_prefetches_the_raw_tile(tmp_path, cast):
    """`xt = ct.astype(ct.load(...), dt)`: the raw tile is prefetched and cast where it is used (a
    cast at the prefetch would wait for the load there)."""
    load = LOAD.split(" = ", 1)[1]
    src = ROWS.replace(LOAD + "\n        xt = ct.astype(xt, ct.float32)", "xt = " + cast.format(load=load))
    assert src != ROWS
    code = translate(src).code
    loop = code.split("def rows_k(")[1].split("def launch_rows_k")[0].split("    for t in range(")[1]
    assert "if xt_prefetch:\n            xt_loaded = xt_next\n            xt_next = " in loop
    assert "else:\n            xt_loaded = " in loop and "\n        xt = xt_loaded.to(tl.float32)\n" in loop
    mod = build(src, tmp_path)
    x = (0.1 * torch.randn(37, 16)).to(torch.float16)
    y = torch.zeros_like(x)
    mod.run(x, y, 4, 16, 3)
    torch.testing.assert_close(y.float(), _ref(x).float(), rtol=2e-2, atol=1e-3)


# A persistent kernel walking each of its rows in column tiles (examples/scale_rows' shape): the
# inner loop has a fixed step, but the grid-stride loop around it means one program per SM or so.
ROW_TILES = """
@ct.kernel
def row_tiles(x, y, TN: ConstInt):
    for r in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        for j in range(ct.num_tiles(x, axis=1, shape=(1, TN))):
            t = ct.astype(ct.load(x, index=(r, j), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32)
            ct.store(y, index=(r, j), tile=ct.astype(t * (r + 1) + j, y.dtype))

def run(x, y, tn, programs):
    ct.launch(torch.cuda.current_stream(), (programs,), row_tiles, (x, y, tn))
"""


def _row_tiles_ref(x, tn):
    cols = torch.arange(x.shape[1]) // tn
    rows = torch.arange(x.shape[0])[:, None] + 1
    return (x.float() * rows + cols).to(x.dtype)


def test_a_loop_inside_a_grid_stride_loop_prefetches():
    code = translate(ROW_TILES).code
    body = code.split("def row_tiles(")[1].split("def launch_row_tiles")[0]
    outer, inner = body.split("        for j in range(")
    assert "t_prefetch: tl.constexpr = 1 * TN <= 16384" in outer and ", r, 0, 1, TN," in outer   # j = 0
    assert "t_next = " in inner and ", r, (j + 1), 1, TN," in inner
    # the same loop without the grid-stride loop around it is left to Triton
    alone = ROW_TILES.replace("range(ct.bid(0), x.shape[0], ct.num_blocks(0))", "range(ct.bid(0), x.shape[0], 4)")
    assert "_prefetch" not in translate(alone).code


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("rows, cols, tn, programs", [(7, 50, 16, 3),     # ragged: 4 column tiles, the last partial
                                                      (3, 16, 16, 5),     # one tile per row, idle programs
                                                      (2, 20, 32, 1)])    # one program walks every row
def test_a_prefetched_inner_loop_computes_the_same(tmp_path, dtype, rows, cols, tn, programs):
    mod = build(ROW_TILES, tmp_path)
    x = torch.randn(rows, cols).to(dtype)
    y = torch.zeros_like(x)
    mod.run(x, y, tn, programs)
    torch.testing.assert_close(y, _row_tiles_ref(x, tn), rtol=1e-3, atol=1e-3)


def test_the_prefetched_inner_loop_compiles_for_sm90(tmp_path):
    out = compile_sm90(ROW_TILES, "run", "(torch.randn(64, 4096, dtype=torch.float16), "
                                         "torch.empty(64, 4096, dtype=torch.float16), 512, 16)", tmp_path)
    assert "OK row_tiles" in out


def test_one_switch_counts_all_the_loops_prefetched_tiles(tmp_path):
    """Two tiles prefetched in one loop share one switch on their elements together: TileGym's
    RMSNorm backward prefetching two 4x4096 tiles ran slower than without (0.79-0.82 of cuTile
    against 1.34-1.36 on the H200), two 1x4096 tiles faster (1.19-1.20 against 0.92-0.93)."""
    src = ROWS.replace(LOAD + "\n        xt = ct.astype(xt, ct.float32)",
                       LOAD + "\n        xt = ct.astype(xt, ct.float32)"
                       "\n        zt = ct.astype(ct.load(y, index=(t, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32)")
    src = src.replace("def rows_k(x, y, TM: ConstInt, TN: ConstInt):", "def rows_k(x, z, y, TM: ConstInt, TN: ConstInt):")
    src = src.replace("ct.load(y, index=(t, 0)", "ct.load(z, index=(t, 0)").replace("tile=ct.astype(xt * s, y.dtype)",
                                                                                   "tile=ct.astype(xt * s + zt, y.dtype)")
    src = src.replace("(x, y, tm, tn)", "(x, x, y, tm, tn)")
    code = translate(src).code
    body = code.split("def rows_k(")[1].split("def launch_rows_k")[0]
    assert "t_prefetch: tl.constexpr = TM * TN + TM * TN <= 16384" in body
    assert "xt_next = " in body and "zt_next = " in body and body.count("if t_prefetch:") == 2
    assert "xt_prefetch" not in body and "zt_prefetch" not in body
    mod = build(src, tmp_path)
    for tm, tn in ((4, 16), (2, 8192)):          # 128 elements: prefetched; 32768: not
        x = (0.1 * torch.randn(37, min(tn, 40))).to(torch.float32)
        y = torch.zeros_like(x)
        mod.run(x, y, tm, tn, 3)
        torch.testing.assert_close(y, _ref(x) + x, rtol=1e-5, atol=1e-4)


# Two passes over each row's column tiles inside one grid-stride loop, both loading `xt` (the
# shape of a static-persistent RMSNorm): each loop gets a switch and a buffer of its own (one
# constexpr name defined twice in a function is a CompilationError in Triton); `{cast}` is the
# load as written, `{acc}`/`{add}` the sum of squares carried through pass 1 (a (1, 1) tile or a
# 0-D one started as a Python float), and `xt_next` the user's own, which the prefetch must not
# overwrite.
TWO_PASSES = """
@ct.kernel
def two_pass(x, y, TN: ConstInt):
    for r in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        xt_next = ct.full((1, TN), 0.5, dtype=ct.float32)
        {acc}
        for j in range(ct.num_tiles(x, axis=1, shape=(1, TN))):
            {cast}
            {add}
        for j in range(ct.num_tiles(x, axis=1, shape=(1, TN))):
            {cast}
            ct.store(y, index=(r, j), tile=ct.astype(xt * ss + xt_next, y.dtype))
    {tail}

def run(x, y, tn, programs):
    ct.launch(torch.cuda.current_stream(), (programs,), two_pass, (x, y, tn))
"""
TWO_LOADS = {
    "plain": "xt = ct.load(x, index=(r, j), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)",
    "cast": "xt = ct.astype(ct.load(x, index=(r, j), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32)",
}
ACCS = {
    "tile": ("ss = ct.full((1, 1), 0.0, dtype=ct.float32)", "ss += ct.sum(xt * xt, axis=1, keepdims=True)"),
    "scalar": ("ss = 0.0", "ss = ss + ct.sum(xt * xt)"),
}


def _two_passes(load, tail="pass", acc="tile"):
    return TWO_PASSES.format(cast=TWO_LOADS[load], tail=tail, acc=ACCS[acc][0], add=ACCS[acc][1])


# the same two loops once more after the grid-stride loop, as grid-stride loops of their own
SECOND_PERSISTENT = """for r in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        xt = ct.load(x, index=(r, 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(r, 0), tile=ct.astype(ct.load(y, index=(r, 0), shape=(1, TN)) + 0 * xt, y.dtype))"""


def _two_pass_ref(x, tn):
    xf = x.float()
    return (xf * (xf * xf).sum(1, keepdim=True) + 0.5).to(x.dtype)


@pytest.mark.parametrize("load, tail, acc", [("plain", "pass", "tile"), ("cast", "pass", "scalar"),
                                             ("plain", SECOND_PERSISTENT, "scalar"), ("cast", SECOND_PERSISTENT, "tile")])
def test_two_prefetched_loops_of_one_tile_name_compile(load, tail, acc):
    """cutile-python's static-persistent RMSNorm was a C2T110 (`x_prefetch is already defined`)."""
    res = checked(_two_passes(load, tail, acc))
    body = res.code.split("def two_pass(")[1].split("def launch_two_pass")[0]
    assert "xt_prefetch: tl.constexpr" in body and "xt_prefetch_2: tl.constexpr" in body
    assert "xt_next = " not in body.replace("    xt_next = tl.full", "")   # the user's own `xt_next`
    assert "xt_next_2 = " in body and "xt_next_3 = " in body


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("load", sorted(TWO_LOADS))
@pytest.mark.parametrize("acc", sorted(ACCS))
@pytest.mark.parametrize("rows, cols, tn, programs", [(7, 50, 16, 3), (2, 20, 32, 1)])
def test_two_prefetched_loops_compute_the_same(tmp_path, dtype, load, acc, rows, cols, tn, programs):
    """The prefetch buffers leave the user's `xt_next` alone (it was overwritten before)."""
    mod = build(_two_passes(load, acc=acc), tmp_path)
    x = (0.3 * torch.randn(rows, cols)).to(dtype)
    y = torch.zeros_like(x)
    mod.run(x, y, tn, programs)
    torch.testing.assert_close(y.float(), _two_pass_ref(x, tn).float(), rtol=2e-2 if dtype == torch.float16 else 1e-5,
                               atol=2e-2 if dtype == torch.float16 else 1e-5)
