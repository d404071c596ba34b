import pytest

from pearl.experiments import references as r
from pearl.experiments.discrepancy import COLUMNS


def test_paper_gain_is_the_papers_printed_difference():
    p = r.paper_gains()
    assert p["printed Avg"] == pytest.approx(6.1)  # 63.1 - 57.0 in the paper's Table 1
    # entity clustering: CoNLL 48.7 - 27.6 and BC5CDR 61.0 - 53.7, averaged
    assert p["entity clustering"] == pytest.approx((21.1 + 7.3) / 2)
    assert p["fuzzy join"] == pytest.approx(74.6 - 74.8)


def test_the_gpu_run_joins_as_gains_per_group(tmp_path):
    rows = [{"model": m, "dataset": ds, "score": base + (2.0 if m != "minilm" else 0.0)}
            for m in ("minilm", "pearl-minilm-seed0") for ds, base in
            [("ppdb", 90), ("ppdb_filtered", 60), ("turney", 50), ("bird", 60), ("yago", 60), ("umls", 70),
             ("conll", 40), ("bc5cdr", 50), ("autofj", 70)]]
    (tmp_path / "gpu.json").write_text(__import__("json").dumps({"rows": rows}))
    (point,) = r.gpu_points(tmp_path / "gpu.json")
    assert all(point[c] == pytest.approx(2.0) for c in COLUMNS)
    assert r.gpu_points(tmp_path / "absent.json") == []
