#!/bin/bash
# cpu-profile variants trained on the GPU in fp32 (bf16=False), scored on seven Table-1 datasets (not the PPDB probes: CPU-bound)
source benchmarks/device/setup.sh
export DATASETS=turney,bird,yago,umls,conll,bc5cdr,autofj
timeout $((555 - SECONDS)) python3 benchmarks/device/sweep.py cpu \
  "base:" \
  "b128_lr1e-4:batch_size=128;steps=63;lr=1e-4" \
  "b64_lr6e-5:batch_size=64;steps=125;lr=6e-5" \
  "b256_lr2e-4:batch_size=256;steps=32;lr=2e-4" \
  "paper_heads:head_lr=3e-5;char_weight=0.5" \
  "b128_lr5e-5:batch_size=128;steps=63;lr=5e-5" \
  "b32_lr6e-5:lr=6e-5" \
  2>&1 | grep "^{"
echo "sweep done at $SECONDS s"
