"""cuTile semantics that Triton does differently, each run under the interpreter vs torch."""
import math
import re

import pytest
import torch

import translator
from kernel_util import build, compile_sm90, compile_sm90_asm, translate


def test_floor_division_and_modulo_of_negative_runtime_values(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, d, q, r, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(q, index=(0,), tile=t // d)
        ct.store(r, index=(0,), tile=t % d)

    def run(x, d):
        q, r = torch.empty_like(x), torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, d, q, r, 16))
        return q, r
    """, tmp_path)
    x = torch.tensor([7, -7, 6, -6, 0, -1, 13, -13, 5, -5, 1, -2, 3, -3, 9, -9], dtype=torch.int32)
    for d in (2, -2, 3, -5):
        q, r = mod.run(x, d)
        assert torch.equal(q, torch.div(x, d, rounding_mode="floor")), d
        assert torch.equal(r, torch.remainder(x, d)), d


def test_constexpr_floor_division_is_left_to_python(tmp_path):
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        a = T // 2
        ct.store(x, index=(0,), tile=ct.full((T // 2,), a % 3, dtype=ct.int32))
    """)
    assert res.ok
    assert "a: tl.constexpr = T // 2" in res.code and "_c2t_floordiv" not in res.code.split("def k(")[1]


GATHER_DIV = """
@ct.kernel
def k(x, y, N: ConstInt, OFF: ConstInt, T: ConstInt):
    i = ct.bid(0) * T + ct.arange(T, dtype=ct.int32) + OFF
    row, col = i // N, i % N
    ct.scatter(y, (i - OFF,), ct.gather(x, (row * 64 + col,)) + 0 * row)

def run(x, n, off, t=64):
    y = torch.zeros(x.numel() // 2, dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (y.numel() // t,), k, (x, y, n, off, t))
    return y
"""


@pytest.mark.parametrize("n,off", [(48, 0), (-48, 0), (48, -100)])
def test_division_of_a_nonnegative_index_by_a_constant(tmp_path, n, off):
    """`//` and `%` of an index built from program ids, aranges and Constant parameters are
    Triton's plain operators when the Constants are >= 0 and the divisor > 0 (checked where Triton
    compiles: _c2t_floordiv_nonneg), Python's floor semantics otherwise (a negative divisor or
    offset here: the results would differ)."""
    res = translate(GATHER_DIV)
    body = res.code.split("def k(")[1]
    assert "_c2t_floordiv_nonneg(i, N, (OFF >= 0) & (T >= 0) & (N > 0))" in body, body
    assert "_c2t_mod_nonneg(i, N, (OFF >= 0) & (T >= 0) & (N > 0))" in body
    mod = build(GATHER_DIV, tmp_path)
    x = torch.arange(64 * 64 * 2, dtype=torch.float32)
    i = torch.arange(x.numel() // 2) + off
    row, col = torch.div(i, n, rounding_mode="floor"), torch.remainder(i, n)
    flat = row * 64 + col
    want = torch.where((flat >= 0) & (flat < x.numel()), x[flat.clamp(0, x.numel() - 1)], 0.0)
    assert torch.equal(mod.run(x, n, off), want)
    if n < 0 or off < 0:        # the case can fail: truncation gives other values here
        trunc = torch.div(i, n, rounding_mode="trunc") * 64 + torch.fmod(i, n)
        assert not torch.equal(trunc, flat)


def test_signs_not_proved_through_branches_loops_and_subtraction():
    res = translate("""
    @ct.kernel
    def k(x, c, T: ConstInt):
        i = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
        j = i
        if c > 0:
            j = i - 1000
        n = ct.bid(0)
        while n < 10:
            ct.store(x, index=(0,), tile=ct.full((T,), n // 3, dtype=ct.int32))
            n = n - 20
        ct.store(x, index=(0,), tile=(j // 3) + (i - 1) // 3 + (n // 3) + i // 3 + (i * 2 + 4) % 7)
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = res.code.split("def k(")[1]
    for unknown in ("j", "i - 1", "n"):
        assert f"_c2t_floordiv({unknown}, 3)" in body, (unknown, body)
    assert body.count("_c2t_floordiv(n, 3)") == 2            # in the loop and after it
    assert "_c2t_floordiv_nonneg(i, 3, (T >= 0))" in body and "_c2t_mod_nonneg(i * 2 + 4, 7, (T >= 0))" in body


@pytest.mark.parametrize("mode,value", [("NEG_INF", -math.inf), ("POS_INF", math.inf), ("NAN", math.nan),
                                        ("ZERO", 0.0), ("NEG_ZERO", -0.0)])
def test_padding_modes_on_partial_tiles(tmp_path, mode, value):
    mod = build(f"""
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T), padding_mode=ct.PaddingMode.{mode})
        ct.store(y, index=(0, 0), tile=t)

    def run(x):
        y = torch.empty((8, 8), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 8))
        return y
    """, tmp_path)
    x = torch.randn(5, 3)
    y = mod.run(x)
    assert torch.equal(y[:5, :3], x)
    pad = torch.cat([y[5:, :].flatten(), y[:5, 3:].flatten()])
    if math.isnan(value):
        assert torch.isnan(pad).all()
    else:
        assert (pad == value).all()
    if value == 0:
        assert "_C2T_PAD_NEG_ZERO" in open(mod.__file__).read() or mode != "NEG_ZERO"


NEG_ZERO_PAD = """
@ct.kernel
def k(x, y, T: ConstInt):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.NEG_ZERO))

def run(x):
    y = torch.empty((8,), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 8))
    return y
"""


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.bfloat16])
def test_neg_zero_padding_keeps_the_sign(tmp_path, dt):
    """PaddingMode.NEG_ZERO pads with -0.0. Triton makes every float constant equal to 0 a +0.0
    (semantic.scalar_constant), so the pad value is built from its bits (this failed before, under
    the interpreter and, as the compiled check below shows, in the compiled kernel too)."""
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build(NEG_ZERO_PAD, tmp_path)
    y = mod.run(torch.ones(3, dtype=dt))
    assert torch.equal(y[:3], torch.ones(3, dtype=dt)) and torch.signbit(y[3:]).all()


NEG_ZERO_CONSTS = """
@ct.kernel
def k(x, y, rows, T: ConstInt):
    ct.store(y, index=(0,), tile=ct.full((T,), -0.0, dtype=ct.float32))           # C2T212: +0.0
    ct.store(y, index=(1,), tile=ct.negative(ct.zeros((T,), dtype=ct.float32)))   # the hint's way
    r = ct.load(rows, index=(0,), shape=(T,))
    t = ct.load_advanced_indexing(x, (r, ct.Slice(0, 1)), padding_mode=ct.PaddingMode.NEG_ZERO)  # x: (3, 1)
    ct.store(y, index=(2,), tile=ct.reshape(t, (T,)))

def run(x, rows):
    y = torch.empty((12,), device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, rows, 4))
    return y
"""


def test_negative_zero_constants_are_flagged_and_the_hint_works(tmp_path):
    """A -0.0 constant in kernel code is +0.0 in Triton (warning C2T212, located); the hint's
    ct.negative(ct.zeros(...)) and load_advanced_indexing's NEG_ZERO padding keep the sign, under
    the interpreter and in the compiled kernel (no +0.0 splat of the padding)."""
    from kernel_util import compile_sm90_asm
    res = translate(NEG_ZERO_CONSTS)
    assert [(d.code, d.line) for d in res.diagnostics if d.code == "C2T212"] == [("C2T212", 8)]   # (after the header)
    mod = build(NEG_ZERO_CONSTS, tmp_path)
    y = mod.run(torch.ones(3, 1), torch.tensor([0, 5, 2, -1], dtype=torch.int32))
    assert torch.equal(torch.signbit(y[:4]), torch.tensor([False] * 4))          # as the warning says
    assert torch.signbit(y[4:8]).all()
    assert y[8:].tolist() == [1.0, 0.0, 1.0, 0.0] and torch.equal(
        torch.signbit(y[8:]), torch.tensor([False, True, False, True]))
    ptx = compile_sm90_asm(NEG_ZERO_CONSTS, "run", "(torch.ones(3, 1), torch.zeros(4, dtype=torch.int32))",
                           tmp_path)["k"]["ptx"]
    assert re.search(r"mov\.b32\s+%r\d+, -2147483648;", ptx) or "0f80000000" in ptx, ptx[-3000:]


def test_neg_zero_padding_reaches_the_compiled_kernel(tmp_path):
    from kernel_util import compile_sm90_asm
    asm = compile_sm90_asm(NEG_ZERO_PAD, "run", "(torch.ones(3),)", tmp_path)
    ptx = asm["k"]["ptx"]
    # the pad value's bits: -0.0 is 0x80000000
    assert re.search(r"mov\.b32\s+%r\d+, -2147483648;", ptx) or "0f80000000" in ptx, ptx[-3000:]


def test_transposed_load_with_order(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, TM: ConstInt, TN: ConstInt):
        i = ct.bid(0)
        j = ct.bid(1)
        t = ct.load(x, index=(j, i), shape=(TN, TM), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(j, i), tile=t)

    def run(x):
        m, n = x.shape
        y = torch.empty((n, m), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 4), ct.cdiv(n, 8)), k, (x, y, 4, 8))
        return y
    """, tmp_path)
    x = torch.randn(10, 13)
    assert torch.equal(mod.run(x), x.t())


