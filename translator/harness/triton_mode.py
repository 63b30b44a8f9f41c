"""Make Triton's own @jit library functions (tl.max, tl.sum, tl.softmax, tl.rand, ...) match the
mode a run needs, whatever mode triton was imported in.

``@triton.jit`` picks JITFunction or InterpretedFunction when it decorates, and triton.language's
standard library is decorated once, when triton is first imported.  So after a GPU run has
imported triton, an interpreted kernel that calls ``tl.max`` fails with "Cannot call @triton.jit'd
outside of the scope of a kernel"; and after an interpreter run imported triton, compiled kernels
would meet InterpretedFunctions.  ``library_mode(interpret)`` swaps those functions (module
attributes of triton.language.* and tensor methods) for twins of the needed kind and restores
them on exit.
"""
from __future__ import annotations

import contextlib
import sys

_twins: dict[int, tuple[object, object]] = {}      # id(original) -> (original, twin of the other kind)


def _twin(obj, interpret: bool):
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    if interpret and isinstance(obj, JITFunction):
        make = lambda: InterpretedFunction(            # noqa: E731 - same arguments triton.jit passes
            obj.fn, version=obj.version, do_not_specialize=obj.do_not_specialize,
            do_not_specialize_on_alignment=obj.do_not_specialize_on_alignment, debug=obj.debug,
            noinline=obj.noinline, repr=obj._repr, launch_metadata=obj.launch_metadata)
    elif not interpret and isinstance(obj, InterpretedFunction):
        make = lambda: JITFunction(obj.fn, **obj.kwargs)  # noqa: E731
    else:
        return None
    if id(obj) not in _twins:
        twin = make()
        _twins[id(obj)] = (obj, twin)
        _twins[id(twin)] = (twin, obj)                  # the twin's twin is the original
    return _twins[id(obj)][1]


_methods: dict[int, object] = {}                   # id(InterpretedFunction) -> method wrapper


def _method_twin(val, interpret: bool):
    """Tensor methods (x.sum()): a JITFunction is stored as it is, an InterpretedFunction behind
    a plain forwarding function (what triton.language.core._tensor_member_fn does)."""
    from triton.runtime.interpreter import InterpretedFunction
    if interpret:
        twin = _twin(val, True)
        if twin is None:
            return None
        if id(twin) not in _methods:
            def method(*args, **kwargs):
                return twin(*args, **kwargs)
            method.__name__ = getattr(val, "__name__", "method")
            _methods[id(twin)] = method
        return _methods[id(twin)]
    cells = [c.cell_contents for c in (getattr(val, "__closure__", None) or ())]
    inner = [c for c in cells if isinstance(c, InterpretedFunction)]
    return _twin(inner[0], False) if len(inner) == 1 else None


def _patched_objects() -> list:
    """What the interpreter patches with setattr (triton/runtime/interpreter.py _patch_lang): the
    language modules and a few classes.  Nested device calls patch without restoring, so a run
    under the interpreter leaves triton.language changed unless we put it back ourselves."""
    import triton.language as tl
    mods = [m for name, m in list(sys.modules.items())
            if m is not None and (name == "triton.language" or name.startswith("triton.language."))]
    return mods + [tl.core.tensor, tl.core.dtype, tl.core.tensor_descriptor_base]


def _snapshot(objs) -> list:
    return [(o, dict(vars(o))) for o in objs]


def _restore(snap) -> None:
    """Put the snapshot back, except the names the interpreter's FunctionRewriter copies from its
    own module into a rewritten function's globals (`interpreter_semantic`, ...): the rewrite is
    cached (InterpretedFunction.rewritten_fn), so a later run would meet a NameError in tl.cumsum."""
    import triton.runtime.interpreter as interp
    injected = vars(interp)
    missing = object()
    for obj, before in snap:
        now = vars(obj)
        for key in [k for k in now if k not in before]:
            if injected.get(key, missing) is now[key]:
                continue
            with contextlib.suppress(AttributeError, TypeError):
                delattr(obj, key)
        for key, val in before.items():
            if now.get(key, missing) is not val:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(obj, key, val)


def _namespaces():
    import triton.language as tl
    spaces = [vars(m) for name, m in list(sys.modules.items())
              if m is not None and (name == "triton.language" or name.startswith("triton.language."))]
    return spaces, tl.core.tensor


@contextlib.contextmanager
def library_mode(interpret: bool):
    """Within the block, triton.language's @jit functions are interpreted (or compiled) ones."""
    if not interpret and "triton" not in sys.modules:
        yield                                          # a fresh import will decorate them compiled
        return
    import triton  # noqa: F401 - under TRITON_INTERPRET=1 when interpret is True
    spaces, tensor_cls = _namespaces()
    undo = []
    for ns in spaces:
        for key, val in list(ns.items()):
            twin = _twin(val, interpret)
            if twin is not None:
                undo.append((ns.__setitem__, key, val))
                ns[key] = twin
    for key, val in list(vars(tensor_cls).items()):
        twin = _method_twin(val, interpret)
        if twin is not None:
            undo.append((lambda k, v: setattr(tensor_cls, k, v), key, val))
            setattr(tensor_cls, key, twin)
    snap = _snapshot(_patched_objects()) if interpret else None
    try:
        yield
    finally:
        if snap is not None:
            _restore(snap)
        for setter, key, val in reversed(undo):
            setter(key, val)
