"""cuTile -> Triton mapping tables (data, not code).

The kernel lowering (translator/lower/) looks names up here; the signatures are the
cuTile 1.7 ones (`/` = positional-only boundary, `*` = keyword-only boundary).
"""
from __future__ import annotations

# cuTile dtype name -> Triton dtype expression
DTYPES = {
    "bool_": "tl.int1", "int8": "tl.int8", "int16": "tl.int16", "int32": "tl.int32",
    "int64": "tl.int64", "uint8": "tl.uint8", "uint16": "tl.uint16", "uint32": "tl.uint32",
    "uint64": "tl.uint64", "float16": "tl.float16", "bfloat16": "tl.bfloat16",
    "float32": "tl.float32", "float64": "tl.float64",
    "float8_e4m3fn": "tl.float8e4nv", "float8_e5m2": "tl.float8e5",
    # tfloat32 is an f32 tile whose mma runs with input_precision="tf32"
    "tfloat32": "tl.float32",
}
# torch / numpy spellings accepted by cuTile as dtype arguments
FOREIGN_DTYPES = {
    "float16": "tl.float16", "half": "tl.float16", "bfloat16": "tl.bfloat16",
    "float32": "tl.float32", "float": "tl.float32", "float64": "tl.float64", "double": "tl.float64",
    "int8": "tl.int8", "int16": "tl.int16", "int32": "tl.int32", "int64": "tl.int64",
    "uint8": "tl.uint8", "uint16": "tl.uint16", "uint32": "tl.uint32", "uint64": "tl.uint64",
    "bool": "tl.int1", "bool_": "tl.int1",
    "float8_e4m3fn": "tl.float8e4nv", "float8_e5m2": "tl.float8e5",
}
# host side: cuTile dtype -> torch dtype (for host code that names ct dtypes)
HOST_DTYPES = {
    "bool_": "torch.bool", "int8": "torch.int8", "int16": "torch.int16", "int32": "torch.int32",
    "int64": "torch.int64", "uint8": "torch.uint8", "uint16": "torch.uint16",
    "uint32": "torch.uint32", "uint64": "torch.uint64", "float16": "torch.float16",
    "bfloat16": "torch.bfloat16", "float32": "torch.float32", "float64": "torch.float64",
    "float8_e4m3fn": "torch.float8_e4m3fn", "float8_e5m2": "torch.float8_e5m2",
}

# PaddingMode member -> the module-level constexpr passed to the load helpers (an int code:
# 0.0 and -0.0 compare equal, so float values would share one compiled specialization)
PADDING = {
    "UNDETERMINED": "_C2T_PAD_ZERO",   # unspecified in cuTile; zero keeps results deterministic
    "ZERO": "_C2T_PAD_ZERO",
    "NEG_ZERO": "_C2T_PAD_NEG_ZERO",
    "NAN": "_C2T_PAD_NAN",
    "POS_INF": "_C2T_PAD_POS_INF",
    "NEG_INF": "_C2T_PAD_NEG_INF",
}

# Constants from Python's math module usable inside kernels
MATH_CONSTANTS = {
    "inf": 'float("inf")', "nan": 'float("nan")', "pi": "3.141592653589793",
    "e": "2.718281828459045", "tau": "6.283185307179586",
}

# Elementwise unary math: cuTile name -> prelude helper (computes in fp32 for fp16/bf16)
UNARY_MATH = {
    "exp": "_c2t_exp", "exp2": "_c2t_exp2", "log": "_c2t_log", "log2": "_c2t_log2",
    "sqrt": "_c2t_sqrt", "rsqrt": "_c2t_rsqrt", "sin": "_c2t_sin", "cos": "_c2t_cos",
    "floor": "_c2t_floor", "ceil": "_c2t_ceil",
}
# Functional forms of Python operators
BINARY_FUNCS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
    "bitwise_lshift": "<<", "bitwise_rshift": ">>",
}
COMPARE_FUNCS = {
    "greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=",
    "equal": "==", "not_equal": "!=",
}

_MATH_SIG = ["x", "/", "*", "rounding_mode", "flush_to_zero"]
_BIN_SIG = ["x", "y", "/", "*", "rounding_mode", "flush_to_zero"]

# cuTile signatures used to bind call arguments
SIGNATURES: dict[str, list[str]] = {
    "bid": ["axis"],
    "num_blocks": ["axis"],
    "num_tiles": ["array", "/", "axis", "shape", "order"],
    "cdiv": ["x", "y", "/"],
    "load": ["array", "/", "index", "shape", "*", "order", "padding_mode", "check_bounds",
             "latency", "allow_tma", "memory_order", "memory_scope"],
    "store": ["array", "/", "index", "tile", "*", "order", "check_bounds", "latency",
              "allow_tma", "memory_order", "memory_scope"],
    "gather": ["array", "indices", "/", "*", "mask", "padding_value", "check_bounds", "latency"],
    "scatter": ["array", "indices", "value", "/", "*", "mask", "check_bounds", "latency"],
    "arange": ["size", "/", "*", "dtype", "start", "step"],
    "full": ["shape", "fill_value", "dtype"],
    "zeros": ["shape", "dtype"],
    "ones": ["shape", "dtype"],
    "astype": ["x", "dtype", "/", "*", "rounding_mode"],
    "bitcast": ["x", "/", "dtype"],
    "where": ["cond", "x", "y", "/"],
    "sum": ["x", "/", "axis", "*", "keepdims", "rounding_mode", "flush_to_zero"],
    "max": ["x", "/", "axis", "*", "keepdims", "flush_to_zero", "propagate_nan"],
    "min": ["x", "/", "axis", "*", "keepdims", "flush_to_zero", "propagate_nan"],
    "argmax": ["x", "/", "axis", "*", "keepdims", "propagate_nan"],
    "argmin": ["x", "/", "axis", "*", "keepdims", "propagate_nan"],
    "mma": ["x", "y", "/", "acc", "*", "use_fast_acc"],
    "matmul": ["x", "y", "/"],
    "maximum": ["x", "y", "/", "*", "flush_to_zero", "propagate_nan"],
    "minimum": ["x", "y", "/", "*", "flush_to_zero", "propagate_nan"],
    "negative": ["x", "/"],
    "divmod": ["x", "y", "/"],
    "abs": ["x", "/"],
    "isnan": ["x", "/"],
    "bitwise_not": ["x", "/"],
    "reshape": ["x", "/", "shape"],
    "permute": ["x", "/", "axes"],
    "transpose": ["x", "/", "axis0", "axis1"],
    "broadcast_to": ["x", "/", "shape"],
    "expand_dims": ["x", "/", "axis"],
}
for _n in UNARY_MATH:
    SIGNATURES[_n] = _MATH_SIG
for _n in BINARY_FUNCS:
    SIGNATURES[_n] = _BIN_SIG
for _n in COMPARE_FUNCS:
    SIGNATURES[_n] = ["x", "y", "/"]

# Tile methods -> the ct function they mirror (the tile becomes the first argument)
TILE_METHODS = {
    "astype": "astype", "reshape": "reshape", "permute": "permute", "transpose": "transpose",
}

# Kernel decorator hints: name -> how it is handled
KERNEL_HINTS = {"num_ctas", "occupancy", "opt_level", "num_worker_warps"}
