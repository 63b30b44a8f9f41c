"""Verification harness: run original cuTile kernels and their Triton translations on the same
seeded inputs, compare under a stated tolerance policy, time them, and report.

    from translator.harness import verify, record, check_goldens
    report = verify("examples/softmax.py")                  # GPU: original vs translated
    report = verify("examples/softmax.py", mode="interp")   # CPU: translated (interpreter) vs reference
    record("examples/softmax.py", "goldens/softmax")        # GPU: store the original's outputs
    report = check_goldens("examples/softmax.py", "goldens/softmax")   # CPU: interpreter vs goldens
    print(report.to_text()); report.ok

Nothing here imports cuda.tile, triton or cuda-python at import time.
"""
from .errors import HarnessError
from .goldens import check_goldens, record
from .report import CaseResult, Report
from .verify import verify

__all__ = ["HarnessError", "Report", "CaseResult", "verify", "record", "check_goldens"]
