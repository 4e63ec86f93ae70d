"""The tree passes ruff's linter and is formatted by ruff's formatter (pyproject.toml's
[tool.ruff]; `.pre-commit-config.yaml` runs the same two on each commit). ruff comes with
the dev extra."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

RUFF = shutil.which("ruff")


@pytest.mark.skipif(
    RUFF is None,
    reason="ruff is not installed (it comes with the dev extra: pip install -e '.[dev]')",
)
@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command):
    result = subprocess.run(
        [RUFF, *command], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, f"ruff {' '.join(command)}:\n{result.stdout}{result.stderr}"
