#!/usr/bin/env bash
# GPU run (not part of the product): what the twentieth session should measure first, in four calls
# of at most ~10 minutes each (step limits add up to under 590 s per part). None of it has run yet.
# The nineteenth session reduced Triton 3.6's narrow warpgroup-MMA miscompile to a synchronous MMA
# whose B operand is another product's result (docs/gpu-runs/sync-wgmma-2026-11-30.md section 1) and
# built C2T_NARROW=products: the narrow products whose B provably is not such a result keep the
# warpgroup MMA. It is not the default until this has run:
#  part 1: correctness first: the decode entries with C2T_NARROW=products (their gpu_cases include
#          the G=16/32 shapes that were wrong before the narrow rule: any FAIL there keeps the
#          default `all`); then the G=16 bench rows' time with the rule on / products / off;
#          the FMHA sample's 32-key configs (q @ k with B loaded) with products;
#  part 2: the single-dot probe in fp8 with B from another product (not run: the device time was
#          spent), and the narrow probe's part B (translated decode kernels at G=64) with products;
#  part 3: tg_attention_sink (0.84-0.92 of cuTile, whose kernel is warp-specialized over TMA
#          descriptors: tests/gpu/cutile_sass.py) with its key loop warp-specialized (`--loops
#          ws_kv`: tl.range(..., warp_specialize=True)) and descriptors at every grid size, made in
#          the kernel (`--tma auto`) or on the host as cuTile does (`--tma host`: TensorDescriptor
#          arguments); on the CPU only its 64x64 and 64x128 configs compile with ws_kv (the others
#          hit Triton 3.6's WSLowerToken assertion, and the search skips them); all compile with
#          host descriptors (TMA loads in the PTX), and the interpreter's results are right;
#  part 4: host-built descriptors on the GEMMs and MLA decoding (in-kernel ones ran no faster at
#          full grids: docs/gpu-runs/sweep-2026-11-29.md; the default takes them in small grids only).
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
  step 280 "decode entries with C2T_NARROW=products (correctness and timing)" env C2T_NARROW=products "${bench[@]}" --only tg_flash_decode tg_attention_sink_decode --timeout 130 --out "$out/decode_products"
  step 150 "G=16 decode rows: the narrow rule on / products / off" env PYTHONPATH="$gpu_path" python tests/gpu/sweep_tilegym_options.py flash_decode:4 attention_sink_decode:4 --narrow on,products,off --graph
  step 120 "fmha sample: narrow products" env PYTHONPATH="$gpu_path" python tests/gpu/probe_fmha_sample.py translated "narrow products"
elif [ "$part" = 3 ]; then
  step 560 "attention_sink: warp-specialized key loop, descriptors in the kernel or from the host" env PYTHONPATH="$gpu_path" python tests/gpu/sweep_tilegym_options.py attention_sink:0,1 --dtype bfloat16 --loops plain,ws_kv --tma small,auto,host
elif [ "$part" = 4 ]; then
  step 560 "GEMMs and MLA decoding: descriptors from the host" env PYTHONPATH="$gpu_path" python tests/gpu/sweep_tilegym_options.py matmul:0,1 bmm:0 mla_decoding:0,2 --tma small,host --graph
else
  step 200 "single dots: fp8, B from another product" env PYTHONPATH="$gpu_path" python tests/gpu/probe_sync_dots.py --dtypes float8_e4m3fn,bfloat16 --b dot
  step 200 "translated decode kernels at G=64 (narrow probe part B)" env PYTHONPATH="$gpu_path" C2T_NARROW=products python tests/gpu/probe_narrow_products.py --one-tile --dtypes bfloat16
fi
echo "### done ($(date +%T))" | tee -a "$log"
