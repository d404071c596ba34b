"""The static site (harness.site, `make site`): a SMOKE build from a scratch output root
has an index and a page per notebook of notebooks/ORDER, marks SMOKE, stand-ins and the
unexecuted case, shows a committed executed copy with its commit and profile, includes the
claims ledger (verdict first) only when a run wrote one, and references nothing off the
machine; then Chromium walks it from a 127.0.0.1 server at 1280 px (index -> ledger, whose
verdict column is on screen; index -> Table 3, the figures page), every image loads and no
request leaves 127.0.0.1; figures span the text and open enlarged on a click (notebook 05's
Figure 4 among them), and no executed notebook's page quotes a path of the machine that ran it.

The screenshot goes to ``$PEARL_SCREENSHOT_SITE`` when set, else beside the scratch site.
"""
import functools
import json
import os
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest
from _browser import launch, needs_browser

from harness import site, site_text

ROOT = Path(__file__).resolve().parents[2]
ORDER = [n.removesuffix(".ipynb") for n in (ROOT / "notebooks" / "ORDER").read_text().split()]


def smoke_outputs(out: Path, claims: bool = True) -> Path:
    """A scratch output root as a SMOKE run leaves it: a table, a figure, a record, the ledger."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from harness.outputs import save_figure, save_table

    save_table(pd.DataFrame({"recipe": ["PEARL"], "Average": [1.0]}), "table3", smoke=True, root=out)
    if claims:
        save_table(pd.DataFrame({"claim": ["PEARL beats MiniLM"], "verdict": ["holds"]}), "claims", smoke=True, root=out)
    fig, ax = plt.subplots(figsize=(12, 4))  # wider than the page: the figures page shows it enlarged on a click
    ax.plot([0, 1], [0, 1])
    save_figure(fig, "figure1", smoke=True, root=out)
    plt.close(fig)
    (out / "results" / "04_benchmark.json").write_text(json.dumps({"SMOKE": "smoke-size run on tiny subsets"}))
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = smoke_outputs(tmp_path_factory.mktemp("smoke_out"))
    return site.build(out=out)


def test_standins_come_from_their_page():
    found = site_text.standins((ROOT / "STANDINS.md").read_text())
    titles = [t for _, t, _ in found]
    assert "Backbone" in titles and "GloVe" in titles and len(found) >= 5
    assert all(text for _, _, text in found)


def test_every_notebook_of_order_has_one_place_in_the_navigation():
    placed = [s for _, stems in site.nav_sections(ORDER) for s in stems]
    assert sorted(placed) == sorted(ORDER)


def bare_root(tmp_path: Path, kept: tuple = ()) -> Path:
    """A checkout's notebooks and stand-ins page, with only the executed copies ``kept`` committed
    (results/notebooks/): the site's cases no longer depend on which copies the repository holds."""
    root = tmp_path / "root"
    (root / "results" / "notebooks").mkdir(parents=True)
    (root / "notebooks").symlink_to(ROOT / "notebooks")
    (root / "STANDINS.md").symlink_to(ROOT / "STANDINS.md")
    for name in kept:
        (root / "results" / "notebooks" / f"{name}.ipynb").write_text((ROOT / "results" / "notebooks" / f"{name}.ipynb").read_text())
    return root


def test_sources_without_a_batch_run_say_so_and_skip_the_ledger(tmp_path):
    out = smoke_outputs(tmp_path / "out", claims=False)
    summary = site.write_sources(tmp_path / "src", root=bare_root(tmp_path), out=out)
    assert not summary["executed"] and summary["smoke"] and not summary["claims"]
    docs = tmp_path / "src" / "docs"
    assert not (docs / "claims.md").exists()
    assert "not built yet" in (docs / "index.md").read_text()
    nb = json.loads((docs / "03_training.ipynb").read_text())
    first = nb["cells"][0]["source"]
    assert "Not executed" in first and "SMOKE" in first and "standins/backbone.html" in first
    assert "SMOKE run" in (docs / "tables" / "table3.md").read_text()


def test_a_notebook_the_run_skipped_comes_unexecuted_under_a_banner(tmp_path):
    out = tmp_path / "out"
    (out / "results" / "executed").mkdir(parents=True)
    (out / "results" / "executed" / "01_data_building.ipynb").write_text((ROOT / "notebooks" / "01_data_building.ipynb").read_text())
    # the run's own copy of 01, and a committed executed copy of 12 (results/notebooks/, harness.executed)
    summary = site.write_sources(tmp_path / "src", root=bare_root(tmp_path, kept=("12_claims",)), out=out)
    assert summary["ran"] == ["01_data_building", "12_claims"] and not summary["executed"]
    docs = tmp_path / "src" / "docs"
    for shown in ("01_data_building", "12_claims"):
        assert "Not executed" not in json.loads((docs / f"{shown}.ipynb").read_text())["cells"][0]["source"]
    assert "Not executed" in json.loads((docs / "02_augmentation.ipynb").read_text())["cells"][0]["source"]
    assert "not executed**: 00_template" in (docs / "index.md").read_text()


