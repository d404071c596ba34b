#!/bin/bash
USAGE="The gpu profile at its full size on one lent GPU, in one run (issue #79). Run from the repository root:
    bash scripts/device/full_size.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR] [--epochs 2|4] [--tiny]
1. perf/gpu_step.py: the training step fed from arrays, MiniLM and me5-small (random weights of its shapes
   when its weights did not travel), phrases/s and the share of this GPU's own measured bf16 matmul rate;
2. the gpu profile for MiniLM, seed 0, --epochs passes (default 2; 4 matches the paper's views) over every
   phrase of the bundle's corpus, the batches drawn once on every core (scripts/device/train_full.py);
3. Table 1 for that model and for MiniLM.
--tiny: the profile's rehearsal sizes and the tasks' tiny subsets (a check of the path, SMOKE-size numbers).
Writes under OUT (four files): gpu_step_cuda.json, full_size_train.log, full_size_records.tar (the model's
pearl.json and loss log) and table1_full_size_seed0.json."
source "$(dirname "$0")/setup.sh" "$@"
EPOCHS=2 TINY=()
set -- "${ARGS[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) EPOCHS=$2; shift 2 ;;
    --tiny) TINY=(--tiny); shift ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
STEP=() && [ ${#TINY[@]} -gt 0 ] && STEP=(--steps 2 --batch-size 64)
limited python3 perf/gpu_step.py "${STEP[@]}" --out "$OUT/gpu_step_cuda.json" 2>&1 | grep -v "Loading weights\|Warning" | tail -8
echo "step throughput done at $SECONDS s"
NAME=$(python3 -c "from pearl.models import folder_name; print(folder_name('pearl', 'minilm', 0))")
rm -rf "$PGPU/models/$NAME" "$PGPU/models/runs/$NAME"
limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/train_full.py --seed 0 --epochs "$EPOCHS" "${TINY[@]}" \
  > "$OUT/full_size_train.log" 2>&1
tail -3 "$OUT/full_size_train.log"
[ -f "$PGPU/models/$NAME/pearl.json" ] || { echo "no model (see full_size_train.log)"; exit 1; }
REC=$S/full_records && rm -rf "$REC" && mkdir -p "$REC"
cp "$PGPU/models/$NAME/pearl.json" "$REC/full_size_seed0_pearl.json"
cp "$PGPU/models/runs/$NAME/log.csv" "$REC/full_size_seed0_loss.csv" 2>/dev/null
tar cf "$OUT/full_size_records.tar" -C "$REC" .
echo "training done at $SECONDS s"
SCORE=() && [ ${#TINY[@]} -gt 0 ] && SCORE=(--tiny)
limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/score.py "${SCORE[@]}" --out "$OUT/table1_full_size_seed0.json" \
  "$PGPU/models/$NAME" minilm 2>&1 | grep -v "it/s\]$\|Loading weights"
echo "all done at $SECONDS s"
