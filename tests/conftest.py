"""Test setup. numba invalidates a cached function only when its own file changes, not
when a function it inlines from another module does; so the tests use a numba cache
directory keyed by a hash of every file with jitted functions (the core and the bots'
search code), set before numba is imported."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

_PACKAGE = Path(__file__).resolve().parents[1] / "carcassonne_env"
_JITTED = ("carcassonne_env/core/*.py", "agents/evaluation.py", "agents/search.py")


def _jitted_hash() -> str:
    digest = hashlib.sha256()
    for pattern in _JITTED:
        for path in sorted(_PACKAGE.parent.glob(pattern)):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


if "NUMBA_CACHE_DIR" not in os.environ and _PACKAGE.is_dir():
    os.environ["NUMBA_CACHE_DIR"] = str(_PACKAGE.parent / ".numba_cache" / _jitted_hash())


@pytest.fixture
def one_torch_thread():
    """PPO tests run beside another pytest-xdist worker on 2 cores: torch's default
    thread pool oversubscribes them (and spins), making training several times slower."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
