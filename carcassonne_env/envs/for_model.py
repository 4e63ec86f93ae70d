"""Build the env a trained Stable-Baselines3 model expects: its observation and action
spaces fix the window size, the seats (players or solo colours), the hand size and the
action mode, and an env at other settings fails in ``model.predict`` ("Unexpected
observation shape"). `make_env_for_model` reads them off the model::

    model = load_model("ppo_solo")       # agents.sb3_policy
    env = make_env_for_model(model)      # Solo-v0, 3 colours, 16-cell window
"""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from ..checks import check_space
from ..core.aggregates import N_AGG_FIXED
from ..core.planes import N_FIXED_PLANES
from ..encoding import ACTION_MODES, OBS_FEATURES, Encoder
from ..model_file import (
    UnsafeModelError,
    read_description,
    saved_data,
    trained_on_solo,
    trained_rules,
)
from ..rules import Rules
from ..shadowing import expected_path

# The shipped models: package data of `agents`, installed beside this package.
SHIPPED_MODELS = expected_path("agents") / "models"
# What SB3's "data" entry of a trusted file gives for its env to be built.
_SAVED_KEYS = (
    "observation_space",
    "action_space",
    "carcassonne_solo",
    "carcassonne_rules",
    "_last_obs",
)


def _model_file(model: str | Path) -> Path:
    """An existing file, else the shipped model of that name ("ppo_duel")."""
    path = Path(model)
    if path.is_file():
        return path
    shipped = SHIPPED_MODELS / (path.name if path.suffix == ".zip" else f"{path.name}.zip")
    if path.name == str(model) and shipped.is_file():
        return shipped
    names = ", ".join(sorted(p.stem for p in SHIPPED_MODELS.glob("*.zip"))) or "none"
    raise FileNotFoundError(
        f"no model file at {model} and no shipped model of that name; shipped models: {names}"
    )


def saved_policy_module(model: str | Path) -> str:
    """The module of a saved model's policy class ("training.policy" for the shipped
    models; "" if the file does not say), read without loading the model: from its
    description (`carcassonne_env.model_file`), else from SB3's data."""
    path = _model_file(model)
    try:
        name = read_description(path)["policy_class"]
        return name.rpartition(".")[0]
    except UnsafeModelError:  # no description: what SB3's data says beside the pickle
        policy = saved_data(path).get("policy_class")
        return str(policy.get("__module__", "")) if isinstance(policy, dict) else ""


def read_saved_model(model: str | Path, trust_pickle: bool = False) -> SimpleNamespace:
    """The spaces, solo flag and table recorded in a saved SB3 model (a .zip path or a shipped
    model's name), read without loading the model: no torch, no import of the policy's
    class, and nothing unpickled: they come from the file's description
    (`carcassonne_env.model_file`). A file without one raises `UnsafeModelError`
    (a ValueError), unless `trust_pickle`: then they (and the saved last observation)
    are unpickled from SB3's data, which runs any code the file holds: for files one
    trusts only."""
    path = _model_file(model)
    if not trust_pickle:
        described = read_description(path)
        found = {
            "observation_space": described["observation_space"],
            "action_space": described["action_space"],
            "carcassonne_solo": described["solo"],
            "carcassonne_rules": described.get("rules"),
        }
        return SimpleNamespace(**{k: v for k, v in found.items() if v is not None})
    import cloudpickle

    data = saved_data(path)
    found = {}
    for key in _SAVED_KEYS:
        item = data.get(key)
        if isinstance(item, dict) and ":serialized:" in item:
            item = cloudpickle.loads(base64.b64decode(item[":serialized:"]))
        if item is not None:
            found[key] = item
    return SimpleNamespace(**found)


def _load(model: Any) -> Any:
    return read_saved_model(model) if isinstance(model, (str, Path)) else model


