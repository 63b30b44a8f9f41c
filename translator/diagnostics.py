"""Diagnostics: a catalog of stable codes, located messages, and the error channel.

Every construct the translator does not translate is reported here with a code
(``C2T###``), a severity, a file:line:col location and a hint saying what to do.
Codes are stable: tests, scripts and users may match on them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

ERROR, WARNING, INFO = "error", "warning", "info"

# code -> (severity, title, default hint)
CATALOG: dict[str, tuple[str, str, str]] = {
    "C2T001": (INFO, "no cuda.tile import: nothing to translate",
               "nothing to do: the file is returned (in a folder: copied) unchanged; import cuda.tile "
               "in it to translate kernels"),
    "C2T002": (ERROR, "syntax error",
               "fix the Python syntax; cutile2triton parses Python 3 modules"),
    "C2T003": (ERROR, "internal translator error",
               "please report this with the input file; no output was produced"),
    "C2T004": (ERROR, "cannot read input",
               "check the path, and that the file is text in UTF-8 or in the encoding its PEP 263 "
               "`# -*- coding: ... -*-` line names"),
    "C2T005": (ERROR, "the translation is not valid Python",
               "a translator bug: please report it with the input file"),
    "C2T110": (ERROR, "Triton rejects a translated kernel",
               "a translator bug or a construct lowered wrongly: please report it; --no-compile-check writes the module as it is"),
    "C2T101": (ERROR, "cuTile operation not supported yet",
               "rewrite this part with supported operations, or keep this kernel in cuTile"),
    "C2T102": (ERROR, "unknown cuda.tile name",
               "cuda.tile 1.7 does not export this name; check the spelling"),
    "C2T103": (ERROR, "Python construct not supported in kernel code",
               "Triton kernels accept a smaller Python subset; restructure this code"),
    "C2T104": (ERROR, "cannot determine how an array parameter is used",
               "use the parameter with ct.load/ct.store/ct.gather/ct.scatter or .shape so its rank is known"),
    "C2T105": (ERROR, "value must be a compile-time constant here",
               "use a literal, a ct.Constant parameter or tile.shape"),
    "C2T106": (ERROR, "argument value not supported",
               "use the default value of this argument, or keep this kernel in cuTile"),
    "C2T107": (ERROR, "unsupported ct.launch call",
               "write ct.launch(stream, grid, kernel, (arg, ...)) with a kernel defined in this module"),
    "C2T108": (ERROR, "unsupported host-side use of cuda.tile",
               "only ct.launch, ct.cdiv, kernels and dtypes are translated on the host"),
    "C2T109": (ERROR, "wrong number of arguments",
               "check the call against the cuTile signature"),
    "C2T201": (INFO, "kernel hint has no Triton equivalent and was dropped",
               "nothing to change for correctness; the launcher picks num_warps from the tile sizes, "
               "num_stages from shared memory and register spills, and caps the registers of a kernel "
               "without dots where that fits two programs per SM without spilling (edit them in the "
               "generated launcher to tune further, and run `cutile2triton verify` after such an edit: "
               "Triton 3.6 miscompiled a TileGym kernel at a warp count the launcher does not pick)"),
    "C2T202": (INFO, "scheduling hint dropped",
               "latency/allow_tma hints do not change results; Triton pipelines loads itself and the "
               "launcher decides where tensor descriptors are used (C2T_TMA)"),
    "C2T203": (INFO, "approximate math mode: Triton's fast form is used",
               "results may differ from cuTile in the last bits"),
    "C2T204": (INFO, "host-side cuTile setting has no Triton equivalent and was dropped",
               "nothing to do unless you relied on it"),
    "C2T206": (WARNING, "name outside cuda.tile 1.7 translated for compatibility",
               "cuTile itself rejects this name when the code is compiled; check the branch is intended"),
    "C2T207": (INFO, "host loop of launches not batched",
               "the launches stay one per iteration (correct, but each pays the launch overhead)"),
    "C2T208": (WARNING, "name imported from another cuTile module",
               "translate that module too and import its translation instead (`cutile2triton verify` "
               "does this by itself when it runs the translation)"),
    "C2T209": (WARNING, "function with tile operations that nothing here calls was not translated",
               "its translation raises NotImplementedError when called; give its shape parameters "
               "ct.Constant annotations, or call it from a kernel of this module, to have it translated"),
    "C2T210": (INFO, "function translated as a Triton helper for other modules' kernels",
               "nothing to do if only kernels call it; host code that calls it must call the original"),
    "C2T211": (INFO, "kernel translated as one kernel per rank of an array (rank variants)",
               "nothing to do; a launch with ranks the kernel does not use raises ValueError, as cuTile "
               "fails to compile it"),
    "C2T212": (WARNING, "a -0.0 constant is +0.0 in Triton",
               "Triton turns every float constant equal to zero into +0.0; where the sign of zero "
               "matters (1/x, copysign, signbit, min/max of zeros), make it at run time, e.g. "
               "ct.negative(ct.zeros(shape, dtype)); ct.PaddingMode.NEG_ZERO keeps its sign"),
    "C2T213": (WARNING, "a constant set in both branches of a run-time `if` is a run-time value in Triton",
               "set it once before the `if`"),
    "C2T214": (INFO, "exhaustive_search may also time tilings the config list does not have",
               "on a GPU, a config whose launch has fewer programs than the GPU has SMs is also timed "
               "with one tile size halved (alone and with another doubled), each kept only where its "
               "launch writes what the listed config writes; C2T_TILE_VARIANTS=0 times the listed "
               "configs only"),
    "C2T215": (WARNING, "a translated kernel compiles for some argument types and not others",
               "if the host passes the rejected types the launch fails; cuTile may reject them too"),
    "C2T217": (INFO, "a translated kernel does not take some assumed argument types, as cuTile does not",
               "nothing to do if the host passes the types cuTile accepts"),
    "C2T218": (WARNING, "an operation cuTile rejects: the translated kernel fails with cuTile's error when compiled",
               "cuTile raises the same TileTypeError when it compiles the kernel; change the program"),
    "C2T216": (WARNING, "a translated kernel was not checked",
               "the check compiles only what it can know without running the module"),
    "C2T205": (WARNING, "call of a function imported from another module",
               "translate that module too (e.g. the whole package), so the name is a Triton function"),
}


@dataclass(frozen=True)
class Span:
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    start: int = 0      # character offsets into the source text
    end: int = 0


_new = object.__new__
_set = object.__setattr__


def make_span(line: int, col: int, end_line: int, end_col: int, start: int, end: int) -> Span:
    """Span(line, col, end_line, end_col, start, end), without the frozen dataclass's __init__ (six
    object.__setattr__ calls; the IR builder makes one for each node)."""
    s = _new(Span)
    _set(s, "__dict__", {"line": line, "col": col, "end_line": end_line, "end_col": end_col,
                         "start": start, "end": end})
    return s


@dataclass
class Diagnostic:
    code: str
    message: str
    filename: str = "<string>"
    line: int = 0
    col: int = 0
    hint: str = ""
    severity: str = field(default="")
    # an error that refuses the whole module, not only the kernel it is in (partial translation
    # stops): the input tried what translating must never do (the constant folder's refusals)
    module: bool = field(default=False, compare=False)
    # where cuTile itself refuses the construct at compile time: (its error class, its message),
    # e.g. ("TileTypeError", "Slice start must be non-negative"); the shim raises that error
    cutile: Optional[tuple] = field(default=None, compare=False)
    # an array parameter used with more combinations of ranks than the translation writes kernels
    # for (kernels.py): its name; the shim then translates the kernel for each launch's ranks
    rank_bound: Optional[str] = field(default=None, compare=False)

    def __post_init__(self):
        sev, _title, hint = CATALOG[self.code]
        if not self.severity:
            self.severity = sev
        if not self.hint:
            self.hint = hint

    def format(self) -> str:
        loc = f"{self.filename}:{self.line}:{self.col}"
        text = f"{loc}: {self.severity} {self.code}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def as_dict(self) -> dict:
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "file": self.filename, "line": self.line, "col": self.col, "hint": self.hint}

    def __str__(self) -> str:
        return self.format()


class TranslationError(Exception):
    """Raised inside a pass to abandon the current construct; carries its diagnostic."""

    def __init__(self, diag: Diagnostic):
        super().__init__(diag.format())
        self.diag = diag


class Reporter:
    """Collects diagnostics for one file."""

    def __init__(self, filename: str):
        self.filename = filename
        self.items: list[Diagnostic] = []
        self._seen: set[tuple] = set()

    def make(self, code: str, message: str, span: Optional[Span] = None, hint: str = "",
             severity: str = "") -> Diagnostic:
        # (a diagnostic about the whole file is located at its first line, as editors and
        # `file:line:col` parsers expect, not at 0:0)
        line, col = (span.line, span.col) if span and span.line else (1, 1)
        return Diagnostic(code, message, self.filename, line, col, hint, severity)

    def add(self, code: str, message: str, span: Optional[Span] = None, hint: str = "",
            severity: str = "") -> Diagnostic:
        """Report a diagnostic (once per code, message and site). `severity`: where this case of
        the code needs an action its catalog severity does not ask for (a warning among notes)."""
        d = self.make(code, message, span, hint, severity)
        key = (d.code, d.message, d.line, d.col)
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(d)
        return d

    def restore(self, diags: list[Diagnostic]):
        """Report again diagnostics taken back by withdraw (each once, as add does)."""
        for d in diags:
            key = (d.code, d.message, d.line, d.col)
            if key not in self._seen:
                self._seen.add(key)
                self.items.append(d)

    def withdraw(self, since: int) -> list[Diagnostic]:
        """Take back the diagnostics added since there were `since` of them (code lowered
        tentatively and then dropped): returned, and forgotten, so that they can be reported again."""
        taken = self.items[since:]
        del self.items[since:]
        self._seen.difference_update((d.code, d.message, d.line, d.col) for d in taken)
        return taken

    def fail(self, code: str, message: str, span: Optional[Span] = None, hint: str = "", module: bool = False,
             cutile: Optional[tuple] = None):
        d = self.make(code, message, span, hint)
        d.module, d.cutile = module, cutile
        raise TranslationError(d)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.line, d.col, d.code))
