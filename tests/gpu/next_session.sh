#!/usr/bin/env bash
# GPU experiment (not part of the product): what docs/gpu-runs/host-bound-2026-11-30.md leaves for
# the next device session, in one call of at most ~9.5 minutes (each step has its own time limit,
# so one that hangs cannot take the others' time). From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench*.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
# 1. the launch cost with the one-int scalar key (727bf9e), same cases as the tenth session's calls
step 70 "launch cost" python tests/gpu/probe_launch_cost.py tg_rms_norm:0 tg_flash_decode:0
# 2. warps for looped 8192-element rows: tvd ran 1.02-1.05 with 16 warps against 0.94-1.01 with the
#    translator's 8; rms_norm 4096x8192 has the same tile width (a rule must not cost either). By
#    ptxas, tvd's batchmean kernel takes 156 registers at 8 warps: one program (8 warps) per SM,
#    where cuTile's occupancy=3 hint asks for 3; maxnreg=80 fits 3 such programs (with spills?)
step 180 "warps" python tests/gpu/sweep_tilegym_options.py liger_tvd:0,1 rms_norm:1 --warps 0,16 --maxnreg 0,80 --graph
# 3. the host-bound entries with this code, and ex_concat (cut off in the tenth session)
step 290 "host-bound rows" "${bench[@]}" --only tg_flash_decode tg_dropout tg_rms_norm ex_concat --timeout 150 \
    --out "$out/bench"
echo "### done ($(date +%T))" | tee -a "$log"
