#!/bin/bash
USAGE="The gpu profile, seed 0, on the GPU machine: training throughput, training, Table 1 for the
trained model and for MiniLM. Run from the repository root:
    bash scripts/device/gpu_profile.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR]
Writes under OUT the files results/gpu/ holds: train_throughput_20steps_8workers.json,
gpu_profile_seed0_train.log, gpu_profile_seed0_loss.csv, gpu_profile_seed0_pearl.json,
table1_gpu_profile_seed0.json."
source "$(dirname "$0")/setup.sh" "$@"
NAME=$(python3 -c "from pearl.models import folder_name; print(folder_name('pearl', 'minilm', 0))")
limited python3 perf/train_throughput.py --device cuda --batch-size 512 --steps 20 --workers 8 --threads 16 --compile \
  --out "$OUT/train_throughput_20steps_8workers.json" 2>&1 | grep -v Warning | tail -25
echo "throughput done at $SECONDS s"
limited env PEARL_OUTPUT="$PGPU" python3 -m pearl.training.profiles --profile gpu --seed 0 --replace 2>&1 | tr '\r' '\n' > "$OUT/gpu_profile_seed0_train.log"
grep -v "it/s\]$" "$OUT/gpu_profile_seed0_train.log" | tail -5; tail -2 "$OUT/gpu_profile_seed0_train.log"
cp "$PGPU/models/runs/$NAME/log.csv" "$OUT/gpu_profile_seed0_loss.csv"
cp "$PGPU/models/$NAME/pearl.json" "$OUT/gpu_profile_seed0_pearl.json"
echo "training done at $SECONDS s"
limited python3 scripts/device/score.py --out "$OUT/table1_gpu_profile_seed0.json" "$PGPU/models/$NAME" minilm 2>&1 \
  | grep -v "it/s\]$\|Loading weights"
echo "all done at $SECONDS s"
