"""What every sentence of the report reads: records, refused when SMOKE."""
import json

import pytest
from pearl import outputs
from pearl.report import common


def test_the_report_refuses_a_smoke_record_naming_it(tmp_path, monkeypatch):
    """A SMOKE record in results/ was quoted as a finding; now the sentence's read stops, naming the
    file and the fix. A full-size record reads as before."""
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results").mkdir()
    record = {"notebook": "08_ablations", "parameters": {"SMOKE": True}, "metrics": {"x": 1}}
    (tmp_path / "results" / "08_ablations.json").write_text(json.dumps(record))
    with pytest.raises(outputs.SmokeInput, match=r"results/08_ablations\.json holds a SMOKE output.*make reproduce"):
        common.read_json("08_ablations.json")
    record["parameters"]["SMOKE"] = False
    (tmp_path / "results" / "08_ablations.json").write_text(json.dumps(record))
    assert common.read_json("08_ablations.json")["metrics"] == {"x": 1}