def test_gather_negative_indices_read_padding_and_scatter_drops_them(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        idx = ct.arange(T, dtype=ct.int32) - 4
        v = ct.gather(x, idx, padding_value=-1.0)
        ct.scatter(y, idx, v * 2.0)
        ct.scatter(y, idx + 100, v)

    def run(x):
        y = torch.zeros_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 16))
        return y
    """, tmp_path)
    x = torch.arange(10, dtype=torch.float32)
    y = mod.run(x)
    assert torch.equal(y, torch.cat([x[:10] * 2]).where(torch.arange(10) < 12, x))


def test_argmax_ignores_nan_and_ties_go_left(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, out, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.scatter(out, 0, ct.argmax(t, 0))
        ct.scatter(out, 1, ct.argmin(t, 0))

    def run(x):
        out = torch.zeros(2, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, 8))
        return out
    """, tmp_path)
    x = torch.tensor([1.0, float("nan"), 5.0, 5.0, -2.0, float("nan"), -2.0, 0.0])
    assert mod.run(x).tolist() == [2, 4]


_ARG2D = """
@ct.kernel
def k(x, amax0, amin0, amax1, amin1, amax3, T: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(T, T))
    ct.store(amax0, index=(0,), tile=ct.argmax(t, axis=0))
    ct.store(amin0, index=(0,), tile=ct.argmin(t, axis=0))
    ct.store(amax1, index=(0, 0), tile=ct.argmax(t, axis=1, keepdims=True))
    ct.store(amin1, index=(0,), tile=ct.argmin(t, axis=-1))
    t3 = ct.reshape(t, (2, T // 2, T))
    ct.store(amax3, index=(0, 0), tile=ct.argmax(t3, axis=1))

def run(x):
    T = x.shape[0]
    outs = [torch.zeros(T, dtype=torch.int32) for _ in range(4)] + [torch.zeros(2, T, dtype=torch.int32)]
    outs[2] = outs[2].reshape(T, 1)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, *outs, T))
    return outs
"""


@pytest.mark.parametrize("dt", [torch.float32, torch.bfloat16, torch.int32])
def test_argmax_argmin_2d_both_axes_ties_nan_and_rank3(tmp_path, dt):
    mod = build(_ARG2D, tmp_path)
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-3, 4, (8, 8), generator=g).to(dt)          # many ties
    if dt.is_floating_point:
        x[1, 2] = float("nan")
        x[5, :] = float("nan")                                     # an all-NaN row: index 0
        x[:, 6] = float("nan")                                     # an all-NaN column: index 0
    a0, i0, a1, i1, a3 = mod.run(x)
    xf = x.float()
    clean_max = torch.where(xf.isnan(), -float("inf"), xf)
    clean_min = torch.where(xf.isnan(), float("inf"), xf)

    def first(t, dim, fn):                                          # smallest index of the extreme value
        best = fn(t, dim=dim, keepdim=True).values
        n = t.shape[dim]
        pos = torch.arange(n).reshape([-1 if d == dim else 1 for d in range(t.dim())])
        return torch.where(t == best, pos, n).min(dim=dim).values.to(torch.int32)
    assert torch.equal(a0, first(clean_max, 0, torch.max))
    assert torch.equal(i0, first(clean_min, 0, torch.min))
    assert torch.equal(a1.reshape(-1), first(clean_max, 1, torch.max))
    assert torch.equal(i1, first(clean_min, 1, torch.min))
    assert torch.equal(a3, first(clean_max.reshape(2, 4, 8), 1, torch.max))


def test_argmax_argmin_2d_compile_for_sm90(tmp_path):
    assert "OK k" in compile_sm90(_ARG2D, "run", "(torch.randn(8, 8),)", tmp_path)


def test_fp32_mma_is_full_precision_and_tf32_is_explicit():
    res = translate("""
    @ct.kernel
    def k(a, b, c, T: ConstInt):
        x = ct.load(a, index=(0, 0), shape=(T, T))
        y = ct.load(b, index=(0, 0), shape=(T, T))
        acc = ct.mma(x, y, ct.zeros((T, T), dtype=ct.float32))
        acc = ct.mma(ct.astype(x, ct.tfloat32), ct.astype(y, ct.tfloat32), acc)
        ct.store(c, index=(0, 0), tile=acc)
    """)
    assert res.ok
    body = res.code.split("def k(")[1]
    assert '_c2t_mma(x, y, tl.zeros([T, T], tl.float32), "ieee", CHAINED=False)' in body
    assert '"tf32", CHAINED=False)' in body


_TF32 = """
@ct.kernel
def k(a, b, c, T: ConstInt):
    x = ct.load(a, index=(0, 0), shape=(T, T))
    y = ct.load(b, index=(0, 0), shape=(T, T))
    dt = ct.tfloat32 if a.dtype == ct.float32 else a.dtype
    acc = ct.mma(ct.astype(x, dt), ct.astype(y, ct.tfloat32), ct.zeros((T, T), dtype=ct.float32))
    ct.store(c, index=(0, 0), tile=acc)

def run(a, b):
    c = torch.empty((16, 16), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, 16))
    return c
"""


def _tf32_rne(t):
    """float32 -> tf32 (10 fraction bits), round to nearest even, in torch's integer ops."""
    b = t.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    b = (b + 0xFFF + ((b >> 13) & 1)) & 0xFFFFE000
    return b.to(torch.uint32).view(torch.float32) if hasattr(torch, "uint32") else None


def test_astype_tfloat32_rounds_to_nearest_even_as_cutile(tmp_path):
    """cuTile's astype(x, tfloat32) rounds to nearest even; Triton's tf32 dot (Hopper's MMA) drops
    the low 13 bits. The translation rounds first: times the identity, the product is the rounded
    a, also where truncation differs (1 + 2**-11 + 2**-20 rounds up; 1 + 2**-11 is a tie, to even;
    1 + 3 * 2**-11 is a tie, up to even), negatives, a plain and a conditional tfloat32 dtype."""
    mod = build(_TF32, tmp_path)
    vals = torch.tensor([1 + 2**-11 + 2**-20, 1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11 + 2**-20),
                         3.0, 1e-3, -7.25e30, 0.0], dtype=torch.float32)
    a = vals.repeat(32)[:256].reshape(16, 16).contiguous()
    c = mod.run(a, torch.eye(16))
    want = _tf32_rne(a)
    assert torch.equal(c, want), (c - a).abs().max()
    assert not torch.equal(want, a)                 # the values are ones where rounding shows


def test_tile_cast_to_tfloat32_in_one_branch_keeps_the_tf32_product():
    """`ct.astype(q, ct.tfloat32) if q.dtype == ct.float32 else q` (TileGym's neighborhood
    attention): the product is tf32 where the condition holds, not a full-precision fp32 one."""
    res = translate("""
    @ct.kernel
    def k(a, c, T: ConstInt):
        x = ct.load(a, index=(0, 0), shape=(T, T))
        q = ct.astype(x, ct.tfloat32) if x.dtype == ct.float32 else x
        ct.store(c, index=(0, 0), tile=ct.mma(q, q, ct.zeros((T, T), dtype=ct.float32)))
    """)
    assert res.ok
    body = res.code.split("def k(")[1]
    assert '"tf32" if (x.dtype == tl.float32) else "ieee"' in body
    assert '_c2t_to_tf32(x.to(tl.float32), True, "RN") if x.dtype == tl.float32 else x' in body


def test_astype_tfloat32_compiles_for_sm90(tmp_path):
    assert "OK k" in compile_sm90(_TF32, "run", "(torch.randn(16, 16), torch.randn(16, 16))", tmp_path)


def test_reductions_keepdims_tuple_axes_and_dtype(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, s, m, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T))
        ct.store(s, index=(0, 0), tile=ct.sum(t, axis=1, keepdims=True))
        ct.scatter(m, 0, ct.max(t, axis=(0, 1)))

    def run(x):
        s = torch.empty((8, 1), dtype=x.dtype)
        m = torch.empty((1,), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, s, m, 8))
        return s, m
    """, tmp_path)
    x = torch.randn(8, 8).to(torch.float16)
    s, m = mod.run(x)
    assert s.dtype == torch.float16
    torch.testing.assert_close(s, x.float().sum(1, keepdim=True).half(), rtol=1e-3, atol=1e-2)
    assert m.item() == x.max().item()


def test_true_division_of_ints_gives_float32_and_keeps_fp16(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, h, out, outh, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=t / 3)
        u = ct.load(h, index=(0,), shape=(T,))
        ct.store(outh, index=(0,), tile=u / u)

    def run(x, h):
        out = torch.empty(x.shape, dtype=torch.float32)
        outh = torch.empty(h.shape, dtype=torch.float16)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, h, out, outh, 8))
        return out, outh
    """, tmp_path)
    x = torch.arange(-4, 4, dtype=torch.int32)
    h = torch.rand(8).half() + 0.5
    out, outh = mod.run(x, h)
    torch.testing.assert_close(out, x.float() / 3)
    assert (outh == 1).all()


