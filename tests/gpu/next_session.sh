#!/usr/bin/env bash
# GPU run (not part of the product): TileGym entries whose rows in the merged table
# (docs/gpu-runs/bench-2026-11-30-s11.md) were timed before the eleventh and twelfth sessions'
# launcher changes (register cap, deeper GEMM pipelines, launch memo's TensorGuards check and shared
# descriptor scratch), in one call of at most ~9.5 minutes. From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_old.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 540 "rows timed before this code" "${bench[@]}" --only tg_layer_norm_legacy tg_rope tg_unsloth_geglu \
    tg_attention --timeout 280 --out "$out/bench_old"
echo "### done ($(date +%T))" | tee -a "$log"
