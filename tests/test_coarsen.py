"""Program coarsening (translator/lower/coarsen.py): a loop-free kernel runs C2T_COARSEN programs of
its grid per Triton program, which the launcher picks (_c2t_coarsen: by default on a GPU only for
tiles of at most 512 elements over many programs). Which kernels may, that forced coarsening
computes what the grid says on ragged grids (also 2-D grids, batched launches and searches), the
auto rule, and that C2T_COARSEN=1 compiles to the plain program."""
import sys
import textwrap

import pytest
import torch

import translator
from kernel_util import RT, HEADER, build, compile_sm90_asm, translate

SCALE = """
@ct.kernel
def scale(x, y, TILE: ConstInt):
    bid = ct.bid(0)
    row = ct.bid(1)
    t = ct.load(x, index=(row, bid), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(row, bid), tile=t * 2.0 + 1.0)

def run(x, tile):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[1], tile), x.shape[0]), scale, (x, y, tile))
    return y
"""


def _coarsened(src) -> bool:
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    return "c2t_bid0 = tl.program_id(0) * C2T_COARSEN + c2t_k" in res.code


def test_a_loop_free_kernel_is_emitted_as_a_loop_over_grouped_programs():
    res = translate(SCALE)
    assert res.ok
    code = res.code
    assert "    c2t_programs, C2T_COARSEN: tl.constexpr," in code
    # the grid's size is no specialization (Triton would compile again for 1 and multiples of 16)
    assert '@triton.jit(do_not_specialize=["c2t_programs"])' in code
    assert "for c2t_k in tl.static_range(C2T_COARSEN):" in code
    assert "if C2T_COARSEN == 1 or c2t_bid0 < c2t_programs:" in code
    assert "bid = c2t_bid0" in code and "row = tl.program_id(1)" in code      # only axis 0 is grouped
    assert "c2t_grid, c2t_programs, c2t_coarsen = _c2t_coarsen(grid, 1 * TILE)" in code
    assert "num_warps=_c2t_num_warps(1 * TILE, dot=False, coarsen=c2t_coarsen)" in code


@pytest.mark.parametrize("body, why", [
    ("for i in range(2):\n        ct.store(y, index=(bid,), tile=ct.load(x, index=(bid,), shape=(16,)))", "loop"),
    ("if bid > 3:\n        return\n    ct.store(y, index=(bid,), tile=ct.load(x, index=(bid,), shape=(16,)))",
     "early return"),
    ("ct.atomic_add(y, (bid,), 1.0)", "atomics"),
    ("n = ct.num_blocks(0)\n    ct.store(y, index=(bid,), tile=ct.full((16,), n, dtype=ct.float32))",
     "num_blocks(0)"),
    ("ct.store(y, index=(bid,), tile=helper_bid(ct.load(x, index=(bid,), shape=(16,))))", "helper reads bid(0)"),
    ("f = lambda t: t + ct.bid(0)\n    ct.store(y, index=(bid,), tile=f(ct.load(x, index=(bid,), shape=(16,))))",
     "lambda reads bid(0)"),
    ("ct.store(y, index=(bid,), tile=helper_loop(ct.load(x, index=(bid,), shape=(16,))))", "helper loops"),
    ("ct.store(y, index=(ct.bid(AXIS),), tile=ct.load(x, index=(bid,), shape=(16,)))", "computed axis"),
    ("ct.store(y, index=(bid,), tile=nowhere_helper(ct.load(x, index=(bid,), shape=(16,))))",
     "unresolvable import"),
])
def test_kernels_that_cannot_run_programs_one_after_another_stay_plain(body, why):
    src = f"""
from nowhere_module import nowhere_helper

def helper_bid(t):
    return t + ct.bid(0)

def helper_loop(t):
    for i in range(2):
        t = t + 1
    return t

@ct.kernel
def k(x, y, AXIS: ConstInt):
    bid = ct.bid(0)
    {body}
"""
    assert not _coarsened(src), why


def test_helpers_it_calls_may_be_grouped_when_they_are_loop_free_and_read_no_block_index():
    src = """
def helper(t):
    return t * 2 + ct.bid(1)

@ct.kernel
def k(x, y):
    bid = ct.bid(0)
    ct.store(y, index=(bid,), tile=helper(ct.load(x, index=(bid,), shape=(16,))))
"""
    assert _coarsened(src)


