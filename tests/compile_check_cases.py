"""Cases of the translation check that compile with Triton, so they run in a process without the
interpreter: tests/test_compile_check.py runs this file with TRITON_INTERPRET=0 (it is not collected
on its own: the name does not start with test_)."""
import ast
import textwrap

import pytest

import translator
from translator import check as C
from translator.api import Options
from translator.check_inputs import _binder, index_arrays
from translator.lower.types import SrcLine
from kernel_util import HEADER

CHECK = Options(check=True)
PRELUDE = "import triton\nimport triton.language as tl\n\n\n"


def _kernel(body: str, *, known=None, origin=7, dtypes=("float32", "float16", "bfloat16"), consts="T: tl.constexpr"):
    code = PRELUDE + f"@triton.jit\ndef k(x, x_shape_0, x_stride_0, {consts}):\n" + textwrap.indent(
        textwrap.dedent(body), "    ")
    lines = [SrcLine(ln, origin) for ln in textwrap.indent(textwrap.dedent(body), "    ").splitlines()]
    combos = {"combos": [[known]] if known else [[{"T": 16}, {"T": 64}]], "assumed": not known}
    types = [(f"{d} arrays", _binder({"x": 1}, set(), {}, set(), d, "int32"), combos) for d in dtypes]
    return code, [C.KernelCheck("k", "k", 3, types, body=lines)]


def test_rejected_for_every_type_is_a_located_error():
    code, checks = _kernel("n = x_shape_0\no = tl.arange(0, n)\ntl.store(x + o, 1.0)\n", known={"T": 16})
    [f] = C.check_module(code, checks)
    assert f.code == "C2T110" and f.line == 7 and "kernel `k`" in f.message
    assert "every argument type" in f.message and "T=16" in f.message and "arange" in f.message


def test_rejected_for_some_types_is_a_warning_naming_them():
    code, checks = _kernel("t = tl.load(x + tl.arange(0, T))\ntl.store(x + tl.arange(0, T), tl.exp(t))\n",
                           known={"T": 16})
    [f] = C.check_module(code, checks)
    assert f.code == "C2T215" and "float32 arrays" in f.message and "float16 arrays" in f.message


def test_accepted_kernel_has_no_findings():
    code, checks = _kernel("t = tl.load(x + tl.arange(0, T))\ntl.store(x + tl.arange(0, T), t * 2)\n")
    assert C.check_module(code, checks) == []


def test_failure_that_depends_on_assumed_values_is_not_an_error():
    code, checks = _kernel("tl.static_assert(T == 7)\n")
    [f] = C.check_module(code, checks)
    assert f.code == "C2T216" and "assumed" in f.message


def test_kernel_reading_a_module_value_the_check_cannot_know_is_unchecked():
    code, checks = _kernel("tl.store(x, SCALE)\n")
    code = code.replace("@triton.jit", "SCALE = compute_scale()\n\n\n@triton.jit")
    [f] = C.check_module(code, checks)
    assert f.code == "C2T216" and "SCALE" in f.message


def test_nothing_of_the_module_but_its_triton_functions_runs(tmp_path):
    marker = tmp_path / "ran"
    code, checks = _kernel("t = tl.load(x + tl.arange(0, T))\ntl.store(x + tl.arange(0, T), t)\n")
    code = f"open({str(marker)!r}, 'w').close()\nX = open({str(marker)!r}, 'w')\n" + code
    assert C.check_module(code, checks) == []
    assert not marker.exists()


SRC = """
@ct.kernel
def k(x, y, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2)

def run(x, y):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 64))
"""


def test_translation_is_refused_when_the_check_fails(monkeypatch):
    """End to end: a lowering that Triton rejects (simulated by breaking the generated code as the
    check sees it) refuses that kernel: exit status 2, the kernel a stand-in in a module that parses."""
    real = C.check_module

    def broken(code, checks, **kw):
        # the store helper broken: Triton's error is raised at the kernel's call of it
        head = "def _c2t_store_1d(base, n0, s0, i0, tile, CHECK: tl.constexpr):\n"
        return real(code.replace(head, head + "    bad = tl.arange(0, 3)\n"), checks, **kw)
    ok = translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py", CHECK)
    assert ok.ok and ok.exit_code() == 0
    monkeypatch.setattr(C, "check_module", broken)
    res = translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py", CHECK)
    assert not res.ok and res.exit_code() == 2
    [d] = [d for d in res.diagnostics if d.code == "C2T110"]
    assert d.line == HEADER.count("\n") + 5 and "T=64" in d.message      # the store's line; the launch's T
    assert not [k for k in res.kernels if k.name == "k"][0].translated
    assert res.partial and res.stubs == ["k"] and "k = _C2TUntranslatedKernel('k', " in res.code
    assert f"C2T110 at line {d.line}: Triton rejects" in res.code and "@triton.jit\ndef k(" not in res.code
    ast.parse(res.code)
    assert translator.translate_source(HEADER + textwrap.dedent(SRC), "k.py",
                                       translator.Options(check=True, partial=False)).code is None


