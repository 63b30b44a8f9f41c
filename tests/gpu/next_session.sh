#!/usr/bin/env bash
# GPU experiment (not part of the product): what docs/gpu-runs/tma-persistent-2026-11-30.md leaves
# for the next device session, in one call of at most ~9 minutes (each step has its own time
# limit, so one that hangs cannot take the others' time). From the project root on the GPU
# machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
# 1. the rows the ninth session did not rerun with its final code: layer_norm_legacy (its rows in
#    the merged table predate it; no GEMM loop, so its code should be unchanged) and softmax (a
#    host-bound row at 0.69)
step 240 "layer_norm_legacy, softmax" python -m translator.cli bench tests/gpu/suite.py \
    --tilegym "$TILEGYM_SRC/tilegym" --only tg_layer_norm_legacy tg_softmax --timeout 110 --out "$out/bench"
# 1b. TileGym liger's tvd, new in the ninth session (rank variants: one kernel per rank of its loss
#    array), against cuTile for the first time
step 150 "liger tvd" python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym" \
    --only tg_liger_tvd --timeout 140 --out "$out/bench_tvd"
# 2. where the host-bound rows' host time goes, by function (rms_norm 4096x4096, softmax 4096x1024
#    with TMA, flash_decode B=1: the Triton side spent 17-38 us more per call than cuTile's)
step 120 "host time by function" python tests/gpu/profile_split.py --cprofile tg_rms_norm:0 tg_softmax:1 \
    tg_flash_decode:0
# 3. the same launches layer by layer (cuTile's ct.launch, the cached launch path, Triton's C launcher)
step 120 "launch cost" python tests/gpu/probe_launch_cost.py tg_rms_norm:0 tg_flash_decode:0
echo "### done ($(date +%T))" | tee -a "$log"
