"""Argument checks shared by the public constructors (Rules, Game, the envs, the bots):
each raises `ValueError` naming the argument, so a bad value fails at construction with
a clear message instead of deep inside numba later. Integers accept Python and numpy
integers but never bools; reals accept any int or float but never bools or strings.
Output paths are checked before any work (`output_file`, `output_folder`): no folder is
created and no file replaced unasked."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

import numpy as np

if TYPE_CHECKING:
    from gymnasium import spaces

SpaceT = TypeVar("SpaceT", bound="spaces.Space")


def install_hint(extra: str) -> str:
    """The command that adds this package's optional `extra` ("train", "plot", "ray",
    "rllib") where it is installed: from a checkout (its pyproject.toml beside the
    package) ``pip install -e "CHECKOUT[extra]"``, else ``pip install
    "carcassonne-env[extra]"``."""
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file():
        return f'pip install -e "{root}[{extra}]"'
    return f'pip install "carcassonne-env[{extra}]"'


def is_int(value: Any) -> TypeGuard[int | np.integer]:
    """True for Python and numpy integers (bools excluded)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """`value` as an int; ValueError unless it is an integer in [lo, hi]."""
    if not is_int(value) or (lo is not None and value < lo) or (hi is not None and value > hi):
        if hi is None:
            what = "an integer" if lo is None else f"an integer >= {lo}"
        elif lo is None:
            what = f"an integer <= {hi}"
        else:
            what = f"an integer in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def at_most(name: str, value: int | float, limit: int | float, why: str = "") -> Any:
    """`value` (a number already checked) unless it exceeds `limit`, the bound that keeps
    a budget (a search's iterations, a batch's games, seconds per move...) from
    exhausting memory or running for days: ValueError naming the limit (and `why`)."""
    if value > limit:
        raise ValueError(
            f"{name} must be at most {limit:,}{f' ({why})' if why else ''}, got {value!r}"
        )
    return value


def check_optional_int(
    name: str, value: Any, lo: int | None = None, hi: int | None = None
) -> int | None:
    """None, or `check_int`."""
    return None if value is None else check_int(name, value, lo, hi)


def check_seed(name: str, value: Any) -> int | None:
    """A seed: None or a non-negative integer (what numpy's generators accept)."""
    if value is not None and not (is_int(value) and value >= 0):
        raise ValueError(f"{name} must be None or a non-negative integer, got {value!r}")
    return None if value is None else int(value)


def check_real(name: str, value: Any, lo: float | None = None, *, strict: bool = False) -> float:
    """`value` as a finite float; ValueError unless it is a real number (not a bool)
    >= lo (> lo with `strict`)."""
    ok = (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(value)
    )
    if ok and lo is not None:
        ok = value > lo if strict else value >= lo
    if not ok:
        bound = "" if lo is None else f" {'>' if strict else '>='} {lo}"
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    return float(value)


def check_bool(name: str, value: Any) -> bool:
    """`value` as a bool; ValueError unless it is a Python or numpy bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """`value` as a str; ValueError unless it is one of the strings `choices`."""
    if not (isinstance(value, str) and value in choices):
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return str(value)


def check_space(space: Any, kind: type[SpaceT], key: str | None = None) -> SpaceT:
    """`space` (with `key`: the entry `key` of the Dict `space`) as a `kind` space
    (gymnasium's `spaces.Box`, `spaces.Dict`...); ValueError unless it is one."""
    from gymnasium import spaces  # here: gymnasium loads with the first env, not the rules

    part = space
    if key is not None:
        part = space.spaces.get(key) if isinstance(space, spaces.Dict) else None
    if not isinstance(part, kind):
        where = "the space" if key is None else f"observation {key!r}"
        raise ValueError(f"{where} must be a {kind.__name__} space, got {part!r}")
    return part


def discrete_size(space: Any) -> int:
    """`n`, the number of actions, of the Discrete `space`; ValueError for any other."""
    from gymnasium import spaces

    return int(check_space(space, spaces.Discrete).n)


def output_file(path: str | Path | None, overwrite: bool = False) -> None:
    """Check an output file before the work starts (None: no file): its folder must exist
    (a command creates no folder unasked), it must not be a folder, and a file already
    there is replaced only with `overwrite` (the command's --overwrite). ValueError with
    one line otherwise."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name")
    _check_folder_of(path)
    if path.exists() and not overwrite:
        raise ValueError(f"{path} exists; pass --overwrite to replace it, or give another name")


def output_folder(path: str | Path | None, option: str) -> None:
    """Check the output folder of `option` (--out DIR, --records DIR) before the work
    starts (None: no folder): the command creates it (only it: its parent must exist);
    a file of that name is refused. ValueError with one line otherwise."""
    if path is None:
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path} is a file; {option} names a folder")
    _check_folder_of(path)


def _check_folder_of(path: Path) -> None:
    """ValueError unless the folder `path` goes in exists."""
    folder = path.parent
    if not folder.is_dir():
        state = "is not a folder" if folder.exists() else "does not exist"
        raise ValueError(f"{path}: {folder} {state} (create the folder first)")
