"""GPU probe (not part of the product): which single `tl.dot`s Triton 3.6 computes wrongly on the
H200 when they are warpgroup MMAs outside a pipelined loop (synchronous: no `isAsync` in the TTGIR).
The nineteenth session's hand-written decode kernel (probe_narrow_products.py, one key tile, no
loop) was wrong or faulted at N = 16 and 32 in fp16/bf16 and fp8, and wrong at N = 64 in fp8 with
64-key tiles; right in tf32 and wherever its loop made the MMAs asynchronous. This probe takes one
product apart: C = A @ B with A (M, K) and B (K, N) loaded from memory as written or as transposed
views (`A_T`: A stored as (K, M) and loaded through tl.trans; `B_T`: B stored as (N, K)), with the
dot alone (one call) or in a loop of a run-time trip count (pipelined: asynchronous MMAs) summing
it twice. `--b mem,reg,dot`: B loaded (mem, the default), recomputed in registers (reg), or the
result of another dot (dot; B_T does not apply), as the decode kernel's second product's is;
`--a mem,reg,dot`: A loaded, recomputed in registers, or another dot's result (as prefill
attention's p @ v's A). Each
line: the PTX's MMA form and max |C - torch fp32| / max |torch fp32|. It reproduces the miscompile
with `--b dot` (synchronous, N = 16 or 32: wrong or an illegal memory access).

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PWD/.corpus/src:$PYTHONPATH
    python tests/gpu/probe_sync_dots.py [--dtypes float16,float8_e4m3fn] [--b mem,reg,dot]

Jobs run in child processes (probe_entries.jobs_in_children): a faulting MMA kills the CUDA context.
Results: docs/gpu-runs/earlier-runs.tar.xz: sync-wgmma-2026-11-30.md.
"""
import itertools
import sys

import torch
import triton
import triton.language as tl

from probe_entries import child_jobs, jobs_in_children

DTYPES = tuple(getattr(torch, d) for d in
               (sys.argv[sys.argv.index("--dtypes") + 1].split(",") if "--dtypes" in sys.argv
                else ("float16", "float8_e4m3fn")))


@triton.jit
def _operand(P, P2, zero, r, c, j, R: tl.constexpr, C: tl.constexpr, T: tl.constexpr, SRC: tl.constexpr):
    """An (R, C) operand tile (r, c: its index ranges) as the probe's variant asks: loaded from P
    ("mem"), stored transposed as (C, R) and loaded through tl.trans when T, loaded and recomputed in
    registers ("reg": + a run-time zero), or the product of P (R, 64) and P2 (64, C) ("dot"; T does
    not apply)."""
    if SRC == "dot":
        t = tl.dot(tl.load(P + r[:, None] * 64 + j[None, :]), tl.load(P2 + j[:, None] * C + c[None, :]))
        t = t.to(P.dtype.element_ty)
    elif T:
        t = tl.trans(tl.load(P + c[:, None] * R + r[None, :]))
    else:
        t = tl.load(P + r[:, None] * C + c[None, :])
    if SRC == "reg":
        t = (t.to(tl.float32) + zero).to(P.dtype.element_ty)
    return t


@triton.jit
def _operands(A, A2, B, B2, zero, m, n, k, j, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              A_T: tl.constexpr, B_T: tl.constexpr, B_SRC: tl.constexpr, A_SRC: tl.constexpr):
    """A (M, K) and B (K, N) as the probe's variant asks (_operand): A_SRC and B_SRC "mem", "reg" or
    "dot"; A_T: A stored as (K, M); B_T: B stored as (N, K)."""
    return (_operand(A, A2, zero, m, k, j, M, K, A_T, A_SRC), _operand(B, B2, zero, k, n, j, K, N, B_T, B_SRC))


