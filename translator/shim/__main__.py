"""python -m translator.shim [--cpu | --no-cpu] (SCRIPT.py | -m MODULE) [ARGS...]"""
from __future__ import annotations

import os
import runpy
import sys

USAGE = ("usage: python -m translator.shim [--cpu | --no-cpu] (SCRIPT.py | -m MODULE) [ARGS...]\n"
         "       cutile2triton run [--cpu | --no-cpu] (SCRIPT.py | -m MODULE) [ARGS...]\n"
         "Runs a cuTile program unmodified, with `import cuda.tile` served by the translation to Triton\n"
         "(each kernel translated at its first launch; docs/shim.md). --cpu: torch.cuda stand-ins for a\n"
         "machine without CUDA (the default under TRITON_INTERPRET=1 there).")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cpu = None
    while argv and argv[0] in ("--cpu", "--no-cpu", "-h", "--help"):
        flag = argv.pop(0)
        if flag in ("-h", "--help"):
            print(USAGE)
            return 0
        cpu = flag == "--cpu"
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if cpu:
        os.environ.setdefault("TRITON_INTERPRET", "1")      # (no GPU: Triton's CPU interpreter)
    try:
        from . import install
        install(cpu=cpu)
    except ImportError as e:
        from ..extras import missing_stack
        if not missing_stack(e):
            raise
        print(f"cutile2triton run: error: {missing_stack(e)}", file=sys.stderr)
        return 2
    try:
        if argv[0] == "-m":
            if len(argv) < 2:
                print(USAGE, file=sys.stderr)
                return 2
            sys.argv = [argv[1]] + argv[2:]
            if sys.path[0] != os.getcwd() and "" not in sys.path[:1]:
                sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            script = argv[0]
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(script))
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
