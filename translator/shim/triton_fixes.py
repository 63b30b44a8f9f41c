"""Faults of the stock Triton 3.6 that make a translation run differently than cuTile's
compile would, patched for the programs the shim runs.

Compiled (`install_compiler`):
- Triton's filter_traceback walks both the __cause__ and the __context__ of each error, which are
  one exception when code generation wraps an error in a nested @triton.jit call: the walk
  doubles at every level, and an error 50 calls deep (a recursive helper running past Python's
  recursion limit) never finished (cutile-python's test_helper_function ran past its timeout on
  the H200). Each exception is walked once here.
- Code generation takes about 20 Python frames per nested call, so a helper recursing 109 deep
  (cuTile accepts 1000) ran out of Python's default recursion limit of 1000: the limit is raised
  to RECURSION_LIMIT (compiling 1000 levels took 10 s on the dev CPU; the frames live on the
  heap in Python 3.11, so the C stack does not grow with them).

Under the interpreter (TRITON_INTERPRET=1, `install`):

- A Python bool passed to a kernel parameter that is not constexpr: the interpreter types it
  int1 but stores it in an int32 array, and raises "numpy data itemsize (32 bits) exceeds dtype
  primitive_bitwidth (1 bits)" (a compiled kernel takes it as an i1). It is passed as an int1
  scalar here.
- An error inside a nested @triton.jit call is wrapped in InterpreterError(repr(e)) at every
  level of the call chain. Each repr escapes the quotes and backslashes of the one below, so the
  message doubles in size per level from the third on: an error 60 calls deep (a recursive helper
  running past Python's recursion limit) never finished being raised. An InterpreterError is
  passed up unchanged here, wrapped once.
- `~x` of an unsigned integer: the interpreter's all-ones value is -1 in the unsigned numpy dtype
  ("Python integer -1 out of bounds for uint32"); here it is that dtype's largest value (a
  compiled kernel's all-ones constant).

Both paths also apply cuTile's limit on nested helper calls (its MAX_RECURSION_DEPTH, 1000: cuTile
inlines each call and refuses deeper chains with TileRecursionError): a user helper (not the
translation's own `_c2t_*` helpers) called RECURSION_DEPTH - 1 deep still compiles, one deeper fails with "cuTile
TileRecursionError: ...", which ct.launch raises as the shim's TileRecursionError (kernel.py
cutile_error). Without it a runaway recursion ran until Python's recursion limit (raised here to
30000 frames) and failed with Triton's CompilationError, or the interpreter's RecursionError.
Compiled, the depth counted is that of code generation, which makes each specialization once: a
lower bound of cuTile's inlining depth, so nothing cuTile accepts is refused.

- An atomic whose operands are broadcast (a (1, 1) update broadcast to a view's (32, 16) tile:
  numpy views with zero strides): the interpreter's C atomics read them as dense arrays, past
  their one element (cutile-python's test_tiled_view_atomic_broadcast got NaNs). Made dense here.

None changes what a translation computes; on other Triton versions nothing is patched.
"""
from __future__ import annotations

import sys
import threading

RECURSION_LIMIT = 30000
RECURSION_DEPTH = 1000          # cuTile's MAX_RECURSION_DEPTH (_passes/hir2ir.py)
RECURSION_MESSAGE = (f"cuTile TileRecursionError: Maximum recursion depth ({RECURSION_DEPTH}) reached"
                     " while inlining a function call")
_depth = threading.local()


class _Depth:
    """Counts the nesting of user helper calls on this thread; past RECURSION_DEPTH raises cuTile's
    TileRecursionError text. The translation's own `_c2t_*` helpers are not counted."""

    def __init__(self, name):
        self.counted = not name.startswith("_c2t_")

    def __enter__(self):
        if self.counted:
            n = getattr(_depth, "n", 0) + 1
            if n + 1 > RECURSION_DEPTH:     # (cuTile counts the kernel as the first level)
                raise RecursionError(RECURSION_MESSAGE)
            _depth.n = n

    def __exit__(self, *exc):
        if self.counted:
            _depth.n -= 1


