# %% [markdown]
# # 06 · The similarity explorer (teaching)
#
# Type a query: the candidates are ranked by cosine similarity, one table per model, side by
# side, updated as you type (debounced, every phrase encoded once and cached). Candidates
# are typed one per line, or found as the query's nearest neighbours among AutoFJ entity
# names (a faiss index). The second tab applies PEARL's character / token / phrase
# augmentations to the query and shows how far each variant moves (cosine to the query):
# a model trained with PEARL's objective should keep typos and paraphrases close.
#
# **Before and after training.** `MODELS_PRESET = "raw-lm"` swaps MiniLM (already a sentence
# encoder) for `mlm-wiki`, a small masked LM pretrained here on Wikipedia (the stand-in for a
# raw language model such as BERT), beside its PEARL and SimCSE models (seed 0, trained by
# notebook 09): a query's neighbours before any contrastive training, and after each method.
#
# **Running it.** Live in Jupyter or served as an app: `make explorer`, or
# `voila notebooks/06_explorer.ipynb` (with `INTERACTIVE=True`, the default). Its first line says
# which models it found: without a PEARL model it shows MiniLM alone, and `make model` trains one. Batch runs
# (`make reproduce`, which passes `-p INTERACTIVE False`, and every `SMOKE=True` run) render
# a static snapshot instead and measure the update latency into `results/06_explorer.json`.

# %% tags=["parameters"]
SMOKE: bool = False
INTERACTIVE: bool = True  # live widgets; False (and SMOKE) -> static snapshot + latency measurement
MODELS: list = []  # empty: the preset's models
MODELS_PRESET: str = "minilm"  # "minilm" (MiniLM and its PEARL models) or "raw-lm" (mlm-wiki before and after)
QUERY: str = "The New York Times"
CANDIDATES: list = ["nytimes.com", "NYTimes", "New-York Daily Times", "New York Post", "New York"]
VOCAB_SIZE: int = 3000  # AutoFJ names in the nearest-neighbour vocabulary
LATENCY_CANDIDATES: int = 50
SEED: int = 0

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("06_explorer", globals(), __annotations__)

from IPython.display import display

from pearl.display import explorer, similarity
from pearl.encode import quiet_loading
from pearl.models import load_labelled

scale = run.scale
STATIC = scale.smoke or not INTERACTIVE
VOCAB_SIZE = run.resolve(VOCAB_SIZE=scale.smoke_or(VOCAB_SIZE, 300))

quiet_loading()  # transformers' own "Loading weights" bars would show on the page
with run.timer("build_app"):
    names = MODELS or explorer.preset_models(MODELS_PRESET)
    models = load_labelled(names)
    vocabulary = similarity.autofj_vocabulary(VOCAB_SIZE, seed=SEED)
    variants = similarity.QueryVariants(seed=SEED)
    app = explorer.Explorer(models, QUERY, CANDIDATES, vocabulary=vocabulary, augment=variants)
print(explorer.models_line(names, MODELS_PRESET))
print(explorer.summary_line(vocabulary, variants))

# %%
display(app.view(static=STATIC))

# %% [markdown]
# ## Update latency
# Time of one update for a changed query, with the default backbone (MiniLM) only and
# `LATENCY_CANDIDATES` AutoFJ names as candidates, already cached: the query and its
# augmentation variants are encoded afresh each time, as when the user types a character.
# The debounce wait (`debounce_s` of `pearl.display.explorer.Explorer`) and the browser's drawing come on top. Batch runs only.

# %%
path = explorer.latency_study(run, app, models, vocabulary, variants, LATENCY_CANDIDATES,
                              repeats=scale.smoke_or(3, 1), static=STATIC)
