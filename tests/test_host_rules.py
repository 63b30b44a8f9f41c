"""The host rules (translator/host_rules/), pyupgrade style: each rewrites what it should and leaves
alone what it must not (module-level snippets after one kernel, translated with the check off)."""
import textwrap
import types

import pytest

from translator import api, host
from translator.api import Options, translate_source
from translator.host_rules import hints, launches, names, registry

HEAD = """\
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
DT = ct.float16


@ct.kernel
def k(x, T: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(x, index=(ct.bid(0),), tile=t)


"""
SEARCH = "ct.tune.exhaustive_search(configs, {}, lambda c: (1,), k, lambda c: (x, c.T){})"
LOOP = "for y in xs:\n    ct.launch(s, {}, k, (y, 16))\n"
NESTED = "def outer():\n    def inner(y):\n        return {}\n"
HELPER = "def helper(x):\n    return ct.load(x, index=(0,), shape=(4,))\n"

# (snippet, text(s) the output has, a diagnostic found once ("": none asked), text found nowhere)
CASES = [
    # hints.py
    ("k2 = ct.kernel(k._pyfunc, occupancy=2)", "k2 = k.replace_hints(occupancy=2)",
     "C2T204 `ct.kernel(k._pyfunc, ...)` is `k.replace_hints(...)`", ""),
    ("k3 = ct.kernel(k._pyfunc)", "k3 = k\n", "", "C2T204"),
    ("k4 = ct.kernel(other._pyfunc, occupancy=2)", "k4 = ct.kernel(other._pyfunc, occupancy=2)", "", "C2T204"),
    ("k.replace_hints(occupancy=ct.ByTarget(sm_90=2, default=4))", "k.replace_hints(occupancy=(2))",
     "ct.ByTarget on the host", ""),
    ("k.replace_hints(num_ctas=ct.ByTarget(sm_100=2))", "k.replace_hints(num_ctas=None)", "C2T204 ct.ByTarget", ""),
    ("v = ct.ByTarget(2)", "v = ct.ByTarget(2)", "C2T109 ct.ByTarget", "C2T108"),
    ("v = ByTarget(sm_90=2)", "v = ByTarget(sm_90=2)", "", "C2T204"),
    ("k.replace_hints(num_ctas=2)", "k.replace_hints(num_ctas=2)",
     "C2T204 `k.replace_hints(...)`: num_ctas reaches the Triton launch", ""),
    ("other.replace_hints(num_ctas=2)", "other.replace_hints(num_ctas=2)", "", "C2T204"),
    ("with ct.compiler_timeout(10):\n    pass", "with contextlib.nullcontext():", "C2T204 ct.compiler_timeout", ""),
    ("with timeouts.compiler_timeout(10):\n    pass", "with timeouts.compiler_timeout(10):", "",
     "with contextlib.nullcontext()"),
    (SEARCH.format("torch.cuda.current_stream()", ""),
     "_c2t_exhaustive_search(configs, None, lambda c: (1,), k, lambda c: (x, c.T))", "C2T214", "C2T204"),
    (SEARCH.format("s", ", lambda c: {}"), "_c2t_exhaustive_search(configs, s, ",
     "C2T204 exhaustive_search: the hints function's num_ctas reaches the Triton launch", ""),
    ("exhaustive_search(configs, s, g, k, a)", "exhaustive_search(configs, s, g, k, a)", "", "C2T214"),
    # launches.py
    ("ct.launch(torch.cuda.current_stream(), (4,), k, (x, 16))", "launch_k((4,), x, 16)\n", "", "C2T1"),
    ("ct.launch(s, (ct.cdiv(n, 4),), k, (x, 16))", "launch_k((_c2t_host_cdiv(n, 4),), x, 16, stream=s)", "", ""),
    ("ct.launch(s, (4,), k, args)", "launch_k((4,), *args, stream=s)", "", ""),
    ("ct.launch(s, (4,), k, (x, 16), programmatic_dependent_launch=p)", "launch_k((4,), x, 16, stream=s, c2t_pdl=p)",
     "", ""),
    ("ct.launch(s, (4,), table[0], (x, 16))", "_c2t_launch(s, (4,), table[0], (x, 16))", "", ""),
    ("ct.launch(s, (4,), k, (x,))", "launch_k((4,), x, stream=s)", "C2T109 ct.launch passes 1 arguments", ""),
    ("ct.launch(s, (4,), k)", "ct.launch(s, (4,), k)", "C2T107", ""),
    ("launch(s, (4,), k, (x, 16))", "launch(s, (4,), k, (x, 16))", "", "launch_k(("),
    (LOOP.format("(4,)"), (" = _c2t_batch_k()  # this loop's", ".add((4,), y, 16, stream=s)\n_c2t_batch_", ".flush()"),
     "", "C2T207"),
    (LOOP.format("(y.sum(),)"), "launch_k((y.sum(),), y, 16, stream=s)", "C2T207 the loop launches `k`", "_c2t_batch"),
    (LOOP.format("(4,)") + "else:\n    pass", "launch_k((4,), y, 16, stream=s)", "", "_c2t_batch"),
    ("m = ct.cdiv(n, 4)", "m = _c2t_host_cdiv(n, 4)", "", ""),
    ("m = cdiv(n, 4)", "m = cdiv(n, 4)", "", "m = _c2t_host_cdiv("),
    # names.py
    ('print(f"{ct.bid}")', 'print(f"{ct.bid}")', "C2T108 an f-string in host code uses `ct`", ""),
    ('print(f"{n}")', 'print(f"{n}")', "", "C2T108"),
    ("y: ct.float16 = None", "y: 'ct.float16' = None", "", "torch.float16 = None"),
    # the whole annotation as text: `'ct.DType' | None` and `'TuningResult'[Any]` fail when evaluated
    ("def f(d: ct.DType | None, r: ct.tune.TuningResult[int]) -> tuple[ct.DType, int]:\n    pass",
     "def f(d: 'ct.DType | None', r: 'ct.tune.TuningResult[int]') -> 'tuple[ct.DType, int]':", "", "'ct.DType' |"),
    ("a = torch.empty(4, dtype=ct.float16)", "a = torch.empty(4, dtype=torch.float16)", "", ""),
    ("a = np.float16", "a = np.float16", "", "a = torch.float16"),
    ("y: ct.Constant[int] = 1", "y: ct.Constant[int] = 1", "", "C2T108"),
    (NESTED.format("ct.bid(0) + ct.num_blocks(0) + ct.bid(1)"), NESTED.format("ct.bid(0) + ct.num_blocks(0) + ct.bid(1)"),
     "C2T108 function `inner`, defined inside `outer`, uses cuda.tile (`ct.bid`, `ct.num_blocks`)", ""),
    (NESTED.format("y + 1"), NESTED.format("y + 1"), "", "C2T108"),
    (HELPER + "\nhelper(1)", HELPER, "C2T108 function `helper` uses `ct.load`, a tile operation", ""),
    (HELPER, "@triton.jit\ndef helper(x, x_shape_0", "", "C2T108"),
    ("def f():\n    return ct.foo", "    return ct.foo", "C2T108 host code uses `ct.foo`, which is not translated", ""),
    ("def f():\n    return ct.launch", "    return ct.launch", "C2T108 `ct.launch` is used here as a value", ""),
    ("try:\n    import cuda.tile as ct2\nexcept ImportError:\n    ct2 = None", "    ct2 = None", "", "C2T108"),
    ("a = DT", "DT = torch.float16\n", "", "ConstInt ="),
    ("c = ConstInt", "ConstInt = ct.Constant[int]", "C2T108 `ConstInt` (a cuda.tile alias) is used by host code", ""),
]


