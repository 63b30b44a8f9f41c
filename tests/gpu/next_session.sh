#!/usr/bin/env bash
# GPU run (not part of the product): what the eighteenth session should measure first, in one call
# of at most ~10 minutes (step limits add up to 590 s). None of it has run yet:
#  - the decode entries with their new bench case of 16 query heads per KV head (flash_decode B=8
#    Hq=32 Hkv=2; attention_sink_decode B=4 Hkv=2 G=16), whose (TILE_N, D) @ (D, 16) products the
#    translation computes transposed since the seventeenth session (a Triton 3.6 miscompile of
#    them as they are: docs/gpu-runs/splitk-and-sinks-2026-11-30.md section 3): correct on the H200,
#    not yet timed; and what the workaround costs there, next to Triton's wgmma form (wrong results,
#    timed for comparison only: `sweep_tilegym_options.py --narrow on,off`);
#  - tg_matmul_8k (its rows are the thirteenth session's);
#  (in a call after this one: tg_bmm_tiled_2k, 296 s in the thirteenth session).
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench folders OUT/n/decode and OUT/n/matmul8k.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 200 "decode entries, G=16 bench case" "${bench[@]}" --only tg_flash_decode tg_attention_sink_decode --timeout 95 --out "$out/decode"
step 60 "narrow products: transposed or wgmma" python tests/gpu/sweep_tilegym_options.py flash_decode:4 attention_sink_decode:4 --narrow on,off --graph
step 330 "tg_matmul_8k" "${bench[@]}" --only tg_matmul_8k --timeout 320 --out "$out/matmul8k"
echo "### done ($(date +%T))" | tee -a "$log"
