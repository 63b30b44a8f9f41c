"""The verification report: per-case results, timings, and text / JSON / Markdown renderings."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from .bench import Timing, geomean
from .compare import OutputCheck
from .tolerance import describe_rule


@dataclass
class CaseResult:
    label: str                    # "M=1000 N=1023"
    case: dict
    dtype: str
    seed: int
    passed: bool
    compared_against: str         # original | reference | golden
    checks: list[OutputCheck] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    def summary(self) -> str:
        if self.error:
            return self.error.splitlines()[0]
        bad = [c for c in self.checks if not c.passed]
        if bad:
            return "; ".join(f"{c.name}: {c.problem}" for c in bad)
        worst = max(self.checks, key=lambda c: c.max_abs, default=None)
        return f"max abs {worst.max_abs:.3g}, max rel {worst.max_rel:.3g}" if worst else "ok"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["checks"] = [c.to_dict() for c in self.checks]
        return d


@dataclass
class Report:
    file: str
    entry: str
    mode: str                     # gpu | interp | goldens
    device: str
    device_info: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    op_class: str = "elementwise"
    nondeterministic: bool = False
    bound: str | None = None      # memory | compute | None, from the spec
    policy: list[dict] = field(default_factory=list)
    translated_file: str = ""
    results: list[CaseResult] = field(default_factory=list)
    timings: list[Timing] = field(default_factory=list)
    copy_bandwidth: dict | None = None
    notes: list[str] = field(default_factory=list)
    # the translator's switches set for the run ($C2T_* variables: C2T_TMA, C2T_TILE_VARIANTS...),
    # so that a table built from reports says which rows ran with which
    settings: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def n_passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def geomean_ratio(self) -> float | None:
        return geomean(t.ratio for t in self.timings)

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict:
        return {
            "ok": self.ok, "file": self.file, "entry": self.entry, "mode": self.mode, "device": self.device,
            "device_info": self.device_info, "versions": self.versions, "op_class": self.op_class,
            "nondeterministic": self.nondeterministic, "bound": self.bound,
            "tolerance_policy": {"rule": describe_rule(), "table": self.policy},
            "translated_file": self.translated_file,
            "summary": {"cases": len(self.results), "passed": self.n_passed,
                        "failed": len(self.results) - self.n_passed, "geomean_ratio": self.geomean_ratio},
            "results": [r.to_dict() for r in self.results],
            "timings": [t.to_dict() for t in self.timings],
            "copy_bandwidth": self.copy_bandwidth, "notes": self.notes, "settings": self.settings,
        }

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(_finite(self.to_dict()), indent=indent, default=str)

    # ---------------------------------------------------------------- text
    def _header(self) -> list[tuple[str, str]]:
        v = self.versions
        vers = ", ".join(f"{k} {v[k]}" for k in ("torch", "triton", "cuda.tile") if k in v)
        return [("file", self.file), ("entry", self.entry), ("mode", self.mode),
                ("device", f"{self.device} ({self.device_info.get('name', '?')})"),
                ("versions", vers), ("op class", self.op_class + (" (nondeterministic: looser policy)"
                                                                 if self.nondeterministic else "")),
                ("translated", self.translated_file or "-"),
                ("settings", " ".join(f"{k}={v}" for k, v in sorted(self.settings.items())) or "defaults")]

    def _timing_rows(self) -> list[list[str]]:
        rows = []
        for t in self.timings:
            rate = ""
            if t.tflops_triton is not None:
                rate = f"{_f(t.tflops_cutile)} / {_f(t.tflops_triton)} TFLOP/s"
            elif t.gbps_triton is not None:
                rate = f"{_f(t.gbps_cutile, 0)} / {_f(t.gbps_triton, 0)} GB/s"
            peers = "; ".join(f"{k} {_f(v.get('ms'))} ms (x{_f(v.get('ratio'))})" if v.get("ms") else
                              f"{k} failed: {v.get('error', '?')[:80]}" for k, v in (t.peers or {}).items())
            rows.append([t.label, t.dtype, _f(t.t_cutile_ms), _f(t.t_triton_ms),
                         _f(t.ratio), rate or "-", peers or "-", t.error.splitlines()[0] if t.error else ""])
        return rows

    def to_text(self) -> str:
        out = [f"{k:>10}: {v}" for k, v in self._header()]
        out += ["", "tolerance policy: " + describe_rule()]
        out += _table(["dtype", "rtol", "atol", "source"],
                      [[p["dtype"], f"{p['rtol']:g}", f"{p['atol']:g}", p["source"]] for p in self.policy])
        out += ["", f"correctness ({self.n_passed}/{len(self.results)} passed):"]
        out += _table(["case", "dtype", "seed", "vs", "result", "detail"],
                      [[r.label, r.dtype, str(r.seed), r.compared_against, "PASS" if r.passed else "FAIL",
                        r.summary()] for r in self.results])
        if self.timings:
            out += ["", "timing (median ms; ratio = t_cuTile / t_Triton, > 1 means Triton is faster):"]
            out += _table(["case", "dtype", "cuTile ms", "Triton ms", "ratio", "cuTile / Triton rate",
                           "peers (t_peer / t_Triton)", "note"],
                          self._timing_rows())
            out.append(f"geometric mean of ratios: {_f(self.geomean_ratio)}")
        if self.copy_bandwidth:
            out.append(f"device-to-device copy bandwidth: {self.copy_bandwidth['gbps']:.0f} GB/s "
                       f"({self.copy_bandwidth['rule']})")
        out += [f"note: {n}" for n in self.notes]
        out += ["", "RESULT: " + ("PASS" if self.ok else "FAIL") +
                f" ({self.n_passed}/{len(self.results)} cases passed)"]
        return "\n".join(out)

    # ---------------------------------------------------------------- Markdown
    def to_markdown(self) -> str:
        out = [f"# Verification of `{self.entry}` — {'PASS' if self.ok else 'FAIL'}", ""]
        out += [f"- **{k}**: {v}" for k, v in self._header()]
        out += ["", "## Tolerance policy", "", describe_rule(), ""]
        out += _md(["dtype", "rtol", "atol", "source"],
                   [[p["dtype"], f"{p['rtol']:g}", f"{p['atol']:g}", p["source"]] for p in self.policy])
        out += ["", f"## Correctness: {self.n_passed}/{len(self.results)} passed", ""]
        out += _md(["case", "dtype", "seed", "vs", "result", "max abs", "max rel", "mismatches", "detail"],
                   [[r.label, r.dtype, str(r.seed), r.compared_against, "PASS" if r.passed else "**FAIL**",
                     _f(max((c.max_abs for c in r.checks), default=None)),
                     _f(max((c.max_rel for c in r.checks), default=None)),
                     str(sum(c.mismatches for c in r.checks)), r.summary().replace("|", "\\|")]
                    for r in self.results])
        if self.timings:
            out += ["", "## Timing", "", "Median of `triton.testing.do_bench`; ratio = t_cuTile / t_Triton "
                    "(> 1: the Triton translation is faster).", ""]
            out += _md(["case", "dtype", "cuTile ms", "Triton ms", "ratio", "cuTile / Triton rate",
                           "peers (t_peer / t_Triton)", "note"],
                       self._timing_rows())
            out += ["", f"Geometric mean of ratios: **{_f(self.geomean_ratio)}**"]
        if self.copy_bandwidth:
            out += ["", f"Device-to-device copy bandwidth: **{self.copy_bandwidth['gbps']:.0f} GB/s** "
                    f"({self.copy_bandwidth['rule']})."]
        if self.notes:
            out += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"


def _finite(obj):
    """Strict JSON: inf / nan floats become the strings "inf", "-inf", "nan"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _f(x, digits: int = 3) -> str:
    if x is None:
        return "-"
    if digits == 0:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    rows = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]
    widths[-1] = min(widths[-1], 200)
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [line(head), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _md(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