def _translate(snippet):
    r = translate_source(HEAD + textwrap.dedent(snippet) + "\n", "t.py", Options(check=False))
    assert r.code is not None, r.diagnostics
    return r.code, " | ".join(f"{d.code} {d.message}" for d in r.diagnostics)


@pytest.mark.parametrize("snippet, present, diag, absent", CASES, ids=[c[0].split("\n")[0][:40] for c in CASES])
def test_rule(snippet, present, diag, absent):
    code, diags = _translate(snippet)
    for text in (present,) if isinstance(present, str) else present:
        assert text in code, (text, diags)
    if diag:
        assert diags.count(diag) == 1, diags
    if absent:      # (a diagnostic code among the diagnostics, other text in the code)
        assert absent not in (diags if absent.startswith("C2T") else code), diags


def test_plans_are_facts_api_applies(monkeypatch):
    """rewrite_host leaves the plans alone: what host code asks of them comes back (plan.host.tuned,
    the batched twin), and api.py sets it."""
    seen = []

    def spy(info, text, rep, plans, *a, **kw):
        out = host.rewrite_host(info, text, rep, plans, *a, **kw)
        seen.append((out, [(p.host.tuned, p.host.batched) for p in plans.values()]))
        return out
    monkeypatch.setattr(api, "rewrite_host", spy)
    code, _ = _translate(SEARCH.format("s", "") + "\n" + LOOP.format("(4,)"))
    (out, flags), = seen
    assert flags == [(False, False)] and out.tuned == ("k",) and out.batched == {"k": ((1,), (0,), (0,))}
    assert {"batched", "exhaustive_search", "hints"} <= out.needs
    assert "def _c2t_meta_k(" in code and "def k_batch4(" in code


