#!/bin/bash
USAGE="cpu-profile variants trained on the GPU in fp32 (bf16=False), each scored on the seven Table-1
datasets that need no PPDB probe (the probe is CPU-bound). Run from the repository root:
    bash scripts/device/sweep_cpu_profile.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR] [VARIANT ...]
VARIANT is 'name:key=json;key=json' (see sweep.py); without any, the variants in
results/gpu/sweep_cpu_profile.jsonl. Appends to OUT/sweep_cpu_profile.jsonl."
source "$(dirname "$0")/setup.sh" "$@"
VARIANTS=("${ARGS[@]}")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(
  "base:"
  "b128_lr1e-4:batch_size=128;steps=63;lr=1e-4"
  "b64_lr6e-5:batch_size=64;steps=125;lr=6e-5"
  "b256_lr2e-4:batch_size=256;steps=32;lr=2e-4"
  "paper_heads:head_lr=3e-5;char_weight=0.5"
  "b128_lr5e-5:batch_size=128;steps=63;lr=5e-5"
  "b32_lr6e-5:lr=6e-5"
)
limited python3 scripts/device/sweep.py --out "$OUT/sweep_cpu_profile.jsonl" \
  --datasets turney,bird,yago,umls,conll,bc5cdr,autofj "${VARIANTS[@]}" 2>&1 | grep "^{"
echo "sweep done at $SECONDS s"
