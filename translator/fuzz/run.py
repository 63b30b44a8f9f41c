"""Run generated programs: translate each one, and (on a GPU with cuTile) run the original and the
translation on the same inputs through the harness (translator.harness.verify), optionally record
the original's outputs as goldens. Each program gets one outcome:

  refused            the translator declined with a located diagnostic (the codes are kept)
  translator_error   internal error / invalid Python / Triton rejects the translation (C2T003/005/110)
  cutile_error       the ORIGINAL raised (the generator made an invalid program, or a cuTile bug)
  translation_error  the translation raised at run time
  disagree           both ran and some output differs beyond the tolerance policy
  agree              both ran and every output matches
  translated         translated only (no GPU run asked for)

Programs run in worker subprocesses (``python -m translator.fuzz one ...``), several at a time, each
under a time limit, so a hang or a lost CUDA context costs one program, not the run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .gen import header

INTERNAL = {"C2T003", "C2T005", "C2T110"}


def translate_status(source: str, filename: str, check=None) -> dict:
    from ..api import Options, translate_source
    res = translate_source(source, filename, Options(check=check))
    errors = [d for d in res.diagnostics if d.severity == "error"]
    codes = sorted({d.code for d in errors})
    if res.ok:
        return {"status": "translated", "code": res.code, "codes": []}
    located = all(getattr(d, "line", None) for d in errors)
    status = "translator_error" if set(codes) & INTERNAL or not located else "refused"
    return {"status": status, "code": None, "codes": codes,
            "messages": [f"{d.code} line {getattr(d, 'line', '?')}: {d.message}"[:300] for d in errors]}


def _clip(text: str) -> str:
    """The start and the end of an error (Triton's CompilationError puts the message last)."""
    return text if len(text) <= 2400 else text[:600] + "\n[...]\n" + text[-1800:]


def run_one(path: Path, gpu: bool, goldens: Path | None = None) -> dict:
    """Outcome of one program (see the module docstring), as a JSON-able dict."""
    source = path.read_text()
    info = header(source)
    out = {"file": path.name, "seed": info.get("seed"), "classes": info.get("classes", [])}
    t0 = time.perf_counter()
    tr = translate_status(source, str(path))
    out.update({k: v for k, v in tr.items() if k != "code"})
    if tr["codes"] == ["C2T110"]:
        # Triton's front end rejected the translation under the argument types the check tries; run
        # the unchecked translation anyway, so the outcome says whether the check or the code is wrong
        unchecked = translate_status(source, str(path), check=False)
        if unchecked["status"] == "translated":
            out["check_rejected"] = True
            tr = unchecked
    if tr["status"] != "translated" or not gpu:
        out["seconds"] = round(time.perf_counter() - t0, 2)
        return out
    from ..harness import record, verify
    from ..harness.errors import HarnessError
    try:
        if goldens is not None:
            try:
                record(path, goldens / path.stem, progress=False)
            except HarnessError as exc:
                out["record_error"] = str(exc)[:500]
        rep = verify(path, translated=tr["code"], mode="gpu", seeds=(0,), cases="cases", bench=False,
                     progress=False)
    except HarnessError as exc:
        out.update(status="cutile_error" if "original" in str(exc) else "harness_error", error=_clip(str(exc)))
        return out
    res = rep.results[0] if rep.results else None
    if res is None:
        out.update(status="harness_error", error="no result")
    elif res.error.startswith("original raised"):
        out.update(status="cutile_error", error=_clip(res.error))
    elif res.error:
        out.update(status="translation_error", error=_clip(res.error))
    elif res.passed:
        out["status"] = "agree"
    else:
        out.update(status="disagree", checks=[c.__dict__ for c in res.checks if not c.passed][:4])
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def worker_main(files: list[str], gpu: bool, goldens: str | None, jsonl: str):
    """Run files one after another in this process, appending one JSON line per file."""
    g = Path(goldens) if goldens else None
    with open(jsonl, "a") as fh:
        for f in files:
            try:
                r = run_one(Path(f), gpu, g)
            except Exception as exc:         # noqa: BLE001 - one broken program must not end the batch
                r = {"file": Path(f).name, "status": "harness_error", "error": f"{type(exc).__name__}: {exc}"[:1500]}
            fh.write(json.dumps(r, default=str) + "\n")
            fh.flush()
            if "illegal" in str(r.get("error", "")).lower():
                return                       # the CUDA context is gone: the parent runs the rest


def run_dir(folder: Path, *, gpu: bool, jobs: int = 4, batch: int = 8, timeout: float = 300.0,
            deadline: float | None = None, goldens: Path | None = None, out_jsonl: Path | None = None) -> list:
    """Run every fuzz_*.py under folder; return the outcome dicts (also in out_jsonl)."""
    files = sorted(str(p) for p in Path(folder).glob("fuzz_*.py"))
    out_jsonl = out_jsonl or Path(folder) / "results.jsonl"
    out_jsonl.unlink(missing_ok=True)
    end = time.time() + deadline if deadline else None
    pending = [files[i:i + batch] for i in range(0, len(files), batch)]

    def go(chunk):
        while chunk:
            left = None if end is None else end - time.time()
            if left is not None and left < 5:
                return
            part = f"{out_jsonl}.{os.getpid()}.{abs(hash(chunk[0]))}"
            cmd = [sys.executable, "-m", "translator.fuzz", "one", "--jsonl", part] + (["--gpu"] if gpu else []) + \
                (["--goldens", str(goldens)] if goldens else []) + chunk
            try:
                subprocess.run(cmd, timeout=min(timeout * len(chunk), left or 1e9), capture_output=True)
            except subprocess.TimeoutExpired:
                pass
            done = set()
            if Path(part).exists():
                lines = Path(part).read_text().splitlines()
                with open(out_jsonl, "a") as fh:
                    for line in lines:
                        fh.write(line + "\n")
                        done.add(json.loads(line)["file"])
                Path(part).unlink()
            rest = [f for f in chunk if Path(f).name not in done]
            if rest and len(rest) == len(chunk):       # the first one hung or killed the worker
                with open(out_jsonl, "a") as fh:
                    fh.write(json.dumps({"file": Path(rest[0]).name, "status": "timeout",
                                         "classes": header(Path(rest[0]).read_text()).get("classes", [])}) + "\n")
                rest = rest[1:]
            chunk = rest

    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(go, pending))
    return [json.loads(x) for x in out_jsonl.read_text().splitlines()] if out_jsonl.exists() else []


