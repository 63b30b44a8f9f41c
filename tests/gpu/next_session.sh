#!/usr/bin/env bash
# GPU run (not part of the product): the searched entries whose picks the twelfth session's search
# fix (8f51223: exhaustive_search times a spilling config as its launch runs it) can change, and
# which it did not time in bench form: tg_attention (both dtypes; its sweep after the fix gave
# 1.19-1.29 in bf16) and the persistent bmm shapes, after the memo's hit path in C against Python on
# the H200's host (tests/gpu/exp_c_memo_key.py), in one call of at most ~9.5 minutes. tg_matmul,
# tg_matmul_skinny and tg_group_gemm need a call each (their timeouts: tests/gpu/suite.py). From
# the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_searched.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 40 "the memo's hit path in C (experiment)" python tests/gpu/exp_c_memo_key.py
step 500 "searched entries after the search fix" "${bench[@]}" --only tg_attention tg_bmm tg_bmm_2k \
    --timeout 290 --out "$out/bench_searched"
echo "### done ($(date +%T))" | tee -a "$log"
