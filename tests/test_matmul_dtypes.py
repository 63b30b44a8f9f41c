"""ct.matmul of fp64 operands accumulates in fp64 (cuTile's accumulator for fp64), mixed with fp16/
bf16/fp32 operands too; ct.mma of fp8 operands into an fp16 accumulator. Numerics under the
interpreter (through the shim) and compilation for sm_90 (kernel_util.compile_sm90: Triton's
compiler refused the fp16/bf16 -> fp64 dot and the small-K fp8 -> fp16 product). Our own programs."""
import pytest

from test_shim import _run, _script

MATMUL = """
import torch
import cuda.tile as ct

@ct.kernel
def mm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    a = ct.load(A, index=(0, 0), shape=(tm, tk))
    b = ct.load(B, index=(0, 0), shape=(tk, tn))
    ct.store(C, index=(0, 0), tile=ct.matmul(a, b))

s = torch.cuda.current_stream()
A = torch.full((4, 16), 1 + 2 ** -40, dtype=torch.float64, device="cuda")
for bdt in (torch.float64, torch.float32, torch.bfloat16, torch.float16):
    B = torch.ones(16, 8, dtype=bdt, device="cuda")
    C = torch.zeros(4, 8, dtype=torch.float64, device="cuda")
    ct.launch(s, (1,), mm, (A, B, C, 4, 8, 16))
    want = A @ B.to(torch.float64)          # 16 + 2^-36: lost in an fp32 accumulator
    assert torch.equal(C, want), (bdt, (C - 16).max().item())
print("RESULT OK")
"""


