"""`cutile2triton bench SUITE.py`: merging per-entry reports and the acceptance checks (CPU)."""
import json

from translator.harness import suite


def _rep(name, bound, rows, bw=4000.0, ok=True):
    return {"name": name, "status": "pass" if ok else "fail", "bound": bound, "ok": ok,
            "summary": {"cases": 2, "passed": 2 if ok else 1}, "copy_bandwidth": {"gbps": bw},
            "timings": [{"label": lab, "dtype": "float16", "t_cutile_ms": tc, "t_triton_ms": tt,
                         "ratio": tc / tt, "gbps_cutile": None, "gbps_triton": gb, "tflops_cutile": None,
                         "tflops_triton": None, "peers": peers, "error": ""}
                        for lab, tc, tt, gb, peers in rows]}


def test_checks_flag_slow_rows_bandwidth_and_matmul_peer():
    reps = [_rep("copy", "memory", [("N=1", 1.0, 1.0, 3900.0, {}), ("N=2", 1.0, 2.0, 1000.0, {})]),
            _rep("mm", "compute", [("M=1", 1.0, 0.8, None, {"torch.matmul": {"ms": 0.6, "ratio": 0.75}})])]
    rows = suite.rows_of(reps)
    assert [round(r["copy_share"], 3) if r["copy_share"] else None for r in rows] == [0.975, 0.25, None]
    res = {what.split(" ")[0]: (ok, detail) for what, ok, detail in suite.checks(rows)}
    gm = (1.0 * 0.5 * 1.25) ** (1 / 3)
    assert res["geometric"][0] is False and f"{gm:.3f}" in res["geometric"][1]
    assert res["no"][0] is False and "copy N=2 float16 0.50" in res["no"][1]
    assert res["memory-bound"][0] is False and "copy N=2 float16 25%" in res["memory-bound"][1]
    assert res["matmul"][0] is False and "t_torch/t_Triton 0.75" in res["matmul"][1]
    md = suite.render_markdown(reps, rows, "cutile2triton bench x.py")
    assert "| mm | M=1 | float16 | 1 | 0.8 | **1.25** |" in md and "- [ ] no kernel below 0.85" in md


def test_missing_files_are_skipped_and_the_run_fails(tmp_path, capsys):
    s = tmp_path / "suite.py"
    s.write_text('C2T_SUITE = [{"name": "a", "file": "{tilegym}/ops/cutile/x.py"},\n'
                 '             {"name": "b", "file": "nope.py", "spec": "nope_spec.py"}]\n')
    rc = suite.main([str(s), "--out", str(tmp_path / "out")])
    assert rc == 1                                    # skipped entries are not passes
    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert [(e["name"], e["status"]) for e in data["entries"]] == [("a", "skipped"), ("b", "skipped")]
    assert "--tilegym not given" in data["entries"][0]["why"]
    assert "2 entries skipped (not passed)" in capsys.readouterr().err


def test_bad_suite_and_unknown_names_are_usage_errors(tmp_path):
    s = tmp_path / "suite.py"
    s.write_text("C2T_SUITE = 3\n")
    assert suite.main([str(s)]) == 2
    s.write_text('C2T_SUITE = [{"name": "a", "file": "x.py"}]\n')
    assert suite.main([str(s), "--only", "zzz"]) == 2
    assert suite.main([str(s), "--env", "NOEQUALS"]) == 2


def test_project_suite_lists_examples_and_tilegym_entries():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    ns = {}
    exec((root / "tests/gpu/suite.py").read_text(), ns)
    names = {e["name"] for e in ns["C2T_SUITE"]}
    assert {"ex_matmul", "ex_concat", "tg_matmul", "tg_mla_decoding", "tg_rms_norm"} <= names
    for e in ns["C2T_SUITE"]:
        assert e["bound"] in ("memory", "compute")
        if "spec" in e:
            assert (root / e["spec"]).is_file(), e["spec"]
    assert sorted(" ".join(ns["PARTS"]).split()) == sorted(names)     # the parts cover the suite once


