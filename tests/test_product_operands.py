"""Which products may be in a chain where one product's result is another's B operand
(translator/lower/product_operands.py): the lowering marks the others `CHAINED=False`, and with
C2T_NARROW=products _c2t_mma keeps Triton's warpgroup MMA for those narrow products
(docs/decisions/010-narrow-products-transposed.md)."""
import re

import pytest
import torch

from kernel_util import build, compile_sm90, translate
from narrow_programs import DECODE



def _calls(code: str) -> list:
    """The kernel's `_c2t_mma(...)` / `_c2t_matmul(...)` calls, in order."""
    blocks = re.split(r"\n(?=@triton\.jit\ndef )", code)     # not the prelude's own helpers
    return re.findall(r"= (_c2t_(?:mma|matmul)\(.*\))",
                      "\n".join(b for b in blocks if not b.startswith("@triton.jit\ndef _c2t_")))


# prefill attention, one tile: s = q @ k^T (operands loaded, result into an A operand: marked), p
# from s, acc = p @ v (A from a product: unmarked)
PREFILL = """
@ct.kernel
def k(Q, K, V, O, M: ConstInt, N: ConstInt, D: ConstInt):
    q = ct.load(Q, index=(0, 0), shape=(M, D))
    kt = ct.load(K, index=(0, 0), shape=(D, N))
    s = ct.mma(q, kt, ct.zeros((M, N), dtype=ct.float32))
    p = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    v = ct.load(V, index=(0, 0), shape=(N, D))
    acc = ct.mma(p.astype(V.dtype), v, ct.zeros((M, D), dtype=ct.float32))
    ct.store(O, index=(0, 0), tile=acc / ct.sum(p, axis=1, keepdims=True))

def run(q, kt, v):
    o = torch.empty((q.shape[0], v.shape[1]), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (q, kt, v, o, q.shape[0], kt.shape[1], q.shape[1]))
    return o
"""


def test_a_chain_through_b_is_unmarked_at_both_ends():
    """The decode pattern's first product (B loaded) feeds the second's B: neither is marked."""
    calls = _calls(translate(DECODE).code)
    assert calls == ['_c2t_mma(kt, q, tl.zeros([N, G], tl.float32), "ieee", PAD=C2T_PAD)',
                     '_c2t_mma(vt, p.to(V.dtype.element_ty), tl.zeros([D, G], tl.float32), "ieee", PAD=C2T_PAD)'], calls


def test_a_product_feeding_an_a_operand_only_stays_marked():
    """q @ k^T feeds p @ v's A operand only: marked; p @ v takes A from a product: unmarked (a narrow
    warpgroup MMA with A from a product has not run on the H200)."""
    calls = _calls(translate(PREFILL).code)
    assert calls == ['_c2t_mma(q, kt, tl.zeros([M, N], tl.float32), "ieee", CHAINED=False)',
                     '_c2t_mma(p.to(V.dtype.element_ty), v, tl.zeros([M, D], tl.float32), "ieee", PAD=C2T_PAD)'], calls


def _loop_kernel_call(loop_body: str, call_prefix: str) -> str:
    """Translate a kernel whose loop body is `loop_body` (x, y loaded tiles; z = y, acc zeros before
    the loop; helper a device function) and return its product call starting with `call_prefix`."""
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
{loop_body}
        ct.store(C, index=(0, 0), tile=acc)
    """
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    return next(c for c in _calls(res.code) if c.startswith(call_prefix))


@pytest.mark.parametrize("use, marked", [
    ("ct.mma(w.astype(ct.float16), y, acc)", True),     # the product's result feeds an A operand only
    ("ct.mma(x, w, acc)", False),                   # ... a B operand
    ("ct.mma(x, w.astype(ct.float16), acc)", False),    # ... a B operand, through a cast
    ("ct.mma(x, ct.load(B, index=(ct.sum(w).astype(ct.int32) * 0, 0), shape=(K, N)), acc)", True),  # an index
    ("ct.mma(x, y, acc) + helper(w)", True),        # a device function's argument: its result is no B
    ("ct.mma(x, helper(y), acc)", False),           # an unseen call's result as B: may carry it
])
def test_result_reaching_a_b_operand(use, marked):
    """The product w = x @ y (B loaded) is marked unless its result may reach a product's B."""
    body = f"""            w = ct.mma(x, y, ct.zeros((M, N), dtype=ct.float32))
            acc = {use}"""
    call = _loop_kernel_call(body, "_c2t_mma(x, y, tl.zeros")
    assert call.endswith("CHAINED=False)") == marked, call


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
    body = f"""            acc = ct.mma(x, {b}, acc)
            z = (x @ y).astype(ct.float16)"""
    call = _loop_kernel_call(body, "_c2t_mma(x")
    assert call.endswith("CHAINED=False)") == marked, call


