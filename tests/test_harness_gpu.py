"""GPU checks of the harness (run on the H200 with `-m gpu`; deselected by default).

- every examples/*.py with a C2T_SPEC: verify() original cuTile vs the translator's Triton;
- the harness itself on a real cuTile kernel with a hand-written Triton translation
  (independent of the translator): correctness, timing, copy bandwidth, goldens;
- host interop on CUDA (raw streams, __cuda_array_interface__, device properties).

Reports go to $C2T_REPORT_DIR (JSON + Markdown per example) when it is set.
Set C2T_VERIFY_BENCH=0 to skip timing of the examples.
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_fixtures.support import ROOT, code, fixture, import_harness  # noqa: E402

harness = import_harness()
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if "C2T_SPEC" in p.read_text())
pytestmark = pytest.mark.gpu


def _cuda():
    import torch
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")


def _save(rep, name: str):
    out = os.environ.get("C2T_REPORT_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        Path(out, f"{name}.json").write_text(rep.to_json())
        Path(out, f"{name}.md").write_text(rep.to_markdown())
    print(rep.to_text())


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_translation_matches_cutile(path):
    _cuda()
    rep = harness.verify(path, device="cuda", mode="gpu", bench=os.environ.get("C2T_VERIFY_BENCH", "1") != "0")
    _save(rep, f"verify_{path.stem}")
    assert rep.ok, "\n".join(f"{r.label} {r.dtype} seed={r.seed}: {r.summary()}"
                             for r in rep.results if not r.passed)


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_goldens_on_gpu_checked_in_interpreter(path, tmp_path):
    _cuda()
    import numpy
    import triton
    if triton.__version__.startswith("3.6") and tuple(map(int, numpy.__version__.split(".")[:2])) >= (2, 4):
        pytest.skip(f"triton 3.6's interpreter needs numpy < 2.4 (this machine has {numpy.__version__})")
    harness.record(path, tmp_path / "g", device="cuda")
    rep = harness.check_goldens(path, tmp_path / "g", mode="interp")
    _save(rep, f"goldens_{path.stem}")
    assert rep.ok, [r.summary() for r in rep.results if not r.passed]


def test_harness_on_real_cutile_with_hand_translation(tmp_path):
    _cuda()
    va = ROOT / "examples" / "vector_add.py"
    if not va.is_file():
        pytest.skip("examples/vector_add.py not present")
    rep = harness.verify(va, device="cuda", translated=code("vector_add_triton.py"))
    _save(rep, "harness_vector_add_hand")
    assert rep.ok, [r.summary() for r in rep.results if not r.passed]
    assert rep.device_info["sm_count"] and rep.copy_bandwidth["gbps"] > 100
    assert rep.timings and all(t.ratio and t.gbps_triton for t in rep.timings)
    assert rep.geomean_ratio and "Geometric mean" in rep.to_markdown()
    bad = code("vector_add_triton.py").replace("mask = offs < n", "mask = offs < (n // 64) * 64")
    assert not harness.verify(va, device="cuda", translated=bad, bench=False).ok
    harness.record(va, tmp_path / "g", device="cuda")
    assert harness.check_goldens(va, tmp_path / "g", translated=code("vector_add_triton.py")).ok


def test_plain_torch_fixture_timing_path():
    _cuda()
    rep = harness.verify(fixture("add_orig.py"), device="cuda", translated=code("add_translated_triton.py"))
    assert rep.ok and len(rep.timings) == 3 and rep.copy_bandwidth["gbps"] > 100


def test_interop_on_cuda():
    _cuda()
    import torch
    from translator.harness import interop
    s = torch.cuda.Stream()
    ext = interop.as_stream(s.cuda_stream)
    assert isinstance(ext, torch.cuda.ExternalStream) and ext.cuda_stream == s.cuda_stream
    assert interop.as_stream(0) == torch.cuda.default_stream()
    props = interop.device_properties("cuda")
    assert props["sm_count"] > 0 and props["name"] and props["source"] in ("cuda.core", "cuda.bindings", "torch")

    x = torch.arange(10, device="cuda", dtype=torch.float32)

    class CAI:
        __cuda_array_interface__ = x.__cuda_array_interface__
    t = interop.as_tensor(CAI())
    assert t.data_ptr() == x.data_ptr() and t.is_cuda
    try:
        import cupy
    except ImportError:
        return
    c = cupy.arange(5, dtype=cupy.float32)
    assert interop.as_tensor(c).data_ptr() == c.data.ptr
