"""The public names of cuda.tile 1.7 (`ct.__all__`), for name checks and the coverage table.

Kept as data so the translator does not need cuda-tile installed; tests/test_coverage_names.py
compares it with the installed package.
"""
from __future__ import annotations

CUDA_TILE_VERSION = "1.7.0"

EXPORTS = frozenset((
    'Array', 'ArrayAnnotation', 'ByTarget', 'Constant', 'ConstantAnnotation', 'DType',
    'IndexedWithInt64', 'ListAnnotation', 'MemoryOrder', 'MemoryScope', 'PaddingMode',
    'RoundingMode', 'Scalar', 'ScalarInt64', 'Slice', 'StaticException', 'Tile',
    'TileCompilerExecutionError', 'TileCompilerTimeoutError', 'TileError', 'TileInternalError',
    'TileRecursionError', 'TileStaticAssertionError', 'TileStaticEvalError', 'TileSyntaxError',
    'TileTypeError', 'TileUnsupportedFeatureError', 'TileValueError', 'TiledView', 'abs', 'add',
    'arange', 'argmax', 'argmin', 'assert_', 'assume_divisible_by', 'astile', 'astype', 'atan2',
    'atomic_add', 'atomic_and', 'atomic_cas', 'atomic_max', 'atomic_min', 'atomic_or',
    'atomic_xchg', 'atomic_xor', 'bfloat16', 'bid', 'bitcast', 'bitwise_and', 'bitwise_lshift',
    'bitwise_not', 'bitwise_or', 'bitwise_rshift', 'bitwise_xor', 'bool_', 'broadcast_to',
    'cat', 'cdiv', 'ceil', 'compilation', 'compiler_timeout', 'cos', 'cosh', 'cumprod',
    'cumsum', 'divmod', 'ensure_constant', 'equal', 'exp', 'exp2', 'expand_dims', 'extract',
    'float16', 'float32', 'float4_e2m1fn', 'float64', 'float8_e4m3fn', 'float8_e5m2',
    'float8_e5m3fnu', 'float8_e8m0fnu', 'floor', 'floordiv', 'foreign_pointer_dtype', 'full',
    'function', 'gather', 'greater', 'greater_equal',
    'grid_dependency_control_launch_dependents', 'grid_dependency_control_wait', 'insert',
    'int16', 'int32', 'int64', 'int8', 'isnan', 'kernel', 'launch', 'less', 'less_equal',
    'load', 'load_advanced_indexing', 'log', 'log2', 'matmul', 'max', 'maximum', 'min',
    'minimum', 'mma', 'mma_scaled', 'mod', 'mul', 'negative', 'not_equal', 'num_blocks',
    'num_tiles', 'ones', 'pack_to_bytes', 'permute', 'pow', 'print', 'printf', 'prod', 'reduce',
    'reshape', 'rsqrt', 'scan', 'scatter', 'sin', 'sinh', 'sqrt', 'static_assert',
    'static_eval', 'static_exception', 'static_iter', 'store', 'store_advanced_indexing', 'sub',
    'sum', 'tan', 'tanh', 'tfloat32', 'transpose', 'truediv', 'tune', 'uint16', 'uint32',
    'uint64', 'uint8', 'unpack_from_bytes', 'where', 'zeros',
))

# Namespaces whose members are reached as ct.<Namespace>.<member>
NAMESPACES = {"PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope", "tune", "compilation"}


def is_exported(path: str) -> bool:
    head = path.split(".")[0]
    return head in EXPORTS


def refusal(path: str):
    """(code, message, hint) for a cuda.tile name the kernel lowering does not translate."""
    from .coverage_table import REFUSED
    head = path.split(".")[0]
    if head in REFUSED:
        code, hint = REFUSED[head]
        return code, f"ct.{path} is not supported in kernel code", hint
    return "C2T101", f"ct.{path} is not supported yet", ""
