"""Register prefetch in persistent (grid-stride) loops (translator/lower/prefetch.py): the next
iteration's tile is loaded while this one is used, where that cannot change what is read."""
import pytest
import torch

from kernel_util import build, compile_sm90, translate

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
])
def test_no_prefetch_of_an_array_the_kernel_may_write(store):
    """A store through a tiled view, or in a module function the array is passed to, could change
    the next iteration's tile: no prefetch."""
    src = ("""
def touch(X, t, TM, TN):
    ct.store(X, index=(t, 0), tile=ct.zeros((TM, TN), dtype=ct.float32))

""" if "touch" in store else "") + ROWS.replace("        ct.store(y, index=(t, 0), tile=ct.astype(xt * s, y.dtype))",
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
