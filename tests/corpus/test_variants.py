"""Named training corpora: where each lives, what it refuses."""
import pytest

from pearl import paths
from pearl.corpus import store, variants


@pytest.fixture
def own_output(tmp_path, monkeypatch):
    """An output root of this test's own (not the session's, which the notebook tests share)."""
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    return tmp_path


def test_each_corpus_has_its_own_folder_and_wikitext2_is_the_notebooks(own_output):
    assert variants.folder("wikitext2") == paths.derived_dir()
    folders = {variants.folder(n) for n in variants.CORPORA}
    assert len(folders) == len(variants.CORPORA)
    assert set(variants.files("wikipedia-10x")) == {"corpus", "augment", "hard_negatives"}
    with pytest.raises(ValueError, match="choose from wikitext2, wikipedia-1x, wikipedia-10x"):
        variants.folder("wiki")


def test_wikitext2_is_the_notebooks_corpus_unless_they_built_wikipedia(own_output):
    """The data notebooks' WikiText-2 is shared (its tables must exist); once they built Wikipedia
    (the gpu profile), WikiText-2 has a folder of its own, like the other corpora."""
    store.write_corpus([("the war", "NP-OTHER", 3, "wikitext2")], about={"corpus": "wikitext2"})
    assert variants.shares_wikitext2() and variants.folder("wikitext2") == paths.derived_dir()
    with pytest.raises(FileNotFoundError, match="is missing: build the corpus's lexicons and hard negatives first"):
        variants.prepare("wikitext2")
    store.write_corpus([("the war", "NP-OTHER", 3, "wikipedia")], about={"corpus": "wikipedia"})
    assert not variants.shares_wikitext2() and variants.folder("wikitext2") == paths.derived_dir("corpora", "wikitext2")
    assert variants.files("wikitext2")["corpus"].parent.name == "wikitext2"


def test_the_ten_fold_sample_is_three_disjoint_samples():
    samples = variants.CORPORA["wikipedia-10x"].samples
    assert len({s.offset for s in samples}) == 3 and {s.stride for s in samples} == {30}
    assert not any(a.keeps(i) and b.keeps(i) for a in samples for b in samples if a != b for i in range(300))
