#!/usr/bin/env bash
# GPU run (not part of the product): what the twenty-first session should measure first, in two
# calls of at most ~10 minutes each (step limits add up to under 590 s per part). None of it has run.
# The twentieth session (docs/gpu-runs/narrow-products-2026-11-30.md) made the narrow-product rule
# go by chains of products (the default now) and found host-built tensor descriptors too costly on
# Triton 3.6 (29 us of host time per descriptor per call on average: section 5): not planned.
#  part 1: the extension of the rule to fp8 products in a chain at N = 64 (made after the session's
#          last call, from the hand-written pattern: narrow-products-2026-11-30.md section 2), run
#          as translated code against cuTile's original (probe_fp8_chain.py: fp8 and fp16, G = 16,
#          32, 64, one 64- or 128-key tile; the rule as translated, `all`, and off).
#  part 2: the bench entries whose kernels have products, on the current default: tg_attention and
#          tg_attention_sink (a refresh of the rows the narrow rule could touch: on the CPU their
#          MMA kinds are the same as before, `compile_tilegym_sm90.py --bench --dots`);
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT" 1; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session_<part>.txt and bench folders OUT/n/<name>.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
part=${2:-1}
start "${1:-next-session-out}/n" "next_session_$part.txt"
gpu_path="$PWD:$PWD/tests/gpu:$PYTHONPATH"
if [ "$part" = 1 ]; then
  step 300 "translated decode pattern, one tile: fp8 chains at N = 64" env PYTHONPATH="$gpu_path" python tests/gpu/probe_fp8_chain.py
else
  step 300 "tg_attention on the current default" "${bench[@]}" --only tg_attention --out "$out/attention"
  step 280 "tg_attention_sink on the current default" "${bench[@]}" --only tg_attention_sink --timeout 270 --out "$out/attention_sink"
fi
echo "### done ($(date +%T))" | tee -a "$log"
