"""Write what the translator makes of every .py file under some folders, for byte-for-byte
comparison of two trees (a refactor must not change generated code; issue 34).

    python tests/corpus_outputs.py OUT DIR [DIR ...] [--check]
    diff -r OUT_BEFORE OUT_AFTER

For each input file (relative to its DIR, under OUT/<DIR's name>/) it writes FILE.out: the
generated module, or nothing when it was refused, followed by the diagnostics, one per line. The
compile check is off unless --check (it compiles with Triton and takes much longer)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    from translator.api import Options, translate_file
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    opts = Options(check=a.check, source_name="<corpus>")
    n = 0
    for d in map(Path, a.dirs):
        for p in sorted(d.rglob("*.py")):
            r = translate_file(p, opts)
            dest = Path(a.out) / d.name / (str(p.relative_to(d)) + ".out")
            dest.parent.mkdir(parents=True, exist_ok=True)
            diags = "\n".join(f"{x.code} {x.line}:{x.col} {x.message}" for x in r.diagnostics)
            dest.write_text((r.code or "") + "\n#### diagnostics\n" + diags + "\n")
            n += 1
    print(f"{n} files written under {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
