"""CPU check (no GPU): translate TileGym originals, run their host code on the small cases of the
specs in tests/gpu/tilegym/ with every kernel launch captured, and compile each captured launch for
the H200 with Triton's launch-time specialization (tests/compile_sm90.py). Config searches are
made to launch every config (triton.autotune is disabled here), so every tuned config compiles.

    PYTHONPATH=.corpus/src python tests/gpu/compile_tilegym_sm90.py softmax rms_norm matmul ...
    PYTHONPATH=.corpus/src python tests/gpu/compile_tilegym_sm90.py --bench --ptxas mla_decoding bmm

`--bench` runs the specs' bench_cases (the shapes the GPU bench times) instead of the small cases
(`--all`: all small cases, not the first three; `liger_tvd`, `unsloth_geglu`: TileGym's suites);
`--ptxas` also prints each specialization's registers and spill stores (`ptxas -v` on its PTX):
spilling dot kernels were the slow ones on the H200 (docs/decisions/002-spill-retry.md);
for a kernel without dots whose registers fit one program per SM, also what the launcher's register
cap for two (_c2t_two_programs_per_sm) compiles to, and whether the launcher takes it (no spills).
`--dtypes`: every dtype of the spec with --bench (else the first). `--gpu-cases`: the specs'
gpu_cases (the shapes GPU verification runs). Without --ptxas each op's line also names the kernels
with narrow synchronous warpgroup MMAs with an operand from an MMA result (compile_sm90.
mma_fed_sync_dots: the Triton 3.6 miscompile of docs/decisions/010-narrow-products-transposed.md);
`--narrow=products|all|pad|off`: _c2t_mma's narrow rule as by default (C2T_NARROW=products), as with
C2T_NARROW=all or =pad, or taken out; `--dots`: a line per specialization with its PTX size and MMA kinds (diff two modes' output
to find the kernels a mode changes).

    PYTHONPATH=.corpus/src python tests/gpu/compile_tilegym_sm90.py --bench --ptxas --dtypes softmax liger_tvd

TileGym is read from .corpus/src (a fetched checkout; never committed)."""
import os
import sys
import warnings
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "gpu"), str(ROOT / ".corpus" / "src")]

import torch  # noqa: E402
import triton  # noqa: E402

import compile_sm90 as C  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.spec import load_spec  # noqa: E402


def _no_autotune(*args, **kwargs):
    raise RuntimeError("autotune disabled by the compile check: every config is launched instead")


def ptxas_usage(ptx: str) -> tuple:
    """(registers, spill-store bytes) that ptxas reports for this PTX on sm_90a."""
    import re
    import subprocess
    import tempfile
    import triton.backends.nvidia as nv
    ptxas = os.path.join(os.path.dirname(nv.__file__), "bin", "ptxas")
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        out = subprocess.run([ptxas, "-v", "--gpu-name=sm_90a", f.name, "-o", os.devnull],
                             capture_output=True, text=True).stderr
    regs = re.search(r"Used (\d+) registers", out)
    spill = re.search(r"(\d+) bytes spill stores", out)
    return (int(regs.group(1)) if regs else -1, int(spill.group(1)) if spill else -1)


