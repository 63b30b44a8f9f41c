"""`cutile2triton bench SUITE.py`: verify and time a list of cuTile modules in one run.

A suite file defines ``C2T_SUITE``, a list of entries::

    C2T_SUITE = [
        {"name": "softmax", "file": "examples/softmax.py"},                       # spec inside
        {"name": "rms_norm", "file": "{tilegym}/ops/cutile/rms_norm.py",           # fetched checkout
         "spec": "tests/gpu/tilegym/rms_norm_spec.py", "env": {"C2T_TMA": "auto"}},
        {"name": "matmul_4k", "file": "{tilegym}/ops/cutile/matmul.py", "spec": "...",
         "bench_cases": [0, 1], "check_cases": [0], "seeds": [0]},   # subsets, to fit one device call
    ]

``{tilegym}`` is replaced by ``--tilegym DIR`` (the ``src/tilegym`` folder of a TileGym checkout,
whose ``src`` is put on PYTHONPATH); entries whose files are missing are reported as skipped, not
passed. Each entry runs ``cutile2triton verify`` in its own process (a CUDA error that poisons
the context ends that entry only), with a per-entry timeout; the per-entry JSON reports are then
merged into one table: t_cuTile / t_Triton per kernel, shape and dtype, the geometric mean, the
share of the device copy bandwidth reached by memory-bound kernels, peers (hand-written Triton,
torch) and the issue's acceptance checks.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .bench import SHORT_MS, geomean
from .errors import HarnessError

MIN_RATIO = 0.85          # no kernel below this t_cuTile / t_Triton
MIN_COPY_SHARE = 0.85     # memory-bound kernels: at least this share of the copy bandwidth
MATMUL_SLACK = 0.10       # matmul within 10% of torch.matmul


def load_suite(path: Path, tilegym: str | None) -> list[dict]:
    ns: dict = {}
    try:
        exec(compile(Path(path).read_text(), str(path), "exec"), ns)   # noqa: S102 - a local config file
    except OSError as exc:
        raise HarnessError(f"cannot read suite {path}: {exc}") from exc
    suite = ns.get("C2T_SUITE")
    if not isinstance(suite, list) or not all(isinstance(e, dict) and "name" in e and "file" in e for e in suite):
        raise HarnessError(f"{path} must define C2T_SUITE = [{{'name': ..., 'file': ...}}, ...]")
    out = []
    for e in suite:
        e = dict(e)
        for key in ("file", "spec"):
            if key in e and "{tilegym}" in e[key]:
                e["needs_tilegym"] = True
                e[key] = e[key].replace("{tilegym}", tilegym or "<--tilegym not given>")
        out.append(e)
    return out


def entry_bench_cases(e: dict, spec, which: str = "") -> list:
    """The bench cases of suite entry `e` (the spec's, or the subset `e["bench_cases"]` names);
    `which` ("k", as in `entry:k` arguments of the GPU probes) picks the k-th of those."""
    cases = spec.bench_cases if e.get("bench_cases") is None else [spec.bench_cases[i] for i in e["bench_cases"]]
    return cases if not which else [cases[int(which)]]


def run_entry(e: dict, out: Path, args, env_base: dict) -> dict:
    """Run one entry's verify in a subprocess; return its JSON report (or a failure record)."""
    name = e["name"]
    if not Path(e["file"]).is_file():
        why = "--tilegym not given" if e.get("needs_tilegym") and not args.tilegym else f"no file {e['file']}"
        return {"name": name, "status": "skipped", "why": why}
    if e.get("spec") and not Path(e["spec"]).is_file():
        return {"name": name, "status": "skipped", "why": f"no spec {e['spec']}"}
    seeds = e.get("seeds", args.seeds)
    cmd = [sys.executable, "-m", "translator", "verify", e["file"], "--json", str(out / f"{name}.json"),
           "--md", str(out / f"{name}.md"), "--seeds", *[str(s) for s in seeds]]
    # (not --quiet: verify's progress, on stderr, lands in <name>.txt, also when a timeout cuts it off)
    if e.get("bench_cases") is not None:
        cmd += ["--bench-cases", *[str(i) for i in e["bench_cases"]]]
    if e.get("check_cases") is not None:
        cmd += ["--check-cases", *[str(i) for i in e["check_cases"]]]
    if e.get("spec"):
        cmd += ["--spec", e["spec"]]
    if e.get("dtypes") or args.dtypes:
        cmd += ["--dtypes", *(args.dtypes or e["dtypes"])]
    if args.no_bench:
        cmd.append("--no-bench")
    env = dict(env_base)
    env.update({k: str(v) for k, v in (e.get("env") or {}).items()})
    t0 = time.time()
    # a --timeout given on the command line wins; else the entry's own, else 300 s
    limit = args.timeout if args.timeout is not None else e.get("timeout", 300)
    (out / f"{name}.json.partial").unlink(missing_ok=True)
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired as exc:
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")   # noqa: E731
        (out / f"{name}.txt").write_text(text(exc.stdout) + "\n--- stderr ---\n" + text(exc.stderr))
        partial = out / f"{name}.json.partial"
        if not partial.is_file():
            return {"name": name, "status": "timeout", "why": f"no result within {limit} s"}
        rep = json.loads(partial.read_text())      # what it measured before the limit (verify --json)
        rep.update(name=name, status="timeout", seconds=limit, bound=e.get("bound") or rep.get("bound"),
                   why="; ".join(w for w in (f"cut off at {limit} s: {len(rep.get('results', []))} cases and "
                                             f"{len(rep.get('timings', []))} timings done", _status_notes(rep)) if w))
        return rep
    (out / f"{name}.txt").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    rep_path = out / f"{name}.json"
    if not rep_path.is_file():
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"name": name, "status": "error", "why": f"verify exited {proc.returncode}: {tail}"}
    rep = json.loads(rep_path.read_text())
    rep.update(name=name, status="pass" if rep["ok"] else "fail", seconds=round(time.time() - t0, 1),
               bound=e.get("bound") or rep.get("bound"), why=_status_notes(rep))
    return rep


