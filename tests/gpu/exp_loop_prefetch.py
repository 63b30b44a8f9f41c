"""GPU experiment (next step of issue 4; not part of the product): can a grid-stride loop over row
tiles reach the copy bandwidth in Triton 3.6? Three forms of the loop the translator emits for
TileGym's static-persistent RMSNorm (one program per SM, a (TM, N) tile per iteration):

  pointer   as translated today: masked pointer load, compute, store (one tile in flight per SM);
  prefetch  the next iteration's tile is loaded before this one is computed (register double
            buffering: two tiles in flight);
  tma-sK    tensor descriptors in a tl.range(..., num_stages=K) loop (Triton multi-buffers
            descriptor loads in shared memory; it does not pipeline pointer loads outside dots).

Each is checked against torch and timed next to TileGym's cuTile rms_norm and the copy bandwidth.
    python tests/gpu/exp_loop_prefetch.py                 (GPU, after source .gpu/setup.sh)
    TRITON_INTERPRET=1 python tests/gpu/exp_loop_prefetch.py --check   (CPU: correctness only)
"""
import os
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def rms_pointer(X, Y, W, M, N: tl.constexpr, TM: tl.constexpr, EPS: tl.constexpr):
    pid, nprog = tl.program_id(0), tl.num_programs(0)
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    for t in range(pid, tl.cdiv(M, TM), nprog):
        rows = t * TM + tl.arange(0, TM)
        mask = rows[:, None] < M
        x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        r = 1.0 / tl.sqrt(tl.sum(x * x, 1) / N + EPS)
        tl.store(Y + rows[:, None] * N + cols[None, :], (x * r[:, None] * w[None, :]).to(Y.dtype.element_ty),
                 mask=mask)


@triton.jit
def rms_prefetch(X, Y, W, M, N: tl.constexpr, TM: tl.constexpr, EPS: tl.constexpr):
    pid, nprog = tl.program_id(0), tl.num_programs(0)
    cols = tl.arange(0, N)
    w = tl.load(W + cols).to(tl.float32)
    rows = pid * TM + tl.arange(0, TM)
    nxt = tl.load(X + rows[:, None] * N + cols[None, :], mask=rows[:, None] < M, other=0.0)
    for t in range(pid, tl.cdiv(M, TM), nprog):
        x = nxt.to(tl.float32)
        rows = t * TM + tl.arange(0, TM)
        rows_n = rows + nprog * TM                      # the next tile (masked off past the end)
        nxt = tl.load(X + rows_n[:, None] * N + cols[None, :], mask=rows_n[:, None] < M, other=0.0)
        r = 1.0 / tl.sqrt(tl.sum(x * x, 1) / N + EPS)
        tl.store(Y + rows[:, None] * N + cols[None, :], (x * r[:, None] * w[None, :]).to(Y.dtype.element_ty),
                 mask=rows[:, None] < M)


@triton.jit
def rms_tma(X, Y, W, M, N: tl.constexpr, TM: tl.constexpr, EPS: tl.constexpr, STAGES: tl.constexpr):
    pid, nprog = tl.program_id(0), tl.num_programs(0)
    xd = tl.make_tensor_descriptor(X, [M, N], [N, 1], [TM, N])
    yd = tl.make_tensor_descriptor(Y, [M, N], [N, 1], [TM, N])
    w = tl.load(W + tl.arange(0, N)).to(tl.float32)
    for t in tl.range(pid, tl.cdiv(M, TM), nprog, num_stages=STAGES):
        x = xd.load([t * TM, 0]).to(tl.float32)
        r = 1.0 / tl.sqrt(tl.sum(x * x, 1) / N + EPS)
        yd.store([t * TM, 0], (x * r[:, None] * w[None, :]).to(Y.dtype.element_ty))


def run(variant, x, w, nprog, tm=4, eps=1e-6):
    m, n = x.shape
    y = torch.empty_like(x)
    warps = 16 if tm * n > 8192 else 8
    if variant == "pointer":
        rms_pointer[(nprog,)](x, y, w, m, n, tm, eps, num_warps=warps)
    elif variant == "prefetch":
        rms_prefetch[(nprog,)](x, y, w, m, n, tm, eps, num_warps=warps)
    else:
        rms_tma[(nprog,)](x, y, w, m, n, tm, eps, int(variant.split("-s")[1]), num_warps=warps)
    return y


def reference(x, w, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


VARIANTS = ["pointer", "prefetch", "tma-s1", "tma-s2", "tma-s3"]


def main():
    check_only = "--check" in sys.argv
    device = "cpu" if check_only else "cuda"
    if device == "cuda":
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    shapes = [(37, 64, 3)] if check_only else [(65536, 4096, 132), (4096, 4096, 132), (16384, 8192, 132)]
    dtypes = [torch.float32] if check_only else [torch.float16, torch.bfloat16]
    variants = ["pointer", "prefetch"] + (["tma-s1"] if check_only else VARIANTS[2:])
    for m, n, nprog in shapes:
        for dt in dtypes:
            g = torch.Generator().manual_seed(0)
            x = torch.randn(m, n, generator=g).to(dt).to(device)
            w = torch.randn(n, generator=g).to(dt).to(device)
            ref = reference(x, w)
            line = [f"M={m} N={n} {str(dt)[6:]}"]
            if not check_only:
                from triton.testing import do_bench
                copy_ms = do_bench(lambda: x.clone(), return_mode="median")
                line.append(f"clone {2 * x.numel() * x.element_size() / copy_ms / 1e6:.0f} GB/s")
                try:
                    sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
                    from tilegym.ops.cutile.rms_norm import rms_norm as cutile_rms
                    ms = do_bench(lambda: cutile_rms(x, (n,), w, 1e-6), return_mode="median")
                    line.append(f"cuTile {ms * 1e3:.1f} us")
                except Exception as exc:      # noqa: BLE001 - the experiment reports what it could not time
                    line.append(f"cuTile unavailable ({type(exc).__name__})")
            for v in variants:
                y = run(v, x, w, nprog)
                ok = torch.allclose(y.float(), ref.float(), rtol=2e-2, atol=2e-2)
                if check_only:
                    line.append(f"{v}: {'ok' if ok else 'WRONG'}")
                    continue
                ms = do_bench(lambda: run(v, x, w, nprog), return_mode="median")
                gbps = 2 * x.numel() * x.element_size() / ms / 1e6
                line.append(f"{v}: {ms * 1e3:.1f} us {gbps:.0f} GB/s{'' if ok else ' WRONG'}")
            print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
