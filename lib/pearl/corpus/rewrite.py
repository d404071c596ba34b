"""Phrase-level paraphrases by rewriting, kept when an encoder agrees: generate, then filter.

The paper's phrase level paraphrases with a text-to-text model (Parrot), which rewrites any
phrase; offline, the rules of :class:`pearl.corpus.paraphrase.OfflineParaphraser` reach only
the phrases that hold a name, an abbreviation or a number word. :class:`RewriteParaphraser`
adds rewrites of one part of the phrase, of two kinds:

- **formats**, true by construction, kept as they are: dates ("September 1873" -> "Sept.
  1873", "July 27" <-> "27 July"), digit grouping ("124,618" <-> "124618", "52.9 million" ->
  "52,900,000"), a middle initial dropped ("Richard P. Ernst" -> "Richard Ernst"), the article
  of a two-word name dropped ("the SmackDown" -> "SmackDown");
- **words**, which can change the meaning (a word's other sense, an idiom), so each is kept
  only when the encoder scores it at cosine >= ``threshold`` against the phrase: a function
  word from :data:`FUNCTION_WORDS` ("numerous" -> "many", "despite" -> "in spite of"), or a
  content word replaced by a lemma of one of its first two WordNet senses for its part of
  speech (spaCy's tag) whose own first sense is that one, inflected as the word was
  (lemminflect): "the earlier stages" -> "the earlier phases".

What it leaves out: reordering paraphrases ("the history of France" -> "France's history"),
more than one change per candidate, and any check of the formats beyond their pattern.
"""
from __future__ import annotations

import re
from typing import Sequence

from .paraphrase import HFParaphraser, OfflineParaphraser, _dedup

#: function words and their paraphrases (one-way where the way back is ambiguous: "about")
FUNCTION_WORDS = {
    "towards": ["toward"], "toward": ["towards"], "among": ["amongst"], "amongst": ["among"], "upon": ["on"],
    "until": ["till"], "near": ["close to"], "beside": ["next to"], "despite": ["in spite of"], "within": ["inside"],
    "before": ["prior to"], "after": ["following"], "via": ["through"], "numerous": ["many"], "many": ["numerous"],
    "every": ["each"], "each": ["every"], "approximately": ["about", "around", "roughly"], "around": ["about"],
    "nearly": ["almost"], "almost": ["nearly"], "mainly": ["mostly"], "mostly": ["mainly"], "often": ["frequently"],
    "frequently": ["often"], "only": ["just"], "throughout": ["all through"], "while": ["whilst"],
    # prepositions: the encoder checks the reading, but not the grammar
    # ("in", "on", "to" and "by" are left out: no other preposition keeps all their readings)
    "during": ["in"],
    "about": ["regarding", "concerning"], "under": ["beneath", "below"], "below": ["beneath"], "beneath": ["below"],
    "without": ["with no"], "like": ["such as"], "outside": ["outside of"], "inside": ["within"],
    "much": ["a lot of"], "most": ["the majority of"], "all": ["all of"],
}
#: two-word function phrases, same rule
FUNCTION_PAIRS = {("less", "than"): ["fewer than", "under"], ("more", "than"): ["over"], ("at", "least"): ["no fewer than"],
                  ("because", "of"): ["due to"], ("such", "as"): ["like"], ("a", "number"): ["several"]}
MONTHS = {"January": "Jan.", "February": "Feb.", "March": "Mar.", "April": "Apr.", "August": "Aug.",
          "September": "Sept.", "October": "Oct.", "November": "Nov.", "December": "Dec."}  # May, June, July stay
