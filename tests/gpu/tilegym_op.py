"""For the GPU experiments (not part of the product): TileGym's cuTile op to time next to a variant."""
import importlib
import os
import sys


def cutile_op(module: str, name: str):
    """`name` from tilegym.ops.cutile.<module>, TileGym's src being $TILEGYM_SRC (default
    .corpus/src, a fetched checkout, never committed); None, with the reason printed, when it
    cannot be imported (the experiment then times its own variants only)."""
    try:
        sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
        return getattr(importlib.import_module(f"tilegym.ops.cutile.{module}"), name)
    except Exception as exc:          # noqa: BLE001 - the experiment says what it could not time
        print(f"cuTile unavailable: {type(exc).__name__}: {exc}")
        return None