def test_merge_takes_each_entry_from_the_latest_folder(tmp_path):
    s = tmp_path / "suite.py"
    s.write_text('C2T_SUITE = [{"name": "a", "file": "a.py", "bound": "memory"},\n'
                 '             {"name": "b", "file": "b.py", "bound": "compute"},\n'
                 '             {"name": "c", "file": "c.py", "bound": "memory"}]\n')
    for folder, names, ratio in (("r1", ["a", "b"], 0.5), ("r2", ["a"], 2.0)):
        (tmp_path / folder).mkdir()
        for n in names:
            rep = _rep(n, None, [("N=1", ratio, 1.0, 100.0, {})])
            rep.pop("name"), rep.pop("status")
            (tmp_path / folder / f"{n}.json").write_text(json.dumps(rep))
    rc = suite.main([str(s), "--merge", str(tmp_path / "r1"), str(tmp_path / "r2"), "--out", str(tmp_path / "m")])
    data = json.loads((tmp_path / "m" / "bench.json").read_text())
    assert rc == 1                                          # c is missing
    assert [(r["kernel"], r["ratio"]) for r in data["rows"]] == [("a", 2.0), ("b", 0.5)]
    assert [e["status"] for e in data["entries"]] == ["pass", "pass", "missing"]
    assert data["rows"][0]["bound"] == "memory"


def test_entry_picks_bench_cases_and_seeds(tmp_path, monkeypatch):
    """A GEMM entry can time a subset of its spec's bench_cases with fewer seeds (to fit a device call)."""
    import subprocess
    import types
    f = tmp_path / "k.py"
    f.write_text("x = 1\n")
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        raise subprocess.TimeoutExpired(cmd, 1)
    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    args = types.SimpleNamespace(seeds=[0, 1], dtypes=None, no_bench=False, timeout=5, tilegym=None)
    rep = suite.run_entry({"name": "mm", "file": str(f), "bench_cases": [0, 2], "check_cases": [1], "seeds": [3]},
                          tmp_path, args, {})
    assert rep["status"] == "timeout"
    cmd = seen[0]
    assert cmd[cmd.index("--bench-cases") + 1:cmd.index("--bench-cases") + 3] == ["0", "2"]
    assert cmd[cmd.index("--check-cases") + 1:] [:1] == ["1"]
    assert cmd[cmd.index("--seeds") + 1:cmd.index("--seeds") + 2] == ["3"] and cmd[cmd.index("--seeds") + 2] != "1"
    suite.run_entry({"name": "all", "file": str(f)}, tmp_path, args, {})
    assert "--bench-cases" not in seen[1] and "--check-cases" not in seen[1]
    assert seen[1][seen[1].index("--seeds") + 1:][:2] == ["0", "1"]


def test_graph_replay_ratios_get_a_column_and_a_summary():
    """Each row's graph-replay ratio stands next to its do_bench ratio in the timing table ("-" where
    not timed); a section sums them up."""
    reps = [_rep("copy", "memory", [("N=1", 1.0, 2.0, 3900.0, {}), ("N=2", 1.0, 1.0, 3900.0, {})])]
    reps[0]["timings"][0]["ratio_graph"] = 1.5
    rows = suite.rows_of(reps)
    md = suite.render_markdown(reps, rows, "cutile2triton bench x.py")
    assert "## Device time alone (CUDA-graph replays; not an acceptance check)" in md
    assert "| copy | N=1 | float16 | 1 | 2 | **0.5** | 1.5 | - / 3900 GB/s |" in md
    assert "| copy | N=2 | float16 | 1 | 1 | **1** | - | - / 3900 GB/s |" in md
    assert "geometric mean over 1 rows: 1.500" in md
    assert "or the row was timed by an older harness): 1" in md          # N=2 has no graph timing
    # the acceptance checks still use the do_bench ratio; rows whose device time reaches it are named
    assert ("- [ ] no kernel below 0.85: copy N=1 float16 0.50 (graph 1.50); 1 of these 1 reach 0.85 by "
            "graph replay (device time alone): host-bound") in md
    reps[0]["timings"][0].update(host_us_cutile=70.2, host_us_triton=71.0)     # the host section's numbers
    md = suite.render_markdown(reps, suite.rows_of(reps), "cutile2triton bench x.py")
    assert "copy N=1 float16 0.50 (graph 1.50, host us cuTile / Triton 70.2 / 71.0); 1 of these 1" in md


