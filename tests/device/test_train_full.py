"""scripts/device/train_full.py, the lent GPU's full-size training, at the gpu profile's rehearsal
sizes on this CPU: it trains through the one train-and-export path, exports a folder that loads,
prints its record, and keeps a model already there unless asked."""
import json
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def train_full(monkeypatch, tmp_path):
    from pearl.corpus import augment, hard_negatives, store
    from pearl.corpus.phrases import LABELS

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    words = ["river", "castle", "green", "mountain", "village", "old", "north", "bridge", "song", "war"]
    phrases = [f"the {a} {b}" for a in words for b in words if a != b][:170]
    store.write_corpus([(p, LABELS[i % 3], 2, "wikitext2") for i, p in enumerate(phrases)])
    hard_negatives.write_hard_negatives({p: [phrases[(i + 1) % len(phrases)]] for i, p in enumerate(phrases)})
    augment.save_lexicons(augment.AugmentLexicons())
    script = runpy.run_path(str(ROOT / "scripts" / "device" / "train_full.py"), run_name="train_full")
    return script["main"], tmp_path


def test_trains_exports_and_keeps_a_model_unless_asked(train_full, capsys):
    from pearl.encode import encode
    from pearl.models import load_model

    main, root = train_full
    record = main(["--tiny", "--workers", "1"])
    assert record["size"] == "rehearsal" and record["steps"] > 0 and record["views"] == record["steps"] * record["batch_size"]
    assert record["resumed_at_step"] == 0  # a call that resumes counts the whole run's steps and views
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == record
    folder = root / "models" / "pearl-minilm-seed0"
    info = json.loads((folder / "pearl.json").read_text())
    assert info["full_size_run"] == {"size": "rehearsal", "draw_workers": 1} and info["train_config"]["feed"] == "arrays"
    assert not (root / "models" / "runs" / "pearl-minilm-seed0").exists() or \
        not any((root / "models" / "runs" / "pearl-minilm-seed0").glob("*.pt"))  # checkpoints discarded once exported
    assert encode(load_model(str(folder), device="cpu", cache=False), ["the old bridge"]).shape[0] == 1
    with pytest.raises(SystemExit, match="--replace"):
        main(["--tiny", "--workers", "1"])
