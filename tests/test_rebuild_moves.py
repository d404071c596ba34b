"""scripts/rebuild_moves.py: the move of each rebuilt table cell, judged by the noise that could explain it
(oracle cases computed by hand)."""
import doctest
import importlib.util
import math
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("rebuild_moves", ROOT / "scripts" / "rebuild_moves.py")
moves = importlib.util.module_from_spec(spec)
spec.loader.exec_module(moves)


def test_the_doctests_hold():
    assert doctest.testmod(moves).failed == 0


def test_a_mean_over_seeds_moves_beyond_the_noise_only_outside_welchs_interval():
    old = pd.DataFrame({"recipe": [None, "-x"], "column": ["average"] * 2, "mean": [60.0, 55.0],
                        "std": [0.1, 0.1], "n": [3, 3]})
    new = old.assign(mean=[60.05, 57.0])
    rows = {r["row"]: r for r in moves.rows_seeds(old, new)}
    assert rows["full"]["moved"] == pytest.approx(0.05) and rows["full"]["beyond_noise"] is False
    # se = sqrt(0.01/3 + 0.01/3) = 0.0816, 4 dof: 2.0 +- 2.776 * 0.0816 leaves out 0
    assert rows["-x"]["moved"] == pytest.approx(2.0) and rows["-x"]["beyond_noise"] is True
    assert rows["-x"]["ci_low"] == pytest.approx(2.0 - 2.776445 * math.sqrt(0.02 / 3), abs=1e-4)


def test_one_seed_a_side_gets_a_move_and_no_verdict():
    r = moves.seeds_move({"mean": 1.0, "std": math.nan, "n": 1}, {"mean": 2.0, "std": math.nan, "n": 1})
    assert r["moved"] == 1.0 and r["beyond_noise"] is None and math.isnan(r["ci_low"])


def test_table1_marks_untrained_models_and_clustering_sets():
    old = pd.DataFrame({"model": ["minilm", "minilm", "pearl-minilm-seed0"], "dataset": ["bc5cdr", "bird", "bc5cdr"],
                        "score": [54.76, 67.3, 50.0]})
    new = old.assign(score=[55.63, 67.3, 56.0])
    rows = {(r["row"], r["column"]): r for r in moves.rows_once(old, new)}
    assert rows[("minilm", "bc5cdr")]["kind"] == "untrained" and rows[("minilm", "bc5cdr")]["clustering"]
    assert rows[("minilm", "bc5cdr")]["moved"] == pytest.approx(0.87)
    assert rows[("minilm", "bird")]["moved"] == 0 and not rows[("minilm", "bird")]["clustering"]
    assert rows[("pearl-minilm-seed0", "bc5cdr")]["kind"] == "trained"


def test_a_record_counts_as_rebuilt_only_when_written_after_the_commit_before(tmp_path, monkeypatch):
    import json
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    shas = []
    for i in range(2):
        (tmp_path / f"f{i}").write_text(str(i))
        git("add", ".")
        git("commit", "-qm", str(i))
        shas.append(git("rev-parse", "HEAD"))
    (tmp_path / "results").mkdir()
    monkeypatch.setattr(moves, "ROOT", tmp_path)

    def record(sha):
        (tmp_path / "results" / "nb.json").write_text(json.dumps({"provenance": {"git_sha": sha}}))

    record(shas[1] + "-dirty")
    assert moves.rebuilt("nb", shas[0])  # written at a later commit (dirty or not)
    record(shas[0])
    assert not moves.rebuilt("nb", shas[0])  # at the commit before itself
    assert not moves.rebuilt("nb", shas[1])  # at an ancestor of it
    record("0" * 40)
    assert moves.rebuilt("nb", shas[0])  # a commit git does not hold: taken as rebuilt, as before