def model_env_options(model: Any, solo: bool | None = None) -> dict[str, Any]:
    """The env settings a model was trained at, read off its spaces.

    Args:
        model: a loaded SB3 model (or policy) trained on ``Carcassonne/Solo-v0``,
            ``Carcassonne/VsBots-v0`` or `SoloVectorEnv`, or the path of its .zip.
        solo: whether it plays the solo variant. Default: decided by the spaces (2, 5 or
            6 seats are players), else by the solo flag a slim export keeps or the model's
            saved last observation; 3 or 4 seats with neither raise ValueError asking
            for it.

    Returns:
        ``{"colours", "board_size", "action_mode"}`` for a solo model (the keywords of
        `SoloEnv`), ``{"players", "hand_size", "board_size", "action_mode"}`` otherwise
        (keywords of `VsBotsEnv` and of the PettingZoo env), with the other options of
        the table the model file records (`trained_rules`: expansions, small_city...;
        `table_options`). A file that does not record its table is read off its spaces:
        rule options that do not change them (small_city, farm scoring, followers)
        cannot be, so pass them to the env as the model was trained. A model trained on
        the aggregate observation also gets ``"obs_features": "aggregate"``, one trained
        on the candidate-move observation ``"candidate_moves": K``.
    """
    rules, enc = _table_encoder(_load(model), solo)
    options = {"board_size": enc.board_size, "action_mode": enc.action_mode}
    if enc.obs_features != "standard":
        options["obs_features"] = enc.obs_features
    if enc.candidate_moves:
        options["candidate_moves"] = enc.candidate_moves
    if rules.variant == "solo":
        return {"colours": rules.solo_colours, **options}
    table = {"players": rules.players, "hand_size": rules.hand_size, **table_options(rules)}
    return {**table, **options}


def model_encoder(model: Any, solo: bool | None = None) -> Encoder:
    """The `Encoder` of the observations a model was trained on (its `feature_names` and
    `candidate_names` name what each input of its network is). Same arguments and errors
    as `model_env_options`."""
    return _table_encoder(_load(model), solo)[1]