def test_index_arrays_follow_tiles_into_index_positions():
    from translator.analysis import analyze
    from translator.ir.build import build_module
    from translator.parse import parse
    from translator.diagnostics import Reporter
    src = HEADER + textwrap.dedent("""
    @ct.kernel
    def k(x, idx, counts, out, T: ConstInt):
        i = ct.load(idx, index=(ct.bid(0),), shape=(T,))
        v = ct.gather(x, i)
        n = ct.load(counts, index=(0,), shape=()).item()
        for j in range(n):
            ct.store(out, index=(j,), tile=v)
    """)
    info = analyze(build_module(parse(src, Reporter("k.py"))))
    assert index_arrays(info.kernels["k"], info) == {"idx", "counts"}


# kernels that are valid only for integer arrays, or for arrays of two dtypes: the usual typings
# (every data array fp32, fp16 or bf16) fail, so the check tries integer and mixed ones before it
# calls the translation wrong (found by the fuzzer: 156 of 598 valid programs were C2T110)
ONLY_INT8 = """
@ct.kernel
def k(x, y, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.int8)
    for i in range(4):
        acc = acc + ct.load(x, index=(i,), shape=(T,))
    ct.store(y, index=(0,), tile=acc)

def run(x, y):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 16))
"""
# (fuzzer, generation 2: a running int16 sum beside a bitcast that needs 32-bit data; an int8
# accumulator among more arrays than the one-array-at-a-time typings try)
INT16_COUNT = """
@ct.kernel
def k(a, x, y, o, N: ConstInt):
    v = ct.bitcast(ct.abs(ct.load(a, index=(0,), shape=(4,))), ct.float32)
    acc = ct.zeros((1,), dtype=ct.int16)
    for i in range(N):
        t = ct.load(x, index=(i,), shape=(1,))
        if i % 2 == 1:
            continue
        acc = acc + t
    ct.store(y, index=(0,), tile=acc)
    ct.store(o, index=(0,), tile=v)

def run(a, x, y, o):
    ct.launch(torch.cuda.current_stream(), (1,), k, (a, x, y, o, 3))
"""
MANY_ARRAYS = """
@ct.kernel
def k(x1, x2, x3, x4, x5, o1, o2, o3):
    acc = ct.full((2, 4), 1, dtype=ct.int8)
    for i in range(2):
        acc = acc + ct.load(x4, index=(i, 0), shape=(2, 4))
    ct.store(o1, index=(0, 0), tile=acc)
    ct.store(o2, index=(0,), tile=ct.load(x1, index=(0,), shape=(4,)) + ct.load(x2, index=(0,), shape=(4,)))
    ct.store(o3, index=(0,), tile=ct.load(x3, index=(0,), shape=(4,)) * ct.load(x5, index=(0,), shape=(4,)))

def run(*args):
    ct.launch(torch.cuda.current_stream(), (1,), k, args)
"""
@pytest.mark.parametrize("src,ok_with", [
    (ONLY_INT8, "`x` int8 (the dtypes of the accumulators they feed), the other arrays float32"),
    (INT16_COUNT, "`x` int16 (the dtypes of the accumulators they feed), the other arrays float32"),
    (MANY_ARRAYS, "`x4` int8 (the dtypes of the accumulators they feed), the other arrays float32")],
    ids=["int8_accumulator", "int16_count_beside_bitcast", "accumulator_among_8_arrays"])
def test_a_kernel_valid_only_for_other_array_dtypes_is_no_error(src, ok_with):
    res = translator.translate_source(HEADER + textwrap.dedent(src), "k.py", CHECK)
    assert res.ok and not res.stubs, [d.format() for d in res.diagnostics]
    [w] = [d for d in res.diagnostics if d.code == "C2T215"]
    assert f"compiles with {ok_with}" in w.message and "rejects it with float32 arrays" in w.message
    # (a kernel no typing compiles for stays an error: test_translation_is_refused_when_the_check_fails)


