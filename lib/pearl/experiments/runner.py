"""Train-or-reuse many models: the engine of the experiment notebooks (scoring them is
:func:`pearl.benchmark.scoring.run_models`).

A :class:`Recipe` is a training recipe with a name (the ``variant`` of its folder names,
:func:`pearl.models.folder_name`): the training profile's :class:`~pearl.training.train.TrainConfig`
plus overrides, the augmentation levels' weights and the share of training phrases used.

- :func:`train_models` trains every (recipe, seed) whose folder is missing or was written by
  another recipe, and reuses the rest: a killed batch run, started again, retrains only what
  it had not finished (and a run that was interrupted mid-training resumes from its
  checkpoint, :mod:`pearl.checkpoint`). The recipe's key (config, augmentation,
  data options and the digests of the training files) is stored in the folder's
  ``pearl.json``, so a rebuilt corpus or a changed setting retrains.
- the trained folders are scored by :func:`pearl.benchmark.scoring.run_models` (``{recipe:
  [folders]}``): every phrase encoded once, vectors and scores cached (:mod:`pearl.cache`);
  Table 2's short-text sets are tasks too, scored the same way.

Every folder goes under ``root`` (default :func:`pearl.paths.output_root`), which the caller
passes down; the folders to be trained go to ``guard.check`` before any is trained
(:class:`pearl.guard.Guard`).

Training takes ``workers``, as scoring does: with 2 or more, models train (or are scored) side by side in that many
processes of one torch thread each (:mod:`pearl.workers`; with a GPU, one process). A model trained in a worker is the same
recipe (reused either way), but one thread sums in another order than two, so its weights
differ from the in-process run's in the last bits.

What it leaves out: tables and figures (:mod:`pearl.experiments.tables`).
"""
from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .. import models, paths
from .. import workers as workers_
from ..data import sha256
from ..guard import OPEN, Guard
from ..provenance import write_json

#: the paper's ablations (Table 3): the full recipe less one part each
ABLATIONS = {
    "no-phrase-aug": dict(augment=(1.0, 1.0, 0.0)),
    "no-entity-type": dict(config={"use_type_head": False}),
    "no-token-aug": dict(augment=(1.0, 0.0, 1.0)),
    "no-hard-negatives": dict(config={"hard_negatives": 0}),
    "no-char-encoder": dict(config={"use_char": False}),
    "no-char-aug": dict(augment=(0.0, 1.0, 1.0)),
    # not a row of the paper's Table 3, but §5.2's sentence: "Removing all augmentations results in an
    # average drop of 2.4 percentage points" (the positive is then the phrase itself under dropout)
    "no-all-aug": dict(augment=(0.0, 0.0, 0.0)),
}

#: the rows of the paper's Table 3
ABLATION_LABELS = {"": "PEARL (full recipe)", "no-phrase-aug": "− phrase augmentation", "no-entity-type": "− entity type",
                   "no-token-aug": "− token augmentation", "no-hard-negatives": "− hard negatives",
                   "no-char-encoder": "− character encoder", "no-char-aug": "− character augmentation",
                   "no-all-aug": "− all augmentations"}


@dataclass(frozen=True)
class Recipe:
    """One training recipe; ``name`` is the folder-name variant ("" = the full PEARL recipe)."""
    name: str = ""
    method: str = "pearl"
    backbone: str = "minilm"
    config: dict = field(default_factory=dict)  # TrainConfig overrides of the profile
    augment: tuple = (1.0, 1.0, 1.0)  # char, token, phrase augmentation weights (0 = level off)
    phrase_share: float = 1.0  # share of the profile's training phrases (the paper's Table 4: 0.3)
    corpus: str = ""  # a named corpus of pearl.corpus.variants ("": the data notebooks' own)

    def folder(self, seed: int, root: str | Path | None = None) -> Path:
        # not created here: a folder appears when export writes it
        return paths.models_dir(root=root) / models.folder_name(self.method, self.backbone, seed, self.name or None)

    def label(self) -> str:
        return models.mean_label(self.method, self.backbone, self.name or None)


def ablation(name: str) -> Recipe:
    """The Table-3 recipe ``name`` (a key of :data:`ABLATIONS`, or "" for the full recipe)."""
    if name and name not in ABLATIONS:
        raise ValueError(f"unknown ablation {name!r}; choose from {', '.join(ABLATIONS)}")
    return Recipe(name=name, **ABLATIONS.get(name, {}))


def ablation_recipes(names: Sequence[str]) -> list[Recipe]:
    """The full recipe, then the Table-3 ablation of each of ``names``."""
    return [ablation(name) for name in ["", *names]]


