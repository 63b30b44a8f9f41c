"""Translate an example, import the Triton module under the interpreter, and compare with the
example's torch reference on its small cases (used by the tests, and handy by hand:
`TRITON_INTERPRET=1 python tests/run_example.py examples/softmax.py`)."""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_counter = [0]


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def translated_module(example: Path, code: str | None = None, out_dir: Path | None = None):
    """Write the translation of `example` to a real file (Triton needs the source) and import it."""
    if code is None:
        import translator
        res = translator.translate_file(example)
        assert res.code is not None, "\n".join(d.format() for d in res.diagnostics)
        code = res.code
    out_dir = out_dir or Path(tempfile.mkdtemp(prefix="c2t-"))
    _counter[0] += 1
    name = f"c2t_gen_{example.stem}_{_counter[0]}"
    path = out_dir / f"{name}.py"
    path.write_text(code)
    return load_module(path, name)


def original_module(example: Path):
    _counter[0] += 1
    return load_module(example, f"c2t_orig_{example.stem}_{_counter[0]}")


def tolerance(op_class: str, dtype) -> tuple[float, float]:
    import torch
    if not dtype.is_floating_point:
        return 0.0, 0.0
    base = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 1e-2}[dtype]
    scale = {"elementwise": 1, "reduction": 10, "matmul": 100, "integer": 1}.get(op_class, 10)
    if dtype == torch.float32:
        return base * scale, base * scale
    return base * (1 if scale < 100 else 4), base * (1 if scale < 100 else 4) * 2


def compare(out, ref, op_class, dtype, what=""):
    import torch
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    assert len(outs) == len(refs), f"{what}: {len(outs)} outputs vs {len(refs)} expected"
    for i, (o, r) in enumerate(zip(outs, refs)):
        assert o.dtype == r.dtype, f"{what} output {i}: dtype {o.dtype} != {r.dtype}"
        assert o.shape == r.shape, f"{what} output {i}: shape {tuple(o.shape)} != {tuple(r.shape)}"
        rtol, atol = tolerance(op_class, r.dtype if r.is_floating_point() else dtype)
        torch.testing.assert_close(o, r, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{what} output {i}: {m}")


def run_cases(example: Path, dtypes=None, seeds=(0,), mod=None):
    import torch
    from translator.harness import interp_numerics
    interp_numerics.install()    # bf16/fp8 by value in the CPU interpreter (see triton-target.md)
    orig = original_module(example)
    spec = orig.C2T_SPEC
    mod = mod or translated_module(example)
    entry, ref = getattr(mod, spec["entry"]), getattr(orig, spec["reference"])
    make_args = getattr(orig, spec["make_args"])
    n = 0
    for dt_name in dtypes or spec["dtypes"]:
        if dt_name not in spec["dtypes"]:
            continue
        dtype = getattr(torch, dt_name)
        for case in spec["cases"]:
            for seed in seeds:
                args = make_args(case, dtype, seed, "cpu")
                expected = ref(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
                got = entry(*args)
                compare(got, expected, spec.get("op_class", "reduction"), dtype,
                        f"{example.name} {case} {dt_name} seed={seed}")
                n += 1
    return n


if __name__ == "__main__":
    os.environ.setdefault("TRITON_INTERPRET", "1")
    sys.path.insert(0, str(ROOT))
    for p in sys.argv[1:]:
        print(p, run_cases(Path(p)), "cases ok")