def test_comments_and_names_survive():
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):  # the kernel
        # load one tile
        tile_in = ct.load(x, index=(ct.bid(0),), shape=(T,))  # tile-space index
        ct.store(x, index=(ct.bid(0),), tile=tile_in)
    """)
    assert res.ok
    body = res.code.split('@triton.jit(do_not_specialize=["c2t_programs"])     # (the grid\'s size: one compile '
                          'for all)\ndef k(')[1]
    assert "            # load one tile\n            tile_in = _c2t_load_1d(" in body   # (in the coarsening loop)
    assert "# tile-space index" in body


def test_cdiv_with_negative_runtime_operands(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, d, out, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=ct.cdiv(t, d))

    def run(x, d):
        out = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, d, out, 8))
        return out
    """, tmp_path)
    x = torch.tensor([7, -7, 6, -6, 0, -1, 1, 8], dtype=torch.int32)
    for d in (2, -3):
        assert torch.equal(mod.run(x, d), -torch.div(-x, d, rounding_mode="floor"))


def test_compile_check_utility_catches_compiler_only_errors(tmp_path):
    from kernel_util import compile_sm90
    src = """
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0), 0), shape=(T, T), padding_mode=ct.PaddingMode.NEG_INF)
        ct.store(y, index=(ct.bid(0), 0), tile=ct.max(t, axis=1, keepdims=True) + t)

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (2,), k, (x, y, 16))
        return y
    """
    out = compile_sm90(src, "run", "(torch.randn(20, 16),)", tmp_path)
    assert out.startswith("OK k ptx=")


def test_store_then_load_of_the_same_array_gets_a_barrier(tmp_path):
    src = """
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(y, index=(0,), tile=t)
        # read back reversed: other threads of the block wrote these elements
        r = ct.gather(y, T - 1 - ct.arange(T, dtype=ct.int32))
        ct.store(x, index=(0,), tile=r)

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 16))
        return x
    """
    res = translate(src)
    body = res.code.split("def k(")[1]
    assert body.count("tl.debug_barrier()") == 1
    assert body.index("tl.debug_barrier()") < body.index("r = _c2t_gather_1d(y")
    mod = build(src, tmp_path)
    x = torch.arange(16, dtype=torch.float32)
    assert torch.equal(mod.run(x.clone()), x.flip(0))


def test_a_write_after_reads_of_the_same_array_gets_a_barrier(tmp_path):
    """cuTile orders a block's store after its earlier reads of the array (token order): a
    thread must not overwrite what another thread has yet to read. Reversing in place needs a
    barrier; so does a store of another tile shape. Tiles of one shape (rope's in-place halves)
    are the same elements or disjoint, each stored by a thread that loaded it: no barrier. An
    atomic's own read needs none."""
    src = """
    @ct.kernel
    def k(x, y, z, c, T: ConstInt):
        r = ct.gather(x, T - 1 - ct.arange(T, dtype=ct.int32))
        ct.scatter(x, ct.arange(T, dtype=ct.int32), r)            # in-place reverse: barrier
        a = ct.load(y, index=(0, 0), shape=(1, T))
        b = ct.load(y, index=(0, 1), shape=(1, T))
        ct.store(y, index=(0, 0), tile=a * 2 + b)                # same tile shape: none
        ct.store(y, index=(0, 1), tile=b - a)
        w = ct.load(z, index=(0,), shape=(2 * T,))
        ct.store(z, index=(0,), tile=w + 1)                      # same tile shape: none
        ct.atomic_add(c, 0, 1)                                   # an atomic alone: none
        ct.atomic_add(c, 1, 2)

    def run(x, y, z, c):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, c, 8))
    """
    body = translate(src).code.split("def k(")[1].split("\ndef ")[0]
    lines = [ln.strip() for ln in body.splitlines()]
    war = [i for i, ln in enumerate(lines) if ln.startswith("tl.debug_barrier()  # cuTile orders this write")]
    assert len(war) == 1 and lines[war[0] + 1].startswith("_c2t_scatter_1d(x")
    assert "tl.debug_barrier()" not in " ".join(ln for ln in lines if "atomic" in ln)
    mod = build(src, tmp_path)
    x, y = torch.arange(8.0), torch.randn(2, 16)
    z, c = torch.randn(16), torch.zeros(2, dtype=torch.int32)
    x0, y0, z0 = x.clone(), y.clone(), z.clone()
    mod.run(x, y, z, c)
    assert torch.equal(x, x0.flip(0)) and torch.equal(z, z0 + 1) and c.tolist() == [1, 2]
    a, b = y0[0, :8], y0[0, 8:]
    torch.testing.assert_close(y[0], torch.cat((a * 2 + b, b - a)))


