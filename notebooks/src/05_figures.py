# %% [markdown]
# # 05 · Figures 1 and 4: ranking entity names, and seeing entity types
#
# **Figure 1** (the paper's opening example): the query *The New York Times* against three
# aliases of the same entity and two different entities. A good phrase encoder ranks all
# three aliases first. We add a few cases of the same kind (typos, acronyms, same surface
# but different type), shipped in `lib/pearl/ranking_cases.json`.
#
# **Figure 4**: 100 entity names for each of six YAGO 4 types, projected with t-SNE and UMAP.
# *Stand-in:* YAGO 4 is not available offline, so the names come from the AutoFJ tables
# (DBpedia classes) mapped to the same six types (`pearl.display.figure4.YAGO_GROUPS`, Wikipedia
# disambiguators such as "(magazine)" stripped). Beyond the picture we report what the eye
# sees: the silhouette score and a 5-fold kNN (k=10) type accuracy, in the full embedding
# space and in each projection. `zero_vectors` counts names a model cannot see at all
# (averaged GloVe: every word out of its vocabulary, e.g. most drug names); they embed as
# zero vectors, which t-SNE scatters around the edge of the plot.
#
# Models: averaged GloVe and MiniLM (baselines) and every trained PEARL model found under
# `models/pearl-*`.

# %% tags=["parameters"]
SMOKE: bool = False
MODELS: list = []  # empty: averaged GloVe, MiniLM and every trained PEARL model
N_PER_GROUP: int = 100  # names per YAGO type (the paper: 100)
PROJECTIONS: list = ["tsne", "umap"]
SEED: int = 0

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("05_figures", globals(), __annotations__)

from IPython.display import display

from pearl.display import figure1, figure4
from pearl.models import load_labelled
from harness.outputs import save_figure, save_table

scale = run.scale
N_PER_GROUP = run.resolve(N_PER_GROUP=scale.smoke_or(N_PER_GROUP, 10))

with run.timer("load_models"):
    names = MODELS or figure1.default_models(guard=scale.guard)  # a full-size figure refuses a SMOKE model
    models = load_labelled(names)
print("models:", list(models))

# %% [markdown]
# ## Figure 1 — which model ranks all aliases first?

# %%
with run.timer("figure1"):
    cases = figure1.ranking_cases()
    fig1_table = figure1.figure1_table(models, cases)
save_table(fig1_table, "figure1", markdown=figure1.figure1_markdown(fig1_table), smoke=scale.smoke)
fig1 = figure1.plot_figure1(fig1_table)
save_figure(fig1, "figure1", smoke=scale.smoke)
display(figure1.figure1_markdown(fig1_table))  # a pearl.tabular.Table shows as its Markdown

# %% [markdown]
# ## Figure 4 — entity types in t-SNE and UMAP

# %%
with run.timer("figure4"):
    sample = figure4.type_sample(N_PER_GROUP, seed=SEED)
    fig4_table, projections = figure4.figure4_data(models, sample, methods=PROJECTIONS, seed=SEED)
save_table(fig4_table.round(4), "figure4", smoke=scale.smoke)
fig4 = figure4.plot_figure4(projections, figure4.sample_groups(sample), fig4_table)
save_figure(fig4, "figure4", smoke=scale.smoke)
fig4_table.round(3)

# %%
metrics = {
    **figure1.figure1_metrics(fig1_table, cases, models),
    "figure4": fig4_table.round(4).to_dict(orient="records"),
    "figure4_names": len(sample),
}
print("wrote", run.save(metrics, models=names))
