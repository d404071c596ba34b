"""A committed table or figure written again from this repository's committed results, training
and scoring nothing: Tables 1 and 2 from their CSVs (:func:`suite_table`), Tables 3 and 4 with the
paper's rows (:func:`tables_3_4`), Figure 5 (:func:`figure5`), and the discrepancy study's figure
from its record (:func:`discrepancy`), titled with that run's commit and date and marked when that
run trained a recipe before today's (:data:`harness.report.recipe.RECIPE_SINCE`):
``python -m harness.redraw discrepancy [record]``.

What it leaves out: how each table and figure is laid out and drawn (:mod:`pearl.benchmark.table`,
:mod:`pearl.experiments.paper_beside`, :mod:`pearl.display.figure5`,
:mod:`pearl.display.discrepancy`), and the values read from records for a notebook
(:mod:`harness.committed`).
"""
from __future__ import annotations

import sys
from pathlib import Path

from pearl import paths
from pearl.display.discrepancy import SUPERSEDED, plot_gains
from pearl.provenance import is_before, read_record, save_figure, save_table
from harness.record import writer

from .committed import untrained_bird
from .report.recipe import RECIPE_SINCE


def suite_table(suite=None, backbone: str = "minilm", record: str | None = "07_short_text"):
    """Write ``results/<suite>.*`` again from the committed CSV (and, for Table 2, the sets' summary
    in ``results/<record>.json``), scoring nothing: the paper's rows and the notes afresh (``suite``:
    a :class:`pearl.benchmark.table.Suite`, Table 1 by default)."""
    import pandas as pd

    from pearl.benchmark.table import TABLE1, TABLE2, write
    from pearl.guard import OPEN

    suite = TABLE1 if suite is None else suite
    summary = None
    if suite is TABLE2 and record:
        path = paths.results_dir(f"{record}.json")
        summary = read_record(path, writer(path))["sets"]
    table = pd.read_csv(paths.results_dir(f"{suite.name}.csv"), float_precision="round_trip")
    return write(table, suite, backbone, OPEN, summary)


def tables_3_4() -> list:
    """``results/table3.{md,tex}`` and ``table4.md`` again from the committed CSVs (labels as notebook 08's)."""
    import pandas as pd

    from pearl.experiments.paper_beside import TABLE3_CAPTION, table3_latex, table3_markdown, table4_markdown
    from pearl.experiments.runner import ABLATION_LABELS

    comparison = pd.read_csv(paths.results_dir("table3.csv"), keep_default_na=False,
                             na_values={"std": [""], "delta": [""], "p": [""]})
    comparison["std"] = comparison["std"].astype(float)
    old3 = paths.results_dir("table3.md").read_text().split("\n\n")[0].replace(" reproduced", " re-run")
    md3 = table3_markdown(comparison, ABLATION_LABELS, header=old3)
    table4 = pd.read_csv(paths.results_dir("table4.csv"))
    old4 = paths.results_dir("table4.md").read_text().split("\n\n")[0].replace(" reproduced", " re-run")
    md4 = table4_markdown(table4, header=old4)
    tex3 = table3_latex(comparison, ABLATION_LABELS, caption=TABLE3_CAPTION)
    return (save_table(None, "table3", markdown=md3, latex=tex3)  # the committed results, re-rendered
            + save_table(None, "table4", markdown=md4))


def figure5():
    """``figures/figure5.*`` again from the committed ``results/figure5.csv`` and notebook 10's
    BIRD seed std, training and scoring nothing."""
    import pandas as pd

    from pearl.display.figure5 import plot_hyperparameters

    points = pd.read_csv(paths.results_dir("figure5.csv"))
    record = paths.results_dir("10_hyperparameters.json")
    noise = read_record(record, writer(record))["metrics"]["bird_seed_std"]
    fig = plot_hyperparameters(points, noise, reference={"lr": 3e-5, "hard_negatives": 2}, untrained=untrained_bird())
    return save_figure(fig, "figure5")  # the committed results, re-drawn


def predates_recipe(commit: str, root: Path | None = None) -> bool | None:
    """Whether the run at ``commit`` came before today's recipe (git's ancestry against
    :data:`harness.report.recipe.RECIPE_SINCE`, the commit the report's tables are read against
    too); None when git cannot tell (no repository, a commit it does not hold)."""
    return is_before(commit, RECIPE_SINCE, paths.ROOT if root is None else root)


def run_note(record: dict, root: Path | None = None) -> str:
    """Which run a record is from, and whether it trained the superseded recipe, as one line."""
    prov = record.get("provenance", {})
    commit = (prov.get("commit") or "")[:7]
    line = f"{record['parameters'].get('DESIGN', '?')} design, run at commit {commit or '?'} on {(prov.get('finished') or '?')[:10]}"
    if predates_recipe(commit, root):
        line += f": {SUPERSEDED}, before today's view composition rule ({RECIPE_SINCE}); not rerun since"
    return line


def discrepancy(record_path: Path, root: Path | None = None):
    """The figure of the study run recorded in ``record_path`` (its ``metrics``: ``table``,
    ``per_seed``, ``paper_gains``, ``gpu_point``), drawn again without training, titled by
    :func:`run_note`. A record without those raises ``ValueError`` naming it and the fix."""
    import pandas as pd

    record = read_record(record_path, writer(record_path))
    m = record.get("metrics", {})
    missing = [k for k in ("table", "per_seed", "paper_gains") if k not in m]
    if missing or "parameters" not in record:
        raise ValueError(f"{record_path} is not a discrepancy study's record (no {missing or ['parameters']}): "
                         "give notebook 13's record (results/13_discrepancy.json, or the design's own copy)")
    return plot_gains(pd.DataFrame(m["table"]), pd.DataFrame(m["per_seed"]), m["paper_gains"],
                      extra=m.get("gpu_point"), note=run_note(record, root))


if __name__ == "__main__":
    # python -m harness.redraw discrepancy [record]: figures/discrepancy.png from its record
    name = sys.argv[1] if len(sys.argv) > 1 else "discrepancy"
    record = Path(sys.argv[2]) if len(sys.argv) > 2 else paths.results_dir(f"{name}.json")
    print("\n".join(str(p) for p in save_figure(discrepancy(record), name)))