@triton.jit
def one_dot(A, A2, B, B2, C, reps, zero, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, A_T: tl.constexpr,
            B_T: tl.constexpr, LOOP: tl.constexpr, B_SRC: tl.constexpr, A_SRC: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    j = tl.arange(0, 64)
    acc = tl.zeros([M, N], tl.float32)
    if LOOP:
        for _ in range(reps):       # a run-time trip count: Triton pipelines it
            a, b = _operands(A, A2, B, B2, zero, m, n, k, j, M, N, K, A_T, B_T, B_SRC, A_SRC)
            acc = tl.dot(a, b, acc)
    else:
        a, b = _operands(A, A2, B, B2, zero, m, n, k, j, M, N, K, A_T, B_T, B_SRC, A_SRC)
        acc = tl.dot(a, b, acc)
    tl.store(C + m[:, None] * N + n[None, :], acc)


SOURCES = tuple(sys.argv[sys.argv.index("--b") + 1].split(",") if "--b" in sys.argv else ("mem",))
A_SOURCES = tuple(sys.argv[sys.argv.index("--a") + 1].split(",") if "--a" in sys.argv else ("mem",))


def _cases():
    """(dtype, M, N, K, A_T, B_T, B_SRC, A_SRC, LOOP)"""
    return [c for c in itertools.product(DTYPES, (64, 128), (16, 32, 64, 128), (64, 128), (False, True),
                                         (False, True), SOURCES, A_SOURCES, (False, True))
            if not (c[7] == "dot" and c[4])]        # A_T does not apply to A from a dot


def _run(n):
    dtype, M, N, K, a_t, b_t, src, a_src, loop = _cases()[n]
    gen = torch.Generator(device="cuda").manual_seed(n)
    a = torch.randn(M, K, device="cuda", generator=gen).to(dtype)
    ax = (torch.randn(M, 64, device="cuda", generator=gen) / 8).to(dtype)
    ay = torch.randn(64, K, device="cuda", generator=gen).to(dtype)
    if a_src == "dot":
        a = (ax.float() @ ay.float()).to(dtype)
    b = torch.randn(K, N, device="cuda", generator=gen).to(dtype)
    bx = (torch.randn(K, 64, device="cuda", generator=gen) / 8).to(dtype)
    by = torch.randn(64, N, device="cuda", generator=gen).to(dtype)
    if src == "dot":
        b = (bx.float() @ by.float()).to(dtype)
    want = a.float() @ b.float() * (2 if loop else 1)
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    k = one_dot[(1,)](ax if a_src == "dot" else a.t().contiguous() if a_t else a, ay,
                      bx if src == "dot" else b.t().contiguous() if b_t else b,
                      by, c, 2, 0.0, M=M, N=N, K=K, A_T=a_t, B_T=b_t, LOOP=loop, B_SRC=src, A_SRC=a_src)
    torch.cuda.synchronize()
    ptx, ttgir = k.asm["ptx"], k.asm["ttgir"]
    form = "wgmma" if "wgmma" in ptx else "mma.sync" if "mma.sync" in ptx else "fma"
    form += " async" if "isAsync = true" in ttgir else ""
    return f"({form}) {((c - want).abs().max() / want.abs().max()).item():.3g}"


if __name__ == "__main__":
    cases = _cases()
    if "--child" in sys.argv:
        child_jobs(_run, len(cases), int(sys.argv[sys.argv.index("--child") + 1]))
        sys.exit(0)
    argv = [sys.executable, __file__, "--dtypes", ",".join(str(d)[6:] for d in DTYPES), "--b", ",".join(SOURCES),
            "--a", ",".join(A_SOURCES)]
    results = jobs_in_children(argv, len(cases))
    print("dtype M N K A_T B_T B A | one dot | looped")
    for n in range(0, len(cases), 2):
        dtype, M, N, K, a_t, b_t, src, a_src, _ = cases[n]
        print(f"{str(dtype)[6:]} M={M} N={N} K={K} A_T={int(a_t)} B_T={int(b_t)} B={src} A={a_src} | "
              f"{results.get(n, '-')} | {results.get(n + 1, '-')}", flush=True)
