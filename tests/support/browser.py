"""Headless-browser helpers for the viewer and human-play tests: Playwright for Python
driving the system Chromium (Debian's `chromium` package; no browser is downloaded).
Tests skip when Playwright or Chromium is missing; CI installs both (.ci/run)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.paths import ROOT

#: Screenshots of the browser tests (CI keeps them as artefacts).
ARTEFACTS = Path(os.environ.get("CARCASSONNE_ARTEFACTS", ROOT / "tmp" / "artefacts"))


def chromium_path() -> str | None:
    """The system Chromium: $CHROMIUM, else chromium / chromium-browser on PATH."""
    for candidate in (
        os.environ.get("CHROMIUM"),
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
        "/usr/bin/chromium",
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _missing(reason: str) -> None:
    """Skip, or fail where the browser is required (CI sets CARCASSONNE_REQUIRE_BROWSER)."""
    if os.environ.get("CARCASSONNE_REQUIRE_BROWSER"):
        pytest.fail(f"{reason}, but CARCASSONNE_REQUIRE_BROWSER is set")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright import sync_api
    except ImportError:
        _missing('no playwright (pip install "carcassonne-env[viewer]")')
    path = chromium_path()
    if path is None:
        _missing("no system chromium (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()


class Page:
    """A page that collects console errors and uncaught exceptions."""

    def __init__(self, browser, width: int = 1300, height: int = 1000) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def screenshot(self, name: str) -> Path:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTEFACTS / name
        self.page.screenshot(path=str(path), full_page=True)
        return path