def test_an_entry_cut_off_by_its_timeout_keeps_its_partial_results(tmp_path, monkeypatch):
    import subprocess
    import types
    f = tmp_path / "k.py"
    f.write_text("x = 1\n")
    part = _rep("mm", "compute", [("M=1", 1.0, 0.9, None, {})])
    part["results"] = [{"label": "M=1"}]

    def fake_run(cmd, **kw):
        (tmp_path / "mm.json.partial").write_text(json.dumps(part))     # what verify wrote so far
        raise subprocess.TimeoutExpired(cmd, 5, output=b"[1/3] ...", stderr=b"")
    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    args = types.SimpleNamespace(seeds=[0], dtypes=None, no_bench=False, timeout=5, tilegym=None)
    rep = suite.run_entry({"name": "mm", "file": str(f)}, tmp_path, args, {})
    assert rep["status"] == "timeout" and "cut off at 5 s: 1 cases and 1 timings done" in rep["why"]
    assert [r["case"] for r in suite.rows_of([rep])] == ["M=1"]
    assert "[1/3]" in (tmp_path / "mm.txt").read_text()
    # a merge of that folder takes the partial report too, marked as cut off
    captured = {}
    monkeypatch.setattr(suite, "write_reports", lambda out, reps, cmd: captured.setdefault("r", reps) and "")
    suite.merge([{"name": "mm"}], [str(tmp_path)], tmp_path / "m", "merge")
    assert captured["r"][0]["status"] == "timeout" and "partial" in captured["r"][0]["why"]


def test_entry_bench_cases_index_the_entrys_own_cases():
    """`tg_matmul_skinny:1` in the GPU probes is the skinny entry's second case (spec case 5), not
    the spec's case 1 (a 4096 matmul, which a probe once timed by mistake)."""
    from types import SimpleNamespace
    spec = SimpleNamespace(bench_cases=[{"M": m} for m in range(6)])
    assert suite.entry_bench_cases({"bench_cases": [4, 5]}, spec, "1") == [{"M": 5}]
    assert suite.entry_bench_cases({"bench_cases": [4, 5]}, spec) == [{"M": 4}, {"M": 5}]
    assert suite.entry_bench_cases({}, spec, "1") == [{"M": 1}]
    assert len(suite.entry_bench_cases({}, spec)) == 6


def test_command_line_timeout_wins_over_the_entrys(tmp_path, monkeypatch):
    """An entry's own timeout applies unless --timeout is given (it once silently cut a 560 s run at
    the entry's 420 s); an empty check_cases list runs no correctness case."""
    import subprocess
    import types
    f = tmp_path / "k.py"
    f.write_text("x = 1\n")
    limits, cmds = [], []

    def fake_run(cmd, timeout=None, **kw):
        limits.append(timeout)
        cmds.append(cmd)
        raise subprocess.TimeoutExpired(cmd, 1)
    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    entry = {"name": "mm", "file": str(f), "timeout": 420, "check_cases": []}
    for given in (None, 560):
        args = types.SimpleNamespace(seeds=[0], dtypes=None, no_bench=False, timeout=given, tilegym=None)
        suite.run_entry(entry, tmp_path, args, {})
    suite.run_entry({"name": "plain", "file": str(f)}, tmp_path,
                    types.SimpleNamespace(seeds=[0], dtypes=None, no_bench=False, timeout=None, tilegym=None), {})
    assert limits == [420, 560, 300]
    i = cmds[0].index("--check-cases")
    rest = cmds[0][i + 1:]
    assert not rest or rest[0].startswith("--")     # no indices: no correctness case


def test_merged_status_notes_timing_only_entries_and_translator_switches(tmp_path):
    """TileGym's bmm entries split shapes so that each fits a device call; one that checks no
    correctness case (`"check_cases": []`) must not read as a correctness PASS. A report also
    records the $C2T_* switches of its run (verify's `settings`), and its entry's status says so:
    C2T_TILE_VARIANTS rows are not the translation's default."""
    for name, cases, settings in (("timed", 0, {}), ("checked", 2, {}), ("tuned", 1, {"C2T_TILE_VARIANTS": "1"})):
        rep = _rep(name, "compute", [("M=1", 1.0, 1.0, None, {})])
        rep["summary"], rep["settings"] = {"cases": cases, "passed": cases}, settings
        rep.pop("name"), rep.pop("status")
        (tmp_path / f"{name}.json").write_text(json.dumps(rep))
    (tmp_path / "m").mkdir()
    suite.merge([{"name": "timed"}, {"name": "checked"}, {"name": "tuned"}], [str(tmp_path)], tmp_path / "m", "merge")
    md = (tmp_path / "m" / "bench.md").read_text()
    assert f"| timed | PASS | 0/0 | timing only: no correctness case in this entry; from {tmp_path} |" in md
    assert f"| checked | PASS | 2/2 | from {tmp_path} |" in md
    assert f"| tuned | PASS | 1/1 | with C2T_TILE_VARIANTS=1; from {tmp_path} |" in md


