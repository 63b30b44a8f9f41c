"""GPU experiment (not part of the product): would descriptors inside helper functions close
TileGym flash_decode's B=1 gap (decode kernel 6.0 us against cuTile's 4.2 us on the H200)? The
translator makes in-kernel descriptors only in kernel bodies, and flash_decode's K and V loads sit
in its `attention_decode_kernel_grouped_impl` helper. This probe hand-patches the translation: the
helper makes K and V descriptors at its top and loads their (TILE_N, HEAD_DIM) tiles through them
(the inputs are contiguous, so the copy engine's rules hold), and times, per bench case:

  translation   the generated code
  tma-helper    the patched code (splitk_reduce, the second kernel, unchanged)

each against the cuTile original, by do_bench and by CUDA-graph replay, output checked against
cuTile's.

    python tests/gpu/probe_flash_decode_tma.py            (all bench cases)
    python tests/gpu/probe_flash_decode_tma.py 0 2        (bench cases 0 and 2)
"""
import os
import re
import sys

from triton.testing import do_bench

sys.path.insert(0, ".")
SRC = os.environ.get("TILEGYM_SRC", ".corpus/src")
sys.path.insert(0, SRC)
from translator.harness.bench import graph_time_ms  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.spec import load_spec, torch_dtype  # noqa: E402
from translator.harness.verify import make_args, set_cuda_allocator  # noqa: E402

PATH = f"{SRC}/tilegym/ops/cutile/flash_decode.py"
HELPER = "def attention_decode_kernel_grouped_impl("


def patch(code: str) -> str:
    """K and V tiles through descriptors made at the top of the helper; raises if the generated
    code no longer has the shape this patch expects."""
    start = code.index(HELPER)
    end = code.index("\n@triton.jit", start)
    body = code[start:end]
    n = 0
    for arr in ("K", "V"):
        load = re.compile(
            rf"_c2t_load_at_2d\({arr} \+ batch_id \* {arr}_stride_0 \+ head_id \* {arr}_stride_1, [^\n]*?"
            rf"cnt, 0, TILE_N, HEAD_DIM, _C2T_PAD_ZERO, True, \([^\n]*?\)\)")
        body, k = load.subn(f"tl.reshape({arr}_desc.load([batch_id, head_id, cnt * TILE_N, 0]), [TILE_N, HEAD_DIM])",
                            body)
        n += k
    if n != 2:
        raise SystemExit(f"patch: expected one K and one V load in the helper, found {n}")
    first = "    qk_scale = "
    descs = "".join(
        f"    {a}_desc = tl.make_tensor_descriptor({a}, [{a}_shape_0, {a}_shape_1, {a}_shape_2, {a}_shape_3], "
        f"[{a}_stride_0, {a}_stride_1, {a}_stride_2, 1], [1, 1, TILE_N, HEAD_DIM])\n" for a in ("K", "V"))
    if first not in body:
        raise SystemExit("patch: the helper's first statement moved")
    body = body.replace(first, descs + first, 1)
    return code[:start] + body + code[end:]


def main():
    set_cuda_allocator("cuda")
    orig = load_module(PATH)
    sp = load_spec(orig, "tests/gpu/tilegym/flash_decode_spec.py")
    code, _ = translate(PATH)
    mods = []
    for label, text in (("translation", code), ("tma-helper", patch(code))):
        m, _ = load_translated(text, PATH)
        rebind_cutile_imports(m)
        mods.append((label, m))
    which = [int(a) for a in sys.argv[1:]] or range(len(sp.bench_cases))
    dt = torch_dtype(sp.dtypes[0])
    for i in which:
        case = sp.bench_cases[i]
        args = make_args(sp, case, dt, 0, "cuda")
        f0 = getattr(orig, sp.entry)
        ref = f0(*clone_args(args)).float()
        a = clone_args(args)
        t0 = do_bench(lambda: f0(*a), return_mode="median") * 1e3
        g0 = graph_time_ms(lambda: f0(*a))
        print(f"== {case}: cuTile {t0:.1f} us, graph {g0 * 1e3:.1f} us", flush=True)
        for label, m in mods:
            fn = getattr(m, sp.entry)
            try:
                err = (fn(*clone_args(args)).float() - ref).abs().max().item()
                a = clone_args(args)
                t = do_bench(lambda: fn(*a), return_mode="median") * 1e3
                g = graph_time_ms(lambda: fn(*a))
                print(f"  {label:12s} {t:8.1f} us ratio {t0 / t:5.2f} | graph {g * 1e3:7.1f} us ratio {g0 / g:5.2f}"
                      f" | max|diff| {err:.3g}", flush=True)
            except Exception as exc:      # noqa: BLE001 - a variant that fails is reported
                print(f"  {label:12s} FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)


if __name__ == "__main__":
    main()
