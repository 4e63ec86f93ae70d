"""Test setup. numba invalidates a cached function only when its own file changes, not
when a function it inlines from another module does (nor a constant it reads from one);
so the tests use a numba cache directory keyed by a hash of every file with jitted
functions and of the project modules those files import, found by scanning the sources
(a new jitted module is covered without editing this list), set before numba is imported.
tests/test_compilation.py checks the scan against the modules numba really compiles."""

from __future__ import annotations

import ast
import hashlib
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SOURCE_DIRS = ("carcassonne_env", "agents", "training")  # what the tests run
# A decorator (@njit, @jit, @numba.njit, the core's @hot...) or a call njit(...)(f).
_JIT_DEFINITION = re.compile(
    r"^\s*@(?:numba\.)?(?:njit|jit|hot|hot_inline|counted|vectorize|guvectorize|cfunc|stencil)\b"
    r"|\b(?:njit|jit)\([^)]*\)\s*\(\s*\w", re.MULTILINE)


def _module_file(name: str) -> Path | None:
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_level(tree: ast.AST):
    """The nodes of `tree` outside function bodies: what a module's globals come from.
    An import inside a function binds a local name of that (Python) function, which no
    compiled code reads (numba refuses an import inside a jitted function)."""
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node
            yield from _module_level(node)


def _imported_files(path: Path) -> set[Path]:
    """Project files imported at module level by `path` (`from .config import X`, `from
    carcassonne_env.core import config`, `import carcassonne_env.bots.evaluation`)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[Path] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # each name: the submodule if it is one, else the package
            choices = [(f"{base}.{alias.name}", base) for alias in node.names]
        elif isinstance(node, ast.Import):
            choices = [(alias.name,) for alias in node.names]
        else:
            continue
        for names in choices:
            for name in names:
                if name.split(".")[0] in _SOURCE_DIRS and (found := _module_file(name)):
                    out.add(found)
                    break
    return out


def jitted_files() -> list[Path]:
    """Every source file defining jitted functions, and the project files they import
    (the jitted functions they call, the constants compiled in): what compiled machine
    code can depend on."""
    jitted = [p for d in _SOURCE_DIRS for p in sorted((ROOT / d).rglob("*.py"))
              if _JIT_DEFINITION.search(p.read_text(encoding="utf-8"))]
    # and the compile options' own imports (`compiler.link_only` decides what the cache holds)
    options = ROOT / "carcassonne_env" / "compiler" / "jit.py"
    imported = [_imported_files(p) for p in jitted] + [
        _imported_files(options) if options.is_file() else set()]
    return sorted(set(jitted).union(*imported))


def jitted_hash() -> str:
    digest = hashlib.sha256()
    for path in jitted_files():
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


if "NUMBA_CACHE_DIR" not in os.environ and (ROOT / "carcassonne_env").is_dir():
    os.environ["NUMBA_CACHE_DIR"] = str(ROOT / ".numba_cache" / jitted_hash())
# Compile notices (a line on stderr the first time a part compiles: whichever test
# comes first with a cold cache) would make a test's stderr depend on the order the tests
# run in; tests/test_compilation.py turns them back on where it checks them.
os.environ["CARCASSONNE_NO_COMPILE_NOTICE"] = "1"


# Compiling is most of a cold CI run (2 cores, an empty cache), and each jitted entry point
# over the candidate pass compiles it into its own code for minutes: the test files that
# start on it are one xdist_group("candidates"), run by one worker (`--dist loadgroup`,
# pyproject.toml), so that no entry point compiles on both workers at once.


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    """On an empty cache with several workers (a cold CI run), compile the package first
    with `carcassonne warmup` (its parts in parallel processes, each compiled once): left to
    the workers, each compiles what its tests need, many parts twice."""
    workers = getattr(session.config.option, "numprocesses", None) or 0
    cache = Path(os.environ.get("NUMBA_CACHE_DIR", ""))
    if hasattr(session.config, "workerinput") or not isinstance(workers, int) or (
            workers < 2 or not cache.is_absolute() or (cache.is_dir() and any(cache.iterdir()))):
        return
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "carcassonne_env.cli", "warmup", "--quiet",
                    "--jobs", str(workers)], check=False, cwd=ROOT)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `last` run after all the others (pytest-xdist hands tests out in this
    order): `carcassonne warmup` then finds what the other tests compiled in the cache,
    instead of compiling the whole package a second time beside them."""
    items.sort(key=lambda item: item.get_closest_marker("last") is not None)


@pytest.fixture
def one_torch_thread():
    """PPO tests run beside another pytest-xdist worker on 2 cores: torch's default
    thread pool oversubscribes them (and spins), making training several times slower."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
