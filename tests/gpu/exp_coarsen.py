"""GPU experiment (not part of the product): program coarsening (translator/lower/coarsen.py) and
warps for kernels with small 1-D tiles over very many programs. Each variant of the translation
(C2T_COARSEN programs per program, forced through the module's _C2T_COARSEN; num_warps forced or
the launcher's) is timed next to the cuTile original and a torch clone moving the same bytes, and
its output is checked against the original's.

    python tests/gpu/exp_coarsen.py geglu:0 --k auto,1,2,4,8 --warps 0,1,2,4 --dtype float16,bfloat16
    python tests/gpu/exp_coarsen.py --tiles 64,128,256,512,1024 --k auto,1,2,4,8 --warps 0,1,2,4

`op:i,j`: bench cases i, j of tests/gpu/tilegym/<op>_spec.py. `--tiles`: a 1-D cuTile kernel
written here (y = x * 2 + 1 over 2**26 elements, one tile per program), at each tile size.
"""
import argparse
import itertools
import sys
import tempfile
import textwrap
from pathlib import Path

import torch
from triton.testing import do_bench

sys.path.insert(0, ".")
sys.path.insert(0, "tests/gpu")
from sweep_tilegym_options import first_tensor, load_op  # noqa: E402
from translator.harness.bench import graph_time_ms, same_size_copy_gbps  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.spec import torch_dtype  # noqa: E402
from translator.harness.verify import make_args, set_cuda_allocator  # noqa: E402

SCALE = textwrap.dedent('''
    import cuda.tile as ct
    import torch


    @ct.kernel
    def scale_add(x, y, TILE: ct.Constant[int]):
        bid = ct.bid(0)
        t = ct.load(x, index=(bid,), shape=(TILE,))
        ct.store(y, index=(bid,), tile=t * 2.0 + 1.0)


    def run(x, tile):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile),), scale_add, (x, y, tile))
        return y
''')


def variants(code, path, ks, ws):
    out = []
    for k, w in itertools.product(ks, ws):
        m, _ = load_translated(code, path)
        rebind_cutile_imports(m)
        m._C2T_COARSEN = k
        if w:
            m._c2t_num_warps = (lambda w: lambda elements, dot=False, coarsen=1: w)(w)
        out.append((f"K={k} w={w or 'default'}", m))
    return out


def time_case(title, f0, mods, entry, args, nbytes):
    ref = first_tensor(f0(*clone_args(args))).float()
    a = clone_args(args)
    t0 = do_bench(lambda: f0(*a), return_mode="median") * 1e3
    g0 = graph_time_ms(lambda: f0(*a))
    gb = same_size_copy_gbps(nbytes)
    print(f"== {title}: cuTile {t0:.1f} us (graph {g0 * 1e3:.1f}); copy of {nbytes / 1e6:.1f} MB {gb:.0f} GB/s "
          f"({nbytes / gb / 1e3:.1f} us)", flush=True)
    for label, m in mods:
        fn = getattr(m, entry)
        try:
            out = first_tensor(fn(*clone_args(args))).float()
            err = (out - ref).abs().max().item()
            a = clone_args(args)
            t = do_bench(lambda: fn(*a), return_mode="median") * 1e3
            gv = graph_time_ms(lambda: fn(*a))
            print(f"  {label:18s} {t:8.1f} us ratio {t0 / t:5.2f}  graph {gv * 1e3:7.1f} us ratio {g0 / gv:5.2f}  "
                  f"{nbytes / (t * 1e3):5.0f} GB/s ({nbytes / (t * 1e3) / gb:4.0%} of copy)  max|diff| {err:.3g}",
                  flush=True)
        except Exception as exc:      # noqa: BLE001 - a failing variant is reported
            print(f"  {label:18s} FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ops", nargs="*")
    ap.add_argument("--k", default="auto,1,4")
    ap.add_argument("--warps", default="0")
    ap.add_argument("--dtype", default=None)
    ap.add_argument("--tiles", default="")
    ns = ap.parse_args()
    set_cuda_allocator("cuda")
    ks, ws = ns.k.split(","), [int(w) for w in ns.warps.split(",")]
    if ns.tiles:
        d = Path(tempfile.mkdtemp())
        path = d / "scale_add.py"
        path.write_text(SCALE)
        orig = load_module(path)
        code, _ = translate(path)
        mods = variants(code, path, ks, ws)
        for dname in (ns.dtype or "float16").split(","):
            x = torch.randn(1 << 26, device="cuda", dtype=torch_dtype(dname))
            for tile in (int(t) for t in ns.tiles.split(",")):
                time_case(f"scale_add N=2**26 TILE={tile} {dname}", orig.run, mods, "run", (x, tile),
                          2 * x.numel() * x.element_size())
    for arg in ns.ops:
        op, path, orig, sp, code, cases = load_op(arg)
        mods = variants(code, path, ks, ws)
        for dname in (ns.dtype or sp.dtypes[0]).split(","):
            for case in cases:
                args = make_args(sp, case, torch_dtype(dname), 0, "cuda")
                out = first_tensor(getattr(orig, sp.entry)(*clone_args(args)))
                nbytes = sum(x.numel() * x.element_size() for x in args if isinstance(x, torch.Tensor))
                nbytes += out.numel() * out.element_size()
                time_case(f"{op} {case} {dname}", getattr(orig, sp.entry), mods, sp.entry, args, nbytes)


if __name__ == "__main__":
    main()
