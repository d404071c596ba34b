"""pearl.guard: the hook a caller passes pearl's writers. pearl calls it at fixed points and knows
nothing of why: every target before the first write, the note into the metadata it writes; the
default asks nothing."""
import pytest
from pearl.corpus import augment, store
from pearl.guard import OPEN, Guard


class Refuses(Guard):
    """A caller's guard that records what it is shown and refuses it all."""

    def __init__(self):
        self.seen = []

    def check(self, targets):
        self.seen.extend(targets)
        raise PermissionError("refused")


def test_a_writer_shows_the_guard_every_target_before_its_first_write(tmp_path):
    guard = Refuses()
    with pytest.raises(PermissionError, match="refused"):
        store.write_corpus([("the war", "NP-OTHER", 2, "wikitext2")], tmp_path / "phrases.tsv", guard=guard)
    assert guard.seen == store.corpus_files(tmp_path / "phrases.tsv") and not list(tmp_path.iterdir())
    with pytest.raises(PermissionError):
        augment.save_lexicons(augment.AugmentLexicons(), tmp_path / "augment", guard=guard)
    assert not (tmp_path / "augment").exists()


def test_the_default_guard_asks_nothing_and_notes_nothing(tmp_path):
    path = store.write_corpus([("the war", "NP-OTHER", 2, "wikitext2")], tmp_path / "phrases.tsv", about={"corpus": "x"})
    assert store.read_about(path) == {"corpus": "x"}
    OPEN.check([path]), OPEN.check_input(path, "no fix needed")  # nothing refused
    assert dict(OPEN.note) == {} and OPEN.describe(path) == {}
    with pytest.raises(TypeError):
        OPEN.note["smoke"] = True  # read-only: no caller changes what every other caller records
    assert OPEN.write({tmp_path / "a.txt": "a"}) == [tmp_path / "a.txt"] and (tmp_path / "a.txt").read_text() == "a"


def test_noted_reads_the_note_in_the_metadata_pearl_wrote_beside_an_output(tmp_path):
    """A corpus written under a caller's note is noted, a clean one is not, and metadata that cannot
    be read counts as noted (never as clean); a path with no metadata is not noted."""
    from pearl.guard import metadata_of, noted

    class Notes(Guard):
        note = {"note": "a caller's run"}

    rows = [("the war", "NP-OTHER", 2, "wikitext2")]
    clean, marked = tmp_path / "clean" / "phrases.tsv", tmp_path / "marked" / "phrases.tsv"
    store.write_corpus(rows, clean)
    store.write_corpus(rows, marked, guard=Notes())
    assert metadata_of(clean) == clean.parent / "corpus.json"
    assert not noted(clean) and noted(marked)
    (clean.parent / "corpus.json").write_text("{cut")
    assert noted(clean)
    assert not noted(tmp_path / "nothing here")
