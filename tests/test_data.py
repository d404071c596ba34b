"""The data layer: offline folder first, verified files, clear errors naming the fix."""
import functools
import os
from pathlib import Path

import pytest
from pearl import data, paths, resources


def test_offline_folder_is_found():
    root = paths.raw_data_dir()
    assert root is not None and (root / "pearl_benchmark").is_dir()


def test_readers_match_the_documented_row_counts():
    assert len(data.read_ppdb()) == 23_364
    assert len(data.read_ppdb(filtered=True)) == 15_532
    assert len(data.read_turney()) == 2_180
    assert len(data.read_bird()) == 3_345
    assert len(data.read_retrieval("yago")) == 10_000
    assert len(data.read_retrieval("umls")) == 10_000
    assert len(data.autofj_names()) == 50


def test_turney_drops_the_constituent_words():
    bigram, cands = data.read_turney()[0]
    assert bigram == "double star" and cands[0] == "binary"
    assert "double" not in cands and "star" not in cands


def test_typed_mentions_keep_only_the_benchmark_types():
    conll = data.read_typed_mentions("conll")
    assert {t for _, t in conll} == {"PER", "LOC", "ORG"}
    assert ("Nadim Ladki", "PER") in conll
    assert {t for _, t in data.read_typed_mentions("bc5cdr")} == {"Chemical", "Disease"}


def test_autofj_tables_read_without_importing_autofj():
    import sys

    left, right, gt = data.read_autofj("Country")
    assert len(left) == 2791 and len(right) == 291 and len(gt) == 291
    assert "autofj" not in sys.modules


def test_missing_folder_env_var_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("PEARL_DATA", str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="PEARL_DATA"):
        paths.raw_data_dir()


def test_missing_file_names_file_and_fix(monkeypatch, tmp_path):
    (tmp_path / "pearl_benchmark").mkdir()
    monkeypatch.setenv("PEARL_DATA", str(tmp_path))
    with pytest.raises(data.DataError, match="ppdb.json.*PEARL_DATA"):
        data.fetch("pearl_benchmark/ppdb/ppdb.json")


def test_corrupt_file_is_refused(monkeypatch, tmp_path):
    bad = tmp_path / "pearl_benchmark" / "turney" / "turney.txt"
    bad.parent.mkdir(parents=True)
    bad.write_text("tampered | x | y | z\n")
    monkeypatch.setenv("PEARL_DATA", str(tmp_path))
    with pytest.raises(data.DataError, match="corrupt"):
        data.fetch("pearl_benchmark/turney/turney.txt")


def test_download_failure_is_a_clear_error(monkeypatch, tmp_path):
    """No data folder, empty cache, no network: the error says what to do (no network is touched:
    urlopen is replaced)."""
    monkeypatch.delenv("PEARL_DATA", raising=False)
    monkeypatch.setattr(paths, "raw_data_dir", lambda: None)
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path))

    def refuse(*a, **k):
        raise OSError("network unreachable")

    monkeypatch.setattr(data.urllib.request, "urlopen", refuse)
    with pytest.raises(data.DataError, match="could not download.*PEARL_DATA"):
        data.fetch("pearl_benchmark/bird/bird.txt")


def test_wordnet_works_offline_from_debian_files():
    from conftest import have_wordnet

    if not have_wordnet():
        pytest.skip("WordNet missing: apt-get install wordnet-base")
    resources.wordnet_ready()
    from nltk.corpus import wordnet as wn

    assert "dog.n.01" in {s.name() for s in wn.synsets("dog")}


# --------------------------------------------------------------------------- every input verified

#: every reader of the data folder, called with every argument it is used with
READERS = {
    "read_ppdb": [(), (True,)],
    "read_turney": [()],
    "read_bird": [()],
    "read_retrieval": [("yago",), ("umls",)],
    "read_typed_mentions": [(n, s) for n in data.CLUSTER_TYPES for s in ("train", "dev", "test")],
    "autofj_names": [()],
    "wikitext2_lines": [()],
    "wordnet_ready": [()],
}


