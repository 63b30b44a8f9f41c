#!/usr/bin/env bash
# GPU run (not part of the product): what the next session should measure first, in three calls of
# at most ~10 minutes each (step limits add up to under 590 s per part). None of it has run: the
# twenty-first session's interrupted try spent the device time, and the twenty-second had 212 s.
#  part 0: $C2T_TILE_VARIANTS=1 (exhaustive_search also times the source's configs with one tile
#          size halved; README) on TileGym's matmul entries, which trail torch.matmul (skinny
#          M=128 0.77-0.84, 4096^3 fp16 0.88: the issue's "within 10%" check) with cuTile's own
#          list, then the skinny entry without them in the same call. The bench checks each row
#          against cuTile; then bmm (sp=True 0.886 of cuTile) with them, fp16 only (its search
#          grows from 18 to 48 configs: the time limit may cut it off). First, probe_negation.py:
#          the twenty-second session's negative-zero changes, checked on the CPU only, against
#          cuTile's bits (the -0.0 constant's row is expected to differ: warning C2T212), and
#          probe_pdl.py: programmatic dependent launches, translated this session too.
# The twenty-first session (docs/gpu-runs/division-and-indices-2026-11-30.md) kept fp16 division
# off IEEE division's slow path and made `//`/`%` of indices proved >= 0 plain operators; the
# merged table (bench-2026-11-30-s21.md) has no row below 0.85, and its lowest rows are
# device-bound gaps the translator has not explained:
#  part 1: TileGym's split-KV MLA decoding at B = 1 (0.87 by do_bench, graph replay 0.91-0.92:
#          ~8% slower on the device at 14-16 us per call; not the index change, call 9 there):
#          launch-option sweeps of its two kernels (warps, stages, descriptors) with graph replay.
#  part 2: TileGym flash decode at B = 8 (0.91 of cuTile's rate, "below cuTile" in the
#          memory-bound check) and prefill attention with sinks (0.89-0.92), the same way.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT" 0; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session_<part>.txt (part 0: bench reports under OUT/n/variants and OUT/n/baseline).
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
part=${2:-1}
start "${1:-next-session-out}/n" "next_session_$part.txt"
sweep=(python tests/gpu/sweep_tilegym_options.py)
if [ "$part" = 0 ]; then
  step 45 "negative zero: scalar negation, NEG_ZERO padding, a -0.0 constant (cuTile vs translation bits)" env PYTHONPATH="$PWD/tests/gpu:$PYTHONPATH" python tests/gpu/probe_negation.py
  step 30 "programmatic dependent launch (cuTile vs translation)" env PYTHONPATH="$PWD/tests/gpu:$PYTHONPATH" python tests/gpu/probe_pdl.py
  step 340 "matmul entries with tile variants" "${bench[@]}" --only tg_matmul_skinny tg_matmul --timeout 165 --env C2T_TILE_VARIANTS=1 --out "$out/variants"
  step 110 "skinny matmul without them (same-call baseline)" "${bench[@]}" --only tg_matmul_skinny --timeout 105 --out "$out/baseline"
  step 55 "bmm with tile variants" "${bench[@]}" --only tg_bmm --dtypes float16 --timeout 50 --env C2T_TILE_VARIANTS=1 --out "$out/variants_bmm"
elif [ "$part" = 1 ]; then
  step 200 "mla split-KV B=1: warps and stages" "${sweep[@]}" mla_decoding_split_kv:0,2 --dtype bfloat16 --warps 0,4,8 --stages 0,2,3 --graph
  step 150 "mla split-KV B=1: descriptors" "${sweep[@]}" mla_decoding_split_kv:0,2 --dtype bfloat16 --tma small,auto,off --graph
  step 150 "mla split-KV B=1: launch path" "${sweep[@]}" mla_decoding_split_kv:0,2 --dtype bfloat16 --launch fast,slow --graph
else
  step 250 "flash decode B=8: warps and stages" "${sweep[@]}" flash_decode:4 --warps 0,4,8 --stages 0,2,3 --graph
  step 280 "attention sink: warps and stages" "${sweep[@]}" attention_sink:0,1 --warps 0,4,8 --stages 0,2,3 --graph
fi
echo "### done ($(date +%T))" | tee -a "$log"