def test_fp64_matmul_accumulates_in_fp64(tmp_path):
    r = _run([str(_script(tmp_path, "mm.py", MATMUL))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


SRC = """
@ct.kernel
def mma_k(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(tm, tk)), ct.load(B, index=(0, 0), shape=(tk, tn)),
                 ct.load(C, index=(0, 0), shape=(tm, tn)))
    ct.store(C, index=(0, 0), tile=acc)

@ct.kernel
def mm_k(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    ct.store(C, index=(0, 0), tile=ct.matmul(ct.load(A, index=(0, 0), shape=(tm, tk)),
                                             ct.load(B, index=(0, 0), shape=(tk, tn))))

def run_mma(A, B, C, m, n, k):
    ct.launch(torch.cuda.current_stream(), (1,), mma_k, (A, B, C, m, n, k))

def run_mm(A, B, C, m, n, k):
    ct.launch(torch.cuda.current_stream(), (1,), mm_k, (A, B, C, m, n, k))
"""


def _args(a, b, c, m, n, k):
    return (f"(torch.ones({m}, {k}).to(torch.{a}), torch.ones({k}, {n}).to(torch.{b}), "
            f"torch.zeros({m}, {n}).to(torch.{c}), {m}, {n}, {k})")


@pytest.mark.parametrize("a,b", [("float64", "float64"), ("bfloat16", "float64"), ("float64", "float16"),
                                 ("float32", "float64")])
def test_fp64_matmul_compiles_for_sm90(tmp_path, a, b):
    from kernel_util import compile_sm90
    out = compile_sm90(SRC, "run_mm", _args(a, b, "float64", 2, 8, 16), tmp_path)
    assert "OK" in out, out


@pytest.mark.parametrize("k", [16, 32])
@pytest.mark.parametrize("dt", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_mma_into_fp16_compiles_for_sm90(tmp_path, dt, k):
    from kernel_util import compile_sm90
    out = compile_sm90(SRC, "run_mma", _args(dt, dt, "float16", 16, 16, k), tmp_path)
    assert "OK" in out, out


LOOPED = """
@ct.kernel
def mma_loop(A, B, C, tk: ct.Constant[int]):
    acc = ct.load(C, (0, 0), (16, 16))
    for k in range(16 // tk):
        acc = ct.mma(ct.load(A, (0, k), (16, tk)), ct.load(B, (k, 0), (tk, 16)), acc)
    ct.store(C, (0, 0), acc)

def run_loop(A, B, C, k):
    ct.launch(torch.cuda.current_stream(), (1,), mma_loop, (A, B, C, k))
"""


@pytest.mark.parametrize("k", [1, 4, 8])
def test_small_k_fp16_mma_into_fp16_compiles_for_sm90(tmp_path, k):
    """fp16 operands into an fp16 accumulator with K < 16 (a broadcast multiply-sum): Triton's
    TritonCombineOps pass failed on its fp16 form ('PassManager::run failed', cutile-python's
    test_cudagraph matmul); summed in fp32 and rounded once it compiles. In a loop and alone."""
    from kernel_util import compile_sm90
    out = compile_sm90(SRC, "run_mma", _args("float16", "float16", "float16", 16, 16, k), tmp_path)
    assert "OK" in out, out
    out = compile_sm90(LOOPED, "run_loop", f"(torch.ones(16, 16).half(), torch.ones(16, 16).half(), "
                                           f"torch.zeros(16, 16).half(), {k})", tmp_path)
    assert "OK" in out, out


MMA_DTYPES = """
import torch
import cuda.tile as ct

@ct.kernel
def mma_k(A, B, C):
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(2, 2)), ct.load(B, index=(0, 0), shape=(2, 2)),
                 ct.load(C, index=(0, 0), shape=(2, 2)))
    ct.store(C, index=(0, 0), tile=acc)

@ct.kernel
def mm_k(A, B, C):
    ct.store(C, index=(0, 0), tile=ct.load(A, index=(0, 0), shape=(2, 2)) @ ct.load(B, index=(0, 0), shape=(2, 2)))

s = torch.cuda.current_stream()
t = lambda dt: torch.ones(2, 2, device="cuda").to(dt)
for k, (x, y, c), msg in ((mma_k, (torch.float16, torch.bfloat16, torch.float32), "x and y must have the same dtype"),
                          (mma_k, (torch.int16, torch.int16, torch.int32), "Unsupported input dtype int16"),
                          (mma_k, (torch.bfloat16, torch.bfloat16, torch.float16), "Unsupported acc dtype float16"),
                          (mma_k, (torch.float32, torch.float32, torch.float64), "Unsupported acc dtype float64"),
                          (mm_k, (torch.int32, torch.int32, torch.int32), "Unsupported input dtype int32"),
                          (mma_k, (torch.int8, torch.uint8, torch.int32), None),
                          (mma_k, (torch.float16, torch.float16, torch.float16), None),
                          (mm_k, (torch.uint8, torch.uint8, torch.uint8), None)):
    C = t(c)
    try:
        ct.launch(s, (1,), k, (t(x), t(y), C))
    except ct.TileTypeError as e:
        assert msg is not None and msg in str(e), (x, y, c, str(e))
    else:
        assert msg is None, (x, y, c, "no TileTypeError")
        assert C.double().tolist() == [[2 + (k is mma_k)] * 2] * 2, (x, y, c, C)
print("RESULT OK")
"""


def test_mma_dtypes_are_checked_as_cutile_does(tmp_path):
    r = _run([str(_script(tmp_path, "mmad.py", MMA_DTYPES))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


MATMUL_PROMOTION = """
import torch
import cuda.tile as ct

@ct.kernel
def mm_k(A, B, C):
    ct.store(C, index=(0, 0), tile=ct.matmul(ct.load(A, index=(0, 0), shape=(4, 4)), ct.load(B, index=(0, 0), shape=(4, 4))))

@ct.kernel
def mm_batched(A, B, C):
    a = ct.load(A, index=(0, 0, 0), shape=(2, 4, 4))
    ct.store(C, index=(0, 0, 0), tile=a @ ct.load(B, index=(0, 0), shape=(4, 4)))

@ct.kernel
def mma_fast(A, B, C, fast: ct.Constant[bool]):
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(4, 4)), ct.load(B, index=(0, 0), shape=(4, 4)),
                 ct.load(C, index=(0, 0), shape=(4, 4)), use_fast_acc=fast)
    ct.store(C, index=(0, 0), tile=acc)

@ct.kernel
def mma_fast_literal(A, B, C):
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(4, 4)), ct.load(B, index=(0, 0), shape=(4, 4)),
                 ct.load(C, index=(0, 0), shape=(4, 4)), use_fast_acc=True)
    ct.store(C, index=(0, 0), tile=acc)

s = torch.cuda.current_stream()
t = lambda dt, *shape: torch.ones(*(shape or (4, 4)), device="cuda").to(dt)
f16, bf16, f32, i8, u8, e5 = torch.float16, torch.bfloat16, torch.float32, torch.int8, torch.uint8, torch.float8_e5m2
cases = ((mm_k, (f16, bf16, f32), "Implicit promotion of float16 and bfloat16 is not supported"),
         (mm_k, (bf16, f16, f32), "Implicit promotion of bfloat16 and float16 is not supported"),
         (mm_k, (u8, i8, torch.int32), "Implicit promotion of uint8 and int8 is not supported"),
         (mm_k, (e5, f32, f32), "Implicit promotion of float8_e5m2 and float32 is not supported"),
         (mm_batched, (f16, bf16, f32), "Implicit promotion of float16 and bfloat16"),
         (mm_k, (torch.int16, i8, torch.int16), "Unsupported input dtype int16"),
         (mm_k, (f16, f32, f32), None), (mm_k, (bf16, i8, bf16), None), (mm_k, (i8, i8, i8), None),
         (mm_batched, (f32, f16, f32), None))
for k, (x, y, c), msg in cases:
    A = t(x, 2, 4, 4) if k is mm_batched else t(x)
    C = t(c, 2, 4, 4) if k is mm_batched else t(c)
    try:
        ct.launch(s, (1,), k, (A, t(y), C))
    except ct.TileTypeError as e:
        assert msg is not None and msg in str(e), (x, y, c, str(e))
    else:
        assert msg is None, (x, y, c, "no TileTypeError")
        assert C.double().flatten().tolist() == [4.0] * C.numel(), (x, y, c, C)
fast = "use_fast_acc is only supported for fp8 input dtypes (float8_e4m3fn, float8_e5m2), got "
for k, x, c, args, msg in ((mma_fast, f16, f16, (True,), fast + "float16"), (mma_fast, f32, f32, (True,), fast + "float32"),
                           (mma_fast_literal, bf16, f32, (), fast + "bfloat16"), (mma_fast, f16, f32, (False,), None),
                           (mma_fast, e5, f16, (True,), None), (mma_fast_literal, torch.float8_e4m3fn, f32, (), None)):
    C = t(c)
    try:
        ct.launch(s, (1,), k, (t(x), t(x), C) + args)
    except ct.TileTypeError as e:
        assert msg is not None and msg in str(e), (k, x, str(e))
    else:
        assert msg is None, (k, x, "no TileTypeError")
        assert C.double().flatten().tolist() == [5.0] * 16, (k, x, C)
print("RESULT OK")
"""


def test_matmul_promotion_and_fast_acc_are_checked_as_cutile_does(tmp_path):
    r = _run([str(_script(tmp_path, "mmp.py", MATMUL_PROMOTION))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
