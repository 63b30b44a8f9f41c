"""GPU probe (not part of the product): cuTile's `-x` and ct.negative against the translation, bit
for bit, on +-0, +-inf, NaN and ordinary values in fp32, fp16 and bf16. Triton's unary minus is
0 - x (+0 for +0); the translation negates tiles through _c2t_neg (x * -1) since the twenty-first
session, on the assumption that cuTile flips the sign bit, which this checks. Since the
twenty-second session also (not yet run): a float argument negated (_c2t_neg_scalar), PaddingMode.
NEG_ZERO padding from ct.load and load_advanced_indexing (built from its bits), and a -0.0
constant (which Triton makes +0.0: warning C2T212, so its row is expected to differ), with the
programs of tests/test_semantics.py.

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PYTHONPATH
    python tests/gpu/probe_negation.py
"""
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # tests/: the shared programs
from kernel_util import HEADER  # noqa: E402
from test_semantics import NEG_SRC, NEG_ZERO_CONSTS, NEG_ZERO_PAD, SCALAR_NEG_SRC  # noqa: E402


def _load(name, src):
    from translator.harness.loading import load_module, load_translated, translate
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(HEADER + src)
    return load_module(path), load_translated(translate(path)[0], path)[0]


def _compare(label, a, b):
    bits = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}[a.dtype]
    same = (a.view(bits) == b.view(bits)) | (a.isnan() & b.isnan())
    print(f"{label:34s} cuTile {a.tolist()} signbit {torch.signbit(a).int().tolist()} | "
          f"translation {'same bits' if bool(same.all()) else b.tolist()}", flush=True)


def zero_programs():
    orig, tr = _load("scalar_negation_probe", SCALAR_NEG_SRC)
    _compare("float32 -s, s = 0.0 (and -i)", orig.run(0.0, "cuda"), tr.run(0.0, "cuda"))
    orig, tr = _load("neg_zero_pad_probe", NEG_ZERO_PAD)
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.ones(3, dtype=dt).cuda()
        _compare(f"{str(dt)[6:]} NEG_ZERO padded load", orig.run(x), tr.run(x))
    orig, tr = _load("neg_zero_consts_probe", NEG_ZERO_CONSTS)
    x, rows = torch.ones(3, 1).cuda(), torch.tensor([0, 5, 2, -1], dtype=torch.int32).cuda()
    _compare("-0.0 const | negative(zeros) | adv NEG_ZERO", orig.run(x, rows), tr.run(x, rows))


if __name__ == "__main__":
    orig, tr = _load("negation_probe", NEG_SRC)
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.tensor([0.0, -0.0, 1.5, -2.0, float("inf"), -float("inf"), float("nan"), 3.0]).to(dt).cuda()
        for (a, b), label in zip(zip(orig.run(x), tr.run(x)), ("-x", "ct.negative")):
            _compare(f"{str(dt)[6:]} {label}", a, b)
    zero_programs()
