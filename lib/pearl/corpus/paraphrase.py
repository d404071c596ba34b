"""Phrase-level augmentation: paraphrase generators behind one interface.

A :class:`Paraphraser` maps a phrase to a list of paraphrases (possibly empty). Two
implementations:

- :class:`HFParaphraser` — a Hugging Face text2text model by name, the paper's choice being
  Parrot (``prithivida/parrot_paraphraser_on_T5``, prompt ``"paraphrase: <phrase>"``).
  It needs the model weights, so it runs on a connected machine (or with the weights in
  the HF cache); offline it raises an ``OSError`` naming the fix.
- :class:`OfflineParaphraser` — rules that give true paraphrases without a model:

  * **acronyms** of names of three or more capitalised words (a leading "The" dropped):
    "The New York Times" -> "NYT", "NYTimes" (initials + last word);
  * **abbreviations** and their expansions from a fixed table: "Saint" <-> "St.",
    "Company" <-> "Co.", "kilometres" <-> "km", "United States" <-> "U.S.", ...;
  * **number words** <-> digits for zero..twenty ("three" <-> "3");
  * **determiner drop**: "The New York Times" -> "New York Times";
  * **WordNet phrase synonyms** (the other lemmas of the phrase's synsets, multi-word
    ones included): "United States" -> "United States of America", "USA", ...

Left out: paraphrases that reorder words ("the history of France" -> "France's history"),
because no rule makes them reliably true, and model-based generation offline.
"""
from __future__ import annotations

import re
from typing import Protocol, Sequence, runtime_checkable

from ..encode import pick_device
from .lexicon import synonyms

ABBREVIATIONS = {
    "Saint": "St.", "Mount": "Mt.", "Street": "St.", "Avenue": "Ave.", "Road": "Rd.",
    "Company": "Co.", "Corporation": "Corp.", "Incorporated": "Inc.", "Limited": "Ltd.",
    "University": "Univ.", "Department": "Dept.", "International": "Intl.",
    "Association": "Assn.", "Brothers": "Bros.", "Doctor": "Dr.", "Professor": "Prof.",
    "General": "Gen.", "Captain": "Capt.", "Lieutenant": "Lt.", "Sergeant": "Sgt.",
    "Colonel": "Col.", "Junior": "Jr.", "Senior": "Sr.", "Fort": "Ft.", "Number": "No.",
    "Volume": "Vol.", "Highway": "Hwy.", "Route": "Rte.", "versus": "vs.", "and": "&",
    "United States": "U.S.", "United Kingdom": "UK", "United Nations": "UN",
    "European Union": "EU", "World War II": "WWII", "World War I": "WWI",
    "kilometres": "km", "kilometers": "km", "kilometre": "km", "metres": "m",
    "meters": "m", "feet": "ft", "foot": "ft", "miles": "mi", "mile": "mi", "pounds": "lb",
    "inches": "in", "percent": "%", "per cent": "%", "hours": "h", "minutes": "min",
    "seconds": "s", "kilograms": "kg", "centimetres": "cm", "millimetres": "mm",
}
NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
           "fifteen sixteen seventeen eighteen nineteen twenty").split()
_SMALL = {"of", "and", "the", "for", "in", "on", "at", "to", "a", "an", "&"}
_ONE_WAY = {"and", "versus"}  # expanding "&" or "vs." back is fine, but "in"/"m"/"s" are ambiguous
_AMBIGUOUS_SHORT = {"in", "m", "s", "h", "min", "mi", "St.", "Co.", "ft", "&", "%"}


@runtime_checkable
class Paraphraser(Protocol):
    """Anything with ``paraphrase(phrase) -> list[str]`` (the phrase itself never included)."""

    def paraphrase(self, phrase: str) -> list[str]: ...


def _dedup(phrase: str, cands) -> list[str]:
    seen = {phrase.lower().strip()}
    out = []
    for c in cands:
        c = re.sub(r"\s+", " ", c).strip()
        if c and c.lower() not in seen:
            seen.add(c.lower())
            out.append(c)
    return out


def acronyms(phrase: str) -> list[str]:
    """Acronym forms of a name made of capitalised words.

    >>> acronyms("The New York Times")
    ['NYT', 'NYTimes']
    >>> acronyms("the big apple")
    []
    """
    words = phrase.split()
    if words and words[0] in ("The", "the"):
        words = words[1:]
    # three words or more: two-word initials ("Saint Louis" -> "SL") are rarely used
    if len(words) < 3 or not all(w[:1].isupper() and w[1:].islower() and w.isalpha() and w.isascii() for w in words):
        return []
    initials = "".join(w[0] for w in words)
    return [initials, initials[:-1] + words[-1]]


