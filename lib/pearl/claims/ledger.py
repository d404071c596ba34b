"""The paper's claims as data: what each sentence says, the paper's number for it, and which
of our measurements (:mod:`.ours`) answers it.

Each :class:`Claim` quotes its sentence verbatim from its source (``pearl``: the PEARL paper,
``pause`` / ``phrase_bert``: the neighbours whose claims this companion tests; the texts are in
``../shared/papers``). The paper's number is either in the quoted sentence, or the difference
of two printed cells (``cells``: ``(table, model, column)`` pairs, first minus second, from
:mod:`pearl.benchmark.paper`), or a count of Table 3's arrows (``arrows``); a test checks each
against the source. ``measure`` names the function of :mod:`.ours` and its arguments.

What it leaves out: the numbers themselves (:mod:`.ours`) and the verdicts (:mod:`.rule`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

NAN = math.nan
SMALL, BASE, T1_AVG = "PEARL-small", "PEARL-base", "Avg"
MINILM_STANDS_IN = "MiniLM (22M) stands in for E5-small; the cpu profile trains a small fraction of one epoch"


@dataclass(frozen=True)
class Claim:
    id: str
    section: str
    quote: str
    quantity: str
    paper: float  # NaN when the sentence gives a direction only
    measure: tuple = ()  # (function of .ours, *arguments); empty when not testable
    how: str = ""  # how ours is computed, from which results file
    kind: str = "effect"  # effect | no difference | direction | value (see .rule)
    direction: int = 0  # for kind="direction": the claimed sign of ours
    tol: float = NAN  # for kind="value"
    untestable: str = ""  # the reason, when it cannot be tested here
    source: str = "pearl"
    cells: tuple = ()  # ((table, model, column), (table, model, column)): paper = first - second
    arrows: tuple = ()  # (table, model): paper = count of ↓ minus count of ↑ in that row


ABL = "results/08_ablations.json (per-seed group scores); two-sample t-test over seeds, removal − full recipe"
ABL_AVG = ABL + "; our average is the mean of the five groups, the paper's Table 3 Avg is Table 1's nine-dataset average"
METH = "results/11_methods.json (per-seed scores, one trainer, corpus and backbone); two-sample t-test over seeds"
T51 = ("Specifically, PEARL-base improves E5-base by 3.7 absolute percentage points on average and the corresponding "
       "improvement of PEARL-small is 6.1 absolute percentage points.")
T2Q = ("While PEARL is able to outperform other phrase models like Phrase-BERT and UCTopic, there is no statistical "
       "difference compared to other sentence models like SimCSE (BERT-unsup) and E5.")
SHORT = "It is worth mentioning that our model brings a benefit on very short texts (Twitter-S and ATIS-S)."
CHAR_DA = ("We find that character-level augmentation is beneficial mainly for the tasks of entity clustering (-3.3) "
           "and Entity Retrieval (-0.5).")
F5 = "We observe that a learning rate of $3e-5$ and using 2 hard negatives in each batch can yield better phrase embeddings."

CLAIMS = (
    Claim("C01", "§5.1, abstract", T51, "PEARL-small − E5-small, average", 6.1, ("backbone_gain", "minilm", "average"),
          "results/09_backbones.json: PEARL on MiniLM (3 seeds) − untrained MiniLM, sweep-suite average of the five "
          f"groups; one-sample t-test of the seeds against the backbone ({MINILM_STANDS_IN})"),
    Claim("C02", "§5.1", T51, "PEARL-base − E5-base, average", 3.7,
          untestable="no base-size backbone offline (MiniLM stands in for E5-small only); the paper's own rows give "
          "3.1, not 3.7 (pearl/benchmark/paper_slips.csv)"),
    Claim("C03", "§5.1", "We first note that PEARL-base achieves the best performance on average, obtaining the best "
          "score on 6 of 9 datasets.", "PEARL-base best on average (Table 1)", NAN, kind="direction", direction=1,
          untestable="no base-size model, and the paper's competitors (E5, Phrase-BERT, UCTopic checkpoints) are "
          "not offline; C05 compares the methods trained here on one backbone"),
    Claim("C04", "§5.1", "We first note that PEARL-base achieves the best performance on average, obtaining the best "
          "score on 6 of 9 datasets.", "datasets where PEARL-base scores best (of 9)", 6,
          untestable="needs the paper's competitors and its real YAGO/UMLS dictionaries (572K/750K names)"),
    Claim("C05", "§5.1", "Moreover, PEARL-small with 40 million parameters outperforms other competitors, and this "
          "result validates our claim that a small model can obtain competitive results with a big model for short "
          "text representations.", "PEARL-small − best other model, average", 2.0, ("best_other", "average"),
          METH + ": PEARL − the best other of the untrained backbone, SimCSE, Phrase-BERT and PAUSE",
          cells=((1, SMALL, T1_AVG), (1, "E5-base", T1_AVG))),
    Claim("C06", "§5.1, Table 2", T2Q, "PEARL-small − Phrase-BERT, short-text average", 15.6,
          ("method_vs", "phrase_bert", "short-text average"), METH + "; Table 2's four sets, ten classifier seeds each",
          cells=((2, SMALL, "Avg"), (2, "Phrase-BERT", "Avg"))),
    Claim("C07", "§5.1, Table 2", T2Q, "PEARL-small − UCTopic, short-text average", 27.9,
          untestable="UCTopic's checkpoint is not offline and its objective is not implemented here",
          cells=((2, SMALL, "Avg"), (2, "UCTopic", "Avg"))),
    Claim("C08", "§5.1, Table 2", T2Q, "PEARL-small − SimCSE, short-text average (no difference)", 2.2,
          ("method_vs", "simcse", "short-text average"), METH + "; Table 2's four sets", kind="no difference",
          cells=((2, SMALL, "Avg"), (2, "SimCSE", "Avg"))),
    Claim("C09", "§5.1, Table 2", T2Q, "PEARL-small − E5-small, short-text average (no difference)", 1.5,
          ("backbone_gain_short",), "results/11_methods.json: PEARL seeds against the untrained MiniLM (E5's "
          "stand-in), one-sample t-test", kind="no difference", cells=((2, SMALL, "Avg"), (2, "E5-small", "Avg"))),
    Claim("C10", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, Twitter-S", 2.1, ("short_set", "twitter_s"),
          "results/table2.csv: PEARL seeds' Twitter-S accuracy against the untrained MiniLM, one-sample t-test",
          cells=((2, SMALL, "Twitter-S"), (2, "E5-small", "Twitter-S"))),
    Claim("C11", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, ATIS-S", 1.0, ("short_set", "atis_s"),
          "results/table2.csv: PEARL seeds' ATIS-S accuracy against the untrained MiniLM, one-sample t-test",
          cells=((2, SMALL, "ATIS-S"), (2, "E5-small", "ATIS-S"))),
    Claim("C12", "§5.2", "If entity type classification is removed, the average performance decreases by 2.2 "
          "percentage points and drops dramatically for the entity clustering task.", "− entity type, average", -2.2,
          ("ablation", "no-entity-type", "average"), ABL_AVG),
    Claim("C13", "§5.2", "If entity type classification is removed, the average performance decreases by 2.2 "
          "percentage points and drops dramatically for the entity clustering task.", "− entity type, entity clustering",
          -9.2, ("ablation", "no-entity-type", "entity clustering"), ABL,
          cells=((3, "- Entity Type", "entity clustering"), (3, SMALL, "entity clustering"))),
    Claim("C14", "§5.2", "Removing LOVE causes a drop of 0.8 percentage points on average, especially for the "
          "entity-clustering task (-3.2).", "− character encoder, average", -0.8,
          ("ablation", "no-char-encoder", "average"), ABL_AVG),
    Claim("C15", "§5.2", "Removing LOVE causes a drop of 0.8 percentage points on average, especially for the "
          "entity-clustering task (-3.2).", "− character encoder, entity clustering", -3.2,
          ("ablation", "no-char-encoder", "entity clustering"), ABL),
    Claim("C16", "§5.2", CHAR_DA, "− character augmentation, entity clustering", -3.3,
          ("ablation", "no-char-aug", "entity clustering"), ABL),
    Claim("C17", "§5.2", CHAR_DA, "− character augmentation, entity retrieval", -0.5,
          ("ablation", "no-char-aug", "entity retrieval"), ABL),
    Claim("C18", "§5.2", "Token-level augmentations create lexically diverse positive phrases, and removing these "
          "samples degrades performances across all five tasks.", "− token augmentation: groups lowered − groups "
          "raised (of 5)", 5, ("groups_lowered", "no-token-aug"), "results/08_ablations.json: the sign of each "
          "group's mean difference (no test: a count)", arrows=(3, "- Token DA")),
    Claim("C19", "§5.2", "Phrase-level augmentation has the strongest impact on the representation capabilities of "
          "a model.", "− phrase augmentation − the next-lowest ablation, average", -0.2, ("strongest", "no-phrase-aug"),
          ABL + "; against the other ablation with the lowest mean average",
          cells=((3, "- Phrase DA", "average"), (3, "- Entity Type", "average"))),
    Claim("C20", "§5.2", "Removing all augmentations results in an average drop of 2.4 percentage points.",
          "− all augmentations, average", -2.4, untestable="no recipe without all three augmentations was trained "
          "(notebook 08 trains Table 3's six), and the paper's Table 3 has no such row"),
    Claim("C21", "§5.2", "We find that adding hard negatives brings decent improvements (+0.8 on average), "
          "especially considering the nearly zero additional cost of this strategy.", "hard negatives, average gain",
          0.8, ("gain", "no-hard-negatives", "average"), ABL_AVG.replace("removal − full recipe", "full recipe − removal")),
    Claim("C22", "§5.3", "As Figure 4 shows, PEARL can effectively cluster the same types of phrases together.",
          "type silhouette ×100, PEARL − MiniLM (embedding space)", NAN, ("figure4", "silhouette"),
          "results/05_figures.json: silhouette of the six types in the embedding space (deterministic per model), "
          "PEARL seeds against MiniLM, one-sample t-test", kind="direction", direction=1),
    Claim("C23", "§5.4", "Table 4 shows that PEARL consistently obtains significant enhancements, showing that our "
          "method can be generalized to various models.", "smallest gain over the backbones, average", 17.7,
          ("backbone_min_gain",), "results/09_backbones.json: the backbone with the smallest gain (MiniLM, me5-small, "
          "MiniLM's first two layers, its token embeddings), one-sample t-test of its seeds against the untrained encoder",
          cells=((4, "+ PEARL", "BERT"), (4, "Original", "BERT"))),
    Claim("C24", "§5.5", F5, "BIRD at lr 3e-5 − best other lr", NAN, ("hyper", "lr"),
          "results/10_hyperparameters.json: one seed per point; the noise is the full recipe's BIRD seed std "
          "(3 seeds, 2 dof)", kind="direction", direction=1),
    Claim("C25", "§5.5", F5, "BIRD at 2 hard negatives − best other count", NAN, ("hyper", "hard_negatives"),
          "results/10_hyperparameters.json: one seed per point; the noise is the full recipe's BIRD seed std "
          "(3 seeds, 2 dof)", kind="direction", direction=1),
    Claim("C26", "PAUSE §4.1", "Observing the average results of each PAUSE-NLI-base variant, the model trained on "
          "merely 10% of the labels results in a performance about 2% lower than the one relying on all labels.",
          "PAUSE at 10 % labels − all labels, average", -2, ("label_share", 0.1),
          "results/11_methods.json: one seed at 10 % labels against the three fully labelled seeds (their std, 2 "
          "dof); sweep-suite average, not STS", source="pause"),
    Claim("C27", "Phrase-BERT §1", "To combat these issues, we automatically generate a dataset of lexically-diverse "
          "phrasal paraphrase pairs, and we additionally extract a large-scale dataset of 300 million phrases in "
          "context from the Books3 dataset from the Pile (Gao et al., 2020).",
          "LCS ratio ×100 of the positives, Phrase-BERT's − PEARL's", NAN, ("lexical", "lcs_ratio"),
          "results/11_methods.json: longest-common-subsequence ratio of one positive per phrase (lower: more "
          "diverse), deterministic", kind="direction", direction=-1, source="phrase_bert"),
    Claim("C28", "§4.3, Table 1", "String Distance uses the Jaccard similarity of n-gram characters to compare two "
          "strings.", "String Distance on AutoFJ (accuracy)", 64.7, ("value", "char3gram-jaccard", "autofj"),
          "results/table1.csv: character 3-gram Jaccard on the 50 AutoFJ tables (deterministic; agreement within "
          "1 point asked)", kind="value", tol=1.0, cells=((1, "String Distance", "AutoFJ"),)),
)


def by_id() -> dict:
    return {c.id: c for c in CLAIMS}
