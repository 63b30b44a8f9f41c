"""Rank variants: a kernel that uses an array parameter with several ranks, in branches that
Constant arguments select (TileGym liger's tvd: the loss is (BT, V) for reduction "none" and
(BT,) otherwise), becomes one Triton kernel per rank, launched by the array's rank. A branch that
cannot be lowered with a variant's rank becomes `tl.static_assert(False, ...)` there: Triton, as
cuTile, compiles only the branches a constexpr condition selects."""
import os

import pytest
import torch

from kernel_util import build, compile_sm90, translate

ROWLOSS = """
@ct.kernel
def rowloss(P, LOSS, BLOCK: ConstInt, per_elem: ConstInt):
    row = ct.bid(0)
    p = ct.load(P, index=(row, 0), shape=(1, BLOCK), padding_mode=ct.PaddingMode.ZERO)
    if per_elem == 1:
        # LOSS is (rows, cols): one value per element
        ct.store(LOSS, index=(row, 0), tile=p * p)
    else:
        # LOSS is (rows,): one value per row
        ct.store(LOSS, index=(row,), tile=ct.sum(p * p, axis=1))


def run(p, per_elem):
    rows, cols = p.shape
    loss = torch.empty((rows, cols) if per_elem else (rows,), dtype=p.dtype, device=p.device)
    ct.launch(torch.cuda.current_stream(), (rows,), rowloss, (p, loss, 64, int(per_elem)))
    return loss
"""


def test_one_kernel_per_rank_and_a_dispatcher():
    res = translate(ROWLOSS)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    [note] = res.diagnostics        # the split is said, at the parameter's line
    assert (note.code, note.severity, note.line) == ("C2T211", "info", 7), note.format()
    assert "`LOSS` is used as a 2-D array (line 12) and as a 1-D array (line 15)" in note.message
    assert "(`rowloss_LOSS_1d`, `rowloss_LOSS_2d`)" in note.message
    code = res.code
    one = code[code.index("def rowloss_LOSS_1d("):code.index("def launch_rowloss_LOSS_1d")]
    two = code[code.index("def rowloss_LOSS_2d("):code.index("def launch_rowloss_LOSS_2d")]
    assert "LOSS, LOSS_shape_0, LOSS_stride_0," in one and "LOSS_shape_1" not in one
    assert "LOSS, LOSS_shape_0, LOSS_shape_1, LOSS_stride_0, LOSS_stride_1" in two
    # the branch for the other rank is a compile-time assert, its comments gone with it
    assert one.count("tl.static_assert(False, ") == 1 and "a 1-D `LOSS`" in one
    assert "one value per element" not in one and "one value per row" in one
    assert two.count("tl.static_assert(False, ") == 1 and "one value per row" not in two
    assert "(1,): launch_rowloss_LOSS_1d," in code and "(2,): launch_rowloss_LOSS_2d," in code
    assert "rowloss = rowloss_LOSS_1d" in code and "_c2t_kernel_object(rowloss, launch_rowloss)" in code
    assert code.count("_c2t_kernel_object(") == 1 + code.count("def _c2t_kernel_object(")


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_each_rank_runs_its_kernel(tmp_path, dtype):
    mod = build(ROWLOSS, tmp_path)
    p = torch.randn(5, 50).to(dtype)
    torch.testing.assert_close(mod.run(p, True), p * p)
    torch.testing.assert_close(mod.run(p, False), (p.float() * p.float()).sum(1).to(dtype), rtol=2e-3, atol=2e-3)
    with pytest.raises(ValueError, match=r"`rowloss`: \(LOSS\) of ranks \(3,\); the kernel uses them with ranks "
                                         r"\[\(1,\), \(2,\)\]"):
        mod.launch_rowloss((1,), p, torch.empty(2, 2, 2), 64, 1)


def test_the_variants_compile_for_sm90(tmp_path):
    """Triton's compiler skips the static_assert of the branch a constexpr condition rules out."""
    out = compile_sm90(ROWLOSS, "run", "(torch.randn(5, 50), True)", tmp_path)
    assert "OK rowloss_LOSS_2d" in out
    out = compile_sm90(ROWLOSS, "run", "(torch.randn(5, 50), False)", tmp_path)
    assert "OK rowloss_LOSS_1d" in out


def test_a_branch_no_rank_lowers_is_an_error():
    """The tolerance is for rank mismatches a variant explains: a branch that fails with every
    rank is reported as the error it is."""
    res = translate(ROWLOSS.replace("tile=ct.sum(p * p, axis=1))", "tile=ct.sum(p * q, axis=1))"))
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and all("`q`" in d.message for d in errs), [d.format() for d in errs]