def _opened_under(root, calls):
    """The files under ``root`` opened while running ``calls`` (seen through the ``open`` audit event)."""
    import sys

    seen, state = set(), {"on": False}

    def hook(event, args):
        if state["on"] and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = Path(os.fsdecode(args[0])).resolve()
            if path.is_relative_to(root):
                seen.add(path.relative_to(root).as_posix())

    sys.addaudithook(hook)  # hooks cannot be removed: this one is switched off after the calls
    state["on"] = True
    try:
        for call in calls:
            call()
    finally:
        state["on"] = False
    return seen


def test_every_file_the_readers_open_has_a_checksum(monkeypatch, tmp_path):
    """Walks every function of pearl.data and pearl.resources that reads the data folder (and the
    dictionaries' BC5CDR source): each file opened there must be in pearl.data.SHA256."""
    import inspect

    from conftest import have_wordnet
    from pearl.benchmark import dictionaries

    modules = {name: module for module in (data, resources) for name, fn in inspect.getmembers(module, inspect.isfunction)
               if fn.__module__ == module.__name__ and "fetch(" in inspect.getsource(fn) and name != "fetch"}
    readers = set(modules)
    assert readers == set(READERS), "a new reader of the data folder: add it to READERS"
    if not have_wordnet():
        READERS.pop("wordnet_ready")
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path))  # wordnet_ready copies lexnames into an empty cache
    data._verified.clear()  # verified earlier in this session: open them again
    calls = [functools.partial(getattr(modules[name], name), *args) for name, arglists in READERS.items() for args in arglists]
    calls.append(dictionaries.bc5cdr_mentions)
    opened = _opened_under(paths.raw_data_dir(), calls)
    assert {"pearl_benchmark/conll2003/train.json", "pearl_benchmark/bc5cdr/dev.json"} <= opened
    assert not opened - set(data.SHA256), f"read but never verified: {sorted(opened - set(data.SHA256))}"


def test_the_checksum_table_is_the_data_folders():
    sums = {}
    for line in (paths.raw_data_dir() / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name.removeprefix("./")] = digest
    assert data.SHA256 == sums


def test_a_file_without_a_checksum_is_refused(monkeypatch, tmp_path):
    extra = tmp_path / "pearl_benchmark" / "new" / "new.txt"
    extra.parent.mkdir(parents=True)
    extra.write_text("unverifiable\n")
    monkeypatch.setenv("PEARL_DATA", str(tmp_path))
    with pytest.raises(data.DataError, match=r"pearl_benchmark/new/new.txt has no sha256.*add its line"):
        data.fetch("pearl_benchmark/new/new.txt")


def test_a_missing_corpus_file_does_not_suggest_downloading(monkeypatch, tmp_path):
    """Only pearl_benchmark/ files have a download source; the others come from the offline copy."""
    (tmp_path / "pearl_benchmark").mkdir()
    monkeypatch.setenv("PEARL_DATA", str(tmp_path))
    with pytest.raises(data.DataError) as err:
        data.fetch("corpora/wikitext2/valid.txt")
    assert "corpora/wikitext2/valid.txt" in str(err.value) and "PEARL_DATA" in str(err.value)
    assert "download it" not in str(err.value) and "connected machine" not in str(err.value)
    monkeypatch.setattr(paths, "raw_data_dir", lambda: None)  # no data folder at all: still no download
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(data.DataError, match="no download source") as err:
        data.fetch("short_text/atis/atis_test.tsv")
    assert "connected machine" not in str(err.value)


def test_unknown_data_sets_and_splits_list_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown typed-mention data set 'unknown': choose from conll, bc5cdr"):
        data.read_typed_mentions("unknown")
    with pytest.raises(ValueError, match=r"unknown split of conll 'validation': choose from train, dev, test"):
        data.read_typed_mentions("conll", "validation")
    with pytest.raises(ValueError, match=r"unknown retrieval data set 'nonsense': choose from yago, umls"):
        data.read_retrieval("nonsense")
    with pytest.raises(ValueError, match=r"unknown AutoFJ data set 'nonsense' .*choose from .*Amphibian"):
        data.read_autofj("nonsense")


