"""Issue 4, first idiom: in-kernel tensor descriptors (TMA) for 2-D+ ct.load/ct.store.

The generated launcher decides per array and per launch whether the descriptor path is legal
(`<array>_TMA` constexpr); the interpreter runs both paths on CPU tensors when the module switch
`_C2T_TMA_MODE` is "on" (the default "small" uses descriptors for CUDA tensors in launches of fewer
programs than the GPU has SMs, or at most as many for kernels with a GEMM loop, "auto" for all CUDA
tensors, "off" never). The
interpreter enforces the copy engine's alignment rules, so a launcher that let an illegal array
through would fail these tests instead of killing a GPU context.
"""
import os
from types import SimpleNamespace

import pytest
import torch

from conftest import ROOT
from kernel_util import RT, build, compile_sm90, translate

pytestmark = pytest.mark.skipif(not os.environ.get("TRITON_INTERPRET"), reason="needs TRITON_INTERPRET=1")

TILED = """
@ct.kernel
def scale2d(x, y, alpha, BM: ConstInt, BN: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    u = t * alpha + 1.0
    ct.store(y, index=(i, j), tile=ct.astype(u, y.dtype))


def run(x, y, bm, bn, alpha=2.0):
    grid = (ct.cdiv(x.shape[0], bm), ct.cdiv(x.shape[1], bn))
    ct.launch(None, grid, scale2d, (x, y, alpha, bm, bn))
    return y
"""


def _spy(monkeypatch):
    """Record what the launcher decided for every array (True: descriptor path)."""
    seen = []
    real = RT._c2t_tma

    def spy(a, blocks, grid=None, looped=True, gemm=False):
        r = real(a, blocks, grid, looped, gemm)
        seen.append(r)
        return r
    monkeypatch.setattr(RT, "_c2t_tma", spy)
    return seen


@pytest.fixture
def tiled(tmp_path):
    return build(TILED, tmp_path)