def test_local_functions_are_not_followed():
    """A lambda's parameter may be anything its callers pass (here a product): its product with it
    as B stays unmarked, as does a product whose B is a local function's result, and the product
    passed to the lambda (what a local function does with its arguments is not followed)."""
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
    for call in ('_c2t_matmul(x, y, "ieee", PAD=C2T_PAD)',      # x @ y: y loaded, its result passed to g
                 'return _c2t_mma(x, t, tl.zeros([M, N], tl.float32), "ieee", PAD=C2T_PAD)\n',     # g, hoisted
                 '_c2t_mma(x, _k_f(y), tl.zeros([M, N], tl.float32), "ieee", PAD=C2T_PAD)\n'):
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
    assert len(calls) == 2 and calls[0].endswith('"ieee", CHAINED=False)') and calls[1].endswith('"ieee", PAD=C2T_PAD)'), line


@pytest.mark.parametrize("mode", ["all", "products", "pad"])
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


def test_products_mode_keeps_warpgroup_mma_outside_chains(tmp_path, monkeypatch):
    """sm_90 compiles: prefill's narrow q @ k^T (N = 32) is mma.sync by default and a warpgroup MMA
    with C2T_NARROW=products (p @ v, N = 64, is one either way); the decode chain's narrow products
    are mma.sync in both modes."""
    prefill = "(torch.randn(64, 64).half(), torch.randn(64, 32).half(), torch.randn(32, 64).half())"
    decode = "(torch.randn(64, 16).half(), torch.randn(64, 64).half(), torch.randn(64, 64).half())"
    found = {}
    for mode in ("all", "products"):
        monkeypatch.setenv("C2T_NARROW", mode)
        found[mode] = (compile_sm90(PREFILL, "run", prefill, tmp_path), compile_sm90(DECODE, "run", decode, tmp_path))
        assert all("OK k" in out for out in found[mode]), found[mode]
        # in none is a synchronous warpgroup MMA fed by an MMA result (the miscompile's signature)
        assert all(" mma_fed_sync=-" in out for out in found[mode]), found[mode]
    assert " wgmma=True mma.sync=True " in found["all"][0], found["all"][0]
    assert " wgmma=True mma.sync=False " in found["products"][0], found["products"][0]
    assert " wgmma=False mma.sync=True " in found["all"][1] and " wgmma=False mma.sync=True " in found["products"][1]


@pytest.mark.parametrize("G", [16, 32])
def test_pad_mode_widens_chained_narrow_products_to_64_columns(tmp_path, monkeypatch, G):
    """C2T_NARROW=pad: the decode chain's narrow products (N = G) are computed with B widened to 64
    columns by zeros (a warpgroup MMA of N = 64 on sm_90, no mma.sync) and give the same results
    (interpreter); products mode computes them transposed (mma.sync). (Its speed: opt-in, docs/switches.md.)"""
    monkeypatch.setenv("C2T_NARROW", "pad")
    mod = build(DECODE, tmp_path)
    g = torch.Generator().manual_seed(G)
    q, kk, v = (torch.randn(*s, generator=g).half() for s in ((64, G), (64, 64), (64, 64)))
    qk = kk.double() @ q.double()
    p = torch.exp(qk - qk.max(0, keepdim=True).values)
    want = (v.double().t() @ p.half().double()) / p.sum(0, keepdim=True)
    torch.testing.assert_close(mod.run(q, kk, v.t().contiguous()).double(), want, rtol=2e-3, atol=2e-3)
    from kernel_util import compile_sm90_asm
    args = f"(torch.randn(64, {G}).half(), torch.randn(64, 64).half(), torch.randn(64, 64).half())"
    ptx = compile_sm90_asm(DECODE, "run", args, tmp_path)["k"]["ptx"]
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)) == {"m64n64k16"}
    assert "mma.sync" not in ptx


