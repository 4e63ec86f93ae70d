"""The tests mirror the package tree (a folder of tests/ per package folder, the shared
helpers in tests/support) and use the public API: a test reads a private attribute of
the packages (`game._st`, `factory._FACTORIES`, `from ... import _helper`) only where it
exists to check internals and says so, with a comment `# internals: why` on the
statement or just above it, or "internals:" in the docstring of its function, class or
file."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator

from tests.support.paths import ROOT

TESTS = ROOT / "tests"
PACKAGES = ("carcassonne_env", "agents", "training", "benchmarks")
# tests/<folder> for carcassonne_env/<folder>/, agents/, training/ and benchmarks/; and
# the folders of tests that have no package folder of their name.
OWN_FOLDERS = {
    "game": "carcassonne_env's top-level modules (game.py, encoding.py, records.py...)",
    "rules": "rule scenarios with scores worked by hand (docs/rules.md)",
    "repository": "the repository as a whole: layout, docs, results, these tests",
    "support": "helpers shared by the test files (no tests)",
}
MARK = "internals:"
# A namedtuple's public methods, named with an underscore so as not to clash with fields.
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def package_private_names() -> set[str]:
    """Every private name the packages define: functions, classes, module and class
    attributes, attributes set on an object (``self._x = ...``), and identifiers in
    strings (a `__getattr__` may serve ``"_board"``)."""
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
                elif (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and (node.value.isidentifier())
                ):
                    names.add(node.value)
    return {name for name in names if _is_private(name)} - NAMEDTUPLE_API


def _comment_lines(source: str) -> dict[int, str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.start[0]: tok.string for tok in tokens if tok.type == tokenize.COMMENT}


def _private_uses(tree: ast.AST, private: set[str]) -> Iterator[tuple[ast.AST, str]]:
    """(node, name) for each use of a package's private name: ``x._name`` (``x`` not
    `self`, `cls` or `super()`), ``from package.module import _name``, and
    ``getattr(x, "_name")`` / ``setattr`` / ``monkeypatch.setattr(x, "_name", ...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
                continue
            yield node, node.attr
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
            yield from ((node, alias.name) for alias in node.names if _is_private(alias.name))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            target = node.args[1]
            if (
                name in ("getattr", "setattr", "hasattr", "delattr")
                and isinstance(target, ast.Constant)
                and target.value in private
            ):
                yield node, target.value


def unexplained_private_uses(source: str, private: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each use of a private name in `source` that no "internals:"
    comment or docstring explains (see the module docstring)."""
    tree = ast.parse(source)
    comments = _comment_lines(source)
    explained_lines: set[int] = set()
    covered_spans: list[tuple[int, int]] = []

    def mark(node: ast.AST, inside_explained: bool) -> None:
        doc = (
            ast.get_docstring(node)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            else None
        )
        explained = inside_explained or MARK in (doc or "").lower()
        if isinstance(node, ast.stmt):
            start = node.lineno
            while start - 1 in comments:  # the comment block just above
                start -= 1
            own = range(start, node.end_lineno + 1)
            if explained or any(MARK in comments.get(n, "").lower() for n in own):
                covered_spans.append((node.lineno, node.end_lineno))
        for child in ast.iter_child_nodes(node):
            mark(child, explained)

    mark(tree, False)
    for start, end in covered_spans:
        explained_lines.update(range(start, end + 1))
    return sorted(
        (node.lineno, name)
        for node, name in _private_uses(tree, private)
        if node.lineno not in explained_lines
    )


def test_the_check_finds_a_private_read_and_takes_its_explanation():
    private = {"_st", "_helper"}
    plain = "def test_a(game):\n    assert game._st is not None\n"
    assert unexplained_private_uses(plain, private) == [(2, "_st")]
    imported = "from carcassonne_env.game import _helper\n"
    assert unexplained_private_uses(imported, private) == [(1, "_helper")]
    by_name = "def test_a(game):\n    return getattr(game, '_st')\n"
    assert unexplained_private_uses(by_name, private) == [(2, "_st")]
    for explained in (
        "def test_a(game):\n    assert game._st is not None  # internals: the state\n",
        "def test_a(game):\n    # internals: the state\n    assert game._st is not None\n",
        'def test_a(game):\n    """Internals: the state."""\n    assert game._st\n',
        '"""Internals: the packed state."""\n\n\ndef test_a(game):\n    assert game._st\n',
        "class A:\n    def f(self):\n        return self._st\n",
    ):
        assert unexplained_private_uses(explained, private) == [], explained
    names = package_private_names()
    assert {"_st", "_ts", "_FACTORIES", "_build_bot"} <= names
    assert not names & NAMEDTUPLE_API  # (`point._replace(x=1)` is a namedtuple's API)


def test_no_test_reads_a_private_name_of_the_packages_without_saying_why():
    private = package_private_names()
    found = {
        str(path.relative_to(ROOT)): unexplained
        for path in sorted(TESTS.rglob("*.py"))
        if (unexplained := unexplained_private_uses(path.read_text(encoding="utf-8"), private))
    }
    assert found == {}, (
        "use the public API (game.state, game.tileset, game.tables...) or "
        "say why a test reads internals: # internals: ..."
    )


def test_the_tests_mirror_the_package_tree():
    top = sorted(p.name for p in TESTS.iterdir() if p.is_file())
    assert top == ["conftest.py"]  # every test file lies in a folder of its subject
    package_folders = {p.parent.name for p in (ROOT / "carcassonne_env").glob("*/__init__.py")}
    package_folders |= {"agents", "training", "benchmarks"}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders - package_folders - set(OWN_FOLDERS) == set()  # a folder per subject
    assert len(folders & package_folders) >= 5
    assert not list((TESTS / "support").glob("test_*.py"))  # helpers only
    for folder in folders - {"support"}:
        assert list((TESTS / folder).glob("test_*.py")), folder
        assert not [
            p for p in (TESTS / folder).iterdir() if p.is_dir() and not p.name.startswith("__")
        ], folder  # one level: tests/<package folder>/test_<module>.py
