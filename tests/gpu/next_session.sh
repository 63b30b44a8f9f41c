#!/usr/bin/env bash
# GPU experiment (not part of the product): what docs/gpu-runs/bmm-and-reruns-2026-11-30.md
# section 8 leaves for the next device session, in one call of at most ~9 minutes (each step has
# its own time limit, so one that hangs cannot take the others' time). From the project root on
# the GPU machine:
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
step() {    # step SECONDS TITLE COMMAND...
    local limit=$1 title=$2
    shift 2
    echo "### $title ($(date +%T), limit ${limit}s): $*" | tee -a "$log"
    timeout "$limit" "$@" 2>&1 | grep -v -i "warn\|return is_tile" | tee -a "$log"
}
# 1. the transposed-load fold (section 7): flash_decode's four rows against their 0.669, 0.664,
#    0.961, 0.958 (graph 0.81, 1.08, 0.94, 0.95) before it; and the bmm entry never timed
step 200 "flash_decode with the fold; tg_bmm_tiled_2k" python -m translator.cli bench tests/gpu/suite.py \
    --tilegym "$TILEGYM_SRC/tilegym" --only tg_flash_decode tg_bmm_tiled_2k --timeout 95 --out "$out/bench"
# 2. where flash_decode's time goes now (decode kernel was 6.1 us against cuTile's 4.2 at B=1)
step 60 "flash_decode kernels" python tests/gpu/profile_split.py tg_flash_decode:0 tg_flash_decode:2
# 3. the persistent-bmm lead (section 3): the grid-stride loop fused with the K loop
step 240 "bmm: flatten" env C2T_CUTILE_COMPILER_TIMEOUT=15 python tests/gpu/sweep_tilegym_options.py bmm:0,2 \
    --loops plain,flatten --graph
echo "### done ($(date +%T))" | tee -a "$log"
