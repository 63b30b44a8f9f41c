"""ct.launch(..., programmatic_dependent_launch=True) under the shim: the kernel's module is
translated without the host code that launches it, so every launcher takes `c2t_pdl` (Triton's
launch_pdl on a GPU; nothing under the interpreter, which runs one launch at a time)."""
from test_shim import _run, _script

PROGRAM = """
import torch
import cuda.tile as ct


@ct.kernel
def stage_one(src, mid):
    i = ct.bid(0)
    ct.grid_dependency_control_launch_dependents()
    ct.store(mid, (i,), tile=ct.load(src, (i,), (16,)) * 3)


@ct.kernel
def stage_two(mid, dst, bias: ct.Constant[int]):
    i = ct.bid(0)
    ct.grid_dependency_control_wait()
    ct.store(dst, (i,), tile=ct.load(mid, (i,), (16,)) + bias)


@ct.kernel
def plain(dst):
    ct.store(dst, (0,), tile=ct.full((16,), 5, ct.int32))


s = torch.cuda.current_stream()
src = torch.arange(48, dtype=torch.int32, device="cuda")
mid = torch.zeros_like(src)
dst = torch.zeros_like(src)
ct.launch(s, (3,), stage_one, (src, mid))
ct.launch(s, (3,), stage_two, (mid, dst, 7), programmatic_dependent_launch=True)
assert dst.tolist() == [3 * v + 7 for v in range(48)], dst
again = torch.zeros_like(src)
ct.launch(s, (3,), stage_two, (mid, again, 7), programmatic_dependent_launch=False)
assert torch.equal(again, dst)
# a kernel without grid dependency control, launched with PDL too (cuTile allows it)
p = torch.zeros(16, dtype=torch.int32, device="cuda")
ct.launch(s, (1,), plain, (p,), programmatic_dependent_launch=True)
assert p.tolist() == [5] * 16, p
print("RESULT OK")
"""


def test_programmatic_dependent_launch_under_the_shim(tmp_path):
    r = _run([str(_script(tmp_path, "pdl.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout + r.stderr
    for path in (tmp_path / "cache" / "shim").glob("k_*.py"):
        assert "**_c2t_pdl_options(c2t_pdl)" in path.read_text(), path
