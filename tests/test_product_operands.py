"""Which products' B operands may come from another product (translator/lower/product_operands.py):
the lowering marks the others `B_FROM_MMA=False`, and with C2T_NARROW=products _c2t_mma keeps
Triton's warpgroup MMA for those narrow products (docs/gpu-runs/sync-wgmma-2026-11-30.md)."""
import re

import pytest
import torch

from kernel_util import build, compile_sm90, translate

# TileGym's decode pattern, one tile: qk = k @ q (B loaded), p from qk, acc = v^T @ p (B from a product)
DECODE = """
@ct.kernel
def k(Q, K, V, O, G: ConstInt, D: ConstInt, N: ConstInt):
    q = ct.load(Q, index=(0, 0), shape=(D, G))
    kt = ct.load(K, index=(0, 0), shape=(N, D))
    qk = ct.mma(kt, q, ct.zeros((N, G), dtype=ct.float32))
    p = ct.exp(qk - ct.max(qk, axis=0, keepdims=True))
    vt = ct.load(V, index=(0, 0), shape=(D, N))
    acc = ct.mma(vt, p.astype(V.dtype), ct.zeros((D, G), dtype=ct.float32))
    ct.store(O, index=(0, 0), tile=acc / ct.sum(p, axis=0, keepdims=True))

def run(q, kk, v):
    o = torch.empty((v.shape[0], q.shape[1]), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (q, kk, v, o, q.shape[1], q.shape[0], kk.shape[0]))
    return o
"""


def _calls(code: str) -> list:
    """The kernel's `_c2t_mma(...)` / `_c2t_matmul(...)` calls, in order."""
    return re.findall(r"= (_c2t_(?:mma|matmul)\(.*\))", code)


def test_decode_pattern_marks_the_loaded_operand_only():
    calls = _calls(translate(DECODE).code)
    assert calls == ['_c2t_mma(kt, q, tl.zeros([N, G], tl.float32), "ieee", B_FROM_MMA=False)',
                     '_c2t_mma(vt, p.to(V.dtype.element_ty), tl.zeros([D, G], tl.float32), "ieee")'], calls


@pytest.mark.parametrize("b, marked", [
    ("y", True),                                    # loaded
    ("ct.transpose(y) * 2.0", True),                # computed from a loaded tile
    ("max(y, y)", True),                            # a builtin of loaded tiles
    ("ct.load(B, index=(ct.max(x @ y).astype(ct.int32) * 0, 0), shape=(K, N))", True),   # loaded, whatever the index
    ("(x @ y).astype(ct.float16)", False),          # another product, as `@`
    ("ct.matmul(x, y)", False),                     # ... as ct.matmul
    ("helper(y)", False),                           # a device function: not seen into
    ("z", False),                                   # assigned from a product later in the loop
])
def test_b_operand_provenance(b, marked):
    src = f"""
    def helper(t):
        return t

    @ct.kernel
    def k(A, B, C, M: ConstInt, N: ConstInt, K: ConstInt):
        x = ct.load(A, index=(0, 0), shape=(M, K))
        y = ct.load(B, index=(0, 0), shape=(K, N))
        z = y
        acc = ct.zeros((M, N), dtype=ct.float32)
        for i in range(2):
            acc = ct.mma(x, {b}, acc)
            z = (x @ y).astype(ct.float16)
        ct.store(C, index=(0, 0), tile=acc)
    """
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    call = next(c for c in _calls(res.code) if c.startswith("_c2t_mma(x"))
    assert call.endswith("B_FROM_MMA=False)") == marked, call


def test_local_functions_are_not_followed():
    """A lambda's parameter may be anything its callers pass (here a product): its product with it
    as B stays unmarked, as does a product whose B is a local function's result."""
    src = """
    @ct.kernel
    def k(A, B, C, M: ConstInt, N: ConstInt, K: ConstInt):
        x = ct.load(A, index=(0, 0), shape=(M, K))
        y = ct.load(B, index=(0, 0), shape=(K, N))
        g = lambda t: ct.mma(x, t, ct.zeros((M, N), dtype=ct.float32))
        f = lambda t: t
        acc = g(x @ y) + ct.mma(x, f(y), ct.zeros((M, N), dtype=ct.float32))
        ct.store(C, index=(0, 0), tile=acc)
    """
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    for call in ('_c2t_matmul(x, y, "ieee", B_FROM_MMA=False)',      # x @ y: y loaded
                 'return _c2t_mma(x, t, tl.zeros([M, N], tl.float32), "ieee")\n',     # g, hoisted
                 '_c2t_mma(x, _k_f(y), tl.zeros([M, N], tl.float32), "ieee")\n'):
        assert call in res.code, call