def _name(fn):
    return getattr(getattr(fn, "fn", fn), "__name__", "")
_installed = False
_compiler_installed = False


def install_compiler() -> bool:
    global _compiler_installed
    if _compiler_installed:
        return True
    try:
        import triton.compiler.compiler as cc
    except ImportError:
        return False
    walk = getattr(cc, "filter_traceback", None)
    if walk is None:
        return False

    def filter_traceback(e, _seen=None):
        seen = set() if _seen is None else _seen
        if id(e) in seen:
            return
        seen.add(id(e))
        chain = (e.__cause__, e.__context__)
        for x in chain:
            if x is not None:
                filter_traceback(x, seen)
        e.__cause__ = e.__context__ = None      # (Triton's walk, for this exception's own frames)
        try:
            walk(e)
        finally:
            e.__cause__, e.__context__ = chain

    cc.filter_traceback = filter_traceback
    try:
        from triton.compiler.code_generator import CodeGenerator
    except ImportError:
        CodeGenerator = None
    gen = getattr(CodeGenerator, "call_JitFunction", None)
    if gen is not None:
        def call_JitFunction(self, fn, *args, **kwargs):
            with _Depth(_name(fn)):
                return gen(self, fn, *args, **kwargs)
        CodeGenerator.call_JitFunction = call_JitFunction
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    _compiler_installed = True
    return True


def install() -> bool:
    global _installed
    if _installed:
        return True
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter as interp
    except ImportError:
        return False
    cvt, cls = getattr(interp, "_implicit_cvt", None), getattr(interp, "InterpretedFunction", None)
    needed = ("_patch_lang", "InterpreterError", "TensorHandle")
    if cvt is None or cls is None or not all(hasattr(interp, n) for n in needed) or not hasattr(cls, "rewrite"):
        return False

    def implicit_cvt(arg):
        if type(arg) is bool:
            return tl.tensor(interp.TensorHandle(np.array([arg], dtype=np.bool_), tl.int1), tl.int1)
        return cvt(arg)

    def call(self, *args, **kwargs):        # InterpretedFunction.__call__ (a device function call)
        interp._patch_lang(self.fn)
        fn = self.rewrite()
        try:
            with _Depth(_name(self.fn)):
                return fn(*args, **kwargs)
        except interp.InterpreterError:
            raise
        except Exception as e:
            raise interp.InterpreterError(repr(e)) from e

    def dense(h):
        data = getattr(h, "data", None)
        if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
            return interp.TensorHandle(np.ascontiguousarray(data), h.dtype)
        return h

    builder = getattr(interp, "InterpreterBuilder", None)
    rmw, cas = getattr(builder, "create_atomic_rmw", None), getattr(builder, "create_atomic_cas", None)
    if rmw is not None and cas is not None:
        def create_atomic_rmw(self, op, ptr, val, mask, sem, scope):
            return rmw(self, op, dense(ptr), dense(val), dense(mask), sem, scope)

        def create_atomic_cas(self, ptr, cmp, val, sem, scope):
            return cas(self, dense(ptr), dense(cmp), dense(val), sem, scope)
        builder.create_atomic_rmw, builder.create_atomic_cas = create_atomic_rmw, create_atomic_cas

    ones = getattr(builder, "get_all_ones_value", None)

    def get_all_ones_value(self, type):
        np_type = interp._get_np_dtype(type)
        if np_type.kind == "u":
            return interp.TensorHandle(np.full(1, np.iinfo(np_type).max, dtype=np_type), type.scalar)
        return ones(self, type)

    if ones is not None and hasattr(interp, "_get_np_dtype"):
        builder.get_all_ones_value = get_all_ones_value
    interp._implicit_cvt = implicit_cvt
    cls.__call__ = call
    if sys.getrecursionlimit() < RECURSION_LIMIT:     # (cuTile's 1000 nested calls fit)
        sys.setrecursionlimit(RECURSION_LIMIT)
    _installed = True
    return True
