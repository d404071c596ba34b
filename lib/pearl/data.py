"""Find, verify and read every raw data set the companion uses.

Resolution order for a file such as ``pearl_benchmark/ppdb/ppdb.json``:

1. ``$PEARL_DATA/<file>`` (an offline copy, e.g. ``../shared/data``), else ``../shared/data``;
2. the download cache, filled from the canonical source: the PEARL repository at a pinned
   commit (``eval_data/``, the same files as the Hugging Face dataset
   ``Lihuchen/pearl_benchmark``). Every file is checked against its sha256.

A missing or corrupt file raises :class:`DataError` naming the file and the fix.
The AutoFJ tables are read straight from the installed ``autofj`` package folder, without
importing ``autofj`` (its import pulls in spaCy and more). Nothing is read at import time.

Readers return plain Python lists so evaluators stay independent of the storage format.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import urllib.request
from pathlib import Path

from . import paths

PEARL_COMMIT = "f7a14415aca933c6617f25cfbffc0bdc9d11a811"
PEARL_URL = f"https://raw.githubusercontent.com/tigerchen52/PEARL/{PEARL_COMMIT}/eval_data/"

#: sha256 of every raw file we read (same as ../shared/data/SHA256SUMS); a file not listed here
#: is refused (tests/test_data.py walks the readers to check that every file they open is)
SHA256 = {
    "corpora/wikipedia/AA.txt.xz": "927b859dcdaeb22267ba31163631578dd92328279f47b6195c14ed1ee036d2af",
    "corpora/wikipedia/AB.txt.xz": "5912a30013b996ab473dab89a476590f1176ef38b7d3355e65099cebb663f7e3",
    "corpora/wikipedia/AC.txt.xz": "353316463059056ea061896d12563a7680d6ed2f6f19c4a632d9c74073a24561",
    "corpora/wikipedia/AD.txt.xz": "4d9f26fadc156007faacb27196e6a1068ba48b1051993347d51f9504b4de9bf1",
    "corpora/wikitext2/test.txt": "d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
    "corpora/wikitext2/valid.txt": "f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
    "pearl_benchmark/autofj/autofj.md": "9bc8c4615b3d0173878f248de18669b15d033462b7896e8e8f29f3b351fd0a10",
    "pearl_benchmark/bc5cdr/dev.json": "f5848fbf651b618c1f0f7c6ddfba6ed88abd151688f093bbfe9c42b5ebdcffa7",
    "pearl_benchmark/bc5cdr/test.json": "d608484a6570979cb9b2adb080074000ea27fb18643232f52e4cc1d9c5d4a0d4",
    "pearl_benchmark/bc5cdr/train.json": "c1482956fbdb9f5c65f9b797fb22a8d452000f8a3fdfc9292df02b245553af7b",
    "pearl_benchmark/bird/bird.txt": "3ff0481c6c9b0060a53e441b2b4726f155b114184c4f7b8bc604c599e8a5d23c",
    "pearl_benchmark/conll2003/dev.json": "eaef82c64f65b42743e158c1a04882fca38cac9e8731b39d2b4f8bd6208a1adf",
    "pearl_benchmark/conll2003/test.json": "475eba8ffedfeffd617e90361a673811b5c0fefc3e5e483becfac400c0a1030e",
    "pearl_benchmark/conll2003/train.json": "a7ebd3832d3dc9f103809f50c51bbe33c129f72a6508fbf544ad0ee2f9385540",
    "pearl_benchmark/ppdb/ppdb.json": "512b7d17f5cb0ff416bf4265ee1c5fcbf26ccfa6f023758c66a10ec88fd4b729",
    "pearl_benchmark/ppdb/ppdb_filtered.json": "4fca367c34caf9e2f0a637b5e4af77d7ee4eedc1e29d371dd3273c58f5dec27a",
    "pearl_benchmark/turney/turney.txt": "c748c002cb02ba3637b64bd46d7acc9edb5b7b27e644a322eac234a4600ec498",
    "pearl_benchmark/umls/umls_test_samples.txt": "c940df887f50a9ca2d0ab5e5b6dd78f580272b0bf812cb38e66626a3db4622d2",
    "pearl_benchmark/yago/yago_test_samples.txt": "8de9bd25a264f2954b14109e906155404841c6a857ea69bc12bf632576baaef2",
    "short_text/atis/atis_test.tsv": "42c2648f274d2b6397e869bb9362f2364a5d348009fa0d98e71afac27332b3e4",
    "short_text/atis/atis_train.tsv": "8824c233cd5555a7f728a740bbe39d501b360cc8c54fbac120e64feb83a69598",
    "short_text/atis/atis_valid.tsv": "9a8dc3385f9b2e177fb3df0e0dcf78f331c0b025ae9e6b8363a2cbbfafc6af51",
    "short_text/twitter_sentiment140/negative.txt": "91305124952116f2a29e1b1024eb74f74f6bfdf566189ffed2f0bfa9b181a3b7",
    "short_text/twitter_sentiment140/positive.txt": "9974fca006a8ba35d363f2444712b16479948ba2fc9613a2d42cdd143251769d",
    "wordnet/lexnames": "c871b6797d2109f563f7a162b64e8ebf18f6f42d00918572846034c7f393a214",
}

FIX = (
    "Set PEARL_DATA to a folder holding the offline copy (see ../shared/data/README.md), "
    "or run on a connected machine so that `pearl.data.fetch('{name}')` can download it."
)
#: for files with no download source (only pearl_benchmark/ files have one)
FIX_OFFLINE_ONLY = (
    "{name} has no download source: set PEARL_DATA to a folder holding the offline copy "
    "(see ../shared/data/README.md) that includes it."
)


def fix(name: str) -> str:
    """How to get ``name``: downloading is suggested only for files that have a source."""
    return FIX.format(name=name) if name.startswith("pearl_benchmark/") else FIX_OFFLINE_ONLY.format(name=name)


class DataError(FileNotFoundError):
    """A data file is missing or corrupt; the message says how to fix it."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: files verified in this process, keyed by (path, size, mtime, inode): a file changed since
