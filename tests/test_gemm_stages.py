"""GEMM loops get a deeper software pipeline when each program of the launch has an SM to itself
(a skinny or persistent matmul): the translator finds loops with one dot whose reads are all
ct.load tiles of whole array parameters and gives the launcher the bytes one iteration loads;
_c2t_num_stages turns them into num_stages (3 to 8) on the GPU. On the H200, TileGym matmul
128x8192x8192 fp16 took 86 us with 3 stages, 64 us with 6 and 61 us with 8
(docs/decisions/001-gemm-pipeline-depth.md).
No GPU here: torch.cuda is stood in for where the launcher asks it."""
import types

import torch
import triton

from kernel_util import RT, build, translate

GEMM = """
@ct.kernel
def mm(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    bx, by = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(BM, BK))):
        x = ct.load(a, index=(bx, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(k, by), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(bx, by), tile=acc.astype(c.dtype))

def run(a, b, c, bm, bn, bk):
    grid = (ct.cdiv(a.shape[0], bm), ct.cdiv(b.shape[1], bn))
    ct.launch(torch.cuda.current_stream(), grid, mm, (a, b, c, bm, bn, bk))
"""

# attention-style: two dots per iteration (the pipeline depth stays Triton's default)
TWO_DOTS = """
@ct.kernel
def att(q, k, v, o, BM: ConstInt, BN: ConstInt, D: ConstInt):
    bx = ct.bid(0)
    qt = ct.load(q, index=(bx, 0), shape=(BM, D))
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(k, axis=0, shape=(BN, D))):
        kt = ct.load(k, index=(j, 0), shape=(BN, D))
        s = ct.mma(qt, ct.transpose(kt), ct.zeros((BM, BN), dtype=ct.float32))
        vt = ct.load(v, index=(j, 0), shape=(BN, D))
        acc = ct.mma(s.astype(vt.dtype), vt, acc)
    ct.store(o, index=(bx, 0), tile=acc.astype(o.dtype))

def run(q, k, v, o):
    ct.launch(torch.cuda.current_stream(), (q.shape[0] // 16,), att, (q, k, v, o, 16, 16, 16))
"""

# the loop's loads happen in a helper function: the launcher cannot size them
HELPER_LOADS = """
def tile_of(a, i, k, BM: ConstInt, BK: ConstInt):
    return ct.load(a, index=(i, k), shape=(BM, BK))

@ct.kernel
def mm(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(4):
        acc = ct.mma(tile_of(a, ct.bid(0), k, BM, BK), ct.load(b, index=(k, 0), shape=(BK, BN)), acc)
    ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))
"""

# a gathered operand: its bytes per iteration are not a tile shape
GATHER = """
@ct.kernel
def mm(a, b, idx, c, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(4):
        rows = ct.load(idx, index=(0,), shape=(BM,))
        x = ct.gather(a, (rows[:, None], ct.arange(BK, dtype=ct.int32)[None, :] + k * BK))
        acc = ct.mma(x, ct.load(b, index=(k, 0), shape=(BK, BN)), acc)
    ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))
"""


def _stages_call(code: str) -> str:
    return next(ln.strip() for ln in code.splitlines() if "num_stages=_c2t_num_stages(" in ln)


def test_gemm_loop_gives_the_launcher_its_bytes_per_iteration():
    res = translate(GEMM)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert _stages_call(res.code) == ('num_stages=_c2t_num_stages(launch_mm, (BM, BN, BK), '
                                      'a.element_size() * BM * BK + b.element_size() * BK * BN, grid),')


def test_loops_that_are_not_gemm_loops_keep_the_default_depth():
    for src in (TWO_DOTS, HELPER_LOADS, GATHER):
        res = translate(src)
        assert res.ok, "\n".join(d.format() for d in res.diagnostics)
        call = _stages_call(res.code)
        assert call.endswith("),") and ", grid)" not in call, call


def test_deep_stages_rule(tmp_path):
    mod = build(GEMM, tmp_path)
    deep = RT._c2t_deep_stages
    assert deep(2 * (128 * 32 + 32 * 128), 64, 132) == 8       # skinny matmul, 128x128x32 fp16: 16 KiB
    assert deep(2 * (128 * 32 + 32 * 64), 64, 132) == 8        # 12 KiB: 16 would fit, 8 at most
    assert deep(2 * (128 * 64 + 64 * 128), 132, 132) == 6      # persistent, one program per SM
    assert deep(2 * (128 * 64 + 64 * 256), 132, 132) == 4      # 48 KiB a stage
    assert deep(2 * (256 * 64 + 64 * 256), 32, 132) == 3       # 64 KiB: what fits, never below 3
    assert deep(2 * (128 * 32 + 32 * 128), 133, 132) == 3      # more programs than SMs
    assert deep(0, 1, 132) == 3