def _status_notes(rep: dict) -> str:
    """The notes of an entry's status: that it checked no correctness case (`"check_cases": []`: its
    kernels are checked by another entry), so that its PASS is not read as a correctness result,
    and the translator switches it ran with (`--env`, the entry's own env or the caller's $C2T_*)."""
    checked = (rep.get("summary") or {}).get("cases", len(rep.get("results") or ()))
    settings = " ".join(f"{k}={v}" for k, v in sorted((rep.get("settings") or {}).items()))
    notes = ["" if checked else "timing only: no correctness case in this entry",
             f"with {settings}" if settings else ""]
    return "; ".join(n for n in notes if n)


def rows_of(reports: list[dict]) -> list[dict]:
    rows = []
    for rep in reports:
        bw = (rep.get("copy_bandwidth") or {}).get("gbps")
        for t in rep.get("timings", []):
            memory = rep.get("bound") == "memory" and t.get("gbps_triton")
            share = t["gbps_triton"] / bw if (bw and memory) else None
            same = t.get("gbps_copy_same")
            rows.append({"kernel": rep["name"], "case": t["label"], "dtype": t["dtype"], "bound": rep.get("bound"),
                         "t_cutile_ms": t["t_cutile_ms"], "t_triton_ms": t["t_triton_ms"], "ratio": t["ratio"],
                         "gbps_cutile": t.get("gbps_cutile"), "gbps_triton": t.get("gbps_triton"),
                         "tflops_cutile": t.get("tflops_cutile"), "tflops_triton": t.get("tflops_triton"),
                         "copy_share": share, "copy_same_share": t["gbps_triton"] / same if (memory and same) else None,
                         "copy_share_cutile": t["gbps_cutile"] / bw if (share is not None and t.get("gbps_cutile")) else None,
                         "peers": t.get("peers") or {}, "error": t.get("error", ""),
                         "ratio_graph": t.get("ratio_graph"), "ratio_spread": t.get("ratio_spread"),
                         "host_us_cutile": t.get("host_us_cutile"), "host_us_triton": t.get("host_us_triton"),
                         "runs_cutile_ms": t.get("runs_cutile_ms"), "runs_triton_ms": t.get("runs_triton_ms")})
    return rows