#: (another size or mtime, or replaced) is verified again before it is read
_verified: set[tuple] = set()


def _stat_key(path: Path) -> tuple:
    st = path.stat()
    return (str(path), st.st_size, st.st_mtime_ns, st.st_ino)


def fetch(name: str) -> Path:
    """Path of raw file ``name`` (e.g. ``"pearl_benchmark/ppdb/ppdb.json"``), verified.

    Looks in the offline folder first, then the download cache, then downloads.
    """
    root = paths.raw_data_dir()
    candidates = [root / name] if root else []
    candidates.append(paths.cache_dir() / name)
    for path in candidates:
        if path.is_file():
            return _verify(path, name)
    if root is not None or not name.startswith("pearl_benchmark/"):
        # offline copy present but this file is not in it: do not silently go online;
        # files outside pearl_benchmark/ have nowhere to come from but the offline copy
        raise DataError(f"{name} is missing from {root or 'the download cache ' + str(paths.cache_dir())}. " + fix(name))
    return _verify(_download(name), name)


def _verify(path: Path, name: str) -> Path:
    """``path`` when its sha256 is the one in :data:`SHA256`; a file not in the table is an
    error too (an unverified input could silently change the numbers)."""
    key = _stat_key(path)
    if key in _verified:
        return path
    if name not in SHA256:
        raise DataError(f"{name} has no sha256 in pearl.data.SHA256, so it cannot be verified: add its "
                        f"line from SHA256SUMS of the data folder to pearl.data.SHA256 (a code change, reviewed).")
    got = sha256(path)
    if got != SHA256[name]:
        raise DataError(f"{path} is corrupt (sha256 {got[:12]}…, expected {SHA256[name][:12]}…). " + _corrupt_fix(path, name))
    _verified.add(key)
    return path


def _corrupt_fix(path: Path, name: str) -> str:
    """The fix for a corrupt file, for where it lives: the download cache (delete, fetch again),
    a data folder we may write (replace it), or a read-only one (use another copy)."""
    if path.resolve().is_relative_to(paths.cache_dir().resolve()):
        return "Delete it and fetch it again: " + fix(name)
    if os.access(path.parent, os.W_OK):
        return (f"Replace it with an intact copy of {name} (its sha256 is in pearl.data.SHA256 and the data "
                f"folder's SHA256SUMS), or point {paths.DATA_ENV} at another copy of the data folder.")
    return (f"{path.parent} is read-only, so the file cannot be replaced from here: point {paths.DATA_ENV} at "
            f"another, intact copy of the data folder, or ask its owner to restore {name}.")


def choose(kind: str, value: str, valid) -> str:
    """``value`` when it is one of ``valid``, else a ``ValueError`` listing them."""
    if value not in valid:
        raise ValueError(f"unknown {kind} {value!r}: choose from {', '.join(valid)}")
    return value


def _download(name: str) -> Path:
    if not name.startswith("pearl_benchmark/"):
        raise DataError(fix(name))
    url = PEARL_URL + name.removeprefix("pearl_benchmark/")
    target = paths.cache_dir() / name
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".part")
    try:
        with urllib.request.urlopen(url, timeout=60) as response, open(tmp, "wb") as fh:
            shutil.copyfileobj(response, fh)
    except OSError as err:
        raise DataError(f"could not download {name} from {url} ({err}). " + fix(name)) from err
    tmp.replace(target)
    return target


# --------------------------------------------------------------------------- readers


