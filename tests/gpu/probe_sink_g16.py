"""GPU probe (not part of the product): which part of the translated attention_sink_decode kernel
departs from the math on the H200 at G=16 query heads per KV head (tests/gpu/probe_sink_window.py:
wrong with tensor descriptors off, 8 warps, no launch memo and cuTile's own reduce too; right at
G=8 and at G=16 with D=16; right under the interpreter). Each variant edits one thing in the
generated code and prints its largest difference from the spec's fp32 reference on one 128-key
tile (B=1 Hkv=1 G=16 KV=128 D=128) and on the failing gpu case.

    source .gpu/setup.sh; PYTHONPATH=$PWD:$PWD/.corpus/src python tests/gpu/probe_sink_g16.py
"""
import torch

from probe_entries import entry_modules, gpu_setup
from sweep_tilegym_options import variant_code
from translator.harness.loading import load_translated, rebind_cutile_imports, translate

Q_T = ("_c2t_load_at_2d(Q + batch_id * Q_stride_0 + head_id * Q_stride_1, Q_shape_3, Q_shape_2, Q_stride_3, "
       "Q_stride_2, 0, 0, HEAD_DIM, QUERY_GROUP_BLOCK_SIZE,")
Q_PLAIN = ("tl.trans(_c2t_load_at_2d(Q + batch_id * Q_stride_0 + head_id * Q_stride_1, Q_shape_2, Q_shape_3, "
           "Q_stride_2, Q_stride_3, 0, 0, QUERY_GROUP_BLOCK_SIZE, HEAD_DIM,")
QK = 'qk = _c2t_mma(k, q, qk, "ieee")'
PV = 'acc = _c2t_mma(v, p, acc, "ieee")'


def q_plain(code):
    """q loaded as (G, D) and transposed, rather than loaded transposed."""
    head, sep, tail = code.partition(Q_T)
    out = []
    while sep:
        end = tail.index("(batch_id < Q_shape_0) & (head_id < Q_shape_1))") + len("(batch_id < Q_shape_0) & (head_id < Q_shape_1))")
        out.append(head + Q_PLAIN + tail[:end] + ")")
        head, sep, tail = tail[end:].partition(Q_T)
    return "".join(out) + head


VARIANTS = [
    ("translated", lambda c: c, None),
    ("num_stages=1", lambda c: c, 1),
    ("q loaded plain", q_plain, None),
    ("qk in fp32", lambda c: c.replace(QK, 'qk = tl.dot(k.to(tl.float32), q.to(tl.float32), qk, input_precision="ieee")'), None),
    ("pv in fp32", lambda c: c.replace(PV, 'acc = tl.dot(v.to(tl.float32), p.to(tl.float32), acc, input_precision="ieee")'), None),
    ("pv as (p^T v)^T", lambda c: c.replace(PV, "acc = acc + tl.trans(tl.dot(tl.trans(p), tl.trans(v), out_dtype=tl.float32))"), None),
    ("q plain, stages=1", q_plain, 1),
]
CASES = [{"B": 1, "Hkv": 1, "G": 16, "KV": 128, "D": 128, "split": 128},
         {"B": 1, "Hkv": 4, "G": 16, "KV": 777, "D": 128, "split": 128, "window": 300}]


def main():
    gpu_setup()
    _, _, _, path, orig, spec, _ = entry_modules("tg_attention_sink_decode")
    code, _ = translate(path)
    mods = []
    for label, edit, stages in VARIANTS:
        new = edit(code)
        assert new != code or edit(code) is code, f"{label}: the edit found nothing to change"
        m, _ = load_translated(variant_code(new, None, stages, "small"), path)
        rebind_cutile_imports(m)
        mods.append((label, m))
    for case in CASES:
        args = spec.make_args(case, torch.float16, 0, "cuda")
        want = spec.reference(*args).float()
        line = [" ".join(f"{k}={v}" for k, v in case.items())]
        for side, mod in [("original", orig)] + mods:
            try:
                got = getattr(mod, spec.entry)(*args).float()
                torch.cuda.synchronize()
                line.append(f"{side} {(got - want).abs().max().item():.3g}")
            except Exception as exc:   # noqa: BLE001 - a probe reports and goes on
                line.append(f"{side} {type(exc).__name__}: {str(exc)[:60]}")
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
