"""`cutile2triton verify FILE.py ...`: main(argv) -> exit code (0 pass, 1 mismatch, 2 bad input)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .errors import HarnessError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cutile2triton verify",
        description="Run a cuTile module and its Triton translation on the same seeded inputs, "
                    "compare them under the tolerance policy and time them. The module (or --spec) "
                    "defines C2T_SPEC; see translator/harness/spec.py.")
    p.add_argument("file", help="cuTile Python module")
    p.add_argument("--spec", help="Python file defining C2T_SPEC (default: C2T_SPEC in FILE)")
    p.add_argument("--mode", choices=("gpu", "interp"), default="gpu",
                   help="gpu: original vs translated on CUDA; interp: translated under the Triton "
                        "interpreter on the CPU vs the spec's reference (or --goldens)")
    p.add_argument("--device", default=None, help="torch device for gpu mode (default cuda)")
    p.add_argument("--cases", choices=("cases", "gpu_cases"), default=None,
                   help="which case list of the spec (default: gpu_cases in gpu mode, cases in interp mode)")
    p.add_argument("--dtypes", nargs="+", help="subset of the spec's dtypes")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    p.add_argument("--no-bench", action="store_true", help="skip timing")
    p.add_argument("--bench-cases", nargs="+", type=int, metavar="I",
                   help="time only these bench_cases of the spec (indices from 0; default: all)")
    p.add_argument("--check-cases", nargs="*", type=int, metavar="I",
                   help="check only these cases of the case list (indices from 0; default: all)")
    p.add_argument("--translated", help="use this Triton file instead of translating FILE")
    p.add_argument("--json", metavar="OUT", help="write the JSON report here")
    p.add_argument("--md", metavar="OUT", help="write the Markdown report here")
    p.add_argument("--record", metavar="DIR", help="record the ORIGINAL's outputs on the small cases as goldens")
    p.add_argument("--goldens", metavar="DIR", help="compare the translation with goldens recorded by --record (under the "
                        "interpreter on the CPU, unless --device cuda is given)")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-case progress lines on stderr")
    return p


def _partial_writer(json_path: str):
    """Write the report so far to JSON_PATH.partial after every result (replaced atomically), so
    that a run killed by a timeout (a bench suite's per-entry limit) still leaves its results."""
    partial = Path(json_path + ".partial")

    def write(report):
        partial.parent.mkdir(parents=True, exist_ok=True)
        tmp = partial.with_name(partial.name + ".tmp")
        tmp.write_text(report.to_json())
        os.replace(tmp, partial)
    return write


def _cuda_available() -> bool:
    import torch
    return torch.cuda.is_available()


def _write(path: str, text: str):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)
    print(f"wrote {path}", file=sys.stderr)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:                       # argparse: --help is 0, usage errors are 2
        return int(exc.code or 0)
    if not Path(args.file).is_file():
        print(f"cutile2triton verify: error: no such file: {args.file}", file=sys.stderr)
        return 2
    progress = not args.quiet
    try:
        from . import check_goldens, record, verify
        if args.record:
            manifest = record(args.file, args.record, args.spec, device=args.device or "cuda",
                              dtypes=args.dtypes, cases=args.cases or "cases", progress=progress)
            print(f"recorded {len(manifest['entries'])} golden case(s) of {manifest['entry']} in {args.record}")
            return 0
        if args.goldens:
            mode = "interp" if args.mode == "interp" or args.device in (None, "cpu") else "gpu"
            report = check_goldens(args.file, args.goldens, args.spec, translated=args.translated, mode=mode,
                                   device=args.device or "cpu", dtypes=args.dtypes, progress=progress)
        else:
            device = args.device or "cuda"
            if args.mode == "gpu" and device.startswith("cuda") and not _cuda_available():
                print("cutile2triton verify: error: gpu mode runs the original cuTile module on a CUDA "
                      "GPU and this machine has none (torch.cuda.is_available() is False); on a CPU "
                      "machine, `--mode interp` runs the translation under Triton's interpreter against "
                      "the spec's reference, and `--mode interp --goldens DIR` against outputs of the "
                      "original recorded on a GPU with --record", file=sys.stderr)
                return 2
            report = verify(args.file, args.spec, device=device, translated=args.translated,
                            mode=args.mode, seeds=tuple(args.seeds), cases=args.cases, dtypes=args.dtypes,
                            bench=not args.no_bench, progress=progress, bench_cases=args.bench_cases,
                            check_cases=args.check_cases,
                            on_result=_partial_writer(args.json) if args.json else None)
    except HarnessError as exc:
        print(f"cutile2triton verify: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cutile2triton verify: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:                        # noqa: BLE001 - a harness bug: say so, no traceback
        from ..extras import missing_stack
        if missing_stack(exc):
            print(f"cutile2triton verify: error: {missing_stack(exc)}", file=sys.stderr)
            return 2
        if os.environ.get("C2T_DEBUG"):
            raise
        print(f"cutile2triton verify: internal error: {type(exc).__name__}: {exc} "
              f"(set C2T_DEBUG=1 for a traceback)", file=sys.stderr)
        return 2
    print(report.to_text())
    try:
        if args.json:
            _write(args.json, report.to_json())
            Path(args.json + ".partial").unlink(missing_ok=True)
        if args.md:
            _write(args.md, report.to_markdown())
    except OSError as exc:
        print(f"cutile2triton verify: error: cannot write report: {exc}", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


if __name__ == "__main__":                           # python -m translator.harness.cli FILE ...
    sys.exit(main())
