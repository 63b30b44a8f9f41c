"""GPU experiment (not part of the product): does Triton 3.6's num_ctas (CTA clusters) compute wrong
results for TileGym's persistent matmul with transposed operands? The translation is run with one
pinned config (the one its search picked on the H200: 128x512x64, num_ctas=4) on 333x2050x1500
fp16 with A and B stored transposed, and compared with torch, three ways:

  translator    the launcher as generated (variants that transpose tiles drop num_ctas)
  clusters      the hint forced through for every variant (what the translator did before)
  no-transpose  the same config on untransposed operands, clusters on

    for m in translator clusters no-transpose; do python tests/gpu/probe_clusters_transpose.py $m; done

(one process per way: the search and Triton's caches keep what the first launch chose)
"""
import os
import sys
from types import SimpleNamespace

import torch

sys.path.insert(0, ".")
sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
from translator.harness.loading import load_translated, translate  # noqa: E402

PATH = os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"), "tilegym/ops/cutile/matmul.py")
CFG = SimpleNamespace(TILE_SIZE_M=128, TILE_SIZE_N=512, TILE_SIZE_K=64, GROUP_SIZE_M=8, num_ctas=4, occupancy=1,
                      LOAD_LATENCY=-1)


def main():
    code, _ = translate(PATH)
    mod, _ = load_translated(code, PATH)
    mod._static_persistent_matmul_autotune_configs = lambda: iter([CFG])
    g = torch.Generator().manual_seed(0)
    M, N, K = 333, 2050, 1500
    a = torch.randn(K, M, generator=g).half().cuda()
    b = torch.randn(N, K, generator=g).half().cuda()
    ref = (a.t().float() @ b.t().float())
    real = mod._c2t_hint_options
    ways = {"translator": (True, True, False), "clusters": (True, True, True), "no-transpose": (False, False, True)}
    for label in sys.argv[1:]:
        ta, tb, force = ways[label]
        x = a.t().contiguous() if not ta else a
        y = b.t().contiguous() if not tb else b
        mod._c2t_hint_options = (lambda hints, clusters=True, **d: real(hints, True, **d)) if force else real
        try:
            out = mod.matmul(x, y, ta, tb, True).float()
            err = (out - ref).abs().max().item()
            bad = ((out - ref).abs() > 0.05 + 0.01 * ref.abs()).sum().item()
            print(f"{label:13s} max|diff| {err:.4g}, {bad} of {out.numel()} elements off", flush=True)
        except Exception as exc:      # noqa: BLE001 - a variant that fails is reported
            print(f"{label:13s} FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)


if __name__ == "__main__":
    main()
