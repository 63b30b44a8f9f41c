"""int(), float() and bool() of a compile-time constant, a dtype applied to one included
(`float(ct.float32(5.0))`), are loose constants, as in cuTile: they store into narrower arrays."""
import torch

from kernel_util import build, codes


def test_builtin_conversions_of_typed_constants_are_loose(tmp_path):
    mod = build("""
    @ct.kernel
    def fill(h, b):
        ct.scatter(h, 0, float(ct.float32(1.5)))
        ct.scatter(h, 1, float(ct.int32(3)))
        ct.scatter(b, 0, int(ct.float64(-4.75)))
        ct.scatter(b, 1, int(ct.int64(9)) + bool(ct.int8(2)))

    def run():
        h = torch.zeros(2, dtype=torch.float16)
        b = torch.zeros(2, dtype=torch.int8)
        ct.launch(torch.cuda.current_stream(), (1,), fill, (h, b))
        return h, b
    """, tmp_path)
    h, b = mod.run()
    assert h.tolist() == [1.5, 3.0] and b.tolist() == [-4, 10]


def test_float_of_a_run_time_value_is_still_refused():
    assert "C2T103" in codes("""
    @ct.kernel
    def k(x, s: float):
        ct.scatter(x, 0, float(ct.float32(s)))
    """)
