"""TRITON_INTERPRET for the duration of a block: the harness imports translations under it (or
without it), and the translation check compiles without it."""
from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def interpreter_env(on: bool = True):
    """TRITON_INTERPRET=1 (on) or unset (off) for the duration; it must be right before the
    translated module is imported, since @triton.jit decides at decoration time.  Off matters
    too: a test process may have set TRITON_INTERPRET=1 globally, and a GPU run must compile."""
    old = os.environ.get("TRITON_INTERPRET")
    if on:
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old
