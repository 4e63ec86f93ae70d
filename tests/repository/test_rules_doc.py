"""docs/rules.md is the rules specification, and the repository speaks of itself only.

The page's tile tables are the package's tile data and its option table names every
`Rules` option; its sections are numbered, and every citation "docs/rules.md N.M" (or link
to one of its headings) anywhere in the repository names a section that exists; no file
names rule sources or machine paths outside the repository.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
from pathlib import Path

import pytest

from carcassonne_env import Rules
from carcassonne_env.tiles import EXPANSION_TILES, load_json
from tests.support.paths import ROOT

RULES_DOC = ROOT / "docs" / "rules.md"

HEADING = re.compile(r"^(#{2,6}) (\d+(?:\.\d+)*)\.? +(.+?) *$", re.MULTILINE)
NUMBER = r"\d+(?:\.\d+)*"
# The page's name, then a section number, or several ("6.4", "7.3-7.9", "2, 3 and 4")
CITATION = re.compile(
    rf"rules\.md,?\s+(?:sections?\s+|§\s*)?({NUMBER}(?:(?:,\s*|\s+and\s+|\s+to\s+|-){NUMBER})*)"
)
# Inside the page: the word "section(s)", then numbers as above
INNER_CITATION = re.compile(rf"\bsections?\s+({NUMBER}(?:(?:,\s*|\s+and\s+|\s+to\s+|-){NUMBER})*)")
# A citation by a section's title in quotes: cite its number instead
NAMED_CITATION = re.compile(r"rules\.md\)?(?:[,:]\s*|\s+\(?|\()\s*[\"“]")
ANCHOR = re.compile(r"rules\.md#([\w-]+)")

# What no file of the repository may name: the rules' sources outside it, machine paths.
OUTSIDE = {
    "the source folder beside the checkout": re.compile(
        r"\.\./shared\b|(?<![\w./-])shared/(?:tiles|seeds|RULES)"
    ),
    "a rules digest outside the repository (docs/rules.md is the specification)": re.compile(
        r"\bRULES\.md\b"
    ),
    "an original rules document (docs/rules.md is the specification)": re.compile(
        r"\bseed (?:doc|0\d\d\b)|\bseeds/|\bJapanese\b", re.IGNORECASE
    ),
    "a machine path": re.compile(
        r"(?<![\w.~/-])/(?:work|home|Users|root|mnt|media|scratch|srv)/"
        r"|(?<![\w.~/-])/tmp[/](?!perf-)"  # perf reads JIT symbols from /tmp/perf-PID.map
        r"|\b[A-Za-z]:\\+Users\\"
    ),
}


def _repository_files() -> list[Path]:
    """The files of the checkout: tracked and untracked but not ignored (git), or, without
    git, every file outside the folders .gitignore names."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        paths = [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        ignored = {
            ".git",
            ".hypothesis",
            ".numba_cache",
            ".pytest_cache",
            ".ruff_cache",
            ".venv",
            "__pycache__",
            "build",
            "dist",
            "tmp",
            "runs",
        }
        paths = [Path(d) / f for d, _, files in os.walk(ROOT) for f in files]
        paths = [
            p
            for p in paths
            if not any(
                part in ignored or part.endswith(".egg-info")
                for part in p.relative_to(ROOT).parts[:-1]
            )
        ]
    return [p for p in paths if p.is_file() and not p.is_symlink()]


def _texts() -> dict[str, str]:
    """Relative path -> text of every text file of the repository."""
    texts = {}
    for path in _repository_files():
        data = path.read_bytes()
        if b"\0" not in data:
            texts[path.relative_to(ROOT).as_posix()] = data.decode("utf-8", "replace")
    return texts


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _sections(doc: str) -> dict[str, tuple[int, str]]:
    """Section number -> (heading depth, title) of the rules page."""
    return {m.group(2): (len(m.group(1)), m.group(3)) for m in HEADING.finditer(doc)}


