"""The text pieces of the static site (:mod:`harness.site`): stand-in bullets, names and
titles, the ledger's verdict column first, a section of the findings (the index shows *What we found*),
the report's links moved to the site's layout, and Material call-outs in Markdown and HTML."""
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
    """A table or record written by a SMOKE run says so (harness.outputs.save_table, Run)."""
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


def section(page: str, heading: str) -> str:
    """The body of ``page``'s ``## heading`` section (up to the next ``##``), or ``""`` when it has none.

    >>> section("# R\\n\\n## What we found\\n\\n- a gain\\n\\n## Glossary\\n\\n- TOST\\n", "What we found")
    '- a gain'
    >>> section("# R\\n", "What we found")
    ''
    """
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page, re.M | re.S)
    return m[1].strip() if m else ""


def site_links(text: str, nested: bool) -> str:
    """A page of the findings (``results/REPORT.md``, or ``results/report/*.md`` when ``nested``) with its
    links moved to the site: figures to ``report_figures/``, ``STANDINS.md`` to ``standins.md`` and the
    front page to ``results.md``, each from the page's own folder.

    >>> site_links("![f](../../figures/a.png) [s](../../STANDINS.md) [r](../REPORT.md)", nested=True)
    '![f](../report_figures/a.png) [s](../standins.md) [r](../results.md)'
    >>> site_links("![f](../figures/a.png) [s](../STANDINS.md) [t](report/tables.md)", nested=False)
    '![f](report_figures/a.png) [s](standins.md) [t](report/tables.md)'
    """
    up = "../" if nested else ""
    text = re.sub(r"\]\((?:\.\./)+figures/", f"]({up}report_figures/", text)
    text = re.sub(r"\]\((?:\.\./)+STANDINS\.md\)", f"]({up}standins.md)", text)
    return text.replace("](../REPORT.md)", "](../results.md)")


def admonition(kind: str, title: str, text: str) -> str:
    """A Material call-out in Markdown (pages)."""
    return f'!!! {kind} "{title}"\n    ' + text.replace("\n", "\n    ") + "\n\n"


def html_banner(kind: str, title: str, html: str) -> str:
    """The same call-out as HTML, for notebook cells (nbconvert's Markdown has no admonitions)."""
    return f'<div class="admonition {kind}"><p class="admonition-title">{title}</p><p>{html}</p></div>'
