#!/bin/bash
# steady-state training throughput on the GPU: naive fp32 loop vs ours (bf16, workers), 80 steps of 512
source benchmarks/device/setup.sh
timeout 150 python3 benchmarks/train_throughput.py --device cuda --batch-size 512 --steps 80 --workers 4 --threads 16 2>&1 | grep -v Warning | tail -16
cp /tmp/pout/results/train_throughput.json $OUT/train_throughput_gpu80.json
echo "done at $SECONDS s"