def test_a_store_of_another_tile_shape_after_a_load_gets_a_barrier():
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T))
        ct.store(x, index=(0, 0), tile=ct.transpose(t))            # permuted: barrier
        u = ct.load(x, index=(1, 0), shape=(T, 2 * T))
        ct.store(x, index=(0, 0), tile=ct.reshape(u, (2 * T, T)))   # another shape: barrier
    """)
    body = res.code.split("def k(")[1]
    assert body.count("cuTile orders this write after the block's earlier reads") == 2


@pytest.mark.parametrize("make, moved", [
    ("u = ct.transpose(t)", True),                       # through a name (the text check missed it)
    ("u = t.transpose()", True),                         # a tile method
    ("u = ct.permute(t, (1, 0))", True),
    ("v = ct.transpose(t)\n        u = v + 1", True),        # a name holding one, used elementwise
    ("u = ct.transpose(t) if T > 2 else t", True),
    ("u = ct.cat((ct.extract(t, (0, 0), (T, T // 2)), ct.extract(t, (0, 1), (T, T // 2))), 1)", True),
    ("u = ct.load(x, index=(0, 0), shape=(T, T), order=(1, 0))", True),     # loaded transposed
    ("u = (t * 2).astype(ct.float32)", False),           # elementwise: each thread stores what it loaded
    ("u = t\n        u = u * 2", False),
])
def test_a_store_of_a_named_moved_tile_gets_a_barrier(make, moved):
    """Whether a stored tile's elements moved between threads (transposed, permuted, joined,
    loaded with an order, multiplied) is a fact about the values its name may hold, found on the
    IR (lower/moved_tiles.py), not a match on the store's argument text: `u = ct.transpose(t);
    ct.store(x, ..., u)` in place once got no barrier, so a thread could overwrite an element
    another thread had yet to load."""
    res = translate(f"""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0, 0), shape=(T, T))
        {make}
        ct.store(x, index=(0, 0), tile=u)
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = res.code.split("def k(")[1].split("\ndef ")[0]
    assert ("cuTile orders this write after the block's earlier reads" in body) == moved


def test_a_loop_storing_a_named_transposed_tile_in_place_gets_a_barrier():
    """The loop-carried form: iteration i stores a transposed tile where iteration i + 1 loads
    (the same shape): the next iteration's load must wait for the store's threads."""
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        for i in range(4):
            t = ct.load(x, index=(i, i), shape=(T, T))
            u = ct.transpose(t)
            ct.store(x, index=(i, i), tile=u)
    """)
    body = res.code.split("def k(")[1].split("\ndef ")[0]
    assert "cuTile orders this write after the block's earlier reads" in body


# A loop whose store may overwrite what a later statement of the body read in the previous
# iteration: `y` shifted left by one in place, chunk by chunk (each chunk reads one element of the
# next chunk before that chunk is stored in the next iteration). Nothing reads y before the loop,
# so no barrier comes before the store for an earlier read.
SHIFT_LOOP = """
@ct.kernel
def k(x, y, flag: int, T: ConstInt, MODE: ConstInt):
    n = ct.num_tiles(y, axis=0, shape=(T,))
    head = ct.gather(x, ct.arange(T, dtype=ct.int32) + 1)     # (y's first chunk, read from a copy)
    for i in range(n):
        ct.store(y, index=(i,), tile=head)
        NEXT_READ
"""
NEXT = "head = ct.gather(y, (i + 1) * T + ct.arange(T, dtype=ct.int32) + 1)"


@pytest.mark.parametrize("read, barrier", [
    (NEXT, True),                                                    # gather: other threads' elements
    ("head = ct.load(y, index=(i + 1,), shape=(T,))", False),        # same tile shape: the storing thread read it
    ("if flag > 0:\n            " + NEXT, True),                     # a run-time if may run in any iteration
    ("if MODE > 0:\n            " + NEXT, True),                     # (on a Constant: still both in one body)
])
def test_a_write_after_the_previous_iterations_reads_gets_a_barrier(read, barrier):
    """cuTile orders iteration i's store after iteration i-1's reads of the array: the body ends
    with a barrier where another thread may still have to read what the store overwrites."""
    src = SHIFT_LOOP.replace("NEXT_READ", read)
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = res.code.split("def k(")[1].split("\ndef ")[0]
    assert ("cuTile orders the next iteration's writes after this iteration's reads" in body) == barrier


def test_a_write_and_a_read_in_branches_of_one_constant_if_need_no_barrier():
    """One Triton specialization keeps one branch of an `if` on a Constant: its store and the
    other branch's gather never run in one kernel (TileGym's layer_norm_legacy: Mean is stored
    when COMPUTE is set, gathered otherwise)."""
    src = SHIFT_LOOP.replace("        ct.store(y, index=(i,), tile=head)\n        NEXT_READ", """        if MODE > 0:
            ct.store(y, index=(i,), tile=head)
        else:
            NEXT""".replace("NEXT", NEXT))
    body = translate(src).code.split("def k(")[1].split("\ndef ")[0]
    assert "cuTile orders the next iteration's writes" not in body
    runtime = translate(src.replace("if MODE > 0:", "if flag > 0:")).code.split("def k(")[1].split("\ndef ")[0]
    assert "cuTile orders the next iteration's writes" in runtime


def test_the_shifted_loop_computes_the_shift(tmp_path):
    mod = build(SHIFT_LOOP.replace("NEXT_READ", NEXT) + """
def run(y):
    ct.launch(torch.cuda.current_stream(), (1,), k, (y.clone(), y, 1, 4, 1))
""", tmp_path)
    y = torch.arange(16.0)
    y0 = y.clone()
    mod.run(y)
    torch.testing.assert_close(y[:15], y0[1:])


HELPER_ORDER = """
def reverse_into(dst, src, T: ConstInt):
    ct.scatter(dst, ct.arange(T, dtype=ct.int32), ct.gather(src, T - 1 - ct.arange(T, dtype=ct.int32)))

def read_back(src, T: ConstInt):
    return ct.gather(src, T - 1 - ct.arange(T, dtype=ct.int32))

@ct.kernel
def k(x, y, T: ConstInt):
    BODY

def run(x, y):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 16))
"""


@pytest.mark.parametrize("body, barrier", [
    # the kernel loads x, then a helper scatters into x: the helper's write after the block's reads
    ("t = ct.load(x, index=(0,), shape=(T,))\n    ct.store(y, index=(0,), tile=t)\n    reverse_into(x, y, T)", True),
    # the kernel stores y, then a helper gathers y: the helper's read after the block's write
    ("ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)))\n    "
     "ct.store(x, index=(0,), tile=read_back(y, T) * 2)", True),
    # a helper that only reads, after loads of the same array: nothing to order
    ("t = ct.load(x, index=(0,), shape=(T,))\n    ct.store(y, index=(0,), tile=t + read_back(x, T))", False),
])
def test_a_helpers_reads_and_writes_are_ordered_against_the_callers(body, barrier, tmp_path):
    """Array accesses inside a module helper are ordered against the calling block's as the same
    accesses in the kernel would be (they were not: a kernel that loaded x and then called a
    helper that stored x got no barrier)."""
    src = HELPER_ORDER.replace("BODY", body)
    code = translate(src).code
    kernel = code.split("def k(")[1].split("\ndef ")[0]
    assert ("cuTile orders the helper's accesses of the array" in kernel) == barrier
    mod = build(src, tmp_path)
    x, y = torch.arange(16.0), torch.zeros(16)
    x0 = x.clone()
    mod.run(x, y)
    if body.endswith("reverse_into(x, y, T)"):
        assert torch.equal(x, x0.flip(0))
    elif "read_back(y, T) * 2" in body:
        assert torch.equal(x, x0.flip(0) * 2)
    else:
        assert torch.equal(y, x0 + x0.flip(0))


@pytest.mark.parametrize("helper_line, barrier", [
    ("", False),                            # it only loads
    ("imported_update(a, i)", True),        # it calls a function of another module, which may store
])
def test_a_helper_that_stores_nothing_does_not_count_as_writing_its_arrays(helper_line, barrier):
    """A loop's arrays passed to a helper count as written only if the helper (or a function it
    calls) may store: cuTile's LayerNorm backward sample passes X, W and DY to a reading helper in
    its loops, and its loads stay barrier-free."""
    res = translate(f"""
    from other_module import imported_update

    def both(a, i, T: ConstInt):
        {helper_line}
        return ct.load(a, index=(i,), shape=(T,))

    @ct.kernel
    def k(x, y, T: ConstInt):
        acc = ct.zeros((T,), dtype=ct.float32)
        for i in range(4):
            acc += both(x, i, T) + ct.load(x, index=(i,), shape=(T,))
        ct.store(y, index=(0,), tile=acc)
    """)
    kernel = res.code.split("def k(")[1]
    if barrier:
        assert "tl.debug_barrier()  # cuTile orders this read after the block's earlier store" in kernel
    else:
        assert "debug_barrier" not in kernel


def test_a_function_of_another_module_counts_as_reading_and_writing_its_arrays():
    """Its body is not here (it is called as that module's translation): the block's accesses of an
    array passed to it are ordered against it as against a load and a store of the array (there
    was no barrier before the twenty-seventh session)."""
    res = translate("""
    from other_module import imported_update

    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        imported_update(x, T)
        u = ct.load(x, index=(0,), shape=(T,))
        ct.store(y, index=(0,), tile=t + u)
    """)
    kernel = res.code.split("def k(")[1].split("\ndef ")[0]
    lines = [ln.strip() for ln in kernel.splitlines()]
    call = next(i for i, ln in enumerate(lines) if ln.startswith("imported_update(x, "))
    assert lines[call - 1].startswith("tl.debug_barrier()  # cuTile orders the helper's accesses of the array")
    assert lines[call + 1].startswith("tl.debug_barrier()  # cuTile orders this read after the block's earlier store")
    other = translate("""
    from other_module import imported_update

    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        imported_update(y, T)
        ct.store(x, index=(0,), tile=t * 2)
    """).code.split("def k(")[1].split("\ndef ")[0]
    assert "debug_barrier" not in other        # the kernel does not touch the array it passes


def test_no_barrier_between_different_arrays():
    res = translate("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        for i in range(4):
            t = ct.load(x, index=(i,), shape=(T,))
            ct.store(y, index=(i,), tile=t)
    """)
    assert "debug_barrier" not in res.code.split("def k(")[1]


def test_operator_precedence_of_bitwise_chains(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, out, T: ConstInt):
        a = ct.load(x, index=(0,), shape=(T,))
        b = ct.load(y, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=((a ^ b) & 255) | (a >> 2) ^ b & 7 | a)

    def run(a, b):
        out = torch.empty_like(a)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, out, 16))
        return out
    """, tmp_path)
    g = torch.Generator().manual_seed(0)
    a = torch.randint(-1000, 1000, (16,), generator=g, dtype=torch.int32)
    b = torch.randint(-1000, 1000, (16,), generator=g, dtype=torch.int32)
    assert torch.equal(mod.run(a, b), ((a ^ b) & 255) | (a >> 2) ^ b & 7 | a)


def test_mma_with_small_k_uses_a_broadcast_product(tmp_path):
    """tl.dot needs K >= 16; cuTile's mma accepts any power of two."""
    mod = build("""
    @ct.kernel
    def k(a, b, c, M: ConstInt, N: ConstInt, K: ConstInt):
        x = ct.load(a, index=(0, 0), shape=(M, K))
        y = ct.load(b, index=(0, 0), shape=(K, N))
        ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.zeros((M, N), dtype=ct.float32)))

    def run(a, b):
        c = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, 16, 16, a.shape[1]))
        return c
    """, tmp_path)
    for kdim, dt in ((4, torch.float32), (8, torch.float16), (16, torch.float16)):
        a = torch.randn(16, kdim).to(dt)
        b = torch.randn(kdim, 16).to(dt)
        torch.testing.assert_close(mod.run(a, b), a.double().mm(b.double()).float(), rtol=1e-3, atol=1e-3)


def test_mma_with_small_k_compiles_for_sm90(tmp_path):
    from kernel_util import compile_sm90
    src = """
    @ct.kernel
    def k(a, b, c, M: ConstInt, N: ConstInt, K: ConstInt):
        x = ct.load(a, index=(0, 0), shape=(M, K))
        y = ct.load(b, index=(0, 0), shape=(K, N))
        ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.zeros((M, N), dtype=ct.float32)))

    def run(a, b):
        c = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, 16, 16, a.shape[1]))
        return c
    """
    assert "OK k" in compile_sm90(src, "run", "(torch.randn(16, 8).half(), torch.randn(8, 16).half())", tmp_path)


_ONE_ROW_MMA = """
@ct.kernel
def k(a, b, c, M: ConstInt, N: ConstInt, K: ConstInt):
    x = ct.load(a, index=(0, 0), shape=(M, K))
    y = ct.load(b, index=(0, 0), shape=(K, N))
    ct.store(c, index=(0, 0), tile=ct.mma(x, y, ct.full((M, N), 0.5, dtype=ct.float32)))

def run(a, b):
    c = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, a.shape[0], b.shape[1], a.shape[1]))
    return c
"""


def test_fp32_mma_of_one_row_or_one_column_is_full_precision(tmp_path):
    """A one-row or one-column fp32 product is a multiply and a sum (not tl.dot): still fp32."""
    mod = build(_ONE_ROW_MMA, tmp_path)
    g = torch.Generator().manual_seed(0)
    for m, kdim, n in ((1, 128, 128), (128, 64, 1), (1, 16, 32), (16, 32, 16)):
        a, b = torch.randn(m, kdim, generator=g), torch.randn(kdim, n, generator=g)
        want = (a.double().mm(b.double()) + 0.5).float()
        torch.testing.assert_close(mod.run(a, b), want, rtol=1e-5, atol=1e-5)


def test_batched_fp32_mma_of_one_row_counts_the_batch(tmp_path):
    """Rank-3 one-row products: 4 x (1, 64) by (64, 64) is a multiply and a sum (16384 products),
    8 x the same is tl.dot (the products would not fit in registers); both are fp32."""
    mod = build("""
    @ct.kernel
    def k(a, b, c, B: ConstInt, N: ConstInt, K: ConstInt):
        x = ct.load(a, index=(0, 0, 0), shape=(B, 1, K))
        y = ct.load(b, index=(0, 0, 0), shape=(B, K, N))
        ct.store(c, index=(0, 0, 0), tile=ct.mma(x, y, ct.zeros((B, 1, N), dtype=ct.float32)))

    def run(a, b):
        c = torch.empty((a.shape[0], 1, b.shape[2]), dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, a.shape[0], b.shape[2], a.shape[2]))
        return c
    """, tmp_path)
    g = torch.Generator().manual_seed(0)
    for batch in (4, 8):
        a, b = torch.randn(batch, 1, 64, generator=g), torch.randn(batch, 64, 64, generator=g)
        torch.testing.assert_close(mod.run(a, b), a.double().bmm(b.double()).float(), rtol=1e-5, atol=1e-5)


def test_fp32_mma_of_one_row_compiles_without_shared_memory_staging(tmp_path):
    """TileGym's split-KV reduce: a (1, 128) by (128, 128) fp32 product as tl.dot took 66 KB of
    shared memory on sm_90 and ran at 0.56 of cuTile; as a multiply and a sum it takes none."""
    from kernel_util import compile_sm90
    out = compile_sm90(_ONE_ROW_MMA, "run", "(torch.randn(1, 128), torch.randn(128, 128))", tmp_path)
    assert "OK k" in out and int(out.split("shared=")[1].split()[0]) < 8192, out
    # up to 2048 products it stays tl.dot (operands staged in shared memory): a (1, 16) by
    # (16, 128) product ran at 1.16-1.18 of cuTile so, 0.81-0.92 as a multiply and a sum
    small = compile_sm90(_ONE_ROW_MMA, "run", "(torch.randn(1, 16), torch.randn(16, 128))", tmp_path)
    assert "OK k" in small and int(small.split("shared=")[1].split()[0]) >= 8192, small


@pytest.mark.parametrize("mode", ["all", "products"])
def test_narrow_16bit_mma_is_computed_transposed_and_exact(tmp_path, monkeypatch, mode):
    """A (>= 64, K) by (K, 16 or 32) fp16/bf16 product is computed as (b^T a^T)^T (Triton 3.6 on the
    H200 computed TileGym's decode attention wrongly with such products as they are) where the rule
    takes it (C2T_NARROW=all: every one; here, unchained, only there): same results either way."""
    monkeypatch.setenv("C2T_NARROW", mode)
    from translator.harness import interp_numerics
    interp_numerics.install()        # the stock interpreter's bf16 is wrong
    mod = build(_ONE_ROW_MMA, tmp_path)
    g = torch.Generator().manual_seed(0)
    for m, kdim, n, dt in ((128, 128, 16, torch.float16), (64, 32, 32, torch.bfloat16), (128, 64, 64, torch.float16)):
        a, b = torch.randn(m, kdim, generator=g).to(dt), torch.randn(kdim, n, generator=g).to(dt)
        want = (a.double().mm(b.double()) + 0.5).float()
        torch.testing.assert_close(mod.run(a, b), want, rtol=1e-4, atol=1e-4)


def test_narrow_fp8_mma_is_computed_transposed_and_exact(tmp_path, monkeypatch):
    """fp8 operands take the rule too: a hand-written decode kernel with one key tile faulted (illegal
    address) on the H200 at query groups of 16 and 32 in fp8 as in fp16
    (docs/decisions/010-narrow-products-transposed.md).
    Same results transposed; on sm_90 the product is mma.sync, not the warpgroup MMA (C2T_NARROW=all:
    this product of loaded tiles is in no chain, and by default keeps the warpgroup MMA)."""
    monkeypatch.setenv("C2T_NARROW", "all")
    from kernel_util import compile_sm90
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build(_ONE_ROW_MMA, tmp_path)
    g = torch.Generator().manual_seed(0)
    for m, kdim, n in ((128, 64, 16), (64, 128, 32)):
        a = torch.randn(m, kdim, generator=g).to(torch.float8_e4m3fn)
        b = torch.randn(kdim, n, generator=g).to(torch.float8_e4m3fn)
        want = (a.double().mm(b.double()) + 0.5).float()
        torch.testing.assert_close(mod.run(a, b), want, rtol=1e-4, atol=1e-4)
    fp8 = "(torch.randn(128, 64).to(torch.float8_e4m3fn), torch.randn(64, {}).to(torch.float8_e4m3fn))"
    narrow = compile_sm90(_ONE_ROW_MMA, "run", fp8.format(16), tmp_path)
    assert "OK k" in narrow and " wgmma=False mma.sync=True " in narrow, narrow
    wide = compile_sm90(_ONE_ROW_MMA, "run", fp8.format(64), tmp_path)
    assert "OK k" in wide and " wgmma=True " in wide, wide


def test_narrow_16bit_mma_compiles_without_warpgroup_mma(tmp_path, monkeypatch):
    """The transposed product of a (128, 128) by (128, 16) fp16 mma takes Triton's mma.sync path
    on sm_90 (the warpgroup MMA, wgmma, computed the decode kernels wrongly) under C2T_NARROW=all;
    by default this unchained product keeps wgmma; a (128, 64) by (64, 64) product keeps wgmma
    (and by (64, 8), left as it is, Triton takes mma.sync itself)."""
    from kernel_util import compile_sm90
    args = "(torch.randn(128, 128).half(), torch.randn(128, 16).half())"
    monkeypatch.delenv("C2T_NARROW", raising=False)
    unchained = compile_sm90(_ONE_ROW_MMA, "run", args, tmp_path)
    assert "OK k" in unchained and " wgmma=True mma.sync=False " in unchained, unchained
    monkeypatch.setenv("C2T_NARROW", "all")
    narrow = compile_sm90(_ONE_ROW_MMA, "run", args, tmp_path)
    assert "OK k" in narrow and " wgmma=False mma.sync=True " in narrow, narrow
    for n in (64,):
        other = compile_sm90(_ONE_ROW_MMA, "run", f"(torch.randn(128, 64).half(), torch.randn(64, {n}).half())", tmp_path)
        assert "OK k" in other and " wgmma=True " in other, other



_BATCHED_MMA = """
@ct.kernel
def k(a, b, c, B: ConstInt, M: ConstInt, N: ConstInt, K: ConstInt):
    x = ct.load(a, index=(0, 0, 0), shape=(B, M, K))
    y = ct.load(b, index=(0, 0, 0), shape=(B, K, N))
    ct.store(c, index=(0, 0, 0), tile=ct.mma(x, y, ct.full((B, M, N), 0.5, dtype=ct.float32)))

def run(a, b):
    c = torch.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, a.shape[0], a.shape[1], b.shape[2], a.shape[2]))
    return c
"""


@pytest.mark.parametrize("n", [16, 32, 64])
def test_batched_16bit_mma_is_not_a_warpgroup_mma(tmp_path, n):
    """The narrow-product rule of _c2t_mma is for 2-D products only: Triton 3.6 compiles 3-D
    (batched) dots to mma.sync on sm_90, never to the warpgroup MMA that computed the decode
    kernels wrongly. If a Triton upgrade changes that, this fails and the rule must cover 3-D too."""
    from kernel_util import compile_sm90
    out = compile_sm90(_BATCHED_MMA, "run", f"(torch.randn(2, 128, 64).half(), torch.randn(2, 64, {n}).half())",
                       tmp_path)
    assert "OK k" in out and " wgmma=False mma.sync=True " in out, out

_NARROW_MATMUL = """
@ct.kernel
def k(a, b, c, M: ConstInt, N: ConstInt, K: ConstInt):
    x = ct.load(a, index=(0, 0), shape=(M, K))
    y = ct.load(b, index=(0, 0), shape=(K, N))
    ct.store(c, index=(0, 0), tile=x @ y)

def run(a, b):
    c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, c, a.shape[0], b.shape[1], a.shape[1]))
    return c
"""


def test_narrow_16bit_matmul_is_computed_transposed(tmp_path, monkeypatch):
    """`@` of a (128, 64) by (64, 32) fp16 tile under C2T_NARROW=all: the product transposed
    (mma.sync on sm_90, not wgmma), the result in the operands' dtype, as cuTile's matmul."""
    monkeypatch.setenv("C2T_NARROW", "all")
    mod = build(_NARROW_MATMUL, tmp_path)
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(128, 64, generator=g).half(), torch.randn(64, 32, generator=g).half()
    got = mod.run(a, b)
    assert got.dtype == torch.float16
    torch.testing.assert_close(got, (a.double() @ b.double()).half(), rtol=2e-3, atol=2e-3)
    out = compile_sm90(_NARROW_MATMUL, "run", "(torch.randn(128, 64).half(), torch.randn(64, 32).half())", tmp_path)
    assert "OK k" in out and " wgmma=False mma.sync=True " in out, out


def test_matmul_takes_the_forms_of_mma(tmp_path):
    """`@` is _c2t_mma with a zero accumulator: a K of 8 (tl.dot needs 16: this failed to compile
    for sm_90) is a multiply and a sum, a one-row fp32 product needs no shared-memory staging (it
    took 66 KB as tl.dot), integer products accumulate in int32; results in the operands' dtype."""
    mod = build(_NARROW_MATMUL, tmp_path)
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(16, 8, generator=g).half(), torch.randn(8, 16, generator=g).half()
    torch.testing.assert_close(mod.run(a, b), (a.double() @ b.double()).half(), rtol=2e-3, atol=2e-3)
    a, b = torch.randn(1, 128, generator=g), torch.randn(128, 128, generator=g)
    torch.testing.assert_close(mod.run(a, b), (a.double() @ b.double()).float(), rtol=1e-5, atol=1e-5)
    a, b = (torch.randint(-3, 4, (16, 32), generator=g, dtype=torch.int8),
            torch.randint(-3, 4, (32, 16), generator=g, dtype=torch.int8))
    got = mod.run(a, b)
    assert got.dtype == torch.int8 and torch.equal(got, (a.int() @ b.int()).to(torch.int8))
    small_k = compile_sm90(_NARROW_MATMUL, "run", "(torch.randn(16, 8).half(), torch.randn(8, 16).half())", tmp_path)
    assert "OK k" in small_k, small_k
    one_row = compile_sm90(_NARROW_MATMUL, "run", "(torch.randn(1, 128), torch.randn(128, 128))", tmp_path)
    assert "OK k" in one_row and int(one_row.split("shared=")[1].split()[0]) < 8192, one_row


def test_ct_divmod_floors_like_python(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, q, r, d, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        a, b = ct.divmod(t, d)
        ct.store(q, index=(0,), tile=a)
        ct.store(r, index=(0,), tile=b)

    def run(x, d):
        q, r = torch.empty_like(x), torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, q, r, d, 8))
        return q, r
    """, tmp_path)
    x = torch.tensor([7, -7, 6, -6, 0, -1, 13, -13], dtype=torch.int32)
    q, r = mod.run(x, -3)
    assert torch.equal(q, torch.div(x, -3, rounding_mode="floor")) and torch.equal(r, torch.remainder(x, -3))


def test_bf16_tile_times_an_integer_stays_bf16(tmp_path):
    """cuTile: bf16 (*) int -> bf16; Triton would compute in fp32 (a dtype drift)."""
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build("""
    @ct.kernel
    def k(x, out, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=ct.astype(t * (ct.bid(0) + 3), ct.float32))

    def run(x):
        out = torch.empty(x.shape, dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, 8))
        return out
    """, tmp_path)
    x = torch.full((8,), 1.0078125, dtype=torch.bfloat16)
    out = mod.run(x)
    assert torch.equal(out, (x * 3).float())          # rounded to bf16, as cuTile does
    assert not torch.equal(out, x.float() * 3)        # not the fp32 product
    assert "_c2t_mul_ct(t, c2t_bid0 + 3)" in open(mod.__file__).read()      # (c2t_bid0: ct.bid(0))


def test_loop_counters_and_helper_params_mix_with_integer_tiles(tmp_path):
    """Loop counters are Python ints under the interpreter and ints equal to 1 are constexprs
    when compiled: the bf16 promotion helper must not be used on them (cutile-python's
    LayerNorm backward does `j * TILE_N + ct.arange(...)` inside a helper)."""
    src = """
    def shifted(j, T):
        return (j * T + ct.arange(T, dtype=ct.int32)) < 20

    @ct.kernel
    def k(x, y, T: ConstInt):
        acc = ct.zeros((T,), dtype=ct.float32)
        for j in range(3):
            t = ct.load(x, index=(j,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
            acc = acc + ct.where(shifted(j, T), t * j, 0.0)
        ct.store(y, index=(0,), tile=acc)

    def run(x):
        y = torch.empty(8, dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 8))
        return y
    """
    mod = build(src, tmp_path)
    x = torch.randn(24)
    ref = sum(torch.where(torch.arange(8) + 8 * j < 20, x[8 * j:8 * j + 8] * j, 0.0) for j in range(3))
    torch.testing.assert_close(mod.run(x), ref)
    from kernel_util import compile_sm90
    assert "OK k" in compile_sm90(src, "run", "(torch.randn(24),)", tmp_path)


_STATIC_LOCAL = """
@ct.kernel
def k(X, Y, N: ConstInt, T: ConstInt):
    nt = ct.cdiv(N, T)
    check = nt * T != N
    offs = ct.arange(T, dtype=ct.int32)
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(0, nt):
        acc += ct.astype(ct.gather(X, j * T + offs, check_bounds=check), ct.float32)
    ct.scatter(Y, offs, acc)

def run(x, y, n, t):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, n, t))
"""


def test_locals_computed_from_constants_stay_constexpr(tmp_path):
    """`check = nt * T != N` feeds check_bounds (a constexpr in the generated helper): it must be
    emitted as `check: tl.constexpr = ...`, or the sm_90 compiler fails (found on TileGym rms_norm)."""
    code = translate(_STATIC_LOCAL).code
    assert "check: tl.constexpr = nt * T != N" in code and "nt: tl.constexpr = " in code
    mod = build(_STATIC_LOCAL, tmp_path)
    for n, t in ((64, 16), (70, 16)):
        x, y = torch.arange(n, dtype=torch.float32), torch.zeros(t)
        mod.run(x, y, n, t)
        ref = torch.zeros(t)
        for j in range(-(-n // t)):
            ref += torch.nn.functional.pad(x[j * t:(j + 1) * t], (0, t - len(x[j * t:(j + 1) * t])))
        assert torch.equal(y, ref)
    assert "OK k" in compile_sm90(_STATIC_LOCAL, "run", "(torch.randn(4096), torch.empty(2048), 4096, 2048)",
                                  tmp_path)


def test_reshape_of_a_full_reduction_to_unit_shape(tmp_path):
    """ct.reshape of a 0-d tile (a full reduction; its rank is lost after a loop) to (1,): Triton's
    tl.reshape rejects scalars, so the translation splats it first (TileGym layer_norm's mean)."""
    mod = build("""
    @ct.kernel
    def k(X, Out, N: ConstInt, T: ConstInt):
        offs = ct.arange(T, dtype=ct.int32)
        acc = ct.zeros((T,), dtype=ct.float32)
        for j in range(ct.cdiv(N, T)):
            acc += ct.gather(X, j * T + offs)
        s = ct.sum(acc, axis=0)
        ct.scatter(Out, ct.full((1,), 0, dtype=ct.int32), ct.reshape(s, (1,)))

    def run(x):
        out = torch.zeros(1)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, x.shape[0], 16))
        return out
    """, tmp_path)
    x = torch.arange(40, dtype=torch.float32)
    assert mod.run(x).item() == x.sum().item()


def test_bf16_constants_in_the_interpreter(tmp_path):
    """A bf16 tile plus a float Constant, and a bf16 full: the interpreter's builder has no bf16
    constant of its own (found on TileGym dropout/layer_norm bf16); the numerics patch adds it."""
    from translator.harness import interp_numerics
    interp_numerics.install()          # what verify --mode interp runs with
    mod = build("""
    @ct.kernel
    def k(x, y, S: ct.Constant[float], T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(y, index=(0,), tile=t + S + ct.full((T,), 0.25, dtype=ct.bfloat16))

    def run(x, s):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, s, 16))
        return y
    """, tmp_path)
    x = torch.randn(16).to(torch.bfloat16)
    ref = ((x.float() + 1.5).to(torch.bfloat16).float() + 0.25).to(torch.bfloat16)
    torch.testing.assert_close(mod.run(x, 1.5), ref, rtol=8e-3, atol=8e-3)


def test_host_cdiv_in_a_module_without_kernels(tmp_path):
    """ct.cdiv on the host is cuTile's formula (also exact for negative operands) and is defined
    even when the module has no kernel: imported from the runtime, or carried by a standalone module."""
    src = "import cuda.tile as ct\n\n\ndef grid(n, t):\n    return (ct.cdiv(n, t),)\n"
    res = translator.translate_source(src, "host_only.py")
    assert res.ok and "from translator.runtime.values import _c2t_host_cdiv\n" in res.code
    alone = translator.translate_source(src, "host_only.py", translator.Options(standalone=True))
    assert alone.ok and "def _c2t_host_cdiv(" in alone.code and "translator.runtime" not in alone.code
    for code in (res.code, alone.code):
        ns = {}
        exec(compile(code, "host_only_t.py", "exec"), ns)
        assert [ns["grid"](n, t) for n, t in ((10, 4), (8, 4), (-7, 2), (7, -2))] == [(3,), (2,), (-3,), (-3,)]


def test_nonnegative_index_division_keeps_vector_loads_on_sm90(tmp_path):
    """The reason for the plain operators: compiled for the H200, a gather at `i // N * 64 + i % N`
    reads 16-byte vectors; with a negative N (Python's floor semantics, the helper's other branch)
    the same kernel's loads are scalar."""
    lines = {}
    for n in (1024, -1024):
        out = compile_sm90(GATHER_DIV, "run", f"(torch.zeros(4096, dtype=torch.float16), {n}, 0, 1024)", tmp_path)
        lines[n] = int(out.split("vec_ld=")[1].split()[0])
    assert lines[1024] > 0 and lines[-1024] == 0, lines