def _table_encoder(model: Any, solo: bool | None) -> tuple[Rules, Encoder]:
    """The rules and encoder of the env whose spaces are `model`'s (`model_env_options`)."""
    obs_space = getattr(model, "observation_space", None)
    act_space = getattr(model, "action_space", None)
    if not (
        isinstance(obs_space, spaces.Dict)
        and {"board", "features"} <= set(obs_space.spaces)
        and isinstance(act_space, spaces.Discrete)
    ):
        raise ValueError(
            "model must be an SB3 model or policy trained on this package's "
            "Gymnasium envs (Dict(board, features) observations, Discrete "
            f"actions), got observation space {obs_space} and action space "
            f"{act_space}"
        )
    board_shape = check_space(obs_space, spaces.Box, "board").shape
    n_features = check_space(obs_space, spaces.Box, "features").shape[0]
    n_actions = int(act_space.n)
    seats = board_shape[2] - N_FIXED_PLANES
    K, n_columns = candidate_shape(obs_space)
    recorded = trained_rules(model)
    candidates = []
    for features in OBS_FEATURES:
        # seats read off the planes as if standard; aggregate planes add 5 + seats more
        n_seats = seats if features == "standard" else (seats - N_AGG_FIXED) // 2
        if solo is None and n_seats in (3, 4) and recorded is None:
            solo = trained_on_solo(model)
        for rules in [recorded] if recorded is not None else _rules_with(n_seats, solo):
            for mode in ("turn",) if K else ACTION_MODES:  # candidates are whole turns
                enc = Encoder(
                    rules,
                    max(board_shape[0] // 3, 3),
                    mode,
                    obs_features=features,
                    candidate_moves=K,
                )
                if (enc.board_shape, enc.n_features, enc.n_actions) == (
                    board_shape,
                    n_features,
                    n_actions,
                ) and (not K or enc.n_candidate_columns == n_columns):
                    candidates.append((rules, enc))
    if not candidates:
        what = f", {K} candidate moves of {n_columns} columns" if K else ""
        raise ValueError(
            f"no env of this package gives board planes {board_shape}, "
            f"{n_features} features{what} and {n_actions} actions (solo={solo})"
        )
    if len({rules.variant for rules, _ in candidates}) > 1:
        seats = candidates[0][0].seats
        raise ValueError(
            f"the model's spaces fit both the solo variant with {seats} colours "
            f"and {seats} players: pass solo=True or solo=False"
        )
    return candidates[0]


def table_options(rules: Rules) -> dict[str, Any]:
    """The rule options of a multi-player table beyond its players and hand size: those
    that differ from the defaults (the expansions, the farm and city options...), as the
    envs' keywords take them."""
    default = Rules(players=rules.players, hand_size=rules.hand_size).to_dict()
    return {
        key: tuple(value) if isinstance(value, list) else value
        for key, value in rules.to_dict().items()
        if default.get(key) != value
    }


def candidate_shape(space: Any) -> tuple[int, int]:
    """(K, columns) of the candidate-move observation in a model's observation space
    (`Encoder(candidate_moves=K)`), (0, 0) without one."""
    if not hasattr(space, "spaces") or "candidates" not in space.spaces:
        return 0, 0
    K, n_columns = space["candidates"].shape
    return int(K), int(n_columns)


def model_rules(model: Any, solo: bool | None = None) -> Rules:
    """The rules a model was trained for: the table its file records
    (`carcassonne_env.model_file.trained_rules`), else as far as its spaces tell: the
    solo variant with its colours, or the players and hand size (other options at their
    defaults). Same arguments and errors as `model_env_options`."""
    model = _load(model)
    recorded = trained_rules(model)
    if recorded is not None:
        return recorded
    options = model_env_options(model, solo)
    if "colours" in options:
        return Rules(variant="solo", solo_colours=options["colours"])
    return Rules(players=options["players"], hand_size=options["hand_size"])


def _rules_with(seats: int, solo: bool | None) -> list[Rules]:
    """Every rule set (as far as the spaces go) with `seats` scoring seats."""
    out = []
    if solo is not False and seats in (3, 4):
        out.append(Rules(variant="solo", solo_colours=seats))
    if solo is not True and 2 <= seats <= 6:
        out += [Rules(players=seats, hand_size=h) for h in (1, 3)]
    return out


def make_env_for_model(model: Any, *, solo: bool | None = None, **env_kwargs: Any) -> gym.Env:
    """``gymnasium.make`` of the env the model was trained for: ``Carcassonne/Solo-v0``
    for a solo model, else ``Carcassonne/VsBots-v0`` (opponents: `env_kwargs`
    ``opponents``, default greedy bots), at the settings of `model_env_options`.

    Args:
        model: a loaded SB3 model (or policy), the path of its .zip or a shipped model's
            name ("ppo_duel"; a file is read without loading the model, `read_saved_model`).
        solo: see `model_env_options`.
        env_kwargs: further keywords of the env (opponents, seat, reward, render_mode,
            rule options...); the settings read off the model may not be overridden.

    A model trained with the heuristic's move prior (`carcassonne_env.bots.move_prior`)
    gets its env wrapped in `MovePriorObservation`. The standard loop then runs as is::

        from sb3_contrib.common.maskable.utils import get_action_masks
        obs, info = env.reset(seed=0)
        while True:
            action, _ = model.predict(obs, action_masks=get_action_masks(env),
                                      deterministic=True)
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
    """
    model = _load(model)
    options = model_env_options(model, solo)
    clash = sorted(k for k in env_kwargs if k in options and env_kwargs[k] != options[k])
    if clash:
        raise ValueError(
            f"the model fixes {', '.join(f'{k}={options[k]!r}' for k in clash)}; "
            f"got {', '.join(f'{k}={env_kwargs[k]!r}' for k in clash)}"
        )
    env_id = "Carcassonne/Solo-v0" if "colours" in options else "Carcassonne/VsBots-v0"
    env = gym.make(env_id, **{**env_kwargs, **options})
    space = getattr(model, "observation_space", None)
    if isinstance(space, spaces.Dict) and "prior" in space.spaces:  # with the move prior
        from ..bots.move_prior import MovePriorObservation

        env = MovePriorObservation(env)
    return env
