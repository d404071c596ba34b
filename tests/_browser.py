"""Debian's Chromium for the browser tests (``tests/display/test_browser.py``,
``tests/harness/test_site.py``): where it lives, the flags it runs with (headless, offline, no
first-run or sync work), the skip when it or Playwright is missing, and one way to launch it."""
import contextlib
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def needs_browser() -> None:
    """Skip the calling test, saying how to install what is missing, without Chromium or Playwright."""
    if not CHROMIUM.is_file():
        pytest.skip("Debian's chromium is missing at /usr/bin/chromium: apt-get install chromium (make sysdeps)")
    pytest.importorskip("playwright.sync_api", reason="playwright (Python) is not installed")


@contextlib.contextmanager
def launch(pw):
    """Chromium from Playwright's ``pw`` (``sync_playwright()``), headless with :data:`CHROMIUM_ARGS`;
    closed when the block ends, also when it fails."""
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()
