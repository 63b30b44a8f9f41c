"""python -m translator.fuzz gen --seed N --count K -o DIR | run DIR | shrink FILE | one FILE..."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m translator.fuzz")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="write K generated programs fuzz_SEED.py into DIR")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--count", type=int, default=1)
    g.add_argument("-o", "--out", required=True)
    g.add_argument("--cpu", action="store_true", help="no bfloat16 (programs for the CPU interpreter)")
    g.add_argument("--gen", type=int, default=2, help="generator generation (1: the statement kinds of the first runs; 2: more)")
    r = sub.add_parser("run", help="translate every fuzz_*.py in DIR and, with --gpu, compare with cuTile")
    r.add_argument("dir")
    r.add_argument("--gpu", action="store_true", help="run original and translation (needs CUDA and cuTile)")
    r.add_argument("--jobs", type=int, default=4)
    r.add_argument("--deadline", type=float, default=None, help="stop starting programs after this many seconds")
    r.add_argument("--goldens", help="also record the original's outputs as goldens under this folder")
    r.add_argument("--json", help="write the summary here (default DIR/summary.json)")
    r.add_argument("--md", help="write a Markdown summary here")
    s = sub.add_parser("shrink", help="shrink FILE while --until still holds; writes FILE_shrunk.py")
    s.add_argument("file")
    s.add_argument("--until", default="disagree",
                   help="refused[:CODE] | translator_error[:CODE] | disagree | translation_error | cutile_error")
    s.add_argument("--gpu", action="store_true", help="the predicate runs both sides (needs CUDA and cuTile)")
    s.add_argument("--budget", type=float, default=300.0, help="seconds")
    o = sub.add_parser("one", help="(worker) run files in this process, one JSON line each")
    o.add_argument("files", nargs="+")
    o.add_argument("--gpu", action="store_true")
    o.add_argument("--goldens")
    o.add_argument("--jsonl", required=True)
    a = p.parse_args(argv)
    if a.cmd == "gen":
        from .gen import generate
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        for seed in range(a.seed, a.seed + a.count):
            prog = generate(seed, gpu=not a.cpu, gen=a.gen)
            (out / f"{prog.name}.py").write_text(prog.source)
        print(f"wrote {a.count} programs to {out}")
        return 0
    if a.cmd == "run":
        from .run import run_dir, summarize, to_markdown
        n = len(list(Path(a.dir).glob("fuzz_*.py")))
        res = run_dir(Path(a.dir), gpu=a.gpu, jobs=a.jobs, deadline=a.deadline,
                      goldens=Path(a.goldens) if a.goldens else None)
        summ = summarize(res, n)
        Path(a.json or Path(a.dir) / "summary.json").write_text(json.dumps(summ, indent=1, default=str))
        md = to_markdown(summ)
        if a.md:
            Path(a.md).write_text(md)
        print(md)
        bad = [f for f in summ["failures"] if f["status"] in ("disagree", "translator_error", "translation_error")]
        return 1 if bad else 0
    if a.cmd == "shrink":
        from .shrink import shrink_file
        out = shrink_file(Path(a.file), a.until, gpu_run=a.gpu, budget_s=a.budget)
        print(f"wrote {out}")
        return 0
    from .run import worker_main
    worker_main(a.files, a.gpu, a.goldens, a.jsonl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
