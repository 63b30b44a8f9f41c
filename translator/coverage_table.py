"""How every public name of cuda.tile 1.7 is handled (the data behind COVERAGE.md).

Kernel operations that translate are the ones registered in translator/lower/registry.py;
this table classifies the rest: names used on the host, types and annotations, and names
refused in kernel code with a stable diagnostic code and a hint.
"""
from __future__ import annotations

# handled by the host rewrite (translator/host.py) or by the analysis, not as kernel calls
HOST = {
    "launch": "becomes a call of the generated launcher (`launch_<kernel>(grid, ...)`)",
    "cdiv": "`triton.cdiv` on the host (in kernels: exact ceiling division)",
    "kernel": "the decorator becomes @triton.jit (num_ctas becomes Triton's num_ctas; other hints reported as C2T201); on the host, `ct.kernel(f)` of a module function makes `f` a kernel, `ct.kernel(K._pyfunc, **hints)` becomes `K.replace_hints(**hints)` and `ct.kernel` annotations stay as text",
    "function": "helpers become module-level @triton.jit functions",
    "Constant": "`Constant[...]` parameters become tl.constexpr",
    "ConstantAnnotation": "`Annotated[T, ConstantAnnotation()]` parameters become tl.constexpr",
    "compiler_timeout": "`with ct.compiler_timeout(n):` becomes contextlib.nullcontext() (C2T204)",
    "tune": "`tune.exhaustive_search` becomes a triton.testing.do_bench search with the same "
            "TuningResult API",
    "static_iter": "`for x in ct.static_iter(...)` is unrolled at translation time (or tl.static_range)",
}
# dtypes and enums: values, translated wherever they appear
VALUES = {
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2",
    "PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope",
}

_UNSUPPORTED = "not supported yet: keep this kernel in cuTile, or rewrite this part"
# name -> (code, hint) for names refused in kernel code
REFUSED = {
    "float8_e8m0fnu": ("C2T101", "e8m0 needs sm_100 and has no Triton dtype; " + _UNSUPPORTED),
    "float8_e5m3fnu": ("C2T101", "e5m3fnu exists only on CC 10.7; " + _UNSUPPORTED),
    "float4_e2m1fn": ("C2T101", "fp4 has no Triton dtype (packed uint8 only); " + _UNSUPPORTED),
    "mma_scaled": ("C2T101", "block-scaled MMA needs sm_100 (Triton's dot_scaled does not run on sm_90)"),
}

# Names that are types, annotations or exceptions: no kernel code of their own
TYPES = {
    "Array": "annotation only (ignored; arrays are recognised from their use)",
    "Tile": "annotation only (ignored)",
    "TiledView": "annotation only (ignored); views come from Array.tiled_view",
    "Scalar": "annotation only (ignored)",
    "DType": "annotation only (ignored)",
    "Slice": "argument of load/store_advanced_indexing",
    "ArrayAnnotation": "annotation only (index dtype / static dims are not needed by the Triton code)",
    "IndexedWithInt64": "annotation only (Triton widens to int64 where values need it)",
    "ScalarInt64": "annotation only (Triton picks i64 for values that need it)",
    "ListAnnotation": "annotation only; list-of-array parameters (`As[g]`, `len(As)`) become a device "
                      "table of pointers, extents and strides built by the launcher",
    "ByTarget": "kernel hints: resolved for sm_90 where supported (decorator hints, and hint values on the host, e.g. in replace_hints)",
}
HOST_REFUSED_HINT = "host code that uses it must keep cuTile; remove it or guard it"
# exceptions and host-only modules: using them in translated host code is reported (C2T108)
HOST_REFUSED = {
    "TileError", "TileSyntaxError", "TileTypeError", "TileValueError", "TileUnsupportedFeatureError",
    "TileCompilerExecutionError", "TileCompilerTimeoutError", "TileRecursionError",
    "TileStaticAssertionError", "TileStaticEvalError", "TileInternalError", "StaticException",
    "static_exception", "compilation", "foreign_pointer_dtype",
}

# members of the cuTile types and enums, for the coverage table
TILE_MEMBERS = ["shape", "dtype", "ndim", "astype", "reshape", "permute", "transpose", "item",
                "extract", "insert", "__index__"]
ARRAY_MEMBERS = ["shape", "strides", "dtype", "ndim", "slice", "tiled_view", "get_raw_memory",
                 "foreign_pointer", "from_foreign"]
TILEDVIEW_MEMBERS = ["dtype", "tile_shape", "traversal_steps", "num_tiles", "load", "store",
                     "atomic_store_add", "atomic_store_max", "atomic_store_min", "atomic_store_and",
                     "atomic_store_or", "atomic_store_xor"]
ENUMS = {
    "PaddingMode": ["UNDETERMINED", "ZERO", "NEG_ZERO", "NAN", "POS_INF", "NEG_INF"],
    "RoundingMode": ["RN", "RZ", "RM", "RP", "RA", "FULL", "APPROX", "RZI"],
    "MemoryOrder": ["WEAK", "RELAXED", "ACQUIRE", "RELEASE", "ACQ_REL"],
    "MemoryScope": ["NONE", "BLOCK", "CLUSTER", "DEVICE", "SYS"],
}
KERNEL_HINTS = ["num_ctas", "occupancy", "opt_level", "num_worker_warps"]
