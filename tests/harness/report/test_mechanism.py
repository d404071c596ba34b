"""harness.report.mechanism: the composition rule's sentence, on a hand-made sweep (oracle values)."""
import json

import pytest

from harness.report import build, common, mechanism


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results").mkdir()
    return tmp_path / "results"


def row(backbone, moment, weight, diff, std=0.05, rule=True):
    return {"backbone": backbone, "moment": moment, "recipe": "rule" if rule else "fixed, centred (old)",
            "rule": rule, "weight": weight, "bc5cdr - untrained": diff, "bc5cdr nmi_std": std}


def write(results, rows):
    (results / "composition.json").write_text(json.dumps({"parameters": {"SMOKE": False}, "rows": rows}))


def test_the_rule_sentence_gives_each_moments_span_the_rows_below_and_the_noise(results):
    write(results, [row("me5-small", "step 0", 0.1, 0.10), row("me5-small", "step 0", 0.5, -0.25, std=0.12),
                    row("me5-small", "trained", 0.1, 6.0), row("me5-small", "trained", 0.5, 6.0),
                    row("minilm", "step 0", 0.1, 0.3), row("minilm", "step 0", 0.5, -60.0, rule=False)])
    text = mechanism.sentences()["composition.rule"]
    assert text == ("under the rule, at every character weight from 0.1 to 0.5, BC5CDR NMI minus the untrained "
                    "backbone's (test mentions, seed 0): me5-small -0.25 to +0.10 at step 0 and +6.00 trained; "
                    "minilm +0.30 at step 0; 1 of 5 rows below the untrained score, by at most 0.25 (the evaluator's "
                    "own noise on a row: a bootstrap std of at most 0.12)")  # the old recipe's collapsed row is not the rule's


def test_a_rule_row_without_its_noise_makes_the_sentence_no_result(results):
    write(results, [row("me5-small", "step 0", 0.1, 0.1, std=None)])
    text = build.render("{{composition.rule}}", mechanism.sentences())
    assert text.startswith("*[no result: `composition.rule`;") and "composition.json" in text


def test_no_row_below_is_said_so(results):
    write(results, [row("me5-small", "step 0", 0.1, 0.1), row("me5-small", "trained", 0.1, 6.0)])
    assert mechanism.sentences()["composition.rule"].endswith(
        "none of 2 rows below the untrained score (the evaluator's own noise on a row: a bootstrap std of at most 0.05)")


def test_the_budget_sentence_says_an_unidentified_saturating_curve_is_left_out():
    """Gains proportional to the views: the saturating fit converges with b beyond the budgets; the
    report names it not identified and gives the line's interval as the whole interval."""
    from pearl.experiments.budget import PAPER_VIEWS, fit_models, project_models

    views = [250, 500, 1000, 2000, 4000, 8000]
    both = fit_models(views, [1e-4 * v + e for v, e in zip(views, [0.01, -0.01, 0.0, 0.01, -0.01, 0.0])])
    pb = project_models(both, PAPER_VIEWS)
    text = mechanism._fit({"fit": both["log-linear"], "saturating": both["saturating"], "paper_budget": pb})
    line = pb["models"]["log-linear"]
    assert "the saturating curve a·v/(v+b) is not identified by these points (b = " in text
    assert "so it is left out" in text
    assert "the line's 95 % prediction interval alone" in text
    assert f"the line gives {line['gain']:+.2f} ({line['pi_low']:+.2f} to {line['pi_high']:+.2f})" in text
