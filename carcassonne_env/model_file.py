"""A saved model's description as plain JSON, so that loading it unpickles nothing.

Stable-Baselines3 saves a model as a zip: its weights (".pth" entries, which torch reads
without running code: ``weights_only``) and a "data" entry, JSON whose objects (the
spaces, the policy class, the schedules, the last training observations) are pickled
inside it. Unpickling runs whatever code the file names, so this package never unpickles
a model file it did not write itself with ``--trust-pickle``. Beside SB3's entries every
model it saves carries `MODEL_ENTRY` (``carcassonne.json``), those objects as data:

- ``algorithm``: "MaskablePPO" or "PPO";
- ``policy_class``, ``rollout_buffer_class``: "module.QualName" (loaded only from an
  allowlist of this package's and SB3's classes: `agents.sb3_policy`);
- ``observation_space``, ``action_space``: gymnasium Box / Discrete / Dict spaces
  (`encode_space`);
- ``solo``: whether the model plays the solo variant (None: not known);
- ``rules``: the table the model was trained at (`Rules.to_dict`; None or absent: not
  recorded, as in older files): the ``sb3`` bot plays it there and refuses another;
- ``learning_rate``, ``clip_range``, ``clip_range_vf``: the constants of the schedules.

The loader gives SB3 these for every pickled key of "data" and a fresh (None) value for
the training state (`FRESH_KEYS`); a file with a pickled key it cannot rebuild, or with
no description, is refused (`UnsafeModelError`). This module imports no torch (but
to write a slim model: `slim_model_file`).
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from .atomic import atomic_path
from .rules import Rules

__all__ = [
    "FRESH_KEYS",
    "MODEL_ENTRY",
    "REBUILT_KEYS",
    "TRAINING_STATE",
    "UnsafeModelError",
    "check_rebuilt",
    "decode_space",
    "describe_model",
    "encode_space",
    "read_description",
    "rewrite_zip",
    "mark_rules",
    "mark_solo",
    "save_model",
    "saved_data",
    "serialized_keys",
    "slim_model_file",
    "is_slim",
    "trained_on_solo",
    "trained_rules",
]

MODEL_ENTRY = "carcassonne.json"
FORMAT = 1
ALGORITHMS = ("MaskablePPO", "PPO")
# SB3's "data" keys the description gives (to the loader, as SB3's `custom_objects`)
REBUILT_KEYS = (
    "policy_class",
    "rollout_buffer_class",
    "observation_space",
    "action_space",
    "learning_rate",
    "lr_schedule",
    "clip_range",
    "clip_range_vf",
    "carcassonne_solo",
)
# ... and those that start fresh (None): the training state and a saved env
FRESH_KEYS = (
    "_last_obs",
    "_last_original_obs",
    "_last_episode_starts",
    "ep_info_buffer",
    "ep_success_buffer",
    "env",
)
# Saved attributes that only a running training needs: a slim model (`save_model`'s
# `slim`, `slim_model_file`, `carcassonne train export`) leaves them out.
TRAINING_STATE = (
    "_last_obs",
    "_last_original_obs",
    "_last_episode_starts",
    "ep_info_buffer",
    "ep_success_buffer",
    "tensorboard_log",
    "rollout_buffer_class",
    "rollout_buffer_kwargs",
)
# SB3's entries of the model's data and of its optimizer's state.
DATA_ENTRY, OPTIMIZER_ENTRY = "data", "policy.optimizer.pth"
# What SB3's data of every saved model gives.
_SB3_KEYS = ("policy_class", "observation_space", "action_space")
# The dtypes a Box of these envs (or of SB3's examples) has.
_DTYPES = (
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
)
_TRUST_HINT = (
    "if you trust the file, convert it once: carcassonne train export {path} -o "
    "SAFE.zip --trust-pickle"
)


class UnsafeModelError(ValueError):
    """A model file that only unpickling would load: no description, or pickled data the
    description does not replace. The message names the safe way to convert it."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(
            f"{path}: {why}; loading it would run code stored in the file "
            f"(pickle): {_TRUST_HINT.format(path=path)}"
        )


# ---------------------------------------------------------------------- spaces
def encode_space(space: spaces.Space) -> dict[str, Any]:
    """`space` (gymnasium Box, Discrete or Dict of them) as JSON data; `decode_space`
    gives it back equal, bounds and dtypes exactly."""
    if isinstance(space, spaces.Dict):
        return {
            "type": "Dict",
            "spaces": [[key, encode_space(sub)] for key, sub in space.spaces.items()],
        }
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": space.dtype.name,
            "low": _encode_bounds(space.low),
            "high": _encode_bounds(space.high),
        }
    raise ValueError(f"a model's spaces are Box, Discrete or Dict; got {type(space).__name__}")


