#!/usr/bin/env bash
# GPU run (not part of the product): the launch memo's host cost per launcher call (torch's layout
# check against the Python one, same process), then the rows of the merged table
# (docs/gpu-runs/bench-2026-11-30-s11.md) that were last timed before the eleventh session's
# launcher changes: the examples, in one call of at most ~9.5 minutes. From the project root on
# the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_ex.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
sweep=(python tests/gpu/sweep_tilegym_options.py)
step 110 "launch cost" python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0 tg_mla_decoding:3
step 300 "examples" "${bench[@]}" --only ex_vector_add ex_softmax ex_layernorm ex_scale_rows ex_transpose \
    ex_floordiv ex_reduce_argmax ex_matmul --timeout 60 --out "$out/bench_ex"
echo "### done ($(date +%T))" | tee -a "$log"
