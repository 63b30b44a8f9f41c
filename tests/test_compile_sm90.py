"""Every kernel of every translated example compiles for the H200 (sm_90) on this CPU machine.

The interpreter accepts code the compiler rejects (e.g. `break`), so this runs the real Triton
compiler (no GPU needed) in a subprocess without TRITON_INTERPRET; see tests/compile_sm90.py.
"""
import os
import subprocess
import sys

from conftest import EXAMPLES, ROOT


def test_examples_compile_for_sm90():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, str(ROOT / "tests" / "compile_sm90.py"), *map(str, EXAMPLES)],
                       capture_output=True, text=True, env=env, timeout=1200)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    compiled = {line.split()[2] for line in r.stdout.splitlines() if line.startswith("OK ")}
    assert len(compiled) >= len(EXAMPLES), r.stdout
    # the fp16 matmul uses tensor cores
    assert any("matmul_kernel" in ln and ("wgmma=True" in ln or "mma.sync=True" in ln)
               for ln in r.stdout.splitlines()), r.stdout
