"""cuda.tile._datatype under the shim: cuTile's DType objects (print as cuTile's names, equal and
hash as torch's dtypes, pickle and copy to themselves), its predicates and IntegerInfo, and
kernels that read them (written as ct.<name>). ct.float16 itself stays torch's dtype."""
from test_shim import _run, _script

PROGRAM = """
import copy
import pickle
import torch
import cuda.tile as ct
from cuda.tile._datatype import (DType, float16, bfloat16, bool_, int8, uint16, tfloat32, float8_e5m2,
                                 IntegerInfo, is_integral, is_signed, is_float, is_restricted_float,
                                 is_unrestricted_float, is_boolean)

assert ct.float16 is torch.float16                       # (the host code's dtypes: torch's)
assert isinstance(float16, DType) and str(float16) == "float16" and str(bool_) == "bool_"
assert float16 == torch.float16 and torch.float16 == float16 and hash(float16) == hash(torch.float16)
assert {torch.int8: 1}[int8] == 1 and float16 != bfloat16
assert pickle.loads(pickle.dumps(uint16)) is uint16 and copy.deepcopy(tfloat32) is tfloat32
assert is_integral(uint16) and not is_signed(uint16) and is_signed(int8) and is_signed(float16)
assert not is_signed(bool_) and is_boolean(bool_) and is_float(tfloat32) and is_restricted_float(float8_e5m2)
assert is_unrestricted_float(bfloat16) and not is_unrestricted_float(tfloat32) and not is_float(int8)
assert is_integral(torch.int16) and is_float(ct.float32)  # (torch's and ct's dtypes too)
info = IntegerInfo(int8)
assert (info.bits, info.min, info.max) == (8, -128, 127) and IntegerInfo(uint16).max == 65535
assert IntegerInfo(int8) == IntegerInfo(torch.int8) and IntegerInfo(int8) != IntegerInfo(uint16)
try:
    IntegerInfo(float16)
except TypeError:
    pass
else:
    raise AssertionError("IntegerInfo(float16)")


@ct.kernel
def half_of(x, y):
    t = ct.load(x, (0,), (8,))
    if t.dtype == bfloat16:
        t = t * 0
    ct.store(y, (0,), ct.astype(t, float16) * 0.5)


x = torch.arange(8, dtype=torch.float32)
y = torch.zeros(8, dtype=torch.float16)
ct.launch(torch.cuda.current_stream(), (1,), half_of, (x, y))
assert y.tolist() == [v / 2 for v in range(8)], y
print("RESULT OK")
"""


def test_datatype_serves_cutiles_dtype_objects(tmp_path):
    r = _run([str(_script(tmp_path, "dt.py", PROGRAM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
