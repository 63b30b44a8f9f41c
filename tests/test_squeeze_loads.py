"""`x = ct.load(A, ..., shape=(1, N, D))` followed by `x = ct.reshape(x, (N, D))` becomes one 2-D
load (`_c2t_load_at_2d`): cuTile loads have the array's rank, so kernels over batched arrays load
unit extents and reshape them away, and a 3-D Triton load reshaped afterwards is neither pipelined
nor fed to dots from shared memory. Each case runs under the interpreter against torch."""
import pytest
import torch

from kernel_util import RT, build, compile_sm90, translate

BATCHED = """
@ct.kernel
def rowsum(X, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    i = ct.bid(1)
    x = ct.load(X, index=(b, i, 0), shape=(1, T, D), padding_mode=ct.PaddingMode.NEG_INF)
    x = ct.reshape(x, (T, D))
    m = ct.max(x, 1)
    ct.store(Y, index=(b, i), tile=ct.reshape(m, (1, T)))

def run(x, t=8, d=16, extra_b=0):
    B, N, _ = x.shape
    y = torch.full((B, N), 7.0, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (B + extra_b, ct.cdiv(N, t)), rowsum, (x, y, t, d))
    return y
"""


def _ref_rowmax(x, d):
    pad = torch.full((*x.shape[:2], max(0, d - x.shape[2])), -float("inf"), dtype=x.dtype)
    return torch.cat([x[:, :, :d], pad], dim=2).amax(dim=2)


def test_load_then_reshape_is_one_2d_load():
    code = translate(BATCHED).code
    body = code.split("def rowsum(")[1].split("def launch_rowsum")[0]
    assert ("x = _c2t_load_at_2d(X + b * X_stride_0, X_shape_1, X_shape_2, X_stride_1, X_stride_2, i, 0, T, D, "
            "_C2T_PAD_NEG_INF, True, (b < X_shape_0))") in body
    assert "_c2t_load_3d" not in body and "tl.reshape(x" not in body


@pytest.mark.parametrize("shape", [(3, 20, 16), (2, 8, 11), (1, 5, 30)])
def test_ragged_tiles_and_padding(tmp_path, shape):
    mod = build(BATCHED, tmp_path)
    x = torch.randn(*shape)
    torch.testing.assert_close(mod.run(x), _ref_rowmax(x, 16))


def test_noncontiguous_batched_array(tmp_path):
    mod = build(BATCHED, tmp_path)
    base = torch.randn(20, 4, 40)
    x = base.permute(1, 0, 2)[:, :, ::2]         # strides (40, 160, 2)
    torch.testing.assert_close(mod.run(x), _ref_rowmax(x, 16))


def test_a_unit_axis_past_the_array_edge_reads_padding(tmp_path):
    """The unit axis's bound check is kept: a program whose batch index is past the array's reads
    the padding (-inf here); its max is -inf and its store is masked off, so Y keeps its 7s."""
    src = BATCHED.replace("ct.store(Y, index=(b, i), tile=ct.reshape(m, (1, T)))",
                          "ct.store(Y, index=(ct.minimum(b, 1), i), tile=ct.reshape(m, (1, T)))")
    mod = build(src, tmp_path)
    x = torch.randn(2, 8, 16)
    y = mod.run(x, extra_b=1)                    # program b=2 reads past X's first axis
    torch.testing.assert_close(y[0], _ref_rowmax(x, 16)[0])
    # b=1 and b=2 both store row 1: one of them wrote x's maxima, the other -inf (its padding)
    assert torch.equal(y[1], _ref_rowmax(x, 16)[1]) or torch.isneginf(y[1]).all()


