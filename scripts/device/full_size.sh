#!/bin/bash
USAGE="The gpu profile at its full size on one lent GPU (issue #79). Run from the repository root:
    bash scripts/device/full_size.sh [--stage all|reference|pearl|score] [--corpus CDIR] [--epochs 2|4] [--tiny]
                                     [--backbone minilm|me5-small] [--seed N ...] [--no-reference] [--time-limit S]
                                     [--out DIR]
                                     [--bundle DIR] [--scratch DIR]
Stages (default all, in one call):
- reference: perf/gpu_step.py (the training step fed from arrays, MiniLM and me5-small: random weights of
  its shapes when its weights did not travel; phrases/s and the share of this GPU's own measured bf16
  matmul rate), then Table 1 for MiniLM (--no-reference: not scored, to save device time; the gain then
  reads the MiniLM row of an earlier run of the same fp16 copy, which results/gpu/ names);
- pearl: hard negatives for every phrase when none are on this machine (mine_all.py: every core, the
  encoding on the GPU; a later call to the same warm machine reuses them), the gpu profile for MiniLM
  (--seed N, repeatable: default seed 0), --epochs passes (default 2; 4 matches the paper's views) over
  every phrase, its batches drawn once on every core (train_full.py), then Table 1 for each model;
- score: Table 1 for the models a pearl stage trained on this machine (when its call ran out of time).
The whole Wikipedia corpus is too large to travel with the backbone: make_bundle.sh --corpus-apart CDIR
puts it in CDIR, and two calls run on one warm machine, --stage reference carrying the bundle, then at
once --stage pearl --corpus CDIR carrying CDIR (scripts/device/README.md).
--backbone me5-small: that backbone in every stage, its weights the pruned copy a corpus carried apart holds
(make_bundle.sh --corpus-apart CDIR --me5; scripts/device/prune_me5.py); its files are named with _me5-small.
--tiny: the profile's rehearsal sizes and the tasks' tiny subsets (a check of the path, SMOKE-size numbers).
Writes under OUT: reference: gpu_step_cuda.json, table1_full_size_minilm.json; pearl: full_size_mining.json
(when it mined) and, for each seed N, full_size_seedN_train.log, full_size_seedN_records.tar (the model's
pearl.json and loss log) and table1_full_size_seedN.json; score: table1_full_size_seedN.json."
source "$(dirname "$0")/setup.sh" "$@"
EPOCHS=2 TINY=() STAGE=all REFERENCE=1 BACKBONE=minilm SEEDS=()
set -- "${ARGS[@]}"
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) EPOCHS=$2; shift 2 ;;
    --tiny) TINY=(--tiny); shift ;;
    --stage) STAGE=$2; shift 2 ;;
    --no-reference) REFERENCE=0; shift ;;
    --backbone) BACKBONE=$2; shift 2 ;;
    --seed) [[ "$2" =~ ^[0-9]+$ ]] || { echo "--seed takes a whole number, not '$2'" >&2; exit 2; }
            SEEDS+=("$2"); shift 2 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$STAGE" in all|reference|pearl|score) ;; *) echo "unknown stage $STAGE (all, reference, pearl or score)" >&2; exit 2 ;; esac
case "$BACKBONE" in minilm) TAG= ;; me5-small) TAG=_me5-small ;; *) echo "unknown backbone $BACKBONE (minilm or me5-small)" >&2; exit 2 ;; esac
[ ${#SEEDS[@]} -gt 0 ] || SEEDS=(0)
name() { python3 -c "from pearl.models import folder_name; print(folder_name('pearl', '$BACKBONE', $1))"; }
SCORE=() && [ ${#TINY[@]} -gt 0 ] && SCORE=(--tiny)
score() {  # score OUTFILE MODEL: Table 1 rows of one model
  limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/score.py "${SCORE[@]}" --out "$OUT/$1" "$2" 2>&1 \
    | grep -v "it/s\]$\|Loading weights"
}

if [ "$STAGE" = all ] || [ "$STAGE" = reference ]; then
  STEP=() && [ ${#TINY[@]} -gt 0 ] && STEP=(--steps 2 --batch-size 64)
  limited python3 perf/gpu_step.py "${STEP[@]}" --out "$OUT/gpu_step_cuda.json" 2>&1 | grep -v "Loading weights\|Warning" | tail -8
  echo "step throughput done at $SECONDS s"
  [ "$REFERENCE" = 0 ] || score "table1_full_size_$BACKBONE.json" "$BACKBONE"
  echo "reference done at $SECONDS s"
fi

if [ "$STAGE" = all ] || [ "$STAGE" = pearl ]; then
  if [ "$HN_TO_MINE" = 1 ]; then
    # the corpus travelled without hard negatives: mined here, written where the gpu profile reads them
    limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/mine_all.py "$PGPU/data/derived/hard_negatives.json" \
      > "$OUT/full_size_mining.json" || { echo "mining failed or ran out of time" >&2; exit 1; }
    echo "hard negatives mined at $SECONDS s"
  fi
  for SEED in "${SEEDS[@]}"; do
    NAME=$(name "$SEED") && RUN=full_size${TAG}_seed$SEED
    # a call that ran out of time mid-training leaves its drawn batches and last checkpoint in runs/NAME:
    # the next call with the same options resumes there (train.py refuses a checkpoint of other options or
    # inputs, so a run of other options starts afresh); a finished model is trained again
    STAMP=$PGPU/models/runs/$NAME.options WANT="epochs=$EPOCHS ${TINY[*]}"
    [ "$(cat "$STAMP" 2>/dev/null)" = "$WANT" ] || rm -rf "$PGPU/models/runs/$NAME"
    mkdir -p "$PGPU/models/runs" && echo "$WANT" > "$STAMP" && rm -rf "$PGPU/models/$NAME"
    limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/train_full.py --seed "$SEED" --epochs "$EPOCHS" \
      --backbone "$BACKBONE" "${TINY[@]}" > "$OUT/${RUN}_train.log" 2>&1
    tail -3 "$OUT/${RUN}_train.log"
    [ -f "$PGPU/models/$NAME/pearl.json" ] || { echo "seed $SEED: no model (see ${RUN}_train.log)"; exit 1; }
    REC=$S/full_records && rm -rf "$REC" && mkdir -p "$REC"
    cp "$PGPU/models/$NAME/pearl.json" "$REC/${RUN}_pearl.json"
    cp "$PGPU/models/runs/$NAME/log.csv" "$REC/${RUN}_loss.csv" 2>/dev/null
    tar cf "$OUT/${RUN}_records.tar" -C "$REC" .
    echo "seed $SEED trained at $SECONDS s"
    score "table1_${RUN}.json" "$PGPU/models/$NAME"  # each seed scored before the next trains
  done
fi

if [ "$STAGE" = score ]; then
  for SEED in "${SEEDS[@]}"; do
    NAME=$(name "$SEED")
    [ -f "$PGPU/models/$NAME/pearl.json" ] || { echo "no model $NAME on this machine: run --stage pearl first" >&2; exit 1; }
    score "table1_full_size${TAG}_seed$SEED.json" "$PGPU/models/$NAME"
  done
fi
echo "all done at $SECONDS s"
