"""verify() on CPU with plain-torch stand-ins for the original and the translation."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import code, fixture, import_harness  # noqa: E402

harness = import_harness()
HarnessError = harness.HarnessError
ADD = fixture("add_orig.py")


def test_correct_translation_passes(capsys):
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_ok.py"))
    assert rep.ok and len(rep.results) == 2 * 3 * 2          # gpu_cases x dtypes x seeds
    assert {r.compared_against for r in rep.results} == {"original"}
    assert any("timing skipped" in n for n in rep.notes) and not rep.timings
    err = capsys.readouterr().err
    assert "[1/12] vec_add N=1000 float32 seed=0: PASS" in err and "[12/12]" in err   # progress lines


def test_broken_tail_is_reported():
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_bad_tail.py"), progress=False)
    assert rep.ok is False
    by = {(r.label, r.dtype, r.seed): r for r in rep.results}
    bad = by[("N=1023", "float32", 0)]
    assert not bad.passed
    (chk,) = bad.checks
    assert chk.mismatches == 1023 % 16 and chk.first_mismatch == [1008] and chk.max_rel == 1.0
    assert by[("N=1000", "float16", 1)].checks[0].mismatches == 1000 % 16


def test_wrong_dtype_fails_even_with_equal_values():
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_wrong_dtype.py"),
                         dtypes=["float16"], seeds=(0,), progress=False)
    assert not rep.ok
    assert "dtype float32 != expected float16" in rep.results[0].checks[0].problem


def test_float32_passes_when_only_float32_selected():
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_wrong_dtype.py"),
                         dtypes=["fp32"], cases="cases", progress=False)
    assert rep.ok and {r.label for r in rep.results} == {"N=37", "N=64"}


def test_in_place_outputs_are_compared():
    good = harness.verify(fixture("axpy_orig.py"), device="cpu", translated=code("axpy_translated_ok.py"),
                          progress=False)
    assert good.ok and [c.name for c in good.results[0].checks] == ["arg[0]"]
    bad = harness.verify(fixture("axpy_orig.py"), device="cpu", translated=code("axpy_translated_bad.py"),
                         progress=False)
    assert not bad.ok and bad.results[0].checks[0].mismatches == 5


def test_translated_exception_is_a_failure_not_a_crash():
    broken = "def vec_add(x, y):\n    raise RuntimeError('launch failed')\n"
    rep = harness.verify(ADD, device="cpu", translated=broken, seeds=(0,), dtypes=["float32"], progress=False)
    assert not rep.ok and rep.results[0].error.startswith("translated raised RuntimeError: launch failed")


def test_external_spec_and_integer_policy():
    rep = harness.verify(ADD, spec=fixture("add_spec_external.py"), device="cpu",
                         translated=code("add_translated_ok.py"), progress=False)
    assert rep.ok and rep.results[0].dtype == "int32"
    assert rep.results[0].checks[0].rtol == 0 and rep.results[0].checks[0].atol == 0


def test_reports_json_markdown_text():
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_bad_tail.py"), progress=False)
    data = json.loads(rep.to_json())
    assert data["ok"] is False and data["entry"] == "vec_add" and data["mode"] == "gpu"
    assert data["summary"]["failed"] == data["summary"]["cases"] > 0
    assert {"torch", "triton", "cuda.tile"} <= set(data["versions"])
    assert data["device_info"]["name"].startswith("CPU")
    table = {row["dtype"]: row for row in data["tolerance_policy"]["table"]}
    assert table["bfloat16"]["rtol"] == 1.6e-2
    assert "atol + rtol" in data["tolerance_policy"]["rule"]
    first = data["results"][0]["checks"][0]
    assert {"max_abs", "max_rel", "mismatches", "expected_dtype", "actual_shape"} <= set(first)
    md = rep.to_markdown()
    assert md.startswith("# Verification of `vec_add` — FAIL")
    assert "## Tolerance policy" in md and "| bfloat16 | 0.016 | 0.01 |" in md and "**FAIL**" in md
    text = rep.to_text()
    assert "tolerance policy" in text and "RESULT: FAIL" in text and "float16" in text


def test_interp_mode_runs_real_triton_under_the_interpreter(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    rep = harness.verify(ADD, mode="interp", translated=code("add_translated_triton.py"), progress=False)
    assert rep.ok and rep.mode == "interp" and rep.device == "cpu"
    assert {r.compared_against for r in rep.results} == {"reference"}
    assert {r.label for r in rep.results} == {"N=37", "N=64"}            # the small cases
    import os
    assert "TRITON_INTERPRET" not in os.environ                          # restored afterwards
    from translator.harness import interp_numerics
    assert interp_numerics.installed()


def test_interp_mode_catches_broken_triton():
    # the elements past the last full block of 32 get x + y + 1 (not left unwritten: torch.empty
    # can hand back memory that already holds the expected sums, which made this test flaky)
    bad = code("add_translated_triton.py").replace(
        "tl.store(out_ptr + offs, x + y, mask=mask)",
        "tl.store(out_ptr + offs, tl.where(offs < (n // 32) * 32, x + y, x + y + 1), mask=mask)")
    assert bad != code("add_translated_triton.py")
    rep = harness.verify(ADD, mode="interp", translated=bad, dtypes=["bfloat16"], progress=False)
    assert not rep.ok and rep.results[0].checks[0].mismatches == 37 % 32


def test_bad_inputs_raise_harness_error():
    with pytest.raises(HarnessError, match="has no C2T_SPEC"):
        harness.verify(fixture("no_spec_orig.py"), device="cpu", translated="def vec_add(x, y): return x")
    with pytest.raises(HarnessError, match="does_not_exist"):
        harness.verify(ADD, spec=fixture("bad_spec_entry.py"), device="cpu", translated="x = 1\n")
    with pytest.raises(HarnessError, match="has no function 'vec_add'"):
        harness.verify(ADD, device="cpu", translated="def other(x, y):\n    return x\n")
    with pytest.raises(HarnessError, match="no such file"):
        harness.verify(fixture("missing.py"), device="cpu", translated="x = 1\n")
    with pytest.raises(HarnessError, match="unknown mode"):
        harness.verify(ADD, mode="cuda", translated="x = 1\n")
    with pytest.raises(HarnessError, match="importing .* failed: SyntaxError"):
        harness.verify(ADD, device="cpu", translated="def vec_add(:\n")


def test_refused_translation_lists_diagnostics(monkeypatch):
    import types

    class Diag:
        def format(self):
            return "add_orig.py:3:5: error C2T101: unsupported construct (hint: rewrite it)"
    fake = types.ModuleType("translator")
    fake.translate_file = lambda path: types.SimpleNamespace(code=None, ok=False, diagnostics=[Diag()])
    monkeypatch.setitem(sys.modules, "translator", fake)
    with pytest.raises(HarnessError, match=r"refused .*\n  add_orig.py:3:5: error C2T101"):
        harness.verify(ADD, device="cpu")
    ok_code = code("add_translated_ok.py")
    fake.translate_file = lambda path: types.SimpleNamespace(code=ok_code, ok=True, diagnostics=[])
    assert harness.verify(ADD, device="cpu", seeds=(0,), dtypes=["float32"], progress=False).ok


def test_nan_output_gives_strict_json():
    nan_code = "import torch\ndef vec_add(x, y):\n    return torch.full_like(x, float('nan'))\n"
    rep = harness.verify(ADD, device="cpu", translated=nan_code, seeds=(0,), dtypes=["float32"], progress=False)
    assert not rep.ok and rep.results[0].checks[0].max_abs == float("inf")
    text = rep.to_json()
    assert ": Infinity" not in text and ": NaN" not in text
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))


def test_cuda_context_loss_is_recognised():
    from translator.harness.verify import context_lost
    assert context_lost("translated raised RuntimeError: CUDA error: an illegal instruction was encountered", "cuda")
    assert not context_lost("translated raised RuntimeError: CUDA error: an illegal instruction", "cpu")
    assert not context_lost("translated raised ValueError: shapes differ", "cuda:0")


def test_gpu_mode_imports_the_translation_compiled(monkeypatch):
    # a test process may set TRITON_INTERPRET=1 globally; mode="gpu" must not inherit it
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    probe = "import os\nSEEN = os.environ.get('TRITON_INTERPRET')\ndef vec_add(x, y):\n    return x + y\n"
    v = sys.modules["translator.harness.verify"]
    seen = {}
    real = v.load_translated

    def spy(code, path, **kw):
        mod, f = real(code, path, **kw)
        seen["env"] = mod.SEEN
        return mod, f
    monkeypatch.setattr(v, "load_translated", spy)
    assert harness.verify(ADD, device="cpu", translated=probe, seeds=(0,), dtypes=["float32"], progress=False).ok
    assert seen["env"] is None
    import os
    assert os.environ["TRITON_INTERPRET"] == "1"                       # restored afterwards


_SCALE = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale_kernel(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 3)


def scale(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), scale_kernel, (x, y, 16))
    return y
'''
_USER = '''
import torch
import cuda.tile as ct
from c2tpkg.scale import scale
from c2tpkg.util import tile_size


@ct.kernel
def double_kernel(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 2)


def double_then_scale(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile_size()),), double_kernel, (x, y, 16))
    return scale(y)


def make_args(case, dtype, seed, device):
    return (torch.arange(case["N"], dtype=dtype, device=device),)


def reference(x):
    return x * 6


C2T_SPEC = {"entry": "double_then_scale", "reference": "reference", "make_args": "make_args",
            "cases": [{"N": 37}]}
'''


def test_names_imported_from_other_cutile_modules_run_their_translation(tmp_path, monkeypatch):
    """The translated module must not call the original cuTile host function of another module
    (that would run a cuTile kernel on the "Triton" side): the harness rebinds it to a translation."""
    pkg = tmp_path / "c2tpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "scale.py").write_text(_SCALE)
    (pkg / "user.py").write_text(_USER)
    # a helper module that only mentions kernels (docstring, annotations) is not translated
    (pkg / "util.py").write_text('import cuda.tile as ct\n\n\ndef tile_size(k: ct.kernel = None):\n'
                                 '    """Usage:\n\n        @ct.kernel\n        def k(...): ...\n    """\n'
                                 '    return 16\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = harness.verify(pkg / "user.py", mode="interp", progress=False)
    assert rep.ok, rep.to_text()
    assert any("`scale` (imported from cuTile module c2tpkg.scale) rebound" in n for n in rep.notes)
    assert not any("tile_size" in n for n in rep.notes)


def test_bench_case_indices_are_checked_before_any_case_runs():
    with pytest.raises(HarnessError, match=r"bench case indices \[7\] out of range"):
        harness.verify(ADD, mode="interp", bench_cases=[7], progress=False)


def test_check_cases_picks_cases_and_rejects_bad_indices():
    rep = harness.verify(ADD, device="cpu", translated=code("add_translated_ok.py"), seeds=(0,),
                         dtypes=["float32"], check_cases=[1], progress=False)
    assert rep.ok and [r.label for r in rep.results] == ["N=1023"]
    assert any("gpu_cases [1] only" in n for n in rep.notes)
    with pytest.raises(HarnessError, match=r"case indices \[2\] out of range: the spec has 2 gpu_cases"):
        harness.verify(ADD, device="cpu", translated=code("add_translated_ok.py"), check_cases=[2], progress=False)


def test_case_where_the_original_raises_is_compared_with_the_reference(tmp_path):
    """cuTile's own compiler can fail on a case (TileGym sets a 5 s compiler timeout): that case is
    checked against the spec's torch reference instead, and says so; a wrong translation still fails."""
    src = Path(ADD).read_text().replace(
        "def vec_add(x, y):\n    return x + y",
        "def vec_add(x, y):\n    if x.numel() == 1023:\n        raise TimeoutError('tileiras exceeded 5s')\n"
        "    return x + y")
    orig = tmp_path / "add_flaky_orig.py"
    orig.write_text(src)
    rep = harness.verify(str(orig), device="cpu", translated=code("add_translated_ok.py"), seeds=(0,),
                         dtypes=["float32"], progress=False)
    assert rep.ok, [r.summary() for r in rep.results]
    vs = {r.label: r.compared_against for r in rep.results}
    assert vs["N=1000"] == "original"
    assert vs["N=1023"] == "reference (original raised TimeoutError: tileiras exceeded 5s)"
    bad = harness.verify(str(orig), device="cpu", translated=code("add_translated_bad_tail.py"), seeds=(0,),
                         dtypes=["float32"], progress=False)
    assert not bad.ok and all(not r.passed for r in bad.results)


