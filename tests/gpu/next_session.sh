#!/usr/bin/env bash
# GPU run (not part of the product): what the sixteenth session should measure first, in one call
# of at most ~9 minutes. None of it has run yet:
#  - the persistent skinny matmul (0.841 by do_bench in the fifteenth session's call 4, graph 0.947;
#    0.970 in the fourteenth session's table): host-bound, its entry call costing the host about
#    as much as do_bench's 61 us L2 flush. Three runs of the entry, with the descriptor scratch's
#    address cached (0234230), to see how far it swings
#    (docs/gpu-runs/warp-specialize-and-reruns-2026-11-30.md sections 3-5);
#  - its launch cost per layer, both orders, on the same machine;
#  - the rows the merged table calls "below cuTile" (ex_reduce_argmax fp32 at 0.94 of cuTile's
#    rate, tg_mla_decoding B=1 at 0.93-0.94), re-timed with the direct launch.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench folders OUT/n/skinny_1 ... OUT/n/below.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
for i in 1 2 3; do
    step 90 "skinny matmul, fp16, run $i" "${bench[@]}" --only tg_matmul_skinny --dtypes float16 --timeout 85 \
        --out "$out/skinny_$i"
done
step 60 "launch cost, cuTile first" python tests/gpu/probe_launch_cost.py tg_matmul_skinny:1
step 60 "launch cost, Triton first" python tests/gpu/probe_launch_cost.py --triton-first tg_matmul_skinny:1
step 150 "rows below cuTile's rate" "${bench[@]}" --only ex_reduce_argmax tg_mla_decoding --timeout 140 --out "$out/below"
echo "### done ($(date +%T))" | tee -a "$log"
