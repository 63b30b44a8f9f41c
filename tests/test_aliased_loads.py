"""Aliased-load reuse (kernel.py `_reuse_aliased_load`): in a loop, a load of array V with the same
index, shape and padding as an earlier load of array K in the same straight-line code takes K's
tile when the launcher finds V and K to be the same memory (`V_IS_K`, `_c2t_same`). TileGym's MLA
decoding passes one latent cache as both K and V, and its single program was bound by its own
load rate on the H200 (docs/decisions/008-aliased-load-reuse.md). Interpreter runs with and without the
aliasing, the cases that must not reuse, and an sm_90 compile that loads one tile less."""
import pytest
import torch

from kernel_util import RT, build, compile_sm90, translate
from test_squeeze_loads import MLA_LIKE   # K and V loaded at the same index each iteration


def _mla_inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 64, 16, generator=g) / 8
    kv = torch.randn(2, 128, 64, generator=g) / 8
    return q, kv


def _mla_ref(q, k, v):
    return v.transpose(1, 2) @ (k @ q)


def test_mla_like_kernel_reuses_k_for_v_when_they_alias():
    code = translate(MLA_LIKE).code
    kernel = code.split("def attn_t(")[1].split("def launch_attn_t")[0]
    assert "V_IS_K: tl.constexpr" in kernel
    assert "v = k if V_IS_K else (" in kernel
    assert '*_c2t_array(V, 3, "V", tma=((1, TN, D),), grid=grid, same=(K,)),' in code


@pytest.mark.parametrize("aliased", [True, False])
def test_both_specializations_compute_the_same(monkeypatch, tmp_path, aliased):
    mod = build(MLA_LIKE, tmp_path)
    q, kv = _mla_inputs()
    v = kv if aliased else kv.clone()
    seen = []
    real = RT._c2t_same
    monkeypatch.setattr(RT, "_c2t_same", lambda a, o: (seen.append(real(a, o)), seen[-1])[1])
    torch.testing.assert_close(mod.run(q, kv, v), _mla_ref(q, kv, v), rtol=1e-4, atol=1e-4)
    assert seen == [aliased]
    # a different V with K's shape gives V's result, not K's (the flag is per launch)
    other = torch.randn_like(kv)
    torch.testing.assert_close(mod.run(q, kv, other), _mla_ref(q, kv, other), rtol=1e-4, atol=1e-4)


def test_same_memory_means_same_pointer_extents_strides_and_dtype(tmp_path):
    mod = build(MLA_LIKE, tmp_path)
    x = torch.randn(4, 4)
    assert RT._c2t_same(x, x) and RT._c2t_same(x, x.view(4, 4))
    assert not RT._c2t_same(x, x.t())                 # same pointer, other strides
    assert not RT._c2t_same(x, x.clone())
    assert not RT._c2t_same(x, x[:2])                 # same pointer, other extent
    assert not RT._c2t_same(x, x.view(torch.int32))   # same bytes, other dtype


ROWS = """
@ct.kernel
def pair_k(A, B, Y, T: ConstInt):
    for i in range(ct.cdiv(A.shape[0], T)):     # (a grid-stride loop would prefetch both loads instead)
        a = ct.load(A, index=(i, 0), shape=(T, 8), padding_mode=ct.PaddingMode.ZERO)
        {between}
        b = ct.load(B, index=({bidx}, 0), shape=(T, 8), padding_mode=ct.PaddingMode.ZERO)
        ct.store(Y, index=(i, 0), tile=a * 2.0 + b)
        {store}

def run(a, b, t, programs):
    y = torch.zeros_like(a)
    ct.launch(torch.cuda.current_stream(), (1,), pair_k, (a, b, y, t))
    return y
"""


def _rows(between="pass", bidx="i", store="pass"):
    return ROWS.format(between=between, bidx=bidx, store=store)


def test_plain_loads_in_a_loop(tmp_path):
    code = translate(_rows()).code
    assert "b = a if B_IS_A else " in code
    mod = build(_rows(), tmp_path)
    x = torch.randn(13, 8)
    torch.testing.assert_close(mod.run(x, x, 4, 2), x * 3)                   # aliased: b is a
    z = torch.randn(13, 8)
    torch.testing.assert_close(mod.run(x, z, 4, 2), x * 2 + z)


