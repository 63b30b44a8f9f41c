"""The `cutile2triton` command.

    cutile2triton IN.py [-o OUT.py] [--check | --diff] [--strict] [--json REPORT]
    cutile2triton - [-o OUT.py]             (the module on standard input)
    cutile2triton DIR -o OUTDIR [-j N] [--check | --diff] [--strict] [--json REPORT]   (a whole package, package.py)
    cutile2triton IN.py DIR ... -o OUTDIR   (several inputs: each goes into OUTDIR under its own name)
    cutile2triton --explain C2T202          (what a diagnostic code means and what to do; docs/diagnostics.md)
    cutile2triton verify FILE.py [...]     (GPU harness; see `cutile2triton verify --help`)
    cutile2triton survey PATH... [--md OUT] [--json OUT]   (what translates in a corpus, and why not)
    cutile2triton bench SUITE.py [--tilegym DIR] [--out DIR]  (verify + time a suite on the GPU, one table)
    cutile2triton run (SCRIPT.py | -m MODULE) [ARGS...]   (an unmodified cuTile program on Triton: translator/shim)

Diagnostics: --select/--ignore CODE[,CODE] (or a prefix: C2T2) choose the notes and warnings
reported, as does `# c2t: ignore[CODE]` on the line of the site; errors are always reported.
Notes ask for nothing and are printed folded after the warnings (translator/report.py).

Exit status: 0 translated; 1 translated with warnings under --strict, or --check/--diff found a
difference, or (a folder, or several inputs) a package written with parts not translated; 2 refused,
a partial translation of a file (written: what was not translated raises when used), or bad input.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from . import __version__
from .api import Options, translate_file, translate_source


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cutile2triton",
        description="Translate a cuTile Python module (import cuda.tile as ct) into a Triton module.",
        epilog="Subcommands: `cutile2triton verify FILE.py` runs original and translation side by side "
               "on a GPU; `cutile2triton bench SUITE.py` does that for a suite and merges the timings; "
               "`cutile2triton survey PATH...` reports what translates in a corpus; `cutile2triton run SCRIPT.py` "
               "(or `run -m pytest ...`) runs a cuTile program unmodified on Triton (docs/shim.md). Exit status: 0 translated; "
               "1 warnings under --strict, a --check/--diff difference, or a folder (or several inputs) written "
               "with parts not translated; 2 a file refused or translated partly (written: what was not "
               "translated raises when used), or bad input.")
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="cuTile Python file to translate (`-`: standard input), or a folder (a package: every "
                        ".py file under it is translated into the folder -o names); several inputs go into "
                        "the folder -o names, each under its own name")
    p.add_argument("-o", "--output", help="write the Triton module here (default: standard output)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="do not write; exit 1 if OUTPUT differs from a fresh translation (the input path "
                        "recorded in the header, relative or absolute, does not count)")
    g.add_argument("--diff", action="store_true",
                   help="do not write; print a unified diff of OUTPUT against a fresh translation")
    g.add_argument("--lint", action="store_true",
                   help="write nothing: translate each input (files, folders) and report; exit 2 where one "
                        "is not translated whole, 1 for warnings under --strict (the pre-commit hook)")
    p.add_argument("--strict", action="store_true", help="exit 1 when there are warnings (those reported: "
                                                         "--select/--ignore and `# c2t: ignore[...]` apply)")
    p.add_argument("--select", action="append", metavar="CODES",
                   help="report only these notes and warnings (codes or prefixes, comma-separated; errors "
                        "are always reported)")
    p.add_argument("--ignore", action="append", metavar="CODES",
                   help="do not report these notes and warnings (codes or prefixes, comma-separated); on one "
                        "line, `# c2t: ignore[CODE]` does this for that line")
    p.add_argument("--explain", metavar="CODE",
                   help="say what a diagnostic code means, why, what to do, with an example (a prefix: list codes)")
    c = p.add_mutually_exclusive_group()
    c.add_argument("--no-compile-check", dest="compile_check", action="store_const", const=False, default=None,
                   help="do not check the translation with Triton's front end (by default every kernel is "
                        "compiled to TTIR for sm_90 where triton is installed; C2T110 when Triton rejects one)")
    c.add_argument("--full-compile-check", dest="compile_check", action="store_const", const="full",
                   help="check by compiling every kernel to a cubin for sm_90 (slower: ptxas too)")
    p.add_argument("--format", action=argparse.BooleanOptionalAction, default=True,
                   help="lay the output out with ruff's formatter at line length 120 (it then passes `ruff format "
                        "--check --line-length 120`), and drop imports only the translated kernels read (the "
                        "default; --no-format writes the translation as the translator lays it out)")
    p.add_argument("--standalone", action="store_true",
                   help="carry the launch runtime the translation uses in it (torch and triton are then its only "
                        "dependencies); by default it imports it from translator.runtime (this package)")
    p.add_argument("--json", metavar="REPORT", help="write diagnostics, the per-kernel summary and totals as JSON "
                                                    "(key `schema`: the report's version)")
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
    parser = _parser()
    args = parser.parse_args(argv)
    if args.explain:
        from .explain import explain
        text = explain(args.explain)
        print(text or f"cutile2triton: no diagnostic code {args.explain!r} (C2T001 ... C2T217)",
              file=sys.stdout if text else sys.stderr)
        return 0 if text else 2
    if not args.inputs:
        parser.error("the following arguments are required: INPUT")
    from .report import Printer, json_report, parse_codes
    try:
        printer = Printer(select=parse_codes(args.select), ignore=parse_codes(args.ignore), quiet=args.quiet)
    except ValueError as e:
        print(f"cutile2triton: {e}", file=sys.stderr)
        return 2
    if (args.check or args.diff) and not args.output:
        print("cutile2triton: --check and --diff need -o OUTPUT (the file to compare with)", file=sys.stderr)
        return 2
    if args.lint:
        return _lint(args, printer)
    several = len(args.inputs) > 1 or Path(args.inputs[0]).is_dir()
    if several:
        if "-" in args.inputs:
            print("cutile2triton: `-` (standard input) is a single input; give it alone", file=sys.stderr)
            return 2
        if not args.output:
            print("cutile2triton: a folder needs -o OUTDIR (so do several inputs)", file=sys.stderr)
            return 2
        missing = [i for i in args.inputs if not Path(i).exists()]
        if missing:
            print(f"cutile2triton: no such file or folder: {', '.join(missing)}", file=sys.stderr)
            return 2
        from .package import translate_paths
        return translate_paths(args.inputs, Path(args.output), strict=args.strict, quiet=args.quiet,
                               check=args.check, diff=args.diff, report=args.json,
                               compile_check=args.compile_check, jobs=args.jobs, printer=printer,
                               standalone=args.standalone, format=args.format)
    name = args.inputs[0]
    if name == "-":
        res = _translate_stdin(Options(strict=args.strict, source_name="<stdin>", check=args.compile_check,
                                         standalone=args.standalone, format=args.format))
    else:
        res = translate_file(name, Options(strict=args.strict, source_name=name, check=args.compile_check,
                                            standalone=args.standalone, format=args.format))
    printer.file(res)
    printer.finish(several=False)
    if args.json:
        _write(Path(args.json), json.dumps(json_report([res], printer), indent=2) + "\n")
    if res.code is None:
        print(f"cutile2triton: {res.filename}: not translated "
              f"({sum(d.severity == 'error' for d in res.diagnostics)} error(s))", file=sys.stderr)
        return 2
    status = 2 if not res.ok else 1 if args.strict and printer.warnings(res) else 0
    if args.check or args.diff:
        from .package import same_translation
        out = Path(args.output)
        old = out.read_text(encoding="utf-8") if out.is_file() else ""
        if out.is_file() and same_translation(old, res.code):
            return status
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), res.code.splitlines(keepends=True),
                fromfile=str(out), tofile=f"{out} (fresh translation)"))
        else:
            print(f"cutile2triton: {out} {'is out of date' if out.exists() else 'does not exist'}; "
                  f"{'regenerate' if out.exists() else 'generate'} it with `cutile2triton {name} -o {out}`",
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
            print(f"cutile2triton: {res.filename}: {_partial_summary(res)}", file=sys.stderr)
    return status


def _lint(args, printer) -> int:
    """--lint: translate every input, print the diagnostics, write nothing."""
    from .package import python_files
    files = []
    for i in args.inputs:
        files += python_files(Path(i)) if Path(i).is_dir() else [i]
    status = 0
    for f in files:
        opts = Options(strict=args.strict, source_name=str(f), check=args.compile_check,
                       standalone=args.standalone, format=args.format)
        res = _translate_stdin(opts) if f == "-" else translate_file(f, opts)
        printer.file(res)
        status = max(status, 2 if not res.ok else 1 if args.strict and printer.warnings(res) else 0)
    printer.finish(several=len(files) > 1)
    return status


def _translate_stdin(options: Options):
    """The module on standard input, decoded as Python decodes a file (PEP 263)."""
    import io
    import tokenize
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(enc).replace("\r\n", "\n").replace("\r", "\n")
    except (SyntaxError, LookupError, UnicodeDecodeError) as e:
        from .api import Result
        from .diagnostics import Reporter
        rep = Reporter("<stdin>")
        rep.add("C2T004", f"cannot read standard input: {e}")
        return Result(None, rep.sorted(), [], "<stdin>")
    return translate_source(text, "<stdin>", options)


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
    from .report import short_list
    stubs = f"kernel(s) {short_list(res.stubs)} not translated (stand-ins whose launch raises); " if res.stubs else ""
    return (f"PARTIAL translation: {stubs}{n} error(s); what was not translated raises "
            "NotImplementedError when used")


def _write(path: Path, text: str):
    """Write an output file, making the folders it is in (an -o path into a folder not made yet)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