def test_fp8_chain_at_64_columns_is_computed_transposed(tmp_path, monkeypatch):
    """The decode pattern in fp8 with 64 query heads per KV head and one 64-key tile was wrong on the
    H200 as written (N = 64: max difference 1.35-2.77) and right transposed
    (docs/decisions/010-narrow-products-transposed.md): fp8 products in a chain are computed
    transposed at N = 64 too, so on sm_90 no synchronous warpgroup MMA of it takes an operand from an
    MMA result (the miscompile's signature; the same compile without the fp8 rule has it)."""
    fp8 = "torch.float8_e4m3fn"
    args = f"(torch.randn(128, 64).to({fp8}), torch.randn(64, 128).to({fp8}), torch.randn(128, 64).to({fp8}))"
    for mode in ("all", "products"):
        monkeypatch.setenv("C2T_NARROW", mode)
        out = compile_sm90(DECODE, "run", args, tmp_path)
        assert "OK k" in out and " mma_fed_sync=-" in out, out


_SIGNATURE = """
import sys
sys.path.insert(0, {tests!r})
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from compile_sm90 import mma_fed_sync_dots

@triton.jit
def two_dots(X, Y, A, C, reps, N: tl.constexpr, LOOP: tl.constexpr, SRC: tl.constexpr):
    i = tl.arange(0, 64)
    n = tl.arange(0, N)
    acc = tl.zeros([128, N], tl.float32)
    for _ in range(reps if LOOP else 1):
        a = tl.load(A + tl.arange(0, 128)[:, None] * 64 + i[None, :])
        b = tl.load(Y + i[:, None] * N + n[None, :])
        if SRC == "b_dot":      # B (64, N) is another product's result
            b = tl.dot(tl.load(X + i[:, None] * 64 + i[None, :]), b).to(Y.dtype.element_ty)
        if SRC == "a_dot":      # A (128, 64) is another product's result
            a = tl.dot(a, tl.load(X + i[:, None] * 64 + i[None, :])).to(A.dtype.element_ty)
        if SRC == "a_reg":      # A recomputed in registers
            a = (a.to(tl.float32) + reps.to(tl.float32) * 0.0).to(A.dtype.element_ty)
        acc = tl.dot(a, b, acc)
    tl.store(C + tl.arange(0, 128)[:, None] * N + n[None, :], acc)

for n, loop, src, ty in ((16, False, "b_dot", "fp16"), (32, False, "b_dot", "fp16"), (16, False, "mem", "fp16"),
                         (16, True, "b_dot", "fp16"), (16, False, "a_dot", "fp16"), (32, False, "a_dot", "fp16"),
                         (16, True, "a_dot", "fp16"), (16, False, "a_reg", "fp16"), (64, False, "b_dot", "fp16"),
                         (64, False, "b_dot", "fp8e4nv"), (64, False, "mem", "fp8e4nv")):
    p = "*" + ty
    src_ = ASTSource(two_dots, signature={{"X": p, "Y": p, "A": p, "C": "*fp32", "reps": "i32",
                                          "N": "constexpr", "LOOP": "constexpr", "SRC": "constexpr"}},
                     constexprs={{"N": n, "LOOP": loop, "SRC": src}})
    k = triton.compile(src_, target=GPUTarget("cuda", 90, 32))
    print(n, loop, src, ty, mma_fed_sync_dots(k.asm["ttgir"]))
"""


