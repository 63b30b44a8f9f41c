"""GPU experiment (not part of the product): time launch-option variants of translated examples
against the cuTile original, to choose what the translator should emit.
  python tests/gpu/sweep_launch_options.py matmul reduce_argmax transpose ..."""
import importlib.util, itertools, json, re, sys, types
import torch
from triton.testing import do_bench
sys.path.insert(0, ".")
import translator

VARIANTS = {
    "matmul": [dict(nw=nw, ns=ns, tma=t) for t in ("off", "auto") for nw, ns in [(8, 3), (8, 4), (4, 3), (4, 4), (8, 5)]],
    "reduce_argmax": [dict(nw=nw, ns=None, tma="off") for nw in (None, 1, 2, 4, 8, 16)],
    "transpose": [dict(nw=nw, ns=None, tma=t) for t in ("off", "auto") for nw in (None, 2, 4, 8)],
    "layernorm": [dict(nw=nw, ns=None, tma=t) for t in ("off", "auto") for nw in (None, 4, 8, 16)],
    # fewer warps: 16-byte vectors per thread for 512-wide fp16 tiles (64% of copy BW with 4 warps)
    "scale_rows": [dict(nw=nw, ns=None, tma=t) for t in ("off", "auto") for nw in (None, 1, 2)],
    "softmax": [dict(nw=nw, ns=None, tma=t) for t in ("off", "auto") for nw in (None, 4, 8, 16)],
    "vector_add": [dict(nw=nw, ns=None, tma="off") for nw in (None, 1, 2, 4, 8)],
}

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec); sys.modules[name] = m; spec.loader.exec_module(m); return m

def variant(code, name, nw, ns, tma, i):
    code = re.sub(r"\n\s*num_stages=_c2t_num_stages\([^\n]*\),", "", code)
    code = code.replace("num_warps=_c2t_num_warps(", "**_x_opts(")
    code += f"""
def _x_opts(*a, **k):
    o = {{"num_warps": {nw!r} or _c2t_num_warps(*a, **k)}}
    if {ns!r}: o["num_stages"] = {ns!r}
    return o
_C2T_TMA_MODE = {tma!r}
"""
    p = f"/tmp/x_{name}_{i}.py"; open(p, "w").write(code)
    return load(p, f"x_{name}_{i}")

res = []
for ex in sys.argv[1:]:
    orig = load(f"examples/{ex}.py", f"orig_{ex}")
    sp = orig.C2T_SPEC
    code = translator.translate_file(f"examples/{ex}.py").code
    mods = [(v, variant(code, ex, v["nw"], v["ns"], v["tma"], i)) for i, v in enumerate(VARIANTS[ex])]
    ref = getattr(sys.modules[f"orig_{ex}"], sp["reference"])
    for case in sp["bench_cases"]:
        for dt in [d for d in sp["dtypes"] if not (ex == "matmul" and d == "float32")]:
            dtype = getattr(torch, dt)
            args = getattr(orig, sp["make_args"])(case, dtype, 0, "cuda")
            t0 = do_bench(lambda: getattr(orig, sp["entry"])(*args), return_mode="median")
            row = {"ex": ex, "case": case, "dtype": dt, "cutile_ms": t0, "variants": []}
            if ex == "matmul":
                row["torch_ms"] = do_bench(lambda: torch.matmul(*args), return_mode="median")
            for v, m in mods:
                fn = getattr(m, sp["entry"])
                try:
                    out = fn(*args); exp = ref(*args)
                    outs = out if isinstance(out, tuple) else (out,); exps = exp if isinstance(exp, tuple) else (exp,)
                    ok = all(torch.allclose(a.float(), b.float(), rtol=2e-2, atol=2e-2) for a, b in zip(outs, exps))
                    t = do_bench(lambda: fn(*args), return_mode="median")
                except Exception as e:
                    ok, t = f"ERR {type(e).__name__}: {str(e)[:120]}", None
                row["variants"].append({**v, "ms": t, "ratio": t0 / t if t else None, "ok": ok})
            res.append(row)
            best = max((x for x in row["variants"] if x["ratio"]), key=lambda x: x["ratio"], default=None)
            print(ex, case, dt, f"cuTile {t0:.4f} ms", *(f"torch {row['torch_ms']:.4f}" for _ in [0] if "torch_ms" in row), flush=True)
            for x in row["variants"]:
                print(f"   nw={x['nw']} ns={x['ns']} tma={x['tma']}: {x['ms'] and round(x['ms'], 4)} ms ratio {x['ratio'] and round(x['ratio'], 3)} ok={x['ok']}", flush=True)
import os
json.dump(res, open(os.path.join(os.environ.get("OUT", "/tmp"), "sweep.json"), "w"), indent=1)
