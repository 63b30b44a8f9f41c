"""GPU experiment (not part of the product): TileGym group_gemm translated, its kernel launched
directly per tile config x num_warps x num_stages, with the translator's masked-pointer loads
(`ptr`) and with a hand-patched variant whose A/B tiles come from in-kernel TMA descriptors made
once per group (`tma`), to decide what the translator should emit for lists of arrays.

    source .gpu/setup.sh; export PYTHONPATH=$PWD/.corpus/src:$PYTHONPATH
    python tests/gpu/probe_group_gemm.py [G M N K]

Prints microseconds (do_bench median), TFLOP/s and max|diff| against torch per variant, next to
the cuTile original's call (its own exhaustive_search) and a torch loop of matmuls.
"""
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / ".corpus" / "src")]

import torch  # noqa: E402
from triton.testing import do_bench  # noqa: E402

from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.verify import raise_cutile_compiler_timeout, set_cuda_allocator  # noqa: E402

PATH = ROOT / ".corpus/src/tilegym/ops/cutile/group_gemm.py"
KERNEL = "_group_gemm_kernel_not_TRANSPOSE_B"


def tma_variant(code: str) -> str:
    """A/B tile loads of the non-transposed kernel through descriptors made after the group's
    arrays are read from the tables (the lists are aligned: _c2t_array_list checked it)."""
    head, body = code.split(f"def {KERNEL}(", 1)
    body, tail = body.split("\n\n\n", 1)
    body = re.sub(r"(\n(\s+)Ci_stride_1 = [^\n]*)",
                  r"\1\n\2Ai_d = tl.make_tensor_descriptor(Ai, [Ai_shape_0, Ai_shape_1], [Ai_stride_0, 1], [TILE_M, TILE_K])"
                  r"\n\2Bi_d = tl.make_tensor_descriptor(Bi, [Bi_shape_0, Bi_shape_1], [Bi_stride_0, 1], [TILE_K, TILE_N])",
                  body, count=1)
    body, na = re.subn(r"_c2t_load_2d\(Ai, [^\n]*\)\n", "Ai_d.load([tile_m_idx * TILE_M, kk * TILE_K])\n", body)
    body, nb = re.subn(r"_c2t_load_2d\(Bi, [^\n]*\)\n", "Bi_d.load([kk * TILE_K, tile_n_idx * TILE_N])\n", body)
    assert na == 1 and nb == 1 and "Ai_d = " in body, "the kernel's loads changed: update the probe"
    return head + f"def {KERNEL}(" + body + "\n\n\n" + tail


def main(argv):
    warnings.simplefilter("ignore")
    G, M, N, K = (int(x) for x in argv[:4]) if len(argv) >= 4 else (8, 2048, 2048, 2048)
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()
    orig = load_module(PATH)
    code, _ = translate(PATH)
    mods = {}
    for name, src in (("ptr", code), ("tma", tma_variant(code))):
        mods[name], _ = load_translated(src, PATH)
        rebind_cutile_imports(mods[name])
    g = torch.Generator(device="cuda").manual_seed(0)
    A = [torch.randn(M, K, device="cuda", dtype=torch.float16, generator=g) for _ in range(G)]
    B = [torch.randn(K, N, device="cuda", dtype=torch.float16, generator=g) for _ in range(G)]
    ref = [a.float() @ b.float() for a, b in zip(A, B)]
    flop = 2.0 * G * M * N * K
    ms = do_bench(lambda: [a @ b for a, b in zip(A, B)], return_mode="median")
    print(f"G={G} M={M} N={N} K={K} fp16: torch loop {ms * 1e3:.1f} us ({flop / ms / 1e9:.0f} TFLOP/s)", flush=True)
    f = getattr(orig, "group_gemm")
    f(A, B)
    ms = do_bench(lambda: f(A, B), return_mode="median")
    print(f"  cuTile group_gemm (its search): {ms * 1e3:.1f} us ({flop / ms / 1e9:.0f} TFLOP/s)", flush=True)
    # the translated entry: its exhaustive_search, with each config's first calls timed one by one
    import time
    import triton.testing as tt
    real = tt.do_bench

    def traced(fn, *a, **kw):
        times = []
        for _ in range(4):
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append(f"{(time.perf_counter() - t0) * 1e3:.1f}")
        r = real(fn, *a, **kw)
        print(f"    search: calls {', '.join(times)} ms, then do_bench {r:.3f} ms", flush=True)
        return r
    tt.do_bench = traced
    try:
        t0 = time.perf_counter()
        mods["ptr"].group_gemm(A, B)
        torch.cuda.synchronize()
        print(f"  translated first call (search): {time.perf_counter() - t0:.2f} s", flush=True)
    finally:
        tt.do_bench = real
    h = mods["ptr"].group_gemm
    ms = do_bench(lambda: h(A, B), return_mode="median")
    print(f"  translated group_gemm (its search): {ms * 1e3:.1f} us ({flop / ms / 1e9:.0f} TFLOP/s)", flush=True)
    nsm = torch.cuda.get_device_properties(0).multi_processor_count
    for tm, tn, tk in ((128, 128, 128), (256, 256, 64), (128, 128, 64), (128, 256, 64)):
        for w in (4, 8):
            for s in (2, 3, 4):
                for name, mod in mods.items():
                    C = [torch.empty(M, N, device="cuda", dtype=torch.float16) for _ in range(G)]
                    args = (*mod._c2t_array_list(A, 2, "As"), *mod._c2t_array_list(B, 2, "Bs"),
                            *mod._c2t_array_list(C, 2, "Cs"), tm, tn, tk, nsm)
                    kern = getattr(mod, KERNEL)
                    label = f"{tm}x{tn}x{tk} w={w} s={s} {name}"
                    try:
                        c = kern[(nsm,)](*args, num_warps=w, num_stages=s)
                        torch.cuda.synchronize()
                        err = max((x.float() - r).abs().max().item() for x, r in zip(C, ref))
                        ms = do_bench(lambda: kern[(nsm,)](*args, num_warps=w, num_stages=s), return_mode="median")
                        print(f"  {label:32s} {ms * 1e3:8.1f} us {flop / ms / 1e9:5.0f} TFLOP/s  "
                              f"max|diff| {err:.3g}  regs {c.n_regs} spills {c.n_spills}", flush=True)
                    except Exception as exc:      # noqa: BLE001 - a variant that fails is reported
                        print(f"  {label:32s} FAILED {type(exc).__name__}: {str(exc)[:120]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
