"""`with` over @contextlib.contextmanager functions in kernels, in the static translation
(passes/with_inline.py; the shim's runs are tests/test_shim_capture_rules.py), and the partial
translation of a module where a pass refuses one kernel."""
import torch

from kernel_util import build, translate

CM = """
from contextlib import contextmanager


def note(buf, v):
    n = ct.gather(buf, 0) + 1
    ct.scatter(buf, 0, n)
    ct.scatter(buf, n, v)


@contextmanager
def scope(buf, tag):
    note(buf, tag)
    yield tag + 1
    note(buf, -tag)


@ct.kernel
def k(buf, N: ConstInt):
    for i in range(N):
        with scope(buf, 10 + i) as t:
            note(buf, t)
            if i == 1:
                break
    note(buf, 99)


def run(buf, n):
    ct.launch(torch.cuda.current_stream(), (1,), k, (buf, n))
"""


def test_with_over_a_generator_runs_with_its_cleanups(tmp_path):
    mod = build(CM, tmp_path)
    code = open(mod.__file__).read()
    kernel = code[code.index("def k("):code.index("def launch_k")]
    assert "with " not in kernel
    assert "@contextmanager\ndef scope(buf, tag):" in code       # (host code keeps it as written)
    buf = torch.zeros(12, dtype=torch.int32)
    mod.run(buf, 3)
    # i=0: enter 10, body 11, exit -10; i=1: enter 11, body 12, break: exit -11; then 99
    assert buf.tolist()[:9] == [7, 10, 11, -10, 11, 12, -11, 99, 0]


def test_a_kernel_a_pass_refuses_leaves_the_others_translated():
    res = translate("""
    @ct.kernel
    def k_indirect(x):
        f = ct.static_eval
        ct.scatter(x, 0, f(2))

    @ct.kernel
    def k_fine(x):
        ct.scatter(x, 0, 3)
    """)
    assert res.code is not None, [d.format() for d in res.diagnostics]
    assert "def k_fine(" in res.code and "_C2TUntranslatedKernel('k_indirect'" in res.code
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.code == "C2T103" and d.cutile[0] == "TileSyntaxError"
