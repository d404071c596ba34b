#!/bin/bash
# the gpu profile, seed 0: training throughput, training, Table 1 for the trained model and for MiniLM
source benchmarks/device/setup.sh
timeout 170 python3 benchmarks/train_throughput.py --device cuda --batch-size 512 --steps 20 --workers 8 --threads 16 --compile 2>&1 | grep -v Warning | tail -25
cp /tmp/pout/results/train_throughput.json $OUT/train_throughput_gpu.json
echo "throughput done at $SECONDS s"
PEARL_OUTPUT=/tmp/pgpu timeout 300 python3 -m pearl.recipe --profile gpu --seed 0 2>&1 | tr '\r' '\n' > $OUT/gpu_train.log
grep -v "it/s\]$" $OUT/gpu_train.log | tail -5; tail -2 $OUT/gpu_train.log
cp /tmp/pgpu/models/runs/pearl-minilm-seed0/log.csv $OUT/gpu_train_loss.csv 2>/dev/null
cp /tmp/pgpu/models/pearl-minilm-seed0/pearl.json $OUT/gpu_model_pearl.json 2>/dev/null
echo "training done at $SECONDS s"
timeout $((560 - SECONDS)) python3 benchmarks/device/score.py gpu /tmp/pgpu/models/pearl-minilm-seed0 minilm 2>&1 | grep -v "it/s\]$\|Loading weights"
echo "all done at $SECONDS s"
