"""GPU experiment (not part of the product): where the host time of small launches goes."""
import cProfile, pstats, sys, io
import torch
from triton.testing import do_bench
sys.path.insert(0, ".")
from translator.harness.loading import load_module, load_translated, translate, rebind_cutile_imports

def prof(name, fn, n=300):
    fn(); torch.cuda.synchronize()
    pr = cProfile.Profile(); pr.enable()
    for _ in range(n):
        fn()
    torch.cuda.synchronize(); pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18)
    print(f"==== {name}: {do_bench(fn, return_mode='median') * 1e3:.1f} us per call (do_bench)")
    print(s.getvalue()[:6000])

ex = load_module("examples/concat.py")
code, _ = translate("examples/concat.py")
tm, _ = load_translated(code, "examples/concat.py")
parts = [torch.randn(4096 * (k + 1) // 7 + k, device="cuda") for k in range(8)]
print("cuTile concat us", do_bench(lambda: ex.concat(parts), return_mode="median") * 1e3)
prof("translated concat (batched)", lambda: tm.concat(parts))
tm._c2t_batch_copy_kernel.__globals__["_C2TBatch"].add = lambda self, g, *a, stream=None: self.launch(g, *a, stream=stream)
prof("translated concat (one launch per part)", lambda: tm.concat(parts))
x = torch.randn(1 << 20, device="cuda"); y = torch.empty_like(x)
prof("one plain launch of copy_kernel", lambda: tm.launch_copy_kernel((1024,), x, y, 1024))
prof("one cuTile launch of copy_kernel", lambda: ex.ct.launch(torch.cuda.current_stream(), (1024,), ex.copy_kernel, (x, y, 1024)))
sys.path.insert(0, ".corpus/src")
fd = "/".join([".corpus/src/tilegym/ops/cutile", "flash_decode.py"])
orig = load_module(fd)
code, _ = translate(fd)
fm, _ = load_translated(code, fd)
rebind_cutile_imports(fm)
q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, 4096, 128, device="cuda", dtype=torch.bfloat16); v = torch.randn_like(k)
print("cuTile flash_decode us", do_bench(lambda: orig.fmha_decode(q, k, v, None), return_mode="median") * 1e3)
prof("translated flash_decode B=1 KV=4096", lambda: fm.fmha_decode(q, k, v, None))