def checks(rows: list[dict]) -> list[tuple[str, bool, str]]:
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    gm = geomean(ratios)
    low = [r for r in rows if r["ratio"] and r["ratio"] < MIN_RATIO]
    mem = [r for r in rows if r["copy_share"] is not None]
    mem_low = [r for r in mem if r["copy_share"] < MIN_COPY_SHARE]
    mm = [(r, p) for r in rows for k, p in r["peers"].items() if k == "torch.matmul" and p.get("ratio")]
    mm_low = [(r, p) for r, p in mm if p["ratio"] < 1 - MATMUL_SLACK]
    lab = lambda r: f"{r['kernel']} {r['case']} {r['dtype']}"   # noqa: E731
    return [
        ("geometric mean of t_cuTile / t_Triton >= 1.0", gm is not None and gm >= 1.0,
         f"{gm:.3f} over {len(ratios)} rows" if gm else "no timings"),
        (f"no kernel below {MIN_RATIO}", bool(ratios) and not low,
         (", ".join(f"{lab(r)} {r['ratio']:.2f}" + _low_row_detail(r) for r in low) + _host_bound_note(low))
         or "none below"),
        (f"memory-bound rows at >= {MIN_COPY_SHARE:.0%} of the copy bandwidth", bool(mem) and not mem_low,
         ((", ".join(f"{lab(r)} {r['copy_share']:.0%}" for r in mem_low) if len(mem_low) <= LIST_MAX else
           f"{len(mem_low)} of {len(mem)} rows under it (each with its share in the section on memory-bound "
           "rows below)") + _cutile_share_note(mem_low)) or f"all {len(mem)} rows"),
        (f"matmul within {MATMUL_SLACK:.0%} of torch.matmul", bool(mm) and not mm_low,
         ", ".join(f"{lab(r)} t_torch/t_Triton {p['ratio']:.2f}" for r, p in mm_low) or
         (f"all {len(mm)} rows" if mm else "no torch.matmul peer timed")),
    ]


def _cutile_share_note(mem_low: list[dict]) -> str:
    """How many of the memory-bound rows under MIN_COPY_SHARE the cuTile original is under it too
    (its rate against the same copy): a row where only the translation falls short is a lead."""
    timed = [r for r in mem_low if r.get("copy_share_cutile") is not None]
    if not timed:
        return ""
    both = [r for r in timed if r["copy_share_cutile"] < MIN_COPY_SHARE]
    return (f"; cuTile's original is under {MIN_COPY_SHARE:.0%} on {len(both)} of these {len(timed)} rows too"
            if both else "")


def _low_row_detail(r: dict) -> str:
    """What else was measured on a row below MIN_RATIO: its graph-replay ratio (device time), each
    side's host microseconds per call and each side's do_bench runs, where timed."""
    parts = [f"graph {r['ratio_graph']:.2f}"] if r.get("ratio_graph") else []
    if r.get("host_us_cutile") and r.get("host_us_triton"):
        parts.append(f"host us cuTile / Triton {r['host_us_cutile']:.1f} / {r['host_us_triton']:.1f}")
    if r.get("runs_cutile_ms") and r.get("runs_triton_ms"):
        cut, tri = (" ".join(f"{ms * 1e3:.1f}" for ms in r[k]) for k in ("runs_cutile_ms", "runs_triton_ms"))
        parts.append(f"do_bench runs us cuTile {cut} / Triton {tri}")
    return f" ({', '.join(parts)})" if parts else ""


def _host_bound_note(low: list[dict]) -> str:
    """How many of the rows below MIN_RATIO reach it when only device time counts (graph replay):
    rows where the host's launch work, not the generated kernels, decides the do_bench ratio."""
    host = [r for r in low if r.get("ratio_graph") and r["ratio_graph"] >= MIN_RATIO]
    return (f"; {len(host)} of these {len(low)} reach {MIN_RATIO} by graph replay (device time alone): "
            "host-bound") if host else ""


