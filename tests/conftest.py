"""Test setup. numba invalidates a cached function only when its own file changes, not
when a function it inlines from another module does (nor a constant it reads from one);
so the tests use a numba cache directory keyed by a hash of every file with jitted
functions and of the project modules those files import (tests/support/numba_cache_key.py),
set before numba is imported.

The folders of tests/ mirror the package tree (tests/core for carcassonne_env/core, ...;
tests/game for carcassonne_env's top-level modules, tests/rules for the rule scenarios,
tests/repository for the repository as a whole); the shared helpers are tests/support."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.numba_cache_key import ROOT, jitted_hash

if "NUMBA_CACHE_DIR" not in os.environ and (ROOT / "carcassonne_env").is_dir():
    os.environ["NUMBA_CACHE_DIR"] = str(ROOT / ".numba_cache" / jitted_hash())
# Compile notices (a line on stderr the first time a part compiles: whichever test
# comes first with a cold cache) would make a test's stderr depend on the order the tests
# run in; tests/compiler/test_compilation.py turns them back on where it checks them.
os.environ["CARCASSONNE_NO_COMPILE_NOTICE"] = "1"

# CI (.ci/run) installs every extra and sets CARCASSONNE_REQUIRE_EXTRAS: there a test that
# would skip for a missing module (`pytest.importorskip`) fails instead, so that a missing
# install step cannot pass as a skip.
if os.environ.get("CARCASSONNE_REQUIRE_EXTRAS"):
    _importorskip = pytest.importorskip

    def _import_or_fail(modname: str, *args, **kwargs):
        try:
            return _importorskip(modname, *args, **kwargs)
        except pytest.skip.Exception as err:
            pytest.fail(f"{err} (CARCASSONNE_REQUIRE_EXTRAS is set: CI installs every extra)")

    pytest.importorskip = _import_or_fail


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
    if (
        hasattr(session.config, "workerinput")
        or not isinstance(workers, int)
        or (workers < 2 or not cache.is_absolute() or (cache.is_dir() and any(cache.iterdir())))
    ):
        return
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, "-m", "carcassonne_env.cli", "warmup", "--quiet", "--jobs", str(workers)],
        check=False,
        cwd=ROOT,
    )


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
