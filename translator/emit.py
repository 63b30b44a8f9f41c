"""Jinja emission (templates/*.j2) and output formatting."""
from __future__ import annotations

import functools

import jinja2

from .paths import RUNTIME_DIR, TEMPLATE_DIR

# helper name -> Triton function it wraps (fp16/bf16 widened to fp32 around it)
UNARY_MATH_FNS = [
    ("_c2t_exp", "tl.exp"), ("_c2t_exp2", "tl.exp2"), ("_c2t_log", "tl.log"), ("_c2t_log2", "tl.log2"),
    ("_c2t_sqrt", "tl.sqrt_rn"), ("_c2t_sqrt_approx", "tl.sqrt"), ("_c2t_rsqrt", "tl.rsqrt"),
    ("_c2t_sigmoid", "tl.sigmoid"), ("_c2t_sin", "tl.sin"), ("_c2t_cos", "tl.cos"), ("_c2t_floor", "tl.floor"), ("_c2t_ceil", "tl.ceil"),
]


@functools.lru_cache(maxsize=1)
def env() -> jinja2.Environment:
    e = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )
    e.globals["dtype_rules_source"] = dtype_rules_source
    return e


@functools.lru_cache(maxsize=2)
def dtype_rules_source(views: bool = False) -> str:
    """translator/dtype_rules.py's rule block (with `views`: its tiled views' block), which
    templates/prelude_casts.py.j2 copies into modules."""
    from .dtype_rules import device_source
    return device_source(views)


@functools.lru_cache(maxsize=None)
def c_source(name: str) -> str:
    """A C file of translator/runtime/, for a raw triple-quoted string in a standalone module."""
    text = (RUNTIME_DIR / name).read_text().rstrip("\n")
    if '"""' in text or text.endswith("\\"):
        raise ValueError(f"translator/runtime/{name} cannot go into a raw triple-quoted Python string")
    return text


def render(name: str, **ctx) -> str:
    return env().get_template(name).render(**ctx)


def device_prelude(used: set, ranks: dict) -> str:
    """prelude.py.j2, then every templates/prelude_<topic>.py.j2 (one per topic module)."""
    ctx = dict(used=used, ranks={k: sorted(v) for k, v in ranks.items()}, unary_math=UNARY_MATH_FNS)
    names = ["prelude.py.j2"] + sorted(p.name for p in TEMPLATE_DIR.glob("prelude_*.py.j2"))
    parts = [render(n, **ctx).strip("\n") for n in names]
    return "\n\n\n".join(p for p in parts if p)


def format_module(text: str) -> str:
    """Deterministic layout: no trailing blanks, at most two blank lines in a row, one final newline.
    (Plain string operations: the regular expressions they replace, `[ \\t]+$` and `\\n{4,}`, took
    0.37 s of TileGym's 4.6 s, over outputs of 100 KB each.)"""
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    while "\n\n\n\n" in text:       # (a run of n >= 4 newlines ends as 3)
        text = text.replace("\n\n\n\n", "\n\n\n")
    return text.strip("\n") + "\n"
