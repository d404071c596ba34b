#!/bin/bash
USAGE="Steady-state training throughput on the GPU: naive fp32 loop against ours (bf16, DataLoader
workers), 80 steps of 512 phrases. Run from the repository root:
    bash scripts/device/throughput.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR]
Writes OUT/train_throughput_80steps_4workers.json."
source "$(dirname "$0")/setup.sh" "$@"
limited python3 perf/train_throughput.py --device cuda --batch-size 512 --steps 80 --workers 4 --threads 16 \
  --out "$OUT/train_throughput_80steps_4workers.json" 2>&1 | grep -v Warning | tail -16
echo "done at $SECONDS s"
