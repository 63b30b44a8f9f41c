"""GPU probe (not part of the product): cutile-python's AttentionFMHA sample, launched with fixed
tile configs from its own tune list (its `cutile_fmha` takes tile_m / tile_n), translated, against
torch's fp32 attention and timed next to cuTile's original (do_bench medians, us). Variants:
- narrow off: since the seventeenth session `_c2t_mma` computes 16-bit products of N = 16 or 32
  transposed (mma.sync) to avoid a Triton 3.6 wgmma miscompile found in TileGym's decode kernels;
  the sample's TILE_N=32 configs make q @ k such a product. Right both ways? What does it cost?
- before: the translation of an earlier commit, when BEFORE holds it (the eighteenth session: K as
  a 4-D masked-pointer load, before `k = k.reshape(...)` after a load was recognized as a squeezed
  load: one 2-D load, which can take a tensor descriptor, though not in these grids: see tma auto);
- warps=8: the launcher gives dot kernels 4 warps below 128x256 tiles; the 128x64 D=128 config
  compiles to 255 registers at 4 warps (no spills) and ran at half cuTile's speed (call 4);
- cap retry: the launcher's opt-in register-cap retry on (C2T_CAP_RETRY=1: 8 warps for a 4-warp
  dot kernel at 255 registers that does not spill with 8);
- tma auto: tensor descriptors at any grid size (C2T_TMA=auto; the default, "small", takes them
  only in launches of fewer programs than SMs, and the sample's grids are larger).
- narrow products / narrow all: C2T_NARROW=products (the default since the twentieth session: the
  narrow rule only for products in a chain of products; the 32-key configs' q @ k keeps the
  warpgroup MMA) or all (every narrow product transposed, the earlier default); sync-wgmma- and
  narrow-products-2026-11-30.md.
Command-line arguments pick variants by label (`"tma auto" translated`); all when none.

Needs the sample next to its utils folder (not committed):
    mkdir -p .corpus/cutile-python && cp -r <cutile-python>/samples/{AttentionFMHA.py,utils} .corpus/cutile-python/
    source .gpu/setup.sh; PYTHONPATH=$PWD:$PWD/tests/gpu:$PWD/.corpus/src:$PYTHONPATH python tests/gpu/probe_fmha_sample.py

Results: docs/gpu-runs/fmha-k-descriptor-2026-11-30.md section 3.
"""
import itertools
import os
import sys

import torch
from triton.testing import do_bench

from probe_entries import gpu_setup, tried
from sweep_tilegym_options import narrow_variant, variant_code
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate

PATH = ".corpus/cutile-python/AttentionFMHA.py"
# an earlier translation to time next to this one (optional; `cutile2triton <sample> -o BEFORE` at
# the commit to compare with)
BEFORE = ".corpus/cutile-python/fmha_translated_before.py"
# (TILE_M, TILE_N) of the sample's tune list (tune_cutile_fmha), num_ctas and occupancy aside
CONFIGS = ((64, 32), (256, 32), (32, 32), (64, 64), (128, 64), (128, 128), (256, 128))


def main():
    gpu_setup()
    orig = load_module(PATH)
    code, _ = translate(PATH)
    mods = []
    variants = (("translated", code), ("narrow off", narrow_variant(code, "off")),
                ("warps=8", variant_code(code, 8, None, "small")),
                ("cap retry", code + "\n_C2T_CAP_RETRY = True\n"),
                ("tma auto", code + "\n_C2T_TMA_MODE = 'auto'\n"),
                ("narrow products", narrow_variant(code, "products")),
                ("narrow all", narrow_variant(code, "all"))) + (
                    (("before", open(BEFORE).read()),) if os.path.exists(BEFORE) else ())
    wanted = sys.argv[1:] or [label for label, _ in variants]
    for label, new in variants:
        if label not in wanted:
            continue
        m, _ = load_translated(new, PATH)
        rebind_cutile_imports(m)
        mods.append((label, m))
    torch.manual_seed(0)
    for dtype, (tm, tn), D, causal in itertools.product((torch.float16,),
                                                        CONFIGS, (64, 128), (False,)):
        q, k, v = (torch.randn(4, 16, 2048, D, device="cuda", dtype=dtype) for _ in range(3))
        want = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
        line = [f"{str(dtype)[6:]} TILE_M={tm} TILE_N={tn} D={D} causal={causal}"]
        for label, mod in [("cuTile", orig)] + mods:
            f = lambda: mod.cutile_fmha(q, k, v, tile_m=tm, tile_n=tn, causal=causal)  # noqa: E731
            line.append(tried(label, lambda: f"err {(f().float() - want).abs().max().item():.3g} "
                                             f"{do_bench(f, return_mode='median') * 1e3:.0f} us"))
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
