#!/bin/bash
USAGE="PEARL's gain against its budget on the GPU machine (scripts/budget_curve.py), MiniLM, bf16 autocast
on CUDA, every model scored on the sweep suite, in order of priority (a --time-limit keeps what finished):
  1. gpu-anchors: the cpu recipe's steps and batch (1x = 150 x 32) on the phrases that have mined hard
     negatives (the bundle mines them for every phrase: most of WikiText-2's, not the cpu run's ~9K
     most frequent), seeds 0-2, today's join (the composition rule);
  2. gpu-anchors-uncentred: the same with the old, uncentred join;
  3. gpu: every WikiText-2 phrase (hard negatives mined for all: the bundle's hn_all.json), the rule,
     at BUDGETS (default 10,100), seed 0.
Run from the repository root:
    bash scripts/device/budget_curve.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR] [BUDGETS]
Writes OUT/gpu*.jsonl (copy them to results/budget/ here, then run budget_curve.py --summarise).
PEARL_DEVICE=cpu SIZE=smoke rehearse it on a CPU (numbers meaningless)."
source "$(dirname "$0")/setup.sh" "$@"
BUDGETS=${ARGS[0]:-10,100}
curve() {  # curve ARGS...: one series of budget_curve.py on this machine
  limited env PEARL_OUTPUT="$PGPU" python3 scripts/budget_curve.py --device "${PEARL_DEVICE:-cuda}" \
    --size "${SIZE:-sweep}" "$@" 2>&1 | grep "^{\|Error\|error" | cut -c1-400
  cp "$PGPU"/results/budget/gpu*.jsonl "$OUT/" 2>/dev/null
  echo "series $* done at $SECONDS s"
}
curve --tag gpu-anchors --budgets 1 --seeds 0,1,2
curve --tag gpu-anchors --uncentred --budgets 1 --seeds 0,1,2
curve --tag gpu --all-phrases --budgets "$BUDGETS" --seeds 0
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>/dev/null
echo "all done at $SECONDS s"
