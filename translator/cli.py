"""The `cutile2triton` command.

    cutile2triton IN.py [-o OUT.py] [--check | --diff] [--strict] [--json REPORT]
    cutile2triton DIR -o OUTDIR [-j N] [--check] [--strict] [--json REPORT]   (a whole package, package.py)
    cutile2triton verify FILE.py [...]     (GPU harness; see `cutile2triton verify --help`)
    cutile2triton survey PATH... [--md OUT] [--json OUT]   (what translates in a corpus, and why not)
    cutile2triton bench SUITE.py [--tilegym DIR] [--out DIR]  (verify + time a suite on the GPU, one table)
    cutile2triton run (SCRIPT.py | -m MODULE) [ARGS...]   (an unmodified cuTile program on Triton: translator/shim)

Exit status: 0 translated; 1 translated with warnings under --strict, or --check/--diff found a
difference, or (a folder) a package written with parts not translated; 2 refused, a partial
translation of a file (written: what was not translated raises when used), or bad input.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from . import __version__
from .api import Options, translate_file


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cutile2triton",
        description="Translate a cuTile Python module (import cuda.tile as ct) into a Triton module.",
        epilog="Subcommands: `cutile2triton verify FILE.py` runs original and translation side by side "
               "on a GPU; `cutile2triton bench SUITE.py` does that for a suite and merges the timings; "
               "`cutile2triton survey PATH...` reports what translates in a corpus; `cutile2triton run SCRIPT.py` "
               "(or `run -m pytest ...`) runs a cuTile program unmodified on Triton (docs/shim.md). Exit status: 0 translated; "
               "1 warnings under --strict, a --check/--diff difference, or a folder written with parts not "
               "translated; 2 a file refused or translated partly (written: what was not translated raises "
               "when used), or bad input.")
    p.add_argument("input", help="cuTile Python file to translate, or a folder (a package: every .py "
                                 "file under it is translated into the folder -o names)")
    p.add_argument("-o", "--output", help="write the Triton module here (default: standard output)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="do not write; exit 1 if OUTPUT differs from a fresh translation")
    g.add_argument("--diff", action="store_true",
                   help="do not write; print a unified diff of OUTPUT against a fresh translation")
    p.add_argument("--strict", action="store_true", help="exit 1 when there are warnings")
    c = p.add_mutually_exclusive_group()
    c.add_argument("--no-compile-check", dest="compile_check", action="store_const", const=False, default=None,
                   help="do not check the translation with Triton's front end (by default every kernel is "
                        "compiled to TTIR for sm_90 where triton is installed; C2T110 when Triton rejects one)")
    c.add_argument("--full-compile-check", dest="compile_check", action="store_const", const="full",
                   help="check by compiling every kernel to a cubin for sm_90 (slower: ptxas too)")
    p.add_argument("--json", metavar="REPORT", help="write diagnostics and the per-kernel summary as JSON")
    p.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                   help="a folder: translate its files in N processes (0: one per CPU; default 1); the "
                        "output and the messages are the same, in the same order, as with one")
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    p.add_argument("--version", action="version", version=f"cutile2triton {__version__}")
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "verify":
        from .harness.cli import main as verify_main
        return verify_main(argv[1:])
    if argv and argv[0] == "bench":
        from .harness.suite import main as bench_main
        return bench_main(argv[1:])
    if argv and argv[0] == "run":
        from .shim.__main__ import main as run_main
        return run_main(argv[1:])
    if argv and argv[0] == "survey":
        from .survey import main as survey_main
        return survey_main(argv[1:])
    args = _parser().parse_args(argv)
    if (args.check or args.diff) and not args.output:
        print("cutile2triton: --check and --diff need -o OUTPUT (the file to compare with)", file=sys.stderr)
        return 2
    if Path(args.input).is_dir():
        if not args.output or args.diff:
            print("cutile2triton: a folder needs -o OUTDIR (and takes --check, not --diff)", file=sys.stderr)
            return 2
        from .package import translate_tree
        return translate_tree(Path(args.input), Path(args.output), strict=args.strict, quiet=args.quiet,
                              check=args.check, report=args.json, compile_check=args.compile_check,
                              jobs=args.jobs)
    res = translate_file(args.input, Options(strict=args.strict, source_name=args.input, check=args.compile_check))
    for d in res.diagnostics:
        if not args.quiet or d.severity == "error":
            print(d.format(), file=sys.stderr)
    if args.json:
        _write(Path(args.json), json.dumps(res.as_dict(), indent=2) + "\n")
    if res.code is None:
        print(f"cutile2triton: {args.input}: not translated "
              f"({sum(d.severity == 'error' for d in res.diagnostics)} error(s))", file=sys.stderr)
        return 2
    if args.check or args.diff:
        out = Path(args.output)
        old = out.read_text() if out.exists() else ""
        if old == res.code:
            return res.exit_code(args.strict)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), res.code.splitlines(keepends=True),
                fromfile=str(out), tofile=f"{out} (fresh translation)"))
        else:
            print(f"cutile2triton: {out} {'is out of date' if out.exists() else 'does not exist'}; "
                  f"{'regenerate' if out.exists() else 'generate'} it with `cutile2triton {args.input} -o {out}`",
                  file=sys.stderr)
        return 1
    if args.output:
        _write(Path(args.output), res.code)
        if not args.quiet or res.partial:
            n = len(res.kernels)
            print(f"cutile2triton: wrote {args.output} ({n} kernel{'s' if n != 1 else ''})"
                  + (f": {_partial_summary(res)}" if res.partial else ""), file=sys.stderr)
    else:
        sys.stdout.write(res.code)
        if res.partial:
            print(f"cutile2triton: {args.input}: {_partial_summary(res)}", file=sys.stderr)
    return res.exit_code(args.strict)


def _jobs(value: str) -> int:
    """-j N: N >= 1 processes, 0 for one per CPU."""
    import os
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("the number of processes cannot be negative")
    return n or os.cpu_count() or 1


def _partial_summary(res) -> str:
    """What a partial translation left out (exit status 2): its stand-in kernels, and errors."""
    n = sum(d.severity == "error" for d in res.diagnostics)
    stubs = f"kernel(s) {', '.join(res.stubs)} not translated (stand-ins whose launch raises); " if res.stubs else ""
    return (f"PARTIAL translation: {stubs}{n} error(s); what was not translated raises "
            "NotImplementedError when used")


def _write(path: Path, text: str):
    """Write an output file, making the folders it is in (an -o path into a folder not made yet)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
