"""Programmatic dependent launch: ct.grid_dependency_control_wait / _launch_dependents and
ct.launch(..., programmatic_dependent_launch=...) (translator/lower/ops.py, host.py)."""
import torch

from kernel_util import _compile_in_subprocess, build, translate

PDL = """
@ct.kernel
def producer(a, out, T: ConstInt):
    # lets the dependent launch start its own prologue
    ct.grid_dependency_control_launch_dependents()
    ta = ct.load(a, index=(ct.bid(0),), shape=(T,))
    ct.store(out, index=(ct.bid(0),), tile=ta + 1)

@ct.kernel
def consumer(b, p, out, T: ConstInt):
    tb = ct.load(b, index=(ct.bid(0),), shape=(T,))
    ct.grid_dependency_control_wait()       # producer's stores are visible after this
    tp = ct.load(p, index=(ct.bid(0),), shape=(T,))
    ct.store(out, index=(ct.bid(0),), tile=tp + tb)

KERNELS = {"consumer": consumer}

def run(a, b, pdl=True, by_object=False):
    p, out = torch.zeros_like(a), torch.zeros_like(a)
    ct.launch(torch.cuda.current_stream(), (a.numel() // 4,), producer, (a, p, 4))
    if by_object:
        ct.launch(torch.cuda.current_stream(), (a.numel() // 4,), KERNELS["consumer"], (b, p, out, 4),
                  programmatic_dependent_launch=pdl)
    else:
        ct.launch(torch.cuda.current_stream(), (a.numel() // 4,), consumer, (b, p, out, 4),
                  programmatic_dependent_launch=pdl)
    return out
"""


def test_pdl_launches_compute_the_same_under_the_interpreter(tmp_path):
    mod = build(PDL, tmp_path)
    a, b = torch.arange(12.0), torch.full((12,), 0.5)
    for pdl in (True, False):
        for by_object in (False, True):
            torch.testing.assert_close(mod.run(a, b, pdl, by_object), a + 1 + b)


def test_the_launch_carries_the_flag_and_bypasses_the_memo():
    code = translate(PDL).code
    assert "launch_consumer((a.numel() // 4,), b, p, out, 4, c2t_pdl=pdl)" in code
    assert "_c2t_launch(None, (a.numel() // 4,), KERNELS[\"consumer\"], (b, p, out, 4), pdl=pdl)" in code
    launcher = code.split("def launch_consumer(")[1].split("\ndef ")[0]
    assert "c2t_pdl=False):" in launcher and "memo = False if c2t_pdl else _c2t_memo(" in launcher
    assert "**_c2t_pdl_options(c2t_pdl)," in launcher
    # a module without such launches keeps its launchers as they were
    plain = translate(PDL.replace(",\n                  programmatic_dependent_launch=pdl)", ")")).code
    assert "c2t_pdl" not in plain and "_c2t_pdl_options" not in plain


def test_pdl_option_only_on_a_gpu(tmp_path, monkeypatch):
    mod = build(PDL, tmp_path)
    assert mod._c2t_pdl_options(True) == {}                 # the interpreter (and no GPU here)
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: True)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert mod._c2t_pdl_options(True) == {"launch_pdl": True} and mod._c2t_pdl_options(False) == {}


def test_compiled_kernels_have_the_grid_dependency_instructions_and_the_launch_option(tmp_path):
    """For sm_90: griddepcontrol.wait / .launch_dependents in the PTX, and a launch with Triton's
    launch_pdl option compiles to a kernel whose launcher sets programmatic stream serialization."""
    out = _compile_in_subprocess(PDL, tmp_path, """
        calls = C._capture(m)
        try:
            m.run(torch.arange(8.0), torch.ones(8))
        finally:
            C._restore(m)
        for name, fn, args, kwargs in calls:
            _, src, options = C.specialize_for_h200(fn, args, {**kwargs, "launch_pdl": name == "consumer"})
            k = triton.compile(src, target=C._H200, options=options.__dict__)
            ptx = k.asm["ptx"]
            print(name, "wait" if "griddepcontrol.wait" in ptx else "-",
                  "dependents" if "griddepcontrol.launch_dependents" in ptx else "-", k.metadata.launch_pdl)
        """)
    lines = set(out.strip().splitlines())
    assert {"producer - dependents False", "consumer wait - True"} <= lines, out
