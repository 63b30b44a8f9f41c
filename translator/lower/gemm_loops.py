"""GEMM loops, for the launcher's pipeline depth (num_stages).

While a kernel body is lowered, FunctionLowerer keeps one frame per enclosing loop: the dots it
does, the array reads and the ct.load tiles among them. An innermost loop with one dot per
iteration whose reads are all tile loads of whole array parameters is a GEMM loop; any other
loop with dots (attention: two dots per iteration) means the kernel keeps Triton's default depth.
`stage_bytes` turns a kernel's GEMM loops into the launcher expression for the bytes one iteration
loads, which `_c2t_num_stages` (translator/runtime/stages.py) turns into 3 to 8 stages when each
program of the launch has an SM to itself (docs/decisions/001-gemm-pipeline-depth.md).
"""
from __future__ import annotations

from .tma import _IDENT      # identifiers of a source expression
from .types import ArrayRef


class GemmLoops:
    """FunctionLowerer's loop frames. `gemm_loops`: innermost loops with one dot whose reads are
    all ct.load tiles, each as [(ArrayRef, shape source texts)]; `other_dot_loops`: a loop with
    dots that is not one; n_dots/n_reads count the function's dots and reads, the helpers it
    calls included (helpers.py passes a helper's counts to its caller)."""

    def init_gemm_loops(self):
        self.loop_frames: list = []
        self.gemm_loops: list = []
        self.other_dot_loops = False
        self.n_dots = self.n_reads = 0

    def begin_loop(self):
        self.loop_frames.append({"dots": 0, "reads": 0, "tiles": [], "nested": False})

    def count_dot(self, n: int = 1):
        self.n_dots += n
        if self.loop_frames:
            self.loop_frames[-1]["dots"] += n

    def count_reads(self, n: int = 1):
        self.n_reads += n
        if self.loop_frames:
            self.loop_frames[-1]["reads"] += n

    def note_tile_load(self, arr, shape: list):
        """A ct.load of a `shape` tile of `arr` (its read was counted by before_read)."""
        if self.loop_frames:
            self.loop_frames[-1]["tiles"].append((arr, list(shape)))

    @staticmethod
    def _loop_counts(frame):
        return None if frame is None else (len(frame["tiles"]), frame["reads"], frame["dots"])

    def _one_branch_per_iteration(self, frame, start, mid):
        """After an `if` lowered to a run-time (or Constant) branch inside a loop: when both branches
        load the same tiles and do the same dots (TileGym's matmul loads with or without a latency
        hint), an iteration runs one of them: count one. Otherwise both count (an upper bound)."""
        end = self._loop_counts(frame)
        body = (frame["tiles"][start[0]:mid[0]], mid[1] - start[1], mid[2] - start[2])
        other = (frame["tiles"][mid[0]:end[0]], end[1] - mid[1], end[2] - mid[2])

        def sig(part):
            return (sorted((tuple(a.flat()), tuple(sorted(shape))) for a, shape in part[0]), part[1], part[2])
        if (body[0] or body[1] or body[2]) and sig(body) == sig(other):
            del frame["tiles"][mid[0]:]
            frame["reads"], frame["dots"] = mid[1], mid[2]

    def end_loop(self):
        self._end_loop(self.loop_frames.pop())

    def _end_loop(self, frame):
        if self.loop_frames:
            self.loop_frames[-1]["nested"] = True
        if not frame["dots"]:
            return
        if frame["dots"] == 1 and not frame["nested"] and frame["tiles"] \
                and frame["reads"] == len(frame["tiles"]):
            self.gemm_loops.append(frame["tiles"])
        else:
            self.other_dot_loops = True


def stage_bytes(params: list, per_variant: list) -> str:
    """The launcher's expression for the bytes one iteration of the kernel's GEMM loops loads
    (tile elements times the array's element size, summed over the loop's loads; the largest
    loop), or "" when a variant has a loop with dots that is not a GEMM loop, or when a load is of
    something other than a whole array parameter or has a tile shape the launcher cannot evaluate."""
    if not per_variant or any(v is None for v in per_variant):
        return ""
    consts = {p.name for p in params if p.kind == "constexpr"}
    arrays = {p.name: p.rank for p in params if p.kind == "array"}
    loops = {}      # the same loads in another order (a dual-kernel variant's) count once
    for loop in (lp for v in per_variant for lp in v):
        terms = []
        for arr, shape in loop:
            if arr.from_list or arr.ptr not in arrays \
                    or arr.flat() != ArrayRef.for_param(arr.ptr, arr.rank).flat() \
                    or not all(set(_IDENT.findall(c)) <= consts for c in shape):
                return ""
            dims = [c if c.isidentifier() or c.isdigit() else f"({c})" for c in shape if c != "1"] or ["1"]
            terms.append((arr.ptr, dims))
        key = tuple(sorted((ptr, tuple(sorted(dims))) for ptr, dims in terms))
        loops.setdefault(key, " + ".join(f"{ptr}.element_size() * {' * '.join(dims)}" for ptr, dims in terms))
    loops = list(loops.values())
    if not loops:
        return ""
    return loops[0] if len(loops) == 1 else f"max({', '.join(loops)})"
