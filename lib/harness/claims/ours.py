"""Our number for each claim, computed from the committed results files (per-seed scores where
the notebooks kept them): each function returns :mod:`pearl.claims.rule`'s statistics of one difference.

- ``results/08_ablations.json``: per-seed group scores of the full recipe and the six ablations;
- ``results/09_backbones.json``: per-seed scores on each backbone and the untrained encoders, and
  me5-small's seeds and original on Table 2's short texts;
- ``results/11_methods.json``: per-seed scores of PEARL, SimCSE, Phrase-BERT, PAUSE and the
  untrained backbone (with the short-text average), positives' lexical diversity, PAUSE's
  label-efficiency runs;
- ``results/table2.csv``: per-seed short-text accuracies; ``results/table1.csv``: Table 1;
- ``results/10_hyperparameters.json``: Figure 5's points and the full recipe's BIRD seed std;
- ``results/05_figures.json``: Figure 4's per-model type-clustering scores; ``results/figure1.csv``:
  Figure 1's ranks;
- ``results/perf/experiment_models.txt``: training seconds of notebook 08's models.

Every comparison is Welch's t (:func:`pearl.claims.rule.welch`) with one noise model per
reference: the untrained backbone on Table 2's sets with its own measured spread over the ten
classifier seeds (:func:`pearl.claims.rule.measured_reference`, ``std / sqrt(10)`` per set); the
untrained backbone on the sweep suite, scored once with seeded probes, and a silhouette in the
embedding space, both deterministic, as exact numbers (:func:`pearl.claims.rule.one_sample`).

What it leaves out: the claims (:mod:`.ledger`) and the verdicts (:mod:`pearl.claims.rule`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pearl import paths
from pearl.guard import OPEN, Guard
from pearl.provenance import read_record
from harness.record import writer as record_writer
from pearl.benchmark.tasks import GROUPS, SHORT_TEXT_SEEDS
from pearl.claims import rule

FULL = ""  # the full recipe's name in notebook 08's and 14's records
SHORT_TEXT_ARMS = "14_short_text_arms"  # the notebook scoring more models on Table 2's short texts
SHORT_TEXT = "short-text average"  # its column (pearl.experiments.tables.SHORT_TEXT)
BIRD_SEED_DOF = 2  # the full recipe's BIRD std comes from its 3 seeds
CLASSIFIER_RUNS = len(SHORT_TEXT_SEEDS["full"])  # the runs behind each Table-2 score and its std


#: the notebook whose run wrote each table the claims read (its record names the commit)
WRITTEN_BY = {"table1": "04_benchmark", "table2": "07_short_text", "figure1": "05_figures"}


class Results:
    """The committed results files of ``folder`` (default: the repository's ``results/``), read on
    demand. Every file goes to ``guard.check_input`` before it is read as evidence (the harness's
    guard refuses a tiny file in a full-size run, naming it and the fix); every file read is
    listed by :meth:`sources` with its commit and what ``guard.describe`` says of it."""

    def __init__(self, folder: str | Path | None = None, guard: Guard = OPEN):
        self.folder = Path(folder) if folder else paths.ROOT / "results"
        self.guard = guard
        self._read: dict[str, dict] = {}

    def _evidence(self, path: Path, commit: str | None, commit_from: Path | None) -> Path:
        """``path``, once ``guard.check_input`` let it through, noted as a source."""
        fix = (f"the ledger reads full-size results only: point RESULTS_FROM at a full-size results folder (or "
               f"leave it empty for the repository's results/), or rerun the notebook that wrote {path.name} at full size")
        self.guard.check_input(path, fix)
        if path.is_file():  # a missing one raises when read: its claim is not testable here
            self._read.setdefault(_shown(path), {"file": _shown(path), "commit": commit, **self.guard.describe(path),
                                                 "commit_from": _shown(commit_from) if commit_from else None})
        return path

    def metrics(self, notebook: str) -> dict:
        path = self.folder / f"{notebook}.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: the claims are read from the committed results; run "
                                    f"notebook {notebook} (or check out results/ from the repository)")
        record = read_record(path, record_writer(path))  # a damaged file: an error naming it and the fix
        self._evidence(path, _commit(record), path)
        return record["metrics"]

    def csv(self, name: str):
        import pandas as pd

        path, writer = self.folder / f"{name}.csv", WRITTEN_BY.get(name)
        record = self.folder / f"{writer}.json" if writer else None
        commit = _commit(read_record(record, record_writer(record))) if record is not None and record.is_file() else None
        return pd.read_csv(self._evidence(path, commit, record if commit else None))

    def text(self, name: str) -> str:
        """A text file of the results folder (no commit of its own: ``commit`` None)."""
        return self._evidence(self.folder / name, None, None).read_text()

    def seeds(self, notebook: str, key: str = "models"):
        import pandas as pd

        return pd.DataFrame(self.metrics(notebook)[key])

    def sources(self) -> list[dict]:
        """Every file read so far, in name order: ``file`` (from the repository root when under it),
        ``commit`` (the ``git_sha`` of the run that wrote it: a record's own, a table's from the record
        of :data:`WRITTEN_BY`, ``commit_from``; None for a file that records none) and what the guard
        says of it (the harness's: its ``scale``)."""
        return [self._read[k] for k in sorted(self._read)]


def _commit(record: dict) -> str | None:
    return (record.get("provenance") or {}).get("git_sha") if isinstance(record, dict) else None


def _shown(path: Path) -> str:
    """``path`` from the repository root when it lies under it (no machine path in a committed file)."""
    return str(path.relative_to(paths.ROOT)) if path.is_relative_to(paths.ROOT) else str(path)


def _col(frame, recipe: str, column: str) -> np.ndarray:
    x = frame.loc[frame["recipe"] == recipe, column].to_numpy(float)
    if not len(x):
        raise KeyError(f"no seeds of recipe {recipe!r} for {column!r}")
    return x


def ablation(res: Results, recipe: str, column: str) -> dict:
    """An ablation's seeds − the full recipe's, on ``column`` of notebook 08's record."""
    models = res.seeds("08_ablations")
    return rule.two_sample(_col(models, recipe, column), _col(models, FULL, column))


def short_ablation(res: Results, recipe: str) -> dict:
    """A character arm's seeds − the full recipe's, on the mean accuracy over Table 2's four sets
    (notebook 14's record, ``arm_models``)."""
    models = res.seeds(SHORT_TEXT_ARMS, "arm_models")
    return rule.two_sample(_col(models, recipe, SHORT_TEXT), _col(models, FULL, SHORT_TEXT))


def gain(res: Results, recipe: str, column: str) -> dict:
    models = res.seeds("08_ablations")
    return rule.two_sample(_col(models, FULL, column), _col(models, recipe, column))


def groups_lowered(res: Results, recipe: str) -> dict:
    """Groups lowered − raised by ``recipe`` (the count, as the paper's arrows), with the interval of
    the least favourable group (the largest one-sided p of a drop: an intersection-union test of
    "every group drops") and a two-sided sign test of the count."""
    from scipy import stats

    models = res.seeds("08_ablations")
    tests = {g: rule.two_sample(_col(models, recipe, g), _col(models, FULL, g)) for g in GROUPS}
    worst = max(tests, key=lambda g: stats.t.cdf(tests[g]["ours"] / tests[g]["se"], tests[g]["df"]))
    down, up = sum(t["ours"] < 0 for t in tests.values()), sum(t["ours"] > 0 for t in tests.values())
    sign_p = stats.binomtest(down, down + up, 0.5).pvalue if down + up else float("nan")
    return {**tests[worst], "ours": float(down - up),
            "against": f"least favourable group {worst} ({tests[worst]['ours']:+.2f}); sign test p = {sign_p:.3f}"}


def strongest(res: Results, recipe: str) -> dict:
    """``recipe`` against the next-lowest of Table 3's one-part ablations (− all augmentations removes
    several parts at once: not a rival)."""
    models = res.seeds("08_ablations")
    others = {r: _col(models, r, "average").mean() for r in models["recipe"].unique()
              if r not in (recipe, FULL, "no-all-aug")}
    runner_up = min(others, key=others.get)
    return {**rule.two_sample(_col(models, recipe, "average"), _col(models, runner_up, "average")), "against": runner_up}


def backbone_gain(res: Results, backbone: str, column: str) -> dict:
    models, originals = res.seeds("09_backbones"), res.seeds("09_backbones", "originals")
    # the sweep suite scores the untrained encoder once, with seeded probes: an exact number
    return rule.one_sample(_col(models, backbone, column), float(_col(originals, backbone, column).mean()))


def backbone_min_gain(res: Results, column: str = "average") -> dict:
    """The sentence encoder with the smallest gain (the raw LMs, the paper's population, have their own
    claim); the kind of each backbone is the one its Table-4 row records."""
    models, originals = res.seeds("09_backbones"), res.seeds("09_backbones", "originals")
    raw = {r["backbone"] for r in res.metrics("09_backbones")["table"] if r.get("kind") == "raw LM"}
    gains = {b: _col(models, b, column).mean() - _col(originals, b, column).mean() for b in models["recipe"].unique()
             if b not in raw}
    worst = min(gains, key=gains.get)
    return {**backbone_gain(res, worst, column), "against": worst}


def method_vs(res: Results, other: str, column: str) -> dict:
    models = res.seeds("11_methods")
    return rule.two_sample(_col(models, "pearl", column), _col(models, other, column))


def best_other(res: Results, column: str) -> dict:
    models = res.seeds("11_methods")
    means = {r: _col(models, r, column).mean() for r in models["recipe"].unique() if r != "pearl"}
    best = max(means, key=means.get)
    x, y = _col(models, "pearl", column), _col(models, best, column)
    out = rule.two_sample(x, y) if len(y) > 1 else rule.one_sample(x, float(y.mean()))  # the backbone: exact
    return {**out, "against": best}


def backbone_gain_short(res: Results) -> dict:
    """PEARL's seeds − the untrained backbone on notebook 11's short-text average, the backbone's own
    spread over its classifier seeds (its per-set stds in the record's ``short_text``) as its noise."""
    import pandas as pd

    models = res.seeds("11_methods")
    sets = pd.DataFrame(res.metrics("11_methods")["short_text"])
    std = sets.loc[sets["group"] == "backbone", "std"].to_numpy(float)
    return rule.measured_reference(_col(models, "pearl", SHORT_TEXT), float(_col(models, "backbone", SHORT_TEXT).mean()),
                                   _mean_se(std), CLASSIFIER_RUNS - 1)


def _mean_se(stds) -> float:
    """The standard error of a mean over sets, each a mean over :data:`CLASSIFIER_RUNS` runs with
    sample std ``stds[i]`` (independent runs per set).

    >>> round(_mean_se([0.4, 0.4]), 4)   # sqrt((0.16 / 10 + 0.16 / 10) / 4)
    0.0894
    """
    stds = np.asarray(stds, float)
    return float(np.sqrt(np.sum(stds ** 2 / CLASSIFIER_RUNS)) / len(stds))


def _short(res: Results, datasets, backbone: str = "minilm") -> tuple:
    """(each PEARL seed's mean accuracy on Table 2's ``datasets``, the untrained backbone's, the
    standard error of the backbone's, from its own per-set spread over the classifier seeds):
    MiniLM's from notebook 07 (results/table2.csv), another backbone's from notebook 14's."""
    import pandas as pd

    if backbone == "minilm":
        table = res.csv("table2")
        table = table[table["dataset"].isin(datasets)]
        wide = table.pivot(index="model", columns="dataset", values="score")
        seeds = wide.loc[[m for m in wide.index if m.startswith("pearl-minilm-seed")]]
        ref = table[table["model"] == "minilm"]
        return seeds.mean(axis=1).to_numpy(float), float(ref["score"].mean()), _mean_se(ref["std"])
    wide, ref = {}, None
    for key in ("backbone_models", "backbone_originals"):
        frame = pd.DataFrame(res.metrics(SHORT_TEXT_ARMS)[key])
        frame = frame[(frame["group"] == backbone) & frame["dataset"].isin(datasets)]
        wide[key] = frame.pivot(index="model", columns="dataset", values="score")
        if wide[key].shape[1] != len(datasets):  # a KeyError: the claim stays untestable, with its reason
            raise KeyError(f"{backbone} on Table 2's {list(datasets)} in results/{SHORT_TEXT_ARMS}.json ({key})")
        ref = frame
    return (wide["backbone_models"].mean(axis=1).to_numpy(float), float(wide["backbone_originals"].mean(axis=1).iloc[0]),
            _mean_se(ref["std"]))


def short_set(res: Results, *datasets: str) -> dict:
    """PEARL seeds − the untrained MiniLM on the mean of Table 2's ``datasets`` (results/table2.csv)."""
    x, ref, se = _short(res, datasets)
    return rule.measured_reference(x, ref, se, CLASSIFIER_RUNS - 1)


def short_set_on(res: Results, backbone: str, *datasets: str) -> dict:
    """:func:`short_set` on another backbone (notebook 14's short-text scores)."""
    x, ref, se = _short(res, datasets, backbone)
    return rule.measured_reference(x, ref, se, CLASSIFIER_RUNS - 1)


def short_minus_long(res: Results, backbone: str = "minilm") -> dict:
    """(PEARL − backbone on Twitter-S and ATIS-S) − (the same on Twitter-L and ATIS-L), per seed; the
    backbone's two means are independent runs, so their variances add."""
    s, s0, se_s = _short(res, ("twitter_s", "atis_s"), backbone)
    long, long0, se_l = _short(res, ("twitter_l", "atis_l"), backbone)
    return rule.measured_reference(s - long, s0 - long0, float(np.hypot(se_s, se_l)), CLASSIFIER_RUNS - 1)


def figure1(res: Results, case: str = "figure1") -> dict:
    """Aliases ranked above every non-alias for Figure 1's query, mean over the PEARL seeds (ranks
    are deterministic per model: no noise model)."""
    t = res.csv("figure1")
    t = t[(t["case"] == case) & t["model"].str.startswith("PEARL seed")]
    counts = [int((g["is_alias"] & (g["rank"] < g.loc[~g["is_alias"], "rank"].min())).sum()) for _, g in t.groupby("model")]
    return {**rule.deterministic(float(np.mean(counts)), len(counts)), "against": f"per seed: {counts}"}


def trained_jobs(text: str):
    """The jobs of ``results/perf/experiment_models.txt`` (its text) that trained their model
    (``train_s`` > 0; a reused model took none): elapsed_s, folder, scoring, train_s, job_s.

    >>> trained_jobs("header\\nelapsed_s folder scoring train_s job_s\\n 9 a sweep 0 9\\n 20 b sweep 5 11\\n")["job_s"].tolist()
    [11.0]
    """
    import pandas as pd

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["elapsed_s", "folder"])
    head = lines[start].split()
    body = [f for f in (line.split() for line in lines[start + 1:]) if len(f) == len(head) and f[0].isdigit()]
    rows = pd.DataFrame(body, columns=head).astype({"train_s": float, "job_s": float})
    return rows[rows["train_s"] > 0]


def hard_negative_cost(res: Results) -> dict:
    """Training seconds of the arms with hard negatives that share the full recipe's model and batch
    (− token and − character augmentation) against − hard negatives, as % of the latter (notebook
    08's run, two jobs at a time; a reused model, which took no training time, is left out)."""
    import pandas as pd

    rows = trained_jobs(res.text("perf/experiment_models.txt"))
    arm = rows["folder"].str.replace(r"-seed\d+$", "", regex=True)
    without = rows.loc[arm == "pearl-minilm-no-hard-negatives", "train_s"].to_numpy(float)
    with_ = rows.loc[arm.isin(["pearl-minilm-no-token-aug", "pearl-minilm-no-char-aug"]), "train_s"].to_numpy(float)
    scale = 100 / without.mean()
    return {**rule.two_sample(with_ * scale, without * scale),
            "against": f"{len(with_)} models with hard negatives, {len(without)} without"}


def hyper(res: Results, parameter: str) -> dict:
    from pearl.benchmark import paper

    m = res.metrics("10_hyperparameters")
    points = [p for p in m["points"] if p["parameter"] == parameter]
    chosen = [p["score"] for p in points if float(p["value"]) == paper.figure5()[parameter]]
    others = {float(p["value"]): p["score"] for p in points if float(p["value"]) != paper.figure5()[parameter]}
    best = max(others, key=others.get)
    return {**rule.single_vs_noise(float(np.mean(chosen)), others[best], m["bird_seed_std"], BIRD_SEED_DOF),
            "against": f"{parameter} = {best:g}"}


def figure4(res: Results, metric: str) -> dict:
    rows = [r for r in res.metrics("05_figures")["figure4"] if r["space"] == "embedding"]
    pearl = [100 * r[metric] for r in rows if r["model"].startswith("PEARL seed")]
    base = [100 * r[metric] for r in rows if r["model"].startswith("all-MiniLM")]
    return rule.one_sample(pearl, base[0])  # deterministic in the embedding space: an exact reference


def lexical(res: Results, metric: str) -> dict:
    div = res.metrics("11_methods")["lexical_diversity"]
    return rule.deterministic(100 * (div["phrase_bert"][metric] - div["pearl"][metric]))


def label_share(res: Results, share: float) -> dict:
    runs = res.seeds("11_methods", "label_efficiency")
    part = runs.loc[np.isclose(runs["share"], share), "average"].to_numpy(float)
    full = runs.loc[runs["share"] == 1.0, "average"].to_numpy(float)
    if len(part) > 1:  # seeds at this share: their own spread
        return rule.two_sample(part, full)
    return rule.single_vs_noise(part.mean(), full.mean(), full.std(ddof=1), len(full) - 1, len(part), len(full))


def value(res: Results, model: str, dataset: str) -> dict:
    table = res.csv("table1")
    score = table[(table["model"] == model) & (table["dataset"] == dataset)]["score"]
    return rule.deterministic(float(score.iloc[0]))


def measure(res: Results, spec: tuple) -> dict:
    """Run ``spec`` = (function name, *arguments) of this module."""
    functions = {f.__name__: f for f in (ablation, short_ablation, gain, groups_lowered, strongest, backbone_gain, backbone_min_gain,
                                         method_vs, best_other, backbone_gain_short, short_set, short_set_on, short_minus_long,
                                         hyper, figure4, figure1, hard_negative_cost, lexical, label_share, value)}
    return functions[spec[0]](res, *spec[1:])