def arm_seeds(names: Sequence[str], seeds: Sequence[int], more: Mapping[str, Sequence[int]] | None = None) -> dict[str, list[int]]:
    """Each recipe's seeds, ``{name: seeds}``: ``seeds`` for every one of ``names``, with the extra
    seeds that ``more`` gives single recipes ("" the full recipe), for a claim that a few more runs
    of two arms decide (notebook 08's ``EXTRA_SEEDS``). A recipe of ``more`` that is not trained
    here is left out; a name that is no recipe at all is an error.

    >>> arm_seeds(["", "no-char-aug"], [0, 1, 2], {"no-char-aug": [3, 4]})
    {'': [0, 1, 2], 'no-char-aug': [0, 1, 2, 3, 4]}
    """
    more = dict(more or {})
    unknown = sorted(set(more) - set(names) - {"", *ABLATIONS})
    if unknown:
        raise ValueError(f"EXTRA_SEEDS names no recipe: {', '.join(map(repr, unknown))}; use \"\" (the full recipe) "
                         f"or one of {', '.join(ABLATIONS)}")
    return {name: sorted({*seeds, *more.get(name, ())}) for name in names}


def seeds_text(per_arm: Mapping[str, Sequence[int]], labels: Mapping[str, str]) -> str:
    """How many seeds each recipe of :func:`arm_seeds` has, for a table's header: "3 seeds", or
    "3 seeds (12: PEARL (full recipe), − character augmentation; 9: − token augmentation)".

    >>> seeds_text({"": [0, 1, 2], "x": [0, 1, 2, 3]}, {"": "full", "x": "− x"})
    '3 seeds (4: − x)'
    """
    counts = {name: len(s) for name, s in per_arm.items()}
    base = min(counts.values(), default=0)
    more: dict[int, list[str]] = {}
    for name, n in counts.items():
        if n != base:
            more.setdefault(n, []).append(labels.get(name, name))
    extra = "; ".join(f"{n}: {', '.join(names)}" for n, names in sorted(more.items(), reverse=True))
    return f"{base} seeds" + (f" ({extra})" if extra else "")


def hyperparameter_recipe(lr: float, hard_negatives: int) -> Recipe:
    """A Figure-5 point; the full recipe's settings and the no-hard-negatives ablation keep
    their own names, so their models are shared with notebooks 03 and 08."""
    from ..training.profiles import PROFILES

    if lr == PROFILES["cpu"]["lr"] and hard_negatives == 2:
        return ablation("")
    if lr == PROFILES["cpu"]["lr"] and hard_negatives == 0:
        return ablation("no-hard-negatives")
    tag = (f"lr{lr:.0e}".replace("e-0", "e-") if lr != PROFILES["cpu"]["lr"] else "") + \
        (f"hn{hard_negatives}" if hard_negatives != 2 else "")
    return Recipe(name=tag, config={"lr": lr, "hard_negatives": hard_negatives})


def layout_recipe(layout: str) -> Recipe:
    """The full recipe on the batches of the batch layout ``layout`` (:data:`pearl.training.batches.LAYOUTS`;
    the config field keeps its first name, ``batch_composition``, which the stored models' keys hold);
    the default's is the full recipe itself, so its models are notebook 03's.

    >>> layout_recipe("reference").folder(0).name, layout_recipe("extra_negatives") == ablation("")
    ('pearl-minilm-reference-batches-seed0', True)
    """
    from ..training.batches import layout_variant

    variant = layout_variant(layout)
    return Recipe(name=variant, config={"batch_composition": layout}) if variant else ablation("")


def method_recipe(method: str, label_share: float = 1.0, backbone: str = "minilm") -> Recipe:
    """A neighbouring method (or PEARL) on the same trainer, with its objective's defaults
    (:data:`pearl.training.objectives.OBJECTIVES`); PAUSE with part of its pairs labelled
    gets its own folder name (``pause-minilm-labels-5pct-seed0``)."""
    from ..training.methods import variant_for
    from ..training.train import TrainConfig

    settings = {"label_share": label_share} if label_share != 1 else {}  # refused by a method without the setting
    return Recipe(name=variant_for(TrainConfig.of(method, **settings)) or "", method=method, backbone=backbone,
                  config=settings)


def recipes_for_methods(methods: Sequence[str]) -> dict[str, Recipe]:
    """``{method: its recipe}`` (:func:`method_recipe`, every pair labelled)."""
    return {m: method_recipe(m) for m in methods}


def _training_files(corpus: str = "") -> dict:
    """Digests of the files a training run reads: the corpus, the hard negatives and each augmentation
    table (a rebuilt corpus, or a changed synonym table, means new models)."""
    from ..corpus import variants
    from ..corpus.augment import LEXICON_FILES

    where = variants.files(corpus) if corpus else {}
    augment = Path(where.get("augment") or paths.derived_dir("augment"))
    files = {"corpus": where.get("corpus", paths.derived_dir("phrases.tsv")),
             "hard_negatives": where.get("hard_negatives", paths.derived_dir("hard_negatives.json")),
             **{f"augment/{name}": augment / name for name in sorted(LEXICON_FILES.values())}}
    return {k: sha256(p) if p.is_file() else None for k, p in files.items()}


