"""Run another project's own test files on the GPU twice, with cuTile and with the shim
(translator/shim: the same files, `import cuda.tile` served by the translation), and compare test
by test (issue 35: what passes on cuTile must pass on the translation).

    python tests/gpu/peer_suite.py run TESTDIR OUT [--files F ...] [--jobs 14] [--timeout 240] [--deadline 520]
    python tests/gpu/peer_suite.py table OUT [OUT2 ...] > table.md     # merge runs, print the table

Each (file, side) is one pytest process (`-v -rfE -o addopts=`: the project's ini options may
name plugins the GPU machine lacks), its log kept under OUT; a file cut off by its timeout keeps
the outcomes printed so far. Outcomes are read from the `-v` lines, causes from the short summary."""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LINE = re.compile(r"^(\S+\.py::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
_SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+\.py::\S+?)(?: - (.*))?$")
# causes that are cuTile's own compiler under test, not a translation result
_CUTILE_ONLY = ("TileTypeError", "TileSyntaxError", "TileValueError", "TileCompilerError", "TileError",
                "TileUnsupportedFeatureError", "KernelSignature", "BytecodeVersion", "filecheck", "bytecode",
                "DID NOT RAISE")


def _run_one(testdir: Path, out: Path, f: str, side: str, timeout: int, extra: tuple = ()) -> dict:
    log = out / f"{side}__{f.replace('/', '_')}.log"
    cmd = [sys.executable] + (["-m", "translator.shim"] if side == "shim" else []) + [
        "-m", "pytest", "-v", "-rfE", "--tb=no", "-p", "no:cacheprovider", "-o", "addopts=", *extra, f]
    # COLUMNS: pytest cuts the short summary's causes to the terminal width
    env = dict(os.environ, PYTHONPATH=f"{ROOT}:{testdir}:{os.environ.get('PYTHONPATH', '')}", COLUMNS="400")
    t0 = time.time()
    with open(log, "w") as fh:
        try:
            rc = subprocess.run(cmd, cwd=testdir, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return {"file": f, "side": side, "rc": rc, "seconds": round(time.time() - t0, 1), "log": log.name}


def parse(log: Path) -> dict:
    outcomes, causes = {}, {}
    for ln in log.read_text(errors="replace").splitlines():
        m = _LINE.match(ln)
        if m:
            outcomes[m.group(1)] = m.group(2)
        m = _SUMMARY.match(ln)
        if m:
            causes[m.group(2)] = (m.group(3) or "").strip()[:300]
    return {"outcomes": outcomes, "causes": causes}


def cmd_run(a) -> int:
    testdir, out = Path(a.testdir).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    files = a.files or sorted(p.name for p in testdir.glob("test_*.py"))
    jobs = [(f, side) for f in files for side in a.sides]
    t_end = time.time() + a.deadline
    results = []
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        futs = {}
        pending = list(jobs)
        while pending or futs:
            while pending and len(futs) < a.jobs and time.time() < t_end - 20:
                f, side = pending.pop(0)
                left = int(max(10, min(a.timeout, t_end - time.time())))
                futs[pool.submit(_run_one, testdir, out, f, side, left, tuple(a.pytest_args.split()))] = (f, side)
            if not futs:
                break
            done, _ = cf.wait(futs, timeout=5, return_when=cf.FIRST_COMPLETED)
            for d in done:
                results.append(d.result())
                del futs[d]
        results += [{"file": f, "side": side, "rc": "not run"} for f, side in pending]
    (out / "runs.json").write_text(json.dumps(results, indent=1))
    print(f"{sum(r['rc'] != 'not run' for r in results)} of {len(jobs)} runs in {out}")
    return 0


def _cutile_only(cause: str) -> bool:
    return any(k in cause for k in _CUTILE_ONLY)


def table(outs: list) -> str:
    runs = {}
    for o in map(Path, outs):
        for r in json.loads((o / "runs.json").read_text()):
            if r["rc"] != "not run":
                runs[(r["file"], r["side"])] = (o, r)
    files = sorted({f for f, _ in runs})
    lines = ["| file | pass on cuTile | of those, pass on the translation | fail there | cuTile-only tests failing | other failures (first causes) |",
             "| --- | --- | --- | --- | --- | --- |"]
    tot = [0, 0, 0, 0]
    for f in files:
        if (f, "cutile") not in runs or (f, "shim") not in runs:
            continue
        (oc, rc), (os_, rs) = runs[(f, "cutile")], runs[(f, "shim")]
        c, s = parse(oc / rc["log"]), parse(os_ / rs["log"])
        passing = [t for t, v in c["outcomes"].items() if v == "PASSED"]
        ok = [t for t in passing if s["outcomes"].get(t) == "PASSED"]
        bad = [t for t in passing if t not in ok]
        only = [t for t in bad if _cutile_only(s["causes"].get(t, ""))]
        other = [t for t in bad if t not in only]
        causes = sorted({(s["causes"].get(t) or s["outcomes"].get(t, "not reached")) for t in other})[:3]
        note = "" if rc["rc"] != "timeout" and rs["rc"] != "timeout" else \
            f" (cut off: {'cuTile ' if rc['rc'] == 'timeout' else ''}{'translation' if rs['rc'] == 'timeout' else ''})"
        lines.append(f"| {f}{note} | {len(passing)} | {len(ok)} | {len(bad)} | {len(only)} | "
                     + "; ".join(x.replace("|", "/") for x in causes) + " |")
        for i, n in enumerate((len(passing), len(ok), len(only), len(other))):
            tot[i] += n
    lines.append(f"| **all** | {tot[0]} | {tot[1]} | {tot[0] - tot[1]} | {tot[2]} | {tot[3]} other |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("testdir")
    r.add_argument("out")
    r.add_argument("--files", nargs="*")
    r.add_argument("--jobs", type=int, default=14)
    r.add_argument("--timeout", type=int, default=240)
    r.add_argument("--deadline", type=int, default=520)
    r.add_argument("--pytest-args", default="", help="more pytest arguments, e.g. --maxfail=30")
    r.add_argument("--sides", nargs="+", default=["cutile", "shim"], choices=["cutile", "shim"],
                   help="shim alone runs on a CPU under TRITON_INTERPRET=1 (the shim's --cpu)")
    t = sub.add_parser("table")
    t.add_argument("outs", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        return cmd_run(a)
    print(table(a.outs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
