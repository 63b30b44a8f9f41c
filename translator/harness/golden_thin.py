"""Thin recorded goldens so that they stay small in a repository: every case keeps at least one
dtype, and every dtype keeps the cases that are small.

    python -m translator.harness.golden_thin DIR [DIR ...] [--max-bytes N]

The rule, per case of the manifest: when all of a case's entries are at most ``max_bytes``
(compressed, in the pack) they are all kept; otherwise the case keeps one entry, the dtype chosen
in turn over the large cases (the first large case keeps the manifest's first dtype, the next one
the second, ...), so the large shapes are still checked and no dtype loses all of them. Nothing is
re-run or re-computed: the entries kept are the recorded ones, byte for byte.
"""
from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

DEFAULT_MAX_BYTES = 6000


def _entry_bytes(pack: Path, entry: dict) -> int:
    with zipfile.ZipFile(pack) as z:
        sizes = {i.filename.removesuffix(".npy"): i.compress_size for i in z.infolist()}
    return sum(sizes[t["key"]] for t in entry["tensors"])


def thin(golden_dir, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[int, int]:
    """Thin ``golden_dir`` in place; returns (entries kept, entries dropped)."""
    import numpy as np
    gdir = Path(golden_dir)
    manifest = json.loads((gdir / "manifest.json").read_text())
    entries = manifest["entries"]
    dtypes = list(dict.fromkeys(e["dtype"] for e in entries))
    cases: dict[str, list] = {}
    for e in entries:
        cases.setdefault(json.dumps(e["case"], sort_keys=True), []).append(e)
    keep, turn = [], 0
    for group in cases.values():
        if all(_entry_bytes(gdir / e["npz"], e) <= max_bytes for e in group):
            keep += group
            continue
        by_dtype = {e["dtype"]: e for e in group}
        order = dtypes[turn % len(dtypes):] + dtypes[:turn % len(dtypes)]
        keep.append(next(by_dtype[d] for d in order if d in by_dtype))
        turn += 1
    dropped = len(entries) - len(keep)
    if dropped:
        kept_ids = {id(e) for e in keep}
        packs: dict[str, dict] = {}
        for e in entries:
            if id(e) in kept_ids:
                with np.load(gdir / e["npz"]) as z:
                    packs.setdefault(e["npz"], {}).update({t["key"]: z[t["key"]] for t in e["tensors"]})
        manifest["entries"] = [e for e in entries if id(e) in kept_ids]
        for name, arrays in packs.items():
            tmp = gdir / f".{name}.tmp.npz"
            np.savez_compressed(tmp, **arrays)
            tmp.replace(gdir / name)
        (gdir / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return len(keep), dropped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    a = ap.parse_args(argv)
    for d in a.dirs:
        kept, dropped = thin(d, a.max_bytes)
        print(f"{d}: kept {kept} entries, dropped {dropped}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
