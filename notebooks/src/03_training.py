# %% [markdown]
# # 03 · Training PEARL (§3.2–3.4, §4.2)
#
# Fine-tunes a phrase encoder (all-MiniLM-L6-v2 here) with a LOVE-style character encoder and
# a phrase-type head: InfoNCE over the batch (augmented copy as positive, other phrases and
# hard negatives as negatives, temperature 0.07) plus the type cross-entropy; then **weight
# averaging** of the fine-tuned backbone with the original. One model per seed is exported
# to `models/pearl-<backbone>-seed<N>/`, a folder `pearl.models.load_model` reads (the
# benchmark notebook 04 scores every such folder) and `SentenceTransformer` loads (phrase part).
#
# Profiles: `tiny` (tests: the SMOKE run's), `cpu` (default of `make reproduce`: 5 seeds of 150 steps at batch
# 32, the seconds of each in this notebook's record; notebooks 08 and 09 compare the first 3, notebook 07's
# short-text claims use all 5, which they need for power), `gpu` (the paper's scale: 2 epochs, batch 512, lr 3e-5, bf16;
# one seed was trained on a lent H100: `results/gpu/README.md`).
# Any parameter left `None` takes the profile's value (`pearl.training.profiles.PROFILES`).
#
# ## The method in three equations
#
# For a batch of $N$ phrases $p_i$ with augmented copies $p_i^+$ (character, token or phrase
# level, §3.1) and hard negatives $p_{i,1}^-, \dots, p_{i,k}^-$ (§3.4), every phrase is embedded as
# $e = [\,f(p)/\lVert f(p)\rVert \,;\, w\, g(p)/\lVert g(p)\rVert\,]$: the backbone's mean-pooled
# vector $f$ and the character encoder's vector $g$ (weight $w$), concatenated.
#
# **Contrastive loss (InfoNCE, eq. 2)**, temperature $\tau = 0.07$, cosine similarity $s$:
#
# $$\mathcal{L}_{c} = -\frac{1}{N}\sum_{i=1}^{N} \log \frac{\exp(s(e_i, e_i^+)/\tau)}{\sum_{j=1}^{N} \exp(s(e_i, e_j^+)/\tau) + \sum_{m=1}^{k} \exp(s(e_i, e_{i,m}^-)/\tau)}$$
#
# **Phrase-type loss (eq. 3–4)**: a linear head over the embedding predicts the phrase type
# $y_i$ (lexical class × entity type, 95 labels): $\mathcal{L}_{t} = -\frac{1}{N}\sum_i \log \operatorname{softmax}(W e_i + b)_{y_i}$,
# and the model minimises $\mathcal{L} = \mathcal{L}_c + \mathcal{L}_t$.
#
# **Weight averaging (§3.4)**: after training, the backbone's weights are averaged with the
# original ones, $\theta = \alpha\, \theta_{\text{fine-tuned}} + (1-\alpha)\, \theta_{\text{original}}$
# with $\alpha = 0.5$ (`AVERAGE`), which keeps the backbone's general knowledge.
#
# How the cpu profile's settings were chosen, with every tuning run, is in
# `results/tuning/README.md`.

# %% tags=["parameters"]
SMOKE: bool = False
PROFILE: str = "cpu"
BACKBONE: str = "minilm"
STEPS: int = None  # None: the profile's
BATCH_SIZE: int = None
LR: float = None
MAX_PHRASES: int = None  # random subset of the corpus; None: the profile's (all)
SEEDS: list = [0, 1, 2, 3, 4]
DEVICE: str = None  # None: CUDA when present, else CPU
# switches for the ablations (augmentation levels are sampling weights; 0 turns a level off)
CHAR_AUG: float = 1.0
TOKEN_AUG: float = 1.0
PHRASE_AUG: float = 1.0
HARD_NEGATIVES: int = 2  # per phrase; 0 turns them off
TYPE_HEAD: bool = True
CHAR_ENCODER: bool = True
AVERAGE: float = 0.5  # weight of the fine-tuned backbone in weight averaging; 1.0 turns it off
COMPILE: bool = False  # torch.compile (CUDA only)
WORKERS: int = 2  # seeds trained side by side in one-thread processes on a CPU (1: in this kernel)
VARIANT: str = ""  # folder-name tag for a non-default recipe, e.g. "no-char-encoder"; empty for the full recipe

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("03_training", globals(), __annotations__)