def _same_size_copy_section(rows: list[dict]) -> list[str]:
    """Memory-bound rows under MIN_COPY_SHARE of the 1 GiB copy, against a copy of their own size
    and against cuTile's original (not an acceptance check: it says why each row is short)."""
    low = [r for r in rows if r["copy_share"] is not None and r["copy_share"] < MIN_COPY_SHARE]
    same = [r for r in low if r.get("copy_same_share") is not None]
    if not same:
        return []
    at = [r for r in same if r["copy_same_share"] >= MIN_COPY_SHARE]
    lead = [r for r in same if _short_because(r).startswith("below")]
    return ["", "## Memory-bound rows against a copy of their own size (not an acceptance check)", "",
            f"Of the {len(low)} memory-bound rows under {MIN_COPY_SHARE:.0%} of the 1 GiB copy's bandwidth, "
            f"{len(same)} were timed next to a torch clone moving the same bytes; {len(at)} of them reach "
            f"{MIN_COPY_SHARE:.0%} of that copy (short rows: launch, ramp-up and tail weigh more). "
            f"\"why\": \"its size\" where it reaches {MIN_COPY_SHARE:.0%} of the same-size copy, else "
            f"\"as cuTile's original\" where cuTile's original is under {MIN_COPY_SHARE:.0%} too and the "
            f"translation has at least {1 - CUTILE_SHARE_SLACK:.0%} of its rate, else \"below cuTile\" "
            f"({len(lead)} row{'' if len(lead) == 1 else 's'}; short rows among them may be host-bound: "
            "see the graph-replay and host sections).",
            "", "| kernel | case | dtype | % copy BW (1 GiB) | % same-size copy | cuTile % copy BW | why |",
            "|---|---|---|---|---|---|---|"] + [
        f"| {r['kernel']} | {r['case']} | {r['dtype']} | {r['copy_share']:.0%} | {r['copy_same_share']:.0%} | "
        f"{'-' if r.get('copy_share_cutile') is None else format(r['copy_share_cutile'], '.0%')} | {_short_because(r)} |"
        for r in same]


CUTILE_SHARE_SLACK = 0.05   # a row within 5% of cuTile's rate is "at cuTile's rate" (run-to-run noise)
LIST_MAX = 12               # an acceptance check names at most this many rows; more are counted


def _short_because(r: dict) -> str:
    """Why a memory-bound row is under MIN_COPY_SHARE of the 1 GiB copy, from what was measured."""
    if r.get("copy_same_share") is not None and r["copy_same_share"] >= MIN_COPY_SHARE:
        return "its size"
    c = r.get("copy_share_cutile")
    if c is None:
        return "-"
    if c >= MIN_COPY_SHARE:
        return f"below cuTile, which reaches {MIN_COPY_SHARE:.0%}"
    if r["copy_share"] >= (1 - CUTILE_SHARE_SLACK) * c:
        return "as cuTile's original"
    return f"below cuTile ({r['copy_share'] / c:.2f} of its rate)"


def _g(x, d=3):
    return "-" if x is None else f"{x:.{d}g}"


