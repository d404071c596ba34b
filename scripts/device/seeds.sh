#!/bin/bash
USAGE="The gpu profile's seeds on the GPU machine, rehearsed first. Run from the repository root:
    bash scripts/device/seeds.sh [--time-limit S] [--out DIR] [--bundle DIR] [--scratch DIR] [--no-reference] [SEED ...]
1. rehearsal: the gpu profile at the rehearsal's size (160 phrases, batch 40, 2 epochs, seed 0) into a
   scratch output root, scored on the tasks' tiny subsets: the whole path on CUDA in about a minute;
2. each SEED (default 0 1 2) trained at the gpu profile (every phrase's hard negatives);
3. Table 1's nine datasets scored for seed 0, MiniLM, then the other seeds (one JSON file,
   rewritten after each model: a run cut short keeps the models it finished); --no-reference
   leaves MiniLM out (its gpu-profile row does not change with the recipe: scored once is enough).
Writes under OUT (four files: a device tool may bring back few): rehearsal.json, seeds_train.log,
seed_records.tar (gpu_profile_seed<N>_pearl.json and _loss.csv of each seed trained), and
table1_gpu_profile_seeds.json."
source "$(dirname "$0")/setup.sh" "$@"
REFERENCE=(minilm) SEEDS=()
for a in "${ARGS[@]}"; do [ "$a" = --no-reference ] && REFERENCE=() || SEEDS+=("$a"); done
[ ${#SEEDS[@]} -gt 0 ] || SEEDS=(0 1 2)
name() { python3 -c "from pearl.models import folder_name; print(folder_name('pearl', 'minilm', $1))"; }
PREH=$S/prehearse
rm -rf "$PREH" && mkdir -p "$PREH/data" && ln -sfn "$PGPU/data/derived" "$PREH/data/derived"
limited env PEARL_OUTPUT="$PREH" python3 -m pearl.training.profiles --profile gpu --seed 0 --profile-size small --replace 2>&1 | tr '\r' '\n' | grep -v "it/s\]$" | tail -3 || exit 1
limited env PEARL_OUTPUT="$PREH" python3 scripts/device/score.py --tiny --out "$OUT/rehearsal.json" \
  "$PREH/models/$(name 0)" 2>&1 | grep -v "it/s\]$\|Loading weights" || exit 1
echo "rehearsal done at $SECONDS s"
MODELS=() REC=$S/records
rm -rf "$REC" && mkdir -p "$REC"
for seed in "${SEEDS[@]}"; do
  limited env PEARL_OUTPUT="$PGPU" python3 -m pearl.training.profiles --profile gpu --seed "$seed" --replace 2>&1 \
    | tr '\r' '\n' | grep -v "it/s\]$" >> "$OUT/seeds_train.log"
  n=$(name "$seed")
  [ -f "$PGPU/models/$n/pearl.json" ] || { echo "seed $seed: no model (see seeds_train.log)"; continue; }
  cp "$PGPU/models/runs/$n/log.csv" "$REC/gpu_profile_seed${seed}_loss.csv" 2>/dev/null
  cp "$PGPU/models/$n/pearl.json" "$REC/gpu_profile_seed${seed}_pearl.json"
  tar cf "$OUT/seed_records.tar" -C "$REC" .
  MODELS+=("$PGPU/models/$n")
  echo "seed $seed trained at $SECONDS s"
done
[ ${#MODELS[@]} -gt 0 ] || exit 1
ORDER=("${MODELS[0]}" "${REFERENCE[@]}" "${MODELS[@]:1}")
limited env PEARL_OUTPUT="$PGPU" python3 scripts/device/score.py --out "$OUT/table1_gpu_profile_seeds.json" \
  "${ORDER[@]}" 2>&1 | grep -v "it/s\]$\|Loading weights"
echo "all done at $SECONDS s"