def test_verify_reports_record_the_c2t_switches_of_the_run(monkeypatch):
    from translator.harness import spec as S
    from translator.harness.verify import new_report
    monkeypatch.setenv("C2T_TILE_VARIANTS", "1")
    monkeypatch.delenv("C2T_TMA", raising=False)
    rep = new_report("x.py", S.Spec(entry="f", make_args=lambda *a: ()), "interp", "cpu")
    assert rep.to_dict()["settings"].get("C2T_TILE_VARIANTS") == "1" and "C2T_TMA" not in rep.settings
    assert "settings: " in rep.to_text() and "C2T_TILE_VARIANTS=1" in rep.to_text()


def test_a_merge_keeps_a_whole_report_over_a_later_cut_off_one(tmp_path, monkeypatch):
    """A rerun cut off by its timeout (mm.json.partial) does not replace the entry's whole report
    from an earlier folder; with no whole report, the partial one is taken."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    whole = {**_rep("mm", "compute", [("M=1", 1.0, 0.9, None, {})]), "ok": True}
    (old / "mm.json").write_text(json.dumps(whole))
    (new / "mm.json.partial").write_text(json.dumps(_rep("mm", "compute", [("M=1", 1.0, 2.0, None, {})])))
    captured = []
    monkeypatch.setattr(suite, "write_reports", lambda out, reps, cmd: captured.append(reps) or "")
    suite.merge([{"name": "mm"}], [str(old), str(new)], tmp_path / "m", "merge")
    assert captured[0][0]["status"] == "pass" and captured[0][0]["timings"][0]["t_triton_ms"] == 0.9
    suite.merge([{"name": "mm"}], [str(new)], tmp_path / "m", "merge")
    assert captured[1][0]["status"] == "timeout" and captured[1][0]["timings"][0]["t_triton_ms"] == 2.0


def test_merge_keeps_earlier_rows_of_dtypes_a_later_run_did_not_time(tmp_path):
    """A GEMM entry timed in fp16 by one call and in bf16 by another (--dtypes) merges into one
    entry with both dtypes' timings and correctness cases; a later run of a dtype replaces the
    earlier one's rows and cases of that dtype (a failure it fixed is gone)."""
    s = tmp_path / "suite.py"
    s.write_text('C2T_SUITE = [{"name": "mm", "file": "mm.py", "bound": "compute"}]\n')

    def write(folder, dtype, ratio, passed=(True, True)):
        rep = _rep("mm", None, [("M=1", ratio, 1.0, None, {})], ok=all(passed))
        rep.pop("name"), rep.pop("status")
        rep["timings"][0]["dtype"] = dtype
        rep["results"] = [{"dtype": dtype, "passed": p} for p in passed]
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mm.json").write_text(json.dumps(rep))

    def merged(*folders):
        out = tmp_path / ("m_" + "_".join(folders))
        suite.main([str(s), "--merge", *(str(tmp_path / f) for f in folders), "--out", str(out)])
        data = json.loads((out / "bench.json").read_text())
        return [(r["dtype"], r["ratio"]) for r in data["rows"]], data["entries"][0]
    write("f16", "float16", 0.9, passed=(True, False))
    write("b16", "bfloat16", 1.1)
    write("f16b", "float16", 0.95)
    rows, entry = merged("f16", "b16")
    assert rows == [("float16", 0.9), ("bfloat16", 1.1)]
    assert entry["status"] == "fail" and entry["summary"]["cases"] == 4 and entry["summary"]["passed"] == 3
    assert entry["why"] == f"bfloat16 rows from {tmp_path / 'b16'}; float16 rows from {tmp_path / 'f16'}"
    rows, entry = merged("f16", "b16", "f16b")
    assert rows == [("bfloat16", 1.1), ("float16", 0.95)]
    assert entry["status"] == "pass" and entry["summary"]["cases"] == 4 and entry["summary"]["passed"] == 4
    assert entry["why"] == f"bfloat16 rows from {tmp_path / 'b16'}; float16 rows from {tmp_path / 'f16b'}"


