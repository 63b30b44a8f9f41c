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


def test_launch_time_specialization_reaches_the_compiler_and_loads_vectorize(tmp_path):
    """The facts cuTile's dispatcher derives (extents divisible by 16, unit strides, 16-byte
    aligned pointers) reach Triton through its launch-time specialization of the arguments the
    launcher passes, so the loads of an aligned contiguous array vectorize; a misaligned view
    gets scalar loads (and stays correct: tested under the interpreter elsewhere)."""
    from kernel_util import compile_sm90
    src = """
    @ct.kernel
    def k(x, y, T: ConstInt):
        ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)) * 2.0)

    def run(x, y):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 256),), k, (x, y, 256))
    """
    aligned = compile_sm90(src, "run", "(torch.randn(4096), torch.empty(4096))", tmp_path)
    shifted = compile_sm90(src, "run", "(torch.randn(4097)[1:], torch.empty(4097)[1:])", tmp_path)
    vec = lambda out: int(out.split("vec_ld=")[1].split()[0])   # noqa: E731
    assert vec(aligned) > 0 and vec(shifted) == 0, (aligned, shifted)
