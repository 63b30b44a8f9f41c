"""cuTile's strictly typed constants and casts of scalars: an integer dtype made of a Python int
out of its range wraps to the dtype's width (ct.uint32(-3) is 2**32 - 3; Triton refused the
constant), a scalar cast of a range() loop's variable runs under the interpreter (a Python int
there: `.to` raised AttributeError), `~` of an unsigned integer under the shim's interpreter fix,
and cuTile's errors: ensure_constant of a block index, an unsigned float made of a negative."""
import subprocess
import sys

import torch

from kernel_util import build, translate
from test_shim import ROOT


def test_integer_constants_wrap_to_their_dtype(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x):
        ct.scatter(x, 0, ct.int64(ct.uint32(-5)))
        ct.scatter(x, 1, ct.int64(ct.int8(300)))
        ct.scatter(x, 2, ct.int64(ct.int16(-40000)))
        ct.scatter(x, 3, ct.int64(ct.uint8(511.9)))
        ct.scatter(x, 4, ct.int64(ct.int32(2147483648)))
        ct.scatter(x, 5, ct.int64(ct.uint16(65543)))

    def run():
        x = torch.zeros(6, dtype=torch.int64)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [2**32 - 5, 44, 25536, 255, -2**31, 7]


def test_casts_of_a_loop_variable(tmp_path):
    mod = build("""
    @ct.kernel
    def k(y, z, N: ConstInt):
        for i in range(N):
            ct.scatter(y, i, ct.int64(ct.int8(i * 50 - 200)))
            ct.scatter(z, i, ct.astype(i * 70, ct.uint8).astype(ct.int64))

    def run(n):
        y = torch.zeros(n, dtype=torch.int64)
        z = torch.zeros(n, dtype=torch.int64)
        ct.launch(torch.cuda.current_stream(), (1,), k, (y, z, n))
        return y, z
    """, tmp_path)
    y, z = mod.run(9)
    i = torch.arange(9)
    assert y.tolist() == (i * 50 - 200).to(torch.int8).tolist()
    assert z.tolist() == (i * 70).to(torch.uint8).tolist()


INVERT = """
import torch
import triton
import triton.language as tl
from translator.shim import triton_fixes
assert triton_fixes.install()

@triton.jit
def k(x):
    a = tl.full([], 3, tl.uint32)
    b = tl.full([], 250, tl.uint8)
    tl.store(x, (~a).to(tl.int64))
    tl.store(x + 1, (~b).to(tl.int64))
    tl.store(x + 2, (~tl.full([], 3, tl.int32)).to(tl.int64))

x = torch.zeros(3, dtype=torch.int64)
k[(1,)](x)
assert x.tolist() == [2**32 - 4, 5, -4], x
print("RESULT OK")
"""


def test_invert_of_unsigned_integers_under_the_interpreter():
    env = {"TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", INVERT], capture_output=True, text=True, env=env, timeout=300)
    assert "RESULT OK" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]


def _error(src):
    res = translate(src)
    return next(d for d in res.diagnostics if d.severity == "error")


def test_cutiles_errors_for_constants():
    d = _error("""
    @ct.kernel
    def k(x):
        ct.scatter(x, 0, ct.ensure_constant(ct.bid(0)))
    """)
    assert d.cutile == ("TileStaticAssertionError",
                        "Static assertion failed: Argument of ensure_constant() is not a compile-time constant")
    d = _error("""
    @ct.kernel
    def k(x):
        v = ct.float8_e8m0fnu(-0.5)
    """)
    assert d.cutile == ("TileValueError", "Negative values cannot be represented in an unsigned float format")
    d = _error("""
    @ct.kernel
    def k(x):
        v = ct.float8_e8m0fnu(0.5)
    """)
    assert d.code == "C2T101" and d.cutile is None      # (no Triton dtype: the translator's refusal)
