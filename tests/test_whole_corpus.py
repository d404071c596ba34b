"""scripts/whole_corpus.py: a partial build never writes the committed record; a tiny one runs end to end."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "whole_corpus.py"


def test_a_partial_build_needs_a_scratch_output(monkeypatch):
    env = {k: v for k, v in os.environ.items() if k != "PEARL_OUTPUT"}
    out = subprocess.run([sys.executable, str(SCRIPT), "--max-articles", "2"], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "set PEARL_OUTPUT to a scratch folder" in out.stderr


@pytest.mark.slow
def test_two_articles_end_to_end(tmp_path):
    env = {**os.environ, "PEARL_OUTPUT": str(tmp_path)}
    subprocess.run([sys.executable, str(SCRIPT), "--max-articles", "2", "--n-process", "1"], env=env, check=True,
                   capture_output=True)
    m = json.loads((tmp_path / "results" / "wikipedia_whole_corpus.json").read_text())["metrics"]
    assert m["articles"] == 2 and m["sample"]["max_articles"] == 2 and m["description"].endswith("first 2")
    assert 0 < m["kept_phrases"] <= m["distinct_phrases"] and m["build_runs"][0]["n_process"] == 1
    # the training corpus adds WordNet's multi-word lemmas, those the corpus holds counted once
    lemmas = json.loads((SCRIPT.parents[1] / "results" / "01_data_building.json").read_text())["metrics"]["wordnet_phrases"]
    assert max(m["kept_phrases"], lemmas) <= m["training_corpus_phrases"] <= m["kept_phrases"] + lemmas
