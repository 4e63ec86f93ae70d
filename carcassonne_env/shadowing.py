"""The packages of this distribution and which way they import: `carcassonne_env` (rules,
environments, built-in bots) imports neither of the others; `agents` (search and policy
bots, arena, benchmarks) builds on it; `training` (PPO baselines) on both; the command
line (`carcassonne_env.cli`) on all three.

`agents` and `training` are common names: a user's own package of that name (a folder in
the working directory, on PYTHONPATH, or an editable install of their project) can come
first on ``sys.path`` and shadow ours. `check_package` turns what would be a puzzling
``cannot import name ...`` into one error that says so.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

#: The top-level packages installed side by side with `carcassonne_env`.
SIBLINGS = ("agents", "training")

_HOME = Path(__file__).resolve().parent.parent  # the folder holding all three


class ShadowedPackageError(ImportError):
    """``import agents`` (or ``training``) finds another package than this
    distribution's."""


def expected_path(name: str) -> Path:
    """Where this distribution's package `name` lives (beside `carcassonne_env`)."""
    return _HOME / name


def found_path(name: str) -> Path | None:
    """The folder (or file) ``import name`` gives now: the module already imported, else
    what the import system would find (looking it up imports nothing); None if nothing."""
    module = sys.modules.get(name)
    if module is not None:
        spec = getattr(module, "__spec__", None)
        file = getattr(module, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        file = spec.origin if spec is not None and spec.has_location else None
    if file:
        path = Path(file).resolve()
        return path.parent if path.name == "__init__.py" else path
    locations = list(getattr(spec, "submodule_search_locations", None) or [])
    return Path(locations[0]).resolve() if locations else None  # a namespace package


def shadowing_message(name: str, found: Path | None) -> str:
    """The one-line explanation of a shadowed (or missing) package `name`."""
    expected = expected_path(name)
    if found is None:
        return (
            f"no '{name}' package found: carcassonne-env installs its '{name}' package "
            f"beside 'carcassonne_env' ({expected}); reinstall it "
            "(pip install carcassonne-env)"
        )
    return (
        f"'import {name}' finds {found}, not carcassonne-env's '{name}' package "
        f"({expected}): a package of yours named '{name}' comes first on sys.path. Run "
        f"from another folder, rename your package, or install carcassonne-env so that "
        f"no other '{name}' (the working directory, PYTHONPATH, an editable install) is "
        "ahead of it on sys.path"
    )


def check_package(name: str) -> None:
    """Raise `ShadowedPackageError` (an ImportError) naming the path found unless
    ``import name`` gives this distribution's package `name` ("agents" or "training")."""
    found = found_path(name)
    if found != expected_path(name):
        raise ShadowedPackageError(shadowing_message(name, found), name=name)
