"""Test setup. numba invalidates a cached function only when its own file changes, not
when a function it inlines from another module does; so the tests use a numba cache
directory keyed by a hash of the whole core (every jitted function lives in
carcassonne_env/core), set before numba is imported."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

_PACKAGE = Path(__file__).resolve().parents[1] / "carcassonne_env"


def _core_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted((_PACKAGE / "core").rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


if "NUMBA_CACHE_DIR" not in os.environ and _PACKAGE.is_dir():
    os.environ["NUMBA_CACHE_DIR"] = str(_PACKAGE.parent / ".numba_cache" / _core_hash())


@pytest.fixture
def one_torch_thread():
    """PPO tests run beside another pytest-xdist worker on 2 cores: torch's default
    thread pool oversubscribes them (and spins), making training several times slower."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
