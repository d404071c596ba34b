# %% [markdown]
# # 11 · PEARL and its neighbours: SimCSE, Phrase-BERT, PAUSE
#
# The paper compares PEARL with methods that learn phrase or sentence embeddings from other
# positives and other objectives. Here each is an objective of the **same trainer**
# (`pearl.training.train`, `TrainConfig.objective`), on the same corpus and backbone
# (all-MiniLM-L6-v2, standing in for the paper's E5), so that only the method differs:
#
# | method | positive of a phrase $p$ | objective |
# |---|---|---|
# | PEARL (`pearl`) | a character-, token- or phrase-level augmentation | InfoNCE ($\tau = 0.07$) + phrase-type loss, character part, weight averaging |
# | SimCSE (`simcse`, Gao et al. 2021) | $p$ itself under another dropout mask | $-\log \frac{e^{s(h_i, h_i')/\tau}}{\sum_j e^{s(h_i, h_j')/\tau}}$, $\tau = 0.05$, in-batch negatives |
# | Phrase-BERT (`phrase_bert`, Wang et al. 2021) | a paraphrase or a one-token synonym substitution | triplet loss $\max(0, d(a, p) - d(a, n) + 1)$, Euclidean $d$, a mined hard negative $n$ |
# | PAUSE (`pause`, Cao et al. 2021) | the same pairs, a share of them labelled | $\mathcal{L}_{\text{sup}} + (t/T)^{3}\, \mathcal{R}_{\text{nnPU}}$ over in-batch pairs, class prior $\pi$ |
#
# The neighbours train the phrase encoder alone (no character part, no type head: those are
# PEARL's). Which form of each loss, and why, is written in `pearl.training.loss`; what each
# trains on in `pearl.training.methods`.
#
# This notebook has two parts:
#
# 1. **Lexical diversity of the positives** each method trains on (and each of PEARL's
#    augmentation levels alone), with Phrase-BERT's three measures: share of new tokens,
#    longest-common-subsequence ratio, normalised Levenshtein distance
#    (`pearl.corpus.diversity`). It reads the corpus and augmentation tables of notebooks 01–02.
# 2. **Training and scoring** each method over seeds, and PAUSE's label efficiency
#    (1, 5, 10, 30, 100 % of the positive pairs labelled), through the experiment runner.

# %% parameters
SMOKE: bool = False
PROFILE: str = "cpu"
SEEDS: list = [0, 1, 2]
METHODS: list = ["pearl", "simcse", "phrase_bert", "pause"]
LABEL_SHARES: list = [0.01, 0.05, 0.1, 0.3, 1.0]
DIVERSITY_PHRASES: int = 5000  # corpus phrases drawn for the lexical-diversity table
SEED: int = 0

# %%
# the parameters above, checked against their types (a list passed with -p fails here)
from pearl.provenance import check_params

check_params(globals(), __annotations__)

import numpy as np
import pandas as pd

from pearl import models
from pearl.corpus.augment import load_tables
from pearl.corpus.diversity import lexical_diversity
from pearl.corpus.phrases import read_corpus
from pearl.provenance import Run, save_table
from pearl.training.methods import PEARL_LEVELS, method_recipes, positive_samples

if SMOKE:
    DIVERSITY_PHRASES = 300
run = Run("11_methods", dict(SMOKE=SMOKE, PROFILE=PROFILE, SEEDS=SEEDS, METHODS=METHODS, LABEL_SHARES=LABEL_SHARES,
                             DIVERSITY_PHRASES=DIVERSITY_PHRASES, SEED=SEED))

# %% [markdown]
# ## 1 · Lexical diversity of the positives
#
# One positive per phrase, drawn as the trainer draws it, for a seeded sample of corpus
# phrases: PEARL with one augmentation level alone (`pearl:char`, `pearl:token`,
# `pearl:phrase`: a phrase the level cannot change keeps itself, as in training) and with
# all three; SimCSE (the phrase itself); Phrase-BERT and PAUSE (the phrases that have a
# paraphrase or a WordNet synonym substitution, with one of them). Case is ignored.
# `identical` is the share of positives equal to their phrase.

# %%
with run.timer("positives"):
    corpus = read_corpus()
    tables = load_tables()
    pick = np.random.default_rng(SEED).choice(len(corpus), min(DIVERSITY_PHRASES, len(corpus)), replace=False)
    phrases = [corpus[i][0] for i in sorted(pick)]
    names = [n for n in PEARL_LEVELS if n != "pearl"] + METHODS
    samples = positive_samples(phrases, tables, seed=SEED, methods=names)
with run.timer("diversity"):
    diversity = pd.DataFrame({name: lexical_diversity(pairs) for name, pairs in samples.items()}).T
diversity.index.name = "positives"
diversity["pairs"] = diversity["pairs"].astype(int)
save_table(diversity.round(3).reset_index(), "methods_lexical_diversity", smoke=SMOKE)
diversity.round(3)

# %% [markdown]
# A few phrases and the positive each method trains on (phrases that Phrase-BERT and PAUSE
# keep, i.e. that have a paraphrase or synonym):

# %%
kept = dict(samples[METHODS[-1]]) if METHODS[-1] in ("phrase_bert", "pause") else {}
show = [p for p in phrases if p in kept][:8] or phrases[:8]
pd.DataFrame({name: [dict(pairs).get(p, "") for p in show] for name, pairs in samples.items()}, index=show)

# %% [markdown]
# ## 2 · Training and scoring (to be wired to the experiment runner)
#
# **Not run yet**: these calls go to `pearl.experiments.runner`, which is being written.
# `train_models(recipes, seeds, profile)` trains every recipe (a name and `TrainConfig`
# overrides; each method's own defaults, such as SimCSE's $\tau = 0.05$, come from
# `pearl.training.recipe.config_for`) for every seed and returns `{recipe name: [folder per
# seed]}`; `score_models(folders, size="sweep")` scores the trained folders on the benchmark.
# The recipes: one per method, and one PAUSE recipe per labelled share below 100 %
# (`pause-labels-5pct`, ...; PAUSE at 100 % is the `pause` recipe).

# %%
from pearl.experiments.runner import score_models, train_models  # being written: see the cell above

recipes = method_recipes(METHODS, LABEL_SHARES)
with run.timer("train"):
    folders = train_models(recipes, SEEDS[:1] if SMOKE else SEEDS, "smoke" if SMOKE else PROFILE)
with run.timer("score"):
    scores = score_models([folder for per_seed in folders.values() for folder in per_seed], size="sweep")
scores

# %%
run.save(metrics={"lexical_diversity": diversity.to_dict(orient="index"),
                  "recipes": [r["name"] for r in recipes],
                  "folders": {name: [str(f) for f in fs] for name, fs in folders.items()}},
         data_sources={"phrases": "data/derived/phrases.tsv (01_data_building)",
                       "tables": "data/derived/augment/*.json (02_augmentation)",
                       "method_labels": {m: models.METHODS[m] for m in METHODS}})