def test_memory_check_says_where_cutile_falls_short_too():
    """The memory-bound check's detail counts the short rows where the cuTile original is under the
    bar as well (its rate against the same copy bandwidth)."""
    rep = _rep("k", "memory", [("N=1", 1.0, 1.0, 3200.0, {}), ("N=2", 1.0, 1.0, 2000.0, {})])
    rep["timings"][0]["gbps_cutile"] = 3800.0      # cuTile at 95% of 4000 GB/s, the translation at 80%
    rep["timings"][1]["gbps_cutile"] = 1900.0      # both under 85%
    res = {what.split(" ")[0]: (ok, detail) for what, ok, detail in suite.checks(suite.rows_of([rep]))}
    assert res["memory-bound"] == (False, "k N=1 float16 80%, k N=2 float16 50%; cuTile's original is under 85% "
                                          "on 1 of these 2 rows too")


def test_a_long_list_of_memory_bound_rows_is_counted_in_the_check():
    """More rows under the copy share than the check names (LIST_MAX) are counted there; the section
    on memory-bound rows lists each."""
    timings = [(f"N={i}", 1.0, 1.0, 1000.0, {}) for i in range(suite.LIST_MAX + 1)]
    rep = _rep("k", "memory", timings)
    res = {name.split(" ")[0]: (ok, detail) for name, ok, detail in suite.checks(suite.rows_of([rep]))}
    assert res["memory-bound"] == (False, f"{suite.LIST_MAX + 1} of {suite.LIST_MAX + 1} rows under it (each "
                                          "with its share in the section on memory-bound rows below)")
    timings.pop()
    res = {name.split(" ")[0]: (ok, detail) for name, ok, detail in suite.checks(suite.rows_of([_rep("k", "memory", timings)]))}
    assert res["memory-bound"][1].startswith("k N=0 float16 25%, k N=1 float16 25%")


def test_short_rows_host_times_get_a_column_and_a_section():
    """Rows timed with each side's host time per call show it in the timing table, next to the
    do_bench and graph ratios ("-" on rows without); a section explains and sums them up, and a
    table without such rows has no such section."""
    rep = _rep("k", "memory", [("N=1", 0.04, 0.05, 1000.0, {}), ("N=2", 1.0, 1.0, 3900.0, {})])
    rep["timings"][0].update(host_us_cutile=72.6, host_us_triton=86.5, ratio_graph=1.19)
    rows = suite.rows_of([rep])
    md = suite.render_markdown([rep], rows, "cutile2triton bench x.py")
    assert "## Host time per call" in md
    assert "| k | N=1 | float16 | 0.04 | 0.05 | **0.8** | 1.19 | - / 1000 GB/s | 25% | - | 72.6 / 86.5 | - |" in md
    assert "| k | N=2 | float16 | 1 | 1 | **1** | - | - / 3900 GB/s | 98% | - | - | - |" in md
    assert ("- rows with host times: 1; the translation's host is the faster on 0; geometric mean of "
            "cuTile's host time over the translation's: 0.839") in md.split("## Host time per call")[1]
    rep["timings"][0].update(host_us_cutile=None, host_us_triton=None)
    assert "## Host time per call" not in suite.render_markdown([rep], suite.rows_of([rep]), "x")


def test_the_report_sums_up_each_entry():
    reps = [_rep("copy", "memory", [("N=1", 1.0, 2.0, 3900.0, {}), ("N=2", 1.0, 0.5, 3900.0, {})]),
            _rep("mm", "compute", [("M=1", 2.0, 1.0, None, {})])]
    reps[0]["timings"][0]["ratio_graph"] = 1.5
    md = suite.render_markdown(reps, suite.rows_of(reps), "cutile2triton bench x.py")
    assert "## Per entry" in md
    assert "| copy | 2 | 1.000 (0.50-2.00) | 1.50-1.50 |" in md      # sqrt(0.5 * 2.0) = 1
    assert "| mm | 1 | 2.000 (2.00-2.00) | - |" in md
