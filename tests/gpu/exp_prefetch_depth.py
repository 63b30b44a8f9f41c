"""GPU experiment (issue 4; not part of the product): how many tiles ahead should the persistent-loop
prefetch (translator/lower/prefetch.py) load when the tile is one short row?

TileGym's persistent softmax at M=4096 N=1024 moves 16 MB in 12-32 us on both sides (12-51% of the
copy bandwidth; torch.softmax 14-15 us): each program holds one 1xN row and, with the translator's
prefetch, the next one. The kernels here are that loop (as generated for `_softmax_kernel_tma` and
`_softmax_kernel`: masked row load, max, exp, sum, divide, store) with DEPTH rows loaded ahead (1 is
what the translator emits today), on the grids TileGym launches (2 and 4 programs per SM), next to
TileGym's cuTile softmax (use_tma True/False) and torch.softmax, all in one process.

    python tests/gpu/exp_prefetch_depth.py          (GPU, after source .gpu/setup.sh)
    TRITON_INTERPRET=1 python tests/gpu/exp_prefetch_depth.py --check   (CPU: correctness only)
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _row(X, M, N, stride, r, cols, N_P: tl.constexpr):
    return tl.load(X + r * stride + cols, mask=(cols < N) & (r < M), other=-float("inf"))


@triton.jit
def softmax_rows(X, Y, M, N, stride, N_P: tl.constexpr, DEPTH: tl.constexpr):
    pid, nprog = tl.program_id(0), tl.num_programs(0)
    cols = tl.arange(0, N_P)
    r0 = _row(X, M, N, stride, pid, cols, N_P)
    r1 = r0
    r2 = r0
    r3 = r0
    if DEPTH >= 2:
        r1 = _row(X, M, N, stride, pid + nprog, cols, N_P)
    if DEPTH >= 3:
        r2 = _row(X, M, N, stride, pid + 2 * nprog, cols, N_P)
    if DEPTH >= 4:
        r3 = _row(X, M, N, stride, pid + 3 * nprog, cols, N_P)
    for row in range(pid, M, nprog):
        x = r0.to(tl.float32)
        if DEPTH == 1:
            r0 = _row(X, M, N, stride, row + nprog, cols, N_P)
        elif DEPTH == 2:
            r0 = r1
            r1 = _row(X, M, N, stride, row + 2 * nprog, cols, N_P)
        elif DEPTH == 3:
            r0 = r1
            r1 = r2
            r2 = _row(X, M, N, stride, row + 3 * nprog, cols, N_P)
        else:
            r0 = r1
            r1 = r2
            r2 = r3
            r3 = _row(X, M, N, stride, row + 4 * nprog, cols, N_P)
        m = tl.max(x, 0)
        e = tl.exp(x - m)
        y = tl.fdiv(e, tl.sum(e, 0))
        tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=cols < N)


def run(x, per_sm, depth, sms):
    m, n = x.shape
    y = torch.empty_like(x)
    n_p = triton.next_power_of_2(n)
    warps = 4 if n_p <= 2048 else 8 if n_p <= 8192 else 16      # the launcher's _c2t_num_warps
    softmax_rows[(min(per_sm * sms, m),)](x, y, m, n, x.stride(0), n_p, depth, num_warps=warps)
    return y


def main():
    check = "--check" in sys.argv
    dev = "cpu" if check else "cuda"
    sms = 2 if check else torch.cuda.get_device_properties(0).multi_processor_count
    shapes = [(37, 100)] if check else [(4096, 1024), (4096, 4096), (16384, 1024)]
    dtypes = [torch.float32] if check else [torch.float16, torch.bfloat16, torch.float32]
    cutile = None
    if not check:
        from triton.testing import do_bench
        from tilegym_op import cutile_op
        cutile = cutile_op("softmax", "softmax")
    for m, n in shapes:
        for dt in dtypes:
            x = torch.randn(m, n, generator=torch.Generator().manual_seed(0)).to(dt).to(dev)
            ref = torch.softmax(x.float(), -1)
            line = [f"M={m} N={n} {str(dt)[6:]}"]
            if not check:
                gb = 2 * x.numel() * x.element_size() / 1e9
                t = do_bench(lambda: x.clone(), return_mode="median")
                line.append(f"clone {t * 1e3:.1f} us")
                t = do_bench(lambda: torch.softmax(x, -1), return_mode="median")
                line.append(f"torch {t * 1e3:.1f} us")
                for tma in (True, False) if cutile else ():
                    t = do_bench(lambda: cutile(x, use_tma=tma), return_mode="median")
                    line.append(f"cuTile tma={tma} {t * 1e3:.1f} us")
            for per_sm in (2, 4):
                for depth in (1, 2, 3, 4):
                    y = run(x, per_sm, depth, sms)
                    ok = torch.allclose(y.float(), ref, rtol=2e-2, atol=2e-3)
                    if check:
                        line.append(f"{per_sm}/SM d={depth}: {'ok' if ok else 'WRONG'}")
                        continue
                    t = do_bench(lambda: run(x, per_sm, depth, sms), return_mode="median")
                    line.append(f"{per_sm}/SM d={depth} {t * 1e3:.1f} us ({gb / t * 1e3:.0f} GB/s)"
                                + ("" if ok else " WRONG"))
            print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
