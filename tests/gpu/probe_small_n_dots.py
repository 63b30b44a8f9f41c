"""GPU probe (not part of the product): TileGym's decode kernels with a query-group tile of 16
(attention_sink_decode G=16, flash_decode Hq/Hkv=16, mla_decoding's 16-head tile) multiply
(TILE_N, D) @ (D, 16) and (D, TILE_N) @ (TILE_N, 16) in fp16/bf16. The translated attention_sink
kernel departs from the math on the H200 at G=16 (tests/gpu/probe_sink_g16.py: right when either
product runs in fp32 or the second is computed transposed, (p^T v)^T), and the MLA kernel does at 4
warps. Variants of _c2t_mma: as translated, and with 16-bit products of N <= 16 (or <= 32) computed
transposed, trans(dot(b^T, a^T)), where M >= 64. Each is compared with cuTile's original; the MLA
bench cases are timed for each variant (the swap must not slow them).

    source .gpu/setup.sh; PYTHONPATH=$PWD:$PWD/.corpus/src python tests/gpu/probe_small_n_dots.py
"""
import torch
from triton.testing import do_bench

from probe_entries import entry_modules, gpu_setup
from sweep_tilegym_options import variant_code
from translator.harness.loading import load_translated, rebind_cutile_imports, translate

DOT = "    elif a.dtype == tl.float32:\n        return tl.dot(a, b, acc=acc, input_precision=PRECISION"
SWAP = ("    elif N <= {n} and a.dtype.primitive_bitwidth == 16 and len(a.shape) == 2 and M >= 64:\n"
        "        return tl.trans(tl.dot(tl.trans(b), tl.trans(a), acc=tl.trans(acc), out_dtype=acc.dtype))\n")


def swapped(code, n):
    assert DOT in code, "_c2t_mma changed: update the probe"
    return code.replace(DOT, SWAP.format(n=n) + DOT)


VARIANTS = [("translated", None, None), ("swap N<=16", 16, None), ("swap N<=32", 32, None),
            ("warps=4", None, 4), ("warps=4 swap N<=16", 16, 4)]
CASES = [("tg_attention_sink_decode", {"B": 1, "Hkv": 1, "G": 16, "KV": 128, "D": 128, "split": 128}),
         ("tg_attention_sink_decode", {"B": 1, "Hkv": 4, "G": 16, "KV": 777, "D": 128, "split": 128, "window": 300}),
         ("tg_attention_sink_decode", {"B": 1, "Hkv": 2, "G": 32, "KV": 777, "D": 128, "split": 128}),
         ("tg_flash_decode", {"B": 2, "Hq": 32, "Hkv": 2, "KV": 1000, "D": 128}),
         ("tg_flash_decode", {"B": 2, "Hq": 64, "Hkv": 2, "KV": 1000, "D": 128}),
         ("tg_mla_decoding", {"B": 2, "H": 32, "KV": 1000, "D": 512, "Dpe": 64, "transpose": True}),
         ("tg_mla_decoding", {"B": 3, "H": 16, "KV": 4097, "D": 128, "Dpe": 64, "transpose": True}),
         ("tg_attention_sink_decode", {"B": 1, "Hkv": 4, "G": 16, "KV": 777, "D": 64, "split": 128})]


def first(out):
    return out if isinstance(out, torch.Tensor) else out[0]


def main():
    gpu_setup()
    loaded = {}
    for name, _ in CASES:
        if name in loaded:
            continue
        _, _, _, path, orig, spec, _ = entry_modules(name)
        code, _ = translate(path)
        mods = []
        for label, n, warps in VARIANTS:
            m, _ = load_translated(variant_code(swapped(code, n) if n else code, warps, None, "small"), path)
            rebind_cutile_imports(m)
            mods.append((label, m))
        loaded[name] = (orig, spec, mods)
    for name, case in CASES:
        orig, spec, mods = loaded[name]
        args = spec.make_args(case, torch.float16, 0, "cuda")
        line = [name[3:] + " " + " ".join(f"{k}={v}" for k, v in case.items())]
        try:
            want = first(getattr(orig, spec.entry)(*args)).float()
        except Exception as exc:   # noqa: BLE001
            print(" | ".join(line + [f"original {type(exc).__name__}: {str(exc)[:80]}"]), flush=True)
            continue
        for label, mod in mods:
            try:
                got = first(getattr(mod, spec.entry)(*args)).float()
                torch.cuda.synchronize()
                line.append(f"{label} {(got - want).abs().max().item():.3g}")
            except Exception as exc:   # noqa: BLE001 - a probe reports and goes on
                line.append(f"{label} {type(exc).__name__}: {str(exc)[:60]}")
        print(" | ".join(line), flush=True)
    orig, spec, mods = loaded["tg_mla_decoding"]
    for case in spec.bench_cases[:3]:
        args = spec.make_args(case, torch.float16, 0, "cuda")
        f0 = getattr(orig, spec.entry)
        line = [f"time mla {case}: cuTile {do_bench(lambda: f0(*args), return_mode='median') * 1e3:.1f} us"]
        for label, mod in mods[:3]:
            f = getattr(mod, spec.entry)
            line.append(f"{label} {do_bench(lambda: f(*args), return_mode='median') * 1e3:.1f} us")
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