def test_no_module_global_mutable_state():
    for m in (host, registry, hints, launches, names):
        mutable = [n for n, v in vars(m).items() if not n.startswith("__")
                   and isinstance(v, (list, dict, set, bytearray, types.SimpleNamespace))]
        assert not mutable, (m.__name__, mutable)


def test_rule_order_and_collect():
    order = [r.fn.__name__ for r in host.RULES]
    assert order.index("annotations") < order.index("dtypes") < order.index("untranslated")
    fake = types.ModuleType("fake")
    fake.dtypes = names.dtypes      # a rule imported from another module is that module's
    assert registry.collect(fake) == () and len(set(host.RULES)) == len(host.RULES)


def test_a_host_dtype_imports_torch_in_a_module_without_kernels():
    """`def _array(dtype=ct.int32)` in a module whose kernels are all inside functions: the host
    dtype is torch's, so the module needs `import torch` (cutile-python's test_function_debuginfo
    did not import: NameError)."""
    res = translate_source("import cuda.tile as ct\n\ndef _array(dtype=ct.int32):\n    return dtype\n", "x.py",
                           Options(check=False))
    assert "import torch\n" in res.code and "def _array(dtype=torch.int32):" in res.code, res.code
    import torch
    ns = {}
    exec(compile(res.code, "x.py", "exec"), ns)
    assert ns["_array"]() is torch.int32


def test_an_untranslated_submodule_alias_is_a_stand_in(tmp_path):
    """`import cuda.tile._cext as _cext` then `_cext.launch` in host code: the alias is bound to a
    stand-in (it was dropped with the import: NameError when the module ran)."""
    from kernel_util import load
    res = translate_source("import cuda.tile as ct\nimport cuda.tile._cext as _cext\n\n"
                           "FUNCS = {'launch': _cext.launch}\n\n\ndef use():\n    return _cext.launch(1)\n",
                           "x.py", Options(check=False))
    assert res.partial and '_cext = _C2TUntranslated("cuda.tile._cext"' in res.code, res.code
    mod = load(res.code, tmp_path)
    with pytest.raises(NotImplementedError, match="cuda.tile._cext.launch` was not translated"):
        mod.use()
