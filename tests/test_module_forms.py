"""Module forms around kernels that real packages use (issue 35, item 1): kernels defined under a
module-level `if` or `try`, after a guarded cuda.tile import, and host code testing whether
cuda.tile is there. Each translated module is imported and run under the interpreter."""
import textwrap

import torch

import translator
from kernel_util import load


def _load(src: str, tmp_path):
    res = translator.translate_source(textwrap.dedent(src), "forms.py")
    assert res.code is not None, [d.format() for d in res.diagnostics]
    return res, load(res.code, tmp_path, "c2t_forms")


GUARDED = """
try:
    import cuda.tile as ct
except ImportError:
    ct = None
import torch

T = 8
HAVE_CUTILE = ct is not None
if ct is not None:
    @ct.kernel
    def double(x, y):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) * 2)
else:
    def double(*args):
        raise RuntimeError("no cuda.tile")

try:
    @ct.kernel
    def plus_one(x, y):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) + 1)
except Exception:
    plus_one = None

if HAVE_CUTILE:
    if T > 4:
        @ct.kernel
        def square(x, y):
            i = ct.bid(0)
            t = ct.load(x, index=(i,), shape=(T,))
            ct.store(y, index=(i,), tile=t * t)


def run(x):
    if not ct:
        raise RuntimeError("cuda.tile is missing")
    y2, y1, y3 = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // T,), double, (x, y2))
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // T,), plus_one, (x, y1))
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // T,), square, (x, y3))
    return y2, y1, y3
"""


def test_kernels_under_module_level_if_and_try_are_translated_where_they_stand(tmp_path):
    res, mod = _load(GUARDED, tmp_path)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert sorted(k.name for k in res.kernels if k.translated) == ["double", "plus_one", "square"]
    assert mod.HAVE_CUTILE is True
    x = torch.arange(16, dtype=torch.float32)
    y2, y1, y3 = mod.run(x)
    assert torch.equal(y2, x * 2) and torch.equal(y1, x + 1) and torch.equal(y3, x * x)


def test_the_fallback_branch_stays_host_code(tmp_path):
    res, _ = _load(GUARDED, tmp_path)
    assert 'raise RuntimeError("no cuda.tile")' in res.code
    assert "def double(\n" in res.code and "    def launch_double(grid" in res.code


def test_a_refused_kernel_under_an_if_is_an_indented_stand_in(tmp_path):
    src = GUARDED.replace("t * t)", "t[0:2])")       # (tile slicing: refused)
    res, mod = _load(src, tmp_path)
    assert not res.ok and res.partial
    assert [k.name for k in res.kernels if not k.translated] == ["square"]
    x = torch.arange(16, dtype=torch.float32)
    try:
        mod.run(x)
    except NotImplementedError as e:
        assert "square" in str(e)
    else:
        raise AssertionError("the stand-in ran")


def test_presence_tests_of_the_cuda_tile_alias_read_as_true(tmp_path):
    src = """
    try:
        import cuda.tile as ct
    except ImportError:
        ct = None

    A = ct is not None
    B = ct is None
    C = 1 if ct else 0
    D = not ct or False
    """
    res, mod = _load(src, tmp_path)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert (mod.A, mod.B, mod.C, mod.D) == (True, False, 1, False)


def test_the_alias_used_as_a_value_is_still_refused():
    res = translator.translate_source(textwrap.dedent("""
    import cuda.tile as ct

    def mod():
        return ct
    """), "forms.py")
    assert any(d.code == "C2T108" for d in res.diagnostics)
