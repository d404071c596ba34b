"""The model cards' scores (pearl.experiments.cards): a trained folder's card gets its Table-1 row,
never from a SMOKE run."""
import json
import math

from pearl.benchmark.table import tidy
from pearl.benchmark.tasks import SUITES
from pearl.experiments.cards import update_cards


def _table1_rows(model, score):
    return tidy([{"model": model, "dataset": d, "score": score, "std": math.nan, "n": 1, "seconds": 1.0, "note": "",
                  "details": {}} for d in SUITES["table1"]])


def test_model_cards_get_their_table1_row(tmp_path):
    folder = tmp_path / "pearl-minilm-seed0"
    folder.mkdir()
    (folder / "pearl.json").write_text(json.dumps({"dim": 448, "char_scale": 0.25, "train_config": {"seed": 0}}))
    update_cards(_table1_rows("pearl-minilm-seed0", 61.25), [folder])
    card = (folder / "README.md").read_text()
    assert "## Table 1" in card and "| PPDB |" in card and "61.2" in card


def test_a_smoke_run_leaves_model_cards_alone(tmp_path):
    """Notebook 04 passes no folders at SMOKE size (``scale.smoke_or(pearl_dirs, [])``)."""
    from harness.scale import SMOKE

    folder = tmp_path / "pearl-minilm-seed0"
    folder.mkdir()
    update_cards(_table1_rows("pearl-minilm-seed0", 61.25), SMOKE.smoke_or([folder], []))
    assert not (folder / "README.md").exists()
