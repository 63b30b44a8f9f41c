"""Registry of cuTile operation lowerings: ct name -> (handler, signature).

Each topic module `translator/lower/ops*.py` registers its handlers with `@op(name, sig)`;
modules are discovered automatically (no central list to edit). A handler is called as
`handler(cx, call, args)`: `cx` the lower/context.py LoweringContext, `args` the call's arguments
bound against the signature (context.bind).
"""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Callable, Optional

from .. import rules

HANDLERS: dict = {}
METHODS: dict = {}      # (value kind, method name) -> handler(cx, base: V, call) -> V
_loaded = False


def op(name: str, sig: Optional[list] = None):
    """Register the decorated function as the lowering of `ct.<name>` (sig: cuTile signature,
    default rules.SIGNATURES[name]; `/` and `*` mark positional-only / keyword-only)."""
    def deco(fn: Callable) -> Callable:
        register(name, fn, sig)
        return fn
    return deco


def method(kind: str, name: str):
    """Register the lowering of `value.<name>(...)` for values of `kind` (types.ARRAY, or a kind a
    topic module defines, such as a TiledView)."""
    def deco(fn: Callable) -> Callable:
        METHODS[(kind, name)] = fn
        return fn
    return deco


def lookup_method(kind: str, name: str):
    load_all()
    return METHODS.get((kind, name))


def register(name: str, fn: Callable, sig: Optional[list] = None):
    """(what `op` does; topic modules use `@op`)"""
    if sig is None:
        sig = rules.SIGNATURES[name]
    if name in HANDLERS and HANDLERS[name][0] is not fn:
        raise RuntimeError(f"ct.{name} registered twice ({HANDLERS[name][0].__module__} and {fn.__module__})")
    HANDLERS[name] = (fn, sig)


def load_all():
    global _loaded
    if _loaded:
        return
    _loaded = True
    pkg = Path(__file__).parent
    for m in sorted(pkgutil.iter_modules([str(pkg)]), key=lambda m: m.name):
        if m.name.startswith("ops"):
            importlib.import_module(f"{__package__}.{m.name}")


def lookup(name: str):
    load_all()
    return HANDLERS.get(name)


def translated_names() -> set:
    load_all()
    return set(HANDLERS)