def ptxas_lines(captured) -> list:
    """One line per distinct specialization: kernel, Constant arguments, options, registers, spills."""
    lines, seen = [], set()
    for name, fn, args, kwargs in captured:
        key, src, options = C.specialize_for_h200(fn, args, kwargs)
        if key in seen:
            continue
        seen.add(key)
        k = triton.compile(src, target=C._H200, options=options.__dict__)
        regs, spills = ptxas_usage(k.asm["ptx"])
        capped = ""
        threads = 32 * options.num_warps
        cap = min(255, 65536 // (2 * threads) // 8 * 8)
        if "num_stages" not in kwargs and regs > cap and 2 * threads <= 2048:
            # what the launcher's occupancy retry (_c2t_two_programs_per_sm) compiles next
            _, src2, options2 = C.specialize_for_h200(fn, args, {**kwargs, "maxnreg": cap})
            k2 = triton.compile(src2, target=C._H200, options=options2.__dict__)
            regs2, spills2 = ptxas_usage(k2.asm["ptx"])
            capped = (f"; capped at {cap} for two programs per SM: {regs2} registers, {spills2} B spilled"
                      f" ({'taken' if spills2 == 0 else 'not taken'})")
        names = fn.arg_names if hasattr(fn, "arg_names") else fn.fn.arg_names
        consts = {names[k[0]]: v for k, v in src.constants.items()
                  if len(k) == 1 and names[k[0]].isupper() and isinstance(v, (int, bool))}
        shared = k.metadata.shared
        fits = "" if shared <= 232448 else " (over 227 KB: the launcher retries with fewer stages)"
        lines.append(f"  {name} {consts} warps={options.num_warps} stages={options.num_stages} "
                     f"ctas={options.num_ctas}: {regs} registers, {spills} B spilled, {shared} B shared{fits}{capped}")
    return lines


def source_of(op: str) -> Path:
    """An op's TileGym file: ops/cutile/<op>.py (or ops/cutile/activation/<op>.py: gelu, geglu), or
    suites/<suite>/cutile/<name>.py for a spec named <suite>_<name> (liger_tvd, unsloth_geglu)."""
    suite, _, name = op.partition("_")
    if suite in ("liger", "unsloth") and name:
        return ROOT / ".corpus/src/tilegym/suites" / suite / "cutile" / f"{name}.py"
    path = ROOT / ".corpus/src/tilegym/ops/cutile" / f"{op}.py"
    return path if path.is_file() else ROOT / ".corpus/src/tilegym/ops/cutile/activation" / f"{op}.py"


def check(op: str, bench: bool = False, ptxas: bool = False, every_case: bool = False,
          every_dtype: bool = False, gpu_cases: bool = False, narrow: str = "products", dots: bool = False) -> str:
    path = source_of(op)
    orig = load_module(path)
    sp = load_spec(orig, ROOT / "tests/gpu/tilegym" / f"{op}_spec.py")
    code, _ = translate(path)
    if narrow == "off":         # the narrow-product rule taken out (what Triton compiled wrongly)
        # (sweep_tilegym_options.py is kept in earlier-runs.tar.xz; next_session.sh unpacks it)
        from sweep_tilegym_options import narrow_variant
        code = narrow_variant(code, "off")
    os.environ["C2T_NARROW"] = narrow if narrow in ("products", "pad") else "all"     # read at import
    mod, _ = load_translated(code, path)
    rebind_cutile_imports(mod)
    triton.autotune = _no_autotune
    captured = C._capture(mod)
    errors = []
    cases = sp.gpu_cases if gpu_cases else sp.bench_cases if bench else sp.cases if every_case else sp.cases[:3]
    for case in cases:
        for dt in (sp.dtypes[:1] if bench and not every_dtype else sp.dtypes):
            try:
                getattr(mod, sp.entry)(*sp.make_args(case, getattr(torch, dt), 0, "cpu"))
            except Exception as exc:      # noqa: BLE001 - captured launches return nothing; host code may fail after
                errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
    C._restore(mod)
    if ptxas:
        res = ptxas_lines(captured)
        note = f"; host code raised after the launches: {errors[0]}" if errors else ""
        return "\n".join([f"{op}: {len(res)} kernel specializations from {len(captured)} launches{note}"] + res)
    res = C._compile_calls(captured)
    note = f"; host code raised after the launches: {errors[0]}" if errors else ""
    fed = [f"{r[0]}: N={','.join(map(str, r[-1]))}" for r in res if r[-1]]
    each = [f"  {r[0]} ptx={r[1]}B wgmma={r[2]} mma.sync={r[3]}" for r in res] if dots else []
    head = (f"{op}: {len(res)} kernel specializations compiled for sm_90 from {len(captured)} launches{note}; "
            f"narrow synchronous warpgroup MMAs with an operand from an MMA result: {'; '.join(fed) or 'none'}")
    return "\n".join([head] + each)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    ok = True
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    for op in [a for a in sys.argv[1:] if not a.startswith("--")]:
        try:
            print(check(op, bench="--bench" in flags, ptxas="--ptxas" in flags, every_case="--all" in flags,
                        every_dtype="--dtypes" in flags, gpu_cases="--gpu-cases" in flags,
                        narrow=next((f.split("=")[1] for f in flags if f.startswith("--narrow=")), "products"),
                        dots="--dots" in flags),
                  flush=True)
        except Exception as exc:          # noqa: BLE001 - report and go on
            ok = False
            print(f"{op}: FAIL {type(exc).__name__}: {str(exc)[-800:]}", flush=True)
    sys.exit(0 if ok else 1)
