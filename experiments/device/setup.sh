#!/bin/bash
# sourced by the other scripts on the GPU machine: unpack .dev/ (make_bundle.sh) into /tmp, set paths.
# PEARL_OUTPUT=/tmp/pout holds the cpu run's derived data; /tmp/pgpu the same with hard negatives for every phrase.
set -u
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false PYTHONHASHSEED=0
R=$PWD
export OUT=${OUT:-/tmp/pearl_gpu_out}  # the device tool sets OUT; elsewhere results land here
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc
python3 -c "import torch,transformers,sentence_transformers;print('torch',torch.__version__,'transformers',transformers.__version__,'st',sentence_transformers.__version__)"
export PYTHONPATH=/tmp/shim:$R/lib MINILM_PATH=/tmp/minilm PEARL_DATA=/tmp/data PEARL_OUTPUT=/tmp/pout
if [ ! -f /tmp/ready ]; then
  mkdir -p /tmp/minilm && cp -r .dev/minilm16/. /tmp/minilm/ && tar xJf .dev/bundle.tar.xz -C /tmp || exit 1
  python3 -c "
from safetensors.torch import load_file, save_file
sd = load_file('/tmp/minilm/model.safetensors'); save_file({k: v.float().contiguous() for k, v in sd.items()}, '/tmp/minilm/model.safetensors')"
  # the gpu profile's output root: same derived data, hard negatives mined for every phrase
  mkdir -p /tmp/pgpu/data/derived && for f in /tmp/pout/data/derived/*; do ln -s $f /tmp/pgpu/data/derived/; done
  rm /tmp/pgpu/data/derived/hard_negatives.json && cp /tmp/hn_all.json /tmp/pgpu/data/derived/hard_negatives.json
  touch /tmp/ready
fi
echo "# nlpaug imports gdown for its downloads only; none happen here" > /tmp/shim/gdown.py
echo "setup done at $SECONDS s"
