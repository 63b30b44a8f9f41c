#!/usr/bin/env bash
# GPU run (not part of the product): what the next session should measure first, in calls of at
# most ~10 minutes each (step limits add up to under 590 s per part). The twenty-third session ran
# the former parts 0-2 (docs/gpu-runs/pad-and-variants-2026-12-01.md): tile variants timed (opt-in
# kept), launch-option sweeps of the rows below cuTile (none closes them), C2T_NARROW=pad (opt-in:
# flash decode faster, MLA decoding slower).
#  part 1: the examples whose generated code the twenty-fourth session changed, and rope.
#  part 0: the decode entries with C2T_NARROW=pad next to the default in one call (the
#          twenty-third session did that for flash decode only; MLA and the sink decoder were
#          timed with pad and without it in different calls), after the negation probe.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT" 0; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session_<part>.txt (bench reports under OUT/n/pad and OUT/n/products).
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
part=${2:-0}
start "${1:-next-session-out}/n" "next_session_$part.txt"
decode=(tg_flash_decode tg_mla_decoding_split_kv tg_attention_sink_decode)
if [ "$part" = 0 ]; then
  step 45 "negative zero: scalar negation, NEG_ZERO padding, a -0.0 constant (cuTile vs translation bits)" env PYTHONPATH="$PWD/tests/gpu:$PYTHONPATH" python tests/gpu/probe_negation.py
  step 260 "decode entries with C2T_NARROW=pad" "${bench[@]}" --only "${decode[@]}" --timeout 85 --env C2T_NARROW=pad --out "$out/pad"
  step 260 "decode entries, default (same call)" "${bench[@]}" --only "${decode[@]}" --timeout 85 --out "$out/products"
fi
if [ "$part" = 1 ]; then
  # the twenty-fourth session's changes that reach GPU code: scale_rows' store became a TMA store
  # (its tile shape is now known), vector_add's `a + b` a promotion helper (PTX of the suite's
  # TileGym kernels compared equal on the CPU); rope, for its helper calls
  step 200 "examples whose generated code changed, and rope" "${bench[@]}" --only ex_scale_rows ex_vector_add tg_rope --timeout 60 --out "$out/changed"
fi
echo "### done ($(date +%T))" | tee -a "$log"
