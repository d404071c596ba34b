"""Results and caches are strict JSON, written whole or not at all."""
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from pearl.provenance import Run, dumps_strict, write_json

LIB = Path(__file__).resolve().parents[1] / "lib" / "pearl"


def _strict_load(path):
    def refuse(name):
        raise ValueError(f"{path} holds {name}: not strict JSON")

    return json.loads(Path(path).read_text(), parse_constant=refuse)


def test_undefined_metric_is_null_with_its_reason(scratch_output):
    path = Run("test_undefined", {"alpha": float("inf")}).save(
        metrics={"f1": float("nan"), "acc": np.float32("nan"), "ok": np.float64(0.5), "per_seed": [1.0, float("nan")]},
        undefined={"f1": "no positive examples in the split"})
    record = _strict_load(path)
    assert record["metrics"] == {"f1": None, "acc": None, "ok": 0.5, "per_seed": [1.0, None]}
    assert record["undefined"]["f1"] == "no positive examples in the split"
    assert set(record["undefined"]) == {"f1", "acc", "per_seed/1", "parameters/alpha"}


def test_a_clean_record_has_no_undefined_map(scratch_output):
    assert "undefined" not in _strict_load(Run("test_clean").save(metrics={"x": 1.0}))


def test_write_json_refuses_nan(tmp_path):
    with pytest.raises(ValueError):
        write_json(tmp_path / "x.json", {"x": float("nan")})
    assert not (tmp_path / "x.json").exists()
    assert dumps_strict({"p": Path("/a"), "n": np.int64(3)}) == '{"p": "/a", "n": 3}'


def _writers(tmp_path):
    """(name, call that writes ``target``, target) for every library writer of derived files."""
    from pearl.corpus import augment, hard_negatives, phrases

    corpus = tmp_path / "corpus" / "phrases.tsv"
    tables = tmp_path / "augment"
    return [
        ("hard_negatives", lambda: hard_negatives.write_hard_negatives({"a": ["b"]}, tmp_path / "hn.json"),
         tmp_path / "hn.json"),
        ("corpus", lambda: phrases.write_corpus([("new york", phrases.LABELS[0], 3, "wikitext2")], corpus), corpus),
        ("augment_tables", lambda: augment.save_tables(augment.AugmentTables(meta={"v": 1}), tables),
         tables / "meta.json"),
    ]


@pytest.mark.parametrize("which", ["hard_negatives", "corpus", "augment_tables"])
def test_a_crash_while_writing_leaves_the_old_file(tmp_path, monkeypatch, which):
    """The rename is the commit point: if it never happens the old file is intact, no temp file is left."""
    _, write, target = next(w for w in _writers(tmp_path) if w[0] == which)
    write()
    before = target.read_bytes()

    def crash(*a, **k):
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write()
    assert target.read_bytes() == before
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_no_library_module_writes_files_directly():
    """Every file the library writes goes through provenance.write_atomic / write_json."""
    offenders = []
    for path in LIB.rglob("*.py"):
        if path.name == "provenance.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            writes = any(s in code for s in (".write_text(", ".write_bytes(", "json.dump(", '"w"', "'w'", '"wb"')) \
                or re.search(r"\.to_(csv|json|parquet)\(\s*(?!\w+=)[^)\s]", code)  # pandas writing to a path
            if writes and "open(tmp" not in code:  # data._download streams into a .part file, renamed when complete
                offenders.append(f"{path.relative_to(LIB)}:{n}: {line.strip()}")
    assert not offenders, "write through pearl.provenance.write_atomic/write_json:\n" + "\n".join(offenders)