def decode_space(data: Any) -> spaces.Space:
    """The space `encode_space` wrote; ValueError for anything else."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "Dict" and isinstance(data.get("spaces"), list):
        pairs = [(key, decode_space(sub)) for key, sub in map(_pair, data["spaces"])]
        if len({key for key, _ in pairs}) != len(pairs):
            raise ValueError("a Dict space names a key twice")
        return spaces.Dict(pairs)  # (a list of pairs keeps the saved order)
    if kind == "Discrete":
        return spaces.Discrete(
            _integer(data.get("n"), "n", 1), start=_integer(data.get("start", 0), "start")
        )
    if kind == "Box":
        shape = data.get("shape")
        if not isinstance(shape, list) or not shape:
            raise ValueError("a Box space needs its shape")
        shape = tuple(_integer(n, "shape", 1) for n in shape)
        dtype = data.get("dtype")
        if dtype not in _DTYPES:
            raise ValueError(
                f"a Box space's dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}"
            )
        low, high = (
            _decode_bounds(data.get(end), shape, np.dtype(dtype)) for end in ("low", "high")
        )
        return spaces.Box(low=low, high=high, shape=shape, dtype=np.dtype(dtype))
    raise ValueError(f"not a space this package saves: {str(data)[:80]}")


def _encode_bounds(bounds: np.ndarray) -> Any:
    """A Box's bounds compactly: one number if all are equal, {"last_axis": [...]} if they
    vary along the last axis only (the board planes), else {"values": [...]} (flat)."""
    first = bounds.reshape(-1)[:1]
    if (bounds == first).all():
        return _number(first[0])
    rows = bounds.reshape(-1, bounds.shape[-1])
    if (rows == rows[0]).all():
        return {"last_axis": [_number(v) for v in rows[0]]}
    return {"values": [_number(v) for v in bounds.reshape(-1)]}


def _decode_bounds(data: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if (
        isinstance(data, dict)
        and isinstance(data.get("last_axis"), list)
        and len(data["last_axis"]) == shape[-1]
    ):
        row = np.array([_value(v) for v in data["last_axis"]], dtype)
        return np.broadcast_to(row, shape).copy()
    if (
        isinstance(data, dict)
        and isinstance(data.get("values"), list)
        and len(data["values"]) == math.prod(shape)
    ):
        return np.array([_value(v) for v in data["values"]], dtype).reshape(shape)
    if isinstance(data, (int, float, str)) and not isinstance(data, bool):
        return np.full(shape, _value(data), dtype)
    raise ValueError(f"a Box space's bounds do not fit its shape {shape}")


def _number(value: Any) -> int | float | str:
    """A bound as JSON: an int, a float, or "inf" / "-inf" / "nan" (not JSON numbers)."""
    if isinstance(value, (np.integer, np.bool_)):
        return int(value)
    value = float(value)
    return value if math.isfinite(value) else str(value)


def _value(data: Any) -> float | int:
    if isinstance(data, str) and data in ("inf", "-inf", "nan"):
        return float(data)
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return data
    raise ValueError(f"a Box space's bound must be a number, got {data!r}")


def _integer(value: Any, name: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        raise ValueError(
            f"a space's {name} must be an integer"
            f"{'' if low is None else f' >= {low}'}, got {value!r}"
        )
    return value


def _pair(item: Any) -> tuple[str, Any]:
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
        raise ValueError("a Dict space lists [key, space] pairs")
    return item[0], item[1]


# ---------------------------------------------------------------------- descriptions
def describe_model(model: Any) -> dict[str, Any]:
    """The description (`MODEL_ENTRY`) of a loaded SB3 MaskablePPO or PPO `model`;
    ValueError for a model it cannot describe (another algorithm, a schedule that is not
    constant)."""
    # a subclass (training.learner's) saves as the SB3 algorithm it extends
    algorithm = next(
        (c.__name__ for c in type(model).__mro__ if c.__name__ in ALGORITHMS), type(model).__name__
    )
    if algorithm not in ALGORITHMS:
        raise ValueError(
            f"only {' and '.join(ALGORITHMS)} models are saved with a description, got {algorithm}"
        )
    buffer = getattr(model, "rollout_buffer_class", None)
    vf = getattr(model, "clip_range_vf", None)
    table = trained_rules(model)
    return {
        "format": FORMAT,
        "algorithm": algorithm,
        "policy_class": _class_name(model.policy_class),
        "rollout_buffer_class": None if buffer is None else _class_name(buffer),
        "observation_space": encode_space(model.observation_space),
        "action_space": encode_space(model.action_space),
        "solo": trained_on_solo(model),
        "rules": None if table is None else table.to_dict(),
        "learning_rate": _constant(model.learning_rate, "learning_rate"),
        "clip_range": _constant(model.clip_range, "clip_range"),
        "clip_range_vf": None if vf is None else _constant(vf, "clip_range_vf"),
    }


def mark_solo(model: Any, solo: bool | None) -> None:
    """Record on `model` whether it trains on the solo variant: SB3 saves the flag with the
    model, and `trained_on_solo` reads it back (with 3 or 4 seats the spaces alone cannot
    tell the solo variant's colours from players)."""
    model.carcassonne_solo = solo


def mark_rules(model: Any, rules: Rules) -> None:
    """Record on `model` the table it trains at, `rules` (and so whether it is the solo
    variant, `mark_solo`): SB3 saves them with the model, its description
    (`MODEL_ENTRY`) keeps them, and `trained_rules` reads them back."""
    model.carcassonne_rules = rules.to_dict()
    mark_solo(model, rules.variant == "solo")


def trained_rules(model: Any) -> Rules | None:
    """The table `model` was trained at, as `mark_rules` recorded it; None if it was not
    recorded (older files, models trained before the table was recorded)."""
    recorded = getattr(model, "carcassonne_rules", None)
    return None if recorded is None else Rules.from_dict(recorded)


def trained_on_solo(model: Any) -> bool | None:
    """Whether the model was trained on the solo variant: the `carcassonne_solo` flag the
    training scripts and slim exports write, else (older files, standard layout) whether
    its last training observation had the "solo" feature (the last entry of the feature
    vector) set; None if the file kept neither."""
    flag = getattr(model, "carcassonne_solo", None)
    if isinstance(flag, bool):
        return flag
    last = getattr(model, "_last_obs", None)
    if isinstance(last, dict) and "features" in last:
        return bool(np.asarray(last["features"])[..., -1].all())
    return None


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _constant(schedule: Any, name: str) -> float:
    """The value of a number or of a constant schedule (a function of the progress)."""
    if callable(schedule):
        value = float(schedule(1.0))
        if any(float(schedule(p)) != value for p in (0.0, 0.5)):
            raise ValueError(f"{name} is not constant: only constant schedules are saved")
        return value
    return float(schedule)


def read_description(path: str | Path) -> dict[str, Any]:
    """The checked description of the model file `path`; UnsafeModelError if it has
    none, ValueError if it is not a zip or the description is malformed."""
    try:
        with zipfile.ZipFile(path) as archive:
            if MODEL_ENTRY not in archive.namelist():
                raise UnsafeModelError(
                    path,
                    f"the model file holds no {MODEL_ENTRY} "
                    "(written by an older version or by another program)",
                )
            text = archive.read(MODEL_ENTRY)
    except (zipfile.BadZipFile, OSError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ValueError(f"{path} is not a saved model ({err})") from None
    try:
        return _checked(json.loads(text))
    except (ValueError, TypeError, KeyError) as err:
        raise ValueError(f"{path}: its {MODEL_ENTRY} is malformed: {err}") from None


def _checked(data: Any) -> dict[str, Any]:
    """`data` if it is a description of this format (the spaces decoded); else ValueError."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"expected a JSON object of format {FORMAT}")
    if data.get("algorithm") not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    for key in ("policy_class", "rollout_buffer_class"):
        if not isinstance(data.get(key), str) and not (
            key == "rollout_buffer_class" and data.get(key) is None
        ):
            raise ValueError(f"{key} must be a class name")
    if data.get("solo") not in (True, False, None):
        raise ValueError("solo must be true, false or null")
    rules = data.get("rules")
    if rules is not None:
        if not isinstance(rules, dict):
            raise ValueError("rules must be an object of rule options or null")
        Rules.from_dict(rules)  # ValueError, TypeError: not a table this package plays
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        value = data.get(key)
        if not (value is None and key == "clip_range_vf") and (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ValueError(f"{key} must be a number")
    return {
        **data,
        "observation_space": decode_space(data["observation_space"]),
        "action_space": decode_space(data["action_space"]),
    }


def saved_data(path: str | Path) -> dict[str, Any]:
    """SB3's "data" entry of the model file `path` as JSON, nothing unpickled;
    ValueError if the file is not a saved model."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, ValueError) as err:
        raise ValueError(f"{path} is not a saved Stable-Baselines3 model ({err})") from None
    missing = (
        [key for key in _SB3_KEYS if key not in data] if isinstance(data, dict) else list(_SB3_KEYS)
    )
    if missing:
        raise ValueError(
            f"{path} is not a saved Stable-Baselines3 model (its data gives no "
            f"{', '.join(missing)})"
        )
    return data


def serialized_keys(data: dict[str, Any]) -> list[str]:
    """The keys of SB3's "data" whose values are pickled (what SB3's loader would
    unpickle)."""
    return [key for key, item in data.items() if isinstance(item, dict) and ":serialized:" in item]


def check_rebuilt(path: str | Path, data: dict[str, Any]) -> None:
    """UnsafeModelError if a pickled key of `data` is neither rebuilt from the
    description nor started fresh (a pickled policy_kwargs, say)."""
    left = [key for key in serialized_keys(data) if key not in REBUILT_KEYS + FRESH_KEYS]
    if left:
        raise UnsafeModelError(
            path, f"its data holds pickled {', '.join(left)}, which {MODEL_ENTRY} does not describe"
        )


# ---------------------------------------------------------------------- writing
def save_model(
    model: Any,
    path: str | Path,
    exclude: list[str] | None = None,
    compression: int | None = None,
    slim: bool = False,
) -> Path:
    """Save the SB3 `model` to `path` with its description (`MODEL_ENTRY`), whole or not
    at all (`carcassonne_env.atomic`); `exclude`: attributes SB3 leaves out,
    `compression`: the zip compression of every entry (None: SB3's). `slim`: the model
    to play with (`slim_model_file`), not to resume training from. Returns `path`."""
    path = Path(path)
    entry = json.dumps(describe_model(model), indent=1) + "\n"
    with atomic_path(path) as tmp:
        model.save(tmp, exclude=exclude)
        _copy_zip(tmp, tmp, {MODEL_ENTRY: entry}, compression)
        if slim:
            _slim_copy(tmp, tmp)
    return path


def slim_model_file(path: str | Path) -> None:
    """Rewrite the saved model `path` whole (`carcassonne_env.atomic`) as a slim model,
    what `carcassonne train export` writes: its weights and description, without what
    only a running training needs (`TRAINING_STATE`, the optimizer's running averages:
    a training resumed from it starts them afresh), every entry deflated. A fraction of
    the size: it plays as the full model does."""
    with atomic_path(path) as tmp:
        _slim_copy(Path(path), tmp)


def is_slim(path: str | Path) -> bool:
    """Whether the saved model `path` holds none of `TRAINING_STATE`'s observations (a
    slim model, or one that never trained)."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read(DATA_ENTRY))
    return not any(key in data for key in TRAINING_STATE)


def _slim_copy(src: Path, dst: Path) -> None:
    """Write to `dst` the slim form of the saved model `src` (`slim_model_file`)."""
    import io

    import torch

    with zipfile.ZipFile(src) as archive:
        data = json.loads(archive.read(DATA_ENTRY))
        optimizer = torch.load(io.BytesIO(archive.read(OPTIMIZER_ENTRY)), weights_only=True)
    optimizer["state"] = {}  # the running averages: twice the weights, for training only
    emptied = io.BytesIO()
    torch.save(optimizer, emptied)
    data = {key: value for key, value in data.items() if key not in TRAINING_STATE}
    add: dict[str, str | bytes] = {
        DATA_ENTRY: json.dumps(data, indent=4),
        OPTIMIZER_ENTRY: emptied.getvalue(),
    }
    _copy_zip(src, dst, add, zipfile.ZIP_DEFLATED)


def rewrite_zip(
    path: str | Path, add: dict[str, str | bytes] | None = None, compression: int | None = None
) -> None:
    """Rewrite the zip at `path` whole (`carcassonne_env.atomic`): its entries but those
    `add` names, each compressed with `compression` (None: as it was stored), then
    `add`'s entries, deflated."""
    with atomic_path(path) as tmp:
        _copy_zip(path, tmp, add or {}, compression)


def _copy_zip(
    src: Path | str, dst: Path | str, add: dict[str, str | bytes], compression: int | None
) -> None:
    """Write to `dst` the entries of the zip `src` (read first: `dst` may be `src`) but
    those `add` names, then `add`'s entries."""
    with zipfile.ZipFile(src) as archive:
        entries = [
            (info, archive.read(info)) for info in archive.infolist() if info.filename not in add
        ]
    with zipfile.ZipFile(dst, "w") as archive:
        for info, data in entries:
            archive.writestr(info, data, compress_type=compression)
        for name, content in add.items():
            archive.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
