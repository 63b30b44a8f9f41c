"""The whole-op programs of issue 37 (tests/gpu/ops/: a layer norm and a 4-D RoPE, each forward +
backward through a torch.autograd.Function): they translate with no diagnostic, and the
translation's forward outputs and gradients match the torch reference under the Triton
interpreter on the specs' small cases (ragged rows, columns, heads and positions), both dtypes."""
import pytest

from conftest import ROOT
from run_example import run_cases

OPS = [ROOT / "tests" / "gpu" / "ops" / f"{n}.py" for n in ("layernorm_bwd", "rope4d")]


@pytest.mark.parametrize("op", OPS + [ROOT / "tests" / "gpu" / "ops" / "foreach_axpb.py"], ids=lambda p: p.stem)
def test_op_translates_with_no_diagnostic(op):
    import translator
    res = translator.translate_file(op)
    assert res.code is not None
    assert [d.format() for d in res.diagnostics] == []


@pytest.mark.parametrize("op", OPS, ids=lambda p: p.stem)
def test_op_forward_and_backward_match_reference(op):
    n = run_cases(op, seeds=(0,))
    assert n >= 6, f"only {n} cases ran"


@pytest.mark.parametrize("op, old, new, output", [
    # dx without its mean(w*dy) term: only the input gradient is off
    ("layernorm_bwd", "(wg - xhat * c1 - c2) * rs", "(wg - xhat * c1) * rs", 1),   # (y, dx, dw, db)
    # the backward rotating by +theta: only the gradients are off, the forward outputs are right
    ("rope4d", "    if BACKWARD:\n        s = -s\n", "", 2),      # (q, k, dq, dk): dq first
], ids=["layernorm_dx", "rope_backward_sign"])
def test_a_wrong_backward_is_caught(tmp_path, op, old, new, output):
    """The comparison covers the gradients: a program whose backward kernel is wrong fails."""
    src = (ROOT / "tests" / "gpu" / "ops" / f"{op}.py").read_text()
    assert old in src
    bad = tmp_path / f"{op}_bad.py"
    bad.write_text(src.replace(old, new, 1))
    with pytest.raises(AssertionError, match=f"float32 seed=0 output {output}:"):
        run_cases(bad, dtypes=["float32"])


def test_foreach_op_is_batched_and_matches_reference():
    """tests/gpu/ops/foreach_axpb.py: its allocate-launch-collect loop is batched (the suite row
    times that against cuTile's launch per tensor), and the outputs match torch's."""
    import torch
    from run_example import original_module, translated_module, compare
    from translator.harness import interp_numerics
    interp_numerics.install()
    op = ROOT / "tests" / "gpu" / "ops" / "foreach_axpb.py"
    orig, mod = original_module(op), translated_module(op)
    code = open(mod.__file__).read()
    assert "= _c2t_batch_axpb()" in code and ".flush()" in code
    spec = orig.C2T_SPEC
    n = 0
    for dt in spec["dtypes"]:
        for case in spec["cases"]:
            tensors, a, b = orig.make_args(case, getattr(torch, dt), 0, "cpu")
            got, ref = mod.foreach_axpb(tensors, a, b), orig.foreach_axpb_reference(tensors, a, b)
            assert len(got) == len(ref) == case["count"]
            compare(tuple(got), tuple(ref), spec["op_class"], getattr(torch, dt), f"{case} {dt}")
            n += 1
    assert n == 4
