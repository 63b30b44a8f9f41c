"""Performance idioms in generated code (issue 4), each also executed under the interpreter."""
import torch

from kernel_util import build, compile_sm90, translate

DUAL = """
ConstBool = ct.Constant[bool]

@ct.kernel
def scale_t(x, y, TM: ConstInt, TN: ConstInt, transpose: ConstBool):
    i = ct.bid(0)
    if transpose:
        # x is (N, M): read the transposed tile
        t = ct.transpose(ct.load(x, index=(0, i), shape=(TN, TM)))
    else:
        t = ct.load(x, index=(i, 0), shape=(TM, TN))
    ct.store(y, index=(i, 0), tile=t * 2.0)

def run(x, transpose):
    m = x.shape[1] if transpose else x.shape[0]
    n = x.shape[0] if transpose else x.shape[1]
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 8),), scale_t, (x, y, 8, 16, transpose))
    return y
"""


def test_layout_flag_gives_two_kernels_and_a_dispatching_launcher():
    code = translate(DUAL).code
    assert "def scale_t_transpose(" in code and "def scale_t_not_transpose(" in code
    t_kernel = code.split("def scale_t_transpose(")[1].split("@triton.jit")[0]
    f_kernel = code.split("def scale_t_not_transpose(")[1].split("def launch_scale_t")[0]
    # each kernel has only its own layout strategy, and no flag parameter
    assert "tl.trans(" in t_kernel and "tl.trans(" not in f_kernel
    assert "# x is (N, M)" in t_kernel and "# x is (N, M)" not in f_kernel
    assert "transpose: tl.constexpr" not in code
    assert "}[(bool(transpose),)]" in code


def test_dual_kernels_compute_both_layouts(tmp_path):
    mod = build(DUAL, tmp_path)
    x = torch.randn(13, 11)     # ragged: 2 row tiles of 8, one column tile of 16
    torch.testing.assert_close(mod.run(x, False), x * 2)
    torch.testing.assert_close(mod.run(x.t().contiguous(), True), x * 2)


def test_dual_kernels_compile_for_sm90(tmp_path):
    out = compile_sm90(DUAL, "run", "(torch.randn(13, 19), False)", tmp_path)
    assert "OK scale_t_not_transpose" in out
    out = compile_sm90(DUAL, "run", "(torch.randn(19, 13), True)", tmp_path)
    assert "OK scale_t_transpose" in out


def test_bool_constant_that_is_not_a_layout_flag_stays_one_kernel():
    code = translate("""
    ConstBool = ct.Constant[bool]

    @ct.kernel
    def k(x, T: ConstInt, RELU: ConstBool):
        t = ct.load(x, index=(0,), shape=(T,))
        if RELU:
            t = ct.maximum(t, 0.0)
        ct.store(x, index=(0,), tile=t)
    """).code
    assert "RELU: tl.constexpr" in code and "def k_RELU(" not in code


def test_launcher_sizes_num_warps_from_the_tiles():
    code = translate("""
    @ct.kernel
    def k(x, TM: ConstInt, TN: ConstInt):
        ct.store(x, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(TM, TN)))
    """).code
    assert "num_warps=_c2t_num_warps(TM * TN, dot=False)" in code


def test_cutile_autotune_search_runs_on_translated_kernels(tmp_path):
    """cuda.tile.tune.exhaustive_search + replace_hints + compiler_timeout, TileGym style."""
    mod = build("""
    from types import SimpleNamespace
    from cuda.tile.tune import exhaustive_search

    @ct.kernel(occupancy=2)
    def scale(x, y, T: ConstInt):
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        ct.store(y, index=(ct.bid(0),), tile=t * 3.0)

    _cache = {}

    def run(x):
        y = torch.empty_like(x)
        n = x.shape[0]
        key = (n, x.dtype)
        if key not in _cache:
            configs = [SimpleNamespace(T=16), SimpleNamespace(T=32), SimpleNamespace(T=64)]
            with ct.compiler_timeout(5):
                result = exhaustive_search(configs, torch.cuda.current_stream(),
                                           lambda cfg: (ct.cdiv(n, cfg.T),), scale,
                                           lambda cfg: (x, y, cfg.T), lambda cfg: {"occupancy": 1}, quiet=True)
            best = result.best.config
            _cache[key] = (best, scale.replace_hints(occupancy=1))
        best, kern = _cache[key]
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, best.T),), kern, (x, y, best.T))
        return y
    """, tmp_path)
    x = torch.randn(100)
    torch.testing.assert_close(mod.run(x), x * 3)
    (best, _), = mod._cache.values()
    assert best.T in (16, 32, 64)
    code = open(mod.__file__).read()
    assert "result = _c2t_exhaustive_search(configs" in code and "contextlib.nullcontext()" in code
