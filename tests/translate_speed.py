"""Translation speed against CPython's own parser (issue 34).

    python tests/translate_speed.py DIR [DIR ...] [--json] [--profile N]

Finds the .py files under the folders that import cuda.tile, parses each with `ast.parse` and
translates each with `translate_source` (the compile check off: it measures Triton, not us), in
one warm process: the grammar is loaded and the translator imported before timing, the parse memo
is cleared so no file is served from it. Prints both totals and their ratio, the slowest files,
and with --profile the N costliest functions under cProfile."""
from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def cutile_files(dirs) -> list:
    out = []
    for d in dirs:
        for p in sorted(Path(d).rglob("*.py")):
            text = p.read_text(encoding="utf-8", errors="replace")
            if "cuda.tile" in text:
                out.append((p, text))
    return out


def measure(files, rounds: int = 1) -> dict:
    from translator import parse as parse_mod
    from translator.api import Options, translate_source
    opts = Options(check=False)
    translate_source("import cuda.tile as ct\n", "<warm>", opts)          # grammar, imports
    t0 = time.perf_counter()
    for _ in range(rounds):
        for p, text in files:
            try:
                ast.parse(text)
            except SyntaxError:
                pass
    t_ast = (time.perf_counter() - t0) / rounds
    per_file = {}
    t0 = time.perf_counter()
    for _ in range(rounds):
        for p, text in files:
            parse_mod._PARSED.clear()
            t1 = time.perf_counter()
            translate_source(text, str(p), opts)
            per_file[str(p)] = per_file.get(str(p), 0.0) + (time.perf_counter() - t1) / rounds
    t_tr = (time.perf_counter() - t0) / rounds
    return {"files": len(files), "lines": sum(t.count("\n") for _, t in files),
            "ast_parse_s": round(t_ast, 3), "translate_s": round(t_tr, 3),
            "ratio": round(t_tr / t_ast, 1) if t_ast else None,
            "slowest": sorted(((round(v, 3), k) for k, v in per_file.items()), reverse=True)[:8]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--profile", type=int, default=0)
    a = ap.parse_args(argv)
    files = cutile_files(a.dirs)
    if a.profile:
        import cProfile
        import pstats
        pr = cProfile.Profile()
        pr.enable()
        r = measure(files)
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(a.profile)
    else:
        r = measure(files)
    if a.json:
        print(json.dumps(r, indent=1))
    else:
        print(f"{r['files']} files, {r['lines']} lines: ast.parse {r['ast_parse_s']} s, "
              f"translate {r['translate_s']} s, ratio {r['ratio']}")
        for t, name in r["slowest"]:
            print(f"  {t:7.3f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
