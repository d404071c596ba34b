"""Three-level phrase augmentation (paper §3.1, Figure 3) and its cached lexicons.

Sub-operations, each a function ``(phrase, rng, lexicons) -> str | None`` (None: does not apply):

- character level — ``char_swap`` (two adjacent letters), ``char_delete`` (one letter),
  ``char_insert`` (one lower-case letter), ``char_keyboard`` (one letter replaced by a QWERTY
  neighbour, from nlpaug's English keyboard map). Each is exactly one edit and keeps case
  elsewhere; the edits are hand-written so that a numpy ``Generator`` drives them (nlpaug
  draws from the global ``random`` module, which would break seeded reproducibility);
- token level — ``token_swap`` (two adjacent, different tokens: the token multiset is kept),
  ``token_wordnet`` and ``token_glove`` (one token replaced by a synonym from the WordNet or
  GloVe table of :mod:`pearl.corpus.synonyms`; only lower-case tokens are replaced, since names
  have no synonyms: "New York" must not become "Young York");
- phrase level — ``phrase_paraphrase``: one paraphrase from the cached table (built by a
  :class:`pearl.corpus.paraphrase.Paraphraser`), else from the offline rules (acronyms,
  abbreviations, numbers, determiner drop) computed on the fly.

:class:`Augmenter` picks one level per phrase with probability proportional to its weight
(levels of weight 0 are never used), then one applicable sub-operation uniformly; when the
chosen level cannot change the phrase it falls back to the other levels of nonzero weight,
and returns the phrase unchanged only if none can. Everything random comes from one numpy
``Generator``: the same seed gives the same augmentations.

The augmentation lexicons (:class:`AugmentLexicons`: synonyms, paraphrases; named apart from the result
tables of :mod:`pearl.tabular`) are built
once by the augmentation notebook and cached as JSON under ``derived_dir("augment")``
(:func:`save_lexicons`, :func:`load_lexicons`; the files keep their names). Without
lexicons the token synonym operations are skipped (WordNet on the fly is available with
``live_wordnet=True``; it costs a few seconds to load WordNet).
"""
from __future__ import annotations

import json
import string
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import paths
from ..guard import OPEN, Guard
from ..provenance import write_json
from .lexicon import synonyms
from .paraphrase import OfflineParaphraser

LEVELS = {
    "char": ("char_swap", "char_delete", "char_insert", "char_keyboard"),
    "token": ("token_swap", "token_wordnet", "token_glove"),
    "phrase": ("phrase_paraphrase",),
}
#: how missing or damaged augmentation lexicons are made again, said in the error
LEXICONS_FIX = "build them with pearl.corpus.training_inputs.build_training_inputs"
LEXICON_FILES = {"wordnet": "wordnet_synonyms.json", "glove": "glove_synonyms.json", "paraphrases": "paraphrases.json"}


@dataclass
class AugmentLexicons:
    """``{word: synonyms}`` from WordNet and GloVe, ``{phrase: paraphrases}``, and metadata."""

    wordnet: dict[str, list[str]] = field(default_factory=dict)
    glove: dict[str, list[str]] = field(default_factory=dict)
    paraphrases: dict[str, list[str]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)


def lexicon_files(folder: Path | None = None) -> list[Path]:
    """The files :func:`save_lexicons` writes in ``folder`` (default ``data/derived/augment/``): the three
    lexicons and ``meta.json``, whose note (:attr:`pearl.guard.Guard.note`) speaks for all four."""
    folder = Path(folder) if folder else paths.derived_dir("augment")
    return [folder / name for name in LEXICON_FILES.values()] + [folder / "meta.json"]


def save_lexicons(lexicons: AugmentLexicons, folder: Path | None = None, guard: Guard = OPEN) -> Path:
    """Write the lexicons to ``folder`` with their ``meta.json`` (with the caller's ``guard.note``), each
    atomically; ``guard.check`` sees every file before any is written."""
    files = lexicon_files(folder)
    guard.check(files)
    folder = files[0].parent
    folder.mkdir(parents=True, exist_ok=True)
    for attr, name in LEXICON_FILES.items():
        write_json(folder / name, getattr(lexicons, attr), indent=None, ensure_ascii=False, sort_keys=True)
    write_json(folder / "meta.json", {**lexicons.meta, **guard.note}, indent=1, sort_keys=True)  # last: it marks a complete set
    return folder


