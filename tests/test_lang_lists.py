"""Lists of arrays as kernel parameters (cuTile's List[Array]: `As[g]` with a dynamic g, `len(As)`),
each run under the interpreter vs torch, plus a compile-only sm_90 check."""
import pytest
import torch

from kernel_util import RT, build, codes, compile_sm90, translate

GROUPED_GEMM = """
@ct.kernel
def grouped_matmul(As, Bs, Cs, TM: ConstInt, TN: ConstInt, TK: ConstInt, NUM_PROGRAMS: ConstInt):
    # persistent scheduler over the tiles of all problems (as cuTile's test/kernels/group_gemm.py)
    tile_idx = ct.bid(0)
    last_problem_end = 0
    group_size = len(As)
    for g in range(group_size):
        Ai = As[g]
        Bi = Bs[g]
        Ci = Cs[g]
        num_m_tiles = ct.num_tiles(Ai, 0, (TM, TK))
        num_n_tiles = ct.num_tiles(Bi, 1, (TK, TN))
        num_k_tiles = ct.num_tiles(Ai, 1, (TM, TK))
        num_tiles = num_m_tiles * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            tile_in_gemm = tile_idx - last_problem_end
            tm = tile_in_gemm // num_n_tiles
            tn = tile_in_gemm % num_n_tiles
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for kk in range(num_k_tiles):
                a = ct.load(Ai, index=(tm, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(Bi, index=(kk, tn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(Ci, index=(tm, tn), tile=ct.astype(acc, Ci.dtype))
            tile_idx += NUM_PROGRAMS
        last_problem_end = last_problem_end + num_tiles

def run(As, Bs, programs=3):
    Cs = [torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device) for a, b in zip(As, Bs)]
    ct.launch(torch.cuda.current_stream(), (programs,), grouped_matmul, (As, Bs, Cs, 16, 16, 16, programs))
    return Cs
"""

# (M, K, N) per group: ragged, none a multiple of the 16x16x16 tiles
RAGGED = [(20, 24, 40), (33, 17, 9), (8, 50, 30)]


