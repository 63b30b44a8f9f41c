"""The benchmark suite of issue 4: `cutile2triton bench tests/gpu/suite.py --tilegym <TileGym>/src/tilegym`.

One device call is limited to 10 minutes, and the whole suite takes longer (cuTile compiles every
autotune config of the GEMMs), so run it in the parts of PARTS, one call each:
    cutile2triton bench tests/gpu/suite.py --tilegym .corpus/src/tilegym --only <PARTS[k]> --out OUT_k
and merge the per-entry JSON reports (docs/gpu-runs/reports.md: how the standing table is merged).

The examples carry their own C2T_SPEC; TileGym originals are translated at run time from a fetched
checkout (never committed) with the specs in tests/gpu/tilegym/. "bound" picks the acceptance
check: memory-bound rows are held to the copy bandwidth, compute-bound ones to the ratio only.
"""
_EX = [("vector_add", "memory"), ("softmax", "memory"), ("layernorm", "memory"), ("scale_rows", "memory"),
       ("transpose", "memory"), ("floordiv", "memory"), ("reduce_argmax", "memory"), ("concat", "memory"), ("matmul", "compute")]
_TG = [("softmax", "memory"), ("rms_norm", "memory"), ("layer_norm_legacy", "memory"), ("rope", "memory"),
       ("dropout", "memory"), ("matmul", "compute"), ("bmm", "compute"), ("group_gemm", "compute"),
       ("attention", "compute"), ("flash_decode", "memory"), ("mla_decoding", "memory")]

# seconds per entry: the autotuned GEMMs and attention compile many configs on both sides
_TIMEOUT = {"matmul": 420, "bmm": 420, "group_gemm": 420, "attention": 300}
# GEMMs: the anchor dtypes (cuTile's fp32 matmul is full precision and 30x slower: not a fair row);
# the TileGym GEMMs fp16 only, so that each part fits one device call (bf16 not timed there yet)
_DTYPES = {"matmul": ["float16", "bfloat16"], "bmm": ["float16"], "group_gemm": ["float16"]}
_TG_DTYPES = {"matmul": ["float16"], "bmm": ["float16"], "group_gemm": ["float16"]}
# per-op environment. bmm: cuTile's compile budget is TileGym's own `ct.compiler_timeout(15)`, not
# the harness's 120 s floor (translator/harness/verify.py): with the floor, cuTile's 18-config
# search of one shape ran past 570 s (so some configs compile for longer than 15 s); with 15 s the
# whole tg_bmm entry took 33 s on the H200 (docs/decisions/030-bench-bmm-compiler-timeout.md). Configs
# that need longer are dropped from cuTile's search, as TileGym itself drops them.
_ENV = {"bmm": {"C2T_CUTILE_COMPILER_TIMEOUT": "15"}}
# TileGym GEMMs split by bench case and correctness case (indices into the spec's bench_cases and
# gpu_cases; None: all), so that each entry's autotuning on both sides (one search per shape, 18
# configs for bmm) fits one 10-minute device call: the whole tg_bmm entry ran past 420 s
_SPLIT = {"matmul": [("tg_matmul", [0, 1], None), ("tg_matmul_8k", [2, 3], [0]), ("tg_matmul_skinny", [4, 5], [0])],
          # bmm: one shape per entry (each entry ran past 420 s with two shapes; a correctness
          # case of another shape is one more search on each side)
          "bmm": [("tg_bmm", [0], [3]), ("tg_bmm_2k", [2], [4]), ("tg_bmm_tiled", [1], [1]),
                  ("tg_bmm_tiled_2k", [3], [2])]}


def _tg(n, b):
    base = {"file": f"{{tilegym}}/ops/cutile/{n}.py", "spec": f"tests/gpu/tilegym/{n}_spec.py", "bound": b,
            **({"dtypes": _TG_DTYPES[n]} if n in _TG_DTYPES else {}),
            **({"timeout": _TIMEOUT[n]} if n in _TIMEOUT else {}),
            **({"env": _ENV[n]} if n in _ENV else {})}
    return [{"name": name, **base, "bench_cases": which, **({"check_cases": check} if check is not None else {})}
            for name, which, check in _SPLIT[n]] if n in _SPLIT else [{"name": f"tg_{n}", **base}]


