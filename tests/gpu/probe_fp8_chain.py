"""GPU probe (not part of the product): a translated cuTile decode pattern with one key tile (k @ q,
then v^T @ p: a chain of products) against cuTile's original and torch, in fp8 and fp16, at 16, 32
and 64 query heads, with _c2t_mma's narrow rule as translated (C2T_NARROW's default), as `all`, and
taken out (`off`: every product as written). The twentieth session extended the rule to fp8 products
in a chain at N = 64 after the hand-written pattern (probe_narrow_products.py --one-tile) was wrong
there as written and right transposed; this runs the translation itself.

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PYTHONPATH
    python tests/gpu/probe_fp8_chain.py

Each line: max |out - torch| for cuTile's original and each variant; jobs
run in child processes (probe_entries.jobs_in_children): a faulting MMA kills the CUDA context.
"""
import itertools
import sys
import tempfile
import textwrap
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # tests/: the shared programs
from kernel_util import HEADER  # noqa: E402
from narrow_programs import DECODE  # noqa: E402
from probe_entries import child_jobs, jobs_in_children  # noqa: E402
from sweep_tilegym_options import narrow_variant  # noqa: E402

# TileGym's decode pattern with one key tile, as the narrow-product tests have it: k(Q, K, V, O, ...)
# and run(q, k, vt), q (D, G), k (N, D), vt (D, N)
SOURCE = HEADER + textwrap.dedent(DECODE)

CASES = list(itertools.product(("float8_e4m3fn", "float16"), (16, 32, 64), (64, 128)))
VARIANTS = ("translated", "all", "off")


def _modules(tmp):
    from translator.harness.loading import load_module, load_translated, translate
    path = Path(tmp) / "fp8_chain.py"
    path.write_text(SOURCE)
    code, _ = translate(path)
    mods = {"translated": code, "all": narrow_variant(code, "all"), "off": narrow_variant(code, "off")}
    return load_module(path), {k: load_translated(v, path)[0] for k, v in mods.items()}


def _run(n, state={}):
    if "mods" not in state:
        state["tmp"] = tempfile.mkdtemp()
        state["orig"], state["mods"] = _modules(state["tmp"])
    job, variant = divmod(n, len(VARIANTS) + 1)
    dtype, G, N = CASES[job]
    dt = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(job)
    D = 128
    q = (torch.randn(D, G, device="cuda", generator=gen) / 4).to(dt)
    k = (torch.randn(N, D, device="cuda", generator=gen) / 4).to(dt)
    vt = torch.randn(D, N, device="cuda", generator=gen).to(dt)
    qk = k.float() @ q.float()
    p = torch.exp(qk - qk.max(0, keepdim=True).values)
    want = (vt.float() @ p.to(dt).float()) / p.sum(0, keepdim=True)
    if variant == 0:
        out, form = state["orig"].run(q, k, vt), "cuTile"
    else:
        label = VARIANTS[variant - 1]
        mod = state["mods"][label]
        out = mod.run(q, k, vt)
        form = label
    torch.cuda.synchronize()
    return f"{form} {(out - want).abs().max().item():.3g}"


if __name__ == "__main__":
    count = len(CASES) * (len(VARIANTS) + 1)
    if "--child" in sys.argv:
        child_jobs(_run, count, int(sys.argv[sys.argv.index("--child") + 1]))
        sys.exit(0)
    results = jobs_in_children([sys.executable, __file__], count)
    for job, (dtype, G, N) in enumerate(CASES):
        cells = [results.get(job * (len(VARIANTS) + 1) + v, "-") for v in range(len(VARIANTS) + 1)]
        print(f"{dtype} G={G} TILE_N={N} D=128 | " + " | ".join(cells), flush=True)