def test_the_miscompile_signature_is_recognized(tmp_path):
    """compile_sm90.mma_fed_sync_dots finds what the H200 computed wrongly
    (docs/decisions/010-narrow-products-transposed.md: probe_sync_dots.py
    --b dot / --a dot: a synchronous warpgroup MMA whose B or A is another product's result, N = 16
    or 32, and 64 in fp8) and not what it computed right (operands loaded, A recomputed in
    registers; the same in a pipelined loop; N = 64 in fp16)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    prog = tmp_path / "signature.py"       # Triton reads a @jit function's source from its file
    prog.write_text(_SIGNATURE.format(tests=str(Path(__file__).resolve().parent)))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.splitlines() == ["16 False b_dot fp16 [16]", "32 False b_dot fp16 [32]", "16 False mem fp16 []",
                                     "16 True b_dot fp16 []", "16 False a_dot fp16 [16]", "32 False a_dot fp16 [32]",
                                     "16 True a_dot fp16 []", "16 False a_reg fp16 []", "64 False b_dot fp16 []",
                                     "64 False b_dot fp8e4nv [64]", "64 False mem fp8e4nv []"], r.stdout


def test_narrow_mode_is_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("C2T_NARROW", "some")
    with pytest.raises(ValueError, match="C2T_NARROW must be all, products or pad"):
        build(DECODE, tmp_path)


# the decode pattern's products in a module-level helper the kernel calls (TileGym's flash decode
# keeps its body in `attention_decode_kernel_grouped_impl`)
_DECODE_HEAD = "@ct.kernel\ndef k(Q, K, V, O, G: ConstInt, D: ConstInt, N: ConstInt):"
DECODE_IN_HELPER = DECODE.replace(_DECODE_HEAD, _DECODE_HEAD.replace("@ct.kernel\ndef k(", "def body(")).replace(
    "\ndef run(", "\n" + _DECODE_HEAD + "\n    body(Q, K, V, O, G, D, N)\n\ndef run(")
assert DECODE_IN_HELPER.count("def body(") == 1 and DECODE_IN_HELPER.count("    body(Q, K, V, O, G, D, N)") == 1


def test_kernels_with_chained_products_take_the_launchers_pad_choice():
    """A kernel whose products may be in a chain takes the constexpr C2T_PAD, passed to each such
    product and to the helpers that have one (a helper's own parameter defaults to the plain form,
    for callers from other modules); its launcher passes _C2T_PAD (True only with C2T_NARROW=pad)."""
    for src in (DECODE, DECODE_IN_HELPER):
        res = translate(src)
        assert res.ok, [d.format() for d in res.diagnostics]
        kernel = res.code[res.code.index("\ndef k("):res.code.index("\ndef launch_k(")]
        assert "    C2T_PAD: tl.constexpr,  # narrow products padded" in kernel
        launcher = res.code[res.code.index("\ndef launch_k("):]
        assert "\n                _C2T_PAD,\n            )," in launcher
    helper = res.code[res.code.index("\ndef body("):res.code.index("\ndef k(")]
    assert helper.startswith("\ndef body(") and ", C2T_PAD: tl.constexpr = False):" in helper.splitlines()[1]
    assert helper.count("PAD=C2T_PAD)") == 2
    call = next(ln for ln in kernel.splitlines() if ln.startswith("    body(Q, "))
    assert call.endswith(", G, D, N, C2T_PAD=C2T_PAD)"), call
    # a kernel whose only product is proved outside any chain takes none
    res = translate("""
    @ct.kernel
    def m(A, B, C, T: ConstInt):
        acc = ct.mma(ct.load(A, index=(0, 0), shape=(T, T)), ct.load(B, index=(0, 0), shape=(T, T)),
                     ct.zeros((T, T), dtype=ct.float32))
        ct.store(C, index=(0, 0), tile=acc)
    """)
    assert res.ok
    tail = res.code[res.code.index("\ndef m("):]
    assert not re.search(r"\b_?C2T_PAD\b", tail) and "_c2t_mma(" in tail


@pytest.mark.parametrize("src", [DECODE, DECODE_IN_HELPER], ids=["kernel", "helper"])
def test_launch_with_padded_products_computes_the_same(tmp_path, monkeypatch, src):
    """Interpreter: the kernel launched with C2T_PAD True (what the spill retry compiles; the module's
    _C2T_PAD, which its launcher passes) gives the plain form's results, in the kernel and in a helper."""
    monkeypatch.delenv("C2T_NARROW", raising=False)
    mod = build(src, tmp_path)
    assert mod._C2T_PAD is False
    g = torch.Generator().manual_seed(3)
    q, kk, v = (torch.randn(*s, generator=g).half() for s in ((64, 16), (64, 64), (64, 64)))
    plain = mod.run(q, kk, v.t().contiguous())
    monkeypatch.setattr(mod, "_C2T_PAD", True)
    padded = mod.run(q, kk, v.t().contiguous())
    qk = kk.double() @ q.double()
    p = torch.exp(qk - qk.max(0, keepdim=True).values)
    want = (v.double().t() @ p.half().double()) / p.sum(0, keepdim=True)
    torch.testing.assert_close(padded.double(), want, rtol=2e-3, atol=2e-3)
    torch.testing.assert_close(padded, plain, rtol=1e-5, atol=1e-5)


