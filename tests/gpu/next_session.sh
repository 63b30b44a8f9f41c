#!/usr/bin/env bash
# GPU run (not part of the product): what the fifteenth session should measure first, in one call
# of at most ~9.5 minutes. None of it has run yet:
#  - the direct launch (on by default since 723dd71) against Triton's launcher on the suite's
#    kernels the fourteenth session did not compare (the GEMM entries, group_gemm, the tiled bmm,
#    unsloth swiglu; docs/gpu-runs/direct-launch-2026-11-30.md sections 2 and 2b);
#  - why the do_bench ratio of three host-bound rows fell under 0.85 in the fourteenth session's
#    calls 3-4 although their host and device times were at or better than cuTile's: their raw
#    do_bench runs, the flush's and the call's device time, and the host time per call;
#  - the launch cost per launcher call with the direct launch, for the two launchers it was slower
#    on (tg_mla_decoding B=128, tg_attention);
#  - tg_bmm (0.89: the translation's search picks 128x256 tiles at 63.8 us where cuTile's picks
#    256x128 at 55 us): the translated search now prints every config's time as cuTile's does
#    (since 53c6303), so its log in OUT/n/bench_bmm/tg_bmm.txt shows what 256x128 costs in Triton.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 140 "direct launch against Triton's launcher (the rest)" env C2T_CUTILE_COMPILER_TIMEOUT=15 \
    python tests/gpu/exp_direct_launch.py tg_unsloth_swiglu:0 tg_bmm_tiled:0 tg_matmul:0 tg_group_gemm:0
step 140 "do_bench modes of the rows under 0.85" python tests/gpu/probe_timing_modes.py \
    ex_concat:0 tg_rms_norm:4 tg_flash_decode:0
step 80 "launch cost with the direct launch" python tests/gpu/probe_launch_cost.py tg_mla_decoding:3 tg_attention:0
step 180 "tg_bmm with both searches listed" "${bench[@]}" --only tg_bmm --timeout 170 --out "$out/bench_bmm"
echo "### done ($(date +%T))" | tee -a "$log"