def read_ppdb(filtered: bool = False) -> list[tuple[str, str, int]]:
    """PPDB pairs as ``(phrase1, phrase2, label)`` with label 1 for "pos"."""
    name = "ppdb_filtered" if filtered else "ppdb"
    rows = json.loads(fetch(f"pearl_benchmark/ppdb/{name}.json").read_text(encoding="utf8"))
    return [(r[0], r[1], int(r[2] == "pos")) for r in rows]


def read_turney() -> list[tuple[str, list[str]]]:
    """Turney items as ``(bigram, candidates)``; ``candidates[0]`` is the gold unigram.

    The two constituent words of the bigram (columns 3-4) are excluded from the
    candidates, as in the reference protocol.
    """
    items = []
    for line in fetch("pearl_benchmark/turney/turney.txt").read_text(encoding="utf8").splitlines():
        if line.strip():
            cols = [c.strip() for c in line.split(" | ")]
            items.append((cols[0], [cols[1]] + cols[4:]))
    return items


def read_bird() -> list[tuple[str, str, float]]:
    """BIRD pairs as ``(term1, term2, relatedness)``; the score is the 2nd-last column."""
    lines = fetch("pearl_benchmark/bird/bird.txt").read_text(encoding="utf8").splitlines()[1:]
    rows = [line.rstrip("\n").split("\t") for line in lines if line.strip()]
    return [(r[1], r[2], float(r[-2])) for r in rows]


def read_retrieval(name: str) -> list[tuple[str, str]]:
    """Entity-retrieval test pairs ``(mention, canonical name)`` for "yago" or "umls"."""
    choose("retrieval data set", name, RETRIEVAL)
    text = fetch(f"pearl_benchmark/{name}/{name}_test_samples.txt").read_text(encoding="utf8")
    return [tuple(line.split("\t")[:2]) for line in text.splitlines() if "\t" in line]


RETRIEVAL = ("yago", "umls")
SPLITS = ("train", "dev", "test")
CLUSTER_TYPES = {"conll": ("conll2003", ("PER", "LOC", "ORG")), "bc5cdr": ("bc5cdr", ("Chemical", "Disease"))}


def read_typed_mentions(name: str, split: str = "test") -> list[tuple[str, str]]:
    """Every typed entity mention of a split as ``(mention, type)``, duplicates kept."""
    folder, types = CLUSTER_TYPES[choose("typed-mention data set", name, tuple(CLUSTER_TYPES))]
    choose(f"split of {name}", split, SPLITS)
    out = []
    for line in fetch(f"pearl_benchmark/{folder}/{split}.json").read_text(encoding="utf8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        for tokens, spans in zip(obj["sentences"], obj["ner"]):
            for start, end, etype in spans:
                if etype in types:
                    out.append((" ".join(tokens[start : end + 1]), etype))
    return out


def autofj_names() -> list[str]:
    """The 50 AutoFJ data set names, in the order of the benchmark's ``autofj.md``."""
    lines = fetch("pearl_benchmark/autofj/autofj.md").read_text(encoding="utf8").splitlines()
    names = [line.split("|")[1].strip() for line in lines[2:] if line.startswith("|")]
    return [n for n in names if n]


def autofj_dir() -> Path:
    """The ``autofj/benchmark`` folder of the installed package (found without importing it)."""
    spec = importlib.util.find_spec("autofj")
    if spec is None or not spec.submodule_search_locations:
        raise DataError("the AutoFJ tables come with the PyPI package `autofj`: pip install autofj")
    folder = Path(list(spec.submodule_search_locations)[0]) / "benchmark"
    if not folder.is_dir():
        raise DataError(f"{folder} is missing: reinstall the `autofj` package")
    return folder


def read_autofj(name: str) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """One AutoFJ data set: ``(left titles, right titles, [(right, left) ground truth])``."""
    import pandas as pd  # local: pandas is heavy and only readers need it

    folder = autofj_dir() / name
    if not folder.is_dir():  # the package folder also holds a stray .DS_Store: skip non-dirs
        raise ValueError(f"unknown AutoFJ data set {name!r} (not in {folder.parent}): choose from {', '.join(autofj_names())}")
    left = pd.read_csv(folder / "left.csv")["title"].astype(str).tolist()
    right = pd.read_csv(folder / "right.csv")["title"].astype(str).tolist()
    gt = pd.read_csv(folder / "gt.csv")
    return left, right, list(zip(gt["title_r"].astype(str), gt["title_l"].astype(str)))


def wikitext2_lines() -> list[str]:
    """Non-empty, non-heading lines of WikiText-2 valid + test (the offline Wikipedia)."""
    out = []
    for split in ("valid", "test"):
        for line in fetch(f"corpora/wikitext2/{split}.txt").read_text(encoding="utf8").splitlines():
            line = line.strip()
            if line and not line.startswith("="):
                out.append(line)
    return out