def render_markdown(reports: list[dict], rows: list[dict], cmd: str) -> str:
    out = ["# cutile2triton benchmark suite", "", f"Command: `{cmd}`", ""]
    bws = sorted({round(r["copy_bandwidth"]["gbps"]) for r in reports if r.get("copy_bandwidth")})
    if bws:
        out += [f"Device-to-device copy bandwidth measured in this run (per entry): {', '.join(map(str, bws))} GB/s", ""]
    out += ["## Correctness", "", "| kernel | status | cases passed | note |", "|---|---|---|---|"]
    for r in reports:
        s = r.get("summary") or {}
        out.append(f"| {r['name']} | {r['status'].upper()} | {s.get('passed', '-')}/{s.get('cases', '-')} | "
                   f"{r.get('why', '')} |")
    out += ["", "## Timing (median of do_bench; ratio = t_cuTile / t_Triton, > 1: Triton faster)", "",
            f"Rows where a side takes under {SHORT_MS} ms (0.1 ms in runs before 2026-11-30's eleventh "
            "session) are timed 5 times per side, the sides alternating; the medians are shown, and the "
            "range of the 5 paired ratios after the ratio (host-bound rows vary from run to run). "
            "\"graph\": the ratio by CUDA-graph replay (device time alone, below); \"host us\": each side's "
            "host microseconds per call, on short rows (below).", "",
            "| kernel | case | dtype | cuTile ms | Triton ms | ratio | graph | cuTile / Triton rate | % copy BW | "
            "% same-size copy | host us cuTile / Triton | peers: t_peer / t_Triton |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rate = (f"{_g(r['tflops_cutile'])} / {_g(r['tflops_triton'])} TFLOP/s" if r["tflops_triton"] is not None
                else f"{_g(r['gbps_cutile'], 4)} / {_g(r['gbps_triton'], 4)} GB/s" if r["gbps_triton"] is not None
                else "-")
        share = f"{r['copy_share']:.0%}" if r["copy_share"] is not None else "-"
        same = f"{r['copy_same_share']:.0%}" if r.get("copy_same_share") is not None else "-"
        peers = "; ".join(f"{k} {_g(p.get('ms'))} ms ({_g(p.get('ratio'))})" if p.get("ms") else f"{k}: failed"
                          for k, p in r["peers"].items()) or "-"
        spread = r.get("ratio_spread")
        rng = f" ({spread[0]:.2f}-{spread[1]:.2f})" if spread else ""
        host = (f"{r['host_us_cutile']:.1f} / {r['host_us_triton']:.1f}"
                if r.get("host_us_cutile") and r.get("host_us_triton") else "-")
        out.append(f"| {r['kernel']} | {r['case']} | {r['dtype']} | {_g(r['t_cutile_ms'])} | {_g(r['t_triton_ms'])} "
                   f"| **{_g(r['ratio'])}**{rng} | {_g(r.get('ratio_graph'))} | {rate} | {share} | {same} | {host} "
                   f"| {peers} |")
    out += _per_entry_section(rows)
    out += ["", "## Acceptance checks", ""]
    out += [f"- [{'x' if ok else ' '}] {what}: {detail}" for what, ok, detail in checks(rows)]
    out += _same_size_copy_section(rows)
    graph = [r for r in rows if r.get("ratio_graph")]
    if graph:
        low = [r for r in graph if r["ratio_graph"] < MIN_RATIO]
        out += ["", "## Device time alone (CUDA-graph replays; not an acceptance check)", "",
                "The ratios above include the host's launch work wherever it is longer than the kernel "
                "(short rows). Replaying each call from a captured CUDA graph times the device work alone "
                "(the timing table's \"graph\" column):",
                "", f"- geometric mean over {len(graph)} rows: {geomean(r['ratio_graph'] for r in graph):.3f}",
                f"- rows without it (a side could not be captured in a CUDA graph, or the row was timed "
                f"by an older harness): {sum(1 for r in rows if r['ratio'] and not r.get('ratio_graph'))}",
                "- below " + str(MIN_RATIO) + ": " + (", ".join(f"{r['kernel']} {r['case']} {r['dtype']} "
                                                                f"{r['ratio_graph']:.2f}" for r in low) or "none")]
    out += _host_time_section(rows)
    return "\n".join(out) + "\n"


def _per_entry_section(rows: list[dict]) -> list[str]:
    """Each suite entry's timed rows in one line: their geometric mean and range by do_bench, and
    the range by graph replay where timed."""
    entries: dict[str, list[dict]] = {}
    for r in rows:
        if r["ratio"]:
            entries.setdefault(r["kernel"], []).append(r)
    if not entries:
        return []
    out = ["", "## Per entry", "", "| kernel | rows | ratio: geometric mean (lowest-highest) | "
           "graph replay: lowest-highest |", "|---|---|---|---|"]
    for name, rs in entries.items():
        ratios = [r["ratio"] for r in rs]
        graph = [r["ratio_graph"] for r in rs if r.get("ratio_graph")]
        out.append(f"| {name} | {len(rs)} | {geomean(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f}) | "
                   + (f"{min(graph):.2f}-{max(graph):.2f}" if graph else "-") + " |")
    return out