#: settings that change how fast a model trains, not what it learns (embedding_update: the same
#: weights up to float rounding, pearl.training.optim; feed: the same batches, pearl.training.arrays)
_NOT_KEY = {"device", "num_workers", "compile", "checkpoint_every", "embedding_update", "feed", "log_every"}


def _config_key(cfg) -> dict:
    """The TrainConfig fields that differ from their defaults, the objective's settings flattened
    among them (``cfg.record()``): a field added later with a default (a new objective's
    setting) does not make every trained model stale."""
    default = type(cfg)().record()
    return {k: v for k, v in cfg.record().items()
            if k not in _NOT_KEY and (k not in default or v != default[k])}


def recipe_key(recipe: Recipe, cfg, data: dict) -> dict:
    """What decides a trained model: reused only when every part of this is the same."""
    return {"train_config": _config_key(cfg), "augment": list(recipe.augment), "data": data,
            "phrase_share": recipe.phrase_share, "method": recipe.method, "files": _training_files(recipe.corpus)}


def _stored_key(folder: Path) -> dict | None:
    info = folder / "pearl.json"
    return json.loads(info.read_text()).get("recipe") if info.is_file() else None


def _reusable(folder: Path, key: dict) -> bool:
    """Whether ``folder`` holds the model of ``key``, whole: its ``pearl.json`` names this key and its
    files verify (a damaged folder whose key still matches is trained again, not reused)."""
    try:
        if _stored_key(folder) != key:
            return False
    except (ValueError, UnicodeDecodeError, AttributeError):  # a cut or foreign pearl.json: trained again
        return False
    return models.unverified(folder) is None


def _subset(corpus: list, share: float) -> list:
    """A fixed share of the phrases (seed 0 for every training seed: the data do not vary with it)."""
    if not 0 < share <= 1:
        raise ValueError(f"phrase_share must be in (0, 1], got {share}")
    if share == 1:
        return corpus
    keep = np.random.default_rng(0).choice(len(corpus), max(1, round(share * len(corpus))), replace=False)
    return [corpus[i] for i in sorted(keep)]


def _train_one(recipe: Recipe, seed: int, profile: str, overrides: dict, guard: Guard, profile_size: str,
               root: Path, threads: int = 0, log=None) -> str:
    train_models([recipe], [seed], profile=profile, log=lambda _: None, guard=guard, profile_size=profile_size, root=root,
                 **overrides)
    return recipe.folder(seed, root).name


def _built_on_first_use(backbone: str) -> bool:
    """Whether loading ``backbone`` would build it first: mlm-wiki's pretraining, me5-small's conversion
    (its registry entry's ``built``)."""
    from ..backbones import registry

    return registry.needs_building(backbone)


def _worker_order(pending: list) -> list:
    """The jobs in the order the workers take them. A backbone built on first use is built under a
    file lock, and mlm-wiki's pretraining holds it for most of an hour: a second job on that backbone
    would keep its worker waiting. So one job per such backbone goes first and its others go last."""
    building = {b for b in {job[0].backbone for job in pending} if _built_on_first_use(b)}
    first = {min(i for i, job in enumerate(pending) if job[0].backbone == b) for b in building}
    rank = [0 if i in first else 2 if job[0].backbone in building else 1 for i, job in enumerate(pending)]
    return [pending[i] for i in sorted(range(len(pending)), key=rank.__getitem__)]  # stable within a rank


def _keyed(recipe: Recipe, seed: int, profile: str, overrides: dict, profile_size: str):
    """(TrainConfig, data options, recipe key) of one recipe and seed."""
    from ..training.profiles import config_for

    cfg, data = config_for(profile, profile_size, backbone=recipe.backbone, objective=recipe.method, **{**overrides, **recipe.config})
    cfg = dataclasses.replace(cfg, seed=seed)
    if recipe.corpus:  # only then: the keys of models trained on the notebooks' corpus stay as they were
        data = {**data, "corpus": recipe.corpus}
    return cfg, data, recipe_key(recipe, cfg, data)


def is_trained(recipe: Recipe, seed: int, profile: str = "cpu", profile_size: str = "full",
               root: str | Path | None = None, **overrides) -> bool:
    """Whether :func:`train_models` would reuse ``recipe``'s folder for ``seed`` under ``root`` (its
    ``pearl.json`` holds this recipe's key), so a caller can score what another process has finished training."""
    return _reusable(recipe.folder(seed, root), _keyed(recipe, seed, profile, overrides, profile_size)[2])


