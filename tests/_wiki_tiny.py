"""A tiny WikiExtractor corpus written as .xz files with their SHA256SUMS (tests of the Wikipedia reader,
the corpus build and mlm-wiki)."""
import hashlib
import lzma
from pathlib import Path

SENTENCES = [
    "The New York Times reported on the war in 2008.",
    "After the war, the European lobster was very rare in the North Sea.",
    "Marie Curie gave up the fight and moved to Paris in 1891.",
    "However, the company quickly became highly profitable.",
    "The first pair of claws is much larger than the second.",
    "In 2008 the band released a new album in London.",
]


def article(i: int) -> str:
    title = f"Topic {i} &amp; Co"
    body = "\n".join(SENTENCES[(i + j) % len(SENTENCES)] for j in range(3))
    return f'<doc id="{10 + i}" url="http://en.wikipedia.org/wiki?curid={10 + i}" title="{title}">\n' \
           f"Topic {i} & Co\n\n{body}\n</doc>\n"


def make(folder: Path, files: int = 2, per_file: int = 5) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    sums = []
    for f in range(files):
        path = folder / f"A{f}.txt.xz"
        path.write_bytes(lzma.compress("".join(article(f * per_file + i) for i in range(per_file)).encode()))
        sums.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  ./{path.name}")
    (folder / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    return folder
