"""What the kernel lowering knows about a value while it translates."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

# value kinds
STATIC = "static"     # compile-time constant (literal, Constant param, tile.shape...): a tl.constexpr
SCALAR = "scalar"     # runtime scalar (bid, array extent, int/float kernel argument, 0-d tile)
TILE = "tile"         # runtime tile
ARRAY = "array"       # an Array: pointer + shape + strides
TUPLE = "tuple"
LIST = "list"         # a list-of-arrays kernel parameter (a device table of pointers, shapes, strides)
CONSTOBJ = "constobj"  # a module-level enum class or frozen dataclass value: folded at translation time
DTYPE = "dtype"
ENUM = "enum"         # a member of a cuTile enum (PaddingMode.ZERO...)
CTFUNC = "ctfunc"     # a cuda.tile function object
CTMOD = "ctmod"       # the cuda.tile module (or a sub-namespace such as PaddingMode)
HELPER = "helper"     # a module-level function translated to @triton.jit
MODULE = "module"     # another Python module (math, torch, numpy)
UNKNOWN = "unknown"
# a name bound to different translation-time values (enum members, dtypes) on the paths through a
# run-time `if` or loop: refused where it is read (V.value: (message, cuTile's message or None))
PATHDEP = "pathdep"


class SrcLine(str):
    """A line of a lowered body, with the cuTile source line it comes from (`origin`, 0 when none),
    so that the translation check (translator/check.py) locates Triton's errors in the input."""
    origin: int

    def __new__(cls, text: str, origin: int = 0):
        obj = super().__new__(cls, text)
        obj.origin = origin
        return obj


@dataclass
class ArrayRef:
    """An array as the Triton kernel sees it."""
    ptr: str
    rank: int
    shapes: list = field(default_factory=list)
    strides: list = field(default_factory=list)
    root: str = ""          # the parameter it comes from, when `ptr` is an expression (list elements)
    from_list: bool = False  # an element of a list parameter: its codes read the table at `index`
    rank_unknown: bool = False   # a parameter the kernel uses only through its pointer (rank None)
    also: tuple = ()        # the other arrays it may be (a choice `x if c else y`): memory ordering
    # extents and strides that are constexprs (ct.ArrayAnnotation static_shape_dims/static_stride_dims)
    constexprs: frozenset = frozenset()
    # indexed with 64 bits (a `ct.IndexedWithInt64` parameter, or a view of one): its accesses'
    # indices are cast to int64 (lower/context.py wide_indices)
    int64: bool = False

    @classmethod
    def for_param(cls, name: str, rank: int) -> "ArrayRef":
        return cls(name, rank, [f"{name}_shape_{k}" for k in range(rank)],
                   [f"{name}_stride_{k}" for k in range(rank)])

    def flat(self) -> list:
        return [self.ptr, *self.shapes, *self.strides]


def array_root(arr: ArrayRef) -> str:
    """The parameter an array comes from (memory ordering): its root, or the name its pointer
    expression starts with."""
    if getattr(arr, "root", ""):
        return arr.root
    m = re.match(r"\(*([A-Za-z_][A-Za-z_0-9]*)", arr.ptr)
    return m.group(1) if m else arr.ptr


