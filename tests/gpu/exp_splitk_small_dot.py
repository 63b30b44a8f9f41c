"""GPU experiment (issue 4; not part of the product): TileGym's split-KV reduce in fp32 with 128 splits.

The sixteenth session's suite run of tg_splitk_reduce (docs/gpu-runs/mla-warps-and-refresh-2026-11-30.md
section 7) had one row at 0.56 of cuTile: B=1 H=16 S=128 D=512 in float32 (13.1 us against 7.3;
the same shape in bf16/fp16 at 1.00-1.04). Its kernel's USE_DOT path is a one-row matrix product,
ct.mma(weights (1, S), partials (S, TILE_D)) in fp32, which the translation emits as
tl.dot(..., input_precision="ieee") (cuTile's fp32 mma is full precision). Compiled for sm_90 on
the CPU, the fp32 specialization takes 32 registers and 66 KB of shared memory (the partials go to
shared memory for the FMA dot), the bf16 one 154 registers. The variants, one program per (batch,
head, 128-wide slice of D) as TileGym launches it, pointer loads:

  dot      as translated: tl.dot of the (1, S) weights and the (S, TILE_D) partials, "ieee";
  mulsum   the same product as a broadcast multiply and a sum over S (no dot);
  dot-bf16 the partials in bf16, converted to fp32 before the dot (the rows that ran at parity).

    python tests/gpu/exp_splitk_small_dot.py            (GPU, after source .gpu/setup.sh: times each next to cuTile)
    python tests/gpu/exp_splitk_small_dot.py --compile  (CPU: registers and shared memory of each on sm_90)
    TRITON_INTERPRET=1 python tests/gpu/exp_splitk_small_dot.py --check   (CPU: results against torch)
"""
import os
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def reduce_kernel(P, L, O, S, D, S_P: tl.constexpr, TILE_D: tl.constexpr, MULSUM: tl.constexpr):
    b, h, t = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    H = tl.num_programs(1)
    s = tl.arange(0, S_P)
    d = t * TILE_D + tl.arange(0, TILE_D)
    base = (b * H + h) * S
    parts = tl.load(P + (base + s)[:, None] * D + d[None, :], mask=(s[:, None] < S) & (d[None, :] < D), other=0.0)
    lse = tl.load(L + base + s, mask=s < S, other=-float("inf"))
    w = tl.exp2(lse - tl.max(lse, 0))
    if MULSUM:
        num = tl.sum(w[:, None] * parts.to(tl.float32), 0)
    else:
        num = tl.reshape(tl.dot(w[None, :], parts.to(tl.float32), input_precision="ieee"), [TILE_D])
    tl.store(O + (b * H + h) * D + d, (num / tl.sum(w, 0)).to(O.dtype.element_ty), mask=d < D)


def run(parts, lse, mulsum, warps=4):
    B, H, S, D = parts.shape
    out = torch.empty(B, H, D, dtype=parts.dtype, device=parts.device)
    tile_d = min(128, triton.next_power_of_2(D))
    reduce_kernel[(B, H, triton.cdiv(D, tile_d))](parts, lse, out, S, D, triton.next_power_of_2(S), tile_d,
                                                  mulsum, num_warps=warps)
    return out


def reference(parts, lse):
    w = torch.exp2(lse - lse.amax(-1, keepdim=True))
    return ((w[..., None] * parts.float()).sum(-2) / w.sum(-1, keepdim=True)).to(parts.dtype)


VARIANTS = [("dot", torch.float32, False), ("mulsum", torch.float32, True),
            ("dot-bf16", torch.bfloat16, False), ("mulsum-bf16", torch.bfloat16, True)]


def compile_report():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from compile_sm90 import compile_for_h200
    B, H, S, D = 1, 16, 128, 512
    for name, dt, mulsum in VARIANTS:
        parts, lse, out = torch.empty(B, H, S, D, dtype=dt), torch.empty(B, H, S), torch.empty(B, H, D, dtype=dt)
        k = compile_for_h200(reduce_kernel, (parts, lse, out, S, D, 128, 128, mulsum), {"num_warps": 4})
        from compile_tilegym_sm90 import ptxas_usage
        regs, spills = ptxas_usage(k.asm["ptx"])
        print(f"{name}: {regs} registers, {spills} B spilled, {k.metadata.shared} B shared")


def main():
    if "--compile" in sys.argv:
        return compile_report()
    check = "--check" in sys.argv
    dev = "cpu" if check else "cuda"
    shapes = [(1, 2, 20, 40)] if check else [(1, 16, 128, 512), (1, 32, 16, 128), (32, 32, 4, 128)]
    cutile = None
    if not check:
        from triton.testing import do_bench
        from tilegym_op import cutile_op
        cutile = cutile_op("splitk_reduce", "splitk_reduce")
    for B, H, S, D in shapes:
        g = torch.Generator().manual_seed(0)
        parts32 = torch.randn(B, H, S, D, generator=g).to(dev)
        lse = (8 + 2 * torch.randn(B, H, S, generator=g)).to(dev)
        line = [f"B={B} H={H} S={S} D={D}"]
        for name, dt, mulsum in VARIANTS:
            parts = parts32.to(dt)
            got = run(parts, lse, mulsum)
            ok = torch.allclose(got.float(), reference(parts, lse).float(), rtol=1e-4 if dt == torch.float32 else 2e-2,
                                atol=1e-5 if dt == torch.float32 else 1e-2)
            if check:
                line.append(f"{name}: {'ok' if ok else 'WRONG'}")
                continue
            t = do_bench(lambda: run(parts, lse, mulsum), return_mode="median")
            line.append(f"{name} {t * 1e3:.2f} us" + ("" if ok else " WRONG"))
            if cutile is not None:
                o = torch.empty(B, H, D, dtype=dt, device=dev)
                t = do_bench(lambda: cutile(parts, lse, o, S * 128), return_mode="median")
                line.append(f"cuTile({str(dt)[6:]}) {t * 1e3:.2f} us")
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
