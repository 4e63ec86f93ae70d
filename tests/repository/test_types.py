"""The type checker over the packages: `python -m mypy`, with pyproject.toml's [tool.mypy]
settings (the packages it checks, the numba kernels it leaves out and why), reports no
error. mypy comes with the dev extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import ROOT

pytest.importorskip(
    "mypy", reason="mypy is not installed (it comes with the dev extra: pip install -e '.[dev]')"
)


# Single-threaded for about half a minute on an empty .mypy_cache (a CI run), a second with a
# full one: `last`, so that it runs beside the other last test (tests/conftest.py) instead of
# holding up a worker's queue of tests.
@pytest.mark.last
def test_packages_type_check():
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout}{result.stderr}"
    assert result.stdout.startswith("Success: no issues found in ")