def summarize(results: list, generated: int) -> dict:
    from collections import Counter
    by_status = Counter(r["status"] for r in results)
    by_class: dict = {}
    for r in results:
        for c in r.get("classes", []):
            by_class.setdefault(c, Counter())[r["status"]] += 1
    refusals = Counter(c for r in results if r["status"] == "refused" for c in r.get("codes", []))
    check_rejected = Counter(r["status"] for r in results if r.get("check_rejected"))
    ran = sum(by_status[s] for s in ("agree", "disagree", "translation_error"))
    return {"generated": generated, "finished": len(results), "ran_both": ran, "by_status": dict(by_status),
            "refusal_codes": dict(refusals),
            "check_rejected_then": dict(check_rejected), "by_class": {c: dict(v) for c, v in sorted(by_class.items())},
            "failures": [{k: r.get(k) for k in ("file", "status", "codes", "messages", "error", "checks")}
                         for r in results if r["status"] not in ("agree", "translated", "refused") or r.get("check_rejected")]}


def to_markdown(summary: dict) -> str:
    lines = [f"programs generated: {summary['generated']}, finished: {summary['finished']}, "
             f"ran on both sides: {summary['ran_both']}", "",
             "| outcome | programs |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in sorted(summary["by_status"].items())]
    if summary["refusal_codes"]:
        lines += ["", "refusal codes: " + ", ".join(f"{k} x{v}" for k, v in sorted(summary["refusal_codes"].items()))]
    if summary.get("check_rejected_then"):
        lines += ["", "rejected by the translation check (C2T110), then run unchecked: " +
                  ", ".join(f"{k} {v}" for k, v in sorted(summary["check_rejected_then"].items()))]
    statuses = sorted({s for v in summary["by_class"].values() for s in v})
    lines += ["", "| class | " + " | ".join(statuses) + " |", "| --- |" + " --- |" * len(statuses)]
    for c, v in summary["by_class"].items():
        lines.append(f"| {c} | " + " | ".join(str(v.get(s, 0)) for s in statuses) + " |")
    return "\n".join(lines) + "\n"
