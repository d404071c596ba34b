"""Stream Wikipedia articles from WikiExtractor ``.xz`` files, verified, in bounded memory: the text
that the phrase corpus (:mod:`pearl.corpus.build`) and ``mlm-wiki``'s pretraining (:mod:`pearl.backbones.mlm_pretrain`) read.

The offline copy (``corpora/wikipedia/{AA,AB,AC,AD}.txt.xz``, 30,729 articles, about 65.2M
whitespace tokens, see the data folder's README) is found and checked through
:func:`pearl.data.fetch`, like every other raw file. Any other folder of ``*.xz`` files in the
same format (a full dump run through WikiExtractor, on a connected machine) can be read by
passing ``folder``: its ``SHA256SUMS`` (``sha256sum *.xz > SHA256SUMS``) lists the files and
their digests, and every file is checked before it is read.

Each record is ``<doc id="..." url="..." title="...">``, the title again on the first line,
then one paragraph per line, then ``</doc>``. :func:`articles` yields :class:`Article` with
the title kept apart from the text: a title names an entity that has a page (its ``url``),
which is what entity-name augmentation needs, so it is not parsed as a sentence.

Files are decompressed as a stream (``lzma.open``): memory holds one article at a time. A
truncated or damaged file that slipped past the digest (or a folder without digests for it)
raises :class:`pearl.data.DataError` naming the file.

:class:`Sample` picks a deterministic subset: every ``stride``-th article from ``offset``,
at most ``max_articles``; the same sample always yields the same articles in the same order.

Left out: the full-dump XML (run WikiExtractor first), redirects and disambiguation pages
(the files hold article text only), and ``.bz2`` input.
"""
from __future__ import annotations

import html
import lzma
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

FILES = ("AA", "AB", "AC", "AD")
N_ARTICLES = 30_729  # in the offline copy, counted by streaming it
N_TOKENS = 64_989_900  # their paragraphs' whitespace tokens (titles and empty lines left out)
SOURCE = "corpora/wikipedia"
_DOC = re.compile(r'<doc id="(?P<id>[^"]*)" url="(?P<url>[^"]*)" title="(?P<title>[^"]*)">')


@dataclass(frozen=True)
class Article:
    """One article: its page id, url, title (an entity name with a known page) and paragraphs."""

    id: str
    url: str
    title: str
    paragraphs: tuple[str, ...]

    def n_tokens(self) -> int:
        """Whitespace tokens of the paragraphs (the title line excluded)."""
        return sum(len(p.split()) for p in self.paragraphs)


@dataclass(frozen=True)
class Sample:
    """Every ``stride``-th article starting at ``offset``, at most ``max_articles`` (0: all)."""

    stride: int = 1
    offset: int = 0
    max_articles: int = 0

    def __post_init__(self):
        if self.stride < 1 or not 0 <= self.offset < self.stride or self.max_articles < 0:
            raise ValueError(f"bad sample {self}: need stride >= 1, 0 <= offset < stride, max_articles >= 0")

    def keeps(self, index: int) -> bool:
        return index % self.stride == self.offset

    def size(self, folder=None) -> int | None:
        """Articles in the sample of the offline copy; None for another folder (not counted ahead)."""
        if folder is not None:
            return None
        n = len(range(self.offset, N_ARTICLES, self.stride))
        return min(n, self.max_articles) if self.max_articles else n

    def describe(self) -> str:
        """A sentence naming the sample, for outputs and figure captions."""
        which = "every article" if self.stride == 1 else f"every {self.stride}th article from #{self.offset}"
        cap = f", first {self.max_articles:,}" if self.max_articles else ""
        return f"Wikipedia ({SOURCE}), {which}{cap}"

    def as_dict(self) -> dict:
        return asdict(self)


def corpus_files(folder: str | Path | None = None) -> list[Path]:
    """The ``.xz`` files in reading order, each verified against its sha256.

    ``folder=None``: the offline copy through :func:`pearl.data.fetch`. Otherwise the files that
    ``folder/SHA256SUMS`` lists (ending in ``.xz``), in the listed order.
    """
    from . import data

    if folder is None:
        return [data.fetch(f"{SOURCE}/{name}.txt.xz") for name in FILES]
    folder = Path(folder)
    sums = folder / "SHA256SUMS"
    if not sums.is_file():
        raise data.DataError(f"{sums} is missing: write it with `cd {folder} && sha256sum *.xz > SHA256SUMS` "
                             "so that every file is checked before it is read")
    out = []
    for line in sums.read_text(encoding="utf8").splitlines():
        if not line.strip():
            continue
        digest, name = line.split(maxsplit=1)
        name = name.lstrip("*").removeprefix("./")
        if not name.endswith(".xz"):
            continue
        path = folder / name
        if not path.is_file():
            raise data.DataError(f"{path} is missing (listed in {sums}): copy it back, or remove its line")
        got = data.sha256(path)
        if got != digest:
            raise data.DataError(f"{path} is corrupt (sha256 {got[:12]}…, {sums} says {digest[:12]}…): copy it again")
        out.append(path)
    if not out:
        raise data.DataError(f"{sums} lists no .xz file")
    return out


def _records(path: Path) -> Iterator[Article]:
    """Articles of one file, streamed; a damaged stream becomes a DataError naming the file."""
    from .data import DataError

    head, lines = None, []
    try:
        with lzma.open(path, "rt", encoding="utf8") as fh:
            for line in fh:
                line = line.rstrip("\n")
                if head is None:
                    match = _DOC.match(line)
                    if match:
                        head, lines = match, []
                    elif line.strip():
                        raise DataError(f"{path}: text outside a <doc> record: {line[:60]!r} (not WikiExtractor output?)")
                elif line == "</doc>":
                    title = html.unescape(head["title"])
                    body = [p for p in lines if p.strip()]
                    if body and body[0].strip() == title:
                        body = body[1:]  # the title again, on the record's first line
                    yield Article(head["id"], html.unescape(head["url"]), title, tuple(body))
                    head = None
                else:
                    lines.append(line)
    except (lzma.LZMAError, EOFError, UnicodeDecodeError) as err:
        raise DataError(f"{path} is damaged ({type(err).__name__}: {err}): copy it again") from err
    if head is not None:
        raise DataError(f"{path} ends inside the record of {head['title']!r} (truncated): copy it again")


def articles(sample: Sample = Sample(), folder: str | Path | None = None) -> Iterator[Article]:
    """The sample's articles, in file order (see :class:`Sample`)."""
    kept, index = 0, 0
    for path in corpus_files(folder):
        for article in _records(path):
            if sample.keeps(index):
                yield article
                kept += 1
                if sample.max_articles and kept >= sample.max_articles:
                    return
            index += 1
