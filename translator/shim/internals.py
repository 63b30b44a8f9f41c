"""cuTile internals that cutile-python's own tests read, as the shim's cuda.tile serves them.

test/conftest.py and util.py read some at import (which tests to skip): the shim answers as an
sm_90 device whose compiler takes bytecode 13.1 to 13.4, without dev features. Test modules read
others to compute what cuTile's typing expects (`cuda.tile._ir.cast_ops._is_implicit_cast_ok`:
whether a store or scatter of one dtype into an array of another is an implicit cast cuTile
accepts). What the tests then do with cuTile's compiler itself (compile_tile, bytecode, IR,
export, name mangling) is not served: those names stay stand-ins (ct_module._Unserved) that
raise NotImplementedError when used.
"""
from __future__ import annotations

import enum


class BytecodeVersion(enum.IntEnum):
    V_13_1 = 130100
    V_13_2 = 130200
    V_13_3 = 130300
    V_13_4 = 130400
    V_13_5 = 130500

    def major(self):
        return self.value // 10000

    def minor(self):
        return self.value // 100 % 100

    def as_string(self):
        return f"{self.major()}.{self.minor()}"


class CallingConvention:
    """cuda.tile.compilation.CallingConvention: its constructors give named stand-ins (export is
    not served: only what tests parametrize over is)."""

    def __init__(self, name):
        self.name = name

    @classmethod
    def cutile_python_v1(cls):
        return cls("cutile_python_v1")

    @classmethod
    def cutile_python_v2(cls):
        return cls("cutile_python_v2")

    @classmethod
    def cutile_python_v3(cls):
        return cls("cutile_python_v3")

    def __eq__(self, other):
        return isinstance(other, CallingConvention) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"CallingConvention.{self.name}()"


class _CompilerBin:
    path = "(none: kernels run on Triton, cutile2triton shim)"


from .compiler_options import UNSPECIFIED, ByTarget, CompilerOptions  # noqa: E402


def served(to_dtype, is_implicit_cast_ok):
    """{module name: {name: value}} of the internals served; the typing helpers are ct_module's
    (they read its dtypes)."""
    supported = [BytecodeVersion.V_13_1, BytecodeVersion.V_13_2, BytecodeVersion.V_13_3, BytecodeVersion.V_13_4]
    return {
        "cuda.tile._bytecode": {"BytecodeVersion": BytecodeVersion},
        "cuda.tile._bytecode.version": {"BytecodeVersion": BytecodeVersion},
        "cuda.tile._compile": {
            "_SUPPORTED_VERSIONS": supported,
            "_get_max_supported_bytecode_version": lambda *a, **k: supported[-1],
            "_find_compiler_bin": lambda *a, **k: _CompilerBin(),
            "get_sm_arch": lambda *a, **k: "sm_90"},
        "cuda.tile._cext": {"dev_features_enabled": lambda: False, "get_compute_capability": lambda *a: (9, 0),
                            "cconv_v3_enabled": lambda: False, "CallingConvention": CallingConvention},
        "cuda.tile.compilation": {"CallingConvention": CallingConvention},
        "cuda.tile._ir.typing_support": {"to_dtype": to_dtype},
        "cuda.tile._ir.cast_ops": {"_is_implicit_cast_ok": is_implicit_cast_ok},
        "cuda.tile._compiler_options": {"CompilerOptions": CompilerOptions},
        "cuda.tile._by_target": {"ByTarget": ByTarget, "UNSPECIFIED": UNSPECIFIED},
    }
