"""GPU probe (not part of the product; written in the twenty-second session, not run yet): a
programmatic dependent launch (ct.launch(..., programmatic_dependent_launch=True) with
ct.grid_dependency_control_wait / _launch_dependents), cuTile's original against the translation
(Triton's launch_pdl and gdc_*), with tests/test_grid_dependency.py's program, on a grid large
enough that the two launches can overlap.

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PYTHONPATH
    python tests/gpu/probe_pdl.py
"""
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # tests/: the shared programs
from kernel_util import HEADER  # noqa: E402
from test_grid_dependency import PDL  # noqa: E402

if __name__ == "__main__":
    from translator.harness.loading import load_module, load_translated, translate
    path = Path(tempfile.mkdtemp()) / "pdl_probe.py"
    path.write_text(HEADER + PDL)
    orig, tr = load_module(path), load_translated(translate(path)[0], path)[0]
    a, b = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
    for pdl in (True, False):
        for by_object in (False, True):
            want = orig.run(a, b, pdl, by_object)
            got = tr.run(a, b, pdl, by_object)
            torch.cuda.synchronize()
            print(f"pdl={pdl} by_object={by_object}: cuTile == a + 1 + b: {torch.equal(want, a + 1 + b)}, "
                  f"translation == cuTile: {torch.equal(got, want)}", flush=True)