def load_lexicons(folder: Path | None = None) -> AugmentLexicons:
    """The cached lexicons written by the augmentation notebook (clear error when missing)."""
    folder = Path(folder) if folder else paths.derived_dir("augment")
    missing = [n for n in LEXICON_FILES.values() if not (folder / n).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder}/{missing[0]} is missing: {LEXICONS_FIX}")
    data = {attr: _read(folder / name) for attr, name in LEXICON_FILES.items()}
    meta = _read(folder / "meta.json") if (folder / "meta.json").is_file() else {}
    return AugmentLexicons(**data, meta=meta)


def _read(path: Path) -> dict:
    """One lexicon or ``meta.json``: a JSON object, or a ``ValueError`` naming the file and the fix (a cut one)."""
    try:
        out = json.loads(path.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError) as err:
        out, why = None, f"not JSON ({err})"
    else:
        why = f"a {type(out).__name__}, not a JSON object"
    if not isinstance(out, dict):
        raise ValueError(f"{path} is damaged: {why}. Build the lexicons again (delete {path.parent} and "
                         f"{LEXICONS_FIX})")
    return out


@lru_cache(maxsize=1)
def keyboard_neighbours() -> dict[str, tuple[str, ...]]:
    """Lower-case letter -> neighbouring letters on a QWERTY keyboard (nlpaug's map)."""
    import nlpaug
    from nlpaug.model.char import Keyboard

    path = Path(nlpaug.__file__).parent / "res" / "char" / "keyboard" / "en.json"
    model = Keyboard.get_model(str(path), special_char=False, numeric=False, upper_case=False)
    return {k: tuple(v for v in vals if v.isalpha()) for k, vals in model.items() if k.isalpha() and k.islower()}


def _letters(phrase: str) -> list[int]:
    return [i for i, c in enumerate(phrase) if c.isalpha()]


def _same_case(new: str, old: str) -> str:
    return new.upper() if old.isupper() else new


# ---------------------------------------------------------------- character level
def char_swap(phrase, rng, lexicons=None):
    spots = [i for i in range(len(phrase) - 1)
             if phrase[i].isalpha() and phrase[i + 1].isalpha() and phrase[i] != phrase[i + 1]]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    return phrase[:i] + phrase[i + 1] + phrase[i] + phrase[i + 2 :]


def char_delete(phrase, rng, lexicons=None):
    # only letters of words of two or more characters: deleting a one-letter word is a
    # token deletion, and deleting the only character would leave nothing
    spots = [i for i in _letters(phrase)
             if (i > 0 and not phrase[i - 1].isspace()) or (i + 1 < len(phrase) and not phrase[i + 1].isspace())]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    return phrase[:i] + phrase[i + 1 :]


def char_insert(phrase, rng, lexicons=None):
    spots = _letters(phrase)
    if not spots:
        return None
    i = spots[rng.integers(len(spots))] + int(rng.integers(2))  # before or after a letter
    return phrase[:i] + string.ascii_lowercase[rng.integers(26)] + phrase[i:]


def char_keyboard(phrase, rng, lexicons=None):
    keys = keyboard_neighbours()
    spots = [i for i, c in enumerate(phrase) if keys.get(c.lower())]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    options = keys[phrase[i].lower()]
    return phrase[:i] + _same_case(options[rng.integers(len(options))], phrase[i]) + phrase[i + 1 :]


# ---------------------------------------------------------------- token level
def token_swap(phrase, rng, lexicons=None):
    tokens = phrase.split()
    spots = [i for i in range(len(tokens) - 1) if tokens[i] != tokens[i + 1]]
    if not spots:
        return None
    i = spots[rng.integers(len(spots))]
    tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    return " ".join(tokens)


def _replace_token(phrase, rng, table):
    tokens = phrase.split()
    # lower-case tokens only: names have no synonyms ("New York" -> "Young York")
    spots = [(i, table.get(t)) for i, t in enumerate(tokens) if t.islower() and table.get(t)]
    if not spots:
        return None
    i, syns = spots[rng.integers(len(spots))]
    new = syns[rng.integers(len(syns))]
    tokens[i] = new
    return " ".join(tokens)


class _LiveWordNet(dict):
    """A dict-like WordNet table filled on first lookup (no precomputed table)."""

    def get(self, word, default=None):
        if word not in self:

            self[word] = [s for s in synonyms(word) if " " not in s] if word.isalpha() and word.isascii() else []
        return self[word] or default


def token_wordnet(phrase, rng, lexicons=None):
    return _replace_token(phrase, rng, lexicons.wordnet) if lexicons is not None else None


