"""What every sentence module shares: the results folder and the model-name shortener."""
from __future__ import annotations

import json
from pathlib import Path

from .. import outputs, paths


def results() -> Path:
    """The committed results folder (the report reads the last full run, never a SMOKE output root)."""
    return paths.ROOT / "results"


def read_json(name: str) -> dict:
    """``results/<name>`` parsed. A SMOKE record is refused, naming it (:func:`pearl.outputs.refuse_smoke`):
    the report quotes full-size results only."""
    path = results() / name
    outputs.refuse_smoke(path, smoke=False, fix="the report quotes full-size results only: rerun the notebook that "
                         "wrote it at full size (make reproduce), or restore the committed file (git checkout -- results/)")
    return json.loads(path.read_text())


def exists(name: str) -> bool:
    return (results() / name).is_file()


def short(model: str) -> str:
    """``glove`` / ``minilm`` / ``pearl...`` for a model key or its display label (results files use either).

    >>> short("GloVe 6B 50-d (stand-in)"), short("PEARL seed 0 (MiniLM backbone)"), short("minilm")
    ('glove', 'pearl-seed-0-(minilm-backbone)', 'minilm')
    """
    if model.startswith("GloVe"):
        return "glove"
    if model.startswith("all-MiniLM-L6-v2"):
        return "minilm"
    return model.lower().replace(" ", "-") if model.startswith("PEARL seed") else model


def stage_label(stage: str) -> str:
    """A timed stage as the report names it: a notebook by its number, then the venv build, HTML, site.

    >>> stage_label("04_benchmark.ipynb"), stage_label("venv build and system packages"), stage_label("html")
    ('04', 'venv build', 'HTML')
    """
    if stage.endswith(".ipynb"):
        return stage.split("_")[0]
    return "venv build" if stage.startswith("venv") else "HTML" if stage == "html" else stage
