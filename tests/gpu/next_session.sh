#!/usr/bin/env bash
# GPU run (not part of the product): what the next session should measure first, in calls of at
# most ~10 minutes each (step limits add up to under 590 s per part). The twenty-third session ran
# the former parts 0-2 (docs/decisions/017-tile-variants.md, 011-narrow-products-padding.md): tile
# variants timed (opt-in kept), launch-option sweeps of the rows below cuTile (none closes them),
# C2T_NARROW=pad (opt-in: flash decode faster, MLA decoding slower).
# The twenty-fifth session ran parts 1 and 2 (all right against cuTile). The twenty-sixth ran part 4 and part 2 again
# (docs/decisions/016-program-coarsening.md: all right against cuTile with program coarsening) and part 3
# (its sp=True rows with variants were cut off at 120 s: give that step more time); part 0 is still
# to run. The twenty-seventh ran part 5.
#  part 1: the examples whose generated code the twenty-fourth session changed, and rope.
#  part 2: every example and construct module verified against cuTile, untimed.
#  part 3: the entries whose searches get tile variants by default (the skinny matmul, timed in
#          the twenty-fifth session) in both dtypes, and bmm, with C2T_TILE_VARIANTS=0 beside.
#  part 4: program coarsening (the twenty-sixth session): geglu and rope benched with it, rope
#          without it beside, and the rule's untimed corners (docs/decisions/016-program-coarsening.md).
#  part 5: Nsight Compute counters of the memory-bound rows under 85% of the copy (the twenty-
#          seventh session ran it: docs/gpu-runs/ncu-short-rows-2026-12-01.md); needs the merged
#          table's bench.json at tests/gpu/s26_bench.json (docs/gpu-runs/reports.md's merge command
#          writes /tmp/MERGED/bench.json; carry it to the device, e.g. listed in .git/info/exclude
#          and named in the device call's carry).
#  part 0: the decode entries with C2T_NARROW=pad next to the default in one call (the
#          twenty-third session did that for flash decode only; MLA and the sink decoder were
#          timed with pad and without it in different calls), after the negation probe.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT" 0; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session_<part>.txt (bench reports under OUT/n/pad and OUT/n/products).
set -u
# the probes, experiments and tools parts 0, 4 and 5 run live in earlier-runs.tar.xz, in git history only:
# here, `mkdir -p .archive && git show 53e6166:docs/gpu-runs/earlier-runs.tar.xz > .archive/earlier-runs.tar.xz`
# (.archive/ is git-ignored), and carry .archive to the device; unpacked here
tar -xJf .archive/earlier-runs.tar.xz -C tests/gpu --wildcards "probe_*.py" "exp_*.py" "ncu_rows.py" "sweep_tilegym_options.py" "cutile_sass.py" 2>/dev/null || true
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
if [ "$part" = 3 ]; then
  step 130 "skinny matmul, default (tile variants)" "${bench[@]}" --only tg_matmul_skinny --dtypes float16 bfloat16 --timeout 120 --out "$out/variants"
  step 100 "skinny matmul, C2T_TILE_VARIANTS=0" "${bench[@]}" --only tg_matmul_skinny --dtypes float16 bfloat16 --timeout 90 --env C2T_TILE_VARIANTS=0 --out "$out/novariants"
  step 120 "bmm entries, default" "${bench[@]}" --only tg_bmm tg_bmm_tiled --timeout 55 --out "$out/bmm"
fi
if [ "$part" = 4 ]; then
  # program coarsening (translator/lower/coarsen.py): the suite's entries whose bench cases group
  # programs by default on the H200 (geglu: 256-element tiles, 4 in one; rope's B=1 S=16384 D=64
  # case: 512-element tiles, 2 in one), rope also without; 16 in one for 64-element tiles
  step 200 "geglu and rope, default (C2T_COARSEN=auto)" "${bench[@]}" --only tg_geglu tg_rope --timeout 90 --out "$out/coarsen"
  step 90 "rope, C2T_COARSEN=1" "${bench[@]}" --only tg_rope --timeout 80 --env C2T_COARSEN=1 --out "$out/nocoarsen"
  step 60 "64- and 128-element tiles, 8 and 16 in one" python tests/gpu/exp_coarsen.py --tiles 64,128 --k auto,8,16 --warps 0
  step 80 "rope case 1 (512-element tiles)" python tests/gpu/exp_coarsen.py rope:1 --k auto,1,2,4 --warps 0,1,2,4 --dtype bfloat16,float16
fi
if [ "$part" = 5 ]; then
  command -v ncu >/dev/null || export PATH="$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -1)"
  ncu_rows() {    # ncu_rows GROUP ENTRIES...: one Nsight Compute run (rows left after 150 s are skipped)
    local g=$1; shift
    C2T_NCU_SECONDS=150 ncu --clock-control none --profile-from-start off --csv --print-units base \
      --metrics "$(python tests/gpu/ncu_rows.py --metrics)" python tests/gpu/ncu_rows.py tests/gpu/s26_bench.json "$@" \
      > "$out/ncu_$g.csv" 2> "$out/ncu_$g.log"
    echo "ncu exit $?, $(grep -c '^C2T-RANGE' "$out/ncu_$g.log") ranges"; grep "^C2T-\(FAILED\|SKIPPED\)" "$out/ncu_$g.log"
    python tests/gpu/ncu_rows.py --table "$out/ncu_$g.csv" "$out/ncu_$g.log"
  }
  export -f ncu_rows; export out
  step 190 "ncu: examples and tg_softmax" bash -c 'ncu_rows 1 ex_vector_add ex_softmax ex_layernorm ex_scale_rows ex_transpose ex_reduce_argmax ex_concat tg_softmax'
  step 190 "ncu: norms, rope, dropout, decode, activations" bash -c 'ncu_rows 2 tg_rms_norm tg_layer_norm_legacy tg_rope tg_dropout tg_flash_decode tg_mla_decoding tg_silu_and_mul tg_gelu'
  step 190 "ncu: split-KV reduce, MLA split-KV, sink decode" bash -c 'ncu_rows 3 tg_splitk_reduce tg_mla_decoding_split_kv tg_attention_sink_decode'
fi
if [ "$part" = 2 ]; then
  # correctness of every example and construct module against cuTile after the twenty-fourth
  # session's dtype-family helpers (no timing; eight verifications at a time)
  mkdir -p "$out/verify"
  ls examples/[a-z]*.py | xargs -P 8 -I{} sh -c 'n=$(basename {} .py); timeout 150 python3 -m translator verify {} --no-bench --quiet --json '"$out"'/verify/ex_$n.json > '"$out"'/verify/ex_$n.txt 2>&1; echo "ex_$n rc=$? $(grep -E "^RESULT" '"$out"'/verify/ex_$n.txt)"' | tee -a "$log"
  step 200 "construct modules" bash tests/gpu/verify_constructs.sh "$out/constructs"
fi
echo "### done ($(date +%T))" | tee -a "$log"
