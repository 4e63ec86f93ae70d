"""Where the repository is, for tests that read its files or run commands in it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