NEG_SRC = """
@ct.kernel
def k(x, y, z, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=-t)
    ct.store(z, index=(0,), tile=ct.negative(t))

def run(x):
    y, z = torch.empty_like(x), torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, x.numel()))
    return y, z
"""


SCALAR_NEG_SRC = """
@ct.kernel
def k(y, s, T: ConstInt):
    t = ct.full((T,), -s, dtype=ct.float32)           # a runtime float scalar
    acc = ct.zeros((T,), dtype=ct.int32)
    for i in range(3):                                # a loop variable: a Python int in the interpreter
        acc = acc + (-i) + (-(i * 2))
    ct.store(y, index=(0,), tile=t)
    ct.store(y, index=(1,), tile=acc.astype(ct.float32))

def run(s, device="cpu"):
    y = torch.zeros(8, device=device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (y, s, 4))
    return y
"""


def test_scalar_negation_multiplies_by_minus_one(tmp_path):
    """Runtime scalars negate through _c2t_neg_scalar, as tiles through _c2t_neg: in the compiled
    kernel a float argument is multiplied by -1 (-(+0.0) = -0.0), where Triton's unary minus
    subtracts it from 0 (+0.0). Under the interpreter float arguments and loop variables are Python
    numbers (and Triton turns a -0.0 Python float into +0.0 where it meets a tensor): there the
    values are checked, the loop variable's negation included."""
    from kernel_util import compile_sm90_asm
    mod = build(SCALAR_NEG_SRC, tmp_path)
    assert "_c2t_neg_scalar(s)" in open(mod.__file__).read()
    y = mod.run(-2.5)
    assert y.tolist() == [2.5] * 4 + [-9.0] * 4
    ttir = compile_sm90_asm(SCALAR_NEG_SRC, "run", "(0.0,)", tmp_path)["k"]["ttir"]
    assert re.search(r"arith\.mulf %s, %\w+ : f32", ttir) and "arith.subf" not in ttir, ttir


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int8])
def test_negation_keeps_the_sign_of_zero(tmp_path, dt):
    """cuTile's `-x` and ct.negative flip the sign bit: -(+0) = -0. Triton's unary minus is 0 - x
    (+0 there), so tile negation goes through _c2t_neg; ints keep their dtype."""
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build(NEG_SRC, tmp_path)
    if dt.is_floating_point:
        x = torch.tensor([0.0, -0.0, 1.5, -2.0, float("inf"), float("nan"), 0.0, 3.0]).to(dt)
    else:
        x = torch.tensor([0, -1, 5, -7, 100, 1, 2, 3], dtype=dt)
    for out in mod.run(x):
        assert out.dtype == dt
        if dt.is_floating_point:
            assert torch.equal(torch.signbit(out[:5]), torch.tensor([True, False, True, False, True]))
            assert torch.equal(out[:5], -x[:5]) and out[5].isnan()
        else:
            assert torch.equal(out, -x)


