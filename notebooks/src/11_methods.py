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
#    (`pearl.corpus.diversity`). It reads the corpus and augmentation lexicons of notebooks 01–02.
# 2. **Training and scoring** each method over seeds, and PAUSE's label efficiency
#    (1, 5, 10, 30, 100 % of the positive pairs labelled), through the experiment runner
#    (`pearl.experiments.runner`), scored on the sweep suite.
#
# `make methods` runs it, apart from `make reproduce`: with its models (its record's
# `wall_time_s` says how long they took) the cpu profile's batch would no longer fit in 3 hours.
# Notebook 12 reads its results file (`results/11_methods.json`) for §5.1's claims.

# %% tags=["parameters"]
SMOKE: bool = False
PROFILE: str = "cpu"
SEEDS: list = [0, 1, 2, 3, 4, 5]  # six: the claims ledger's plan for C05 (PEARL against the best other method)
METHODS: list = ["pearl", "simcse", "phrase_bert", "pause"]
LABEL_SHARES: list = [0.01, 0.05, 0.1, 0.3, 1.0]
LABEL_SEEDS: list = [0, 1, 2]  # seeds of the PAUSE runs with part of the pairs labelled
DIVERSITY_PHRASES: int = 5000  # corpus phrases drawn for the lexical-diversity table
SEED: int = 0
WORKERS: int = 2  # models trained / scored side by side, in one-thread processes (1: in this kernel)

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("11_methods", globals(), __annotations__)

from pearl import models
from pearl.corpus import diversity as lexical
from pearl.corpus.augment import load_lexicons
from pearl.corpus.store import read_corpus
from harness.outputs import save_figure, save_table
from pearl.training.methods import positive_kinds, positive_samples

scale = run.scale
DIVERSITY_PHRASES = run.resolve(DIVERSITY_PHRASES=scale.smoke_or(DIVERSITY_PHRASES, 300))
WORKERS = run.resolve(WORKERS=scale.workers(WORKERS))

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
    lexicons = load_lexicons()
    phrases = lexical.sample_phrases(corpus, DIVERSITY_PHRASES, seed=SEED)
    samples = positive_samples(phrases, lexicons, seed=SEED, methods=positive_kinds(METHODS))
with run.timer("diversity"):
    diversity = lexical.diversity_table(samples)
save_table(diversity.round(3).reset_index(), "methods_lexical_diversity", smoke=scale.smoke)
diversity.round(3)

# %% [markdown]
# A few phrases and the positive each method trains on (phrases that Phrase-BERT and PAUSE
# keep, i.e. that have a paraphrase or synonym):

# %%
lexical.examples(samples, phrases, last=METHODS[-1])

# %% [markdown]
# ## 2 · Four methods, one trainer, one benchmark
#
# Each method trains with the same profile, backbone, corpus (the phrases of notebook 03;
# Phrase-BERT and PAUSE keep those with a paraphrase or synonym) and step budget, for every
# seed (`pearl.experiments.runner.train_models`: models already trained by the same recipe
# are reused, PEARL's are notebook 03's). Every model and the untrained backbone are scored
# on the sweep suite (see notebook 08) and on Table 2's short-text classification at sweep
# size (Table 2's tasks, `pearl.benchmark.tasks.SUITES`: frozen vectors, an MLP, 10 classifier seeds, but 5,000 texts of
# each Twitter set instead of 10,000 and 20,000, ATIS whole: `pearl.benchmark.short_text.SWEEP`;
# the last column is the mean accuracy over the four sets). A method's row is mean ± std over training seeds, and a
# difference from PEARL is starred when Welch's t over seeds (the claims ledger's test) gives p < 0.05.

# %%
import pandas as pd
from IPython.display import display

from pearl.experiments import curves, runs, tables
from pearl.benchmark.tasks import SUITES
from pearl.benchmark.scoring import run_models
from pearl.experiments.runner import recipes_for_methods, train_models