ORDERED = """
@ct.kernel
def gather_t(V, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    # V is (B, S, D); tile axis k walks array axis order[k]: tile (T, 1, D) over axes (S, B, D)
    v = ct.load(V, index=(0, b, 0), shape=(T, 1, D), order=(1, 0, 2))
    v = ct.reshape(v, (T, D))
    ct.store(Y, index=(b, 0, 0), tile=ct.reshape(v, (1, T, D)))

@ct.kernel
def gather_tt(V, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    # the kept axes come out transposed: tile (D, 1, T) over array axes (D, B, S)
    v = ct.load(V, index=(0, b, 0), shape=(D, 1, T), order=(2, 0, 1))
    v = ct.reshape(v, (D, T))
    ct.store(Y, index=(b, 0, 0), tile=ct.reshape(v, (1, D, T)))

def run(v, t, d, transposed=False):
    B, S, D = v.shape
    if transposed:
        y = torch.zeros((B, d, t), dtype=v.dtype)
        ct.launch(torch.cuda.current_stream(), (B,), gather_tt, (v, y, t, d))
    else:
        y = torch.zeros((B, t, d), dtype=v.dtype)
        ct.launch(torch.cuda.current_stream(), (B,), gather_t, (v, y, t, d))
    return y
"""


@pytest.mark.parametrize("transposed", [False, True])
def test_order_with_a_unit_axis(tmp_path, transposed):
    code = translate(ORDERED).code
    assert code.count("_c2t_load_at_2d(V + b * V_stride_0, V_shape_1, V_shape_2") == 2
    assert "tl.permute(_c2t_load_at_2d(" in code.split("def gather_tt(")[1].split("def launch_")[0]
    mod = build(ORDERED, tmp_path)
    v = torch.randn(3, 8, 16)
    y = mod.run(v, 8, 16, transposed)
    torch.testing.assert_close(y, v.transpose(1, 2) if transposed else v)


