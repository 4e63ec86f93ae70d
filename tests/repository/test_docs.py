"""Every Python snippet of the README and docs/ runs as written (with smaller budgets),
and every `carcassonne` command in their shell blocks parses: docs cannot drift from
the code (issue 18.5)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    ROOT / "CONTRIBUTING.md",
    ROOT / "agents" / "models" / "README.md",
]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)

# Budgets the test shrinks: (file, text in the snippet, text run instead). Each text must
# be in its file, so a changed snippet fails here rather than running at full size.
SHRINK = [
    ("README.md", "model.learn(4_096)", "model.learn(1)"),  # still one whole rollout
    ("README.md", 'make_bot("mcts", seed=0)', 'make_bot("mcts:iterations=8", seed=0)'),
    ("docs/training.md", "model.learn(4_096)", "model.learn(1)"),
    ("docs/bots.md", 'make_bot("mcts", seed=1)', 'make_bot("mcts:iterations=8", seed=1)'),
    ("docs/arena.md", "games=100,", "games=4,"),
    ("docs/arena.md", "workers=2)", "workers=1)"),
    ("docs/solo_bench.md", "deals=1000, workers=2)", "deals=3, workers=1, progress=False)"),
    (
        "docs/solo_lab.md",
        'make_bot("solo-search", seed=0)',
        'make_bot("solo-search:samples=4", seed=0)',
    ),
    ("docs/solo_lab.md", "solve_deal(7, seconds=60)", "solve_deal(7, seconds=1)"),
    ("docs/solo_lab.md", 'bot="solo-search")', 'bot="solo-search:samples=2:top_k=2")'),
    ("docs/vector.md", "num_envs=256,", "num_envs=4,"),
    ("docs/vector.md", "num_envs=64,", "num_envs=4,"),
    ("docs/vector.md", "model.learn(8_192)", "model.learn(1)"),
]
# What a snippet takes from the prose around it.
SETUP = {
    ("docs/solo_bench.md", 0): "from agents.solo_bench import run_solo_bench\n"
    "run_solo_bench('random', deals=3, progress=False)"
    ".to_json('random.json')",
    ("docs/solo_bench.md", 1): "from carcassonne_env import make_bot\n"
    "from agents.solo_bench import run_solo_bench\n"
    "from carcassonne_env import Game, Rules\n"
    "spec, rules = 'greedy', Rules(variant='solo')\n"
    "row = run_solo_bench(spec, deals=1, progress=False).rows[0]",
    ("docs/solo_lab.md", 0): "from carcassonne_env import Game, Rules\n"
    "game = Game(Rules(variant='solo'), seed=0)\n"
    "some_move = game.legal_moves()[0]",
    ("docs/solo_lab.md", 2): "from carcassonne_env import make_bot\n"
    "game, bot = Game(Rules(variant='solo'), seed=1), "
    "make_bot('greedy', seed=0)\n"
    "while not game.done:\n    game.play(bot.act(game))\n"
    "record = game.to_record()",
}
# Snippets that cannot run here, and why.
SKIP = {("docs/arena.md", 1): "needs a Ray cluster at ray://head:10001"}


def _blocks(language: str) -> list[tuple[str, int, str]]:
    """(file relative to the root, index among the file's blocks of `language`, code)."""
    out = []
    for path in DOCS:
        name = path.relative_to(ROOT).as_posix()
        found = [
            code
            for lang, code in FENCE.findall(path.read_text(encoding="utf-8"))
            if lang == language
        ]
        out += [(name, i, code) for i, code in enumerate(found)]
    return out


PYTHON = _blocks("python")


def test_every_shrunk_text_and_special_case_is_still_in_the_docs():
    snippets = {(name, i): code for name, i, code in PYTHON}
    for name, text, _ in SHRINK:
        assert any(text in code for (n, _), code in snippets.items() if n == name), (name, text)
    assert set(SETUP) | set(SKIP) <= set(snippets)


@pytest.mark.parametrize("name", sorted({name for name, _, _ in PYTHON}))
def test_python_snippets_run(name, tmp_path, monkeypatch):
    """A file's snippets run in order in one namespace (later ones may use earlier
    names), in an empty folder: what they load (the shipped models) they find from
    anywhere."""
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for file, i, code in PYTHON:
        if file != name or (file, i) in SKIP:
            continue
        for shrink_file, text, small in SHRINK:
            if shrink_file == file:
                code = code.replace(text, small)
        exec(
            compile(SETUP.get((file, i), "") + "\n" + code, f"{file} snippet {i}", "exec"),
            namespace,
        )


def _commands() -> list[tuple[str, str]]:
    """Each `carcassonne ...` command line of the shell blocks (continuations joined,
    comments and what follows `&&` dropped)."""
    out = []
    for name, _, code in _blocks("bash"):
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if "carcassonne " not in line or line.startswith("#") or "..." in line:
                continue
            command = line[line.index("carcassonne ") :].split("&&")[0]
            out.append((name, command.strip()))
    return out


@pytest.mark.parametrize(("name", "command"), _commands(), ids=lambda v: v)
def test_shell_commands_parse(name, command, capsys):
    from carcassonne_env.cli import build_parser

    argv = shlex.split(command)[1:]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exit_:  # argparse refuses: an option the docs name is gone
        pytest.fail(f"{name}: `{command}` does not parse: {capsys.readouterr().err}")
        raise exit_


def test_the_readme_test_command_is_what_ci_runs():
    """The README's install-and-test line is `.ci/run`'s last line, and the README names
    what `.ci/run` does before it (PyTorch, Chromium)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1].startswith("python -m pip install -e ") and ci[-1].endswith(
        "&& python -m pytest -n 2"
    )
    assert f"```bash\n{ci[-1]}\n```" in readme
    for step in (
        'python -m pip install "torch==2.13.0"',
        "apt-get install -y chromium",
        "export CARCASSONNE_REQUIRE_BROWSER=1",
        "export CARCASSONNE_REQUIRE_EXTRAS=1",
    ):
        assert step in "\n".join(ci), step
    words = " ".join(readme.split())  # across line breaks
    for mention in (
        "pip install torch==2.13.0",
        "apt-get install -y chromium",
        "CARCASSONNE_REQUIRE_BROWSER=1",
        "CARCASSONNE_REQUIRE_EXTRAS=1",
    ):
        assert mention in words, mention


# Issue references ("issue 25", "issues 13", "#25") and commit hashes (git's 7-12 hex digit
# abbreviations or the full 40, with at least one digit and one letter, outside code blocks)
# belong in the CHANGELOG and the results folders, not in the manual. (A 16-digit data
# fingerprint, such as the solo deals', is no commit.)
ISSUE = re.compile(r"\bissues? #?\d+|(?<![\w&#/])#\d+\b", re.IGNORECASE)
HEX = re.compile(
    r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])"
    r"(?:[0-9a-f]{40}|[0-9a-f]{7,12})(?![\w-])"
)
README_LINES = 400


def _history_marks(path: Path) -> list[str]:
    """The issue numbers and commit hashes a file names, with their line numbers."""
    text = path.read_text(encoding="utf-8")
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keeps line numbers
    found = [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in ISSUE.finditer(text)]
    found += [(prose.count("\n", 0, m.start()) + 1, m.group(0)) for m in HEX.finditer(prose)]
    return [f"{path.relative_to(ROOT).as_posix()}:{line}: {mark}" for line, mark in sorted(found)]


def test_the_readme_is_a_manual():
    """The README is a manual a newcomer reads in ten minutes: short, and it names no
    issue numbers and no commit hashes (history lives in CHANGELOG.md and results/)."""
    readme = ROOT / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines (at most {README_LINES})"
    assert _history_marks(readme) == []


def test_the_docs_name_no_issues():
    """Nor do the docs/*.md pages."""
    marks = [
        mark for path in sorted((ROOT / "docs").rglob("*.md")) for mark in _history_marks(path)
    ]
    assert marks == []


def test_the_history_checks_find_what_they_should():
    cases = {
        "see issue 25": True,
        "Issues 13 and 14": True,
        "(#25)": True,
        "issue #7": True,
        "commit f3a56f8 made it": True,
        "9f6e1dd": True,
        "(84c7a75d3e1f)": True,
        "a" * 30 + "1" * 10: True,
        "fingerprint 85f0e0815ba63567": False,
        "colour #ff8800": False,
        "#1f2e3d": False,
        "5,000 games": False,
        "`int64` buffer": False,
        "deadbeef": False,
        "1234567": False,
        "docs/rules.md#7-expansions": False,
        "&#8212;": False,
        "issue-free": False,
    }
    for text, flagged in cases.items():
        assert bool(ISSUE.search(text) or HEX.search(text)) is flagged, text


PACKAGES = ("carcassonne_env", "agents", "training")


def _section(path: Path, heading: str) -> str:
    """The text of the markdown section `heading` of `path`, up to the next heading of its
    level."""
    text = path.read_text()
    start = text.index(heading)
    level = heading.split(" ")[0] + " "
    end = text.find("\n" + level, start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def test_the_readme_layout_names_every_package_folder():
    layout = _section(ROOT / "README.md", "## Layout")
    folders = sorted(
        {
            p.parent.relative_to(ROOT)
            for package in PACKAGES
            for p in (ROOT / package).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
    )
    missing = [str(f) for f in folders if f.name + "/" not in layout]
    assert not missing, f"README 'Layout' does not name these folders: {missing}"


def test_contributing_maps_every_module():
    where = _section(ROOT / "CONTRIBUTING.md", "## Where things live")
    names = set(re.findall(r"[\w.]+\.\w+", where))
    modules = sorted(
        p.relative_to(ROOT)
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )
    missing = [str(m) for m in modules if m.name not in names]
    assert not missing, f"CONTRIBUTING 'Where things live' does not name: {missing}"
    for heading in ("**A rule**", "**An env option**", "**A bot**"):
        assert heading in where
