"""First-call latency of a cuTile program and of its translation (issue 37), on the GPU machine.

    python tests/gpu/first_call.py tests/gpu/ops/layernorm_bwd.py [more programs] --out DIR

For each program (a module carrying a C2T_SPEC, as tests/gpu/ops/ and examples/ do), each side runs
in fresh Python processes, twice: first with empty compile caches ("cold": cuTile's
CUDA_TILE_CACHE_DIR, Triton's TRITON_CACHE_DIR), then again with the caches the first process left
("warm", as a user's second run). The sides:
- `cutile`: the original module under cuTile;
- `triton`: its translation (`cutile2triton PROGRAM -o DIR/...`, translated before timing: what a
  user who ported the code runs);
- `shim`: the original module under `python -m translator.shim`, which translates each kernel at
  its first launch (the time includes that translation).
Each process times: importing the module (torch already imported and CUDA initialised), the first
call of the spec's entry on its first bench case (forward + backward where the entry is a training
step), and the second call (all synchronised). Prints a markdown table and writes DIR/first_call.json.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

_INNER = r'''
import importlib, json, sys, time
import torch
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
sys.path.insert(0, sys.argv[1])
t0 = time.perf_counter()
mod = importlib.import_module(sys.argv[2])
t1 = time.perf_counter()
spec = mod.C2T_SPEC
case = spec["bench_cases"][0]
dtype = getattr(torch, sys.argv[3])
args = getattr(mod, spec["make_args"])(case, dtype, 0, "cuda")
entry = getattr(mod, spec["entry"])
torch.cuda.synchronize()
t2 = time.perf_counter()
entry(*args)
torch.cuda.synchronize()
t3 = time.perf_counter()
entry(*args)
torch.cuda.synchronize()
t4 = time.perf_counter()
print("C2T_FIRST_CALL " + json.dumps({"import": t1 - t0, "first": t3 - t2, "second": t4 - t3, "case": case}))
'''

_SIDES = ("cutile", "triton", "shim")


def _run(side: str, folder: Path, module: str, dtype: str, caches: Path, timeout: int) -> dict:
    env = dict(os.environ, CUDA_TILE_CACHE_DIR=str(caches / "cutile"), TRITON_CACHE_DIR=str(caches / "triton"))
    cmd = [sys.executable] + (["-m", "translator.shim"] if side == "shim" else [])
    cmd += [str(caches / "inner.py"), str(folder), module, dtype]
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    wall = time.perf_counter() - start
    for line in p.stdout.splitlines():
        if line.startswith("C2T_FIRST_CALL "):
            out = json.loads(line[len("C2T_FIRST_CALL "):])
            out["process"] = wall
            return out
    return {"error": (p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--timeout", type=int, default=240)
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for prog in a.programs:
        prog = prog.resolve()
        tdir = a.out / "translated" / prog.stem
        tdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "translator", str(prog), "-o", str(tdir / prog.name), "-q"], check=True)
        for side in _SIDES:
            caches = a.out / "caches" / prog.stem / side
            shutil.rmtree(caches, ignore_errors=True)
            caches.mkdir(parents=True)
            (caches / "inner.py").write_text(_INNER)
            folder = tdir if side == "triton" else prog.parent
            for state in ("cold", "warm"):
                r = _run(side, folder, prog.stem, a.dtype, caches, a.timeout)
                rows.append(dict(r, program=prog.stem, side=side, state=state))
                print(prog.stem, side, state, r, flush=True)
    (a.out / "first_call.json").write_text(json.dumps(rows, indent=1))
    print("\n| program | caches | side | import s | first call s | second call s | process s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if "error" in r:
            print(f"| {r['program']} | {r['state']} | {r['side']} | error: {r['error']} | | | |")
        else:
            print(f"| {r['program']} | {r['state']} | {r['side']} | {r['import']:.2f} | {r['first']:.2f} | "
                  f"{r['second']:.4f} | {r['process']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
