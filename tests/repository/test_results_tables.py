"""`results/` holds the tables the README and docs cite, and only those: every figure the
docs quote with an interval is in one of its tables, the README's ladder and solo tables
are its files' rows, every `results/` path the docs and code name exists, and the folder
stays small, listed in its README, with no machine's paths in it."""

from __future__ import annotations

import re

import pytest

from tests.support.paths import ROOT

RESULTS = ROOT / "results"
DOCS = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "agents").glob("**/README.md")),
]
CODE = [
    path
    for package in ("carcassonne_env", "agents", "training", "benchmarks")
    for path in sorted((ROOT / package).rglob("*.py"))
]
# A figure with its interval: "0.807 [0.766, 0.843]", "+3.37 [+1.81, +4.92]".
INTERVAL = re.compile(r"[+-]?\d+\.\d+ \[[+-]?\d+\.\d+, [+-]?\d+\.\d+\]")
# A path into results/, also as a relative link (`../results/...`; not `~/ray_results/...`).
RESULTS_PATH = re.compile(r"(?:(?<=\.\./)|(?<![\w~/.]))results/[\w./*-]*[\w*]")
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home|tmp|Users)/|[A-Z]:\\\\")
MAX_BYTES, MAX_FILES = 1_000_000, 60


def _plain(text: str) -> str:
    """`text` without bold marks and with every run of whitespace one space."""
    return re.sub(r"\s+", " ", text.replace("**", ""))


def _tables() -> str:
    return _plain("\n".join(p.read_text(encoding="utf-8") for p in RESULTS.rglob("*.md")))


def _rows(text: str, header_start: str) -> list[list[str]]:
    """The cells of the rows of the first markdown table whose header starts so."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_every_interval_the_docs_quote_is_in_a_results_table():
    tables = _tables()
    for doc in DOCS:
        missing = [
            m.group(0)
            for m in INTERVAL.finditer(_plain(doc.read_text(encoding="utf-8")))
            if m.group(0) not in tables
        ]
        assert missing == [], f"{doc.relative_to(ROOT)} quotes figures no results/ table has"


def test_the_interval_check_finds_what_it_should():
    found = INTERVAL.findall(
        _plain(
            "beats it **0.807** [0.766, 0.843]; paired +3.37 [+1.81,\n"
            "+4.92]; 24.14 ± 0.60; [0.5, 0.6]; x[1.0, 2.0]"
        )
    )
    assert found == ["0.807 [0.766, 0.843]", "+3.37 [+1.81, +4.92]"]


def test_the_readme_solo_table_is_results_solo_summary():
    summary = (RESULTS / "solo" / "summary.md").read_text(encoding="utf-8").strip()
    assert summary.count("\n") == 14  # header, rule, 12 bots, the clairvoyant line
    assert summary in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_solo_results_doc_tables_are_results_solo_tables():
    tables = set((RESULTS / "solo" / "tables.md").read_text(encoding="utf-8").splitlines())
    doc = (ROOT / "docs" / "solo_results.md").read_text(encoding="utf-8").splitlines()
    quoted = [line for line in doc if line.startswith(("|", "Paired by deal:"))]
    assert len(quoted) > 70
    assert [line for line in quoted if line not in tables] == []


LADDER = "| rank | bot | rating |"


@pytest.mark.parametrize(
    "doc, folders",
    [
        ("README.md", ["ladder", "ladder_4p"]),
        ("docs/ladders.md", ["ladder", "ladder_3p", "ladder_4p", "ladder_exp"]),
    ],
)
def test_the_ladders_the_docs_show_are_results_ladders(doc, folders):
    """Each ladder table of `doc`, in order, is the leaderboard of one results/ folder:
    its rows, with the columns it shows, and every bot of it."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(LADDER)]
    assert len(starts) == len(folders)
    for start, folder in zip(starts, folders, strict=True):
        shown = _rows("\n".join(lines[start:]), LADDER)
        board = _rows((RESULTS / folder / "leaderboard.md").read_text(encoding="utf-8"), LADDER)
        head, by_rank = board[0], {row[0]: row for row in board[2:]}
        assert len(shown) - 2 == len(by_rank) >= 6, folder
        for row in shown[2:]:
            full = by_rank[row[0]]
            assert row == [full[head.index(column)] for column in shown[0]], (folder, row[1])


def test_every_results_path_named_exists():
    missing = []
    for path in DOCS + CODE:
        for name in RESULTS_PATH.findall(path.read_text(encoding="utf-8")):
            if not any(ROOT.glob(name.rstrip("/."))):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


def test_results_is_small_listed_and_names_no_machine_path():
    files = sorted(p for p in RESULTS.rglob("*") if p.is_file())
    assert len(files) <= MAX_FILES
    assert sum(p.stat().st_size for p in files) <= MAX_BYTES
    assert [p for p in files if MACHINE_PATH.search(p.read_text(encoding="utf-8"))] == []
    index = (RESULTS / "README.md").read_text(encoding="utf-8")
    listed = {
        p
        for row in index.splitlines()
        if row.startswith("| `")
        for name in re.findall(r"`([^`]+)`", row.split("|")[1])
        for p in RESULTS.glob(name)
    }
    assert listed == set(files) - {RESULTS / "README.md"}
