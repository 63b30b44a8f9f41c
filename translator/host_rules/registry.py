"""What a host rule is given (Ctx, Stmt), what it gives back (Out), and how rules are registered.

A rule is `fn(ctx, stmt, node) -> Out | None`, marked `@rule(NodeType, ...)`. It reads; it never
reports, mutates a plan or fills a set: all it does is in the Out it returns, which
host.rewrite_host applies (diagnostics, prelude needs) or hands to api.py (facts about plans)."""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable

from ..analysis import ModuleInfo
from ..ir import nodes as N
from ..ir.nodes import walk


@dataclass
class Edit:
    start: int
    end: int
    text: str
    # a definition replaced where it stands: the text's later lines take the indentation of the
    # line it starts on (a kernel under a module-level `if` or `try`)
    block: bool = False


def apply_edits(text: str, edits: list) -> str:
    # at one position: insertions first, then the widest replacement; an edit nested in an
    # earlier replacement is covered by it
    edits = sorted(edits, key=lambda e: (e.start, e.end != e.start, -e.end))
    out, pos = [], 0
    for e in edits:
        if e.start < pos:       # nested in an earlier edit: already covered
            continue
        out.append(text[pos:e.start])
        out.append(_indented(text, e) if e.block else e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def _indented(text: str, e: Edit) -> str:
    line_start = text.rfind("\n", 0, e.start) + 1
    indent = text[line_start:e.start]
    if not indent or indent.strip():
        return e.text
    lines = e.text.split("\n")
    return "\n".join([lines[0]] + [indent + ln if ln.strip() else ln for ln in lines[1:]])


def src(text: str, e) -> str:
    return text[e.span.start:e.span.end]


def below(n) -> frozenset:
    """ids of `n` and the nodes below it (what a rewrite of `n` covers)."""
    return frozenset(id(x) for x in walk(n))


def is_current_stream(text: str, e) -> bool:
    """torch.cuda.current_stream() (any argument): the launch then needs no stream code."""
    return isinstance(e, N.Call) and src(text, e.func).replace(" ", "").endswith("cuda.current_stream")


@dataclass(frozen=True)
class Diag:
    code: str
    message: str
    span: object
    hint: str = ""


@dataclass(frozen=True)
class Out:
    """A rule's result for one node. `covers`: ids of the nodes below it its rewrite takes care of
    (no rule sees them); `claims`: False lets the rules after this one see the node too;
    `group`: (make, node, item): items of one node are reported together, by
    `make(stmt, node, items) -> Diag`, after the statement; `launch`: a ct.launch call, rewritten
    after the walk with the other edits inside its arguments (launches.py); `tuned`: a kernel the
    host autotunes (api.py sets plan.host.tuned)."""
    edits: tuple = ()
    needs: frozenset = frozenset()      # host prelude parts (translator/runtime/launch.py host_used)
    diags: tuple = ()
    covers: frozenset = frozenset()
    claims: bool = True
    group: tuple = ()
    launch: object = None
    tuned: str = ""


@dataclass(frozen=True)
class Ctx:
    """The module, as every rule sees it. `kernels`: name -> KernelPlan, to read only."""
    info: ModuleInfo
    text: str
    kernels: MappingProxyType
    refused: frozenset          # kernels written as stand-ins (partial translation)
    host_calls: MappingProxyType    # names used outside kernels -> count (host.host_name_uses)


@dataclass(frozen=True)
class Stmt:
    """The module-level statement a node is in. `nested`: id(node) -> the outermost function
    defined inside the statement holding it."""
    node: N.Node
    annotations: MappingProxyType   # id of a node in a type annotation -> the whole annotation
    rebound: frozenset          # ids of assignment targets
    nested: MappingProxyType
    # ids of the expressions tested for presence: an if/while/conditional's test (through not,
    # and, or) and an operand of `is None` / `is not None` (`if ct is not None:`)
    presence: frozenset = frozenset()


@dataclass(frozen=True)
class Rule:
    types: tuple
    fn: Callable

    def __call__(self, ctx: Ctx, stmt: Stmt, n):
        return self.fn(ctx, stmt, n)


def rule(*types):
    """Register `fn(ctx, stmt, node)` as the host rule for nodes of these IR types."""
    return lambda fn: Rule(types, fn)


def collect(*modules) -> tuple:
    """The rules of `modules`, in that order and, within a module, in the order they are defined:
    the first that returns an Out for a node has it (unless that Out does not claim it)."""
    own = (lambda m: [r for r in vars(m).values() if isinstance(r, Rule) and r.fn.__module__ == m.__name__])
    return tuple(r for m in modules for r in sorted(own(m), key=lambda r: r.fn.__code__.co_firstlineno))