# matmul forms cuTile accepts that Triton's dot does not take as they are (the generated code
# failed under the interpreter: "Both operands must be same dtype", "only int8 supported!",
# an IndexError in _c2t_matmul, "input and other must have equal batch shapes")
MATMUL_FORMS = """
@ct.kernel
def k(a16, b32, v, w3, u8a, u8b, i8, o_mix, o_vec, o_col, o_3d, o_mma3, o_u8, o_i8u8, T: ConstInt):
    x = ct.load(a16, index=(0, 0), shape=(T, T))
    y = ct.load(b32, index=(0, 0), shape=(T, T))
    ct.store(o_mix, index=(0, 0), tile=x @ y)                          # f16 @ f32: f32
    r = ct.load(v, index=(0,), shape=(T,))
    ct.store(o_vec, index=(0,), tile=r @ y)                            # 1-D @ 2-D: 1-D
    ct.store(o_col, index=(0,), tile=y @ r)                            # 2-D @ 1-D: 1-D
    z = ct.load(w3, index=(0, 0, 0), shape=(2, T, T))
    ct.store(o_3d, index=(0, 0, 0), tile=z @ y)                        # 3-D @ 2-D: 3-D
    one = ct.load(w3, index=(0, 0, 0), shape=(1, T, T))
    acc = ct.mma(one, z, ct.zeros((2, T, T), dtype=ct.float32))        # a batch of one, broadcast
    ct.store(o_mma3, index=(0, 0, 0), tile=ct.mma(y, z, acc))          # 2-D with 3-D
    p = ct.load(u8a, index=(0, 0), shape=(T, 2 * T))
    q = ct.load(u8b, index=(0, 0), shape=(2 * T, T))
    ct.store(o_u8, index=(0, 0), tile=ct.mma(p, q, ct.zeros((T, T), dtype=ct.int32)))      # uint8
    s = ct.load(i8, index=(0, 0), shape=(T, 2 * T))
    ct.store(o_i8u8, index=(0, 0), tile=ct.mma(s, q, ct.zeros((T, T), dtype=ct.int32)))   # int8 x uint8

def run(T):
    g = torch.Generator().manual_seed(0)
    a16 = torch.randn(T, T, generator=g).half()
    b32, v, w3 = torch.randn(T, T, generator=g), torch.randn(T, generator=g), torch.randn(2, T, T, generator=g)
    u8a = torch.randint(0, 256, (T, 2 * T), generator=g).to(torch.uint8)
    u8b = torch.randint(0, 256, (2 * T, T), generator=g).to(torch.uint8)
    i8 = torch.randint(-128, 128, (T, 2 * T), generator=g).to(torch.int8)
    outs = [torch.empty(T, T), torch.empty(T), torch.empty(T), torch.empty(2, T, T), torch.empty(2, T, T),
            torch.empty(T, T, dtype=torch.int32), torch.empty(T, T, dtype=torch.int32)]
    ct.launch(torch.cuda.current_stream(), (1,), k, (a16, b32, v, w3, u8a, u8b, i8, *outs, T))
    return (a16, b32, v, w3, u8a, u8b, i8), outs
"""


