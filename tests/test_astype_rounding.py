"""ct.astype with an explicit rounding_mode and ct.bitcast: cuTile's rules, checked when Triton
compiles the translated kernel (cuTile's TileTypeError in its words), and the roundings to
tfloat32 computed as cuTile computes them."""
import pytest
import torch

from kernel_util import build

_CASTS = """
@ct.kernel
def to_tf32(x, y, MODE: ct.Constant[int], T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    if MODE == 0:
        r = ct.astype(t, ct.tfloat32, rounding_mode=ct.RoundingMode.RN)
    elif MODE == 1:
        r = ct.astype(t, ct.tfloat32, rounding_mode=ct.RoundingMode.RZ)
    else:
        r = t.astype(ct.tfloat32, rounding_mode=ct.RoundingMode.RA)
    ct.store(y, index=(0,), tile=ct.astype(r, y.dtype))

@ct.kernel
def int_with_mode(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.astype(t, ct.float32, rounding_mode=ct.RoundingMode.RZ))

@ct.kernel
def narrowing(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.astype(t, ct.float16, rounding_mode=ct.RoundingMode.RM))

@ct.kernel
def bits(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.bitcast(t, y.dtype))

def run_tf32(x, mode):
    y = torch.empty_like(x, dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), to_tf32, (x, y, mode, x.shape[0]))
    return y

def run(kernel, x, y):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x, y, x.shape[0]))
    return y
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    return build(_CASTS, tmp_path_factory.mktemp("astype"))


def _tf32_bits(x: torch.Tensor, mode: str) -> torch.Tensor:
    b = x.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    b = {"RN": b + 0xFFF + ((b >> 13) & 1), "RZ": b, "RA": b + 0x1000}[mode] & 0xFFFFE000
    return b.to(torch.uint32).view(torch.float32)


@pytest.mark.parametrize("mode,src", [(m, s) for m in ("RN", "RZ", "RA")
                                      for s in (torch.float32, torch.float16, torch.float64)
                                      if (m, s) != ("RA", torch.float64)])    # (cuTile has no RA from fp64)
def test_tfloat32_roundings(mod, mode, src):
    """cutile-python's test_cast values: 1 + 2**-11 is a tie (RN even: 1, RZ: 1, RA: 1 + 2**-10);
    1 + 3 * 2**-11 a tie up to even; values just above and below; negatives; widths 16 and 64."""
    v = [1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-11 + 2**-20, 1 + 2**-11 - 2**-20, 3.0, 1e-3, 0.0, 7.5e-39]
    x32 = torch.tensor(v + [-a for a in v], dtype=torch.float32)
    if src is torch.float16:
        x32 = x32.to(torch.float16).to(torch.float32)   # (exact in tf32: 10 fraction bits)
    y = mod.run_tf32(x32.to(src), {"RN": 0, "RZ": 1, "RA": 2}[mode])
    assert torch.equal(y, _tf32_bits(x32, mode)), (y, _tf32_bits(x32, mode))


def test_tfloat32_from_float64_rounds_once(mod):
    """fp64 -> tf32 RN rounds once (through a round-to-odd fp32), not twice: a value above a tie by
    less than fp32's precision rounds up, where fp64 -> fp32 -> tf32 would see a tie and go even."""
    x = torch.tensor([1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40)], dtype=torch.float64)
    y = mod.run_tf32(x, 0)
    assert torch.equal(y, torch.tensor([1 + 2**-10, -(1 + 2**-10)], dtype=torch.float32))


def _raises_cutile(fn, text):
    with pytest.raises(Exception) as e:
        fn()
    chain, exc = [], e.value
    while exc is not None:
        chain.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    assert any(text in c for c in chain), chain


def test_rounding_mode_on_an_integer_cast_fails_in_cutiles_words(mod):
    x = torch.arange(8, dtype=torch.int32)
    _raises_cutile(lambda: mod.run(mod.int_with_mode, x, torch.empty(8)),
                   "cuTile TileTypeError: rounding_mode is only valid for float to float conversions")


def test_mode_cutile_rejects_and_mode_not_translated(mod):
    _raises_cutile(lambda: mod.run(mod.narrowing, torch.ones(8), torch.empty(8, dtype=torch.float16)),
                   "cuTile TileTypeError: rounding_mode=RoundingMode.RM is not supported for conversion from "
                   "float32 to float16")
    # cuTile takes RM from bfloat16 to float16; the translation does not compute it, and says so
    _raises_cutile(lambda: mod.run(mod.narrowing, torch.ones(8, dtype=torch.bfloat16),
                                   torch.empty(8, dtype=torch.float16)),
                   "cutile2triton: this astype rounding_mode")


def test_bitcast_rules(mod):
    x = torch.randn(8)
    assert torch.equal(mod.run(mod.bits, x, torch.empty(8, dtype=torch.int32)), x.view(torch.int32))
    _raises_cutile(lambda: mod.run(mod.bits, x, torch.empty(8, dtype=torch.int64)),
                   "cuTile TileTypeError: Cannot bitcast from float32 to int64: bit width is different (32 vs. 64)")
    _raises_cutile(lambda: mod.run(mod.bits, torch.ones(8, dtype=torch.bool), torch.empty(8, dtype=torch.bool)),
                   "cuTile TileTypeError: Cannot bitcast from bool_ to bool_: bitcast to or from bool is not supported")


def test_rule_matches_cutile(mod):
    """The translation's table of float conversions and modes (_c2t_astype_message) against the
    installed cuTile's, for every pair of the dtypes Triton has (and tfloat32) and every mode."""
    import triton.language as tl
    from cuda.tile import RoundingMode
    import cuda.tile as ct
    from cuda.tile._ir.ops_utils import FTOF_ROUNDING_REGISTRY
    pairs = {"float64": tl.float64, "float32": tl.float32, "tfloat32": tl.float32, "float16": tl.float16,
             "bfloat16": tl.bfloat16, "float8_e5m2": tl.float8e5, "float8_e4m3fn": tl.float8e4nv}
    msg = mod._c2t_astype_message
    checked = 0
    for s, ts in pairs.items():
        for d, td in pairs.items():
            if s == d or s == "tfloat32":
                continue
            for m in ("RN", "RZ", "RM", "RP", "RA"):
                want = getattr(RoundingMode, m) in FTOF_ROUNDING_REGISTRY.get((getattr(ct, s), getattr(ct, d)), {})
                got = msg(ts, td, m, d == "tfloat32")
                assert (got == "") == want, (s, d, m, got)
                checked += 1
    assert checked == 6 * 6 * 5
    assert "only valid for float to float" in msg(tl.int32, tl.float32, "RN", False)


@pytest.mark.parametrize("mode,src", [(0, "float64"), (1, "float64"), (2, "float32")])   # (no RA from fp64)
def test_tfloat32_roundings_compile_for_sm90(mode, src, tmp_path):
    from kernel_util import compile_sm90
    assert "OK to_tf32" in compile_sm90(_CASTS, "run_tf32", f"(torch.randn(16, dtype=torch.{src}), {mode})",
                                        tmp_path)
