"""Two faults of the stock Triton 3.6 interpreter (TRITON_INTERPRET=1) that make a translation
run differently there than compiled, patched for programs the shim runs under the interpreter.

- A Python bool passed to a kernel parameter that is not constexpr: the interpreter types it
  int1 but stores it in an int32 array, and raises "numpy data itemsize (32 bits) exceeds dtype
  primitive_bitwidth (1 bits)" (a compiled kernel takes it as an i1). It is passed as an int1
  scalar here.
- An error inside a nested @triton.jit call is wrapped in InterpreterError(repr(e)) at every
  level of the call chain. Each repr escapes the quotes and backslashes of the one below, so the
  message doubles in size per level from the third on: an error 60 calls deep (a recursive helper
  running past Python's recursion limit) never finished being raised. An InterpreterError is
  passed up unchanged here, wrapped once.

Neither changes what a translation computes; `install()` does nothing on other Triton versions.
"""
from __future__ import annotations

_installed = False


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
            return fn(*args, **kwargs)
        except interp.InterpreterError:
            raise
        except Exception as e:
            raise interp.InterpreterError(repr(e)) from e

    interp._implicit_cvt = implicit_cvt
    cls.__call__ = call
    _installed = True
    return True