_MONTH = "|".join(list(MONTHS) + ["May", "June", "July"])
_DAY = r"(?:[1-9]|[12][0-9]|3[01])"
#: the format rewrites: (pattern, replacement), each applied once where it matches
FORMATS = [
    # "September 1873" -> "Sept. 1873" (a month next to a number: not "March on Rome")
    (re.compile(rf"\b({'|'.join(MONTHS)})\b(?= \d)|(?<=\d )({'|'.join(MONTHS)})\b"),
     lambda m: MONTHS[m.group(1) or m.group(2)]),
    (re.compile(rf"\b({_MONTH}) ({_DAY}) ?, (\d{{4}})\b"), r"\2 \1 \3"),  # "July 27, 1990" -> "27 July 1990"
    (re.compile(rf"\b({_DAY}) ({_MONTH}) (\d{{4}})\b"), r"\2 \1, \3"),  # "27 July 1990" -> "July 27, 1990"
    (re.compile(rf"\b({_MONTH}) ({_DAY})\b(?! ?,| \d)"), r"\2 \1"),  # "July 27" -> "27 July"
    (re.compile(rf"\b({_DAY}) ({_MONTH})\b(?! ?,| \d)"), r"\2 \1"),  # "27 July" -> "July 27"
    (re.compile(r"\b\d{1,3}(?:,\d{3})+\b"), lambda m: m.group(0).replace(",", "")),  # "124,618" -> "124618"
    (re.compile(r"(?<![\d,.])[1-9]\d{4,}(?![\d,.])"), lambda m: f"{int(m.group(0)):,}"),  # "35000" -> "35,000"
    (re.compile(r"(?<![\d,.])(\d+(?:\.\d{1,3})?) million\b"),
     lambda m: f"{round(float(m.group(1)) * 1_000_000):,}"),  # "52.9 million" -> "52,900,000"
    (re.compile(r"\b([A-Z][a-z]+) [A-Z]\. (?=[A-Z][a-z]+\b)"), r"\1 "),  # "Richard P. Ernst" -> "Richard Ernst"
    (re.compile(r"^[Tt]he ([A-Z]\S*)$"), r"\1"),  # "the SmackDown" -> "SmackDown"
]
_WN = {"N": "n", "V": "v", "J": "a", "R": "r"}
_UPOS = {"N": "NOUN", "V": "VERB", "J": "ADJ", "R": "ADV"}


def formats(phrase: str) -> list[str]:
    """Format rewrites of ``phrase`` (:data:`FORMATS`), each true by construction.

    >>> formats("in September 1873"), formats("July 27"), formats("124,618 people")
    (['in Sept. 1873'], ['27 July'], ['124618 people'])
    >>> formats("Richard P. Ernst"), formats("the SmackDown"), formats("52.9 million")
    (['Richard Ernst'], ['SmackDown'], ['52,900,000'])
    """
    return _dedup(phrase, [pattern.sub(repl, phrase, count=1) for pattern, repl in FORMATS if pattern.search(phrase)])


def _inflect(lemma: str, tag: str) -> str | None:
    """``lemma`` (WordNet's, ``_`` between words) inflected with Penn ``tag`` on its head word
    (the last for a noun, the first for a verb); None when lemminflect has no such form."""
    import lemminflect

    words = lemma.split("_")
    head = -1 if tag.startswith("N") else 0
    if tag not in ("NN", "VB", "JJ", "RB", "NNP"):
        forms = lemminflect.getInflection(words[head], tag)
        if not forms:
            return None
        words[head] = forms[0]
    return " ".join(words)


def word_rewrites(doc, senses: int = 2) -> list[str]:
    """Candidates of a spaCy-tagged phrase ``doc`` that change one function or content word
    (module docstring); unchecked: they still need the encoder's agreement."""
    import lemminflect

    from .lexicon import wordnet

    toks = [tk.text for tk in doc]
    spaces = [tk.whitespace_ for tk in doc]

    def put(i: int, j: int, new: str) -> str:  # tokens i..j-1 replaced, the phrase's own spacing kept
        return ("".join(t + w for t, w in zip(toks[:i], spaces[:i])) + new + spaces[j - 1]
                + "".join(t + w for t, w in zip(toks[j:], spaces[j:]))).strip()

    out = []
    for i, tk in enumerate(doc):
        w, low = tk.text, tk.text.lower()
        if tuple(x.lower() for x in toks[i : i + 2]) in FUNCTION_PAIRS and w.islower():
            out += [put(i, i + 2, r) for r in FUNCTION_PAIRS[(low, toks[i + 1].lower())]]
        if low in FUNCTION_WORDS and w.islower():
            out += [put(i, i + 1, r) for r in FUNCTION_WORDS[low]]
            continue
        pos = tk.tag_[:1]
        if pos not in _WN or not (w.isalpha() and w.islower()) or "-" in toks[max(i - 1, 0) : i + 2]:
            continue
        lemma = (lemminflect.getLemma(w, _UPOS[pos]) or (w,))[0]
        seen = {lemma.lower()}
        neighbours = {x.lower() for x in toks[max(i - 1, 0) : i + 2]}
        wn = wordnet()
        for synset in wn.synsets(lemma, _WN[pos])[:senses]:
            for name in synset.lemma_names():
                parts = name.lower().split("_")
                # a proper name, a form already seen, or a multi-word lemma repeating a neighbour ("military post")
                if name[:1].isupper() or name.lower() in seen or (len(parts) > 1 and neighbours & set(parts)):
                    continue
                seen.add(name.lower())
                # mutual first sense: the synonym's own first sense must be this one ("result" -> "solution"
                # comes from result's second sense, a mixture's name first)
                if wn.synsets(name, _WN[pos])[:1] != [synset]:
                    continue
                if (new := _inflect(name, tk.tag_)) is not None:
                    out.append(put(i, i + 1, new))
    return [_articles(c) for c in out]