def test_generated_code_has_descriptor_prologue_and_fallback():
    code = translate(TILED).code
    body = code[code.index("def scale2d("):code.index("def launch_scale2d")]
    assert "x_TMA: tl.constexpr" in body and "y_TMA: tl.constexpr" in body
    assert 'x_desc_0 = _c2t_desc_2d(x, x_shape_0, x_shape_1, x_stride_0, BM, BN, "zero", x_TMA)' in body
    assert 'y_desc_0 = _c2t_desc_2d(y, y_shape_0, y_shape_1, y_stride_0, BM, BN, "zero", y_TMA)' in body
    # descriptors are made before anything else in the body
    assert body.index("x_desc_0 = ") < body.index("tl.program_id(0)")
    assert "x_desc_0.load([i * BM, j * BN]) if x_TMA else _c2t_load_2d(" in body
    assert "y_desc_0.store([i * BM, j * BN], " in body and "if y_TMA else _c2t_store_2d(" in body
    launcher = code[code.index("def launch_scale2d"):]
    # one tile per program, not in a loop: the default mode keeps pointers for it (see _c2t_tma)
    assert '*_c2t_array(x, 2, "x", tma=((BM, BN),), grid=grid, looped=False)' in launcher
    assert '*_c2t_array(y, 2, "y", tma=((BM, BN),), grid=grid, looped=False)' in launcher
    from translator.paths import RUNTIME_DIR        # (the allocator: the runtime's, which the module imports)
    assert "triton.set_allocator(_c2t_tma_scratch)" in (RUNTIME_DIR / "tma.py").read_text()
    assert "from translator.runtime.launch import" in code and "_c2t_array" in code


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("shape", [(64, 64), (70, 52), (33, 96)])      # exact and ragged edges
def test_both_paths_match_torch(monkeypatch, tiled, dtype, shape):
    x = torch.randn(*shape).to(dtype)
    ref = (x.float() * 2.0 + 1.0).to(dtype)
    for mode in ("on", "off"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        seen = _spy(monkeypatch)
        y = torch.full(shape, -7.0, dtype=dtype)
        tiled.run(x, y, 32, 32)
        torch.testing.assert_close(y, ref, rtol=1e-3, atol=1e-3)
        legal = (shape[1] * x.element_size()) % 16 == 0     # row stride in bytes
        assert seen == ([legal, legal] if mode == "on" else [False, False]), (mode, seen)


@pytest.mark.parametrize("mode", ["small", "auto"])
def test_default_mode_keeps_pointers_for_cpu_tensors(monkeypatch, tiled, mode):
    assert RT._C2T_TMA_MODE == os.environ.get("C2T_TMA", "small")
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
    seen = _spy(monkeypatch)
    x = torch.randn(64, 64)
    y = tiled.run(x, torch.empty(64, 64), 32, 32)
    torch.testing.assert_close(y, x * 2 + 1)
    assert seen == [False, False]


class _CudaLike:
    """What _c2t_tma reads of a CUDA tensor (no GPU here): a 64x64 fp16, 16-byte aligned."""
    is_cuda = True
    dtype = torch.float16
    shape = (64, 64)

    def get_device(self):
        return 0

    def element_size(self):
        return 2

    def numel(self):
        return 64 * 64

    def stride(self, dim=None):
        return (64, 1) if dim is None else (64, 1)[dim]

    def data_ptr(self):
        return 1 << 20


LOOPED = """
@ct.kernel
def rowsum(x, out, BM: ConstInt, BN: ConstInt):
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(BM, BN))):
        acc += ct.astype(ct.load(x, index=(i, k), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(i, 0), tile=ct.astype(acc, out.dtype))
"""


def test_launcher_tells_looped_arrays_apart():
    """An array whose tiles a loop moves is `looped` (the default), one moved once per program is not."""
    code = translate(LOOPED).code
    launcher = code[code.index("def launch_rowsum"):]
    assert '*_c2t_array(x, 2, "x", tma=((BM, BN),), grid=grid),' in launcher
    assert '*_c2t_array(out, 2, "out", tma=((BM, BN),), grid=grid, looped=False),' in launcher


def test_launcher_marks_arrays_of_gemm_kernels():
    """Arrays of a kernel with a GEMM loop carry `gemm=True` (descriptors also in a grid of one
    program per SM); a kernel without one (rowsum) does not."""
    code = translate((ROOT / "examples" / "matmul.py").read_text()).code
    launcher = code[code.index("def launch_matmul"):]
    assert '*_c2t_array(a, 2, "a", tma=((BM, BK),), grid=grid, gemm=True),' in launcher
    assert '*_c2t_array(c, 2, "c", tma=((BM, BN),), grid=grid, looped=False, gemm=True),' in launcher
    assert "gemm=True" not in translate(LOOPED).code


TUNED = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search
""" + LOOPED + """

def search(x, out):
    configs = [SimpleNamespace(BM=8, occupancy=1), SimpleNamespace(BM=16, occupancy=3)]
    return exhaustive_search(configs, torch.cuda.current_stream(),
                             lambda cfg: (ct.cdiv(x.shape[0], cfg.BM) * cfg.occupancy,), rowsum,
                             lambda cfg: (x, out, cfg.BM, 16), quiet=True)


def search_hinted(x, out):
    # a kernel re-hinted before the search (its META launch takes the config grid too)
    return exhaustive_search([SimpleNamespace(BM=8), SimpleNamespace(BM=16)], torch.cuda.current_stream(),
                             lambda cfg: (ct.cdiv(x.shape[0], cfg.BM),), rowsum.replace_hints(occupancy=2),
                             lambda cfg: (x, out, cfg.BM, 16), quiet=True)
"""


def test_search_decides_descriptors_with_each_configs_grid(monkeypatch, tmp_path):
    """exhaustive_search times each config as @triton.autotune from the kernel's META launch: the
    descriptor choice there must see the config's grid, as the launch after the search does (it
    saw none before, so a persistent GEMM was tuned with masked pointers and then launched with
    descriptors, or the other way round)."""
    mod = build(TUNED, tmp_path)
    grids = []
    real = RT._c2t_tma

    def spy(a, blocks, grid=None, looped=True, gemm=False):
        grids.append(grid)
        return real(a, blocks, grid, looped, gemm)
    monkeypatch.setattr(RT, "_c2t_tma", spy)
    code = translate(TUNED).code
    meta = code[code.index("def _c2t_meta_rowsum"):]
    assert '*_c2t_array(x, 2, "x", tma=((BM, BN),), grid=c2t_grid),' in meta
    x = torch.randn(32, 48)
    out = torch.zeros(32, 16)
    res = mod.search(x, out)
    assert len(res.successes) == 2 and not res.failures
    assert {(4,), (6,)} <= set(grids) and None not in grids, grids
    torch.testing.assert_close(out, x.view(32, 3, 16).sum(1), rtol=1e-4, atol=1e-4)
    grids.clear()
    out.zero_()
    res = mod.search_hinted(x, out)
    assert len(res.successes) == 2 and {(4,), (2,)} <= set(grids), grids
    torch.testing.assert_close(out, x.view(32, 3, 16).sum(1), rtol=1e-4, atol=1e-4)


def test_small_mode_uses_descriptors_below_one_program_per_sm(tiled, monkeypatch):
    """Default "small": a launch of fewer programs than SMs moves legal tiles by TMA (MLA decoding
    B=1 is one program, B=128 128 programs) when the kernel moves them in a loop, and so does one
    of exactly one program per SM when the kernel has a GEMM loop (a persistent GEMM); a full
    grid, a META grid not known to the launcher, or an array whose tiles are moved once per
    program keeps pointers. A legal descriptor launch installs the scratch allocator."""
    import triton
    installed = []
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: SimpleNamespace(multi_processor_count=132))
    monkeypatch.setattr(triton, "set_allocator", installed.append)
    monkeypatch.setattr(RT, "_c2t_allocation", None)
    RT._C2T_SMALL.clear()
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "small")
    a, blocks = _CudaLike(), ((32, 32),)
    assert RT._c2t_tma(a, blocks, (1,)) and RT._c2t_tma(a, blocks, (8, 16)) and RT._c2t_tma(a, blocks, (131,))
    assert installed and installed[0] is RT._c2t_tma_scratch
    assert not RT._c2t_tma(a, blocks, (132,)) and not RT._c2t_tma(a, blocks, (12, 12))
    # a kernel with a GEMM loop also in a grid of one program per SM (a persistent GEMM's)
    assert RT._c2t_tma(a, blocks, (132,), gemm=True) and RT._c2t_tma(a, blocks, (66, 2), gemm=True)
    assert not RT._c2t_tma(a, blocks, (133,), gemm=True) and not RT._c2t_tma(a, blocks, (132,))
    assert not RT._c2t_tma(a, blocks, lambda meta: (1,)) and not RT._c2t_tma(a, blocks, None)
    assert not RT._c2t_tma(a, blocks, (1,), looped=False)
    assert not RT._c2t_tma(a, ((32, 4),), (1,))              # 8-byte block rows: illegal anyway
    with pytest.raises(TypeError, match="grid must be a tuple"):
        RT._c2t_tma(a, blocks, [1])
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "auto")
    assert RT._c2t_tma(a, blocks, (132,)) and RT._c2t_tma(a, blocks, None)
    assert RT._c2t_tma(a, blocks, (1,), looped=False)
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "off")
    assert not RT._c2t_tma(a, blocks, (1,))


def test_legality_is_checked_per_layout(tiled, monkeypatch):
    """The rules are cached per (dtype, extents, strides, base alignment, blocks): a tensor of the
    same extents with other strides or a misaligned base is checked again, not served the cached
    answer."""
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")
    a = torch.zeros(64, 64, dtype=torch.float16)
    assert RT._c2t_tma(a, ((32, 32),))
    assert not RT._c2t_tma(torch.zeros(64, 65, dtype=torch.float16)[:, :64], ((32, 32),))   # 130-byte rows
    assert not RT._c2t_tma(torch.zeros(64 * 64 + 1, dtype=torch.float16)[1:].view(64, 64), ((32, 32),))
    assert not RT._c2t_tma(a.t(), ((32, 32),))                                              # last stride 64
    assert RT._c2t_tma(torch.ones(64, 64, dtype=torch.float16), ((32, 32),))


def test_unknown_mode_is_refused():
    from kernel_util import runtime_switch
    assert runtime_switch("tma", "_C2T_TMA_MODE", {"C2T_TMA": "auto"}) == "'auto'"
    assert runtime_switch("tma", "_C2T_TMA_MODE", {"C2T_TMA": "fast"}).startswith(
        "ValueError: C2T_TMA must be small, auto, on or off")


def test_misaligned_view_falls_back(monkeypatch, tiled):
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")
    base = torch.randn(64 * 64 + 1)
    x = base[1:].view(64, 64)                 # data_ptr % 16 == 4
    assert x.data_ptr() % 16 != 0
    seen = _spy(monkeypatch)
    y = tiled.run(x, torch.empty(64, 64), 32, 32)
    torch.testing.assert_close(y, x * 2 + 1)
    assert seen == [False, True]              # x: pointers; y is fine


def test_transposed_view_falls_back(monkeypatch, tiled):
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")
    x = torch.randn(64, 96).t()               # last stride 96, not 1
    seen = _spy(monkeypatch)
    y = tiled.run(x, torch.empty(96, 64), 32, 32)
    torch.testing.assert_close(y, x * 2 + 1)
    assert seen == [False, True]


def test_strided_rows_and_column_slices(monkeypatch, tiled):
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")
    big = torch.randn(70, 80)
    x = big[:, 16:64]                         # last stride 1, row stride 320 B, base offset 64 B: legal
    out = torch.zeros(70, 100)
    y = out[:, :48]
    seen = _spy(monkeypatch)
    tiled.run(x, y, 32, 16)
    torch.testing.assert_close(y, x * 2 + 1)
    assert (out[:, 48:] == 0).all()           # the clipped store stayed inside the view
    assert seen == [True, True]
    x3 = big[:, 3:51]                         # base offset 12 B: illegal
    seen.clear()
    tiled.run(x3, y, 32, 16)
    torch.testing.assert_close(y, x3 * 2 + 1)
    assert seen == [False, True]


def test_narrow_block_falls_back(monkeypatch, tiled):
    """A block row of 2 fp32 (8 bytes) is below the copy engine's 16-byte minimum."""
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")
    x = torch.randn(16, 16)
    seen = _spy(monkeypatch)
    y = tiled.run(x, torch.empty(16, 16), 8, 2)
    torch.testing.assert_close(y, x * 2 + 1)
    assert seen == [False, False]


