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
# causes that are cuTile's own compiler under test, not a translation result: its internals
# (bytecode, IR, signatures and export, compiler options: the shim serves stand-ins that raise
# when used) and its compile errors a test expects (`pytest.raises(TileTypeError)` not raised)
_INTERNALS = re.compile(r"`cuda\.tile\.(compilation|_bytecode|_compile|_ir2bytecode|_ir\.ops|_passes|_cext|"
                        r"_coroutine_util|_compiler_options|jax)\b[^`]*` is not served|filecheck|FileCheck")
# ("Regex pattern did not match": pytest.raises got the class it expects, a cuTile error the
# translation raised too, with other words than cuTile's message)
_COMPILE_ERRORS = re.compile(r"DID NOT RAISE (<class '[\w.]*)?Tile\w*Error|Regex pattern did not match")


def cause_class(cause: str) -> str:
    """'internals', 'compile-error' or 'other' for a failing test's short-summary cause."""
    if _INTERNALS.search(cause):
        return "internals"
    if _COMPILE_ERRORS.search(cause):
        return "compile-error"
    return "other"


def _run_one(testdir: Path, out: Path, f: str, side: str, timeout: int, extra: tuple = (), path: str = "") -> dict:
    log = out / f"{side}__{f.replace('/', '_')}.log"
    cmd = [sys.executable] + (["-m", "translator.shim"] if side == "shim" else []) + [
        "-m", "pytest", "-v", "-rfE", "--tb=no", "-p", "no:cacheprovider", "-o", "addopts=", *extra, f]
    # COLUMNS: pytest cuts the short summary's causes to the terminal width
    env = dict(os.environ, PYTHONPATH=f"{ROOT}:{path + ':' if path else ''}{testdir}:{os.environ.get('PYTHONPATH', '')}", COLUMNS="400")
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
    files = a.files or sorted(str(p.relative_to(testdir)) for p in testdir.glob(a.glob))
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
                futs[pool.submit(_run_one, testdir, out, f, side, left, tuple(a.pytest_args.split()),
                                  ":".join(str(Path(p).resolve()) for p in a.pythonpath))] = (f, side)
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


def table(outs: list) -> str:
    runs = {}
    for o in map(Path, outs):
        for r in json.loads((o / "runs.json").read_text()):
            if r["rc"] != "not run":
                runs[(r["file"], r["side"])] = (o, r)
    files = sorted({f for f, _ in runs})
    lines = ["| file | pass on cuTile | of those, pass on the translation | fail there | of which: cuTile internals | "
             "cuTile compile errors expected | other (first causes) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    tot = [0, 0, 0, 0, 0]
    for f in files:
        if (f, "cutile") not in runs or (f, "shim") not in runs:
            continue
        (oc, rc), (os_, rs) = runs[(f, "cutile")], runs[(f, "shim")]
        c, s = parse(oc / rc["log"]), parse(os_ / rs["log"])
        passing = [t for t, v in c["outcomes"].items() if v == "PASSED"]
        ok = [t for t in passing if s["outcomes"].get(t) == "PASSED"]
        bad = [t for t in passing if t not in ok]
        by = {k: [t for t in bad if cause_class(s["causes"].get(t, "")) == k]
              for k in ("internals", "compile-error", "other")}
        causes = sorted({(s["causes"].get(t) or s["outcomes"].get(t, "not reached")) for t in by["other"]})[:3]
        note = "" if rc["rc"] != "timeout" and rs["rc"] != "timeout" else \
            f" (cut off: {'cuTile ' if rc['rc'] == 'timeout' else ''}{'translation' if rs['rc'] == 'timeout' else ''})"
        lines.append(f"| {f}{note} | {len(passing)} | {len(ok)} | {len(bad)} | {len(by['internals'])} | "
                     f"{len(by['compile-error'])} | {len(by['other'])}: "
                     + "; ".join(x.replace("|", "/")[:160] for x in causes) + " |")
        for i, n in enumerate((len(passing), len(ok), len(by["internals"]), len(by["compile-error"]), len(by["other"]))):
            tot[i] += n
    lines.append(f"| **all** | {tot[0]} | {tot[1]} | {tot[0] - tot[1]} | {tot[2]} | {tot[3]} | {tot[4]} |")
    return "\n".join(lines)


def causes(outs: list) -> str:
    """Every failing test's cause (of those passing on cuTile), grouped: count, class, cause."""
    from collections import Counter
    n = Counter()
    for o in map(Path, outs):
        rs = {(r["file"], r["side"]): r for r in json.loads((o / "runs.json").read_text()) if r["rc"] != "not run"}
        for (f, side), r in rs.items():
            if side != "shim" or (f, "cutile") not in rs:
                continue
            c, s = parse(o / rs[(f, "cutile")]["log"]), parse(o / r["log"])
            for t, v in c["outcomes"].items():
                if v == "PASSED" and s["outcomes"].get(t) != "PASSED":
                    cause = s["causes"].get(t) or s["outcomes"].get(t, "not reached")
                    n[(f, cause_class(cause), re.sub(r"\d+", "N", cause)[:220])] += 1
    return "\n".join(f"{k} {f} [{cl}] {cause}" for (f, cl, cause), k in n.most_common())


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
    r.add_argument("--glob", default="test_*.py", help="test files under TESTDIR (e.g. tests/ops/**/test_*.py)")
    r.add_argument("--pythonpath", nargs="*", default=[], help="folders put on PYTHONPATH (e.g. TileGym's src)")
    r.add_argument("--pytest-args", default="", help="more pytest arguments, e.g. --maxfail=30")
    r.add_argument("--sides", nargs="+", default=["cutile", "shim"], choices=["cutile", "shim"],
                   help="shim alone runs on a CPU under TRITON_INTERPRET=1 (the shim's --cpu)")
    t = sub.add_parser("table")
    t.add_argument("outs", nargs="+")
    t.add_argument("--causes", action="store_true", help="every failing test's cause, grouped and counted")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        return cmd_run(a)
    print(causes(a.outs) if a.causes else table(a.outs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
