"""perf/gpu_projection.py: the arrays feed's rate enters the projection only once a GPU measured it."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("gpu_projection", ROOT / "perf" / "gpu_projection.py")
gp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gp)


def _results(tmp_path, device: str):
    (tmp_path / "gpu").mkdir()
    (tmp_path / "perf").mkdir()
    (tmp_path / "gpu" / "gpu_step_cuda.json").write_text(json.dumps(
        {"device": device, "gpu": "H100", "backbones": {"minilm": {"phrases_per_s": 60_000.0, "gflop_per_phrase": 1.1}}}))
    (tmp_path / "perf" / "batch_builder.json").write_text(json.dumps({"phrases_per_s": {"draw_once": 2_500}}))


def test_a_gpu_measurement_gives_the_step_after_the_drawing_on_every_core(tmp_path, monkeypatch):
    """60,000 phrases/s on the GPU after drawing at 2,500 a core on 16 cores (40,000/s):
    1 / (1/60,000 + 1/40,000) = 24,000 phrases/s end to end."""
    monkeypatch.setattr(gp, "RESULTS", tmp_path)
    assert gp.arrays_feed(16) is None  # nothing measured yet
    _results(tmp_path, "cuda")
    fed = gp.arrays_feed(16)
    assert fed["draw_phrases_per_s"] == 40_000 and fed["phrases_per_s"] == pytest.approx(24_000)


def test_a_cpu_measurement_never_stands_for_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setattr(gp, "RESULTS", tmp_path)
    _results(tmp_path, "cpu")
    assert gp.arrays_feed(16) is None