def _articles(phrase: str) -> str:
    """"a" / "an" agreeing with the next word's first letter (a rewrite may change it)."""
    # before a digit the sound decides ("an 8th", "a 9th"): left as it was
    return re.sub(r"\b([Aa])n? (?=([A-Za-z]))", lambda m: m.group(1) + ("n " if m.group(2).lower() in "aeiou" else " "), phrase)


class RewriteParaphraser:
    """The offline rules, the formats, and word rewrites the encoder keeps (module docstring).

    ``model``: an encoder for :func:`pearl.encode.encode` or a model name (default the backbone,
    loaded on first use); ``threshold``: the cosine a word rewrite needs; ``max_n``:
    paraphrases kept per phrase (rules and formats first, then word rewrites by falling cosine).
    """

    def __init__(self, model="minilm", threshold: float = 0.8, max_n: int = 8, senses: int = 2):
        self.model, self.threshold, self.max_n, self.senses = model, threshold, max_n, senses
        self.rules = OfflineParaphraser()

    def _encoder(self):
        if isinstance(self.model, str):
            from ..models import load_model

            self.model = load_model(self.model)
        return self.model

    def scored(self, phrases: Sequence[str]) -> dict[str, dict]:
        """``{phrase: {"rules": [...], "formats": [...], "words": [(cosine, candidate), ...]}}``,
        word rewrites unfiltered and sorted by falling cosine: what :meth:`paraphrase_many` keeps from."""
        import numpy as np

        from ..encode import encode
        from .phrases import load_nlp

        phrases = [p for p in dict.fromkeys(phrases) if p and p.strip()]
        nlp = load_nlp()
        docs = nlp.pipe(phrases, disable=["parser", "ner"], batch_size=256)
        out = {p: {"rules": self.rules.paraphrase(p), "formats": formats(p),
                   "words": _dedup(p, word_rewrites(doc, self.senses))} for p, doc in zip(phrases, docs)}
        texts = list(dict.fromkeys(phrases + [c for v in out.values() for c in v["words"]]))
        vectors = encode(self._encoder(), texts) if texts else np.zeros((0, 1), dtype=np.float32)
        row = {t: i for i, t in enumerate(texts)}
        for p, v in out.items():
            v["words"] = sorted(((float(vectors[row[p]] @ vectors[row[c]]), c) for c in v["words"]), reverse=True)
        return out

    def paraphrase_many(self, phrases: Sequence[str]) -> dict[str, list[str]]:
        out = {}
        for p, v in self.scored(phrases).items():
            kept = [c for s, c in v["words"] if s >= self.threshold]
            if cands := _dedup(p, v["rules"] + v["formats"] + kept)[: self.max_n]:
                out[p] = cands
        return out

    def paraphrase(self, phrase: str) -> list[str]:
        return self.paraphrase_many([phrase]).get(phrase, [])


def paraphraser(name: str = "offline"):
    """The paraphraser notebook 02's ``PARAPHRASER`` names: the rules (:class:`OfflineParaphraser`)
    for ``"offline"``, :class:`RewriteParaphraser` for ``"rewrite"``, else :class:`HFParaphraser`
    for that Hugging Face model."""
    if name == "rewrite":
        return RewriteParaphraser()
    return OfflineParaphraser() if name == "offline" else HFParaphraser(name)