def _problems(dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    As = [torch.randn(m, k, generator=g).to(dtype) for m, k, _ in RAGGED]
    Bs = [torch.randn(k, n, generator=g).to(dtype) for _, k, n in RAGGED]
    return As, Bs


@pytest.mark.parametrize("programs", [1, 3, 7])
def test_grouped_gemm_over_lists_of_ragged_arrays(tmp_path, programs):
    mod = build(GROUPED_GEMM, tmp_path)
    As, Bs = _problems()
    Cs = mod.run(As, Bs, programs)
    assert len(Cs) == 3
    for a, b, c in zip(As, Bs, Cs):
        torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


def test_grouped_gemm_kernel_signature_and_table_reads():
    res = translate(GROUPED_GEMM)
    assert res.ok
    code = res.code
    assert "As_tbl, As_len, As_DTYPE: tl.constexpr, As_ALIGNED: tl.constexpr" in code
    # one table row per array: pointer, 2 extents, 2 strides; what the launcher found aligned is
    # told to Triton (16-byte base and row stride, unit last stride)
    assert ("Ai = (tl.multiple_of(tl.load(As_tbl + g * 5).to(tl.pointer_type(As_DTYPE)), 16) if As_ALIGNED "
            "else tl.load(As_tbl + g * 5).to(tl.pointer_type(As_DTYPE)))") in code
    assert "Ai_stride_0 = (tl.multiple_of(tl.load(As_tbl + g * 5 + 3).to(tl.int32), As_ALIGNED) if As_ALIGNED" in code
    assert "Ai_stride_1 = (1 if As_ALIGNED else tl.load(As_tbl + g * 5 + 4).to(tl.int32))" in code
    assert "group_size = As_len" in code
    assert '*_c2t_array_list(As, 2, "As")' in code
    kernel = [k for k in res.kernels if k.name == "grouped_matmul"][0]
    assert kernel.params[:3] == ["As: list[2]", "Bs: list[2]", "Cs: list[2]"]


def test_aligned_lists_are_flagged_and_still_compute_right(tmp_path, monkeypatch):
    mod = build(GROUPED_GEMM, tmp_path)
    flag = lambda ts: mod._c2t_array_list(ts, 2, "As")[3]        # noqa: E731
    g = torch.Generator().manual_seed(0)
    x16 = torch.randn(40, 64, generator=g).half()
    assert flag([x16, torch.randn(8, 24).half()]) == 8                    # 16 bytes = 8 fp16
    assert flag([torch.randn(8, 12)]) == 4                                 # 48-byte rows, fp32
    assert flag([x16, x16[:, 1:]]) == 0                                    # a base 2 bytes past 16
    assert flag([x16, x16.t()]) == 0                                       # last stride 64
    assert flag([torch.randn(8, 9)]) == 0                                  # 36-byte rows
    assert flag([torch.randn(8, 12)[:, :6]]) == 0                          # 24-byte last extent
    assert mod._c2t_array_list([torch.zeros(4, 4, dtype=torch.bool)], 2, "M")[3] == 0
    # the aligned path (constant last stride) computes what the general one does
    seen = []
    real = mod._c2t_run
    monkeypatch.setattr(mod, "_c2t_run", lambda k, grid, args, **o: (seen.append(args), real(k, grid, args, **o))[1])
    As = [torch.randn(m, k, generator=g) for m, k in ((20, 24), (9, 40))]       # ragged, not tile multiples
    Bs = [torch.randn(k, n, generator=g) for k, n in ((24, 12), (40, 36))]
    for a, b, c in zip(As, Bs, mod.run(As, Bs, 3)):
        torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    assert seen[-1][3] == seen[-1][7] == seen[-1][11] == 4                 # As, Bs, Cs all aligned


def test_equal_tables_are_built_once(tmp_path):
    """A launch with the same arrays reuses the device table (no host-to-device copy, which waits
    for the device); a different array, view or extent gets its own table with its own rows."""
    mod = build(GROUPED_GEMM, tmp_path)
    RT._C2T_TABLES.clear()
    a, b = torch.randn(8, 16), torch.randn(4, 8)
    t1 = mod._c2t_array_list([a, b], 2, "As")[0]
    assert mod._c2t_array_list([a, b], 2, "As")[0] is t1
    assert t1.tolist() == [[a.data_ptr(), 8, 16, 16, 1], [b.data_ptr(), 4, 8, 8, 1]]
    t2 = mod._c2t_array_list([a, b[:2]], 2, "As")[0]
    assert t2 is not t1 and t2.tolist()[1] == [b.data_ptr(), 2, 8, 8, 1]
    t3 = mod._c2t_array_list([a.t(), b], 2, "As")[0]
    assert t3.tolist()[0] == [a.data_ptr(), 16, 8, 1, 16]
    assert len(RT._C2T_TABLES) == 3


def test_aligned_list_loads_vectorize_for_sm90(tmp_path):
    """With 64x64x32 tiles, aligned fp16 lists load every tile with 16-byte cp.async copies (TileGym
    group_gemm ran at 11 TFLOP/s on the H200 with the scalar loads an unaligned list gets)."""
    src = GROUPED_GEMM.replace("16, 16, 16, programs", "64, 64, 32, programs")
    h = "dtype=torch.float16"
    out = compile_sm90(src, "run", f"[torch.randn(64, 32, {h}), torch.randn(32, 64, {h})], "
                                   f"[torch.randn(32, 48, {h}), torch.randn(64, 16, {h})]", tmp_path)
    assert int(out.split("cp_async16=")[1].split()[0]) >= 8 and "vec_ld=0" in out, out
    # one array with a 33-element row pitch: the list is not aligned, and loads stay narrow
    out = compile_sm90(src, "run", f"[torch.randn(64, 33, {h})[:, :32], torch.randn(32, 64, {h})], "
                                   f"[torch.randn(32, 48, {h}), torch.randn(64, 16, {h})]", tmp_path)
    assert int(out.split("cp_async16=")[1].split()[0]) < 8, out


def test_grouped_gemm_compiles_for_sm90(tmp_path):
    out = compile_sm90(GROUPED_GEMM, "run",
                       "[torch.randn(20, 24, dtype=torch.float16), torch.randn(33, 17, dtype=torch.float16)], "
                       "[torch.randn(24, 40, dtype=torch.float16), torch.randn(17, 9, dtype=torch.float16)]",
                       tmp_path)
    assert "OK grouped_matmul" in out


SCALE = """
@ct.kernel
def grouped_scale(Xs, Ys, TM: ConstInt, TN: ConstInt):
    g = ct.bid(0)
    i = ct.bid(1)
    if i < ct.cdiv(Xs[g].shape[0], TM):
        for j in range(ct.cdiv(Xs[g].shape[1], TN)):
            t = ct.load(Xs[g], index=(i, j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
            ct.store(Ys[g], index=(i, j), tile=t * 2 + len(Xs))

def run(xs, rows=4):
    ys = [torch.zeros_like(x) for x in xs]
    ct.launch(torch.cuda.current_stream(), (len(xs), rows), grouped_scale, (xs, ys, 8, 8))
    return ys
"""


def test_list_elements_inline_with_dynamic_index_and_strided_views(tmp_path):
    mod = build(SCALE, tmp_path)
    base = torch.randn(40, 30)
    xs = [torch.randn(10, 20), base[1:18:2, 3:12], torch.randn(30, 5).t()]   # strided, transposed
    ys = mod.run(xs)
    for x, y in zip(xs, ys):
        torch.testing.assert_close(y, x * 2 + 3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.int32])
