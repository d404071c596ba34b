"""The companion as a static site (``make site``): MkDocs with the Material theme, notebooks
rendered by mkdocs-jupyter, built and viewed offline.

:func:`write_sources` lays out a MkDocs project under ``build/site_src``: each notebook as
the last batch run executed it (``results/executed/``), else its committed executed copy
(``results/notebooks/``, :mod:`harness.executed`, labelled with its commit and profile),
else as committed without outputs under a banner; the findings report ``results/REPORT.md`` and its
pages ``results/report/*.md`` (the index repeats its *What we found*);
every table of ``results/*.md``; every figure of ``figures/*.png``; one page per stand-in of
``STANDINS.md``; and the claims ledger ``results/claims.md`` when a run wrote one, its tables led
by the verdict column. :func:`build` runs MkDocs on it. Pages from a SMOKE run carry a SMOKE
banner, as the files do; stand-in outputs point to their stand-in pages.

Offline by construction: Material's Google fonts are off (system fonts), search is its bundled
lunr, MathJax is copied from Debian's ``libjs-mathjax`` when installed (else formulas stay TeX
source), saved widget state is dropped (its renderer comes from a CDN) and
:func:`external_references` lists any ``src``/``href`` that would leave the machine.
Figures span the content's width and open enlarged, at full size, on a click: a few lines of
CSS and JavaScript of its own (:data:`FIGURE_CSS`, :data:`LIGHTBOX_JS`), nothing fetched.
Leaves out: deployment.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pearl import paths
from pearl.atomic import write_atomic
from .executed import read_notebook
from .site_text import admonition, html_banner, is_smoke, nice, section, site_links, standins, verdict_first

# the paper's sections, in its order; a notebook of ORDER not named here goes under "More notebooks"
SECTIONS = [
    ("Data (§3.1)", ["01_data_building", "02_augmentation"]),
    ("Training (§3.2–3.4)", ["03_training"]),
    ("Benchmark (§4, Tables 1–2)", ["04_benchmark", "07_short_text"]),
    ("Figures 1 and 4", ["05_figures", "06_explorer"]),
    ("Analysis (§5, Tables 3–4, Figure 5)", ["08_ablations", "09_backbones", "10_hyperparameters", "14_short_text_arms"]),
    ("Beyond the paper", ["11_methods"]),
    ("House style", ["00_template"]),
]
SMOKE_NOTE = "SMOKE run: tiny subsets; these numbers are not results."
MATHJAX = Path("/usr/share/javascript/mathjax")  # Debian's libjs-mathjax (make sysdeps)
MATHJAX_PARTS = ["MathJax.js", "config", "extensions", "jax/input/TeX", "jax/output/CommonHTML", "jax/element",
                 "fonts/HTML-CSS/TeX/woff", "localization/en"]
# figures as wide as the content (notebook outputs, the figures page, the report), and the enlarged view
FIGURE_CSS = """.md-grid { max-width: 100rem; }
body:has(.jupyter-wrapper) .md-sidebar--secondary { display: none; } /* a notebook's outline: two or three headings */
.md-typeset .jp-RenderedImage img, .md-typeset img[src*="figures/"] { width: 100% !important; max-width: 100% !important; height: auto; cursor: zoom-in; }
.pearl-lightbox { position: fixed; inset: 0; z-index: 1000; overflow: auto; background: rgba(0, 0, 0, .85); cursor: zoom-out; }
.pearl-lightbox img { display: block; margin: 1rem auto; width: auto !important; max-width: none !important; background: #fff; }
"""
# a click on a figure shows it at its own size over the page; a click or Escape closes it.
# Not a link to the image: a notebook's figure is a data: URI, which Chromium will not open as a page.
LIGHTBOX_JS = """document.addEventListener("DOMContentLoaded", function () {
  var figures = document.querySelectorAll('.md-typeset .jp-RenderedImage img, .md-typeset img[src*="figures/"]');
  figures.forEach(function (img) {
    img.title = "Click to enlarge";
    img.addEventListener("click", function () {
      var box = document.createElement("div");
      box.className = "pearl-lightbox";
      var big = document.createElement("img");
      big.src = img.src;
      big.alt = img.alt;
      box.appendChild(big);
      function close() { box.remove(); document.removeEventListener("keydown", onKey); }
      function onKey(e) { if (e.key === "Escape") close(); }
      box.addEventListener("click", close);
      document.addEventListener("keydown", onKey);
      document.body.appendChild(box);
    });
  });
});
"""
# what a browser fetches by itself: src=, <link href=, CSS url(); an <a href> to the paper is only a link
EXTERNAL = re.compile(r"""(?:\bsrc\s*=\s*["']?|<link\b[^>]*\bhref\s*=\s*["']?|url\(\s*["']?)((?:https?:)?//[^"' >)]+)""", re.I)


def nav_sections(order: list[str]) -> list[tuple[str, list[str]]]:
    """SECTIONS restricted to the notebooks of ``order`` (stems), every one of them placed once.

    >>> nav_sections(["01_data_building", "12_claims", "00_template"])
    [('Data (§3.1)', ['01_data_building']), ('House style', ['00_template']), ('More notebooks', ['12_claims'])]
    """
    placed = [(title, [s for s in stems if s in order]) for title, stems in SECTIONS]
    known = {s for _, stems in SECTIONS for s in stems}
    rest = [s for s in order if s not in known]
    return [(t, s) for t, s in placed if s] + ([("More notebooks", rest)] if rest else [])


def prepare_notebook(src: Path, dest: Path, banners: list[str]) -> str:
    """Copy ``src`` to ``dest`` with ``banners`` as a first Markdown cell and no saved widget
    state (its renderer would load from a CDN); returns the notebook's title (its first H1)."""
    nb = read_notebook(src)
    nb.get("metadata", {}).pop("widgets", None)
    title = src.stem
    for cell in nb["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown" and (m := re.search(r"^# (.+)$", text, re.M)):
            title = m.group(1).strip()
            break
    if banners:
        nb["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": "\n\n".join(banners)})
    write_atomic(dest, json.dumps(nb, allow_nan=False))
    return title


def findings_pages(root: Path, docs: Path) -> tuple[str, list[dict]]:
    """Write the committed findings into ``docs``: ``results/REPORT.md`` as ``results.md``, its pages
    ``results/report/*.md`` under ``report/``, the figures they show under ``report_figures/``, each
    link moved to the site (:func:`harness.site_text.site_links`). Returns the front page's
    Markdown and a navigation entry per page of ``report/``."""
    report = root / "results" / "REPORT.md"  # the committed findings, generated from the committed results
    front = report.read_text() if report.is_file() else "# Findings\n\nNo `results/REPORT.md` yet (`make report`).\n"
    pages = {"results.md": front, **{f"report/{p.name}": p.read_text()
                                     for p in sorted((root / "results" / "report").glob("*.md"))}}
    (docs / "report_figures").mkdir()
    nav = []
    for name, text in pages.items():
        for fig in set(re.findall(r"\]\((?:\.\./)+figures/([\w.-]+)\)", text)):
            if (root / "figures" / fig).is_file():
                shutil.copy2(root / "figures" / fig, docs / "report_figures" / fig)
        write_atomic(docs / name, site_links(text, nested="/" in name) + "\n")
        if "/" in name:
            title = re.search(r"^# (.+)$", text, re.M)
            nav.append({title[1].strip() if title else nice(Path(name).stem): name})
    return front, nav


def write_sources(dest: Path, root: Path = paths.ROOT, out: Path | None = None) -> dict:
    """Lay out the MkDocs project in ``dest`` (emptied first) from the notebooks of ``root`` and
    the outputs under ``out`` (default: :func:`pearl.paths.output_root`). Returns a summary:
    ``executed`` (every notebook ran), ``ran`` (those that did), ``smoke`` (bool), ``notebooks``, ``tables``, ``figures``, ``standins``, ``claims``."""
    out = Path(out) if out else paths.output_root()
    results, figures = out / "results", out / "figures"
    if dest.exists():
        shutil.rmtree(dest)
    docs = dest / "docs"
    (docs / "figures").mkdir(parents=True)
    (docs / "tables").mkdir()
    (docs / "standins").mkdir()
    order = [n.removesuffix(".ipynb") for n in (root / "notebooks" / "ORDER").read_text().split()]
    kept = root / "results" / "notebooks"  # the committed executed copies (harness.executed)
    sources = {s: p for s in order for p in (kept / f"{s}.ipynb", results / "executed" / f"{s}.ipynb") if p.is_file()}
    ran = set(sources)  # the run's own copy wins over the committed one (the dict keeps the last found)
    executed = len(ran) == len(order)
    records = [p.read_text() for p in results.glob("*.json")]
    smoke = any(is_smoke(r) for r in records)
    page = (root / "STANDINS.md").read_text() if (root / "STANDINS.md").is_file() else ""
    stand = standins(page)

    banners = [html_banner("danger", "SMOKE", SMOKE_NOTE + " This page shows a SMOKE run.")] if smoke else []
    unexecuted = html_banner("warning", "Not executed",
                             "No batch run left an executed copy of this notebook (<code>results/executed/</code>, "
                             "<code>results/notebooks/</code>): "
                             "this is the notebook as committed, without outputs. <code>make reproduce</code> runs "
                             "every notebook (about three hours on 2 cores) and <code>make site</code> then shows "
                             "their outputs.")
    html_links = ", ".join(f'<a href="standins/{s}.html">{t}</a>' for s, t, _ in stand)
    stand_note = html_banner("info", "Stand-ins", "Outputs here come from offline stand-ins for some of the "
                             f"paper's inputs: {html_links}.") if stand else ""

    nb_titles = {}
    for stem in order:  # each notebook from the run when it ran, else as committed under a banner
        src = sources.get(stem, root / "notebooks" / f"{stem}.ipynb")
        tag = read_notebook(src).get("metadata", {}).get("pearl") if stem in ran else None
        run = [html_banner("note", "Executed", f"Executed at commit <code>{tag['commit']}</code>, profile "
                           f"<code>{tag['profile']}</code>, on {tag['executed'][:10]} (the committed copy of that run)")] \
            if tag else []
        nb_titles[stem] = prepare_notebook(src, docs / f"{stem}.ipynb", banners + run + ([] if stem in ran else [unexecuted])
                                           + ([stand_note] if stand_note else []))

    table_note = admonition("info", "Stand-ins", "This companion's runs use offline stand-ins for some of the "
                            "paper's inputs; a column that depends on one says so. [What differs](../standins.md).")
    tables = {}
    for table in sorted(results.glob("*.md")):
        if table.stem == "claims":
            continue
        text = table.read_text()
        head = admonition("danger", "SMOKE", SMOKE_NOTE) if is_smoke(text) else ""
        files = ", ".join(f"`results/{table.stem}{ext}`" for ext in (".csv", ".md", ".tex")
                          if (results / f"{table.stem}{ext}").is_file())
        write_atomic(docs / "tables" / f"{table.stem}.md", f"# {nice(table.stem)}\n\n{head}{text}\n\nFiles: {files}.\n\n"
                                                          + table_note)
        tables[table.stem] = nice(table.stem)

    figure_names = []
    for png in sorted(figures.glob("*.png")):
        shutil.copy2(png, docs / "figures" / png.name)
        figure_names.append(png.stem)
    fig_smoke = admonition("danger", "SMOKE", "Figures from a SMOKE run carry a SMOKE banner.") if smoke else ""
    write_atomic(docs / "figures.md", "# Figures\n\n" + fig_smoke + "".join(
        f"## {nice(n)}\n\n![{nice(n)}](figures/{n}.png)\n\n`figures/{n}.png`\n\n" for n in figure_names))

    for s, t, text in stand:
        write_atomic(docs / "standins" / f"{s}.md",
            f"# Stand-in: {t}\n\n{admonition('info', 'What differs from the paper', text)}"
            "From `STANDINS.md`.\n")
    write_atomic(docs / "standins.md", (page or "# Stand-ins\n") + "\n\n"
                 + "".join(f"- [{t}](standins/{s}.md)\n" for s, t, _ in stand))

    claims = results / "claims.md"
    if claims.is_file():
        text = claims.read_text()
        head = admonition("danger", "SMOKE", SMOKE_NOTE) if is_smoke(text) else ""
        write_atomic(docs / "claims.md", ("" if text.lstrip().startswith("# ") else "# Claims ledger\n\n") + head
                     + verdict_first(text))

    report_md, report_nav = findings_pages(root, docs)
    found = section(report_md, "What we found")

    missing = [s for s in order if s not in ran]
    source = ("executed notebooks (the last run's, else their committed copies)" if executed else
              "the committed notebooks, **not executed** (no batch run found)" if not ran else
              f"executed notebooks (the last run's, else their committed copies); **not executed**: {', '.join(missing)}")
    index = ["# PEARL companion", "",
             "The companion of *Learning High-Quality and General-Purpose Phrase Representations* "
             "(PEARL; Chen, Varoquaux, Suchanek, EACL 2024), as a static site built by `make site`.", "",
             admonition("danger", "SMOKE", SMOKE_NOTE + " Every table, figure and notebook here is from a "
                        "SMOKE run, except the findings report (the committed run's).") if smoke else "",
             f"Built from {source}.", "",
             "- [Findings](results.md): what we found, a glossary and the claims; its pages give the study, "
             "every table with the paper's numbers beside ours, and provenance",
             "- [Claims ledger](claims.md): each claim of the paper, our number, and the verdict" if claims.is_file()
             else "- Claims ledger: not built yet (no `results/claims.md` in this run)",
             "- [Tables](tables/index.md) and [figures](figures.md)",
             "- [Stand-ins](standins.md): what differs from the paper, and why", ""]
    if found:  # the findings first, as the report's front page gives them (the committed run's)
        index += ["## What we found", "", site_links(found, nested=False), ""]
    index += ["## Notebooks, by section of the paper", ""]
    for title, stems in nav_sections(order):
        index += [f"**{title}**", ""] + [f"- [{nb_titles[s]}]({s}.ipynb) (`{s}`)" for s in stems] + [""]
    write_atomic(docs / "index.md", "\n".join(index))
    write_atomic(docs / "tables" / "index.md", "# Tables\n\n" + "".join(f"- [{t}]({s}.md)\n" for s, t in tables.items()))

    mathjax = "assets/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
    (docs / "assets").mkdir()
    if MATHJAX.is_dir():
        for part in MATHJAX_PARTS:
            (docs / "assets/mathjax" / part).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (MATHJAX / part).is_dir() else shutil.copy2)(MATHJAX / part, docs / "assets/mathjax" / part)
    else:  # formulas stay TeX source; nothing is fetched
        mathjax = "assets/no-mathjax.js"
        write_atomic(docs / mathjax, "// libjs-mathjax is not installed (make sysdeps): formulas show as TeX source\n")

    write_atomic(docs / "assets" / "figures.css", FIGURE_CSS)
    write_atomic(docs / "assets" / "lightbox.js", LIGHTBOX_JS)

    nav = [{"Home": "index.md"}, {"Findings": ["results.md", *report_nav]} if report_nav else {"Findings": "results.md"}]
    if claims.is_file():
        nav.append({"Claims ledger": "claims.md"})
    nav += [{title: [{nb_titles[s]: f"{s}.ipynb"} for s in stems]} for title, stems in nav_sections(order)]
    nav += [{"Tables": ["tables/index.md"] + [{t: f"tables/{s}.md"} for s, t in tables.items()]}, {"Figures": "figures.md"},
            {"Stand-ins": ["standins.md"] + [{t: f"standins/{s}.md"} for s, t, _ in stand]}]
    config = {
        "site_name": "PEARL companion" + (" (SMOKE)" if smoke else ""), "docs_dir": "docs",
        "use_directory_urls": False,  # flat pages: the notebooks' relative MathJax path holds, and file:// works
        "theme": {"name": "material", "font": False, "features": ["navigation.sections", "navigation.indexes"]},
        "plugins": [{"search": {}}, {"mkdocs-jupyter": {"execute": False, "include_requirejs": False,
                                                        "custom_mathjax_url": mathjax, "ignore_h1_titles": True}}],
        "markdown_extensions": ["tables", "admonition", "toc"],
        "extra_css": ["assets/figures.css"], "extra_javascript": ["assets/lightbox.js"],
        "nav": nav,
    }
    write_atomic(dest / "mkdocs.yml", json.dumps(config, indent=1, ensure_ascii=False, allow_nan=False))  # JSON is YAML
    return {"executed": executed, "ran": sorted(ran), "smoke": smoke, "notebooks": order, "tables": sorted(tables),
            "figures": figure_names, "standins": [s for s, _, _ in stand], "claims": claims.is_file()}


def external_references(site: Path) -> list[str]:
    """``file: url`` for every reference in the built site that a browser would fetch from off
    the machine (``src=``, ``<link href=``, CSS ``url()``). mkdocs-jupyter's Mermaid loader names a
    CDN in a script but imports it only for Mermaid cells, which no notebook has.

    >>> import tempfile; d = Path(tempfile.mkdtemp()); _ = write_atomic(d / "a.html", 
    ...     '<a href="https://x.org">paper</a><script src="https://cdn.x/y.js"></script><img src="f.png">')
    >>> external_references(d)
    ['a.html: https://cdn.x/y.js']
    """
    hits = []
    for f in sorted(site.rglob("*")):
        if f.suffix in (".html", ".css", ".js") and f.is_file():
            hits += [f"{f.relative_to(site)}: {u}" for u in EXTERNAL.findall(f.read_text(errors="replace"))]
    return hits


def build(site: Path | None = None, src: Path | None = None, root: Path = paths.ROOT, out: Path | None = None) -> dict:
    """Write the sources (:func:`write_sources`) to ``src`` and build the site into ``site``
    (defaults: ``build/site_src`` and ``site/`` under the output root). Returns the summary
    plus ``site`` (the folder; open ``index.html``)."""
    base = Path(out) if out else paths.output_root()
    site = Path(site) if site else base / "site"
    src = Path(src) if src else base / "build" / "site_src"
    summary = write_sources(src, root, out)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--clean", "--quiet", "-f", str(src / "mkdocs.yml"),
                           "-d", str(site.resolve())], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"mkdocs build failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {**summary, "site": site}


if __name__ == "__main__":
    info = build()
    print(f"site: {info['site']}/index.html ({len(info['notebooks'])} notebooks, {len(info['tables'])} tables, "
          f"{len(info['figures'])} figures; {len(info['ran'])} of {len(info['notebooks'])} notebooks executed"
          f"{', SMOKE' if info['smoke'] else ''})")
