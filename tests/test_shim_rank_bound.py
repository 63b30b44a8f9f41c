"""A kernel whose `if x.ndim == ...` branches use its arrays with more rank combinations than one
translation writes kernels for (C2T101) is translated by the shim for each launch's ranks
(Options.ranks): one kernel for those ranks, the other branches compile-time asserts, as
cuTile compiles a kernel per ranks of its arrays (cutile-python's test_matmul_nd). A launch with
ranks no branch uses is still refused (at its launch); the static translation (no ranks) still refuses it."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def fold(x, w, out, N: ct.Constant[int]):
    if x.ndim == 1:
        t = ct.load(x, index=(0,), shape=(N,))
    if x.ndim == 2:
        t = ct.sum(ct.load(x, index=(0, 0), shape=(2, N)), axis=0)
    if x.ndim == 3:
        t = ct.sum(ct.sum(ct.load(x, index=(0, 0, 0), shape=(2, 2, N)), axis=0), axis=0)
    if w.ndim == 1:
        t = t * ct.load(w, index=(0,), shape=(N,))
    if w.ndim == 2:
        t = t * ct.sum(ct.load(w, index=(0, 0), shape=(2, N)), axis=0)
    if out.ndim == 1:
        ct.store(out, index=(0,), tile=t)
    if out.ndim == 2:
        ct.store(out, index=(0, 0), tile=t.reshape((1, N)))


s = torch.cuda.current_stream()
base = torch.arange(8, dtype=torch.float32, device="cuda")
for xr, wr, orank in ((1, 1, 1), (2, 1, 2), (3, 2, 1), (1, 2, 2), (3, 1, 2), (2, 2, 1)):
    x = base.repeat(2 ** (xr - 1), 1).reshape(*([2] * (xr - 1)), 8)
    w = torch.ones(8, device="cuda").repeat(2 ** (wr - 1), 1).reshape(*([2] * (wr - 1)), 8)
    out = torch.zeros(*([1] * (orank - 1)), 8, device="cuda")
    ct.launch(s, (1,), fold, (x, w, out, 8))
    want = base * 2 ** (xr - 1) * 2 ** (wr - 1)
    assert out.reshape(8).tolist() == want.tolist(), (xr, wr, orank, out)
try:
    ct.launch(s, (1,), fold, (base.reshape(1, 1, 1, 8), torch.ones(8), torch.zeros(8), 8))
except Exception as e:
    # refused: for a 4-D x no branch binds t, so the branch reading it is a compile-time assert
    assert "C2T101" in str(e) or "is not for a 1-D `out` and a 1-D `w` and a 4-D `x`" in str(e), str(e)
else:
    raise AssertionError("a 4-D x was launched")
print("RESULT OK")
"""


def test_rank_bound_kernel_is_translated_per_launch_ranks(tmp_path):
    r = _run([str(_script(tmp_path, "fold.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    kernels = sorted(p.name for p in (tmp_path / "cache" / "shim").glob("k_fold_*.py"))
    # one translation per rank combination launched: the six that run and the 4-D x one that refuses
    assert len(kernels) == 7, kernels


def test_static_translation_still_refuses_it():
    from translator.api import Options, translate_source
    text = "import cuda.tile as ct\n" + PROGRAM.split("s = torch")[0].split("import cuda.tile as ct")[1]
    res = translate_source(text, "fold.py", Options(check=False, partial=False))
    assert not res.ok and any(d.code == "C2T101" and d.rank_bound for d in res.diagnostics), res.diagnostics
    ranked = translate_source(text, "fold.py", Options(check=False, partial=False,
                                                       ranks={"fold": {"x": 3, "w": 2, "out": 1}}))
    assert ranked.ok and "def fold_out_1d_w_2d_x_3d(" in ranked.code, ranked.diagnostics
