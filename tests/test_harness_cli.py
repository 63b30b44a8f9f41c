"""`cutile2triton verify` entry point: translator.harness.cli.main(argv) exit codes and outputs."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import fixture, import_harness  # noqa: E402

import_harness()
from translator.harness.cli import main  # noqa: E402

ADD = str(fixture("add_orig.py"))


def test_pass_exit_0_and_reports(tmp_path, capsys):
    rc = main([ADD, "--device", "cpu", "--translated", str(fixture("add_translated_ok.py")),
               "--json", str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md")])
    out, err = capsys.readouterr()
    assert rc == 0
    assert "RESULT: PASS" in out and "tolerance policy" in out and "[12/12]" in err
    assert json.loads((tmp_path / "r.json").read_text())["ok"] is True
    assert "— PASS" in (tmp_path / "r.md").read_text()


def test_broken_translation_exit_1(capsys):
    rc = main([ADD, "--device", "cpu", "--translated", str(fixture("add_translated_bad_tail.py")),
               "--seeds", "0", "--dtypes", "bf16", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 1 and "RESULT: FAIL" in out and err == ""


def test_bad_input_exit_2_without_traceback(capsys):
    cases = [
        ([str(fixture("no_spec_orig.py")), "--device", "cpu", "--translated", ADD], "has no C2T_SPEC"),
        ([ADD, "--device", "cpu", "--spec", str(fixture("bad_spec_entry.py")), "--translated", ADD], "does_not_exist"),
        ([ADD, "--device", "cpu", "--spec", str(fixture("nope.py")), "--translated", ADD], "no such file"),
        ([str(fixture("nope.py"))], "no such file"),
        ([ADD, "--goldens", str(fixture("nope_dir")), "--translated", ADD], "no manifest.json"),
        ([ADD, "--device", "cpu", "--translated", str(fixture("missing_translation.py"))], "translated file not found"),
        ([ADD, "--mode", "interp", "--spec", str(fixture("add_spec_external.py")),
          "--translated", str(fixture("add_translated_ok.py")), "--dtypes", "float128"], "unknown dtype"),
    ]
    for argv, msg in cases:
        rc = main(argv)
        out, err = capsys.readouterr()
        assert rc == 2, argv
        assert msg in err and "Traceback" not in err + out, (argv, err)
    assert main(["--mode"]) == 2
    capsys.readouterr()


def test_record_then_goldens_cli(tmp_path, capsys):
    gdir = str(tmp_path / "goldens")
    assert main([ADD, "--record", gdir, "--device", "cpu", "--quiet"]) == 0
    assert "recorded 6 golden case(s)" in capsys.readouterr().out
    assert main([ADD, "--goldens", gdir, "--translated", str(fixture("add_translated_triton.py")), "--quiet"]) == 0
    assert main([ADD, "--goldens", gdir, "--translated", str(fixture("add_translated_bad_tail.py")), "--quiet"]) == 1
    assert "vs" in capsys.readouterr().out


def test_interp_mode_cli(capsys):
    rc = main([ADD, "--mode", "interp", "--translated", str(fixture("add_translated_triton.py")),
               "--dtypes", "bfloat16", "--seeds", "0", "3"])
    out, err = capsys.readouterr()
    assert rc == 0 and "mode: interp" in out and "[4/4]" in err


def test_partial_report_is_written_after_each_case_and_removed_at_the_end(tmp_path, monkeypatch):
    """A run cut off by a timeout keeps what it measured in JSON.partial (the bench suite reads it)."""
    import translator.harness.cli as cli
    seen = []
    real = cli._partial_writer

    def spy(path):
        write = real(path)

        def wrapped(report):
            write(report)
            seen.append(len(json.loads(Path(path + ".partial").read_text())["results"]))
        return wrapped
    monkeypatch.setattr(cli, "_partial_writer", spy)
    rc = main([ADD, "--device", "cpu", "--translated", str(fixture("add_translated_ok.py")), "--seeds", "0",
               "--dtypes", "float32", "--quiet", "--json", str(tmp_path / "r.json")])
    assert rc == 0 and seen == [1, 2]
    assert (tmp_path / "r.json").is_file() and not (tmp_path / "r.json.partial").exists()


def test_gpu_mode_without_a_gpu_says_to_use_interp(monkeypatch, capsys):
    import translator.harness.cli as cli
    monkeypatch.setattr(cli, "_cuda_available", lambda: False)
    rc = main([ADD, "--translated", str(fixture("add_translated_ok.py"))])
    out, err = capsys.readouterr()
    assert rc == 2 and "has none" in err and "--mode interp" in err and "Traceback" not in err + out
    # an explicit CPU device (a fake original that runs on the CPU) is not refused
    assert main([ADD, "--device", "cpu", "--translated", str(fixture("add_translated_ok.py")), "--quiet",
                 "--no-bench"]) == 0