@pytest.mark.parametrize("transposed", [False, True])
def test_order_with_a_unit_axis_on_the_descriptor_path(tmp_path, monkeypatch, transposed):
    """A squeezed load with `order` (MLA's V) also gets the TMA branch: the descriptor walks the
    array in its own axis order and the loaded block is permuted as on the pointer path."""
    code = translate(ORDERED).code
    t_kernel = code.split("def gather_t(")[1].split("def launch_")[0]
    tt_kernel = code.split("def gather_tt(")[1].split("def launch_")[0]
    assert "v = tl.reshape(V_desc_0.load([b, 0, 0]), [T, D]) if V_TMA else _c2t_load_at_2d(" in t_kernel
    assert "v = tl.permute(tl.reshape(V_desc_0.load([b, 0, 0]), [T, D]), (1, 0)) if V_TMA else " \
        "tl.permute(_c2t_load_at_2d(" in tt_kernel
    mod = build(ORDERED, tmp_path)
    v = torch.randn(3, 8, 16)
    for mode in ("off", "on"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        y = mod.run(v, 8, 16, transposed)
        torch.testing.assert_close(y, v.transpose(1, 2) if transposed else v)


FOUR_D = """
@ct.kernel
def k4(X, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    h = ct.bid(1)
    x = ct.load(X, index=(b, h, 0, 0), shape=(1, 1, T, D), check_bounds=False)
    x = ct.reshape(x, (T, D))
    ct.store(Y, index=(b, h, 0, 0), tile=ct.reshape(x * 2.0, (1, 1, T, D)))

def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], x.shape[1]), k4, (x, y, x.shape[2], x.shape[3]))
    return y
"""


def test_two_unit_axes_and_unchecked_loads(tmp_path):
    code = translate(FOUR_D).code
    assert ("else _c2t_load_at_2d(X + b * X_stride_0 + h * X_stride_1, X_shape_2, X_shape_3, X_stride_2, "
            "X_stride_3, 0, 0, T, D, _C2T_PAD_ZERO, False, (b < X_shape_0) & (h < X_shape_1))") in code
    mod = build(FOUR_D, tmp_path)
    x = torch.randn(2, 3, 8, 16)
    torch.testing.assert_close(mod.run(x), x * 2)


@pytest.mark.parametrize("second", [
    "x = ct.reshape(x, (D, T))",              # a real reshape (reorders the elements' grouping)
    "x = ct.reshape(x, (T * D,))",            # flattening
    "y = ct.reshape(x, (T, D))",              # another name: x stays alive as a 3-D tile
    "x = ct.reshape(x + 1.0, (T, D))",        # not the plain loaded tile
])
def test_other_reshapes_keep_the_full_rank_load(tmp_path, second):
    src = BATCHED.replace("x = ct.reshape(x, (T, D))", second)
    if second.startswith("y ="):
        src = src.replace("m = ct.max(x, 1)", "m = ct.max(y, 1)")
    res = translate(src)
    if not res.ok:       # (T * D,) then max over axis 1 does not type-check: only the load matters here
        return
    assert "_c2t_load_at_" not in res.code and "_c2t_load_3d(" in res.code


SHAPE_READS_X = """
@ct.kernel
def rows(X, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    x = ct.zeros((1, D, T), dtype=X.dtype)          # an earlier x with another shape
    x = ct.load(X, index=(b, 0, 0), shape=(1, T, D))
    x = ct.reshape(x, (x.shape[2], x.shape[1]))      # (D, T): reads the loaded x's shape
    ct.store(Y, index=(b, 0), tile=ct.reshape(ct.sum(x, 1), (1, D)))

def run(x):
    y = torch.zeros((x.shape[0], x.shape[2]), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), rows, (x, y, x.shape[1], x.shape[2]))
    return y
"""


def test_a_reshape_shape_is_read_after_the_load_not_before(tmp_path):
    """The pair's reshape shape is looked at before the load is lowered, when `x` is still the
    earlier (1, D, T) tile, so a shape that reads x is not squeezed (it would give (T, D) instead
    of (D, T) if tile `.shape` folded to constants; today `x.shape[k]` stays a run-time expression,
    so this checks the result, and _load_then_reshape's guard is defensive)."""
    code = translate(SHAPE_READS_X).code
    assert "_c2t_load_at_" not in code
    mod = build(SHAPE_READS_X, tmp_path)
    x = torch.randn(2, 8, 16)
    torch.testing.assert_close(mod.run(x), x.reshape(2, 16, 8).sum(2))


def test_a_statement_in_between_keeps_the_full_rank_load():
    src = BATCHED.replace("x = ct.reshape(x, (T, D))", "z = b + 1\n    x = ct.reshape(x, (T, D))")
    code = translate(src).code
    assert "_c2t_load_at_" not in code and "tl.reshape(x, [T, D])" in code


def test_descriptor_path_reshapes_the_tma_block(tmp_path, monkeypatch):
    """With descriptors on (the interpreter runs them too), the TMA branch loads the full-rank
    block and reshapes it; both branches give the same tile."""
    src = BATCHED.replace("padding_mode=ct.PaddingMode.NEG_INF", "padding_mode=ct.PaddingMode.ZERO")
    code = translate(src).code
    assert "tl.reshape(X_desc_0.load([b, i * T, 0]), [T, D]) if X_TMA else _c2t_load_at_2d(" in code
    mod = build(src, tmp_path)
    x = torch.randn(2, 16, 16)
    want = x.amax(dim=2)
    for mode in ("off", "on"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        torch.testing.assert_close(mod.run(x), want)


MLA_LIKE = """
@ct.kernel
def attn_t(Q, K, V, O, TN: ConstInt, D: ConstInt, H: ConstInt, S: ConstInt):
    b = ct.bid(0)
    q = ct.load(Q, index=(b, 0, 0), shape=(1, D, H))
    q = ct.reshape(q, (D, H))
    acc = ct.zeros((D, H), dtype=ct.float32)
    for n in range(S // TN):
        k = ct.load(K, index=(b, n, 0), shape=(1, TN, D))
        k = ct.reshape(k, (TN, D))
        s = ct.mma(k, q, ct.zeros((TN, H), dtype=ct.float32))
        v = ct.load(V, index=(n, b, 0), shape=(TN, 1, D), order=(1, 0, 2))
        v = ct.reshape(v, (TN, D))
        v = ct.transpose(v)
        acc = ct.mma(v, ct.astype(s, Q.dtype), acc)
    ct.store(O, index=(b, 0, 0), tile=ct.reshape(ct.astype(acc, O.dtype), (1, D, H)))

def run(q, k, v):
    o = torch.empty_like(q)
    ct.launch(torch.cuda.current_stream(), (q.shape[0],), attn_t, (q, k, v, o, 64, 64, 16, k.shape[1]))
    return o
"""


def test_mla_like_loop_computes_right(tmp_path):
    mod = build(MLA_LIKE, tmp_path)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 64, 16, generator=g) / 8
    k = torch.randn(2, 128, 64, generator=g) / 8
    v = torch.randn(2, 128, 64, generator=g)                                  # (B, S, D), as MLA's V
    s = k @ q                                                                 # (B, S, H)
    want = v.transpose(1, 2) @ s                                              # (B, D, H)
    torch.testing.assert_close(mod.run(q, k, v), want, rtol=1e-4, atol=1e-4)


def test_mla_like_loop_pipelines_all_loads_for_sm90(tmp_path):
    """On sm_90 the squeezed K and V loads are asynchronous 16-byte copies into the pipeline's
    shared memory (a 3-D load reshaped afterwards is loaded into registers instead). The products
    have N = H = 16: computed transposed, they run on mma.sync, not wgmma (Triton 3.6's wgmma
    computed this pattern wrongly on the H200: docs/decisions/010-narrow-products-transposed.md)."""
    h = "dtype=torch.float16"
    out = compile_sm90(MLA_LIKE, "run", f"torch.randn(2, 64, 16, {h}), torch.randn(2, 256, 64, {h}), "
                                         f"torch.randn(2, 256, 64, {h})", tmp_path)
    assert "wgmma=False mma.sync=True" in out and int(out.split("cp_async16=")[1].split()[0]) >= 16, out


# `x = ct.load(...)`, `x = ct.reshape(x, (T, D))`, `x = ct.transpose(x)`: one load of the
# transposed tile (ops_memory._FOLD), so that the tile can feed a dot straight from the pipeline.
TRANSPOSED = """
@ct.kernel
def tr(X, Y, T: ConstInt, D: ConstInt):
    b = ct.bid(0)
    i = ct.bid(1)
    x = ct.load(X, index=(b, i, 0), shape=(1, T, D), padding_mode=ct.PaddingMode.PAD)
    x = ct.reshape(x, (T, D))  # drop the batch axis
    x = ct.transpose(x)  # (D, T)
    ct.store(Y, index=(b, 0, i), tile=ct.reshape(x * 2.0, (1, D, T)))

def run(x, t=8, d=16):
    B, N, Dx = x.shape
    y = torch.full((B, Dx, N), 7.0, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (B, ct.cdiv(N, t)), tr, (x, y, t, d))
    return y
"""
_SPELLINGS = ["x = ct.transpose(x)", "x = x.transpose()", "x = ct.permute(x, (1, 0))"]


def _transposed(spelling, pad="NEG_INF"):
    return TRANSPOSED.replace("x = ct.transpose(x)", spelling).replace("PaddingMode.PAD", f"PaddingMode.{pad}")


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_load_reshape_transpose_is_one_load_of_the_transposed_tile(spelling):
    body = translate(_transposed(spelling)).code.split("def tr(")[1].split("def launch_tr")[0]
    assert ("x = _c2t_load_at_2d(X + b * X_stride_0, X_shape_2, X_shape_1, X_stride_2, X_stride_1, 0, i, D, T, "
            "_C2T_PAD_NEG_INF, True, (b < X_shape_0))  # loads the transposed tile (the ct.transpose after it)"
            "  # drop the batch axis") in body
    assert "tl.trans(" not in body and "tl.permute(" not in body


@pytest.mark.parametrize("spelling", _SPELLINGS)
@pytest.mark.parametrize("shape", [(2, 20, 16), (3, 8, 11), (1, 5, 13)])
def test_the_transposed_load_computes_right(tmp_path, spelling, shape):
    mod = build(_transposed(spelling), tmp_path)
    x = torch.randn(*shape)
    torch.testing.assert_close(mod.run(x), x.transpose(1, 2) * 2)


def test_the_transposed_load_of_a_noncontiguous_array(tmp_path):
    mod = build(_transposed("x = ct.transpose(x)"), tmp_path)
    x = torch.randn(20, 3, 40).permute(1, 0, 2)[:, :, ::3]        # (3, 20, 14), strides (40, 120, 3)
    torch.testing.assert_close(mod.run(x), x.transpose(1, 2) * 2)


def test_a_descriptor_branch_transposes_its_block(tmp_path, monkeypatch):
    """Zero padding: the load also has a TMA branch, which keeps its load and transposes the block;
    the pointer branch loads the transposed tile. Both compute the same (interpreter, TMA off/on)."""
    src = _transposed("x = ct.transpose(x)", pad="ZERO")
    body = translate(src).code.split("def tr(")[1].split("def launch_tr")[0]
    assert ("x = tl.trans(tl.reshape(X_desc_0.load([b, i * T, 0]), [T, D])) if X_TMA else "
            "_c2t_load_at_2d(X + b * X_stride_0, X_shape_2, X_shape_1, X_stride_2, X_stride_1, 0, i, D, T, ") in body
    mod = build(src, tmp_path)
    x = torch.randn(2, 24, 16)
    for mode in ("off", "on"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        torch.testing.assert_close(mod.run(x), x.transpose(1, 2) * 2)


@pytest.mark.parametrize("between", ["z = b + 1", "y = ct.transpose(x)"])
def test_no_fold_without_the_transpose_right_after(between):
    """Another statement between (or a transpose into another name) keeps the load as it was."""
    src = _transposed("x = ct.transpose(x)").replace("    x = ct.transpose(x)", f"    {between}\n    x = ct.transpose(x)")
    body = translate(src).code.split("def tr(")[1].split("def launch_tr")[0]
    assert "X_shape_1, X_shape_2, X_stride_1, X_stride_2, i, 0, T, D" in body and "x = tl.trans(x)" in body


ALIASED_KV = """
@ct.kernel
def kv(K, V, O, T: ConstInt, D: ConstInt, NT: ConstInt):
    b = ct.bid(0)
    acc = ct.zeros((D, D), dtype=ct.float32)
    for j in range(NT):
        k = ct.load(K, index=(b, j, 0), shape=(1, T, D))
        k = ct.reshape(k, (T, D))
        v = ct.load(V, index=(b, j, 0), shape=(1, T, D))
        v = ct.reshape(v, (T, D))
        v = ct.transpose(v)
        acc = ct.mma(v, k, acc)
    ct.store(O, index=(b, 0, 0), tile=ct.reshape(acc, (1, D, D)))

def run(k, v):
    o = torch.empty((k.shape[0], k.shape[2], k.shape[2]), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (k.shape[0],), kv, (k, v, o, 8, k.shape[2], k.shape[1] // 8))
    return o
"""


def test_a_load_an_aliased_array_can_stand_for_is_not_folded(tmp_path):
    """V's load repeats K's (TileGym's decode kernels may pass one cache as both): it stays as
    it was, so that `v = k if V_IS_K` can reuse K's tile, and is transposed afterwards."""
    code = translate(ALIASED_KV).code
    assert "v = k if V_IS_K else" in code and "v = tl.trans(v)" in code
    mod = build(ALIASED_KV, tmp_path)
    k, v = torch.randn(2, 24, 16), torch.randn(2, 24, 16)
    torch.testing.assert_close(mod.run(k, v), v.transpose(1, 2) @ k, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mod.run(k, k), k.transpose(1, 2) @ k, rtol=1e-4, atol=1e-4)


DECODE_LIKE = """
@ct.kernel
def dec(Q, K, V, O, G: ConstInt, D: ConstInt, TN: ConstInt, NT: ConstInt):
    b = ct.bid(0)
    q = ct.load(Q, index=(b, 0, 0), shape=(1, G, D), padding_mode=ct.PaddingMode.NEG_INF)
    q = ct.reshape(q, (G, D))
    q = ct.transpose(q)
    acc = ct.zeros((D, G), dtype=ct.float32)
    for j in range(NT):
        k = ct.load(K, index=(b, j, 0), shape=(1, TN, D), padding_mode=ct.PaddingMode.NEG_INF)
        k = ct.reshape(k, (TN, D))
        p = ct.astype(ct.mma(k, q, ct.zeros((TN, G), dtype=ct.float32)), Q.dtype)
        v = ct.load(V, index=(b, j, 0), shape=(1, TN, D))     # (zero padding: not K's load)
        v = ct.reshape(v, (TN, D))
        v = ct.transpose(v)
        acc = ct.mma(v, p, acc)
    ct.store(O, index=(b, 0, 0), tile=ct.reshape(ct.astype(acc, O.dtype), (1, D, G)))

def run(q, k, v):
    o = torch.empty((q.shape[0], q.shape[2], q.shape[1]), dtype=q.dtype)
    ct.launch(torch.cuda.current_stream(), (q.shape[0],), dec, (q, k, v, o, 8, 128, 128, k.shape[1] // 128))
    return o
"""


def test_decode_like_loop_computes_right(tmp_path):
    mod = build(DECODE_LIKE, tmp_path)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 8, 128, generator=g) / 8, torch.randn(2, 256, 128, generator=g) / 8,
               torch.randn(2, 256, 128, generator=g))
    want = v.transpose(1, 2) @ (k @ q.transpose(1, 2))
    torch.testing.assert_close(mod.run(q, k, v), want, rtol=1e-4, atol=1e-4)