def token_glove(phrase, rng, lexicons=None):
    return _replace_token(phrase, rng, lexicons.glove) if lexicons is not None else None


# ---------------------------------------------------------------- phrase level
def phrase_paraphrase(phrase, rng, lexicons=None):
    cands = lexicons.paraphrases.get(phrase) if lexicons is not None else None
    if cands is None:

        cands = OfflineParaphraser(wordnet=False).paraphrase(phrase)
    return cands[rng.integers(len(cands))] if cands else None


OPS = {name: globals()[name] for names in LEVELS.values() for name in names}


class Augmenter:
    """Seeded sampler of one augmentation per phrase (see the module docstring).

    >>> aug = Augmenter(char=1, token=0, phrase=0, seed_or_rng=0)
    >>> out = aug.augment("The New York Times"); out != "The New York Times"
    True
    """

    def __init__(self, char: float = 1.0, token: float = 1.0, phrase: float = 1.0, seed_or_rng=0,
                 lexicons: AugmentLexicons | None = None, live_wordnet: bool = False):
        weights = {"char": char, "token": token, "phrase": phrase}
        if any(not np.isfinite(w) or w < 0 for w in weights.values()):
            raise ValueError(f"level probabilities must be finite and >= 0, got {weights}")
        self.weights = {k: float(w) for k, w in weights.items() if w > 0}
        self.rng = seed_or_rng if isinstance(seed_or_rng, np.random.Generator) else np.random.default_rng(seed_or_rng)
        if lexicons is None and live_wordnet:
            lexicons = AugmentLexicons(wordnet=_LiveWordNet())
        self.lexicons = lexicons

    def _try_level(self, level: str, phrase: str) -> tuple[str, str] | None:
        names = list(LEVELS[level])
        for j in self.rng.permutation(len(names)):
            out = OPS[names[j]](phrase, self.rng, self.lexicons)
            if out is not None and out != phrase and out.strip():
                return names[j], out
        return None

    def augment_with_op(self, phrase: str) -> tuple[str, str]:
        """``(operation, augmented phrase)``; operation is "none" when nothing applies."""
        if not isinstance(phrase, str):
            raise TypeError(f"augment() takes a str, got {type(phrase).__name__}")
        if not phrase.strip() or not self.weights:
            return "none", phrase
        levels = list(self.weights)
        p = np.array([self.weights[k] for k in levels])
        # levels in a random order drawn by weight: the first that applies wins
        order = self.rng.choice(len(levels), size=len(levels), replace=False, p=p / p.sum())
        for j in order:
            if (hit := self._try_level(levels[j], phrase)) is not None:
                return hit
        return "none", phrase

    def augment(self, phrase: str) -> str:
        """One augmented copy of ``phrase`` (the phrase itself only when nothing applies)."""
        return self.augment_with_op(phrase)[1]

    def augment_many(self, phrases: list[str]) -> list[tuple[str, str]]:
        """:meth:`augment_with_op` of each phrase, in order (one draw each from this sampler)."""
        return [self.augment_with_op(p) for p in phrases]

    def variants(self, phrase: str) -> dict[str, str]:
        """One example per sub-operation that applies to ``phrase`` (all levels, whatever
        their weights), in the order of :data:`LEVELS`."""
        out = {}
        for name, op in OPS.items():
            res = op(phrase, self.rng, self.lexicons) if phrase.strip() else None
            if res is not None and res != phrase:
                out[name] = res
        return out


def op_summary(pairs: list[tuple[str, str]], phrases: list[str]) -> tuple[Counter, float]:
    """(operations drawn, counted; share of ``phrases`` whose copy differs) of :meth:`Augmenter.augment_many`."""
    changed = sum(out != p for (_, out), p in zip(pairs, phrases)) / len(phrases)
    return Counter(op for op, _ in pairs), changed


def coverage(phrases: list[str], lexicons: AugmentLexicons | None) -> dict[str, float]:
    """Share of ``phrases`` each sub-operation (and each level) can change."""
    rng = np.random.default_rng(0)
    hits = {name: 0 for name in OPS}
    level_hits = {level: 0 for level in LEVELS}
    for phrase in phrases:
        ok = {name for name, op in OPS.items() if (r := op(phrase, rng, lexicons)) is not None and r != phrase}
        for name in ok:
            hits[name] += 1
        for level, names in LEVELS.items():
            level_hits[level] += bool(ok & set(names))
    n = max(len(phrases), 1)
    return {**{f"level_{k}": v / n for k, v in level_hits.items()}, **{k: v / n for k, v in hits.items()}}