def test_imported_helpers_are_looked_into_in_their_module(tmp_path):
    """A helper from a module next to the file is read; one that reads ct.bid(0) rules it out."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(HEADER + textwrap.dedent("""
        def plain(t):
            return t * 2

        def reads_bid(t):
            return t + ct.bid(0)
        """))
    for name, grouped in (("plain", True), ("reads_bid", False)):
        kernel = tmp_path / "pkg" / f"k_{name}.py"
        kernel.write_text(HEADER + textwrap.dedent(f"""
            from .helpers import {name}

            @ct.kernel
            def k(x, y):
                bid = ct.bid(0)
                ct.store(y, index=(bid,), tile={name}(ct.load(x, index=(bid,), shape=(16,))))
            """))
        res = translator.translate_file(str(kernel))
        assert res.ok
        assert ("c2t_bid0 = tl.program_id(0)" in res.code) is grouped, name


@pytest.fixture
def forced(monkeypatch):
    def module(src, tmp_path, k):
        monkeypatch.setattr(RT, "_C2T_COARSEN", str(k))     # (as $C2T_COARSEN sets it)
        return build(src, tmp_path)
    return module


@pytest.mark.parametrize("k", [1, 3, 4])
def test_forced_grouping_computes_what_the_grid_says_on_ragged_grids(forced, tmp_path, k):
    m = forced(SCALE, tmp_path, k)
    launches = []
    run = m._c2t_run

    def spy(kernel, grid, args, **options):
        launches.append((grid, args[-2:]))
        return run(kernel, grid, args, **options)
    m._c2t_run = spy
    x = torch.randn(3, 7 * 16 + 5)          # 8 column tiles (the last ragged) by 3 rows
    assert torch.equal(m.run(x, 16), x * 2 + 1)
    grid, (programs, per) = launches[0]
    assert (programs, per) == (8, k) and grid == (-(-8 // k), 3)


def test_grouped_batched_launches_and_searches(forced, tmp_path):
    """The batched twin calls the kernel with one program each; exhaustive_search's autotune
    gives it the same (the META of a triton.Config), forced or not."""
    src = SCALE + """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

def many(xs, tile):
    ys = [torch.zeros_like(x) for x in xs]
    for x, y in zip(xs, ys):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[1], tile), x.shape[0]), scale, (x, y, tile))
    return ys

def search(x):
    y = torch.zeros_like(x)
    cfgs = [SimpleNamespace(TILE=16), SimpleNamespace(TILE=32)]
    r = exhaustive_search(cfgs, torch.cuda.current_stream(), lambda c: (ct.cdiv(x.shape[1], c.TILE), x.shape[0]),
                          scale, lambda c: (x, y, c.TILE), quiet=True)
    return y, r
"""
    m = forced(src, tmp_path, 3)
    xs = [torch.randn(2, 40), torch.randn(2, 70)]
    for x, y in zip(xs, m.many(xs, 16)):
        assert torch.equal(y, x * 2 + 1)
    x = torch.randn(2, 100)
    y, r = m.search(x)
    assert torch.equal(y, x * 2 + 1) and r.best.config.TILE in (16, 32)


def test_the_auto_rule(forced, tmp_path, monkeypatch):
    m = forced(SCALE, tmp_path, 1)
    monkeypatch.setattr(RT, "_C2T_COARSEN", "auto")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(RT, "_c2t_sm_limits", lambda: (132, 65536, 2048))
    monkeypatch.setattr(RT, "_C2T_COARSEN_GPU", None)
    many = 256 * 132
    assert m._c2t_coarsen((many,), 256) == ((many // 4,), many, 4)
    assert m._c2t_coarsen((many // 2, 2), 512) == ((many // 4, 2), many // 2, 2)   # all axes count
    assert m._c2t_coarsen((many,), 32)[2] == 8                  # at most 8 in one
    assert m._c2t_coarsen((many,), 1024)[2] == 1                # 1024-element tiles: no grouping
    assert m._c2t_coarsen((many,), None)[2] == 1                # tile size not known on the host
    assert m._c2t_coarsen((many - 1,), 256)[2] == 1             # under 256 programs per SM
    assert m._c2t_coarsen((16384, 1), 512)[2] == 1              # (TileGym rope's B=1 S=16384 case)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(RT, "_C2T_COARSEN_GPU", None)                                   # (looked up at the first launch)
    assert m._c2t_coarsen((many,), 256)[2] == 1                 # never under the interpreter
    with pytest.raises(TypeError):
        m._c2t_coarsen([4], 256)


def test_a_bad_setting_is_an_error_at_import():
    from kernel_util import runtime_switch
    assert runtime_switch("coarsen", "_C2T_COARSEN", {"C2T_COARSEN": "4"}) == "'4'"
    assert runtime_switch("coarsen", "_C2T_COARSEN", {"C2T_COARSEN": "four"}).startswith(
        "ValueError: C2T_COARSEN must be auto or a number")


@pytest.mark.parametrize("k, loads, branch", [(1, 1, False), (4, 4, True)])
def test_one_program_each_compiles_to_the_plain_program(monkeypatch, tmp_path, k, loads, branch):
    """C2T_COARSEN == 1 short-circuits the guard at compile time: no branch, one load, as before
    (the PTX of TileGym's geglu, gelu, dropout, silu_and_mul, swiglu, rope, softmax and rms_norm
    kernels compared equal this way, docs/decisions/016-program-coarsening.md)."""
    monkeypatch.setenv("C2T_COARSEN", str(k))
    asm = compile_sm90_asm(SCALE, "run", "torch.randn(2, 1000), 256", tmp_path)["scale"]
    assert asm["ttir"].count("tt.load") == loads
    assert ("scf.if" in asm["ttir"]) is branch
