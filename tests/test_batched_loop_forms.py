"""Batched host loops of launches (issue 37): the loops people write allocate the output, launch
and collect it (`o = torch.empty_like(t); ct.launch(...); outs.append(o)`), over zip / enumerate /
range; these run up to four launches per launch with the run-time checks of the one-launch form
(tests/test_idioms.py), and a loop that is not batched says why (C2T207). Under the interpreter."""
import pytest
import torch

from kernel_util import build, translate

KERNEL = """
@ct.kernel
def add_k(src, dst, c, T: ConstInt):
    i = ct.bid(0)
    t = ct.load(src, index=(i,), shape=(T,))
    ct.store(dst, index=(i,), tile=t + c)

"""

FORMS = {
    "zip": """
def run(srcs, c, tiles):
    outs = []
    for s, t in zip(srcs, tiles):
        o = torch.empty_like(s)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(s.shape[0], t),), add_k, (s, o, c, t))
        outs.append(o)
    return outs
""",
    "enumerate": """
def run(srcs, c, tiles):
    outs = []
    for i, s in enumerate(srcs):
        o = torch.empty(s.shape, dtype=s.dtype, device=s.device)
        outs.append(o)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(s.shape[0], tiles[i]),), add_k, (s, o, c, tiles[i]))
    return outs
""",
    "range": """
def run(srcs, c, tiles):
    outs = []
    for i in range(len(srcs)):
        o = srcs[i].new_empty((srcs[i].shape[0],))
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(srcs[i].shape[0], tiles[i]),), add_k, (srcs[i], o, c, tiles[i]))
        outs.append(o)
    return outs
""",
}


def _count_launches(mod):
    calls = []
    plain, batch = mod.launch_add_k, mod.launch_add_k_batch4
    g = mod._c2t_batch_add_k.__globals__
    g["launch_add_k"] = lambda *a, **k: (calls.append(1), plain(*a, **k))[1]
    g["launch_add_k_batch4"] = lambda L, **k: (calls.append(len(L)), batch(L, **k))[1]
    return calls


@pytest.mark.parametrize("form", sorted(FORMS))
def test_allocate_launch_collect_loop_is_batched(tmp_path, form):
    res = translate(KERNEL + FORMS[form])
    assert res.ok and not [d for d in res.diagnostics if d.code == "C2T207"], [d.format() for d in res.diagnostics]
    assert "_c2t_batch_add_k()" in res.code and ".flush()" in res.code
    mod = build(KERNEL + FORMS[form], tmp_path)
    calls = _count_launches(mod)
    g = torch.Generator().manual_seed(1)
    srcs = [torch.randn(n, generator=g) for n in (5, 130, 64, 1, 300, 17)]
    outs = mod.run(srcs, 0.5, [16] * 6)
    assert all(torch.equal(o, s + 0.5) for s, o in zip(srcs, outs))
    assert calls == [4, 2]                                   # six launches in two


def test_allocate_launch_collect_keeps_the_checks_when_inputs_alias(tmp_path):
    """The same run-time checks as the one-launch form: a source that an earlier launch of the
    group writes (here each output becomes the next source) keeps the launches apart, in order."""
    src = KERNEL + """
def run(x, c, n):
    outs = [x]
    for i in range(n):
        o = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), add_k, (outs[i], o, c, 16))
        outs.append(o)
    return outs
"""
    mod = build(src, tmp_path)
    calls = _count_launches(mod)
    x = torch.arange(40, dtype=torch.float32)
    outs = mod.run(x, 1.0, 3)
    assert torch.equal(outs[-1], x + 3) and calls == [1, 1, 1]


@pytest.mark.parametrize("body, why", [
    ("o = torch.zeros_like(s)\n        ct.launch(torch.cuda.current_stream(), (2,), add_k, (s, o, c, 16))",
     "does more than launch, allocate outputs"),
    ("o = torch.empty_like(s)\n        ct.launch(torch.cuda.current_stream(), (2,), add_k, (s, o, c, 16))\n"
     "        print(o.sum())", "does more than launch, allocate outputs"),
    ("o = torch.empty(int(s.sum()))\n        ct.launch(torch.cuda.current_stream(), (2,), add_k, (s, o, c, 16))",
     "does more than launch, allocate outputs"),
    ("ct.launch(torch.cuda.current_stream(), (2,), add_k, (s, s, c, 16))\n"
     "        ct.launch(torch.cuda.current_stream(), (2,), add_k, (s, s, c, 16))", "launches more than once"),
], ids=["zeros_like", "reads_data", "size_from_data", "two_launches"])
def test_loop_not_batched_says_why(body, why):
    res = translate(KERNEL + f"""
def run(srcs, c):
    for s in srcs:
        {body}
""")
    notes = [d for d in res.diagnostics if d.code == "C2T207"]
    assert res.ok and "_c2t_batch_add_k()" not in res.code
    assert notes and why in notes[0].message, [d.format() for d in res.diagnostics]
