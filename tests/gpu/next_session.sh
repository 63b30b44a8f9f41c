#!/usr/bin/env bash
# GPU run (not part of the product): what the nineteenth session should measure first, in three calls
# of at most ~10 minutes each (step limits add up to under 590 s per part). None of it has run yet.
# The launcher's register-cap retry (C2T_CAP_RETRY=1, opt-in since the eighteenth session: a 4-warp
# dot kernel at 255 registers without spills is compiled with 8 warps and run so when that does
# not spill) took cutile-python's AttentionFMHA at 128x64 tiles D=128 from 544 to 329 us (cuTile
# 283; docs/gpu-runs/fmha-k-descriptor-2026-11-30.md section 3). Before it can be the default, the
# suite's kernels at the cap (ptxas on the CPU: TileGym bmm search configs 64x256 and 128x128,
# attention_sink_decode's G=8 kernels) must be timed with it off and on, in one call each:
#  part 1: the FMHA sample's probe (with a "cap retry" variant; needs the sample in
#          .corpus/cutile-python, see the probe's docstring); the narrow-product probe, whose
#          single-tile hand-written decode kernel (synchronous warpgroup MMAs, as the translated
#          decode kernel with 128-key splits had) may reproduce the Triton miscompile the looped
#          one did not (if so, a narrower rule than "N = 16 or 32" may be possible);
#          tg_attention_sink_decode off / on;
#  part 2: tg_bmm, tg_bmm_2k, tg_bmm_tiled off / on;
#  part 3: tg_attention_sink (TileGym's prefill attention with sinks; spec written in the
#          eighteenth session, never run on the GPU: its gpu_cases check the translation, its
#          128x128 D=64 configs compile to 255 registers at 4 warps without spills), off / on.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT" 1; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session_<part>.txt and bench folders OUT/n/<entry>_cap<0|1>.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
part=${2:-1}
start "${1:-next-session-out}/n" "next_session_$part.txt"
if [ "$part" = 1 ]; then
  step 160 "fmha sample: cap retry next to 4 and 8 warps" env PYTHONPATH="$PWD:$PWD/tests/gpu:$PYTHONPATH" python tests/gpu/probe_fmha_sample.py
  step 150 "narrow products: looped and single-tile hand-written decode" env PYTHONPATH="$PWD:$PWD/tests/gpu:$PYTHONPATH" python tests/gpu/probe_narrow_products.py
  for cap in 0 1; do
    step 130 "attention_sink_decode, C2T_CAP_RETRY=$cap" env C2T_CAP_RETRY=$cap "${bench[@]}" --only tg_attention_sink_decode --timeout 120 --out "$out/sink_cap$cap"
  done
elif [ "$part" = 3 ]; then
  for cap in 0 1; do
    step 290 "attention_sink, C2T_CAP_RETRY=$cap" env C2T_CAP_RETRY=$cap "${bench[@]}" --only tg_attention_sink --timeout 280 --out "$out/sink_prefill_cap$cap"
  done
else
  for cap in 0 1; do
    step 290 "bmm entries, C2T_CAP_RETRY=$cap" env C2T_CAP_RETRY=$cap "${bench[@]}" --only tg_bmm tg_bmm_2k tg_bmm_tiled --timeout 140 --out "$out/bmm_cap$cap"
  done
fi
echo "### done ($(date +%T))" | tee -a "$log"
