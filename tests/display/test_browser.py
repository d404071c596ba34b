"""The explorer in a real browser: Voila serves notebooks/06_explorer.ipynb on 127.0.0.1,
Debian's Chromium (driven by Playwright for Python) types a query, and the ranking on the
page must change to the order the library computes.

Needs /usr/bin/chromium (`make sysdeps` installs it as root); skipped with a reason when
absent (`playwright install` cannot download browsers here). One Voila server per test
(Voila starts a kernel per page load); the test kills only the server it started (its
process group) and the kernels that server started.

The screenshot goes to ``$PEARL_SCREENSHOT`` when set, else to ``results/`` of the scratch
output root; the committed ``results/explorer_screenshot.png`` was made with
``PEARL_SCREENSHOT=results/explorer_screenshot.png``.
"""
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _browser import launch, needs_browser

from pearl.models import label as model_label

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# the explorer labels models as Table 1 does (pearl.models.label)
RANKING = f'table.pearl-ranking[data-model="{model_label("minilm")}"] .pearl-candidate'
CANDIDATES = ["aspirin", "Eiffel Tower", "New York Post", "nytimes.com"]
QUERY = "Paris landmark"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jupyter_env(scratch: Path) -> dict:
    """The Makefile's Jupyter folders (nothing written to the home folder), scratch outputs."""
    cache = ROOT / ".cache"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(cache / "jupyter/config"), JUPYTER_DATA_DIR=str(cache / "jupyter/data"),
               JUPYTER_RUNTIME_DIR=str(cache / "jupyter/runtime"), IPYTHONDIR=str(cache / "ipython"),
               MPLCONFIGDIR=str(cache / "matplotlib"), TOKENIZERS_PARALLELISM="false", PEARL_OUTPUT=str(scratch),
               JUPYTER_PATH=str(ROOT / "notebooks" / "jupyter"))  # the explorer's Voila template (pearl-offline)
    return env


@contextlib.contextmanager
def serve(output_root: Path, notebook: str = "notebooks/06_explorer.ipynb"):
    """Voila serving ``notebook`` (default 06) as make explorer does, with ``output_root`` as its output root;
    yields (url, server)."""
    import psutil

    port = free_port()
    log = open(output_root / "voila.log", "wb")
    # sys.executable: the venv's Python, whose share/jupyter/kernels holds the "pearl" kernel
    server = subprocess.Popen(
        [sys.executable, "-m", "voila", notebook, "--no-browser", "--Voila.ip=127.0.0.1",
         f"--port={port}", "--template=pearl-offline", "--show_tracebacks=True"],
        cwd=ROOT, env=jupyter_env(output_root), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                pytest.fail(f"voila exited with {server.returncode}; see {log.name}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"voila did not listen on port {port} within 60 s; see {log.name}")
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/", server
    finally:
        # the kernels run in sessions of their own: note them before stopping their server
        kernels = psutil.Process(server.pid).children(recursive=True) if server.poll() is None else []
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
        for proc in kernels:
            if proc.is_running():
                proc.terminate()
        psutil.wait_procs(kernels, timeout=10)
        log.close()


@pytest.fixture
def voila(scratch_output):
    needs_browser()
    with serve(scratch_output) as served:
        yield served


def expected_order(query: str, candidates: list[str]) -> list[str]:
    from pearl.encode import encode
    from pearl.models import load_model

    vecs = encode(load_model("minilm", device="cpu"), [query] + candidates)
    scores = vecs[1:] @ vecs[0]
    return [candidates[i] for i in sorted(range(len(candidates)), key=lambda i: -scores[i])]


def read_ranking(page, expected: list[str], timeout_s: float = 30) -> list[str]:
    """The page's minilm ranking once it equals ``expected`` (or whatever it shows at the timeout)."""
    deadline = time.monotonic() + timeout_s
    while True:
        shown = page.locator(RANKING).all_inner_texts()
        if shown == expected or time.monotonic() > deadline:
            return shown
        time.sleep(0.2)


def test_typing_a_query_reorders_the_ranking_in_chromium(voila, scratch_output):
    from pearl import paths
    from playwright.sync_api import sync_playwright

    url, _ = voila
    before = expected_order("The New York Times", CANDIDATES)
    after = expected_order(QUERY, CANDIDATES)
    assert before != after, "the test needs a query that changes the order"
    screenshot = Path(os.environ.get("PEARL_SCREENSHOT") or paths.results_dir("explorer_screenshot.png"))
    with sync_playwright() as pw, launch(pw) as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(url, wait_until="commit", timeout=60_000)  # Voila streams the page while the kernel runs
        # the kernel loads the models and encodes the vocabulary before the first ranking shows
        page.wait_for_selector(RANKING, timeout=240_000)
        candidates = page.locator(".widget-textarea textarea").first
        candidates.fill("\n".join(CANDIDATES))
        assert read_ranking(page, before) == before
        query = page.locator(".widget-text input").first
        query.fill("")
        query.press_sequentially(QUERY, delay=40)  # one input event per key, as a user types
        assert read_ranking(page, after) == after
        page.locator(".pearl-ranking").first.scroll_into_view_if_needed()
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 10_000


@pytest.mark.slow
def test_after_make_model_the_page_ranks_with_pearl_beside_its_backbone(tmp_path):
    """make model at SMOKE size into a fresh output root (about a minute), then the page served on it:
    a ranking column for PEARL beside MiniLM's over the same candidates, a first line naming both,
    and no progress bar of transformers' on the page."""
    from playwright.sync_api import sync_playwright

    needs_browser()
    built = subprocess.run([sys.executable, "-m", "harness.model", "--smoke"], cwd=ROOT,
                           env=dict(os.environ, PEARL_OUTPUT=str(tmp_path)), capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    pearl = model_label("pearl-minilm-seed0")
    with serve(tmp_path) as (url, _), sync_playwright() as pw, launch(pw) as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(url, wait_until="commit", timeout=60_000)
        page.wait_for_selector(f'table.pearl-ranking[data-model="{pearl}"] .pearl-candidate', timeout=240_000)
        ours = page.locator(f'table.pearl-ranking[data-model="{pearl}"] .pearl-candidate').all_inner_texts()
        backbone = page.locator(RANKING).all_inner_texts()
        text = page.inner_text("body")
    assert len(ours) == 5 and sorted(ours) == sorted(backbone)  # notebook 06's five candidates, in both columns
    assert f"Models found: {model_label('minilm')}, {pearl}." in text
    assert "Loading weights" not in text and "it/s]" not in text


@pytest.mark.slow
def test_a_page_served_with_the_template_links_nothing_outside(tmp_path):
    """No browser needed: Voila serving a one-cell notebook with make explorer's template (pearl-offline)
    gives a page whose template files load from the server and which links no CDN (about 15 s)."""
    import re
    import urllib.request

    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('offline page')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "page.ipynb")
    with serve(tmp_path, str(tmp_path / "page.ipynb")) as (url, _):
        page = urllib.request.urlopen(url, timeout=120).read().decode()
        assert "offline page" in page and "cdn.jsdelivr" not in page
        for path in re.findall(r'(?:href|src)="(/voila/templates/pearl-offline/static/[^"?]+)', page):
            assert urllib.request.urlopen(url.rstrip("/") + path, timeout=30).status == 200