# TileGym ops outside the list, with specs of their own (memory-bound elementwise and decode steps)
_MORE = ["silu_and_mul", "activation/gelu", "swiglu", "splitk_reduce",
         # specs written at the end of the sixteenth session: not yet run on the GPU
         "activation/geglu", "mla_decoding_split_kv", "attention_sink_decode"]

# TileGym's unsloth suite (host code that re-wraps kernels with ct.kernel(k._pyfunc, ...), and
# geglu's erf from ct_ops, a module of tile helpers without kernels)
_UNSLOTH = [("geglu", "memory"), ("swiglu", "memory")]

C2T_SUITE = [{"name": f"ex_{n}", "file": f"examples/{n}.py", "bound": b,
              **({"dtypes": _DTYPES[n]} if n in _DTYPES else {})} for n, b in _EX] + [
    e for n, b in _TG for e in _tg(n, b)] + [
    {"name": f"tg_unsloth_{n}", "file": f"{{tilegym}}/suites/unsloth/cutile/{n}.py",
     "spec": f"tests/gpu/tilegym/unsloth_{n}_spec.py", "bound": b} for n, b in _UNSLOTH] + [
    # TileGym's liger suite: tvd, whose kernels take the loss array as 2-D or 1-D (rank variants)
    {"name": "tg_liger_tvd", "file": "{tilegym}/suites/liger/cutile/tvd.py",
     "spec": "tests/gpu/tilegym/liger_tvd_spec.py", "bound": "memory"}] + [
    # TileGym ops beyond the list (added in the sixteenth session): more kernels timed
    # against cuTile, where a missed idiom would show as a slow row
    {"name": f"tg_{n.rpartition('/')[2]}", "file": f"{{tilegym}}/ops/cutile/{n}.py",
     "spec": f"tests/gpu/tilegym/{n.rpartition('/')[2]}_spec.py", "bound": "memory"} for n in _MORE] + [
    # TileGym's prefill attention with sinks (spec of the eighteenth session, not yet run on the
    # GPU): its K loads are the method-spelled squeezed loads that take a descriptor since then;
    # 18 tuning configs per shape on each side, bf16 only so that the entry fits one device call
    {"name": "tg_attention_sink", "file": "{tilegym}/ops/cutile/attention_sink.py",
     "spec": "tests/gpu/tilegym/attention_sink_spec.py", "bound": "compute", "dtypes": ["bfloat16"],
     "timeout": 420}]

# whole ops of our own outside TileGym (issue 37), forward + backward through their autograd
# functions, and a foreach loop the translation batches; each file with its own C2T_SPEC
# (tests/gpu/ops/: no GPU-recorded goldens)
C2T_SUITE += [{"name": f"op_{n}", "file": f"tests/gpu/ops/{n}.py", "bound": "memory"}
              for n in ("layernorm_bwd", "rope4d", "foreach_axpb")]

PARTS = [
    " ".join(f"ex_{n}" for n, _ in _EX) + " tg_softmax tg_rms_norm tg_layer_norm_legacy tg_rope tg_dropout",
    "tg_flash_decode tg_mla_decoding tg_attention",
    "tg_matmul tg_matmul_skinny",
    "tg_matmul_8k",
    "tg_bmm tg_bmm_2k tg_bmm_tiled",   # 17-38 s each with TileGym's 15 s compile budget
    "tg_bmm_tiled_2k",      # 296 s: its correctness case (transposed operands) is a new shape for both searches
    "tg_group_gemm",
    "tg_unsloth_geglu tg_unsloth_swiglu tg_liger_tvd",
    "tg_silu_and_mul tg_gelu tg_swiglu tg_splitk_reduce",
    "tg_geglu tg_mla_decoding_split_kv tg_attention_sink_decode",
    "tg_attention_sink",
    "op_layernorm_bwd op_rope4d op_foreach_axpb",
]
