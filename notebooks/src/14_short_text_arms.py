# %% [markdown]
# # 14 · Short texts beyond Table 2: the character arms (§6) and E5's stand-in
#
# Notebook 07 scores MiniLM and its PEARL seeds on Table 2's four short-text sets (Twitter-S/L,
# ATIS-S/L). Two sentences of the paper ask for more models on the same sets:
#
# - §6: "Adding character-level support to language models appears crucial to success on short
#   texts." The full recipe and the Table-3 arms without the character encoder or without the
#   character augmentation (`ARMS`, notebook 08's models) are scored on the four sets and
#   compared by Welch's t over seeds (the claims ledger's test).
# - §5.1 compares PEARL-small with E5-small on Table 2: "there is no statistical difference
#   compared to other sentence models like SimCSE (BERT-unsup) and E5", and "our model brings a
#   benefit on very short texts (Twitter-S and ATIS-S)". Here each backbone of `BACKBONES`
#   (me5-small, the offline stand-in for E5-small) and its PEARL seeds (notebook 09's models) are
#   scored the same way, so the claims ledger tests these sentences on the less favourable
#   stand-in too.
#
# Every model goes through notebook 07's classifier protocol (`pearl.benchmark.short_text`), on
# Table 2's sets at full size. Models already trained by notebooks 08 and 09 are reused (same
# recipe, same key); missing ones are trained first, with the same profile and seeds.
#
# `make short-text` runs it, apart from `make reproduce`: with it the cpu profile's batch would no
# longer fit in 3 hours (its record's `wall_time_s` says how long it took). Notebook 12 reads its
# results file (`results/14_short_text_arms.json`) for the claims above.

# %% tags=["parameters"]
SMOKE: bool = False
PROFILE: str = "cpu"
SEEDS: list = [0, 1, 2]
ARMS: list = ["no-char-encoder", "no-char-aug"]  # Table-3 arms scored beside the full recipe
BACKBONES: list = ["me5-small"]  # Table-4 backbones scored with their PEARL seeds (E5-small's stand-in)
THREADS: int = 0  # torch CPU threads (0 for torch's default)
WORKERS: int = 2  # models trained / scored side by side, in one-thread processes (1: in this kernel)

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("14_short_text_arms", globals(), __annotations__)

from pearl.benchmark.scoring import run_model_sets
from pearl.benchmark.table import TABLE2, tidy
from pearl.benchmark.tasks import SUITES
from pearl.experiments import backbones as table4, runs, tables
from pearl.experiments.runner import ablation_recipes, train_models
from harness.outputs import save_table

scale = run.scale
profile, size = run.resolve(PROFILE=scale.scaled(PROFILE)), scale.scaled("full")  # pearl's "tiny" in a SMOKE run
seeds, WORKERS = run.resolve(SEEDS=scale.subset(SEEDS), WORKERS=scale.workers(WORKERS))
arms, backbones = run.resolve(ARMS=scale.subset(ARMS, 1), BACKBONES=scale.smoke_or(BACKBONES, ["minilm.l0"]))
sources, recipes = table4.recipes(backbones, table4.phrase_share(None, profile))  # notebook 09's recipes

# %% [markdown]
# ## The models (notebook 08's and 09's, trained here only if missing)

# %%
with run.timer("train"):
    arm_folders = train_models(ablation_recipes(arms), seeds, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)
    train_models(list(recipes.values()), seeds, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)
    backbone_folders = runs.recipe_folders(recipes, seeds)
runs.trained_names({**arm_folders, **backbone_folders})

# %% [markdown]
# ## Score them on Table 2's four sets, with the untrained backbones

# %%
with run.timer("score"):
    scored = run_model_sets({"arms": arm_folders, "pearl": backbone_folders, "originals": runs.as_groups(sources)},
                            size=size, datasets=SUITES["table2"], threads=THREADS, workers=WORKERS)  # one pool for all

# %% [markdown]
# ## The character arms on Table 2's short texts (§6)
#
# One row per arm: the mean accuracy over the four sets, mean ± std over seeds, and its
# difference from the full recipe (the empty recipe name), starred when it exceeds the seed noise.

# %%
arm_models = tables.short_text_frame(scored["arms"])
arm_comparison = tables.compare(arm_models, reference="", columns=[tables.SHORT_TEXT])
arm_comparison

# %% [markdown]
# ## E5's stand-in on Table 2's short texts (§5.1)
#
# Per set and on average: the untrained backbone's accuracy, PEARL's mean and std over seeds,
# and the gain.

# %%
backbone_models, backbone_originals = tidy(scored["pearl"], TABLE2), tidy(scored["originals"], TABLE2)
backbone_table = table4.short_text_gains(backbone_models, backbone_originals)
save_table(backbone_table.round(3), "table4_short_text", smoke=scale.smoke)
backbone_table.round(2)

# %%
path = run.save(metrics={"arms": arm_comparison.to_dict("records"), "arm_models": arm_models.to_dict("records"),
                         "backbone_gains": backbone_table.to_dict("records"),
                         "backbone_models": backbone_models.to_dict("records"),
                         "backbone_originals": backbone_originals.to_dict("records")})
print("wrote", path)
