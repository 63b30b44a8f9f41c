#!/usr/bin/env bash
# GPU run (not part of the product): the tg_matmul entry in bf16 (4096^3, plain and persistent, next
# to torch.matmul: 0.878 and 0.989 of torch in the tenth session) with this session's code, in one
# call of at most ~5.5 minutes. From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
sweep=(python tests/gpu/sweep_tilegym_options.py)
step 320 "bench" "${bench[@]}" --only tg_matmul --dtypes bfloat16 --timeout 300 --out "$out/bench"
echo "### done ($(date +%T))" | tee -a "$log"
