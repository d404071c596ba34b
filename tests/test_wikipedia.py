"""The Wikipedia reader: records, titles, samples, checksums and clear errors on bad files."""
import hashlib
import lzma

import pytest
from _wiki_tiny import SENTENCES, make
from pearl import wikipedia as wp
from pearl.data import SHA256, DataError


def test_reads_records_with_titles_apart_from_text(tmp_path):
    arts = list(wp.articles(folder=make(tmp_path)))
    assert [a.id for a in arts] == [str(10 + i) for i in range(10)]
    first = arts[0]
    assert first.title == "Topic 0 & Co" and first.url.endswith("curid=10")
    assert first.paragraphs == tuple(SENTENCES[:3])  # the title line is not text
    assert first.n_tokens() == sum(len(s.split()) for s in SENTENCES[:3])


def test_sample_is_a_fixed_stride_across_files(tmp_path):
    folder = make(tmp_path)
    ids = [a.id for a in wp.articles(wp.Sample(stride=3, offset=1), folder)]
    assert ids == ["11", "14", "17"]
    assert [a.id for a in wp.articles(wp.Sample(stride=3, offset=1, max_articles=2), folder)] == ["11", "14"]
    assert wp.Sample(stride=3, offset=1).size() == len(range(1, wp.N_ARTICLES, 3))
    with pytest.raises(ValueError, match="offset"):
        wp.Sample(stride=2, offset=2)


def test_offline_copy_is_checksummed_like_every_raw_file():
    assert {f"{wp.SOURCE}/{n}.txt.xz" for n in wp.FILES} <= set(SHA256)


def test_corrupt_file_names_the_file(tmp_path):
    folder = make(tmp_path)
    path = folder / "A1.txt.xz"
    raw = bytearray(path.read_bytes())
    raw[40] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(DataError, match="A1.txt.xz is corrupt"):
        next(wp.articles(folder=folder))


def test_missing_file_and_missing_sums(tmp_path):
    folder = make(tmp_path)
    (folder / "A0.txt.xz").unlink()
    with pytest.raises(DataError, match="A0.txt.xz is missing"):
        next(wp.articles(folder=folder))
    (folder / "SHA256SUMS").unlink()
    with pytest.raises(DataError, match="sha256sum"):
        next(wp.articles(folder=folder))


def test_truncated_stream_with_a_matching_digest_is_an_error(tmp_path):
    folder = make(tmp_path, files=1)
    path = folder / "A0.txt.xz"
    path.write_bytes(path.read_bytes()[:-30])  # cut inside the xz stream
    (folder / "SHA256SUMS").write_text(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  A0.txt.xz\n")
    with pytest.raises(DataError, match="A0.txt.xz is damaged"):
        list(wp.articles(folder=folder))


def test_record_cut_before_its_end_is_an_error(tmp_path):
    folder = tmp_path / "cut"
    folder.mkdir()
    path = folder / "A0.txt.xz"
    path.write_bytes(lzma.compress(b'<doc id="1" url="u" title="T">\nT\nSome text.\n'))
    (folder / "SHA256SUMS").write_text(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  A0.txt.xz\n")
    with pytest.raises(DataError, match="truncated"):
        list(wp.articles(folder=folder))
