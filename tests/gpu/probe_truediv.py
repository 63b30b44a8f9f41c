"""GPU probe (not part of the product): cuTile's `/` as translated (_c2t_truediv, templates/prelude.py.j2).

IEEE division's fast path sends a zero or infinite divisor to a slow routine, lane by lane;
TileGym's fp16 gelu/geglu, whose exp overflows to inf at the bench's inputs (randn x 3), ran at half
the bf16 speed on both sides. The fp16 helper now gives those lanes x * (1 / y) by bits instead
(bf16 and fp32 keep plain div_rn: a first version that covered them too slowed bf16 gelu by 30%).
This checks, on the H200:
  1. every pair of fp16 values and every pair of bf16 values (2^32 each) divided by the translated
     kernel gives the bits of cuTile's original kernel and of torch's fp32 division rounded back
     (NaN counted equal to NaN); fp32 (plain div_rn, unchanged) on 2^26 random pairs with specials;
  2. the time of a 2^26-element fp16 division with ordinary divisors and with 10% zero or infinite
     divisors, cuTile against the translation as committed and the former helper (plain div_rn).

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PYTHONPATH
    python tests/gpu/probe_truediv.py
"""
import re
import sys
import tempfile
from pathlib import Path

import torch
import triton.testing

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # tests/: the shared header
from kernel_util import HEADER  # noqa: E402
from test_lang_math import DIV_SRC  # noqa: E402

SOURCE = HEADER + DIV_SRC        # the CPU test's kernel; run here with 1024-element tiles


def former(code: str) -> str:
    """The helper before the change: plain div_rn for every lane of a narrow division."""
    new, n = re.subn(r"        xf, yf = x\.to\(tl\.float32\), y\.to\(tl\.float32\)\n.*?\n        return tl\.where\(odd, [^\n]*\n",
                     "        return tl.div_rn(x.to(tl.float32), y.to(tl.float32)).to(z.dtype)\n", code, flags=re.S)
    assert n == 1, "the helper's body was not found"
    return new


def modules():
    from translator.harness.loading import load_module, load_translated, translate
    path = Path(tempfile.mkdtemp()) / "truediv_probe.py"
    path.write_text(SOURCE)
    code, _ = translate(path)
    return (load_module(path), load_translated(code, path)[0],
            load_translated(former(code), path.with_name("truediv_former.py"))[0])


def same(a, b, bits):
    nan = a.isnan() & b.isnan()
    return int(((a.view(bits) != b.view(bits)) & ~nan).sum())


def exhaustive(orig, tr, dt):
    every = torch.arange(-32768, 32768, dtype=torch.int32, device="cuda").to(torch.int16).view(dt)
    bad_c = bad_t = 0
    for i in range(0, 65536, 1024):          # 1024 dividends x 65536 divisors per launch
        x = every[i:i + 1024].repeat_interleave(65536)
        y = every.repeat(1024)
        out = tr.run(x, y, 1024)
        bad_c += same(out, orig.run(x, y, 1024), torch.int16)
        bad_t += same(out, (x.float() / y.float()).to(dt), torch.int16)
    torch.cuda.synchronize()
    print(f"{dt}: all 2^32 pairs: {bad_c} differ from cuTile, {bad_t} from torch", flush=True)


def fp32_pairs(orig, tr):
    g = torch.Generator(device="cuda").manual_seed(0)
    n = 1 << 26
    x = torch.randn(n, device="cuda", generator=g) * torch.exp2(torch.randint(-130, 130, (n,), device="cuda", generator=g).float())
    y = torch.randn(n, device="cuda", generator=g) * torch.exp2(torch.randint(-130, 130, (n,), device="cuda", generator=g).float())
    specials = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-45, -1e-45, 3.4e38], device="cuda")
    x[::7] = specials[torch.arange(0, n, 7, device="cuda") % 8]
    y[::5] = specials[torch.arange(0, n, 5, device="cuda") % 8]
    out = tr.run(x, y, 1024)
    print(f"float32: 2^26 pairs: {same(out, orig.run(x, y, 1024), torch.int32)} differ from cuTile, "
          f"{same(out, x / y, torch.int32)} from torch", flush=True)


def timing(orig, tr, old):
    g = torch.Generator(device="cuda").manual_seed(1)
    n = 1 << 26
    x = torch.randn(n, device="cuda", generator=g).half()
    y = (torch.randn(n, device="cuda", generator=g) + 3).half()
    odd = y.clone()
    pick = torch.rand(n, device="cuda", generator=g) < 0.1
    odd[pick] = torch.where(torch.rand(n, device="cuda", generator=g)[pick] < 0.5, 0.0, float("inf")).half()
    for label, yy in (("ordinary divisors", y), ("10% zero or inf divisors", odd)):
        t = [triton.testing.do_bench(lambda m=m: m.run(x, yy, 1024), warmup=50, rep=300) * 1e3 for m in (orig, tr, old)]
        gbs = 3 * 2 * n / (t[1] * 1e-6) / 1e9
        print(f"fp16 2^26, {label}: cuTile {t[0]:.1f} us | translated {t[1]:.1f} us ({gbs:.0f} GB/s) | "
              f"former helper {t[2]:.1f} us", flush=True)


if __name__ == "__main__":
    orig, tr, old = modules()
    for dt in (torch.float16, torch.bfloat16):
        exhaustive(orig, tr, dt)
    fp32_pairs(orig, tr)
    timing(orig, tr, old)
