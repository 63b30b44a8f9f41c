#!/usr/bin/env bash
# GPU run (not part of the product): the nineteenth session's second round, after next_session.sh.
#  part 1: (a) the narrow-product probe's single-tile cases, each in a child process (its first run
#          died at G=16 with an illegal memory access when the product was a warpgroup MMA, and took
#          the rest of the probe with it); (b) tensor descriptors at full grids for attention:
#          cutile-python's AttentionFMHA at fixed configs and TileGym's attention_sink (tg_attention_sink
#          ran at 0.84-0.91 of cuTile in this session's first call, with masked-pointer loads: the
#          launcher's default C2T_TMA=small takes descriptors only in grids of fewer programs than
#          SMs) and attention (tg_attention), C2T_TMA small against auto.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/session19_probes.sh "$OUT" 1; tar czf "$OUT/s.tgz" -C "$OUT" s
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
part=${2:-1}
start "${1:-session19-out}/s" "session19_$part.txt"
gpu_path="$PWD:$PWD/tests/gpu:$PYTHONPATH"
if [ "$part" = 1 ]; then
  step 150 "narrow products: single-tile hand-written decode, one child per crash" env PYTHONPATH="$gpu_path" python tests/gpu/probe_narrow_products.py --one-tile --no-b
  step 90 "fmha sample: descriptors at full grids" env PYTHONPATH="$gpu_path" python tests/gpu/probe_fmha_sample.py translated "tma auto"
  step 200 "attention_sink: C2T_TMA small / auto" env PYTHONPATH="$gpu_path" python tests/gpu/sweep_tilegym_options.py attention_sink:0,1 --dtype bfloat16 --tma small,auto --graph
  step 130 "attention: C2T_TMA small / auto" env PYTHONPATH="$gpu_path" python tests/gpu/sweep_tilegym_options.py attention:0,3 --tma small,auto --graph
fi
echo "### done ($(date +%T))" | tee -a "$log"