def _slug(title: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def _numbers(found: str) -> list[str]:
    return re.findall(NUMBER, found)


def _bad_citations(name: str, text: str, sections: set[str], anchors: set[str]) -> list[str]:
    """Citations in `text` (file `name`) of sections or anchors the rules page lacks."""
    bad = [
        f"{name}:{_line(text, m.start())}: docs/rules.md {n}"
        for m in CITATION.finditer(text)
        for n in _numbers(m.group(1))
        if n not in sections
    ]
    if name == "docs/rules.md":
        bad += [
            f"{name}:{_line(text, m.start())}: section {n}"
            for m in INNER_CITATION.finditer(text)
            for n in _numbers(m.group(1))
            if n not in sections
        ]
    bad += [
        f"{name}:{_line(text, m.start())}: {m.group(0)!r} (cite the section number)"
        for m in NAMED_CITATION.finditer(text)
    ]
    bad += [
        f"{name}:{_line(text, m.start())}: #{m.group(1)}"
        for m in ANCHOR.finditer(text)
        if m.group(1) not in anchors
    ]
    return bad


def _outside_names(name: str, text: str) -> list[str]:
    return [
        f"{name}:{_line(text, m.start())}: {what}: {m.group(0)!r}"
        for what, pattern in OUTSIDE.items()
        for m in pattern.finditer(text)
    ]


def _table(doc: str, number: str) -> list[str]:
    """The rows of the table in section `number` (header and rule lines left out),
    whitespace collapsed."""
    start = next(m.end() for m in HEADING.finditer(doc) if m.group(2) == number)
    end = next((m.start() for m in HEADING.finditer(doc, start)), len(doc))
    rows = [line for line in doc[start:end].splitlines() if line.startswith("|")]
    return [" ".join(row.split()) for row in rows[2:]]


def _tile_row(name: str, tile: dict, with_feature: bool) -> str:
    edges = "".join(tile["edges"][e][0].upper() for e in "NESW")
    cells = [f"`{name}`", str(tile["count"]), f"`{edges}`", tile["name"]]
    if with_feature:
        marks = (
            (["inn"] if any(r.get("inn") for r in tile["roads"]) else [])
            + (["cathedral"] if any(c.get("cathedral") for c in tile["cities"]) else [])
            + [f"goods: {c['trade_good']}" for c in tile["cities"] if c.get("trade_good")]
        )
        cells.append(", ".join(marks) or "-")
    return " ".join(("| " + " | ".join(cells) + " |").split())


@pytest.fixture(scope="module")
def doc() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


def test_the_tile_tables_are_the_package_data(doc):
    base = [_tile_row(t["letter"], t, False) for t in load_json("base_tiles.json")["tiles"]]
    expansions = [
        _tile_row(prefix + t["letter"], t, True)
        for filename, prefix in EXPANSION_TILES.values()
        for t in load_json(filename)["tiles"]
    ]
    assert _table(doc, "1.2") == base, "\n".join(["expected rows:", *base])
    assert _table(doc, "7.2") == expansions, "\n".join(["expected rows:", *expansions])


def test_the_option_table_names_every_rules_option(doc):
    options = {row.split("|")[1].strip(" `") for row in _table(doc, "5.1")}
    assert options == {f.name for f in dataclasses.fields(Rules)}


def test_the_sections_are_numbered_in_order(doc):
    headings = [(m.group(1), m.group(2)) for m in HEADING.finditer(doc)]
    unnumbered = [
        line for line in doc.splitlines() if re.match(r"#{2,6} ", line) and not HEADING.match(line)
    ]
    assert unnumbered == []
    seen: list[list[int]] = []
    for hashes, number in headings:
        parts = [int(p) for p in number.split(".")]
        assert len(parts) == len(hashes) - 1, f"section {number} under {hashes}"
        parent = next((s for s in reversed(seen) if len(s) < len(parts)), [])
        siblings = [s for s in seen if s[:-1] == parts[:-1] and len(s) == len(parts)]
        expected = siblings[-1][-1] + 1 if siblings else 1
        assert parts[:-1] == parent[: len(parts) - 1] and parts[-1] == expected, number
        seen.append(parts)


def test_every_citation_names_a_section_of_the_rules(doc):
    sections = _sections(doc)
    anchors = {_slug(f"{number} {title}") for number, (_, title) in sections.items()}
    bad = [
        b
        for name, text in _texts().items()
        for b in _bad_citations(name, text, set(sections), anchors)
    ]
    assert bad == []


def test_no_file_names_a_source_outside_the_repository():
    bad = [b for name, text in _texts().items() for b in _outside_names(name, text)]
    assert bad == []


def test_the_checks_find_what_they_should():
    page = "docs/rules" + ".md"  # (written apart, so that this file cites nothing)
    sections = {"1", "6", "6.4", "7", "7.3", "7.9"}
    anchors = {"64-scoring-order-auto"}
    cited = {
        f"see {page} 6.4.": [],
        f"({page} 7.3-7.9)": [],
        f"{page} 1, 6 and 7": [],
        f"{page} section 6": [],
        f"{page} 6.5": ["6.5"],
        f"{page} 6.4, 8.1": ["8.1"],
        f"{page} 3 to 7": ["3"],
        f"[x]({page}#64-scoring-order-auto)": [],
        f"[x]({page}#expansions)": ["#expansions"],
        f'{page}, "Expansions"': ["cite the section number"],
        f'[x]({page}) ("Expansions")': ["cite the section number"],
        page: [],
        f"{page} and the tests": [],
        f'open("{page}")': [],
    }
    for text, wanted in cited.items():
        bad = _bad_citations("x.md", text, sections, anchors)
        assert len(bad) == len(wanted), text
        assert all(w in b for w, b in zip(wanted, bad, strict=True)), text
    assert _bad_citations(page, "as in section 6.4; sections 6.5 and 7", sections, anchors) == [
        f"{page}:1: section 6.5"
    ]
    outside = {
        "../sha" + "red/tiles": True,
        "RUL" + "ES.md": True,
        "sha" + "red/seeds": True,
        "Seed " + "004's example": True,
        "the seed " + "documents": True,
        "/wo" + "rk/x": True,
        "at /ho" + "me/ann/runs": True,
        "--model=/tm" + "p/run.zip": True,
        "C:\\" + "Users\\ann": True,
        "the Japa" + "nese text": True,
        "/usr/bin/chromium": False,
        "/tmp/perf-123.map": False,
        "https://example.org/home/x": False,
        f"{page} 6.4": False,
        "arena seed 500,000": False,
        "the seed's 32-bit words": False,
        "shared/cache": False,
        "tmp/artefacts": False,
        "~/work/x": False,
    }
    for text, flagged in outside.items():
        assert bool(_outside_names("x", text)) is flagged, text
    assert _slug('6.4 Scoring order `"auto"`') == "64-scoring-order-auto"
    assert _slug("7. Expansions (`expansions=...`)") == "7-expansions-expansions"