def test_too_many_rank_combinations_are_refused():
    src = """
    @ct.kernel
    def k(A, B, C, mode: ConstInt):
        if mode == 0:
            ct.store(A, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
            ct.store(B, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
            ct.store(C, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
        else:
            ct.store(A, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))
            ct.store(B, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))
            ct.store(C, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))
    """
    res = translate(src)
    errs = [d for d in res.diagnostics if d.code == "C2T101"]
    assert len(errs) == 3 and "more than 4 kernels" in errs[0].message, [d.format() for d in res.diagnostics]
    assert errs[0].line == 7 and "t.view(-1, 1)" in errs[0].hint        # at the parameter, with what to do


def test_notes_of_a_branch_survive_where_it_is_lowered():
    """A diagnostic the live variant's branch gives is reported even though the other variant
    dropped the same branch (and its diagnostics) first."""
    src = ROWLOSS.replace("        ct.store(LOSS, index=(row, 0), tile=p * p)",
                          "        ct.store(LOSS, index=(row, 0), tile=p * p)\n"
                          "        ct.printf(\"%f\", ct.sum(p))")
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    direct = translate(src.replace("ct.store(LOSS, index=(row,), tile=ct.sum(p * p, axis=1))", "pass"))
    printf_notes = lambda r: [d.code for d in r.diagnostics if d.line == 13]
    assert printf_notes(direct) and printf_notes(res) == printf_notes(direct)


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
def test_rank_variants_with_layout_flags_and_hints(tmp_path):
    """Each rank variant has its own dual kernels per layout flag, and the cluster hint reaches
    the variants that do not transpose (one warning, not one per variant)."""
    src = """
    @ct.kernel(num_ctas=2)
    def k(X, OUT, T: ConstInt, per_elem: ConstInt, TRANS: ct.Constant[bool]):
        i = ct.bid(0)
        if TRANS:
            x = ct.transpose(ct.load(X, index=(0, i), shape=(T, 1)))
        else:
            x = ct.load(X, index=(i, 0), shape=(1, T))
        if per_elem == 1:
            ct.store(OUT, index=(i, 0), tile=x * 2.0)
        else:
            ct.store(OUT, index=(i,), tile=ct.sum(x, axis=1))

    def run(x, per_elem, trans):
        rows, cols = (x.shape[1], x.shape[0]) if trans else x.shape
        out = torch.empty((rows, cols) if per_elem else (rows,), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (rows,), k, (x, out, 16, int(per_elem), trans))
        return out
    """
    res = translate(src)
    assert [d.code for d in res.diagnostics] == ["C2T201", "C2T211"], [d.format() for d in res.diagnostics]
    for name in ("k_OUT_1d_TRANS", "k_OUT_1d_not_TRANS", "k_OUT_2d_TRANS", "k_OUT_2d_not_TRANS"):
        assert f"def {name}(" in res.code
    mod = build(src, tmp_path)
    x = torch.randn(5, 16)
    for trans in (False, True):
        xx = x.t().contiguous() if trans else x
        torch.testing.assert_close(mod.run(xx, True, trans), x * 2)
        torch.testing.assert_close(mod.run(xx, False, trans), x.sum(1))


def test_a_branch_one_rank_and_layout_lowers_is_no_error():
    """What counts is whether any lowering (rank and layout flag) lowered the branch: here only
    the 2-D, TRANS one can (`y` exists only with TRANS), and cuTile too compiles it only there."""
    src = """
    @ct.kernel
    def k(X, OUT, T: ConstInt, per_elem: ConstInt, TRANS: ct.Constant[bool]):
        i = ct.bid(0)
        x = ct.load(X, index=(i, 0), shape=(1, T))
        if TRANS:
            y = ct.transpose(ct.load(X, index=(0, i), shape=(T, 1)))
        if per_elem == 1:
            ct.store(OUT, index=(i, 0), tile=y * 2.0)
        else:
            ct.store(OUT, index=(i,), tile=ct.sum(x, axis=1))
    """
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    code = res.code
    lowered = code[code.index("def k_OUT_2d_TRANS("):code.index("def k_OUT_2d_not_TRANS(")]
    assert "y * 2.0" in lowered
    not_trans = code[code.index("def k_OUT_2d_not_TRANS("):code.index("def launch_k_OUT_2d(")]
    assert "y * 2.0" not in not_trans and "tl.static_assert(False" in not_trans