def train_models(recipes: Sequence[Recipe], seeds: Sequence[int] | Mapping[str, Sequence[int]], profile: str = "cpu",
                 log: Callable[[str], None] = print, progress: bool = False, workers: int = 1,
                 guard: Guard = OPEN, profile_size: str = "full", root: str | Path | None = None,
                 **overrides) -> dict[str, list[Path]]:
    """Train (or reuse) every recipe x seed under ``models/`` of ``root`` (default
    :func:`pearl.paths.output_root`); ``{recipe name: [folder per seed]}``. ``seeds`` is one list for
    every recipe, or each recipe's own (``{recipe name: seeds}``, :func:`arm_seeds`).

    ``overrides`` apply to every recipe's TrainConfig (e.g. ``device``); :func:`run_summary`
    reads what each folder's training did. ``workers`` > 1 trains the missing ones in that
    many one-thread processes (see the module's docstring; they get ``guard``, ``profile_size`` and
    ``root`` among their arguments), then reuses them here. Every folder to be trained goes to
    ``guard.check`` before any is trained, and the training data to ``guard.check_input``;
    ``profile_size``: ``"small"`` trains the ``gpu`` profile at its small sizes (:func:`pearl.training.profiles.config_for`).
    """
    from ..training.methods import inputs_for
    from ..training.profiles import load_training_data, train_and_export

    root = paths.output_root() if root is None else Path(root)
    seeds_of = (lambda r: seeds[r.name]) if isinstance(seeds, Mapping) else (lambda r: seeds)
    plan = [(r, s, *_keyed(r, s, profile, overrides, profile_size)) for r in recipes for s in seeds_of(r)]
    pending = [(r, s, profile, overrides, guard, profile_size, root)
               for r, s, _, _, key in plan if not _reusable(r.folder(s, root), key)]
    guard.check([recipe.folder(seed, root) for recipe, seed, *_ in pending])  # every folder before any is trained
    if workers_.usable(workers) > 1 and len(pending) > 1:  # then the loop below finds them trained
        workers_.each(_train_one, _worker_order(pending), workers, log,
                      done=lambda _, name: f"trained {name} ({profile} profile, in a worker process)")
    out, loaded = {r.name: [] for r in recipes}, {}
    for recipe, seed, cfg_s, data, key in plan:
        folder = recipe.folder(seed, root)
        out[recipe.name].append(folder)
        if _reusable(folder, key):
            log(f"reuse {folder.name}")
            continue
        run_dir = paths.models_dir("runs", folder.name, root=root)
        marker = run_dir / "recipe.json"
        if run_dir.exists() and (not marker.is_file() or json.loads(marker.read_text()) != key):
            shutil.rmtree(run_dir)  # checkpoints of another recipe: start afresh
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json(marker, key)
        data_key = json.dumps(data, sort_keys=True)
        if data_key not in loaded:
            loaded[data_key] = load_training_data(**data, guard=guard)
        corpus, negs, lexicons = loaded[data_key]
        # the method's phrases (Phrase-BERT and PAUSE: those with a paraphrase or synonym) and positives
        rows, augmenter = inputs_for(cfg_s, _subset(corpus, recipe.phrase_share), lexicons, *recipe.augment)
        log(f"train {folder.name} ({profile} profile)")
        # replace: a folder here holds another recipe's model (or a cut one), which this run supersedes
        train_and_export(cfg_s, rows, negs, augmenter, folder, run_dir=run_dir, progress=progress,
                         extra={"recipe": key, "profile": profile, "profile_size": profile_size}, guard=guard, replace=True)
    return out


def run_log(folder: str | Path):
    """The training log (step, loss parts, lr) of a trained folder, from its run directory."""
    import pandas as pd

    return pd.read_csv(paths.models_dir("runs", Path(folder).name, "log.csv"))


def run_summary(folder: str | Path, seed: int) -> dict:
    """One row per trained folder, from its ``pearl.json`` and training log (read once each):
    steps done (the log's rows), training seconds, phrases/s, first and last (20-step mean)
    loss, the batch size and the phrase views (steps done x batch size)."""
    info = json.loads((Path(folder) / "pearl.json").read_text())
    log = run_log(folder)
    steps, seconds = len(log), info.get("train_seconds", float("nan"))
    batch = info["train_config"]["batch_size"]
    views = int(steps * batch)
    return {"seed": seed, "folder": str(folder), "steps": steps, "train_s": seconds,
            "phrases_per_s": round(views / max(seconds, 1e-9), 1),
            "first_loss": round(float(log["loss"].iloc[0]), 3),
            "last_loss": round(float(log["loss"].tail(20).mean()), 3),
            "batch_size": int(batch), "views": views}
