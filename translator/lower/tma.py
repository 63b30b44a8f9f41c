"""The TMA idiom: in-kernel tensor descriptors for 2-D to 5-D tile loads and stores.

A kernel array whose tiles are all moved by `ct.load`/`ct.store` with static block shapes gets
one descriptor per (block shape, padding), made once at the top of the kernel by
`_c2t_desc_<r>d`, and each access becomes

    a_desc_0.load([bm * BM, k * BK]) if a_TMA else _c2t_load_2d(...)

`a_TMA` is a constexpr the generated launcher computes per launch (`_c2t_tma`): the rules of the
copy engine (16-byte aligned base, last stride 1, other strides multiples of 16 bytes, each block's
last dimension a multiple of 16 bytes and at least 16) are checked on the actual tensor, and when
they do not hold the kernel is compiled as a separate specialization that keeps the masked-pointer
path (a misaligned descriptor kills the CUDA context, so nothing is left to chance).

What keeps the pointer path (decided while translating):
- loads/stores in tile helpers, of array views (slices, tiled views) or of 1-D arrays;
- `order=` other than C order (except a squeezed load, ops_memory._squeezed_load, whose 2-D
  tile is permuted after the descriptor load); block shapes not written with literals and
  Constant parameters;
- padding modes other than ZERO/UNDETERMINED/NAN (descriptors pad with zero or NaN only);
- a stored tile whose shape the translator cannot tell;
- arrays that a kernel both reads and writes, or uses in any other way than ct.load/ct.store
  (metadata such as `.shape` or ct.num_tiles excepted): TMA moves data through the async proxy,
  and Triton orders it neither with the block's own pointer accesses nor across blocks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir import nodes as N

_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_META_ATTRS = {"shape", "strides", "dtype", "ndim"}
_PADDING = {"_C2T_PAD_ZERO": "zero", "_C2T_PAD_NAN": "nan"}


def _array_arg(call: N.Call):
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.name == "array"), None)


def tma_candidates(fd: N.FunctionDef, info, arrays: dict) -> dict:
    """Array parameters (name -> rank) whose every use is ct.load (only) or ct.store (only),
    apart from metadata: the arrays a descriptor may serve."""
    uses = {name: {"load": 0, "store": 0, "other": 0} for name, rank in arrays.items()
            if rank is not None and 2 <= rank <= 5}
    if not uses:
        return {}
    counted = set()
    nodes = info.nodes(fd.body)
    for n in nodes:
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            a = _array_arg(n)
            if isinstance(a, N.Name) and a.id in uses:
                if path in ("load", "store"):
                    kw = {k.name for k in n.keywords}
                    ordered = "memory_order" in kw or "memory_scope" in kw
                    uses[a.id]["other" if ordered else path] += 1
                    counted.add(id(a))
                elif path == "num_tiles":
                    counted.add(id(a))
        elif isinstance(n, N.Attr) and isinstance(n.value, N.Name) and n.value.id in uses \
                and n.attr in _META_ATTRS:
            counted.add(id(n.value))
    for n in nodes:
        if isinstance(n, N.Name) and n.id in uses and id(n) not in counted:
            uses[n.id]["other"] += 1
    return {name: arrays[name] for name, u in uses.items()
            if not u["other"] and (u["load"] == 0) != (u["store"] == 0)}


@dataclass
class TmaPlan:
    """Descriptors of one kernel: filled while its body is lowered."""
    arrays: dict                                   # candidate array name -> rank
    consts: set                                    # the kernel's Constant parameter names
    descs: dict = field(default_factory=dict)      # (array, block shape, padding) -> descriptor name
    lines: list = field(default_factory=list)      # the prologue, one line per descriptor
    blocks: dict = field(default_factory=dict)     # array -> [block shape (source texts)]
    looped: set = field(default_factory=set)       # arrays with a descriptor access inside a loop

    def flag(self, arr) -> str:
        return f"{arr.ptr}_TMA"

    def descriptor(self, cx, arr, kind: str, shape: list, pad):
        """The descriptor variable for `arr` with this block shape, or None: pointer path (`cx`:
        the LoweringContext of the load or store)."""
        name = arr.ptr
        if name not in self.arrays or arr.rank != self.arrays[name] or len(shape) != arr.rank:
            return None
        if arr.flat() != [name, *(f"{name}_shape_{k}" for k in range(arr.rank)),
                          *(f"{name}_stride_{k}" for k in range(arr.rank))]:
            return None         # a view of the parameter, not the parameter
        if not all(set(_IDENT.findall(c)) <= self.consts for c in shape):
            return None         # the launcher cannot evaluate the block shape
        if shape[-1].strip() == "1":
            return None         # a last block extent of one element is under 16 bytes in every dtype
        padding = "zero" if kind == "store" else _PADDING.get(pad)
        if padding is None:
            return None
        if cx.loop_depth:
            self.looped.add(name)
        key = (name, tuple(shape), padding)
        if key not in self.descs:
            r = arr.rank
            desc = f"{name}_desc_{sum(1 for k in self.descs if k[0] == name)}"
            self.descs[key] = desc
            fn = cx.use_rank("desc", r)
            args = [*arr.flat()[:1 + r], *arr.strides[:-1], *shape, f'"{padding}"', self.flag(arr)]
            self.lines.append(f"{desc} = {fn}({', '.join(args)})")
            blocks = self.blocks.setdefault(name, [])
            if list(shape) not in blocks:
                blocks.append(list(shape))
        return self.descs[key]

    def launcher_blocks(self, name: str) -> str:
        """The block shapes of `name` as a host tuple expression (launcher scope)."""
        return "(" + "".join(f"({', '.join(b)},), " if len(b) == 1 else f"({', '.join(b)}), "
                             for b in self.blocks[name]).rstrip(" ") + ")"