# the checked-in fuzz corpus (tests/fuzz_corpus, programs cuTile ran on an H200): no translation is
# refused by the check (C2T216 "not checked" stays possible where the host computes a Constant: two
# programs, whose outputs test_fuzz.py compares with cuTile's under the interpreter)
def _fuzz_programs():
    import json
    from pathlib import Path
    corpus = json.loads((Path(__file__).resolve().parent / "fuzz_corpus" / "corpus.json").read_text())
    return sorted(corpus["programs"].items())


@pytest.mark.parametrize("name,prog", _fuzz_programs(), ids=[n for n, _ in _fuzz_programs()])
def test_fuzz_corpus_passes_the_check(name, prog):
    res = translator.translate_source(prog["source"], f"{name}.py", CHECK)
    assert res.ok and not res.stubs, [d.format() for d in res.diagnostics]
    ast.parse(res.code)
    assert not [d for d in res.diagnostics if d.code in ("C2T005", "C2T110")], [d.format() for d in res.diagnostics]


def test_constant_values_the_launch_computes_from_literals_are_known():
    from translator.analysis import analyze
    from translator.check_inputs import constant_candidates
    from translator.diagnostics import Reporter
    from translator.ir.build import build_module
    from translator.parse import parse
    src = HEADER + textwrap.dedent("""
    BLOCK = 64

    @ct.kernel
    def k(x, A: ConstInt, B: ConstInt, C: ConstInt):
        ct.store(x, index=(0,), tile=ct.zeros((A,), dtype=ct.float32))

    def run(x, n):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, 2 * 8, BLOCK // 2 - 1, n * 2))
    """)
    info = analyze(build_module(parse(src, Reporter("k.py"))))
    got = constant_candidates(info, info.kernels["k"])
    assert got["combos"][0][0]["A"] == 16 and got["combos"][0][0]["B"] == 31     # (C: assumed)
    assert got["assumed"]


@pytest.mark.parametrize("guard", ["try:\n    import cuda.tile as ct\nexcept ImportError:\n    ct = None\n",
                                   "try:\n    import cuda.tile as ct\nexcept ImportError:\n    pass\nelse:\n    HAVE = True\n"])
def test_a_guarded_cuda_tile_import_is_checked(guard):
    """`try: import cuda.tile as ct / except ImportError:` becomes a `try:` around Triton's
    imports: the check takes imports from module-level try (and if) blocks, where it once found
    no `tl` and left every kernel unchecked (C2T216 NameError)."""
    src = guard + textwrap.dedent("""
        import torch

        @ct.kernel
        def k(x, T: ct.Constant[int]):
            t = ct.load(x, index=(0,), shape=(T,))
            ct.store(x, index=(0,), tile=t.astype(ct.float32) + 1)

        def run(x):
            ct.launch(torch.cuda.current_stream(), (1,), k, (x, 16))
        """)
    res = translator.api.translate_source(src, "guarded.py", CHECK)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert not [d for d in res.diagnostics if d.code in ("C2T110", "C2T215", "C2T216")], \
        [d.format() for d in res.diagnostics]


def test_a_compile_past_the_time_limit_is_not_checked_and_says_so(monkeypatch, tmp_path):
    """Triton unrolls static_range at code generation: a million-iteration unroll held the
    translation of cutile-python's test_static_iter for 40 minutes. The check has a time limit
    per kernel (C2T_CHECK_SECONDS) and says what it could not check."""
    monkeypatch.setenv("C2T_CHECK_SECONDS", "2")
    monkeypatch.setenv("C2T_CACHE_DIR", str(tmp_path))     # (no result from an earlier run)
    C._MEMO.clear()
    code, checks = _kernel("for i in tl.static_range(1000000):\n    tl.store(x + i, 1.0)\n", known={"T": 16})
    [f] = C.check_module(code, checks)
    assert f.code == "C2T216" and "ran past 2.0 s" in f.message and "C2T_CHECK_SECONDS" in f.hint, f
    code, checks = _kernel("for i in tl.static_range(4):\n    tl.store(x + i, 1.0)\n", known={"T": 16})
    assert C.check_module(code, checks) == []      # the limit is lifted after each compile