@pytest.mark.parametrize("between, bidx, store, why", [
    ("a = a * 1.0", "i", "pass", "the tile variable was reassigned"),
    ("pass", "i + 1", "pass", "another index"),
    ("pass", "i", "ct.store(B, index=(i, 0), tile=a)", "the kernel writes B"),
    ("if i > 100:\n            a = ct.load(A, index=(0, 0), shape=(T, 8))", "i", "pass",
     "a compound statement in between assigns the tile variable"),
])
def test_no_reuse_where_the_tile_could_differ(between, bidx, store, why):
    code = translate(_rows(between, bidx, store)).code
    assert "_IS_" not in code, why


HELPER = """
def touch(X, i, T):
    ct.store(X, index=(i, 0), tile=ct.zeros((T, 8), dtype=ct.float32))

"""


@pytest.mark.parametrize("store, why", [
    ("touch(B, i, T)", "a module function gets B (it may store to it)"),
    ("bv = B.tiled_view((T, 8))\n        bv.store((i, 0), a)", "B stored to through a tiled view"),
    ("bv = B.tiled_view((T, 8))\n        bv.atomic_store_add((i, 0), a)", "B updated through a tiled view"),
])
def test_no_reuse_when_the_kernel_may_write_either_array(store, why):
    res = translate((HELPER if "touch" in store else "") + _rows(store=store))
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "_IS_" not in res.code, why


def test_no_reuse_outside_loops_or_out_of_a_nested_block():
    straight = """
@ct.kernel
def add_k(a, b, c, T: ConstInt):
    x = ct.load(a, index=(ct.bid(0),), shape=(T,))
    y = ct.load(b, index=(ct.bid(0),), shape=(T,))
    ct.store(c, index=(ct.bid(0),), tile=x + y)
"""
    assert "_IS_" not in translate(straight).code          # one load per program: nothing to save
    nested = """
@ct.kernel
def k(A, B, Y, T: ConstInt, F: int):
    for i in range(4):
        if F > 0:
            a = ct.load(A, index=(i, 0), shape=(T, 8))
        else:
            a = ct.zeros((T, 8), dtype=ct.float32)
        b = ct.load(B, index=(i, 0), shape=(T, 8))
        ct.store(Y, index=(i, 0), tile=a + b)
"""
    assert "_IS_" not in translate(nested).code             # `a` holds A's tile on one branch only
    flat = nested.replace("""        if F > 0:
            a = ct.load(A, index=(i, 0), shape=(T, 8))
        else:
            a = ct.zeros((T, 8), dtype=ct.float32)""", "        a = ct.load(A, index=(i, 0), shape=(T, 8))")
    assert "b = a if B_IS_A else " in translate(flat).code  # (the same loads in one block do reuse)


def test_aliased_launch_loads_one_tile_less_for_sm90(tmp_path):
    """On sm_90 the aliased specialization issues K's copies only: V's are gone."""
    h = "dtype=torch.float16"
    args = f"(lambda kv: (torch.randn(2, 64, 16, {h}), kv, kv))(torch.randn(2, 256, 64, {h}))"
    aliased = compile_sm90(MLA_LIKE, "run", args, tmp_path)
    apart = compile_sm90(MLA_LIKE, "run", f"torch.randn(2, 64, 16, {h}), torch.randn(2, 256, 64, {h}), "
                                          f"torch.randn(2, 256, 64, {h})", tmp_path)
    copies = lambda out: int(out.split("cp_async16=")[1].split()[0])      # noqa: E731
    assert copies(aliased) < copies(apart), (aliased, apart)


BATCHED = """
@ct.kernel
def pair_sum(A, B, Y, T: ConstInt):
    for j in range(2):
        a = ct.load(A, index=(ct.bid(0) * 2 + j,), shape=(T,))
        b = ct.load(B, index=(ct.bid(0) * 2 + j,), shape=(T,))
        ct.store(Y, index=(ct.bid(0) * 2 + j,), tile=a + b)

def sums(xs, ys, outs):
    for x, y, o in zip(xs, ys, outs):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 32),), pair_sum, (x, y, o, 16))
"""


def test_batched_launches_carry_one_flag_per_launch(tmp_path):
    """A host loop's launches run four per launch (batched twin); each slot has its own `B_IS_A`."""
    code = translate(BATCHED).code
    assert "B_0, B_0_shape_0, B_0_stride_0, B_0_IS_A: tl.constexpr," in code
    mod = build(BATCHED, tmp_path)
    xs = [torch.randn(n) for n in (64, 40, 96, 33, 70)]
    ys = [xs[0], torch.randn(40), xs[2], torch.randn(33), xs[4]]        # launches 0, 2, 4 aliased
    outs = [torch.empty_like(x) for x in xs]
    mod.sums(xs, ys, outs)
    for x, y, o in zip(xs, ys, outs):
        torch.testing.assert_close(o, x + y)
