"""CPU check (no GPU): translate TileGym originals, run their host code on the small cases of the
specs in tests/gpu/tilegym/ with every kernel launch captured, and compile each captured launch for
the H200 with Triton's launch-time specialization (tests/compile_sm90.py). Config searches are
made to launch every config (triton.autotune is disabled here), so every tuned config compiles.

    PYTHONPATH=.corpus/src python tests/gpu/compile_tilegym_sm90.py softmax rms_norm matmul ...

TileGym is read from .corpus/src (a fetched checkout; never committed)."""
import os
import sys
import warnings
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / ".corpus" / "src")]

import torch  # noqa: E402
import triton  # noqa: E402

import compile_sm90 as C  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.spec import load_spec  # noqa: E402


def _no_autotune(*args, **kwargs):
    raise RuntimeError("autotune disabled by the compile check: every config is launched instead")


def check(op: str) -> str:
    path = ROOT / ".corpus/src/tilegym/ops/cutile" / f"{op}.py"
    orig = load_module(path)
    sp = load_spec(orig, ROOT / "tests/gpu/tilegym" / f"{op}_spec.py")
    code, _ = translate(path)
    mod, _ = load_translated(code, path)
    rebind_cutile_imports(mod)
    triton.autotune = _no_autotune
    captured = C._capture(mod)
    errors = []
    for case in sp.cases[:3]:
        for dt in sp.dtypes:
            try:
                getattr(mod, sp.entry)(*sp.make_args(case, getattr(torch, dt), 0, "cpu"))
            except Exception as exc:      # noqa: BLE001 - captured launches return nothing; host code may fail after
                errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
    C._restore(mod)
    res = C._compile_calls(captured)
    note = f"; host code raised after the launches: {errors[0]}" if errors else ""
    return f"{op}: {len(res)} kernel specializations compiled for sm_90 from {len(captured)} launches{note}"


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    ok = True
    for op in sys.argv[1:]:
        try:
            print(check(op), flush=True)
        except Exception as exc:          # noqa: BLE001 - report and go on
            ok = False
            print(f"{op}: FAIL {type(exc).__name__}: {str(exc)[-800:]}", flush=True)
    sys.exit(0 if ok else 1)
