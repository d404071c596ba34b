#!/bin/bash
USAGE="PEARL's gain against its budget on the GPU machine (experiments/budget_curve.py): MiniLM trained at
each budget on every WikiText-2 phrase (hard negatives mined for all of them: the bundle's hn_all.json),
bf16 autocast on CUDA, scored on the sweep suite. Run from the repository root:
    bash experiments/device/budget_curve.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR] [BUDGETS [SEEDS]]
BUDGETS (default 1,10,30,100) are multiples of the cpu profile's 4,800 phrase views; SEEDS default 0.
Writes OUT/budget_gpu.jsonl (copy it to results/budget/gpu.jsonl here, then run budget_curve.py --summarise)."
source "$(dirname "$0")/setup.sh" "$@"
BUDGETS=${ARGS[0]:-1,10,30,100}
SEEDS=${ARGS[1]:-0}
# PEARL_DEVICE=cpu SIZE=smoke rehearse it on a CPU (seconds a model, numbers meaningless)
limited env PEARL_OUTPUT="$PGPU" python3 experiments/budget_curve.py --tag gpu --all-phrases --device "${PEARL_DEVICE:-cuda}" \
  --budgets "$BUDGETS" --seeds "$SEEDS" --size "${SIZE:-sweep}" 2>&1 | grep -v "it/s\]$\|Loading weights\|Warning"
cp "$PGPU/results/budget/gpu.jsonl" "$OUT/budget_gpu.jsonl" 2>/dev/null || echo "no budget lines written"
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>/dev/null
echo "all done at $SECONDS s"