def test_decode_like_loop_pipelines_the_transposed_loads_for_sm90(tmp_path):
    """Compiled for sm_90 with 8 query rows (flash_decode's group; the dots are mma.sync, whose
    operands come from registers), the folded V load is an asynchronous copy into the pipeline's
    shared memory; with a statement between the reshape and the transpose (no fold) fewer copies
    are asynchronous (TileGym flash_decode's V: 48 plain global loads, 255 registers and spills,
    against none and 128 registers folded; ops_memory._FOLD)."""
    h = "dtype=torch.float16"
    args = f"torch.randn(2, 8, 128, {h}), torch.randn(2, 256, 128, {h}), torch.randn(2, 256, 128, {h})"
    folded = compile_sm90(DECODE_LIKE, "run", args, tmp_path)
    unfolded = compile_sm90(DECODE_LIKE.replace("        v = ct.transpose(v)", "        z = j + 1\n        v = ct.transpose(v)"),
                            "run", args, tmp_path)
    copies = [int(o.split("cp_async16=")[1].split()[0]) for o in (folded, unfolded)]
    assert copies[0] > copies[1], (folded, unfolded)


# The method spelling of the reshape, `k = k.reshape(...)`, as cutile-python's AttentionFMHA and
# TileGym's attention load K: (1, 1, D, TN) tiles with order=(0, 1, 3, 2), reshaped to (D, TN). Until
# the eighteenth session only `ct.reshape(k, ...)` was recognized, so K stayed a masked 4-D pointer
# load; as one 2-D tile load (which may also take a descriptor, though not at attention's grid sizes
# by default: C2T_TMA=small), TileGym's attention went from 1.205 to 1.295 of cuTile on the H200
# (docs/decisions/006-squeezed-loads.md: the gain is the 2-D load, not a descriptor).
K_T = """
@ct.kernel
def kt(K, Y, TN: ConstInt, D: ConstInt):
    b = ct.bid(0)
    h = ct.bid(1)
    j = ct.bid(2)
    k = ct.load(K, index=(b, h, 0, j), shape=(1, 1, D, TN), order=(0, 1, 3, 2))
    k = k.reshape((D, TN))  # [D, TN]
    ct.store(Y, index=(b, h, 0, j), tile=k.reshape((1, 1, D, TN)))

def run(k, tn):
    B, H, S, D = k.shape
    y = torch.zeros((B, H, D, S), dtype=k.dtype)
    ct.launch(torch.cuda.current_stream(), (B, H, ct.cdiv(S, tn)), kt, (k, y, tn, D))
    return y
"""


