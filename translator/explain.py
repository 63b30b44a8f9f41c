"""`cutile2triton --explain CODE` and docs/diagnostics.md: one entry per catalog code.

The catalog (translator/diagnostics.py) gives each code its severity, its title (what) and its
default hint (what to do); WHY below says why the translator reports it, and EXAMPLE shows input
that draws it. docs/diagnostics.md is generated from both:

    python -m translator.explain --markdown docs/diagnostics.md
"""
from __future__ import annotations

import sys

from .diagnostics import CATALOG, ERROR, INFO, WARNING

# code -> (why, example input that draws it)
EXPLAIN: dict[str, tuple[str, str]] = {
    "C2T001": ("The module never imports cuda.tile, so it has no kernels and no host uses of cuTile. In a "
               "folder this is the ordinary case for plain Python files (`__init__.py`, utilities).",
               "def size():\n    return 16"),
    "C2T002": ("The input is not a Python 3 module the parser accepts; nothing can be translated.",
               "import cuda.tile as ct\n\ndef anything(:\n    pass"),
    "C2T003": ("The translator itself failed on this input (an exception inside a pass). The input may be "
               "fine; no output is written for it (in a folder: a stand-in module).",
               "# any input that triggers a translator bug; the message names the exception and where"),
    "C2T004": ("The file could not be read: it does not exist, is not a file, or is not text in UTF-8 or "
               "in the encoding its `# -*- coding: ... -*-` line (PEP 263) names.",
               "cutile2triton no_such_file.py"),
    "C2T005": ("The generated module did not parse as Python: a translator bug, caught before writing it.",
               "# reported with the input that produced it; please report it"),
    "C2T101": ("The cuTile operation exists but the translator has no Triton lowering for it (yet). The "
               "kernel that uses it is refused; in a partial translation it becomes a stand-in that raises "
               "NotImplementedError when launched.",
               "@ct.kernel\ndef k(a, b, sa, sb, c):\n    t = ct.mma_scaled(...)   # C2T101"),
    "C2T102": ("`ct.NAME` is not a name cuda.tile 1.7 exports, so cuTile would reject it too.",
               "@ct.kernel\ndef k(x):\n    t = ct.lod(x, index=(0,), shape=(16,))   # C2T102: ct.lod"),
    "C2T103": ("Triton kernels accept a smaller subset of Python than the host: no `with`, no closures, "
               "no arbitrary calls, no iteration over run-time lists in kernel code.",
               "@ct.kernel\ndef k(x, T: ct.Constant[int]):\n    for i in [1, 2]:   # C2T103: a list in kernel code\n"
               "        pass"),
    "C2T104": ("A Triton kernel receives an array as a pointer with its shape and strides; the translator "
               "must know each array parameter's rank from how the kernel uses it.",
               "@ct.kernel\ndef k(x, y):\n    r = x.ndim   # C2T104: x is never loaded or stored, so its rank is unknown"),
    "C2T105": ("Tile shapes, axes and some arguments are compile-time constants in cuTile and in Triton "
               "(tl.constexpr); a run-time value cannot take their place.",
               "@ct.kernel\ndef k(x, n):\n    t = ct.load(x, index=(0,), shape=(n,))   # C2T105: n is not a ct.Constant"),
    "C2T106": ("The argument has a value this translation does not support (or cuTile does not accept).",
               "t = ct.unpack_from_bytes(two_d_tile, ct.float32)   # C2T106: needs a 1-D uint8 tile"),
    "C2T107": ("The host's ct.launch call is translated into a call of the generated launcher, which "
               "needs the kernel and its arguments written out.",
               "ct.launch(stream, grid, *args)   # C2T107: the kernel and arguments are not visible"),
    "C2T108": ("Host code is kept as it is, except ct.launch, ct.cdiv, kernels and dtypes; any other "
               "cuda.tile name used on the host would be gone after translation. The translation binds it "
               "to a stand-in that raises when used.",
               "def packer():\n    return ct.pack_to_bytes   # C2T108: host use of a kernel-only name"),
    "C2T109": ("The call passes a number of arguments (or a form of argument) that the cuTile signature "
               "does not take.",
               "t = ct.transpose(three_d_tile)   # C2T109: without axes it needs a 2-D tile"),
    "C2T110": ("The translation was compiled with Triton's front end (the compile check) and Triton "
               "rejected a kernel: the translation would fail when launched, so it is not claimed.",
               "# reported with Triton's message for the kernel; --no-compile-check writes it anyway"),
    "C2T201": ("A kernel hint (occupancy, a ByTarget entry for another GPU, a num_ctas Triton cannot use) "
               "has no Triton equivalent. Results do not change. The same code is a warning where "
               "something may need doing: a decorator other than @ct.kernel dropped, hints passed as "
               "`**kwargs`, a num_ctas the launcher cannot evaluate.",
               "@ct.kernel(occupancy=2)   # C2T201 (note): occupancy has no Triton equivalent\n"
               "def k(x): ...\n\n@ct.kernel\n@my_decorator             # C2T201 (warning): dropped\ndef k2(x): ..."),
    "C2T202": ("`latency=` and `allow_tma=` on loads and stores steer cuTile's scheduling; Triton pipelines "
               "loads itself and the launcher picks tensor descriptors, so they are dropped.",
               "t = ct.load(x, index=(i,), shape=(T,), latency=4)   # C2T202"),
    "C2T203": ("cuTile's approximate or flush-to-zero math modes map to Triton's fast forms or to IEEE "
               "forms, which may differ in the last bits or on subnormals.",
               "y = ct.truediv(a, b, rounding_mode=ct.RoundingMode.APPROX)   # C2T203"),
    "C2T204": ("A host-side cuTile setting (an exhaustive_search hints function's num_ctas, "
               "replace_hints options) does not reach the Triton launch.",
               "k2 = k.replace_hints(num_ctas=2)   # C2T204 where Triton's num_ctas cannot apply"),
    "C2T205": ("A kernel calls a function imported from another module; the translation calls it as a "
               "Triton function, which holds only if that module is translated too.",
               "from .gelu import gelu_forward_ct\n\n@ct.kernel\ndef k(x):\n    y = gelu_forward_ct(t)   # C2T205"),
    "C2T206": ("The name is not in cuda.tile 1.7 (cuTile would reject it when compiling) but has an "
               "obvious Triton counterpart, which the translation uses.",
               "y = ct.sigmoid(t)   # C2T206: translated as tl.sigmoid"),
    "C2T207": ("A host loop launches a kernel once per iteration; the translation keeps one launch per "
               "iteration instead of batching them. A loop is batched (up to four launches in one, with "
               "run-time checks) when its body is one launch, allocations of outputs (torch.empty, "
               "empty_like, empty_strided, new_empty) and `list.append`s collecting them, over zip, "
               "enumerate, range or a list, with nothing that reads array data; the note says which "
               "of these the loop misses.",
               "for i in range(n):\n    ct.launch(stream, (f(x[i]),), k, (x[i], y[i]))   # C2T207: the grid calls f, which may read data"),
    "C2T208": ("A name imported from another cuTile module (one that defines kernels) is still the cuTile "
               "original in the translation, unless that module is translated and its translation imported.",
               "from .gelu import gelu_forward_ct   # C2T208"),
    "C2T209": ("A function uses tile operations but nothing in this module calls it, and it could not be "
               "translated on its own (its shapes are not known); it becomes a stand-in that raises.",
               "def helper(t, n):   # C2T209: no caller, n not a ct.Constant\n    return ct.reshape(t, (n,))"),
    "C2T210": ("A function with tile operations that nothing here calls is translated as a @triton.jit "
               "helper, for kernels of other modules that import it.",
               "def swizzle_2d(bid, M, N, GROUP: ct.Constant[int]):   # C2T210\n    ..."),
    "C2T211": ("An array parameter is used with different ranks in different constexpr branches; Triton "
               "needs one rank per kernel, so the kernel becomes one kernel per rank and a dispatcher.",
               "if RANK == 1:\n    ct.store(out, index=(i,), tile=t)\nelse:\n    ct.store(out, index=(i, 0), tile=t2)   # C2T211"),
    "C2T212": ("Triton folds every float constant equal to zero into +0.0, so a -0.0 literal loses its sign.",
               "z = ct.full((T,), -0.0, dtype=ct.float32)   # C2T212"),
    "C2T213": ("In cuTile a constant stays a loosely typed constant after a run-time `if` that sets it in "
               "both branches; in Triton it becomes a run-time int32/fp32 value, which can widen the "
               "types of what it meets.",
               "if x_val > 0:\n    t = 1\nelse:\n    t = 2\ny = int8_tile + t   # C2T213"),
    "C2T214": ("The translated exhaustive_search may time more tile sizes than the config list names "
               "(C2T_TILE_VARIANTS), keeping only those whose launch writes the same outputs.",
               "ct_experimental.autotune_launch(stream, grid_fn, k, args_fn, search_space=configs)   # C2T214"),
    "C2T215": ("The compile check compiled the kernel for the argument types it could assume and Triton "
               "rejected some of them.",
               "# reported with the types Triton rejected"),
    "C2T216": ("The compile check compiles only what it can know without running the module; a kernel "
               "reading module names whose values come from running code (imports of other modules, "
               "computed constants) is not checked.",
               "from .gelu import gelu_forward_ct\n\n@ct.kernel\ndef k(x):   # C2T216: reads gelu_forward_ct\n    ..."),
    "C2T217": ("The compile check found argument types the translated kernel does not take, and cuTile "
               "does not take them either.",
               "# reported with the types; nothing to do if the host passes what cuTile accepts"),
    "C2T218": ("The kernel uses an operation in a way cuTile's compiler rejects (a rounding mode an "
               "operation or cast does not take, a mode on an integer cast). The translation keeps it and "
               "fails to compile with cuTile's TileTypeError, as the original does.",
               "x = ct.astype(t, ct.int32, rounding_mode=ct.RoundingMode.RZ)   # C2T218: only float casts take a mode"),
}