def test_matmul_forms_promote_drop_vector_axes_and_broadcast_batches(tmp_path):
    mod = build(MATMUL_FORMS, tmp_path)
    (a16, b32, v, w3, u8a, u8b, i8), outs = mod.run(32)
    o_mix, o_vec, o_col, o_3d, o_mma3, o_u8, o_i8u8 = outs
    close = dict(rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(o_mix, a16.float() @ b32, **close)
    torch.testing.assert_close(o_vec, v @ b32, **close)
    torch.testing.assert_close(o_col, b32 @ v, **close)
    torch.testing.assert_close(o_3d, w3 @ b32, **close)
    torch.testing.assert_close(o_mma3, b32 @ w3 + w3[:1] @ w3, **close)
    assert torch.equal(o_u8, u8a.int() @ u8b.int())
    assert torch.equal(o_i8u8, i8.int() @ u8b.int())
    assert "OK k" in compile_sm90(MATMUL_FORMS, "run", "(32,)", tmp_path)


PROPAGATE_NAN = """
@ct.kernel
def k(x, mx, mn, plain, T: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(4, T))
    ct.store(mx, index=(0,), tile=ct.max(t, axis=1, propagate_nan=True))
    ct.store(mn, index=(0,), tile=ct.min(t, axis=1, propagate_nan=True))
    ct.store(plain, index=(0,), tile=ct.max(t, axis=1))

def run(x):
    outs = [torch.empty(4) for _ in range(3)]
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, *outs, 8))
    return outs
"""


def test_max_and_min_with_propagate_nan(tmp_path):
    """ct.max/ct.min(..., propagate_nan=True): a NaN in a row makes its result NaN (was refused);
    without it NaN is ignored."""
    mod = build(PROPAGATE_NAN, tmp_path)
    x = torch.randn(4, 8)
    x[1, 3] = float("nan")
    x[3, 0] = float("nan")
    mx, mn, plain = mod.run(x)
    nan_rows = torch.tensor([False, True, False, True])
    assert torch.equal(mx.isnan(), nan_rows) and torch.equal(mn.isnan(), nan_rows)
    ok = ~nan_rows
    assert torch.equal(mx[ok], x[ok].max(1).values) and torch.equal(mn[ok], x[ok].min(1).values)
    assert not plain.isnan().any()
    assert "OK k" in compile_sm90(PROPAGATE_NAN, "run", "(torch.randn(4, 8),)", tmp_path)


ARG_PROPAGATE_NAN = """
@ct.kernel
def k(x, amax, amin, amax_plain, T: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(4, T))
    ct.store(amax, index=(0,), tile=ct.argmax(t, axis=1, propagate_nan=True))
    ct.store(amin, index=(0,), tile=ct.argmin(t, axis=1, propagate_nan=True))
    ct.store(amax_plain, index=(0,), tile=ct.argmax(t, axis=1))

def run(x):
    outs = [torch.empty(4, dtype=torch.int32) for _ in range(3)]
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, *outs, 8))
    return outs
"""


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_argmax_and_argmin_with_propagate_nan(tmp_path, dtype):
    """ct.argmax/ct.argmin(..., propagate_nan=True): NaN wins, the first NaN's index is returned
    (was refused); a row without NaN, or with +-inf before its NaN, as the documentation says;
    without propagate_nan the NaN is ignored."""
    mod = build(ARG_PROPAGATE_NAN, tmp_path)
    x = torch.tensor([[0.5, 3.0, -1.0, 3.0, 2.0, -4.0, 1.0, 0.0],
                      [0.5, 3.0, float("nan"), 9.0, float("nan"), -4.0, 1.0, 0.0],
                      [float("inf"), 1.0, 2.0, float("-inf"), 3.0, 4.0, float("nan"), 0.0],
                      [2.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0, 1.0]], dtype=dtype)
    amax, amin, plain = mod.run(x)
    assert amax.tolist() == [1, 2, 6, 0]
    assert amin.tolist() == [5, 2, 6, 2]
    assert plain.tolist() == [1, 3, 0, 0]
    assert "OK k" in compile_sm90(ARG_PROPAGATE_NAN, "run", "(torch.randn(4, 8),)", tmp_path)


# ---------------------------------------------------------------- fp16/bf16 with float arguments
ROTARY = """
@ct.kernel
def rotary(Q, COS, SIN, OUT, scale: float, TS: ConstInt, HALF: ConstInt, LOOSE: ConstFloat):
    b = ct.bid(0)
    h = ct.bid(1)
    s = ct.bid(2)
    x1 = ct.load(Q, index=(b, h, s, 0), shape=(1, 1, TS, HALF))
    x2 = ct.load(Q, index=(b, h, s, 1), shape=(1, 1, TS, HALF))
    c = ct.load(COS, index=(s, 0), shape=(TS, HALF))
    sn = ct.load(SIN, index=(s, 0), shape=(TS, HALF))
    o1 = (x1 * c - x2 * sn) * LOOSE
    o2 = (x2 * c + x1 * sn) * scale
    ct.store(OUT, index=(b, h, s, 0), tile=ct.astype(o1, OUT.dtype))
    ct.store(OUT, index=(b, h, s, 1), tile=ct.astype(o2, OUT.dtype))


def run(q, cos, sin, out, scale, loose):
    B, H, S, D = q.shape
    ct.launch(torch.cuda.current_stream(), (B, H, ct.cdiv(S, 16)), rotary, (q, cos, sin, out, scale, 16, D // 2, loose))
    return out
""".replace("ConstFloat", "ct.Constant[float]")


@pytest.mark.parametrize("dt, cs", [(torch.float16, torch.float16), (torch.float16, torch.float32),
                                    (torch.bfloat16, torch.float32)])
@pytest.mark.parametrize("shape", [(1, 2, 16, 64), (2, 3, 37, 32)])
def test_rotary_rounds_as_cutile_and_float_arguments_are_float32(tmp_path, dt, cs, shape):
    """A rotary embedding over 4-D q with [seq, head_dim/2] cos/sin: each fp16 operation rounds
    to fp16 (x1*cos - x2*sin as torch computes it in fp16, bit for bit), fp16 with fp32 operands
    computes in fp32, a Constant float stays loosely typed (the tile's dtype), and a float
    argument is a float32 scalar, so fp16 * scale is fp32 (the interpreter kept it fp16: its
    Python float was weakly typed)."""
    mod = build(ROTARY, tmp_path)
    g = torch.Generator().manual_seed(1)
    B, H, S, D = shape
    q = torch.randn(shape, generator=g).to(dt)
    ang = torch.randn(S, D // 2, generator=g) * 40
    cos, sin = ang.cos().to(cs), ang.sin().to(cs)
    out = mod.run(q, cos, sin, torch.empty(shape, dtype=torch.float32), 0.3, 0.7)
    x1, x2 = q[..., :D // 2], q[..., D // 2:]
    if cs == dt:
        r1, r2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin          # torch: each op rounded to fp16
    else:
        x1, x2 = x1.float(), x2.float()
        r1, r2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    r1 = r1 * torch.tensor(0.7).to(r1.dtype)     # the Constant takes the tile's dtype first (torch's
                                                  # `r1 * 0.7` would multiply by 0.7 in fp32)
    r2 = r2.float() * torch.tensor(0.3, dtype=torch.float32)      # the argument: float32
    if dt == torch.bfloat16:      # (the stock interpreter rounds bf16 differently: within an ulp)
        torch.testing.assert_close(out, torch.cat([r1.float(), r2], -1), rtol=8e-3, atol=1e-5)
    else:
        assert torch.equal(out, torch.cat([r1.float(), r2], -1))


def test_rotary_compiles_to_fp16_arithmetic_fused_as_cutile_fuses(tmp_path):
    """On the GPU: fp16 products and sums stay fp16 (no widening), and the contraction into FMAs
    is cuTile's (its rewrite fuses the left product of `a*b - c*d` and `a*b + c*d`: fma(a, b,
    -(c*d)) and fma(a, b, c*d)), four per output pair; the float argument's product is fp32."""
    asm = compile_sm90_asm(ROTARY, "run", "(torch.randn(1, 1, 16, 64).half(), torch.randn(16, 32).half(), "
                                          "torch.randn(16, 32).half(), torch.empty(1, 1, 16, 64), 0.3, 0.7)", tmp_path)
    ttir, ptx = asm["rotary"]["ttir"], asm["rotary"]["ptx"]
    assert re.search(r"arith\.subf .*: tensor<1x1x16x32xf16>", ttir) and re.search(r"arith\.mulf .*x32xf32>", ttir)
    regs = {}
    for op, dst, src in re.findall(r"^\s*(mul\.f16|neg\.f16|fma\.rn\.f16)\s+(%rs\d+)((?:, %rs\d+)+);", ptx, re.M):
        regs[dst] = (op, src.split(", ")[1:])
    fmas = [(d, s) for d, (op, s) in regs.items() if op == "fma.rn.f16"]
    assert fmas and all(regs.get(s[2], ("",))[0] in ("mul.f16", "neg.f16") for _, s in fmas)
    # each addend is the other product (negated for the difference), never a fused left product
    assert sum(regs[s[2]][0] == "neg.f16" for _, s in fmas) == len(fmas) // 2


# argmax / argmin over the whole tile (axis=None) with keepdims=True keep every dimension as 1
# (found by the differential fuzzer, docs/fuzz-2026-12-02.md: the flattened index came back as a
# scalar, and storing it into a (1, ...) tile failed with "Cannot splat a block tensor").
_ARG_ALL_KEEP = """
@ct.kernel
def k(x1, x2, x3, x4, o1, o2, o3, o4, oflat):
    t1 = ct.load(x1, index=(0,), shape=(8,))
    ct.store(o1, index=(0,), tile=ct.argmax(t1, axis=None, keepdims=True))
    t2 = ct.load(x2, index=(0, 0), shape=(4, 8))
    ct.store(o2, index=(0, 0), tile=ct.argmin(t2, axis=None, keepdims=True))
    t3 = ct.load(x3, index=(0, 0, 0), shape=(2, 4, 4))
    ct.store(o3, index=(0, 0, 0), tile=ct.argmax(t3, axis=None, keepdims=True))
    t4 = ct.load(x4, index=(0, 0, 0, 0), shape=(2, 2, 2, 4))
    ct.store(o4, index=(0, 0, 0, 0), tile=ct.argmin(t4, axis=None, keepdims=True) + 1)
    ct.scatter(oflat, (), ct.argmax(t2, axis=None))

def run(x1, x2, x3, x4):
    outs = [torch.zeros((1,) * r, dtype=torch.int32, device=x1.device) for r in (1, 2, 3, 4)]
    flat = torch.zeros((), dtype=torch.int32, device=x1.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x1, x2, x3, x4, *outs, flat))
    return outs + [flat]
"""


@pytest.mark.parametrize("dt", [torch.float32, torch.int16])
def test_argmax_argmin_all_axes_keepdims_every_rank(tmp_path, dt):
    mod = build(_ARG_ALL_KEEP, tmp_path)
    g = torch.Generator().manual_seed(5)
    xs = [torch.randint(-3, 4, s, generator=g).to(dt) for s in ((8,), (4, 8), (2, 4, 4), (2, 2, 2, 4))]
    got = mod.run(*xs)
    want = [xs[0].argmax(), xs[1].flatten().argmin(), xs[2].flatten().argmax(), xs[3].flatten().argmin() + 1,
            xs[1].flatten().argmax()]
    for i, (o, w) in enumerate(zip(got, want)):
        assert tuple(o.shape) == ((1,) * (i + 1) if i < 4 else ()), o.shape
        assert o.item() == int(w), (i, o, w)     # torch: first index of the extreme, as cuTile


def test_argmax_all_axes_keepdims_compile_sm90(tmp_path):
    args = "torch.zeros(8), torch.zeros(4, 8), torch.zeros(2, 4, 4), torch.zeros(2, 2, 2, 4)"
    assert "OK k" in compile_sm90(_ARG_ALL_KEEP, "run", args, tmp_path)
