"""The data layer: offline folder first, verified files, clear errors naming the fix."""
import pytest
from pearl import data, paths


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
    data.wordnet_ready()
    from nltk.corpus import wordnet as wn

    assert "dog.n.01" in {s.name() for s in wn.synsets("dog")}
