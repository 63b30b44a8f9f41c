"""Goldens: outputs of the ORIGINAL cuTile kernel recorded on a GPU, checked on a CPU.

``record()`` runs the original entry on the spec's small ``cases`` (every dtype, seed 0).  The
inputs are made on the CPU with make_args(case, dtype, seed, "cpu") and copied to the device, so
the CPU side regenerates exactly the same inputs; a hash of them is stored to catch drift.
All cases × dtypes go into one ``numpy.savez_compressed`` file, ``goldens.npz`` (array keys
``case<i>_<dtype>_seed<s>_t<k>``); ``manifest.json`` lists the entries with their keys (a manifest
may also name one file per entry: the reader takes the file and key each entry names).  Dtypes
numpy lacks (bfloat16, float8) are stored as their raw bits (int16 / uint8) with the dtype named.

``check_goldens()`` runs the translated module (by default under the Triton interpreter on the
CPU) on the regenerated inputs and compares with the recorded outputs.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .errors import HarnessError
from .interop import device_properties, versions
from .loading import load_module
from .report import CaseResult
from .runner import Stopwatch, clone_args, flatten_tensors, mutated_inputs, pick, run_against, run_side
from .spec import load_spec, torch_dtype
from .verify import _say, run_mode, case_label, load_modules, make_args, new_report, policy_kwargs, select_dtypes

FORMAT = 1
PACK = "goldens.npz"
_BITS = {"bfloat16": "int16", "float8_e4m3fn": "uint8", "float8_e5m2": "uint8",
         "float8_e4m3fnuz": "uint8", "float8_e5m2fnuz": "uint8"}


def to_numpy(t):
    """(numpy array, stored_as) for a tensor; bf16/fp8 become raw bits."""
    import torch
    t = t.detach().to("cpu").contiguous()
    name = str(t.dtype).removeprefix("torch.")
    if name in _BITS:
        return t.view(getattr(torch, _BITS[name])).numpy(), _BITS[name]
    return t.numpy(), name


def from_numpy(arr, dtype_name: str):
    import torch
    t = torch.from_numpy(arr.copy())
    return t.view(torch_dtype(dtype_name)) if dtype_name in _BITS else t


def inputs_hash(args) -> str:
    """sha256 over dtype, shape, strides, offset and bytes of every tensor in args."""
    h = hashlib.sha256()
    for name, t in flatten_tensors(list(args), "arg"):
        c = t.detach().to("cpu").contiguous()
        h.update(f"{name}:{c.dtype}:{tuple(t.shape)}:{t.stride()}:{t.storage_offset()};".encode())
        if c.numel():
            h.update(c.reshape(-1).view(__import__("torch").uint8).numpy().tobytes())
    return h.hexdigest()


def _file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(path, out_dir, spec=None, *, device: str = "cuda", dtypes=None, cases: str = "cases",
           seed: int = 0, progress: bool = True) -> dict:
    """Run the original entry on the small cases and store its outputs under ``out_dir``.

    Returns the manifest dict (also written as out_dir/manifest.json).
    """
    path = Path(path).resolve()
    original = load_module(path)
    sp = load_spec(original, spec)
    entry = getattr(original, sp.entry)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"format": FORMAT, "file": path.name, "file_sha256": _file_sha(path), "entry": sp.entry,
                "case_list": cases, "device": device, "device_info": device_properties(device),
                "versions": versions(), "entries": []}
    case_list = sp.case_list(cases) or sp.case_list("gpu_cases")
    dts = select_dtypes(sp, dtypes)
    total = len(case_list) * len(dts)
    arrays = {}
    for ci, case in enumerate(case_list):
        for dt in dts:
            dname = str(dt).removeprefix("torch.")
            cpu_args = make_args(sp, case, dt, seed, "cpu")
            args = clone_args(cpu_args, device)
            pristine = clone_args(args)
            try:
                outs = run_side(entry, args, device)
            except Exception as exc:          # noqa: BLE001
                raise HarnessError(f"the original {sp.entry} raised on {case} {dname}: "
                                   f"{type(exc).__name__}: {exc}") from exc
            changed = mutated_inputs(pristine, args)
            named = outs + pick(flatten_tensors(list(args), "arg"), changed)
            tensors, stem = [], f"case{ci}_{dname}_seed{seed}"
            for k, (name, t) in enumerate(named):
                arrays[f"{stem}_t{k}"], stored = to_numpy(t)
                tensors.append({"name": name, "key": f"{stem}_t{k}", "dtype": str(t.dtype).removeprefix("torch."),
                                "stored_as": stored, "shape": list(t.shape)})
            manifest["entries"].append({"npz": PACK, "case": dict(case), "dtype": dname, "seed": seed,
                                        "inputs_sha256": inputs_hash(cpu_args), "tensors": tensors})
            _say(f"[record {len(manifest['entries'])}/{total}] {sp.entry} {case_label(case)} {dname}: "
                 f"{len(tensors)} tensor(s)", progress)
    import numpy as np
    np.savez_compressed(out / PACK, **arrays)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return manifest


def load_goldens(golden_dir) -> dict:
    gd = Path(golden_dir)
    mf = gd / "manifest.json"
    if not mf.is_file():
        raise HarnessError(f"{gd} has no manifest.json; record goldens first (cutile2triton verify FILE --record DIR)")
    manifest = json.loads(mf.read_text())
    if manifest.get("format") != FORMAT:
        raise HarnessError(f"{mf}: unknown goldens format {manifest.get('format')!r}")
    return manifest


def read_entry(golden_dir, entry: dict) -> list:
    import numpy as np
    with np.load(Path(golden_dir) / entry["npz"]) as z:
        return [(t["name"], from_numpy(z[t["key"]], t["dtype"])) for t in entry["tensors"]]


def check_goldens(path, golden_dir, spec=None, *, translated=None, mode: str = "interp", device: str = "cpu",
                  dtypes=None, progress: bool = True, translated_dir=None):
    """Run the translated module on the recorded cases and compare with the recorded outputs.

    mode="interp" (default) runs it under TRITON_INTERPRET=1 on the CPU; mode="gpu" runs it on
    ``device`` as is.  Returns a Report (mode "goldens").
    """
    path = Path(path).resolve()
    manifest = load_goldens(golden_dir)
    if mode == "interp":
        device = "cpu"
    notes = []
    if manifest.get("file_sha256") != _file_sha(path):
        notes.append(f"{path.name} changed since the goldens were recorded (sha256 differs)")
    with run_mode(mode):
        _, sp, tmod, tfile, diags = load_modules(path, spec, translated, mode, translated_dir)
        rep = new_report(path, sp, "goldens" + ("/interp" if mode == "interp" else ""), device, tfile)
        rep.notes += notes + [f"translator: {d}" for d in diags]
        rep.notes.append(f"goldens from {golden_dir}, recorded on {manifest.get('device_info', {}).get('name')} "
                         f"with cuda.tile {manifest.get('versions', {}).get('cuda.tile')}")
        fn = getattr(tmod, sp.entry)
        want = {str(torch_dtype(d)).removeprefix("torch.") for d in dtypes} if dtypes else None
        entries = [e for e in manifest["entries"] if want is None or e["dtype"] in want]
        for i, e in enumerate(entries, 1):
            dt = torch_dtype(e["dtype"])
            cpu_args = make_args(sp, e["case"], dt, e["seed"], "cpu")
            label = case_label(e["case"])
            with Stopwatch() as sw:
                if inputs_hash(cpu_args) != e["inputs_sha256"]:
                    checks, err = [], ("make_args produced different inputs than when the goldens were "
                                       "recorded (inputs hash differs): re-record the goldens")
                else:
                    expected = [(n, t.to(device)) for n, t in read_entry(golden_dir, e)]
                    checks, err = run_against(expected, fn, clone_args(cpu_args, device), device,
                                              policy=policy_kwargs(sp))
            res = CaseResult(label, e["case"], e["dtype"], e["seed"], passed=not err and all(c.passed for c in checks),
                             compared_against="golden", checks=checks, error=err, seconds=sw.seconds)
            rep.results.append(res)
            _say(f"[{i}/{len(entries)}] {sp.entry} {label} {res.dtype} vs golden: "
                 f"{'PASS' if res.passed else 'FAIL'} ({res.summary()}) {sw.seconds:.2f}s", progress)
    _say(f"{'PASS' if rep.ok else 'FAIL'}: {rep.n_passed}/{len(rep.results)} golden cases", progress)
    return rep
