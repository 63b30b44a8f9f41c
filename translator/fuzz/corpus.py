"""The CPU replay corpus: generated programs and the outputs REAL cuTile gave for them (recorded on
a GPU with the harness's ``record``), packed into one JSON file (tensors as flat value lists: the
programs compute small exact values, so this is lossless and much smaller than npz files), and
unpacked again into programs plus golden folders that ``check_goldens`` / ``verify --goldens`` read.

    python -m translator.fuzz corpus PROGRAMS_DIR GOLDENS_DIR RESULTS.jsonl -o corpus.json [--max N]
"""
from __future__ import annotations

import json
from pathlib import Path

from .gen import header


def pick(results: list, limit: int) -> list:
    """Files of agreeing programs: greedily the one covering the most classes not yet covered, then
    (every class covered) the ones with the fewest classes, up to ``limit``."""
    ok = [r for r in results if r["status"] == "agree"]
    chosen, covered = [], set()
    while ok and len(chosen) < limit:
        best = max(ok, key=lambda r: (len(set(r["classes"]) - covered), -len(r["file"]), r["file"]))
        if not set(best["classes"]) - covered:        # every class covered: fill up, smallest first
            best = min(ok, key=lambda r: (len(r["classes"]), r["file"]))
        chosen.append(best["file"])
        covered |= set(best["classes"])
        ok.remove(best)
    return chosen


def pack(programs: Path, goldens: Path, files: list) -> dict:
    import numpy as np
    out = {"format": 1, "programs": {}}
    for f in files:
        stem = Path(f).stem
        src = (programs / f).read_text()
        src = "\n".join(l for l in src.splitlines() if not l.startswith("# c2t-fuzz choices:")) + "\n"
        man = json.loads((goldens / stem / "manifest.json").read_text())
        entries = []
        for e in man["entries"]:
            with np.load(goldens / stem / e["npz"]) as z:
                tensors = [dict(t, values=z[t["key"]].reshape(-1).tolist()) for t in e["tensors"]]
            entries.append({k: e[k] for k in ("case", "dtype", "seed", "inputs_sha256")} | {"tensors": tensors})
        out["programs"][stem] = {"source": src, "device": man.get("device_info", {}).get("name"),
                                 "cuda.tile": man.get("versions", {}).get("cuda.tile"), "entries": entries}
    return out


def unpack(corpus: dict, into: Path) -> list:
    """Write NAME.py and the golden folder NAME/ for every program; return [(program, golden dir)]."""
    import numpy as np
    into.mkdir(parents=True, exist_ok=True)
    done = []
    for stem, p in sorted(corpus["programs"].items()):
        prog = into / f"{stem}.py"
        prog.write_text(p["source"])
        gdir = into / stem
        gdir.mkdir(parents=True, exist_ok=True)
        entries = []
        for i, e in enumerate(p["entries"]):
            arrays, tensors = {}, []
            for t in e["tensors"]:
                arrays[t["key"]] = np.array(t["values"], dtype=t["stored_as"]).reshape(t["shape"])
                tensors.append({k: v for k, v in t.items() if k != "values"})
            name = f"case{i}_{e['dtype']}_seed{e['seed']}.npz"
            np.savez_compressed(gdir / name, **arrays)
            entries.append({k: e[k] for k in ("case", "dtype", "seed", "inputs_sha256")} | {"npz": name, "tensors": tensors})
        (gdir / "manifest.json").write_text(json.dumps({
            "format": 1, "file": prog.name, "entry": "run", "case_list": "cases", "device": "cuda",
            "device_info": {"name": p["device"]}, "versions": {"cuda.tile": p["cuda.tile"]}, "entries": entries}))
        done.append((prog, gdir))
    return done


def classes_of(corpus: dict) -> set:
    return {c for p in corpus["programs"].values() for c in header(p["source"]).get("classes", [])}
