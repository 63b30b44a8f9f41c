#!/usr/bin/env bash
# GPU run (not part of the product; fourteenth session, call 2): is the direct launch
# (C2T_CU_LAUNCH=1) right for every kernel the suite's host-bound entries launch, and what does it
# change in the rows it is for?
#  - tests/gpu/exp_direct_launch.py on one case of each entry: for every launcher call that hits
#    the memo, the outputs the direct launch writes against Triton's launcher's (byte for byte, each
#    output found by poisoning it), and the host us of both;
#  - tg_flash_decode's bench rows with the direct launch off and on, twice each, alternating.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/direct_launch_check.sh "$OUT"; tar czf "$OUT/d.tgz" -C "$OUT" d
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-direct-launch-out}/d" direct_launch_check.txt
step 250 "direct launch against Triton's launcher" python tests/gpu/exp_direct_launch.py \
    ex_vector_add:0 ex_softmax:0 ex_layernorm:0 ex_scale_rows:0 ex_transpose:0 ex_reduce_argmax:0 ex_concat:0 \
    ex_floordiv:0 ex_matmul:0 tg_softmax:0 tg_rms_norm:0 tg_layer_norm_legacy:0 tg_rope:0 tg_dropout:0 \
    tg_flash_decode:0 tg_mla_decoding:0 tg_mla_decoding:3 tg_unsloth_geglu:0 tg_unsloth_swiglu:0 tg_liger_tvd:0 \
    tg_bmm:0 tg_attention:0
for k in 1 2; do
    for cu in 0 1; do
        step 100 "tg_flash_decode, C2T_CU_LAUNCH=$cu (round $k)" env C2T_CU_LAUNCH=$cu "${bench[@]}" \
            --only tg_flash_decode --out "$out/fd_cu${cu}_$k"
    done
done
echo "### done ($(date +%T))" | tee -a "$log"
