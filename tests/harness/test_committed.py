"""harness.committed: what the notebooks read of the committed records (the GPU run's gains, the
whole corpus's counts)."""
import pytest

from harness import committed
from pearl.experiments.discrepancy import COLUMNS


def test_the_gpu_run_joins_as_gains_per_group(tmp_path):
    rows = [{"model": m, "dataset": ds, "score": base + (2.0 if m != "minilm" else 0.0)}
            for m in ("minilm", "pearl-minilm-seed0") for ds, base in
            [("ppdb", 90), ("ppdb_filtered", 60), ("turney", 50), ("bird", 60), ("yago", 60), ("umls", 70),
             ("conll", 40), ("bc5cdr", 50), ("autofj", 70)]]
    (tmp_path / "gpu.json").write_text(__import__("json").dumps({"rows": rows}))
    (point,) = committed.gpu_points(tmp_path / "gpu.json")
    assert all(point[c] == pytest.approx(2.0) for c in COLUMNS)
    assert committed.gpu_points(tmp_path / "absent.json") == []


def test_whole_corpus_reads_the_committed_record(tmp_path, monkeypatch):
    import json

    from pearl import paths

    monkeypatch.setattr(paths, "ROOT", tmp_path)
    missing = committed.whole_corpus()
    assert missing["measured"] is False and "scripts/whole_corpus.py" in missing["how"]
    (tmp_path / "results").mkdir()
    metrics = {"description": "every article", "tokens": 100, "distinct_phrases": 10, "min_freq": 2,
               "kept_phrases": 3, "kept_share_pct": 30.0}
    (tmp_path / "results" / f"{committed.WHOLE_CORPUS}.json").write_text(
        json.dumps({"metrics": metrics, "provenance": {"commit": "abc1234"}}))
    got = committed.whole_corpus()
    assert got == {"record": committed.WHOLE_CORPUS_RECORD, "measured": True, **metrics, "commit": "abc1234"}