# a module of tile helpers without kernels (TileGym unsloth's ct_ops: erf_ct is called by other
# modules' kernels), and a kernel module that imports one
_LIB = '''
import cuda.tile as ct


def cube_plus(x, B: ct.Constant[int]):
    return x * x * x + ct.full((B,), 1.0, dtype=x.dtype)


def host_size():
    return 16
'''
_LIB_USER = '''
import torch
import cuda.tile as ct
from c2tlib.lib import cube_plus, host_size


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=cube_plus(ct.load(x, index=(ct.bid(0),), shape=(T,)), T))


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], host_size()),), k, (x, y, 16))
    return y


def reference(x):
    return x ** 3 + 1


def make_args(case, dtype, seed, device):
    return (torch.linspace(-2, 2, case["N"], dtype=dtype, device=device),)


C2T_SPEC = {"entry": "run", "reference": "reference", "make_args": "make_args", "cases": [{"N": 37}],
            "dtypes": ["float32"]}
'''


def test_tile_helpers_of_a_module_without_kernels_run_translated(tmp_path, monkeypatch):
    """The library module translates on its own (its tile helper becomes a Triton helper, its host
    function stays), and the kernel that imports the helper runs with that translation."""
    import translator
    pkg = tmp_path / "c2tlib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "lib.py").write_text(_LIB)
    (pkg / "user.py").write_text(_LIB_USER)
    res = translator.translate_file(str(pkg / "lib.py"))
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "@triton.jit\ndef cube_plus(x, B):" in res.code and "\ndef host_size():" in res.code
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = harness.verify(pkg / "user.py", mode="interp", progress=False)
    assert rep.ok, rep.to_text()
    assert any("`cube_plus` (imported from cuTile module c2tlib.lib) rebound" in n for n in rep.notes)
    assert not any("host_size" in n for n in rep.notes)
