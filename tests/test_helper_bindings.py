"""Helpers called with values bound at translation time (functions, dataclass values, enum members)
get one Triton helper per distinct value, and a plain `import` that also imports cuda.tile keeps
its other modules. Found by translating programs written fresh in the twenty-third session: before
the fix a second call of a helper with another function or dataclass value reused the first
call's helper (silently wrong: `apply(square, a)` computed `double`), a plain enum member could not
be passed to a helper at all, and `import torch, cuda.tile as ct` lost torch."""
import torch

from kernel_util import build, compile_sm90, translate

FUNCTIONS = """
def apply(f, t):
    return f(t)

def double(t):
    return t * 2

def square(t):
    return t * t

@ct.kernel
def k(x, o1, o2, o3, T: ConstInt):
    a = ct.load(x, index=(0,), shape=(T,))
    ct.store(o1, index=(0,), tile=apply(double, a))
    ct.store(o2, index=(0,), tile=apply(square, a))
    ct.store(o3, index=(0,), tile=apply(ct.exp, a))

def run(x):
    o = [torch.empty_like(x) for _ in range(3)]
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, *o, x.shape[0]))
    return o
"""

RECORDS = """
import dataclasses
import enum

class Mode(enum.Enum):
    ADD = 0
    MUL = 1

@dataclasses.dataclass(frozen=True)
class Cfg:
    scale: float
    mode: Mode

A = Cfg(2.0, Mode.ADD)
B = Cfg(3.0, Mode.MUL)

def combine(a, b, cfg):
    if cfg.mode == Mode.ADD:
        return (a + b) * cfg.scale
    return a * b * cfg.scale

def by_mode(a, b, mode):
    if mode is Mode.MUL:
        return a * b
    return a - b

@ct.kernel
def k(x, y, o, T: ConstInt):
    a = ct.load(x, index=(0,), shape=(T,))
    b = ct.load(y, index=(0,), shape=(T,))
    ct.store(o, index=(0, 0), tile=ct.reshape(combine(a, b, A), (1, T)))
    ct.store(o, index=(1, 0), tile=ct.reshape(combine(a, b, B), (1, T)))
    ct.store(o, index=(2, 0), tile=ct.reshape(by_mode(a, b, Mode.MUL), (1, T)))
    ct.store(o, index=(3, 0), tile=ct.reshape(by_mode(a, b, B.mode), (1, T)))
    ct.store(o, index=(4, 0), tile=ct.reshape(by_mode(a, b, Mode.ADD), (1, T)))

def run(x, y):
    o = torch.empty((5, x.shape[0]), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, o, x.shape[0]))
    return o
"""


def test_a_helper_called_with_different_functions_computes_each(tmp_path):
    mod = build(FUNCTIONS, tmp_path)
    x = torch.randn(8)
    o = mod.run(x)
    torch.testing.assert_close(o[0], x * 2)
    torch.testing.assert_close(o[1], x * x)
    torch.testing.assert_close(o[2], torch.exp(x))


def test_a_helper_called_with_different_dataclass_values_and_enum_members(tmp_path):
    mod = build(RECORDS, tmp_path)
    x, y = torch.randn(8), torch.randn(8)
    want = torch.stack([(x + y) * 2, x * y * 3, x * y, x * y, x - y])
    torch.testing.assert_close(mod.run(x, y), want)
    code = open(mod.__file__).read()
    assert "Mode" not in code.split("def k(")[1].split("def run")[0]      # no enum at run time


def test_helpers_specialized_on_bound_values_compile_for_sm90(tmp_path):
    out = compile_sm90(RECORDS, "run", "(torch.randn(16), torch.randn(16))", tmp_path)
    assert out.startswith("OK k"), out


def test_a_plain_import_with_cuda_tile_keeps_its_other_modules():
    res = translate("import dataclasses, math as m, cuda.tile as ct2\n" + FUNCTIONS.replace("ct.", "ct2."))
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "import dataclasses, math as m\n" in res.code and "cuda.tile" not in res.code.split("@triton.jit")[0]


def test_a_choice_between_dataclass_values_needs_a_known_condition():
    src = RECORDS.replace("tile=ct.reshape(combine(a, b, A), (1, T))",
                          "tile=ct.reshape(combine(a, b, A if T > 4 else B), (1, T))")
    [d] = [d for d in translate(src).diagnostics if d.severity == "error"]
    assert d.code == "C2T105" and "known at translation time" in d.message and "A.tile if flag" in d.hint
    folded = translate(RECORDS.replace("combine(a, b, A)", "combine(a, b, A if True else B)"))
    assert folded.ok, [d.format() for d in folded.diagnostics]


TUPLE_RESULT = """
def pair(t):
    return t + 1, t - 1

@ct.kernel
def k(x, out, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    r = pair(t)
    ct.store(out, index=(0,), tile=r[0] * 10 + r[1] + pair(t)[1] * 100)

def run(x):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, x.shape[0]))
    return out
"""


def test_a_helpers_tuple_result_can_be_indexed(tmp_path):
    """`r = pair(t); r[0]` (cuTile indexes tuples a helper returns): was refused as tile indexing."""
    mod = build(TUPLE_RESULT, tmp_path)
    x = torch.randn(8)
    torch.testing.assert_close(mod.run(x), (x + 1) * 10 + (x - 1) + (x - 1) * 100)
