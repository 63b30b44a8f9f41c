#!/usr/bin/env bash
# GPU run (not part of the product): what the sixteenth session should measure first, in one call
# of at most ~10 minutes (step limits add up to 590 s). None of it has run yet:
#  - FIRST, the "illegal memory access" of the fifteenth session's call 9: sweeping forced options on
#    TileGym MLA decoding B=1 D=512 (`sweep_tilegym_options.py mla_decoding:0,2 --warps 0,4,8
#    --stages 0,2,3,4`), the default variant matched cuTile, the three forced-stages variants failed
#    in the sweep tool (fixed since: _c2t_fit_shared_memory read stage bookkeeping those variants
#    never set), and the next variant (num_warps forced to 4) hit an illegal memory access, after
#    which every CUDA call failed. Each variant alone, in its own process, with
#    CUDA_LAUNCH_BLOCKING=1, tells which launch faults and whether the product's default path is
#    involved (docs/gpu-runs/warp-specialize-and-reruns-2026-11-30.md section 6);
#  - the persistent skinny matmul (0.841 by do_bench in the fifteenth session's call 4, graph 0.947;
#    0.970 in the fourteenth session's table): host-bound, its entry call costing the host about
#    as much as do_bench's 61 us L2 flush. Two runs of the entry, with the descriptor scratch's
#    address cached (0234230), to see how far it swings
#    (docs/gpu-runs/warp-specialize-and-reruns-2026-11-30.md sections 3-5);
#  - its launch cost per layer, both orders, on the same machine;
#  - the rows the merged table calls "below cuTile" (ex_reduce_argmax fp32 at 0.94 of cuTile's
#    rate, tg_mla_decoding B=1 at 0.93-0.94), re-timed with the direct launch.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench folders OUT/n/skinny_1, skinny_2 and below.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
for v in "--warps 4" "--stages 2" "--warps 8" "--stages 3"; do
    step 45 "MLA B=1 alone: $v" env CUDA_LAUNCH_BLOCKING=1 python tests/gpu/sweep_tilegym_options.py mla_decoding:0 $v
done
for i in 1 2; do
    step 90 "skinny matmul, fp16, run $i" "${bench[@]}" --only tg_matmul_skinny --dtypes float16 --timeout 85 \
        --out "$out/skinny_$i"
done
step 50 "launch cost, cuTile first" python tests/gpu/probe_launch_cost.py tg_matmul_skinny:1
step 50 "launch cost, Triton first" python tests/gpu/probe_launch_cost.py --triton-first tg_matmul_skinny:1
step 130 "rows below cuTile's rate" "${bench[@]}" --only ex_reduce_argmax tg_mla_decoding --timeout 125 --out "$out/below"
echo "### done ($(date +%T))" | tee -a "$log"