def test_list_element_dtype_comes_from_the_arrays(tmp_path, dtype):
    mod = build(SCALE, tmp_path)
    xs = [torch.arange(12, dtype=dtype).reshape(3, 4), torch.arange(30, dtype=dtype).reshape(5, 6)]
    ys = mod.run(xs)
    for x, y in zip(xs, ys):
        assert y.dtype == dtype
        torch.testing.assert_close(y, x * 2 + 2)


def test_launcher_rejects_what_cutile_rejects(tmp_path):
    mod = build(SCALE, tmp_path)
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    with pytest.raises(TypeError, match="must be a list of arrays"):
        mod.run((a, b))
    with pytest.raises(ValueError, match="non-empty"):
        mod.run([])
    with pytest.raises(TypeError, match="same dtype"):
        mod.run([a, b.double()])
    with pytest.raises(ValueError, match="2-D arrays"):
        mod.run([a, torch.randn(4)])


def test_list_element_alias_keeps_the_row_it_was_taken_from(tmp_path):
    # `A = Xs[g]` reads the table once: changing g afterwards must not move A
    mod = build("""
    @ct.kernel
    def k(Xs, y, T: ConstInt):
        g = 0
        A = Xs[g]
        g = g + 1
        t = ct.load(A, index=(0,), shape=(T,)) + ct.load(Xs[g], index=(0,), shape=(T,)) * 100
        ct.store(y, index=(0,), tile=t)

    def run(xs):
        y = torch.empty_like(xs[0])
        ct.launch(torch.cuda.current_stream(), (1,), k, (xs, y, 8))
        return y
    """, tmp_path)
    xs = [torch.randn(8), torch.randn(8)]
    torch.testing.assert_close(mod.run(xs), xs[0] + xs[1] * 100)


def test_lists_and_list_elements_passed_to_helpers(tmp_path):
    mod = build("""
    def load_row(arr, i, T):
        return ct.load(arr, index=(i, 0), shape=(1, T), padding_mode=ct.PaddingMode.ZERO)

    def total(xs, T):
        acc = ct.zeros((1, T), dtype=ct.float32)
        for g in range(len(xs)):
            acc = acc + ct.load(xs[g], index=(0, 0), shape=(1, T), padding_mode=ct.PaddingMode.ZERO)
        return acc

    @ct.kernel
    def k(Xs, y, T: ConstInt):
        ct.store(y, index=(0, 0), tile=total(Xs, T) + load_row(Xs[ct.bid(0) + 1], 1, T) * 10)

    def run(xs):
        y = torch.empty((1, 8))
        ct.launch(torch.cuda.current_stream(), (1,), k, (xs, y, 8))
        return y
    """, tmp_path)
    xs = [torch.randn(2, 8), torch.randn(3, 5), torch.randn(1, 8)]
    pad = torch.nn.functional.pad
    ref = xs[0][0] + pad(xs[1][0], (0, 3)) + xs[2][0] + pad(xs[1][1], (0, 3)) * 10
    torch.testing.assert_close(mod.run(xs)[0], ref)


def test_store_then_load_of_list_elements_in_a_loop_gets_a_barrier(tmp_path):
    # cuTile orders a block's read after its own earlier writes to the same array
    mod = build("""
    @ct.kernel
    def k(Xs, T: ConstInt):
        for g in range(len(Xs)):
            t = ct.load(Xs[g], index=(0,), shape=(T,))
            ct.store(Xs[g], index=(0,), tile=t + 1)

    def run(xs):
        ct.launch(torch.cuda.current_stream(), (1,), k, (xs, 16))
    """, tmp_path)
    code = open(mod.__file__).read()
    assert "tl.debug_barrier()" in code.split("def k(")[1]
    xs = [torch.zeros(16), torch.ones(10)]
    mod.run(xs)
    torch.testing.assert_close(xs[0], torch.ones(16))
    torch.testing.assert_close(xs[1], torch.full((10,), 2.0))


def test_list_index_with_side_effects_is_refused():
    assert "C2T101" in codes("""
    @ct.kernel
    def k(Xs, c, T: ConstInt):
        t = ct.load(Xs[ct.atomic_add(c, 0, 1)], index=(0,), shape=(T,))
        ct.store(Xs[0], index=(0,), tile=t)
    """)


def test_tuple_of_list_elements_cannot_be_assigned():
    assert "C2T101" in codes("""
    @ct.kernel
    def k(Xs, T: ConstInt):
        g = ct.bid(0)
        a, b = Xs[g], Xs[g + 1]
        ct.store(Xs[g], index=(0,), tile=ct.load(Xs[0], index=(0,), shape=(T,)))
    """)


def test_list_sliced_is_refused():
    assert "C2T101" in codes("""
    @ct.kernel
    def k(Xs, T: ConstInt):
        ys = Xs[0:2]
        ct.store(Xs[0], index=(0,), tile=ct.zeros((T,), dtype=ct.float32))
    """)
