"""WordNet as an offline lexicon: real multi-word phrases with coarse types, and synonyms.

Two uses (both offline, from Debian ``wordnet-base`` read through NLTK):

1. **A second phrase source** (:func:`wordnet_phrases`). Every multi-word lemma of WordNet
   3.0 is a real phrase. Its lexical class comes from the synset's part of speech
   (noun -> NP, verb -> VP, adjective -> ADJP, adverb -> ADVP, or PP when the adverb
   lemma starts with a preposition, e.g. "in time", "at least"). Its entity type comes
   from the lexicographer file, and only for *instance* synsets (named entities such as
   "New York Times", "Eiffel Tower"); common nouns ("police officer") are OTHER:

   ========================  ===============================================
   lexname of an instance    OntoNotes type
   ========================  ===============================================
   noun.person               PERSON
   noun.location             GPE if an instance of a city/country/state/
                             province/town/capital, else LOC
   noun.group                NORP if an instance of a nation/people/religion,
                             else ORG
   noun.object               LOC (rivers, mountains, islands, planets)
   noun.artifact             FAC (buildings, bridges) or PRODUCT (others)
   noun.communication        WORK_OF_ART (books, works), or LANGUAGE
   noun.act / noun.event     EVENT (battles, wars, revolutions)
   noun.time                 DATE
   other lexnames            OTHER
   ========================  ===============================================

2. **Synonyms** (:func:`synonyms`): the other lemmas of a word's or phrase's synsets, used
   by token-level and phrase-level augmentation.

Left out: WordNet glosses, hypernym-based typing of common nouns, and sense
disambiguation (synonyms mix every sense of a word; frequent senses come first).
"""
from __future__ import annotations

from functools import lru_cache

from ..resources import wordnet_ready

PREPOSITIONS = frozenset(
    "about above across after against along among around as at before behind below beneath beside "
    "between beyond by despite down during except for from in inside into like near of off on onto "
    "out outside over past since through throughout to toward towards under until up upon with "
    "within without".split()
)

_GPE_HEADS = {"city.n.01", "country.n.02", "state.n.01", "province.n.01", "town.n.01",
              "national_capital.n.01", "state_capital.n.01", "provincial_capital.n.01", "port.n.01",
              "county.n.01", "kingdom.n.02", "empire.n.02", "american_state.n.01", "municipality.n.01"}
_NORP_HEADS = {"nation.n.02", "people.n.01", "religion.n.02", "ethnic_group.n.01", "tribe.n.01",
               "political_party.n.01"}
_FAC_HEADS = {"structure.n.01", "building.n.01", "bridge.n.01", "facility.n.01", "way.n.06"}
_LANGUAGE_HEADS = {"language.n.01", "natural_language.n.01"}


@lru_cache(maxsize=1)
def wordnet():
    """The NLTK WordNet reader, working offline (see :func:`pearl.resources.wordnet_ready`)."""

    wordnet_ready()
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn


def _closure_names(synset) -> set[str]:
    names = set()
    for top in synset.instance_hypernyms() or [synset]:
        names |= _ancestors(top.name())
    return names


@lru_cache(maxsize=None)
def _ancestors(name: str) -> frozenset[str]:
    """A synset's name and all its hypernyms' (cached: instances share a few classes)."""
    top = wordnet().synset(name)
    return frozenset({name} | {s.name() for s in top.closure(lambda s: s.hypernyms())})


def wordnet_type(synset) -> str:
    """Coarse OntoNotes type of a noun synset (OTHER unless it is an instance).

    >>> wn = wordnet()                                # doctest: +SKIP
    >>> wordnet_type(wn.synset("new_york_times.n.01"))  # doctest: +SKIP
    'WORK_OF_ART'
    """
    if synset.pos() != "n" or not synset.instance_hypernyms():
        return "OTHER"
    lex = synset.lexname()
    if lex == "noun.person":
        return "PERSON"
    if lex == "noun.location":
        return "GPE" if _closure_names(synset) & _GPE_HEADS else "LOC"
    if lex == "noun.group":
        return "NORP" if _closure_names(synset) & _NORP_HEADS else "ORG"
    if lex == "noun.object":
        return "LOC"
    if lex == "noun.artifact":
        return "FAC" if _closure_names(synset) & _FAC_HEADS else "PRODUCT"
    if lex == "noun.communication":
        return "LANGUAGE" if _closure_names(synset) & _LANGUAGE_HEADS else "WORK_OF_ART"
    if lex in ("noun.act", "noun.event"):
        return "EVENT"
    if lex == "noun.time":
        return "DATE"
    return "OTHER"


def _class_of(lemma: str, pos: str) -> str:
    if pos == "n":
        return "NP"
    if pos == "v":
        return "VP"
    if pos in ("a", "s"):
        return "ADJP"
    return "PP" if lemma.split()[0].lower() in PREPOSITIONS else "ADVP"


def wordnet_phrases(multiword_only: bool = True, instances: bool = True,
                    common_nouns: bool = True) -> list[tuple[str, str]]:
    """``(phrase, label)`` for WordNet lemmas: multi-word lemmas of every part of speech,
    plus (``instances=True``) single-word named-entity instances such as "Paris".
    ``common_nouns=False`` leaves out the multi-word lemmas of non-instance noun synsets
    ("police officer"; 52K of the 70K phrases), which would otherwise outnumber a small corpus.

    Each phrase keeps the label of its first (most frequent) synset.
    """
    wn = wordnet()
    out: dict[str, str] = {}
    for pos in ("n", "v", "a", "r"):
        for synset in wn.all_synsets(pos):
            etype = wordnet_type(synset) if pos == "n" else "OTHER"
            if pos == "n" and not common_nouns and not synset.instance_hypernyms():
                continue
            for name in synset.lemma_names():
                phrase = name.replace("_", " ")
                if phrase in out or not phrase.isascii():
                    continue
                if " " in phrase or (instances and etype != "OTHER") or not multiword_only:
                    out[phrase] = f"{_class_of(phrase, synset.pos())}-{etype}"
    return sorted(out.items())


@lru_cache(maxsize=200_000)
def synonyms(phrase: str, max_n: int = 8) -> tuple[str, ...]:
    """WordNet synonyms of a word or multi-word phrase (other lemmas of its synsets).

    Case-insensitive lookup; the phrase itself and case variants are excluded.

    >>> synonyms("United States")[:3]                  # doctest: +SKIP
    ('United States of America', 'America', 'the States')
    """
    phrase = phrase.strip()
    if not phrase or not phrase.isascii():
        return ()
    wn = wordnet()
    key = phrase.replace(" ", "_")
    seen = {phrase.lower()}
    out = []
    for synset in wn.synsets(key):
        for name in synset.lemma_names():
            cand = name.replace("_", " ")
            if cand.lower() not in seen:
                seen.add(cand.lower())
                out.append(cand)
    return tuple(out[:max_n])
