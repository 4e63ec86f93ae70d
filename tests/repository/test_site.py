"""The documentation site (mkdocs.yml, the `docs` extra): it builds with `mkdocs build
--strict` (a broken link or anchor, a missing API reference, a page left out of the nav
fails), its API reference documents the public API, and every environment page shows a
picture of its game."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

ENV_PAGES = sorted((ROOT / "docs" / "environments").glob("*.md"))
# What the API reference must document: the anchors mkdocstrings gives each object.
DOCUMENTED = [
    "carcassonne_env.Game",
    "carcassonne_env.Rules",
    "carcassonne_env.Move",
    "carcassonne_env.bots.factory.make_bot",
    "carcassonne_env.carcassonne_v0",
    "carcassonne_env.envs.aec.raw_env",
    "carcassonne_env.envs.solo.SoloEnv",
    "carcassonne_env.envs.solo.SoloVectorEnv",
    "carcassonne_env.envs.vs_bots.VsBotsEnv",
    "carcassonne_env.envs.vs_bots.VsBotsVectorEnv",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built strictly into a temporary folder."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_site_builds_strictly(site: Path):
    assert (site / "index.html").is_file()
    assert (site / "environments" / "carcassonne" / "index.html").is_file()


def test_the_api_reference_documents_the_public_api(site: Path):
    html = "\n".join(p.read_text(encoding="utf-8") for p in (site / "reference").rglob("*.html"))
    missing = [name for name in DOCUMENTED if f'id="{name}"' not in html]
    assert not missing, missing


def test_the_site_holds_the_results_tables_the_docs_link_to(site: Path):
    """docs/hooks.py: a link to a table under results/ leads to its page in the site."""
    page = (site / "training" / "index.html").read_text(encoding="utf-8")
    assert 'href="../results/training/puct/' in page
    assert (site / "results" / "training" / "puct" / "index.html").is_file()


def test_every_environment_page_shows_its_game():
    assert {p.stem for p in ENV_PAGES} == {"carcassonne", "solo", "vs_bots"}
    for page in ENV_PAGES:
        images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8"))
        assert images, f"{page.name} has no picture"
        assert all((page.parent / image).is_file() for image in images), page.name
