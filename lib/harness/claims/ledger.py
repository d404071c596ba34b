"""The paper's claims as data: what each sentence says, the paper's number for it, and which
of our measurements (:mod:`.ours`) answers it.

Each :class:`Claim` quotes its sentence verbatim from its source (``pearl``: the PEARL paper,
``pause`` / ``phrase_bert``: the neighbours whose claims this companion tests; the texts are in
``../shared/papers``). The paper's number is either in the quoted sentence, or the difference
of two printed cells (``cells``: ``(table, model, column)`` pairs, first minus second, from
:mod:`pearl.benchmark.paper`), or a count of Table 3's arrows (``arrows``); a test checks each
against the source. ``like`` gives the paper's value on the same datasets and averaging as ours
(weighted printed cells, ``(table, model, column, weight)``: the five-group average where ours is
one), kept beside the printed number. ``measure`` names the function of :mod:`.ours` and its
arguments; ``backbone`` the encoder our number comes from (a claim about E5-small has a row on
MiniLM and one on me5-small, the offline stand-ins). ``margin`` is the equivalence margin of a
claim of no difference or of an effect (its ``scope``, a key of :data:`MARGINS`: never the paper's
printed gap). ``apart`` names why a row does not test the paper's claim (the same test as another
row, or a measurement under a listed deviation): such a row is shown apart, kept out of the
tally and out of its sentence's family. :func:`family` names the family a row's verdict is read
in: one per sentence of the paper (the rows that test it, on every stand-in and metric).

What it leaves out: the numbers themselves (:mod:`.ours`) and the verdicts (:mod:`pearl.claims.rule`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from pearl.benchmark.tasks import GROUPS, TASKS

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
    like: tuple = ()  # ((table, model, column, weight), ...): the paper's value like for like with ours
    backbone: str = "MiniLM"  # the encoder our number comes from
    scope: str = ""  # the key of MARGINS giving its equivalence margin ("": from its measure, see scope())
    apart: str = ""  # why this row does not test the paper's claim ("": it does)


#: Equivalence margins, set before any verdict was read, per kind of quantity: (margin, why). A
#: claim of an effect is reproduced when our estimate is shown within the margin of the paper's
#: value; a claim of no difference when within the margin of 0. They come from the benchmark's own
#: noise and resolution, not from the paper's gaps (a printed gap as margin makes "no difference"
#: all but automatic when the gap is wider than any effect this budget shows).
MARGINS = {
    "average": (1.0, "points on the mean of the five task groups (sweep suite): a few times the pooled seed std of that "
                "average (seed_std_average in results/08_ablations.json and results/11_methods.json), so a difference "
                "inside it is one a rerun with other seeds can produce; the paper prints averages to one decimal"),
    "group": (2.0, "points on one task group's mean: a group averages one or two datasets, and its seed spread "
              "(per recipe in results/08_ablations.json) is several times the five-group average's"),
    "short text": (1.0, "accuracy points on Table 2's sets: a few times one set's spread over the ten classifier seeds "
                   "(the std column of results/table2.csv) and of the paper's own printed stds (its Table 2)"),
    "time": (10.0, "per cent of the training time without hard negatives: timings on a shared two-core machine move "
             "by several per cent from run to run, and a cost under a tenth is what the paper calls nearly zero"),
}


def scope(c: "Claim") -> str:
    """The key of :data:`MARGINS` for ``c``: its own ``scope``, else read from its measure (a task
    group, Table 2's sets, training time, or the five-group average); ``""`` when it has no size."""
    if c.scope or c.kind not in ("effect", "no difference") or not c.measure:
        return c.scope
    fn, args = c.measure[0], c.measure[1:]
    if fn == "hard_negative_cost":
        return "time"
    if fn in ("short_set", "short_set_on", "backbone_gain_short", "short_ablation", "short_minus_long") or \
            "short-text average" in args:
        return "short text"
    return "group" if set(args) & set(GROUPS) else "average"


def five_groups(table: int, a: str, b: str) -> tuple:
    """Weighted cells giving ``a - b`` on the mean of the five task groups (each group the mean of its
    datasets: Table 1's nine columns, or Table 3's five group columns), as our "average" is."""
    if table == 3:
        return tuple((3, m, g, w / len(GROUPS)) for g in GROUPS for m, w in ((a, 1), (b, -1)))
    return tuple((1, m, TASKS[d].column, w / len(GROUPS) / len(ds)) for ds in GROUPS.values() for d in ds
                 for m, w in ((a, 1), (b, -1)))


def mean_of(table: int, a: str, b: str, columns) -> tuple:
    """Weighted cells giving ``a - b`` on the mean of ``columns``."""
    return tuple((table, m, c, w / len(columns)) for c in columns for m, w in ((a, 1), (b, -1)))


ABL = "results/08_ablations.json (per-seed group scores); Welch's t over seeds, removal − full recipe"
ABL_AVG = ABL + "; our average is the mean of the five groups, like the paper's value beside it (its Table 3 Avg is " \
    "Table 1's nine-dataset average)"
ME5 = ("results/09_backbones.json: PEARL on me5-small (3 seeds) − untrained me5-small (multilingual-E5-small, 4-bit "
       "weights dequantised, the offline stand-in for E5-small), sweep-suite average of the five groups")
ME5_SHORT = ("results/14_short_text_arms.json (backbone_models, backbone_originals): PEARL's me5-small seeds against "
             "the untrained me5-small on Table 2's sets, notebook 07's classifier; Welch's t against the backbone's own spread over its ten "
             "classifier seeds")
NO_ME5_SHORT = ("not run here yet: notebook 14 (make short-text, apart from make reproduce) scores me5-small and its "
                "PEARL seeds on Table 2's sets, and this claim reads them from results/14_short_text_arms.json")
ALL_SETS = ("twitter_s", "twitter_l", "atis_s", "atis_l")
SHORT_SETS, LONG_SETS = ("Twitter-S", "ATIS-S"), ("Twitter-L", "ATIS-L")
METH = "results/11_methods.json (per-seed scores, one trainer, corpus and backbone); Welch's t over seeds"
T51 = ("Specifically, PEARL-base improves E5-base by 3.7 absolute percentage points on average and the corresponding "
       "improvement of PEARL-small is 6.1 absolute percentage points.")
T2Q = ("While PEARL is able to outperform other phrase models like Phrase-BERT and UCTopic, there is no statistical "
       "difference compared to other sentence models like SimCSE (BERT-unsup) and E5.")
SHORT = "It is worth mentioning that our model brings a benefit on very short texts (Twitter-S and ATIS-S)."
CHAR_DA = ("We find that character-level augmentation is beneficial mainly for the tasks of entity clustering (-3.3) "
           "and Entity Retrieval (-0.5).")
F5 = "We observe that a learning rate of $3e-5$ and using 2 hard negatives in each batch can yield better phrase embeddings."

SHORT_ABL = ("results/14_short_text_arms.json (arm_models): the arm's seeds and the full recipe's scored on Table 2's "
             "four sets (notebook 07's classifier), mean accuracy; Welch's t over seeds, removal − full recipe")
SHORT_ABL_LATER = ("not run here yet: notebook 14 (make short-text, apart from make reproduce) scores the character arms "
                   "on Table 2's sets, and this claim reads them from results/14_short_text_arms.json")
T4 = ("Table 4 shows that PEARL consistently obtains significant enhancements, showing that our method can be "
      "generalized to various models.")

CLAIMS = (
    Claim("C01", "§5.1, abstract", T51, "PEARL-small − E5-small, average", 6.1, ("backbone_gain", "minilm", "average"),
          "results/09_backbones.json: PEARL on MiniLM (3 seeds) − untrained MiniLM, sweep-suite average of the five "
          f"groups; Welch's t of the seeds against the backbone, an exact number (the sweep suite scores it once, "
          f"with seeded probes: deterministic; {MINILM_STANDS_IN})", like=five_groups(1, SMALL, "E5-small")),
    Claim("C02", "§5.1", T51, "PEARL-base − E5-base, average", 3.7,
          untestable="no base-size backbone offline (MiniLM stands in for E5-small only); the paper's own rows give "
          "3.1, not 3.7 (pearl/benchmark/paper_slips.csv)", backbone="none"),
    Claim("C03", "§5.1", "We first note that PEARL-base achieves the best performance on average, obtaining the best "
          "score on 6 of 9 datasets.", "PEARL-base best on average (Table 1)", NAN, kind="direction", direction=1,
          untestable="no base-size model, and the paper's competitors (E5, Phrase-BERT, UCTopic checkpoints) are "
          "not offline; C05 compares the methods trained here on one backbone", backbone="none"),
    Claim("C04", "§5.1", "We first note that PEARL-base achieves the best performance on average, obtaining the best "
          "score on 6 of 9 datasets.", "datasets where PEARL-base scores best (of 9)", 6,
          untestable="needs the paper's competitors and its real YAGO/UMLS dictionaries (572K/750K names)",
          backbone="none"),
    Claim("C05", "§5.1", "Moreover, PEARL-small with 40 million parameters outperforms other competitors, and this "
          "result validates our claim that a small model can obtain competitive results with a big model for short "
          "text representations.", "PEARL-small − best other model, average", 2.0, ("best_other", "average"),
          METH + ": PEARL − the best other of the untrained backbone, SimCSE, Phrase-BERT and PAUSE",
          cells=((1, SMALL, T1_AVG), (1, "E5-base", T1_AVG)), like=five_groups(1, SMALL, "E5-base")),
    Claim("C06", "§5.1, Table 2", T2Q, "PEARL-small − Phrase-BERT, short-text average", 15.6,
          ("method_vs", "phrase_bert", "short-text average"), METH + "; Table 2's four sets, ten classifier seeds each",
          cells=((2, SMALL, "Avg"), (2, "Phrase-BERT", "Avg"))),
    Claim("C07", "§5.1, Table 2", T2Q, "PEARL-small − UCTopic, short-text average", 27.9,
          untestable="UCTopic's checkpoint is not offline and its objective is not implemented here",
          cells=((2, SMALL, "Avg"), (2, "UCTopic", "Avg")), backbone="none"),
    Claim("C08", "§5.1, Table 2", T2Q, "PEARL-small − SimCSE, short-text average (no difference)", 2.2,
          ("method_vs", "simcse", "short-text average"), METH + "; Table 2's four sets", kind="no difference",
          cells=((2, SMALL, "Avg"), (2, "SimCSE", "Avg"))),
    Claim("C09", "§5.1, Table 2", T2Q, "PEARL-small − E5-small, short-text average (no difference)", 1.5,
          ("backbone_gain_short",), "results/11_methods.json: PEARL seeds against the untrained MiniLM (E5's "
          "stand-in), Welch's t against the backbone's own spread over its ten classifier seeds", kind="no difference", cells=((2, SMALL, "Avg"), (2, "E5-small", "Avg"))),
    Claim("C10", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, Twitter-S", 2.1, ("short_set", "twitter_s"),
          "results/table2.csv: PEARL seeds' Twitter-S accuracy against the untrained MiniLM, Welch's t "
          "against the backbone's own spread over its ten classifier seeds",
          cells=((2, SMALL, "Twitter-S"), (2, "E5-small", "Twitter-S"))),
    Claim("C11", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, ATIS-S", 1.0, ("short_set", "atis_s"),
          "results/table2.csv: PEARL seeds' ATIS-S accuracy against the untrained MiniLM, Welch's t "
          "against the backbone's own spread over its ten classifier seeds",
          cells=((2, SMALL, "ATIS-S"), (2, "E5-small", "ATIS-S"))),
    Claim("C12", "§5.2", "If entity type classification is removed, the average performance decreases by 2.2 "
          "percentage points and drops dramatically for the entity clustering task.", "− entity type, average", -2.2,
          ("ablation", "no-entity-type", "average"), ABL_AVG, like=five_groups(3, "- Entity Type", SMALL)),
    Claim("C13", "§5.2", "If entity type classification is removed, the average performance decreases by 2.2 "
          "percentage points and drops dramatically for the entity clustering task.", "− entity type, entity clustering",
          -9.2, ("ablation", "no-entity-type", "entity clustering"), ABL,
          cells=((3, "- Entity Type", "entity clustering"), (3, SMALL, "entity clustering"))),
    Claim("C14", "§5.2", "Removing LOVE causes a drop of 0.8 percentage points on average, especially for the "
          "entity-clustering task (-3.2).", "− character encoder, average", -0.8,
          ("ablation", "no-char-encoder", "average"), ABL_AVG, like=five_groups(3, "- Character Encoder", SMALL)),
    Claim("C15", "§5.2", "Removing LOVE causes a drop of 0.8 percentage points on average, especially for the "
          "entity-clustering task (-3.2).", "− character encoder, entity clustering", -3.2,
          ("ablation", "no-char-encoder", "entity clustering"), ABL),
    Claim("C16", "§5.2", CHAR_DA, "− character augmentation, entity clustering", -3.3,
          ("ablation", "no-char-aug", "entity clustering"), ABL),
    Claim("C17", "§5.2", CHAR_DA, "− character augmentation, entity retrieval", -0.5,
          ("ablation", "no-char-aug", "entity retrieval"), ABL),
    Claim("C18", "§5.2", "Token-level augmentations create lexically diverse positive phrases, and removing these "
          "samples degrades performances across all five tasks.", "− token augmentation: groups lowered − groups "
          "raised (of 5)", 5, ("groups_lowered", "no-token-aug"), "results/08_ablations.json: the count of signs of the "
          "groups' mean differences; the interval is the least favourable group's (Welch), an intersection-union test "
          "of a drop in every group", kind="all", direction=-1, arrows=(3, "- Token DA")),
    Claim("C19", "§5.2", "Phrase-level augmentation has the strongest impact on the representation capabilities of "
          "a model.", "− phrase augmentation − the next-lowest ablation, average", -0.2, ("strongest", "no-phrase-aug"),
          ABL + "; against the other ablation with the lowest mean average",
          cells=((3, "- Phrase DA", "average"), (3, "- Entity Type", "average")),
          like=five_groups(3, "- Phrase DA", "- Entity Type")),
    Claim("C20", "§5.2", "Removing all augmentations results in an average drop of 2.4 percentage points.",
          "− all augmentations, average", -2.4, ("ablation", "no-all-aug", "average"), ABL_AVG,
          untestable="not run here yet: notebook 08 trains the recipe `no-all-aug` (augment=(0, 0, 0)) when run by make "
          "extras, not by make reproduce, and this claim reads it from results/08_ablations.json. The paper's Table 3 has no such row, and its -2.4 is "
          "its - Phrase DA row's drop (pearl/benchmark/paper_slips.csv)"),
    Claim("C21", "§5.2", "We find that adding hard negatives brings decent improvements (+0.8 on average), "
          "especially considering the nearly zero additional cost of this strategy.", "hard negatives, average gain",
          0.8, ("gain", "no-hard-negatives", "average"), ABL_AVG.replace("removal − full recipe", "full recipe − removal"),
          like=five_groups(3, SMALL, "- Hard Negatives")),
    Claim("C22", "§5.3", "As Figure 4 shows, PEARL can effectively cluster the same types of phrases together.",
          "type silhouette ×100, PEARL − MiniLM (embedding space)", NAN, ("figure4", "silhouette"),
          "results/05_figures.json: silhouette of the six types in the embedding space (deterministic per model), "
          "PEARL seeds against MiniLM, an exact number (Welch's t with no variance on that side)", kind="direction", direction=1),
    Claim("C23", "§5.4", T4, "smallest gain over the raw language models, average", 17.7,
          ("backbone_gain", "mlm-wiki", "average"), "results/09_backbones.json: PEARL on mlm-wiki (a small masked LM "
          "pretrained here on Wikipedia, the one raw LM offline: the paper's Table-4 population; 3 seeds) − the untrained "
          "mlm-wiki, Welch's t of its seeds against the encoder, an exact number; the paper's number is its smallest raw-LM gain "
          "(BERT)", backbone="mlm-wiki", cells=((4, "+ PEARL", "BERT"), (4, "Original", "BERT")),
          untestable="not run here yet: notebook 09 trains PEARL on mlm-wiki (make reproduce, or make reproduce "
          "NOTEBOOKS=09_backbones.ipynb), and this claim reads it from results/09_backbones.json"),
    Claim("C24", "§5.5", F5, "BIRD at lr 3e-5 − best other lr", NAN, ("hyper", "lr"),
          "results/10_hyperparameters.json: one seed per point; the noise is the full recipe's BIRD seed std "
          "(3 seeds, 2 dof)", kind="direction", direction=1),
    Claim("C25", "§5.5", F5, "BIRD at 2 hard negatives − best other count", NAN, ("hyper", "hard_negatives"),
          "results/10_hyperparameters.json: one seed per point; the noise is the full recipe's BIRD seed std "
          "(3 seeds, 2 dof)", kind="direction", direction=1),
    Claim("C26", "PAUSE §4.1", "Observing the average results of each PAUSE-NLI-base variant, the model trained on "
          "merely 10% of the labels results in a performance about 2% lower than the one relying on all labels.",
          "PAUSE at 10 % labels − all labels, average", -2, ("label_share", 0.1),
          "results/11_methods.json: PAUSE's seeds at 10 % labels against its fully labelled seeds, Welch's t over "
          "seeds (one seed at 10 %: against the fully labelled seeds' std); sweep-suite average, not STS", source="pause"),
    Claim("C27", "Phrase-BERT §1", "To combat these issues, we automatically generate a dataset of lexically-diverse "
          "phrasal paraphrase pairs, and we additionally extract a large-scale dataset of 300 million phrases in "
          "context from the Books3 dataset from the Pile (Gao et al., 2020).",
          "LCS ratio ×100 of the positives, Phrase-BERT's − PEARL's", NAN, ("lexical", "lcs_ratio"),
          "results/11_methods.json: longest-common-subsequence ratio of one positive per phrase (lower: more "
          "diverse), deterministic", kind="direction", direction=-1, source="phrase_bert", backbone="none"),
    Claim("C28", "§4.3, Table 1", "String Distance uses the Jaccard similarity of n-gram characters to compare two "
          "strings.", "String Distance on AutoFJ (accuracy)", 64.7, ("value", "char3gram-jaccard", "autofj"),
          "results/table1.csv: character 3-gram Jaccard on the 50 AutoFJ tables (deterministic; agreement within "
          "1 point asked)", kind="value", tol=1.0, cells=((1, "String Distance", "AutoFJ"),), backbone="none"),
)

FIG1 = ("In Figure 1, our method correctly ranks all three positive candidates, including those with acronyms, as "
        "*NYTimes*.")
SIX = "If the length of input texts is very short (e.g., less than six tokens), it is beneficial to use PEARL embeddings."
LONG = ("One potential limitation is that our PEARL may not provide significant advantages when dealing with long "
        "sentences.")
CHAR6 = "Adding character-level support to language models appears crucial to success on short texts."
HN = ("We find that adding hard negatives brings decent improvements (+0.8 on average), especially considering the "
      "nearly zero additional cost of this strategy.")
ALL = ("We can show that our method outperforms other competitors across all these tasks – despite a smaller model "
       "size.")
_SL = mean_of(2, SMALL, "E5-small", SHORT_SETS) + mean_of(2, "E5-small", SMALL, LONG_SETS)

MORE = (
    Claim("C01-me5", "§5.1, abstract", T51, "PEARL-small − E5-small, average", 6.1,
          ("backbone_gain", "me5-small", "average"), ME5 + "; Welch's t of the seeds against the backbone, an exact "
          "number (scored once on the seeded sweep suite)", like=five_groups(1, SMALL, "E5-small"), backbone="me5-small"),
    Claim("C09-me5", "§5.1, Table 2", T2Q, "PEARL-small − E5-small, short-text average (no difference)", 1.5,
          ("short_set_on", "me5-small", *ALL_SETS), ME5_SHORT + "; the mean of the four sets",
          kind="no difference", untestable=NO_ME5_SHORT, cells=((2, SMALL, "Avg"), (2, "E5-small", "Avg")),
          backbone="me5-small"),
    Claim("C10-me5", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, Twitter-S", 2.1,
          ("short_set_on", "me5-small", "twitter_s"), ME5_SHORT, untestable=NO_ME5_SHORT,
          cells=((2, SMALL, "Twitter-S"), (2, "E5-small", "Twitter-S")), backbone="me5-small"),
    Claim("C11-me5", "§5.1, Table 2", SHORT, "PEARL-small − E5-small, ATIS-S", 1.0,
          ("short_set_on", "me5-small", "atis_s"), ME5_SHORT, untestable=NO_ME5_SHORT,
          cells=((2, SMALL, "ATIS-S"), (2, "E5-small", "ATIS-S")), backbone="me5-small"),
    Claim("C22-knn", "§5.3", "As Figure 4 shows, PEARL can effectively cluster the same types of phrases together.",
          "type kNN accuracy ×100, PEARL − MiniLM (embedding space)", NAN, ("figure4", "knn_accuracy"),
          "results/05_figures.json: kNN accuracy of the six types in the embedding space (deterministic per model), "
          "PEARL seeds against MiniLM, an exact number (Welch's t with no variance on that side): the second metric the results hold for C22", kind="direction",
          direction=1),
    Claim("C23-enc", "§5.4", T4, "smallest gain over the sentence encoders, average", 17.7, ("backbone_min_gain",),
          "results/09_backbones.json: the sentence encoder (trained contrastively already: MiniLM, me5-small, MiniLM's "
          "first two layers, its token embeddings) with the smallest gain, Welch's t of its seeds against the untrained "
          "encoder, an exact number; not the paper's population (its five models are raw LMs), so a smaller gain here "
          "says nothing against the claim", backbone="smallest of 4",
          apart="not the paper's population (sentence encoders, not raw LMs): on MiniLM it is C01's test again",
          cells=((4, "+ PEARL", "BERT"), (4, "Original", "BERT"))),
    Claim("C29", "§1, Figure 1", FIG1, "aliases of “The New York Times” ranked above every non-alias (of 3), PEARL",
          3, ("figure1",), "results/figure1.csv: the five PEARL seeds' ranks of Figure 1's five candidates (three "
          "aliases); deterministic per model, so one comparison per seed and no noise model", kind="value", tol=0.0),
    Claim("C30", "§6", SIX, "(PEARL − E5-small on Twitter-S, ATIS-S) − (the same on Twitter-L, ATIS-L)", NAN,
          ("short_minus_long",), "results/table2.csv: per PEARL seed, its gain over the untrained MiniLM on the two "
          "short sets less its gain on the two long sets; Welch's t against the backbone's own classifier spread",
          kind="direction", direction=1, like=_SL),
    Claim("C30-me5", "§6", SIX, "(PEARL − E5-small on Twitter-S, ATIS-S) − (the same on Twitter-L, ATIS-L)", NAN,
          ("short_minus_long", "me5-small"), ME5_SHORT + "; per seed, its gain on the two short sets less its gain on "
          "the two long sets", kind="direction", direction=1, untestable=NO_ME5_SHORT, like=_SL, backbone="me5-small"),
    Claim("C31", "§5.2", HN, "training time with hard negatives − without (% of without)", 0,
          ("hard_negative_cost",), "results/perf/experiment_models.txt: training seconds of notebook 08's − token "
          "and − character augmentation arms (the full recipe's model and batch, hard negatives included) against − "
          "hard negatives, Welch; mining them (notebook 02) is not counted", kind="no difference",
          apart="measures cost under a listed deviation (two jobs at a time on shared cores, hard negatives mined "
          "before training), not the paper's setting"),
    Claim("C32", "§6", CHAR6, "− character encoder, short-text average", NAN,
          ("short_ablation", "no-char-encoder"), SHORT_ABL, kind="direction",
          direction=-1, untestable=SHORT_ABL_LATER),
    Claim("C32-aug", "§6", CHAR6, "− character augmentation, short-text average", NAN,
          ("short_ablation", "no-char-aug"), SHORT_ABL, kind="direction",
          direction=-1, untestable=SHORT_ABL_LATER),
    Claim("C33", "Limitations", LONG, "PEARL-small − E5-small, long-text average (Twitter-L, ATIS-L; no difference)",
          1.5, ("short_set", "twitter_l", "atis_l"), "results/table2.csv: PEARL seeds against the untrained MiniLM on "
          "the two long sets, Welch's t against the backbone's own classifier spread",
          kind="no difference", like=mean_of(2, SMALL, "E5-small", LONG_SETS)),
    Claim("C33-me5", "Limitations", LONG, "PEARL-small − E5-small, long-text average (Twitter-L, ATIS-L; no "
          "difference)", 1.5, ("short_set_on", "me5-small", "twitter_l", "atis_l"), ME5_SHORT + "; the two long sets", kind="no difference", untestable=NO_ME5_SHORT,
          like=mean_of(2, SMALL, "E5-small", LONG_SETS), backbone="me5-small"),
    Claim("C34", "§1", ALL, "PEARL best on every task (Tables 1 and 2)", NAN, kind="direction", direction=1,
          untestable="the paper's competitors are not offline. The paper's own cells: a PEARL row has the best mean "
          "of each of the six tasks, but E5-base is above both PEARL rows on UMLS (44.0 against 43.6 and 43.4) and "
          "Twitter-L (79.5 against 78.5 and 77.1) (pearl/benchmark/paper_slips.csv)", backbone="none"),
)


def _order(c: Claim) -> tuple:
    return int(c.id[1:3]), c.id


CLAIMS = tuple(sorted(CLAIMS + MORE, key=_order))


FAMILY_WORDS = 8  # words of a sentence that name its family (distinct for every sentence: a test checks)


def family(c: Claim) -> str:
    """The family ``c``'s verdict is read in: its sentence, named by its first words (a row shown
    apart is a family of its own, named with its id).

    >>> family(by_id()["C01"])
    '“Specifically, PEARL-base improves E5-base by 3.7 absolute percentage…”'
    >>> family(by_id()["C31"])
    '“We find that adding hard negatives brings decent…” (apart: C31)'
    """
    words = c.quote.split()
    name = "“" + " ".join(words[:FAMILY_WORDS]) + ("…”" if len(words) > FAMILY_WORDS else "”")
    return f"{name} (apart: {c.id})" if c.apart else name


def by_id() -> dict:
    return {c.id: c for c in CLAIMS}
