"""Shrink a generated program while a predicate still holds, by editing its recorded choices
(delete runs of choices, then lower single choices towards 0: fewer statements, lower ranks,
simpler dtypes and forms) and regenerating. Every candidate is a generated, hence valid, program."""
from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path
from typing import Callable

from .gen import GEN, generate, header


def shrink_choices(choices: list, gpu: bool, holds: Callable[[str], bool], *, budget_s: float = 300.0,
                   max_tries: int = 2000, log=None, gen: int = GEN) -> tuple[list, str]:
    """(smallest choices found, its source) such that holds(source) is True for it."""
    seen: dict[str, bool] = {}
    end = time.time() + budget_s
    tries = 0

    def test(c):
        nonlocal tries
        src = generate(choices=c, gpu=gpu, gen=gen).source
        body = src.split("\n", 3)[3]              # the header differs with the choices, the program may not
        key = hashlib.sha256(body.encode()).hexdigest()
        if key not in seen:
            tries += 1
            seen[key] = bool(holds(src))
        return seen[key], src

    best = list(choices)
    ok, best_src = test(best)
    if not ok:
        raise ValueError("the predicate does not hold for the program to shrink")
    changed = True
    while changed and time.time() < end and tries < max_tries:
        changed = False
        for size in (16, 8, 4, 2, 1):
            i = 0
            while i < len(best) and time.time() < end and tries < max_tries:
                cand = best[:i] + best[i + size:]
                ok, src = test(cand)
                if ok and len(src) <= len(best_src):
                    best, best_src, changed = cand, src, True
                else:
                    i += size
        for i in range(len(best)):
            if time.time() >= end or tries >= max_tries:
                break
            for v in sorted({0, best[i] // 2, best[i] - 1}):
                if 0 <= v < best[i]:
                    cand = best[:i] + [v] + best[i + 1:]
                    ok, src = test(cand)
                    if ok and len(src) <= len(best_src):
                        best, best_src, changed = cand, src, True
                        break
        if log:
            log(f"shrink: {len(best)} choices, {len(best_src)} chars, {tries} programs tried")
    return best, best_src


def predicate(until: str, gpu_run: bool) -> Callable[[str], bool]:
    """'refused[:C2Tnnn]', 'translator_error[:C2Tnnn]', or an outcome of run.run_one ('disagree',
    'translation_error', ...; those need a GPU with cuTile when they need both sides)."""
    from .run import run_one, translate_status
    status, _, code = until.partition(":")

    def holds(src: str) -> bool:
        if status in ("refused", "translator_error", "translated"):
            r = translate_status(src, "fuzz_shrink.py")
        else:
            with tempfile.TemporaryDirectory() as d:
                p = Path(d) / "fuzz_shrink.py"
                p.write_text(src)
                r = run_one(p, gpu_run)
        return r["status"] == status and (not code or code in r.get("codes", []))
    return holds


def shrink_file(path: Path, until: str, *, gpu_run: bool, budget_s: float = 300.0, log=print) -> Path:
    info = header(path.read_text())
    if "choices" not in info:
        raise ValueError(f"{path} has no '# c2t-fuzz choices:' header: not a generated program")
    _, src = shrink_choices(info["choices"], info.get("gpu", True), predicate(until, gpu_run),
                            budget_s=budget_s, log=log, gen=info.get("gen", 1))
    out = path.with_name(path.stem + "_shrunk.py")
    out.write_text(src)
    return out