def abbreviate(phrase: str) -> list[str]:
    """Swap one table entry for its abbreviation, or an unambiguous abbreviation back.

    >>> abbreviate("Saint Louis")
    ['St. Louis']
    >>> abbreviate("12 kilometres")
    ['12 km']
    """
    out = []
    expanded = set()
    for full, short in ABBREVIATIONS.items():
        pattern = r"(?<![\w.])" + re.escape(full) + r"(?![\w])"
        if re.search(pattern, phrase):
            out.append(re.sub(pattern, short, phrase, count=1))
        # expand back to the first (most common) full form only: "km" -> "kilometres"
        if short not in _AMBIGUOUS_SHORT and full not in _ONE_WAY and short not in expanded:
            expanded.add(short)
            back = r"(?<![\w.])" + re.escape(short) + r"(?![\w])"
            if re.search(back, phrase):
                out.append(re.sub(back, full, phrase, count=1))
    return out


def renumber(phrase: str) -> list[str]:
    """Number words <-> digits, one token at a time.

    >>> renumber("three ships"), renumber("3 ships"), renumber("x¹ 3")
    (['3 ships'], ['three ships'], ['x¹ three'])
    """
    tokens = phrase.split()
    out = []
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if low in NUMBERS:
            out.append(" ".join(tokens[:i] + [str(NUMBERS.index(low))] + tokens[i + 1 :]))
        # ASCII digits only: "¹" and "²" (footnotes, units) pass str.isdigit() but not int()
        elif tok.isascii() and tok.isdigit() and int(tok) < len(NUMBERS) and tok == str(int(tok)):
            out.append(" ".join(tokens[:i] + [NUMBERS[int(tok)]] + tokens[i + 1 :]))
    return out


def drop_determiner(phrase: str) -> list[str]:
    """ "The New York Times" -> "New York Times" (phrases of two or more words after it)."""
    words = phrase.split()
    if len(words) >= 3 and words[0].lower() in ("the", "a", "an"):
        return [" ".join(words[1:])]
    return []


class OfflineParaphraser:
    """Rule-based paraphrases (module docstring); WordNet phrase synonyms when ``wordnet``."""

    def __init__(self, wordnet: bool = True, max_n: int = 8):
        self.wordnet = wordnet
        self.max_n = max_n

    def paraphrase(self, phrase: str) -> list[str]:
        phrase = (phrase or "").strip()
        if not phrase:
            return []
        cands = acronyms(phrase) + abbreviate(phrase) + renumber(phrase) + drop_determiner(phrase)
        if self.wordnet and phrase.isascii() and len(phrase) < 80:

            bare = phrase.split(maxsplit=1)[1] if drop_determiner(phrase) else phrase
            cands += list(synonyms(bare, max_n=self.max_n))
        return _dedup(phrase, cands)[: self.max_n]

    def paraphrase_many(self, phrases: Sequence[str]) -> dict[str, list[str]]:
        return {p: out for p in phrases if (out := self.paraphrase(p))}


class HFParaphraser:
    """A Hugging Face text2text paraphraser loaded by name (lazily, on first use)."""

    def __init__(self, model_name: str = "prithivida/parrot_paraphraser_on_T5", prefix: str = "paraphrase: ",
                 num_return: int = 4, device: str | None = None, max_length: int = 32):
        self.model_name, self.prefix, self.num_return = model_name, prefix, num_return
        self.device, self.max_length = device, max_length
        self._model = self._tokenizer = None

    def _load(self):
        if self._model is None:
            from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

            try:
                self._tokenizer = AutoTokenizer.from_pretrained(self.model_name)
                self._model = AutoModelForSeq2SeqLM.from_pretrained(self.model_name)
            except OSError as err:
                raise OSError(f"paraphrase model {self.model_name!r} is not available offline: run on a "
                              f"connected machine or use OfflineParaphraser()") from err
            self.device = pick_device(self.device)
            self._model = self._model.to(self.device).eval()

    def paraphrase_many(self, phrases: Sequence[str], batch_size: int = 32) -> dict[str, list[str]]:
        import torch

        self._load()
        out = {}
        phrases = [p for p in dict.fromkeys(phrases) if p and p.strip()]
        for start in range(0, len(phrases), batch_size):
            batch = phrases[start : start + batch_size]
            enc = self._tokenizer([self.prefix + p for p in batch], return_tensors="pt", padding=True,
                                  truncation=True, max_length=self.max_length).to(self.device)
            with torch.inference_mode():
                gen = self._model.generate(**enc, num_beams=self.num_return, num_return_sequences=self.num_return,
                                           max_length=self.max_length)
            texts = self._tokenizer.batch_decode(gen, skip_special_tokens=True)
            for i, p in enumerate(batch):
                if cands := _dedup(p, texts[i * self.num_return : (i + 1) * self.num_return]):
                    out[p] = cands
        return out

    def paraphrase(self, phrase: str) -> list[str]:
        return self.paraphrase_many([phrase]).get(phrase, [])
