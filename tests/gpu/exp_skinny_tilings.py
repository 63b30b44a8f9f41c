"""GPU experiment (not part of the product): TileGym's tiled matmul (sp=False) translated, on
M=128 N=8192 K=8192, with one-config lists in place of the source's (_matmul_autotune_configs
replaced in the translated module), next to cuTile's original and torch.matmul: which tiling, if
any, reaches torch? (docs/gpu-runs/earlier-runs.tar.xz: skinny-and-inner-loops-2026-12-01.md section 2)

    python tests/gpu/exp_skinny_tilings.py       (GPU, after source .gpu/setup.sh; TileGym in .corpus/src)"""
import sys
from types import SimpleNamespace as NS
sys.path.insert(0, ".corpus/src"); sys.path.insert(0, ".")
import torch
from triton.testing import do_bench
from translator.harness.loading import translate, load_translated
from translator.harness.bench import graph_time_ms

path = ".corpus/src/tilegym/ops/cutile/matmul.py"
code, _ = translate(path)
mod, _ = load_translated(code, path, out_dir="/tmp/skinny")
import tilegym.ops.cutile.matmul as orig


def cfg(m, n, k, occ=1):
    return NS(TILE_SIZE_M=m, TILE_SIZE_N=n, TILE_SIZE_K=k, num_ctas=1, occupancy=occ)


lists = {
    "source list": None,
    "128x64x32": [cfg(128, 64, 32)],
    "128x64x64": [cfg(128, 64, 64)],
    "128x64x128": [cfg(128, 64, 128)],
    "64x128x64": [cfg(64, 128, 64)],
    "64x64x64": [cfg(64, 64, 64)],
    "64x64x128": [cfg(64, 64, 128)],
    "128x32x64": [cfg(128, 32, 64)],
    "128x32x128": [cfg(128, 32, 128)],
}
src_list = mod._matmul_autotune_configs
for dtype in (torch.float16, torch.bfloat16):
    torch.manual_seed(0)
    M, N, K = 128, 8192, 8192
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    ref = torch.matmul(a, b)
    t_torch = do_bench(lambda: torch.matmul(a, b), return_mode="median")
    g_torch = graph_time_ms(lambda: torch.matmul(a, b))
    orig.matmul(a, b, False, False, False)
    t_cu = do_bench(lambda: orig.matmul(a, b, False, False, False), return_mode="median")
    g_cu = graph_time_ms(lambda: orig.matmul(a, b, False, False, False))
    print(f"{dtype}: torch {t_torch*1e3:.1f} us (graph {g_torch*1e3:.1f}); cuTile {t_cu*1e3:.1f} us (graph {g_cu*1e3:.1f})")
    for name, lst in lists.items():
        mod._matmul_autotune_configs = src_list if lst is None else (lambda lst=lst: iter(lst))
        mod._matmul_tune_cache.clear()
        try:
            c = mod.matmul(a, b, False, False, False)
            err = (c.float() - ref.float()).abs().max().item()
            t = do_bench(lambda: mod.matmul(a, b, False, False, False), return_mode="median")
            g = graph_time_ms(lambda: mod.matmul(a, b, False, False, False))
            print(f"  {name:12s} {t*1e3:6.1f} us (graph {g*1e3:6.1f})  torch/triton {t_torch/t:.3f} (graph {g_torch/g:.3f})"
                  f"  cuTile/triton {t_cu/t:.3f}  max|err| {err:.3g}", flush=True)
        except Exception as exc:
            print(f"  {name}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