import pandas as pd

from pearl.display.data_figures import plot_training_loss
from pearl.experiments import runs
from pearl.experiments.runner import Recipe, train_models
from harness.outputs import refuse_full_stage
from harness.outputs import save_figure
from pearl.training.profiles import config_for, data_summary, given, load_training_data

scale = run.scale
profile = run.resolve(PROFILE=scale.scaled(PROFILE))  # pearl's "tiny" in a SMOKE run: the one switch is SMOKE
seeds, WORKERS = run.resolve(SEEDS=scale.seeds(SEEDS, 1), WORKERS=scale.workers(WORKERS))
# the settings given here (those left None take the profile's)
settings = given(steps=STEPS, batch_size=BATCH_SIZE, lr=LR, device=DEVICE, hard_negatives=HARD_NEGATIVES,
                 use_type_head=TYPE_HEAD, use_char=CHAR_ENCODER, average=AVERAGE, compile=COMPILE,
                 max_phrases=MAX_PHRASES)
recipe = Recipe(name=VARIANT, backbone=BACKBONE, config=settings, augment=(CHAR_AUG, TOKEN_AUG, PHRASE_AUG))
cfg, data_options = config_for(profile, scale.profile_size, backbone=BACKBONE, **recipe.config)
run.resolve(data=data_options, config=cfg.record())
# a SMOKE run stops here when a figure or record it would write is full-size (train_models checks the model folders)
refuse_full_stage(run, figures=["figure2", "training_loss"])
cfg

# %% [markdown]
# ## Training data (from notebooks 01 and 02)

# %%
with run.timer("load_data"):
    corpus, hard_negatives, lexicons = load_training_data(**data_options, guard=scale.guard)  # full size: never a SMOKE corpus
pd.Series(data_summary(corpus, hard_negatives, cfg))

# %% [markdown]
# ## Train one model per seed, export it
#
# `train_models` (`pearl.experiments.runner`) trains each seed and exports it to its folder;
# a folder already trained by the same recipe on the same corpus is reused, and a run that
# was killed resumes from its last checkpoint (a run's checkpoints are deleted once its model is
# exported: with the optimiser's state each is three times the model). On a CPU with `WORKERS = 2`, two seeds train at
# once, each in a process of one torch thread (`pearl.workers`: more phrases a second than one
# two-thread run on 2 cores); on a GPU they train one after another. The ablation, backbone and hyper-parameter
# notebooks (08–10) train through the same call, so they reuse these models.

# %%
with run.timer("train"):
    folders = train_models([recipe], seeds, profile=profile, workers=WORKERS, guard=scale.guard,
                           profile_size=scale.profile_size)[recipe.name]
summary = runs.seed_summaries(folders, seeds)
logs = runs.seed_logs(folders, seeds)
run.time_all(runs.train_times(summary))
summary

# %% [markdown]
# ## Figure 2, from a real batch
#
# The paper's Figure 2 is a diagram of the framework. Here it is drawn from one batch that the
# trainer's own code builds (`pearl.training.batches.Collator`, with this run's augmentation
# levels and hard negatives) and scores (`pearl.training.train.compute_loss`) with the first
# seed's trained model: "The New York Times" (or, when the corpus lacks it, its first phrase with
# hard negatives), the positive each augmentation level draws for it and the one this batch drew,
# its hard negatives and three in-batch phrases with their cosine similarity to it, the type
# labels, and the batch's loss terms (`pearl.display.figure2`).

# %%
import dataclasses

from pearl.display.figure2 import framework_batch, plot_framework

figure2 = framework_batch(dataclasses.replace(cfg, seed=seeds[0]), corpus, hard_negatives, lexicons, folders[0],
                          augment=recipe.augment)
fig = plot_framework(figure2)
save_figure(fig, "figure2", smoke=scale.smoke)
pd.Series(figure2["parts"]).round(4)

# %% [markdown]
# ## Loss log
# Total loss and its two parts (contrastive, eq. 2; phrase type, eq. 3–4), smoothed over 20 steps.

# %%
fig = plot_training_loss(logs)
save_figure(fig, "training_loss", formats=("png",), smoke=scale.smoke)

# %%
path = run.save(metrics={"models": summary.to_dict("records"), "mean_train_s": float(summary["train_s"].mean())})
print("wrote", path)
