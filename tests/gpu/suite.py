"""The benchmark suite of issue 4: `cutile2triton bench tests/gpu/suite.py --tilegym <TileGym>/src/tilegym`.

The examples carry their own C2T_SPEC; TileGym originals are translated at run time from a fetched
checkout (never committed) with the specs in tests/gpu/tilegym/. "bound" picks the acceptance
check: memory-bound rows are held to the copy bandwidth, compute-bound ones to the ratio only.
"""
_EX = [("vector_add", "memory"), ("softmax", "memory"), ("layernorm", "memory"), ("scale_rows", "memory"),
       ("transpose", "memory"), ("floordiv", "memory"), ("reduce_argmax", "memory"), ("concat", "memory"), ("matmul", "compute")]
_TG = [("softmax", "memory"), ("rms_norm", "memory"), ("layer_norm_legacy", "memory"), ("rope", "memory"),
       ("dropout", "memory"), ("matmul", "compute"), ("bmm", "compute"), ("group_gemm", "compute"),
       ("attention", "compute"), ("flash_decode", "memory"), ("mla_decoding", "memory")]

# GEMMs: the anchor dtypes only (cuTile's fp32 matmul is full precision and 30x slower: not a fair row)
_DTYPES = {"matmul": ["float16", "bfloat16"], "bmm": ["float16"], "group_gemm": ["float16"]}

C2T_SUITE = [{"name": f"ex_{n}", "file": f"examples/{n}.py", "bound": b,
              **({"dtypes": _DTYPES[n]} if n in _DTYPES else {})} for n, b in _EX] + [
    {"name": f"tg_{n}", "file": f"{{tilegym}}/ops/cutile/{n}.py", "spec": f"tests/gpu/tilegym/{n}_spec.py",
     "bound": b, **({"dtypes": _DTYPES[n]} if n in _DTYPES else {})} for n, b in _TG]
