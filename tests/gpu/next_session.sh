#!/usr/bin/env bash
# GPU experiment (not part of the product): how deep a skinny GEMM's pipeline should go, and the
# batch-1 flash_decode rows with five paired runs (SHORT_MS 0.25 ms), in one call of at most ~9.5
# minutes (each step has its own time limit, so one that hangs cannot take the others' time). From
# the project root on the GPU machine:
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
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
sweep=(python tests/gpu/sweep_tilegym_options.py)
# 1. TileGym matmul at M=128 N=8192 K=8192 (64 programs on 132 SMs): 3 -> 6 stages took it from
#    86 to 64 us (cuTile 56; docs/gpu-runs/stages-2026-11-29.md), and _C2T_DEEP_MAX stops at 6,
#    where its 128x128x32 tiles (16 KiB a stage) would fit 12 in the 192 KiB the rule allows; the
#    persistent kernel (128x128x64, 32 KiB a stage) is at 6 already (the control)
step 150 "skinny stages" "${sweep[@]}" matmul:4,5 --stages 0,8,10,12 --graph
step 90 "skinny stages bf16" "${sweep[@]}" matmul:4 --dtype bfloat16 --stages 0,8,12 --graph
# 2. batch-1 flash_decode, now timed five times per side (its rows take 0.11-0.15 ms)
step 150 "bench" "${bench[@]}" --only tg_flash_decode --timeout 140 --out "$out/bench"
echo "### done ($(date +%T))" | tee -a "$log"
