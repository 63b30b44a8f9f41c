"""GPU experiment (not part of the product): a bench row's time with calls back to back on the
stream (events around 10 calls, no L2 flush between them), next to do_bench's (which flushes the
L2 before each call), for cuTile, the translation and variants of the translation's cache hints.

On unsloth swiglu [8, 4096, 8192] fp16 (docs/gpu-runs/occupancy-2026-11-30.md, section 7) the
translation took 371 us per call by do_bench and 486 back to back, cuTile 379 and 386: a gap that
do_bench's flush hides, and that calls in a model (back to back, no flush) would see. Variants
(the translated module's text edited): `evict_first` on the loads of the gather helpers
(`tl.load(..., eviction_policy="evict_first")`), `.cs` (streaming) on the stores of the scatter
helpers, and both.

    python tests/gpu/probe_back_to_back.py tg_unsloth_swiglu:1 tg_unsloth_geglu:1
"""
import re
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, ".")
from tests.gpu.probe_entries import back_to_back_us, entry_modules, gpu_setup  # noqa: E402
from translator.harness.loading import load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.suite import entry_bench_cases  # noqa: E402
from translator.harness.verify import make_args, select_dtypes  # noqa: E402

_LOAD = re.compile(r"return tl\.load\(ptrs, mask=(\w+), other=other\)")
_STORE = re.compile(r"tl\.store\(ptrs, value, mask=(\w+)\)")


def variant(code, loads, stores):
    if loads:
        code = _LOAD.sub(r'return tl.load(ptrs, mask=\1, other=other, eviction_policy="evict_first")', code)
    if stores:
        code = _STORE.sub(r'tl.store(ptrs, value, mask=\1, cache_modifier=".cs")', code)
    return code


def main():
    gpu_setup()
    for arg in sys.argv[1:]:
        name, which, entry, path, orig, sp, trans = entry_modules(arg)
        code, _ = translate(path)
        sides = [("cuTile", orig), ("Triton", trans)]
        for label, loads, stores in (("evict_first loads", True, False), (".cs stores", False, True),
                                     ("both", True, True)):
            text = variant(code, loads, stores)
            if text == code:
                print(f"  ({label}: no gather/scatter helper to edit)")
                continue
            m, _ = load_translated(text, path)
            rebind_cutile_imports(m)
            sides.append((f"Triton, {label}", m))
        for dt in select_dtypes(sp, entry.get("dtypes"))[1:2]:
            for case in entry_bench_cases(entry, sp, which):
                args = make_args(sp, case, dt, 0, "cuda")
                print(f"== {name} {case} {str(dt)[6:]}", flush=True)
                ref = None
                for side, mod in sides:
                    a = clone_args(args)
                    f = (lambda m=mod, a=a: getattr(m, sp.entry)(*a))
                    out = f()
                    out = out if isinstance(out, torch.Tensor) else out[0]
                    ref = out.float() if ref is None else ref
                    err = (out.float() - ref).abs().max().item()
                    ms = do_bench(f, return_mode="median")
                    b2b = back_to_back_us(f)
                    print(f"  {side:26s} do_bench {ms * 1e3:6.1f} us | back to back "
                          + " ".join(f"{x:6.1f}" for x in b2b) + f" us | max|diff| {err:.3g}", flush=True)
                x = args[0]
                y = torch.empty_like(x)
                f = (lambda: torch.mul(x, x, out=y))
                print(f"  torch.mul(x, x) (reference) do_bench {do_bench(f, return_mode='median') * 1e3:6.1f} us | "
                      "back to back " + " ".join(f"{v:6.1f}" for v in back_to_back_us(f)) + " us", flush=True)


if __name__ == "__main__":
    main()