# the decode chain searched over (exhaustive_search: Constant arguments from META) and launched from
# a host loop (batched launches): both take the kernel's C2T_PAD
DECODE_SEARCHED_AND_LOOPED = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search
""" + DECODE + """

def search(q, kk, v, o):
    configs = [SimpleNamespace(N=64), SimpleNamespace(N=32)]
    return exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (1,), k,
                             lambda cfg: (q, kk, v, o, q.shape[1], q.shape[0], cfg.N), quiet=True)

def run_each(qs, kk, v, outs):
    for q, o in zip(qs, outs):
        ct.launch(torch.cuda.current_stream(), (1,), k, (q, kk, v, o, q.shape[1], q.shape[0], kk.shape[0]))
"""


def _decode_want(q, kk, v, n):
    qk = kk[:n].double() @ q.double()
    p = torch.exp(qk - qk.max(0, keepdim=True).values)
    return (v[:n].double().t() @ p.half().double()) / p.sum(0, keepdim=True)


@pytest.mark.parametrize("pad", [False, True])
def test_chained_products_in_a_search_and_in_batched_launches(tmp_path, monkeypatch, pad):
    """Interpreter: exhaustive_search's configs pass C2T_PAD among their META (the launcher's value),
    and the batched twin passes the module's C2T_NARROW=pad choice; both compute the chain right
    either way (`pad`: the launchers' _C2T_PAD, as C2T_NARROW=pad sets it)."""
    monkeypatch.delenv("C2T_NARROW", raising=False)
    mod = build(DECODE_SEARCHED_AND_LOOPED, tmp_path)
    code = open(mod.__file__).read()
    assert '"C2T_PAD": _C2T_PAD}' in code and "def k_batch4(" in code and ", _C2T_NARROW_PAD)" in code
    monkeypatch.setattr(mod, "_C2T_PAD", pad)
    seen, real = [], mod.triton.autotune

    def spy(configs, key, **kw):
        seen.append([c.kwargs.get("C2T_PAD") for c in configs])
        return real(configs, key, **kw)
    monkeypatch.setattr(mod.triton, "autotune", spy)
    g = torch.Generator().manual_seed(5)
    q, kk, v = (torch.randn(*s, generator=g).half() for s in ((64, 16), (64, 64), (64, 64)))
    vt = v.t().contiguous()
    o = torch.empty(64, 16)
    res = mod.search(q, kk, vt, o)
    assert seen == [[pad, pad]] and not res.failures
    torch.testing.assert_close(o.double(), _decode_want(q, kk, v, res.best.config.N), rtol=2e-3, atol=2e-3)
    qs = [torch.randn(64, 16, generator=g).half() for _ in range(5)]
    outs = [torch.empty(64, 16) for _ in qs]
    mod.run_each(qs, kk, vt, outs)
    for qq, oo in zip(qs, outs):
        torch.testing.assert_close(oo.double(), _decode_want(qq, kk, v, 64), rtol=2e-3, atol=2e-3)
