"""Device-machine stand-in for the PyPI package: points at the fp32 copy rebuilt from the carried fp16 one."""
import os


def get_model_path():
    return os.environ.get("MINILM_PATH", "/tmp/minilm")
