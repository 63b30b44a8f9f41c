"""GPU experiment (not part of the product): does a 2-D descriptor over the (Q*M, K) view of a
rank-3 operand let Triton 3.6 use CTA clusters (num_ctas=2) for TileGym's persistent bmm, and how
fast is it next to the rank-3 descriptors the translation emits and torch.bmm?

    python tests/gpu/probe_bmm_views.py            # on the GPU machine; prints one line per variant

Both kernels are the translation's persistent schedule written by hand (no GROUP_SIZE_M swizzle:
tiles in row-major order within a batch); `view2d` is exact only when M % TILE_M == 0 and
K % TILE_K == 0 (a tile never straddles two batches), which the shapes here satisfy."""
import itertools
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


@triton.jit
def rank3(A, B, Cp, Q, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, TM: tl.constexpr, TN: tl.constexpr,
          TK: tl.constexpr):
    ad = tl.make_tensor_descriptor(A, [Q, M, K], [M * K, K, 1], [1, TM, TK])
    bd = tl.make_tensor_descriptor(B, [Q, K, N], [K * N, N, 1], [1, TK, TN])
    cd = tl.make_tensor_descriptor(Cp, [Q, M, N], [M * N, N, 1], [1, TM, TN])
    nm: tl.constexpr = M // TM
    nn: tl.constexpr = N // TN
    for t in range(tl.program_id(0), nm * nn * Q, tl.num_programs(0)):
        q = t // (nm * nn)
        r = t % (nm * nn)
        bm = r // nn
        bn = r % nn
        acc = tl.zeros([TM, TN], tl.float32)
        for k in range(K // TK):
            a = tl.reshape(ad.load([q, bm * TM, k * TK]), [TM, TK])
            b = tl.reshape(bd.load([q, k * TK, bn * TN]), [TK, TN])
            acc = tl.dot(a, b, acc)
        cd.store([q, bm * TM, bn * TN], tl.reshape(acc.to(tl.float16), [1, TM, TN]))


@triton.jit
def view2d(A, B, Cp, Q, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, TM: tl.constexpr, TN: tl.constexpr,
           TK: tl.constexpr):
    ad = tl.make_tensor_descriptor(A, [Q * M, K], [K, 1], [TM, TK])
    bd = tl.make_tensor_descriptor(B, [Q * K, N], [N, 1], [TK, TN])
    cd = tl.make_tensor_descriptor(Cp, [Q * M, N], [N, 1], [TM, TN])
    nm: tl.constexpr = M // TM
    nn: tl.constexpr = N // TN
    for t in range(tl.program_id(0), nm * nn * Q, tl.num_programs(0)):
        q = t // (nm * nn)
        r = t % (nm * nn)
        bm = r // nn
        bn = r % nn
        acc = tl.zeros([TM, TN], tl.float32)
        for k in range(K // TK):
            a = ad.load([q * M + bm * TM, k * TK])
            b = bd.load([q * K + k * TK, bn * TN])
            acc = tl.dot(a, b, acc)
        cd.store([q * M + bm * TM, bn * TN], acc.to(tl.float16))


def main():
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    for Q, M, N, K in [(16, 1024, 1024, 1024), (4, 2048, 2048, 2048)]:
        a = torch.randn(Q, M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(Q, K, N, device="cuda", dtype=torch.float16)
        ref = torch.bmm(a, b)
        t_ref = do_bench(lambda: torch.bmm(a, b)) * 1e3
        print(f"== Q={Q} M={M} N={N} K={K}: torch.bmm {t_ref:.1f} us", flush=True)
        rows = []
        for fn, (tm, tn), ctas, occ, w, s in itertools.product(
                (view2d, rank3), ((256, 128), (128, 256), (128, 128), (256, 256)), (1, 2), (1, 2), (8,), (3, 4)):
            if fn is rank3 and ctas == 2:
                continue        # miscompiles or fails (docs/gpu-runs/clusters-2026-11-29.md)
            tiles = (M // tm) * (N // tn) * Q
            grid = (min(sms // ctas, tiles) * occ,)
            c = torch.empty(Q, M, N, device="cuda", dtype=torch.float16)
            name = f"{fn.__name__:6} {tm}x{tn}x64 ctas={ctas} occ={occ} w={w} s={s}"
            try:
                run = lambda: fn[grid](a, b, c, Q, M, N, K, tm, tn, 64, num_warps=w, num_stages=s, num_ctas=ctas)
                run()
                torch.cuda.synchronize()
                err = (c.float() - ref.float()).abs().max().item()
                t = do_bench(run) * 1e3
                rows.append((t, name, err))
            except Exception as e:          # noqa: BLE001 (an experiment: report and go on)
                print(f"  {name}: FAIL {str(e).splitlines()[0][:120]}", flush=True)
        for t, name, err in sorted(rows)[:12]:
            print(f"  {name}: {t:7.1f} us  torch/this {t_ref / t:.3f}  max|diff| {err:.3g}", flush=True)
        best3 = min((r for r in rows if r[1].startswith("rank3")), default=None)
        print(f"  best rank3: {best3}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