def test_sources_use_the_executed_notebooks_when_every_one_ran(tmp_path):
    out = tmp_path / "out"
    (out / "results" / "executed").mkdir(parents=True)
    for stem in ORDER:
        nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
        nb["metadata"]["widgets"] = {"state": {}}  # saved widget state would load its renderer from a CDN
        (out / "results" / "executed" / f"{stem}.ipynb").write_text(json.dumps(nb))
    summary = site.write_sources(tmp_path / "src", out=out)
    assert summary["executed"] and not summary["smoke"]
    nb = json.loads((tmp_path / "src" / "docs" / "06_explorer.ipynb").read_text())
    assert "widgets" not in nb["metadata"] and "Not executed" not in nb["cells"][0]["source"]


def test_a_damaged_executed_notebook_stops_the_site_naming_it_and_the_fix(tmp_path):
    out = tmp_path / "out"
    (out / "results" / "executed").mkdir(parents=True)
    (out / "results" / "executed" / "01_data_building.ipynb").write_text('{"cells": [')  # a save cut short
    with pytest.raises(ValueError, match=r"results/executed/01_data_building\.ipynb is a damaged notebook .*run it "
                                         r"again .*or delete it and the site shows the kept copy"):
        site.write_sources(tmp_path / "src", root=bare_root(tmp_path), out=out)