def _fake_gpu(monkeypatch, mod, sms):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(mod.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(mod.torch.cuda, "get_device_properties",
                        lambda d: types.SimpleNamespace(multi_processor_count=sms))
    RT._C2T_DEEP.clear()
    RT._C2T_STAGES.clear()


def test_launcher_deepens_the_pipeline_of_grids_with_an_sm_per_program(tmp_path, monkeypatch):
    mod = build(GEMM, tmp_path)
    _fake_gpu(monkeypatch, mod, sms=132)
    tried = []
    monkeypatch.setattr(mod, "_c2t_run", lambda kernel, grid, args, **opts: tried.append((grid, opts["num_stages"])))
    a, b = torch.zeros(128, 8192, dtype=torch.float16), torch.zeros(8192, 8192, dtype=torch.float16)
    c = torch.zeros(128, 8192, dtype=torch.float16)
    mod.run(a, b, c, 128, 128, 32)                  # 64 programs, 16 KiB a stage: 8
    big = torch.zeros(4096, 8192, dtype=torch.float16)
    mod.run(big, b, torch.zeros(4096, 8192, dtype=torch.float16), 128, 128, 32)   # 2048 programs
    a32, b32 = a.float(), b.float()
    mod.run(a32, b32, c.float(), 128, 128, 32)      # fp32 operands: 32 KiB a stage, still 6
    mod.run(a32, b32, c.float(), 128, 128, 128)     # 128 KiB a stage: 3
    assert tried == [((1, 64), 8), ((32, 64), 3), ((1, 64), 6), ((1, 64), 3)]


def test_shared_memory_retry_of_a_deep_pipeline_does_not_touch_wide_grids(tmp_path, monkeypatch):
    """Running out of shared memory at 8 stages retries with 7, 6... for that launch shape; a launch of
    the same tiles over more programs than SMs still starts from 3."""
    mod = build(GEMM, tmp_path)
    _fake_gpu(monkeypatch, mod, sms=132)
    tried = []

    class FakeKernel:
        def __getitem__(self, grid):
            def launch(*args, num_stages, **kw):
                tried.append(num_stages)
                if num_stages > 4:
                    raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")
            return launch
    mod.mm = FakeKernel()
    monkeypatch.setattr(mod, "_c2t_run", lambda kernel, grid, args, **opts: kernel[grid](*args, **opts))
    b = torch.zeros(8192, 8192, dtype=torch.float16)
    mod.run(torch.zeros(128, 8192, dtype=torch.float16), b, torch.zeros(128, 8192, dtype=torch.float16), 128, 128, 32)
    assert tried == [8, 7, 6, 5, 4]
    mod.run(torch.zeros(4096, 8192, dtype=torch.float16), b, torch.zeros(4096, 8192, dtype=torch.float16),
            128, 128, 32)
    assert tried[5:] == [3]
    mod.run(torch.zeros(128, 8192, dtype=torch.float16), b, torch.zeros(128, 8192, dtype=torch.float16), 128, 128, 32)
    assert tried[6:] == [4]                         # remembered for that launch shape


def test_gemm_loop_results_under_the_interpreter(tmp_path):
    """The translation with the new launcher argument still computes the product (ragged edges)."""
    mod = build(GEMM, tmp_path)
    a, b = torch.randn(37, 70), torch.randn(70, 45)
    c = torch.empty(37, 45)
    mod.run(a, b, c, 16, 16, 16)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


# TileGym's matmul loads the same tile with or without a latency hint, in the two branches of a
# Constant `if`: an iteration runs one of them
BRANCHES = """
@ct.kernel
def mm(a, b, c, BM: ConstInt, BN: ConstInt, BK: ConstInt, LAT: ConstInt, WIDE: ConstInt):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(4):
        if LAT >= 1:
            x = ct.load(a, index=(ct.bid(0), k), shape=(BM, BK), latency=LAT)
        else:
            x = ct.load(a, index=(ct.bid(0), k), shape=(BM, BK))
        if WIDE >= 1:
            y = ct.load(b, index=(k, 0), shape=(BK, BN))
        else:
            y = ct.load(b, index=(k, 0), shape=(BK, BN // 2))
            y = ct.cat((y, y), axis=1)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(ct.bid(0), 0), tile=acc.astype(c.dtype))
"""


def test_identical_branches_count_once_and_different_ones_both():
    res = translate(BRANCHES)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    assert _stages_call(res.code) == (
        'num_stages=_c2t_num_stages(launch_mm, (BM, BN, BK, LAT, WIDE), a.element_size() * BM * BK + '
        'b.element_size() * BK * BN + b.element_size() * BK * (BN // 2), grid),')