# ---------------------------------------------------------------- placeholders and rank bounds
PARTIAL = """
@ct.kernel
def bias_grad_partial(DY, DB_PARTIAL, N: ConstInt, HAS_BIAS: ct.Constant[bool], MODE: ConstInt, n_valid):
    row = ct.bid(0)
    dy = ct.load(DY, index=(row, 0), shape=(1, N), padding_mode=ct.PaddingMode.ZERO)
    if HAS_BIAS:
        if MODE == 0:
            ct.store(DB_PARTIAL, index=(row, 0), tile=dy)
        elif MODE == 1 and n_valid > 0:
            ct.store(DB_PARTIAL, index=(row, 0), tile=dy * 2.0)
    {tail}


def run(dy, db, has_bias, mode=0):
    ct.launch(torch.cuda.current_stream(), (dy.shape[0],), bias_grad_partial, (dy, db, 64, has_bias, mode, 1))
    return db
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("placeholder", [(1,), (), (2, 2, 2)])
def test_an_array_the_constants_leave_unused_may_be_a_placeholder_of_any_rank(tmp_path, placeholder):
    """A layer-norm backward without a bias passes a 1-element placeholder for the bias gradient
    partials: cuTile compiles only the branch HAS_BIAS selects, so it never checks that
    placeholder's rank; the launcher refused it (`must be a 2-D array, got 1-D`)."""
    res = translate(PARTIAL.format(tail="pass"))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    # (the elif's runtime part is left out: under HAS_BIAS the array counts as needed whatever MODE is)
    assert "unused=not ((HAS_BIAS)))," in res.code
    mod = build(PARTIAL.format(tail="pass"), tmp_path)
    dy = torch.randn(3, 40)
    dummy = torch.full(placeholder, 7.0)
    assert mod.run(dy, dummy, False) is dummy and torch.equal(dummy, torch.full(placeholder, 7.0))
    torch.testing.assert_close(mod.run(dy, torch.zeros(3, 40), True), dy)
    torch.testing.assert_close(mod.run(dy, torch.zeros(3, 40), True, 1), dy * 2)
    # where the constants select a use, the rank is checked as before
    with pytest.raises(ValueError, match="`DB_PARTIAL` must be a 2-D array, got"):
        mod.run(dy, dummy, True)


def test_the_condition_follows_the_branches_that_use_the_array():
    res = translate(PARTIAL.format(tail="pass").replace("    if HAS_BIAS:\n        if MODE == 0:", """    if MODE == 3:
        pass
    elif HAS_BIAS:
        if MODE == 0:"""))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "unused=not (not (MODE == 3) and ((HAS_BIAS)))),\n" in res.code


def test_a_use_outside_the_constant_branches_keeps_the_rank_check(tmp_path):
    """One use not under a condition of Constant arguments (or under a runtime condition only)
    and the array is always needed: no `unused=` in the launcher."""
    for tail in ("ct.store(DB_PARTIAL, index=(row, 1), tile=dy)",
                 "if n_valid > 3:\n        ct.store(DB_PARTIAL, index=(row, 1), tile=dy)"):
        res = translate(PARTIAL.format(tail=tail))
        assert res.ok, "\n".join(d.format() for d in res.diagnostics)
        assert "unused=" not in res.code.split("\ndef launch_", 1)[1]


SHAPE_ONLY = """
@ct.kernel
def extents(X, OUT, T: ConstInt):
    ct.store(OUT, index=(ct.bid(0),), tile=ct.full((T,), X.shape[{axis}] * 100 + X.strides[0], dtype=ct.int32))


def run(x):
    out = torch.zeros(16, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (1,), extents, (x, out, 16))
    return out
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("axis", [0, 1])
def test_an_array_read_only_through_shape_entries_takes_any_higher_rank(tmp_path, axis):
    """`X.shape[k]` compiles in cuTile for an X of any rank above k: the launcher checked the
    least such rank exactly."""
    mod = build(SHAPE_ONLY.format(axis=axis), tmp_path)
    for shape in [(5, 3), (5, 3, 2), (4, 6, 2, 2)][:3 - axis] + [(5, 7, 2)]:
        x = torch.randn(shape)[:, 1:]       # (a view: its own strides)
        assert mod.run(x)[0].item() == x.shape[axis] * 100 + x.stride(0), shape
    if axis == 0:
        assert mod.run(torch.randn(9))[0].item() == 901
    with pytest.raises(ValueError, match=rf"`X` must be a {axis + 1}-D array \(or of a higher rank\), got {axis}-D"):
        mod.run(torch.randn((4,) * axis))


def test_an_array_used_whole_or_by_a_helper_keeps_its_exact_rank():
    for use in ("X.shape", "helper(X)"):
        res = translate(SHAPE_ONLY.format(axis=0).replace("@ct.kernel", f"""
def helper(a):
    return a.shape[0]