_WORD = {ERROR: "error", WARNING: "warning", INFO: "note"}


def entry(code: str) -> dict:
    sev, title, hint = CATALOG[code]
    why, example = EXPLAIN[code]
    return {"code": code, "severity": _WORD[sev], "what": title, "why": why, "todo": hint, "example": example}


def explain(code: str) -> str | None:
    """The text `--explain CODE` prints; a prefix (C2T2) lists its codes; None for no such code."""
    code = code.strip().upper()
    if code in CATALOG:
        e = entry(code)
        example = "\n".join("    " + line for line in e["example"].splitlines())
        return (f"{code} ({e['severity']}): {e['what']}\n\nWhy: {e['why']}\n\nWhat to do: {e['todo']}\n\n"
                f"Example:\n{example}\n\n" + (
                    "Errors are always reported: they say what the output lacks." if e["severity"] == "error" else
                    f"Silence it on one line with `# c2t: ignore[{code}]`, or everywhere with `--ignore {code}`."))
    codes = sorted(c for c in CATALOG if c.startswith(code)) if code else []
    if not codes:
        return None
    return "\n".join(f"{c} {_WORD[CATALOG[c][0]]:8} {CATALOG[c][1]}" for c in codes)


def markdown() -> str:
    """docs/diagnostics.md."""
    out = ["# Diagnostics", "",
           "<!-- Generated from translator/diagnostics.py and translator/explain.py by "
           "`python -m translator.explain --markdown docs/diagnostics.md`; do not edit. -->", "",
           "Every diagnostic has a stable code, a severity and a `file:line:col` location (a diagnostic "
           "about the whole file is at line 1). **Errors** mean part of the input was not translated "
           "(the kernel or module is a stand-in that raises when used); **warnings** ask for an action "
           "(`--strict` fails on them); **notes** ask for nothing.", "",
           "Choose what is reported with `--select CODES` / `--ignore CODES` (codes or prefixes, "
           "comma-separated), or on one line with `# c2t: ignore[CODE]` (`# c2t: ignore` for every "
           "code of that line). Errors are always reported. `cutile2triton --explain CODE` prints an "
           "entry below.", "",
           "| code | severity | what |", "|---|---|---|"]
    for c in sorted(CATALOG):
        e = entry(c)
        out.append(f"| [{c}](#{c.lower()}) | {e['severity']} | {e['what']} |")
    for c in sorted(CATALOG):
        e = entry(c)
        out += ["", f"## {c}", "", f"**{e['severity']}**: {e['what']}", "", f"**Why.** {e['why']}", "",
                f"**What to do.** {e['todo']}", "", "**Example.**", "", "```python", e["example"], "```"]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--markdown"]:
        text = markdown()
        if len(argv) > 1:
            from pathlib import Path
            Path(argv[1]).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    for code in argv:
        print(explain(code) or f"no diagnostic code {code!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
