"""The harness can fail: translations whose lowering gets the bounds mask or the padding wrong
are caught on the examples' ragged cases (interpreter mode, vs the torch reference).

(Dropping a mask entirely is not used here: unmasked out-of-bounds writes corrupt the CPU
interpreter's heap, which kills the test process instead of failing a comparison.)"""
from conftest import ROOT

import translator
from translator import harness


def _off_by_one_store_mask(code: str) -> str:
    """A store helper whose mask drops the last valid column (an off-by-one in the lowering)."""
    head, sep, tail = code.partition("def _c2t_store_2d(")
    assert sep
    tail = tail.replace("(o1[None, :] < n1)", "(o1[None, :] < n1 - 1)", 1)
    return head + sep + tail


def _c_division(code: str) -> str:
    """Floor division lowered to Triton's truncating `//` (the classic porting bug)."""
    broken = code.replace("return tl.where(((a % b) != 0) & ((a < 0) != (b < 0)), q - 1, q)", "return q")
    assert broken != code
    return broken


def _verify(example, code):
    return harness.verify(ROOT / "examples" / example, translated=code, mode="interp", device="cpu",
                          cases="cases", seeds=(0,), dtypes=["float32"], bench=False, progress=False)


def test_correct_translation_passes():
    code = translator.translate_file(ROOT / "examples" / "layernorm.py").code
    assert _verify("layernorm.py", code).ok


def test_wrong_store_mask_is_caught():
    code = translator.translate_file(ROOT / "examples" / "layernorm.py").code
    rep = _verify("layernorm.py", _off_by_one_store_mask(code))
    assert rep.ok is False
    assert any(not r.passed for r in rep.results)


def test_truncating_division_is_caught():
    code = translator.translate_file(ROOT / "examples" / "floordiv.py").code
    assert harness.verify(ROOT / "examples" / "floordiv.py", translated=code, mode="interp", device="cpu",
                          cases="cases", seeds=(0,), bench=False, progress=False).ok
    rep = harness.verify(ROOT / "examples" / "floordiv.py", translated=_c_division(code), mode="interp",
                         device="cpu", cases="cases", seeds=(0,), bench=False, progress=False)
    assert rep.ok is False