def test_a_committed_executed_copy_is_shown_with_its_commit_and_profile(tmp_path):
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "ORDER").write_text("01_data_building.ipynb\n02_augmentation.ipynb\n")
    for stem in ("01_data_building", "02_augmentation"):
        (root / "notebooks" / f"{stem}.ipynb").write_text((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    (root / "results" / "notebooks").mkdir(parents=True)
    nb = json.loads((ROOT / "notebooks" / "01_data_building.ipynb").read_text())
    nb["metadata"]["pearl"] = {"commit": "abcdef0", "profile": "cpu", "executed": "2026-01-02T03:04:05"}
    (root / "results" / "notebooks" / "01_data_building.ipynb").write_text(json.dumps(nb))
    summary = site.write_sources(tmp_path / "src", root=root, out=tmp_path / "out")
    assert summary["ran"] == ["01_data_building"]
    first = json.loads((tmp_path / "src" / "docs" / "01_data_building.ipynb").read_text())["cells"][0]["source"]
    assert "commit <code>abcdef0</code>, profile <code>cpu</code>" in first and "Not executed" not in first
    assert "Not executed" in json.loads((tmp_path / "src" / "docs" / "02_augmentation.ipynb").read_text())["cells"][0]["source"]


def test_the_ledger_page_leads_with_the_verdict(built):
    page = (built["site"].parent / "build" / "site_src" / "docs" / "claims.md").read_text()
    header = next(line for line in page.splitlines() if line.startswith("|"))
    assert [c.strip() for c in header.strip("|").split("|")][0] == "verdict"


def test_smoke_build_has_an_index_a_page_per_notebook_and_nothing_off_the_machine(built):
    root = built["site"]
    assert (root / "index.html").is_file()
    for stem in ORDER:
        assert (root / f"{stem}.html").is_file(), stem
    assert (root / "claims.html").is_file() and (root / "tables" / "table3.html").is_file()
    assert "SMOKE" in (root / "index.html").read_text() and "SMOKE" in (root / "claims.html").read_text()
    assert site.external_references(root) == []


def test_the_index_shows_what_we_found_and_every_findings_page_is_built(built):
    """The index repeats the report's first screen; each page of results/report/ is a page of the
    site whose figures and links resolve there."""
    docs = built["site"].parent / "build" / "site_src" / "docs"
    found = site_text.section((ROOT / "results" / "REPORT.md").read_text(), "What we found")
    assert found and "## What we found" in (docs / "index.md").read_text()
    assert site_text.site_links(found, nested=False) in (docs / "index.md").read_text()
    for page in sorted((ROOT / "results" / "report").glob("*.md")):
        assert (built["site"] / "report" / f"{page.stem}.html").is_file(), page.name
        text = (docs / "report" / page.name).read_text()
        for target in re.findall(r"\]\((\.\./[^)#]+)\)", text):
            assert (docs / "report" / target).resolve().exists(), (page.name, target)


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    """``folder`` served on 127.0.0.1 from a thread; the caller shuts the server down."""
    needs_browser()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.mark.browser
def test_chromium_walks_the_site_offline(built):
    from playwright.sync_api import sync_playwright

    server, base = serve(built["site"])
    screenshot = Path(os.environ.get("PEARL_SCREENSHOT_SITE") or built["site"].parent / "site_screenshot.png")
    requests, broken = [], []

    def images_load(page):
        page.wait_for_load_state("networkidle")
        imgs = page.eval_on_selector_all("img", "els => els.map(e => [e.src, e.complete && e.naturalWidth > 0])")
        broken.extend(src for src, ok in imgs if not ok)
        return len(imgs)

    try:
        with sync_playwright() as pw, launch(pw) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.goto(base, wait_until="load")
            images_load(page)
            page.click('article a[href="claims.html"]')
            assert page.url.endswith("/claims.html")
            assert "PEARL beats MiniLM" in page.inner_text("article") and "SMOKE" in page.inner_text("article")
            # at 1280 px the verdict column is the table's first and lies wholly on screen
            head = page.locator("article table th").first
            box = head.bounding_box()
            assert head.inner_text().strip() == "verdict" and 0 <= box["x"] and box["x"] + box["width"] <= 1280
            assert page.locator("article table td").first.inner_text().strip() == "holds"
            images_load(page)
            page.go_back()
            page.click('article a[href="tables/index.html"]')
            page.click('article a[href="table3.html"]')
            assert page.url.endswith("/tables/table3.html") and "SMOKE run" in page.inner_text("article")
            images_load(page)
            page.goto(base + "figures.html", wait_until="load")
            assert images_load(page) >= 1
            page.goto(base + "03_training.html", wait_until="load")
            images_load(page)
            page.goto(base + "claims.html", wait_until="load")
            page.screenshot(path=str(screenshot), full_page=False)
    finally:
        server.shutdown()
    assert broken == [], f"images that did not load: {broken}"
    off = [u for u in requests if not u.startswith(base) and not u.startswith("data:")]
    assert off == [], f"requests that left 127.0.0.1: {off}"
    assert screenshot.stat().st_size > 10_000


# a path of the machine that ran a notebook (its checkout, a scratch file), not one of the repository
MACHINE_PATH = r"(?<![\w.~-])/(?:work|root|tmp|home|Users|mnt|scratch)/"


@pytest.mark.browser
def test_figures_are_full_width_and_open_enlarged_and_no_notebook_shows_a_machine_path(built):
    """Notebook 05's page shows Figure 4 (its committed copy had cut it at 400,000 characters),
    every figure spans the text's width and a click shows it at its own size over the page
    (Escape closes it), on notebook pages and the figures page alike; and no executed
    notebook's page quotes a path of the machine that ran it (results/notebooks/, tidied by
    harness.executed)."""
    import re

    from playwright.sync_api import sync_playwright

    server, base = serve(built["site"])
    try:
        with sync_playwright() as pw, launch(pw) as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(base + "05_figures.html", wait_until="load")
            article = page.inner_text("article")
            assert "is left out of the committed copy" not in article
            figures = page.locator("article .jp-RenderedImage img")
            assert figures.count() >= 2  # Figure 1 and Figure 4
            # Figure 4: the cell that draws it (plot_figure4) is followed by its image
            fig4 = page.locator("article .jp-Cell", has_text="plot_figure4").locator(".jp-RenderedImage img").first
            opens_enlarged(page, fig4)
            page.goto(base + "figures.html", wait_until="load")
            opens_enlarged(page, page.locator('article img[src*="figures/"]').first)
            for stem in ORDER:
                if stem not in built["ran"]:
                    continue
                page.goto(base + f"{stem}.html", wait_until="domcontentloaded")
                found = re.findall(MACHINE_PATH + r"\S*", page.inner_text("article"))
                assert found == [], f"{stem}'s page shows paths of the machine that ran it: {found[:3]}"
    finally:
        server.shutdown()


def opens_enlarged(page, img) -> None:
    """``img`` spans the article's text width; a click shows it at its own size, wider, over the page; Escape closes it."""
    img.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
    shown = img.bounding_box()["width"]
    text_width = page.evaluate("() => document.querySelector('article').clientWidth")
    assert shown >= 0.9 * text_width - 40, f"a figure {shown:.0f} px wide in an article {text_width} px wide"
    natural = img.evaluate("el => el.naturalWidth")
    img.click()
    big = page.locator(".pearl-lightbox img")
    big.wait_for(state="visible")
    assert big.evaluate("el => el.getBoundingClientRect().width") == pytest.approx(natural, abs=1)
    assert natural > shown, f"the enlarged figure ({natural} px) is no larger than the page's ({shown:.0f} px)"
    page.keyboard.press("Escape")
    assert page.locator(".pearl-lightbox").count() == 0