profile, size = run.resolve(PROFILE=scale.scaled(PROFILE)), scale.scaled("sweep")  # pearl's "tiny" in a SMOKE run
seeds, methods = run.resolve(SEEDS=scale.subset(SEEDS), METHODS=scale.subset(METHODS))
recipes = recipes_for_methods(methods)
with run.timer("train"):
    train_models(list(recipes.values()), seeds, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)  # several recipes named ""
    folders = runs.recipe_folders(recipes, seeds)
with run.timer("score"):
    scores = run_models({"backbone": ["minilm"], **folders}, size=size, workers=WORKERS)
with run.timer("short_text"):
    short = run_models({"backbone": ["minilm"], **folders}, size=size, datasets=SUITES["table2"], workers=WORKERS)
groups = tables.add_short_text(tables.group_frame(scores), short)
comparison = tables.compare(groups, reference="pearl", columns=[*tables.COLUMNS, tables.SHORT_TEXT])
labels = {"backbone": "untrained backbone (all-MiniLM-L6-v2)", **models.method_labels(methods)}
md = tables.wide_markdown(comparison, labels, header=f"Methods on one trainer ({profile} profile, MiniLM backbone, "
                          f"{len(seeds)} seeds; the five groups and their Average on the {size} benchmark, "
                          f"short text = mean accuracy over Table 2's four sets at {size} size; "
                          f"arrows against PEARL)")
save_table(comparison, "methods", markdown=md, smoke=scale.smoke)
display(md)  # a pearl.tabular.Table shows as its Markdown

# %% [markdown]
# ## 3 · PAUSE's label efficiency
#
# PAUSE trained with 1, 5, 10, 30 and 100 % of its positive pairs labelled (the rest count as
# unlabeled), scored like the methods above: the Table-1 average of the sweep suite against
# the labelled share. Each partly labelled share has the seeds of `LABEL_SEEDS`, so that the
# claims ledger (C26, PAUSE §4.1 on 10 % of the labels) compares seeds with seeds; the band is
# PAUSE's seed std with every positive pair labelled.

# %%
from pearl.display.figure5 import plot_label_efficiency

shares = curves.label_shares(LABEL_SHARES, scale.smoke_or(None, 1))
label_seeds = run.resolve(LABEL_SEEDS=scale.smoke_or(LABEL_SEEDS, seeds[:1]))
with run.timer("train_labels"):
    pause = curves.pause_recipes(shares)
    trained = train_models(list(pause.values()), label_seeds, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)
    label_folders = curves.by_share(trained, pause)
with run.timer("score_labels"):
    label_scores = tables.group_frame(run_models(label_folders, size=size, workers=WORKERS))
curve = curves.label_curve(label_scores, groups)  # PAUSE at 100 %: section 2's models
fig = plot_label_efficiency(curve[["share", "average"]])
save_figure(fig, "figure_pause_labels", smoke=scale.smoke)

# %%
noise = {"seed_std_average": tables.seed_std(groups), "beyond_noise_vs_pearl": tables.beyond_noise(comparison),
         "seed_std_short_text": tables.seed_std(groups, tables.SHORT_TEXT),
         "short_text_beyond_noise_vs_pearl": tables.beyond_noise(comparison, tables.SHORT_TEXT)}
run.save(metrics={"lexical_diversity": diversity.to_dict(orient="index"), **noise,
                  "table": comparison.to_dict("records"), "models": groups.to_dict("records"),
                  "short_text": pd.DataFrame(short)[["group", "model", "dataset", "score", "std"]].to_dict("records"),
                  "label_efficiency": curve[["share", "model", "average"]].to_dict("records")},
         data_sources={"phrases": "data/derived/phrases.tsv (01_data_building)",
                       "tables": "data/derived/augment/*.json (02_augmentation)",
                       "method_labels": models.method_labels(METHODS)})
