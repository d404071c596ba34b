# %% [markdown]
# # 04 · The phrase benchmark (paper Table 1)
#
# Nine tasks, one score each (percent), as in appendix A.1 of the paper:
# PPDB and PPDB-filtered (MLP probe, mean ± std over 3 probe seeds), Turney (accuracy),
# BIRD (Pearson r), YAGO and UMLS entity retrieval (top-1 accuracy), CoNLL-03 and BC5CDR
# entity clustering (NMI) and AutoFJ fuzzy join (accuracy averaged over 50 tables).
# The evaluators live in `pearl.benchmark.evaluate`, the scoring in `pearl.benchmark.scoring`, the table
# logic in `pearl.benchmark.table` (one module for Tables 1 and 2).
#
# **Stand-ins, stated plainly.** The paper's retrieval dictionaries (572K YAGO and 750K UMLS
# names) are not available offline; unless `pearl_benchmark/<name>/<name>_kb.txt` is in the
# data folder, each is rebuilt as *gold names ∪ distractor names from offline sources*
# (`pearl.benchmark.dictionaries`), so those two columns are labelled "rebuilt dictionary" and are not
# comparable with the paper's. GloVe is the 6B **50-d** model, a stand-in for the paper's
# 300-d word-averaging baseline. Character 3-gram Jaccard only gives similarities, so the
# probe and clustering tasks are "n/a" for it.
#
# Trained PEARL models (`models/pearl-*/pearl.json`, written by notebook 03) are picked up
# automatically and reported as one row, mean ± std over seeds, with deltas vs the backbone.
# Which seeds: the `gpu` profile scores all three; the `cpu` profile scores seed 0 alone (the
# paper's Table 1 reports the mean ± std of 3 seeds, but an exact pass over the whole suite is the
# costliest scoring of the batch on 2 cores, and the whole run has three hours; this notebook's
# record holds its `seconds` per model and task). The spread between seeds is measured on the sweep suite by
# notebooks 08 and 09 (Tables 3 and 4, three seeds each).
#
# **The PPDB probe is trained to convergence.** The paper's probe (Adam at lr 1e-4 on the raw
# embeddings, patience 5, at most 100 epochs) stops long before it has learned what the
# embeddings hold. `perf/probe_convergence.py` recorded its learning curves
# (`figures/probe_convergence.png`, `results/perf/probe_convergence.json`). On PPDB-filtered it is
# still rising at epoch 300, and the patience-5 rule stops on an early plateau, far below what a
# probe trained to convergence reaches on the same embeddings (mean of 5 probe seeds; both in the
# record). Under that rule the score measured how fast the probe learns: one PEARL model's three
# probe seeds spread over many points on PPDB-filtered, and the sign of PEARL − MiniLM on the
# paraphrase group disagreed with a convex check (logistic regression on [u, v, |u−v|, u⊙v]).
# So the PPDB columns use the converged probe: standardised inputs, lr 1e-3, patience 10, at
# most 50 epochs. Over 5 probe seeds its std is small, and PEARL − MiniLM has the sign the convex
# check gives on PPDB-filtered and on the group (on PPDB both differences are within noise). One
# criterion is only nearly met: with torch's initialisation instead of Glorot's, the
# PPDB-filtered mean moves by about the tolerance the criteria allow (`criteria` in
# `results/perf/probe_convergence.json` lists each criterion, its target and what was measured). The
# paper's protocol stays in the table as the *paper probe* columns, after Avg and not in it; the
# paper's own rows come from that protocol.

# %% tags=["parameters"]
SMOKE: bool = False
MODELS: list = ["char3gram-jaccard", "glove", "minilm"]
PROFILE: str = "cpu"  # which PEARL seeds Table 1 scores in full: cpu seed 0, gpu seeds 0-2
PEARL_MODELS: str = None  # glob under models/; None: the profile's seeds (profiles.TABLE1_SEEDS); "" for none
THREADS: int = 0  # torch CPU threads when one worker scores (0 for torch's default; 1 when other jobs share the cores)
WORKERS: int = 2  # models scored side by side in one-thread processes (1: one after another in this kernel)
DATASETS: list = ["ppdb", "ppdb_filtered", "turney", "bird", "yago", "umls", "conll", "bc5cdr", "autofj"]
UPDATE: bool = False  # True: replace only these models' rows in the existing results/table1.csv

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("04_benchmark", globals(), __annotations__)

from IPython.display import Markdown, display

from pearl import models
from pearl.benchmark import scoring, table
from pearl.experiments import cards
from pearl.training import profiles

scale = run.scale
WORKERS = run.resolve(WORKERS=scale.workers(WORKERS))
pearl_dirs = profiles.table1_folders(PEARL_MODELS, PROFILE, guard=scale.guard)  # a full-size table refuses a SMOKE model
print("PEARL models found:", models.folder_names(pearl_dirs) or "none")

# %% [markdown]
# ## Score every model on every dataset
#
# Each model is loaded by name through the model registry (`pearl.models.load_model`). Every
# distinct phrase of the nine tasks is encoded once, in one pass sorted by token length, and kept
# in the embedding cache (`pearl.cache`, keyed by a hash of the model's weights): re-running this
# notebook, or notebooks 05 and 06, on an unchanged model encodes nothing again. Then each
# task's evaluator runs on the cached vectors. With `WORKERS = 2` two models are scored at
# once, each in a process of one torch thread (`pearl.workers`; on 2 cores that beats one
# model on two threads).

# %%
names = models.display_names(MODELS, pearl_dirs)
with run.timer("score"):
    rows = scoring.run_models(names, DATASETS, size=scale.scaled("full"), threads=THREADS, workers=WORKERS)

# %% [markdown]
# ## Table 1: the paper's rows, ours, and PEARL's difference from its backbone
#
# `table.report` writes `results/table1.{csv,md,tex}` from this run's rows (with `UPDATE=True`
# it replaces only these models' rows in the existing table).

# %%
tbl, md = table.report(rows, table.TABLE1, models.folder_names(pearl_dirs), update=UPDATE, guard=scale.guard)
cards.update_cards(tbl, scale.smoke_or(pearl_dirs, []))  # each trained folder's model card gets its Table-1 row (not in a SMOKE run)
display(Markdown(md))

# %%
path = run.save(**scoring.table1_record(tbl, rows))
print("wrote", path)
