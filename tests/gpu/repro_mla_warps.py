"""GPU experiment (issue 4; not part of the product): is the MLA decoding failure at num_warps=4 Triton's?

Forcing num_warps=4 on the translation of TileGym's MLA decoding at D=512
(`sweep_tilegym_options.py mla_decoding:0 --warps 4`, sixteenth session) gives "an illegal memory
access" with pointer loads and with the launcher's descriptors, and max|diff| 0.188 against cuTile
with descriptors everywhere; at D=128, and at 8 warps (the launcher's choice) the results match
cuTile exactly. The kernel's source does not depend on num_warps. This is the same loop written by
hand, without anything of the translator's (no helpers, no launcher): plain pointer loads of the
(TILE_N, D) key tile, qk = k @ q^T, online softmax, acc += k^T @ p (V is K, as in TileGym), checked
against torch in fp32 for num_warps 4 and 8, D 128 and 512, each run alone (CUDA_LAUNCH_BLOCKING=1
keeps a fault with the launch that made it).

    CUDA_LAUNCH_BLOCKING=1 python tests/gpu/repro_mla_warps.py WARPS D [STAGES]
    TRITON_INTERPRET=1 python tests/gpu/repro_mla_warps.py 4 64 --check      (CPU: small shapes)
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def mla_loop(Q, K, O, S, sm_scale, D: tl.constexpr, H: tl.constexpr, TILE_N: tl.constexpr):
    offs_h = tl.arange(0, H)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, TILE_N)
    q = tl.load(Q + offs_h[:, None] * D + offs_d[None, :])                  # (H, D)
    m = tl.full([H], -float("inf"), tl.float32)
    l = tl.zeros([TILE_N, H], tl.float32)
    acc = tl.zeros([D, H], tl.float32)
    for n in range(0, S, TILE_N):
        k = tl.load(K + (n + offs_n)[:, None] * D + offs_d[None, :])         # (TILE_N, D)
        qk = tl.dot(k, tl.trans(q))                                          # (TILE_N, H)
        m_new = tl.maximum(m, tl.max(qk, 0) * sm_scale)
        p = tl.exp2(qk * sm_scale - m_new[None, :])
        alpha = tl.exp2(m - m_new)
        l = l * alpha[None, :] + p
        acc = acc * alpha[None, :]
        acc = tl.dot(tl.trans(k), p.to(K.dtype.element_ty), acc)             # (D, H)
        m = m_new
    acc = acc / tl.sum(l, 0)[None, :]
    tl.store(O + offs_h[:, None] * D + offs_d[None, :], tl.trans(acc).to(O.dtype.element_ty))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    warps, d = int(args[0]), int(args[1])
    stages = int(args[2]) if len(args) > 2 else None
    check = "--check" in sys.argv
    dev = "cpu" if check else "cuda"
    h, tile_n, s = 16, (16 if check else 128), (64 if check else 4096)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(h, d, generator=g).half().to(dev)
    k = torch.randn(s, d, generator=g).half().to(dev)
    o = torch.empty(h, d, dtype=torch.float16, device=dev)
    scale = 1.0 / d ** 0.5
    opts = {"num_warps": warps} | ({"num_stages": stages} if stages else {})
    try:
        compiled = mla_loop[(1,)](q, k, o, s, scale * 1.4426950408889634, d, h, tile_n, **opts)
        if not check:
            torch.cuda.synchronize()
    except Exception as exc:              # noqa: BLE001 - the experiment reports the failure
        print(f"warps={warps} D={d} stages={stages}: FAILED {type(exc).__name__}: {str(exc)[:160]}")
        return
    ref = torch.softmax(q.float() @ k.float().T * scale, -1) @ k.float()
    err = (o.float() - ref).abs().max().item()
    extra = ""
    if not check:
        md = compiled.metadata
        extra = f" (shared {md.shared} B, stages {md.num_stages}, {compiled.n_regs} registers, {compiled.n_spills} spills)"
    print(f"warps={warps} D={d} stages={stages}: max|diff| {err:.4f}{extra}")


if __name__ == "__main__":
    main()