def _host_time_section(rows: list[dict]) -> list[str]:
    """Short rows' host time per call, each side (the timing table's "host us" column): where
    do_bench's ratio is the hosts' rather than the kernels' (it times the host whenever the host
    falls behind the GPU's flush + call)."""
    host = [r for r in rows if r.get("host_us_cutile") and r.get("host_us_triton")]
    if not host:
        return []
    faster = sum(1 for r in host if r["host_us_triton"] < r["host_us_cutile"])
    return ["", "## Host time per call (short rows; not an acceptance check)", "",
            "Each side's host microseconds per call (the timing table's \"host us\" column: calls in a loop "
            "without synchronizing, the lowest of 3 runs). do_bench flushes the L2 cache before each timed "
            "call (about 61 us of device time on the H200) and times the device while the host keeps ahead "
            "of that, the host when it falls behind: rows whose host time is near the flush plus the call "
            "swing between the two (docs/decisions/029-bench-short-rows.md).", "",
            f"- rows with host times: {len(host)}; the translation's host is the faster on {faster}; "
            f"geometric mean of cuTile's host time over the translation's: "
            f"{geomean(r['host_us_cutile'] / r['host_us_triton'] for r in host):.3f}"]


def merge(entries: list[dict], folders: list[str], out: Path, cmd: str) -> int:
    """One table from the per-entry JSON reports of several runs (split to fit device-call limits)."""
    found = {}
    for k, folder in enumerate(folders, 1):
        for e in entries:
            f = Path(folder) / f"{e['name']}.json"
            partial = Path(folder) / f"{e['name']}.json.partial"
            if f.is_file():
                rep = json.loads(f.read_text())
                rep.update(name=e["name"], status="pass" if rep["ok"] else "fail",
                           bound=e.get("bound") or rep.get("bound"),
                           why="; ".join(w for w in (_status_notes(rep), f"from {folder}") if w))
                found[e["name"]] = _other_dtypes_kept(found.get(e["name"]), rep)
            elif partial.is_file() and found.get(e["name"], {}).get("status") in (None, "timeout"):
                # an entry cut off by its timeout: what it measured before (a whole report from an
                # earlier folder is kept over it)
                rep = json.loads(partial.read_text())
                rep.update(name=e["name"], status="timeout", bound=e.get("bound") or rep.get("bound"),
                           why="; ".join(w for w in (f"cut off; partial results from {folder}",
                                                     _status_notes(rep)) if w))
                found[e["name"]] = rep
    reports = [found.get(e["name"]) or {"name": e["name"], "status": "missing", "why": "in none of the folders"}
               for e in entries]
    print(write_reports(out, reports, cmd))
    return 0 if all(r["status"] == "pass" for r in reports) else 1


def _other_dtypes_kept(earlier: dict | None, later: dict) -> dict:
    """A later whole report of an entry replaces an earlier one, except for the earlier one's rows of
    dtypes the later one did not run at all (a run with --dtypes: the bf16 rows of a GEMM entry
    timed in a call of their own). Those timings and correctness cases stay, and the note says
    which folder each dtype's rows are from."""
    if not earlier or earlier.get("status") not in ("pass", "fail"):
        return later
    ran = {t["dtype"] for t in later.get("timings") or ()} | {c.get("dtype") for c in later.get("results") or ()}
    kept = [t for t in earlier.get("timings") or () if t["dtype"] not in ran]
    if not kept:
        return later
    cases = [c for c in earlier.get("results") or () if c.get("dtype") not in ran] + list(later.get("results") or ())
    merged = dict(later, timings=kept + list(later.get("timings") or ()), results=cases,
                  ok=bool(later["ok"] and all(c.get("passed") for c in cases)))
    merged["status"] = "pass" if merged["ok"] else "fail"
    merged["summary"] = dict(later.get("summary") or {}, cases=len(cases),
                             passed=sum(1 for c in cases if c.get("passed")))
    # where each dtype's rows are from (an earlier merge of this kind has its own map)
    source = {t["dtype"]: earlier["why"] for t in kept} | earlier.get("dtype_source", {})
    merged["dtype_source"] = {d: w for d, w in source.items() if d not in ran} | {d: later["why"] for d in ran if d}
    merged["why"] = "; ".join(f"{d} rows {w}" for d, w in sorted(merged["dtype_source"].items()))
    return merged


