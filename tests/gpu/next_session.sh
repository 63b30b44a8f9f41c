#!/usr/bin/env bash
# GPU run (not part of the product): what the seventeenth session should measure first, in one call
# of at most ~10 minutes (step limits add up to 590 s). None of it has run yet:
#  - FIRST, the slow row found in the sixteenth session's last call: TileGym's split-KV reduce in
#    fp32 with 128 splits at 0.56 of cuTile (a one-row fp32 ct.mma emitted as an "ieee" tl.dot).
#    tests/gpu/exp_splitk_small_dot.py times that product as a dot and as a multiply and a sum,
#    next to cuTile, and the suite entry times the translation, which since the end of that
#    session emits the multiply and sum (untimed; revert it if it is not faster:
#    docs/gpu-runs/mla-warps-and-refresh-2026-11-30.md section 7);
#  - tg_matmul in both dtypes (its fp16 rows in the merged table are the fifteenth session's, its
#    bf16 rows the eleventh's; the sixteenth session's call 6 cut it off at 200 s: cuTile compiles
#    every config of its search from nothing on a fresh machine);
#  (in a call after this one: the three TileGym entries whose specs were written at the end of the
#  sixteenth session and have not run on the GPU, `--only tg_geglu tg_mla_decoding_split_kv
#  tg_attention_sink_decode`, then tg_matmul_8k and tg_bmm_tiled_2k, the thirteenth session's rows);
#  - ex_concat once more after the batched-launch change (8399854), on a machine in its usual
#    state (the sixteenth session's call 7 ran on a slow one: docs/gpu-runs/mla-warps-and-refresh-2026-11-30.md
#    section 6).
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench folders OUT/n/splitk, OUT/n/matmul and OUT/n/concat.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 60 "split-KV reduce: dot or multiply-sum" python tests/gpu/exp_splitk_small_dot.py
step 70 "tg_splitk_reduce" "${bench[@]}" --only tg_splitk_reduce --timeout 65 --out "$out/splitk"
step 400 "tg_matmul, both dtypes" "${bench[@]}" --only tg_matmul --timeout 390 --out "$out/matmul"
step 60 "ex_concat" "${bench[@]}" --only ex_concat --timeout 55 --out "$out/concat"
echo "### done ($(date +%T))" | tee -a "$log"