def test_nan_padding_on_descriptor_path(monkeypatch, tmp_path):
    mod = build("""
@ct.kernel
def rowmax(x, out, BM: ConstInt, BN: ConstInt):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(BM, BN), padding_mode=ct.PaddingMode.NAN)
    ct.store(out, index=(i, 0), tile=ct.astype(ct.isnan(t), ct.int32))


def run(x, out, bm, bn):
    ct.launch(None, (ct.cdiv(x.shape[0], bm),), rowmax, (x, out, bm, bn))
""", tmp_path)
    code = translate("""
@ct.kernel
def k(x, BM: ConstInt):
    t = ct.load(x, index=(0, 0), shape=(BM, BM), padding_mode=ct.PaddingMode.NAN)
    ct.store(x, index=(0, 0), tile=t)
""").code
    # an array that is both read and written keeps the pointer path
    assert "_c2t_desc_" not in code.split("def k(")[1]
    for mode in ("on", "off"):
        monkeypatch.setattr(RT, "_C2T_TMA_MODE", mode)
        seen = _spy(monkeypatch)
        x = torch.randn(20, 12)
        x = torch.cat([x, torch.zeros(20, 4)], 1)[:, :12]      # row stride 64 B: TMA-legal
        out = torch.full((32, 16), -1, dtype=torch.int32)
        mod.run(x, out, 16, 16)
        assert out[:20, :12].sum() == 0 and (out[:20, 12:] == 1).all() and (out[20:] == 1).all()
        assert seen[0] == (mode == "on")


