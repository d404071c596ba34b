# %% [markdown]
# # 08 · Ablations (paper Table 3)
#
# The paper removes one part of PEARL at a time and reports the five task groups of the
# benchmark: paraphrase classification (PPDB, PPDB-filtered), phrase similarity (Turney, BIRD),
# entity retrieval (YAGO, UMLS), entity clustering (CoNLL-03, BC5CDR) and fuzzy join (AutoFJ).
# The six variants: − phrase augmentation, − entity type (the phrase-type head), − token
# augmentation, − hard negatives, − character encoder, − character augmentation. A seventh, −
# all augmentations (the positive is then the phrase itself under another dropout mask), is not
# a row of the paper's table but tests §5.2's sentence "Removing all augmentations results in an
# average drop of 2.4 percentage points"; it has no paper row under it. It is an extra arm
# (`EXTRA_ABLATIONS`): `make extras` trains it (`EXTRAS=True`), `make reproduce` does not, to
# stay within its time.
#
# Each variant is trained with the same profile and seeds as notebook 03 (whose full-recipe
# models it reuses) and on the same phrases: without hard negatives the model still trains on
# the phrases that have them, so only the negatives differ. Every model is scored on the
# **sweep suite** (`pearl.benchmark.tasks`: the nine tasks with seeded samples of the retrieval
# queries, each searched in a pool of its gold names and hardest candidates,
# `pearl.benchmark.pools`; its scores compare models with each other, they are not Table 1's
# numbers, and `perf/sweep_agreement.py` measures how far they sit from them).
#
# A difference from the full recipe is marked ↑ / ↓, and starred when it exceeds the seed
# noise: Welch's t over the seeds (`pearl.claims.rule.two_sample`, the claims ledger's test) gives p < 0.05.
#
# The paper's Table 3 (PEARL-small on E5-small, `pearl.benchmark.paper`) stands under each of our
# rows, with its own arrows: they point down for most removals, but not all (− entity type
# raises phrase similarity and fuzzy join). Notebook 12 reads each of §5.2's statements
# against these rows.
#
# §6's sentence on short texts ("Adding character-level support to language models appears
# crucial to success on short texts") needs the character arms scored on Table 2's short texts:
# notebook 14 (`make short-text`) does that with these models.

# %% tags=["parameters"]
SMOKE: bool = False
PROFILE: str = "cpu"
SEEDS: list = [0, 1, 2]
ABLATIONS: list = ["no-phrase-aug", "no-entity-type", "no-token-aug", "no-hard-negatives", "no-char-encoder",
                   "no-char-aug"]
EXTRA_ABLATIONS: list = ["no-all-aug"]  # beyond the paper's Table 3: trained when EXTRAS (make extras)
EXTRAS: bool = False
# beyond SEEDS, for single arms ("" the full recipe), when EXTRAS: the runs that the claims' power plan
# (notebook 12: n_decide in results/claims.csv) says decide a claim in a few runs, added a sitting at a
# time; these are C18's (the full recipe and − token augmentation)
EXTRA_SEEDS: dict = {"": [3, 4, 5, 6, 7, 8], "no-token-aug": [3, 4, 5, 6, 7, 8]}
SIZE: str = "sweep"  # the benchmark's size: "sweep" (the sweep suite) or "full" (Table 1's)
THREADS: int = 0  # torch CPU threads (0 for torch's default)
WORKERS: int = 2  # models trained / scored side by side, in one-thread processes (1: in this kernel)

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("08_ablations", globals(), __annotations__)

from IPython.display import display

from pearl.experiments import paper_beside, runs, tables
from pearl.benchmark.scoring import run_models
from pearl.experiments.runner import ABLATION_LABELS, ablation_recipes, arm_seeds, seeds_text, train_models
from harness.outputs import save_table

scale = run.scale
profile, size = run.resolve(PROFILE=scale.scaled(PROFILE), SIZE=scale.scaled(SIZE))  # pearl's "tiny" in a SMOKE run
arms = ABLATIONS + (EXTRA_ABLATIONS if EXTRAS else [])
ablations, seeds = run.resolve(ABLATIONS=scale.subset(arms, 1), SEEDS=scale.subset(SEEDS))
WORKERS = run.resolve(WORKERS=scale.workers(WORKERS))
per_arm = arm_seeds(["", *ablations], seeds, scale.smoke_or(EXTRA_SEEDS if EXTRAS else {}, {}))

# %% [markdown]
# ## Train the full recipe and each variant (reused when already trained)

# %%
with run.timer("train"):
    folders = train_models(ablation_recipes(ablations), per_arm, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)
runs.trained_names(folders)

# %% [markdown]
# ## Score every model, then compare each variant with the full recipe

# %%
with run.timer("score"):
    scores = run_models(folders, size=size, threads=THREADS, workers=WORKERS)
groups = tables.group_frame(scores)
comparison = tables.compare(groups, reference="")
md = paper_beside.table3_markdown(comparison, ABLATION_LABELS,
                                  header=f"Table 3 re-run ({profile} profile, {seeds_text(per_arm, ABLATION_LABELS)}, {size} benchmark)")
save_table(comparison, "table3", markdown=md,
           latex=paper_beside.table3_latex(comparison, ABLATION_LABELS, caption=paper_beside.TABLE3_CAPTION), smoke=scale.smoke)
display(md)  # a pearl.tabular.Table shows as its Markdown

# %% [markdown]
# ## Which differences exceed the seed noise?
#
# The pooled seed std of the average is the noise level; the arrows' count says how many
# ablations lower the average, as the paper's claim (each part helps) predicts.

# %%
summary = tables.ablation_summary(comparison, groups, reference="")
summary

# %%
path = run.save(metrics={**summary, "table": comparison.to_dict("records"), "models": groups.to_dict("records")})
print("wrote", path)
