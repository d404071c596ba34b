"""The text pieces of the static site (:mod:`harness.site`): stand-in bullets, names and
titles, the ledger's verdict column first, and Material call-outs in Markdown and HTML."""
from __future__ import annotations

import re


def standins(page: str) -> list[tuple[str, str, str]]:
    """(slug, title, text) per bullet ``- **Title.** text`` of the stand-ins page (``STANDINS.md``).

    >>> standins("# Stand-ins\\n\\nIntro.\\n\\n- **GloVe.** 50-d for\\n  300-d.\\n- **Figure 4.** AutoFJ.\\n")
    [('glove', 'GloVe', '50-d for 300-d.'), ('figure-4', 'Figure 4', 'AutoFJ.')]
    """
    out = []
    for m in re.finditer(r"^- \*\*(.+?)\.?\*\*\s*(.*?)(?=^- \*\*|\Z)", page, re.M | re.S):
        title = m.group(1).rstrip(".")
        out.append((slug(title), title, " ".join(m.group(2).split())))
    return out


def slug(text: str) -> str:
    """A file name for a title.

    >>> slug("Parsing and typing")
    'parsing-and-typing'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def nice(stem: str) -> str:
    """A file stem as a title.

    >>> nice("table3"), nice("figureA1"), nice("methods_lexical_diversity")
    ('Table 3', 'Figure A1', 'methods lexical diversity')
    """
    m = re.fullmatch(r"(table|figure)([0-9A-Z]\w*)", stem)
    return f"{m[1].title()} {m[2]}" if m else stem.replace("_", " ")


def is_smoke(text: str) -> bool:
    """A table or record written by a SMOKE run says so (pearl.provenance.save_table, Run)."""
    return "SMOKE run" in text[:400] or '"SMOKE": "smoke-size run' in text


def verdict_first(text: str) -> str:
    """Each Markdown table of ``text`` with a ``verdict`` column, that column moved first.

    >>> verdict_first("| id | verdict | p |\\n|---|---|---|\\n| C01 | reproduced | 0.1 |")
    '| verdict | id | p |\\n|---|---|---|\\n| reproduced | C01 | 0.1 |'
    """
    out, at = [], None
    for line in text.split("\n"):
        cells = line.strip().strip("|").split("|") if line.startswith("|") else None
        if not cells:
            at = None
        elif at is None and "verdict" in [c.strip() for c in cells]:
            at = [c.strip() for c in cells].index("verdict")
        if cells and at is not None and at < len(cells):
            cells = [cells[at]] + cells[:at] + cells[at + 1:]
            line = "|" + "|".join(cells) + "|"
        out.append(line)
    return "\n".join(out)


def admonition(kind: str, title: str, text: str) -> str:
    """A Material call-out in Markdown (pages)."""
    return f'!!! {kind} "{title}"\n    ' + text.replace("\n", "\n    ") + "\n\n"


def html_banner(kind: str, title: str, html: str) -> str:
    """The same call-out as HTML, for notebook cells (nbconvert's Markdown has no admonitions)."""
    return f'<div class="admonition {kind}"><p class="admonition-title">{title}</p><p>{html}</p></div>'