def write_reports(out: Path, reports: list[dict], cmd: str, done: bool = True) -> str:
    rows = rows_of(reports)
    md = render_markdown(reports, rows, cmd)
    if not done:
        md += "\n(run in progress: entries not listed here have not finished yet)\n"
    (out / "bench.md").write_text(md)
    (out / "bench.json").write_text(json.dumps({"entries": [{k: v for k, v in r.items() if k != "results"}
                                                            for r in reports], "rows": rows,
                                                "checks": checks(rows), "complete": done}, indent=1, default=str))
    return md


def build_parser():
    p = argparse.ArgumentParser(prog="cutile2triton bench",
                                description="Verify and time every entry of a suite (C2T_SUITE) on the GPU, "
                                            "and merge the results into one table.")
    p.add_argument("suite", help="Python file defining C2T_SUITE")
    p.add_argument("--tilegym", help="src/tilegym folder of a TileGym checkout (for {tilegym} entries)")
    p.add_argument("--out", default="bench-out", help="folder for per-entry reports and bench.md/bench.json")
    p.add_argument("--only", nargs="+", help="names of the entries to run")
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--dtypes", nargs="+", help="override every entry's dtypes")
    p.add_argument("--timeout", type=int, default=None,
                   help="seconds per entry (default: the entry's own 'timeout', else 300; given here, it wins)")
    p.add_argument("--no-bench", action="store_true", help="correctness only")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-entry progress lines on stderr")
    p.add_argument("--merge", nargs="+", metavar="DIR",
                   help="run nothing: merge the per-entry reports of earlier --out folders (a later folder wins "
                        "for an entry, except for rows of dtypes it did not time) into one table in --out")
    p.add_argument("--env", nargs="+", default=[], metavar="K=V",
                   help="environment for every entry (e.g. C2T_TMA=auto); an entry's own env wins")
    return p


def main(argv=None) -> int:
    p = build_parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        entries = load_suite(Path(args.suite), args.tilegym)
    except HarnessError as exc:
        print(f"cutile2triton bench: error: {exc}", file=sys.stderr)
        return 2
    if args.only:
        unknown = set(args.only) - {e["name"] for e in entries}
        if unknown:
            print(f"cutile2triton bench: error: no entries named {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        entries = [e for e in entries if e["name"] in args.only]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        return merge(entries, args.merge, out, "cutile2triton bench " + " ".join(argv if argv is not None
                                                                              else sys.argv[1:]))
    env = dict(os.environ)
    # (translations import translator.runtime: this checkout's, wherever the bench runs from)
    paths = [str(Path.cwd()), str(Path(__file__).resolve().parents[2])]
    if args.tilegym:
        paths.append(str(Path(args.tilegym).resolve().parent))
    for kv in args.env:
        if "=" not in kv:
            print(f"cutile2triton bench: error: --env wants K=V, got {kv!r}", file=sys.stderr)
            return 2
        k, v = kv.split("=", 1)
        env[k] = v
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    reports = []
    cmd = "cutile2triton bench " + " ".join(argv if argv is not None else sys.argv[1:])
    md = ""
    for i, e in enumerate(entries, 1):
        if not args.quiet:
            print(f"[{i}/{len(entries)}] {e['name']} ...", file=sys.stderr, flush=True)
        rep = run_entry(e, out, args, env)
        reports.append(rep)
        if not args.quiet:
            print(f"[{i}/{len(entries)}] {e['name']}: {rep['status'].upper()} {rep.get('why', '')}"
                  f" ({rep.get('seconds', '-')} s)", file=sys.stderr, flush=True)
        md = write_reports(out, reports, cmd, done=i == len(entries))   # a cut-short run keeps its table
    print(md)
    skipped = [r["name"] for r in reports if r["status"] == "skipped"]
    if skipped:
        print(f"cutile2triton bench: {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} skipped (not "
              f"passed): {', '.join(skipped)}", file=sys.stderr)
    return 0 if reports and all(r["status"] == "pass" for r in reports) else 1