@pytest.mark.parametrize("writable", [True, False])
def test_the_corrupt_file_advice_fits_where_the_file_lives(monkeypatch, tmp_path, writable):
    """In a data folder: replace it (writable) or use another copy (read-only); never "delete it
    and fetch it again", which cannot work there. In the download cache: delete and fetch again."""
    import os

    bad = tmp_path / "data" / "pearl_benchmark" / "turney" / "turney.txt"
    bad.parent.mkdir(parents=True)
    bad.write_text("tampered | x | y | z\n")
    monkeypatch.setenv("PEARL_DATA", str(tmp_path / "data"))
    if not writable:
        monkeypatch.setattr(os, "access", lambda path, mode: False)  # as a read-only mount (root ignores chmod)
    want = r"corrupt.*Replace it with an intact copy" if writable else r"corrupt.*is read-only.*point PEARL_DATA at another"
    with pytest.raises(data.DataError, match=want) as err:
        data.fetch("pearl_benchmark/turney/turney.txt")
    assert "Delete it" not in str(err.value)
    cached = tmp_path / "cache" / "pearl_benchmark" / "bird" / "bird.txt"
    cached.parent.mkdir(parents=True)
    cached.write_text("tampered\n")
    monkeypatch.setattr(paths, "raw_data_dir", lambda: None)
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(data.DataError, match="corrupt.*Delete it and fetch it again"):
        data.fetch("pearl_benchmark/bird/bird.txt")


def test_a_file_changed_after_it_was_verified_is_verified_again(monkeypatch, tmp_path):
    """Verified once per process used to mean never again: a file changed later in the same kernel
    was read unchecked. A changed size or mtime means verifying again."""
    name = "pearl_benchmark/bird/bird.txt"
    copy = tmp_path / name
    copy.parent.mkdir(parents=True)
    copy.write_bytes((paths.raw_data_dir() / name).read_bytes())
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path))
    assert data.fetch(name) == copy.resolve()
    raw = bytearray(copy.read_bytes())
    raw[100] ^= 0x01  # same size: the mtime changes
    copy.write_bytes(bytes(raw))
    with pytest.raises(data.DataError, match=r"bird.txt is corrupt"):
        data.fetch(name)


def test_wordnets_files_are_checksummed_in_debians_folder_and_in_the_copy(monkeypatch, tmp_path):
    from conftest import have_wordnet

    if not have_wordnet():
        pytest.skip("WordNet missing: apt-get install wordnet-base")
    assert set(resources.WORDNET_SHA256) <= {p.name for p in resources.DEBIAN_WORDNET.iterdir()}
    debian = tmp_path / "debian"
    debian.mkdir()
    for name in resources.WORDNET_SHA256:
        (debian / name).write_bytes((resources.DEBIAN_WORDNET / name).read_bytes())
    raw = bytearray((debian / "data.noun").read_bytes())
    at = raw.index(b" n ", 100_000)
    raw[at + 1] = ord("x")  # a flipped letter: nltk would fail with KeyError 'x' deep inside
    (debian / "data.noun").write_bytes(bytes(raw))
    monkeypatch.setattr(resources, "DEBIAN_WORDNET", debian)
    monkeypatch.setenv("PEARL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(data.DataError, match=r"data.noun is corrupt .*apt-get install --reinstall wordnet-base"):
        resources.wordnet_ready()
    monkeypatch.setattr(resources, "DEBIAN_WORDNET", resources.Path("/usr/share/wordnet"))
    resources.wordnet_ready()  # intact: copied and verified
    copy = tmp_path / "cache" / "nltk_data" / "corpora" / "wordnet" / "index.noun"
    copy.write_bytes(copy.read_bytes()[:1000])  # the copy NLTK reads, cut short later
    with pytest.raises(data.DataError, match=r"index.noun is corrupt .*delete"):
        resources.wordnet_ready()