def test_method_reshape_is_a_squeezed_load_with_a_descriptor():
    body = translate(K_T).code.split("def kt(")[1].split("def launch_kt")[0]
    assert "k = tl.permute(tl.reshape(K_desc_0.load([b, h, j * TN, 0]), [TN, D]), (1, 0)) if K_TMA else " \
        "tl.permute(_c2t_load_at_2d(K + b * K_stride_0 + h * K_stride_1, K_shape_2, K_shape_3, K_stride_2, " \
        "K_stride_3, j, 0, TN, D, _C2T_PAD_ZERO, True, (b < K_shape_0) & (h < K_shape_1)), (1, 0))  # [D, TN]" in body
    assert "_c2t_load_4d" not in body


@pytest.mark.parametrize("s", [16, 20])
def test_method_reshape_computes_right_on_both_paths(tmp_path, monkeypatch, s):
    mod = build(K_T, tmp_path)
    k = torch.randn(2, 3, s, 16)
    for mode in ("off", "on"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        torch.testing.assert_close(mod.run(k, 8), k.transpose(2, 3))


@pytest.mark.parametrize("second", [
    "x = x.reshape((D, T))",                  # a real reshape
    "x = y.reshape((T, D))",                  # another tile's method
    "y = x.reshape((T, D))",                  # another name
])
def test_other_method_reshapes_keep_the_full_rank_load(second):
    src = BATCHED.replace("x = ct.reshape(x, (T, D))", second)
    if second.startswith("x = y"):
        src = src.replace("    x = ct.load(", "    y = ct.zeros((1, T, D), dtype=X.dtype)\n    x = ct.load(")
    if second.startswith("y ="):
        src = src.replace("m = ct.max(x, 1)", "m = ct.max(y, 1)")
    res = translate(src)
    assert res.ok, res.diagnostics
    assert "_c2t_load_at_" not in res.code and "_c2t_load_3d(" in res.code


def test_method_transpose_and_permute_fold_like_the_ct_calls():
    """`x = x.reshape(...)` then `x = x.permute((1, 0))`: the method spellings are read as the ct
    calls (one load of the transposed tile), as `x = ct.permute(x, (1, 0))` is."""
    for third in ("x = x.permute((1, 0))", "x = ct.permute(x, (1, 0))", "x = x.transpose()"):
        src = _transposed(third).replace("x = ct.reshape(x, (T, D))", "x = x.reshape((T, D))")
        body = translate(src).code.split("def tr(")[1].split("def launch_tr")[0]
        assert "loads the transposed tile" in body, third


def test_method_reshape_with_the_shape_keyword(tmp_path):
    src = BATCHED.replace("x = ct.reshape(x, (T, D))", "x = x.reshape(shape=(T, D))")
    assert "x = _c2t_load_at_2d(X + b * X_stride_0" in translate(src).code
    mod = build(src, tmp_path)
    x = torch.randn(3, 20, 16)
    torch.testing.assert_close(mod.run(x), _ref_rowmax(x, 16))