@ct.kernel""").replace("    ct.store(OUT", f"    s = {use}\n    ct.store(OUT"))
        assert res.ok, "\n".join(d.format() for d in res.diagnostics)
        assert 'at_least' not in res.code.split("\ndef launch_", 1)[1]


INDEX_FORMS = """
def at(row, cols):
    return (row, cols)


@ct.kernel
def pick(X, OUT, T: ConstInt, FLAG: ConstInt):
    cols = ct.arange(T, dtype=ct.int32)
    {assign}
    v = ct.gather(X, idx)
    ct.scatter(OUT, idx, v * 2)


def run(x):
    out = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), pick, (x, out, 16, 1))
    return out
"""


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("assign, shape", [
    ("idx = at(ct.bid(0), cols)", (3, 16)),                                    # a helper's tuple
    ("idx = (ct.bid(0), cols) if FLAG == 1 else (0, cols)", (3, 16)),          # either of two tuples
    ("idx = at(ct.bid(0), cols) if FLAG == 1 else (0, cols)", (3, 16)),
    ("idx = cols + ct.bid(0) * T", (48,)),                                     # a tile: a 1-D array
])
def test_an_index_tuple_from_a_helper_or_a_conditional_fixes_the_rank(tmp_path, assign, shape):
    """A gather/scatter index held in a name assigned a helper's tuple or a conditional between
    tuples has one entry per axis; the translator took any name it could not read as a bare
    tile index (a 1-D array) and refused the kernel (`2 indices for a 1-D array`)."""
    mod = build(INDEX_FORMS.format(assign=assign), tmp_path)
    x = torch.randn(shape)
    torch.testing.assert_close(mod.run(x), x * 2)


# A Constant[bool] `if` is a layout flag (one kernel per value, the dead branch not lowered): the
# taken branch is then lowered inline, and in a rank variant it may be for the other rank
# (cutile-python's test_reduction: `if keepdims: store 2-D else: store 1-D`, 144 tests refused).
KEEPDIMS = """
@ct.kernel
def rowmax(X, OUT, B: ct.Constant[int], N: ct.Constant[int], keepdims: ct.Constant[bool]):
    px = ct.bid(0)
    rows = ct.load(X, index=(px, 0), shape=(B, N))
    out = ct.max(rows, axis=1, keepdims=keepdims)
    if keepdims:
        ct.store(OUT, index=(px, 0), tile=out)
    else:
        ct.store(OUT, index=(px,), tile=out)


def run(x, keepdims):
    out = torch.empty((x.shape[0], 1) if keepdims else (x.shape[0],), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 4,), rowmax, (x, out, 4, x.shape[1], keepdims))
    return out
"""


def test_a_layout_flag_branch_for_the_other_rank_is_an_assert():
    res = translate(KEEPDIMS)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    code = res.code
    assert "def rowmax_OUT_1d_keepdims(" in code and "def rowmax_OUT_2d_not_keepdims(" in code
    one = code[code.index("def rowmax_OUT_1d_keepdims("):code.index("def rowmax_OUT_1d_not_keepdims(")]
    assert one.count("tl.static_assert(False, ") == 1 and "a 1-D `OUT`" in one


@pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("keepdims", [True, False])
def test_a_layout_flag_rank_variant_runs(tmp_path, keepdims):
    mod = build(KEEPDIMS, tmp_path)
    x = torch.randn(8, 16)
    ref = x.amax(1, keepdim=keepdims)
    torch.testing.assert_close(mod.run(x, keepdims), ref)


def test_a_launch_rank_keeps_its_one_variant():
    """Options.ranks (the shim: a launch's ranks) pins a parameter used with several ranks to the
    variant of that rank; the branch for the other rank is still a compile-time assert there."""
    from translator.api import Options
    from kernel_util import HEADER
    import textwrap
    import translator
    res = translator.translate_source(HEADER + textwrap.dedent(ROWLOSS), "test_kernel.py",
                                      Options(check=False, ranks={"rowloss": {"LOSS": 1}}))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "def rowloss_LOSS_1d(" in res.code and "def rowloss_LOSS_2d(" not in res.code
    assert "(1,): launch_rowloss_LOSS_1d," in res.code


def test_a_launch_rank_where_the_text_shows_none():
    from translator.api import Options
    from kernel_util import HEADER
    import translator
    src = HEADER + "@ct.kernel\ndef k(x, out):\n    ct.store(out, (0,), ct.full((1,), x.shape[x.ndim - 1], ct.int32))\n"
    assert not translator.translate_source(src, "k.py", Options(check=False)).ok
    res = translator.translate_source(src, "k.py", Options(check=False, ranks={"k": {"x": 3}}))
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert "x, x_shape_0, x_shape_1, x_shape_2, x_stride_0, x_stride_1, x_stride_2," in res.code
