"""record() -> check_goldens() round trip on the CPU (the 'original' is a plain-torch stand-in)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import code, fixture, import_harness  # noqa: E402

harness = import_harness()
ADD = fixture("add_orig.py")


@pytest.fixture
def goldens(tmp_path):
    manifest = harness.record(ADD, tmp_path / "g", device="cpu", progress=False)
    return tmp_path / "g", manifest


def test_record_writes_one_small_compressed_file(goldens):
    gdir, manifest = goldens
    assert len(manifest["entries"]) == 2 * 3                      # small cases x dtypes, seed 0
    on_disk = json.loads((gdir / "manifest.json").read_text())
    assert on_disk["entry"] == "vec_add" and on_disk["file"] == "add_orig.py"
    bf = [e for e in on_disk["entries"] if e["dtype"] == "bfloat16"][0]
    assert bf["seed"] == 0 and bf["case"] == {"N": 37} and len(bf["inputs_sha256"]) == 64
    assert bf["tensors"] == [{"name": "out", "key": "case0_bfloat16_seed0_t0", "dtype": "bfloat16",
                              "stored_as": "int16", "shape": [37]}]
    assert {e["npz"] for e in on_disk["entries"]} == {"goldens.npz"}
    assert sorted(p.name for p in gdir.iterdir()) == ["goldens.npz", "manifest.json"]
    assert (gdir / "goldens.npz").stat().st_size < 8192


def test_reads_a_manifest_with_one_file_per_entry(goldens, tmp_path):
    """Goldens recorded before the pack (one .npz per entry, keys t0...) still read and check."""
    import numpy as np
    gdir, manifest = goldens
    old = tmp_path / "old"
    old.mkdir()
    with np.load(gdir / "goldens.npz") as z:
        for i, e in enumerate(manifest["entries"]):
            arrays = {f"t{k}": z[t["key"]] for k, t in enumerate(e["tensors"])}
            np.savez_compressed(old / f"e{i}.npz", **arrays)
            e["npz"] = f"e{i}.npz"
            for k, t in enumerate(e["tensors"]):
                t["key"] = f"t{k}"
    (old / "manifest.json").write_text(json.dumps(manifest, default=str))
    rep = harness.check_goldens(ADD, old, translated=code("add_translated_triton.py"), progress=False)
    assert rep.ok and len(rep.results) == 6


def test_bf16_bits_round_trip(goldens):
    import torch
    gdir, manifest = goldens
    bf = [e for e in manifest["entries"] if e["dtype"] == "bfloat16"][0]
    (name, t), = harness.goldens.read_entry(gdir, bf)
    x, y = harness.goldens.make_args(harness.goldens.load_spec(harness.goldens.load_module(ADD)), {"N": 37},
                                     torch.bfloat16, 0, "cpu")
    assert name == "out" and t.dtype == torch.bfloat16 and torch.equal(t, x + y)


def test_check_goldens_with_triton_under_interpreter(goldens):
    gdir, _ = goldens
    rep = harness.check_goldens(ADD, gdir, translated=code("add_translated_triton.py"), progress=False)
    assert rep.ok and len(rep.results) == 6 and {r.compared_against for r in rep.results} == {"golden"}
    assert rep.mode == "goldens/interp"


def test_check_goldens_catches_broken_translation(goldens):
    gdir, _ = goldens
    rep = harness.check_goldens(ADD, gdir, translated=code("add_translated_bad_tail.py"), progress=False)
    assert not rep.ok
    assert [r.passed for r in rep.results if r.label == "N=64"] == [True] * 3     # 64 % 16 == 0
    assert not any(r.passed for r in rep.results if r.label == "N=37")


def test_check_goldens_detects_input_drift(goldens):
    gdir, _ = goldens
    mf = gdir / "manifest.json"
    data = json.loads(mf.read_text())
    data["entries"][0]["inputs_sha256"] = "0" * 64
    mf.write_text(json.dumps(data))
    rep = harness.check_goldens(ADD, gdir, translated=code("add_translated_ok.py"), progress=False)
    assert not rep.ok and "inputs hash differs" in rep.results[0].error
    assert all(r.passed for r in rep.results[1:])


def test_record_in_place_kernel(tmp_path):
    harness.record(fixture("axpy_orig.py"), tmp_path, device="cpu", progress=False)
    ok = harness.check_goldens(fixture("axpy_orig.py"), tmp_path, translated=code("axpy_translated_ok.py"),
                               progress=False)
    bad = harness.check_goldens(fixture("axpy_orig.py"), tmp_path, translated=code("axpy_translated_bad.py"),
                                progress=False)
    assert ok.ok and not bad.ok and bad.results[0].checks[0].name == "arg[0]"


def test_missing_goldens_is_bad_input(tmp_path):
    with pytest.raises(harness.HarnessError, match="no manifest.json"):
        harness.check_goldens(ADD, tmp_path, translated=code("add_translated_ok.py"))


def test_thin_keeps_every_case_and_dtype_and_the_recorded_bytes(goldens):
    """golden_thin: a case larger than the limit keeps one dtype (in turn), small cases keep all;
    the kept arrays are the recorded ones, and the thinned goldens still check."""
    import numpy as np
    from translator.harness import golden_thin
    gdir, manifest = goldens
    small = [e for e in manifest["entries"] if e["case"] == {"N": 37}]
    limit = max(golden_thin._entry_bytes(gdir / e["npz"], e) for e in small)
    with np.load(gdir / "goldens.npz") as z:
        before = {k: z[k].copy() for k in z.files}
    assert golden_thin.thin(gdir, limit) == (4, 2)
    after = json.loads((gdir / "manifest.json").read_text())["entries"]
    assert [(e["case"]["N"], e["dtype"]) for e in after] == [
        (37, "float32"), (37, "float16"), (37, "bfloat16"), (64, "float32")]
    with np.load(gdir / "goldens.npz") as z:
        assert sorted(z.files) == sorted(t["key"] for e in after for t in e["tensors"])
        assert all(np.array_equal(z[k], before[k]) for k in z.files)
    rep = harness.check_goldens(ADD, gdir, translated=code("add_translated_ok.py"), progress=False)
    assert rep.ok and len(rep.results) == 4
    bad = harness.check_goldens(ADD, gdir, translated=code("add_translated_bad_tail.py"), progress=False)
    assert not bad.ok
    assert golden_thin.thin(gdir, limit) == (4, 0)                 # idempotent