def test_pointer_path_kept_where_descriptors_cannot_serve():
    code = translate("""
@ct.kernel
def k(x, y, z, n, BM: ConstInt):
    a = ct.load(x, index=(0, 0), shape=(BM, BM), padding_mode=ct.PaddingMode.NEG_INF)   # padding
    b = ct.load(y, index=(0, 0), shape=(BM, BM), order="F")                           # order
    c = ct.load(z, index=(0, 0), shape=(BM, BM))
    ct.store(z, index=(1, 0), tile=a + b + c)                                         # read and written
""").code
    assert "_c2t_desc_" not in code.split("def k(")[1]
    assert "_TMA" not in code.split("def k(")[1]


def test_compile_sm90_matmul_uses_tma(tmp_path, monkeypatch):
    """fp16 matmul with TMA-legal operands: the descriptor path compiles to bulk tensor copies
    (and wgmma); with a ragged K, A keeps pointers while B and C still use descriptors; with
    descriptors off the PTX has no bulk tensor copy."""
    src = (ROOT / "examples" / "matmul.py").read_text()
    src = src[src.index("@ct.kernel"):]         # kernel_util supplies the imports
    monkeypatch.setenv("C2T_TMA", "on")
    out = compile_sm90(src, "matmul", "(torch.randn(512, 64).half(), torch.randn(64, 512).half())", tmp_path)
    line = next(ln for ln in out.splitlines() if "matmul_kernel" in ln)
    assert "tma=True" in line and "wgmma=True" in line, out
    out = compile_sm90(src, "matmul", "(torch.randn(128, 70).half(), torch.randn(70, 128).half())", tmp_path)
    assert "tma=True" in out, out
    monkeypatch.setenv("C2T_TMA", "off")
    out = compile_sm90(src, "matmul", "(torch.randn(512, 64).half(), torch.randn(64, 512).half())", tmp_path)
    assert "tma=False" in out, out