def test_device_function_parameters_may_be_products_but_constants_are_not():
    src = """
    def body(t, A, S: ConstInt):
        u = ct.load(A, index=(0, 0), shape=(S, S))
        return ct.mma(u, ct.reshape(u, (S, S)), ct.zeros((S, S), dtype=ct.float32)) + \\
            ct.mma(u, t, ct.zeros((S, S), dtype=ct.float32))

    @ct.kernel
    def k(A, C, S: ConstInt):
        t = ct.load(A, index=(0, 0), shape=(S, S))
        ct.store(C, index=(0, 0), tile=body(t, A, S))
    """
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    line = next(ln for ln in res.code.splitlines() if "_c2t_mma(u" in ln)
    calls = line.split(" + ")
    assert len(calls) == 2 and calls[0].endswith('"ieee", B_FROM_MMA=False)') and calls[1].endswith('"ieee")'), line


@pytest.mark.parametrize("mode", ["all", "products"])
def test_decode_pattern_computes_the_same_either_way(tmp_path, monkeypatch, mode):
    """Interpreter: the products are right in both modes (the transposed form is exact too)."""
    monkeypatch.setenv("C2T_NARROW", mode)
    mod = build(DECODE, tmp_path)
    g = torch.Generator().manual_seed(0)
    q, kk, v = (torch.randn(*s, generator=g).half() for s in ((64, 16), (64, 64), (64, 64)))
    qk = kk.double() @ q.double()
    p = torch.exp(qk - qk.max(0, keepdim=True).values)
    want = (v.double().t() @ p.half().double()) / p.sum(0, keepdim=True)
    torch.testing.assert_close(mod.run(q, kk, v.t().contiguous()).double(), want, rtol=2e-3, atol=2e-3)


def test_products_mode_keeps_warpgroup_mma_for_a_loaded_narrow_operand(tmp_path, monkeypatch):
    """sm_90 compiles: by default both narrow products are mma.sync; with C2T_NARROW=products the
    first (B loaded) is a warpgroup MMA and the second (B from the first) stays mma.sync."""
    args = "(torch.randn(64, 16).half(), torch.randn(64, 64).half(), torch.randn(64, 64).half())"
    monkeypatch.delenv("C2T_NARROW", raising=False)
    both = compile_sm90(DECODE, "run", args, tmp_path)
    assert "OK k" in both and " wgmma=False mma.sync=True " in both, both
    monkeypatch.setenv("C2T_NARROW", "products")
    mixed = compile_sm90(DECODE, "run", args, tmp_path)
    assert "OK k" in mixed and " wgmma=True mma.sync=True " in mixed, mixed
    # in neither is a synchronous warpgroup MMA fed by an MMA result (the miscompile's signature)
    assert " mma_fed_sync=-" in both and " mma_fed_sync=-" in mixed, (both, mixed)


_SIGNATURE = """
import sys
sys.path.insert(0, {tests!r})
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from compile_sm90 import mma_fed_sync_dots

@triton.jit
def two_dots(X, Y, A, C, reps, N: tl.constexpr, LOOP: tl.constexpr, B_DOT: tl.constexpr):
    i = tl.arange(0, 64)
    n = tl.arange(0, N)
    acc = tl.zeros([128, N], tl.float32)
    for _ in range(reps if LOOP else 1):
        a = tl.load(A + tl.arange(0, 128)[:, None] * 64 + i[None, :])
        b = tl.load(Y + i[:, None] * N + n[None, :])
        if B_DOT:       # B (64, N) is another product's result
            b = tl.dot(tl.load(X + i[:, None] * 64 + i[None, :]), b).to(tl.float16)
        acc = tl.dot(a, b, acc)
    tl.store(C + tl.arange(0, 128)[:, None] * N + n[None, :], acc)

for n, loop, b_dot in ((16, False, True), (32, False, True), (16, False, False), (16, True, True)):
    src = ASTSource(two_dots, signature={{"X": "*fp16", "Y": "*fp16", "A": "*fp16", "C": "*fp32", "reps": "i32",
                                         "N": "constexpr", "LOOP": "constexpr", "B_DOT": "constexpr"}},
                    constexprs={{"N": n, "LOOP": loop, "B_DOT": b_dot}})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32))
    print(n, loop, b_dot, mma_fed_sync_dots(k.asm["ttgir"]))
"""


def test_the_miscompile_signature_is_recognized(tmp_path):
    """compile_sm90.mma_fed_sync_dots finds what the H200 computed wrongly (tests/gpu/probe_sync_dots.py
    --b dot: a synchronous warpgroup MMA whose B is another product's result, N = 16 or 32) and not
    what it computed right (B loaded; the same in a pipelined loop)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    prog = tmp_path / "signature.py"       # Triton reads a @jit function's source from its file
    prog.write_text(_SIGNATURE.format(tests=str(Path(__file__).resolve().parent)))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.splitlines() == ["16 False True [16]", "32 False True [32]", "16 False False []",
                                     "16 True True []"], r.stdout


def test_narrow_mode_is_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("C2T_NARROW", "some")
    with pytest.raises(ValueError, match="C2T_NARROW must be all or products"):
        build(DECODE, tmp_path)