@dataclass
class ListRef:
    """A list-of-arrays parameter: `<name>_tbl` points at an int64 table with one row per array
    (data pointer, then `rank` extents, then `rank` strides in elements), `<name>_len` is the
    number of arrays, `<name>_DTYPE` (a constexpr) their common element dtype and `<name>_ALIGNED`
    (a constexpr the launcher computes: the number of elements in 16 bytes when every array has a
    unit last stride, a 16-byte aligned base, 16-byte multiples as other strides and a last extent
    of a whole number of 16-byte vectors, else 0): then
    the kernel tells Triton so (tl.multiple_of, a constant last stride) and tile loads vectorize,
    as for plain arrays, whose launch-time specialization gives Triton these facts (TileGym
    group_gemm ran at 11 TFLOP/s on the H200, and its sm_90 PTX loaded tiles element by element)."""
    name: str
    rank: Optional[int]       # None: only the pointers are used (rows hold just the pointer)
    # (what, axis) of the elements' extents ("shape") and strides ("stride") that a
    # `ct.ListAnnotation(element=ct.ArrayAnnotation(static_shape_dims=..., static_stride_dims=...))`
    # hint makes compile-time constants: `<name>_SHAPE_<axis>` / `<name>_STRIDE_<axis>` constexprs,
    # which the launcher checks every array agrees on (cuTile's ValueError)
    static: tuple = ()

    @property
    def width(self) -> int:
        return 1 + 2 * (self.rank or 0)

    def static_name(self, what: str, axis: int) -> str:
        return f"{self.name}_{what.upper()}_{axis}"

    def params(self) -> list:
        return [f"{self.name}_tbl", f"{self.name}_len", f"{self.name}_DTYPE", f"{self.name}_ALIGNED"] \
            + [self.static_name(w, a) for w, a in self.static]

    def decl(self) -> str:
        tbl, n, dt, al, *static = self.params()
        return f"{tbl}, {n}, {dt}: tl.constexpr, {al}: tl.constexpr" + "".join(f", {c}: tl.constexpr" for c in static)

    def element(self, index: str, known=None) -> ArrayRef:
        """The array at position `index` (source text of an int scalar, or a known int)."""
        w = self.width
        if known is not None:
            row = lambda k: f"{self.name}_tbl + {known * w + k}" if known * w + k else f"{self.name}_tbl"
        else:
            row = lambda k: f"{self.name}_tbl + {index} * {w}" + (f" + {k}" if k else "")
        r, al = self.rank or 0, f"{self.name}_ALIGNED"
        ptr = f"tl.load({row(0)}).to(tl.pointer_type({self.name}_DTYPE))"
        if not r:
            return ArrayRef(ptr, r, [], [], root=self.name, from_list=True)
        # aligned lists (`al` = the elements in 16 bytes, 0 otherwise): 16-byte base and row strides,
        # unit last stride, last extent a multiple of `al` (so that bounds masks are constant over a
        # 16-byte vector, as Triton's divisibility specialization of plain array extents gives)
        strides = [f"tl.load({row(1 + r + k)}).to(tl.int32)" for k in range(r)]
        strides = [f"(tl.multiple_of({c}, {al}) if {al} else {c})" for c in strides[:-1]] \
            + [f"(1 if {al} else {strides[-1]})"]
        shapes = [f"tl.load({row(1 + k)}).to(tl.int32)" for k in range(r)]
        shapes[-1] = f"(tl.multiple_of({shapes[-1]}, {al}) if {al} else {shapes[-1]})"
        for what, a in self.static:       # (constexprs: the same for every array of the list)
            (shapes if what == "shape" else strides)[a] = self.static_name(what, a)
        return ArrayRef(f"(tl.multiple_of({ptr}, 16) if {al} else {ptr})", r, shapes, strides,
                        root=self.name, from_list=True,
                        constexprs=frozenset(self.static_name(w, a) for w, a in self.static))


@dataclass
class V:
    """A lowered value: its Triton source text plus what we know about it."""
    code: str
    kind: str
    prec: int = 100                 # operator precedence of `code` (100 = atom)
    value: object = None            # python value of a static, ct name of a CTFUNC, enum member...
    rank: Optional[int] = None      # tile rank when known
    array: Optional[ArrayRef] = None
    elts: Optional[list] = None     # tuple elements (V)
    tf32: bool = False              # an f32 tile cast to ct.tfloat32
    known: bool = False             # `value` holds the python value of a static
    shape: Optional[list] = None    # tile shape as constexpr source expressions, when known
    isint: bool = False             # an integer *tensor* in every mode (program ids, int aranges...)
    load_of: Optional[str] = None   # a ct.load tile of this array parameter (aliased-load reuse)
    # an integer known to be >= 0 whenever these Constant parameters are >= 0 (frozenset(): always;
    # None: not known): program ids, int aranges, and sums, products, `//` and `%` of them
    nonneg: Optional[frozenset] = None
    # dtype facts (lower/dtype_facts.py): its family, whether it may be bf16 (None: the kind's
    # default), whether it is certainly a float
    dsrc: Optional[str] = None
    mbf: Optional[bool] = None
    isfloat: bool = False

    @property
    def is_static(self) -> bool:
        return self.kind in (STATIC, DTYPE, ENUM) or (self.kind == TUPLE and all(e.is_static for e in self.elts or []))

    @property
    def is_runtime(self) -> bool:
        return self.kind in (SCALAR, TILE, UNKNOWN) or (self.kind == TUPLE and not self.is_static)


def paren(v: V, prec: int) -> str:
    return f"({v.code})" if v.prec < prec else v.code


def same_shape(*vs) -> Optional[list]:
    """The shape of an elementwise result: every tile operand has the same known shape and the
    others are constants or scalars; None when unknown."""
    shape = None
    for v in vs:
        if v.kind in (STATIC, SCALAR) and v.shape is None:
            continue
        if v.kind != TILE or v.shape is None or (shape is not None and v.shape != shape):
            return None
        shape = v.shape
    return shape


def call_code(fn: str, *parts) -> str:
    """`fn(a, b, ...)` from argument texts and lists of them (per-axis pieces: array extents and
    strides, indices, block sizes), an empty list adding nothing: a 0-D array has no extents,
    strides or indices, and `", ".join` of each list would leave `f(base, , , x)`."""
    flat = []
    for p in parts:
        flat.extend(p if isinstance(p, (list, tuple)) else [p])
    return f"{fn}({', '.join(flat)})"
