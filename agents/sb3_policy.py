"""A bot that plays a trained Stable-Baselines3 policy through the environments' encoder."""

from __future__ import annotations

import re
import warnings
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from carcassonne_env import Game, Move, Rules
from carcassonne_env.bots.heuristic import HeuristicAgent
from carcassonne_env.bots.move_prior import PRIOR_KEY, game_prior
from carcassonne_env.checks import (
    check_bool,
    check_choice,
    check_optional_int,
    check_seed,
    install_hint,
)
from carcassonne_env.encoding import (
    ACTION_MODES,
    OBS_FEATURES,
    Encoder,
    WindowOverflowError,
    WindowOverflowWarning,
)
from carcassonne_env.envs.for_model import candidate_shape, saved_policy_module
from carcassonne_env.model_file import (
    FRESH_KEYS,
    check_rebuilt,
    read_description,
    saved_data,
    trained_rules,
)
from carcassonne_env.shadowing import SIBLINGS, check_package

if TYPE_CHECKING:
    from stable_baselines3.common.base_class import BaseAlgorithm

# Trained models shipped inside the package (package data); `sb3:model=NAME` finds them.
MODELS_DIR = Path(__file__).resolve().parent / "models"

_LOADED: dict[tuple[Path, float, bool], Any] = {}


def shipped_models() -> list[str]:
    """Names of the trained models shipped with the package (e.g. ``"ppo_duel"``)."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.zip"))


def model_path(model: str | Path) -> Path:
    """The file of `model`: an existing path, else the shipped model of that name
    (``"ppo_duel"`` or ``"ppo_duel.zip"``). Raises FileNotFoundError naming the shipped
    models if it is neither."""
    path = Path(model)
    if path.is_file():
        return path
    if path.name == str(model):  # a bare name, no folder: look among the shipped models
        shipped = MODELS_DIR / (path.name if path.suffix == ".zip" else f"{path.name}.zip")
        if shipped.is_file():
            return shipped
    raise FileNotFoundError(
        f"no model file at {model} and no shipped model of that name; "
        f"shipped models: {', '.join(shipped_models()) or 'none'}"
    )


def load_model(model: str | Path, cached: bool = True, trust_pickle: bool = False) -> Any:
    """Load a saved MaskablePPO (sb3-contrib) or PPO model: a path to its .zip file or a
    shipped model's name (`shipped_models()`), e.g. ``load_model("ppo_duel")``, without
    unpickling anything (`open_model`). Loaded models are kept (per file and
    modification time; `cached=False` loads a private copy): benchmarks build a fresh
    bot for every game, and the models are only read (so without the rollout buffer SB3
    builds for training: to train a model, load it with `open_model(path, env=...)`).
    Raises FileNotFoundError for an unknown name or path, ValueError for a file that is
    not a saved model, `UnsafeModelError` (a ValueError) for one that only unpickling
    would load (`trust_pickle=True` loads it so, running any code it holds: for files
    one trusts only)."""
    path = model_path(model)
    key = (path.resolve(), path.stat().st_mtime, trust_pickle)
    if cached and key in _LOADED:
        return _LOADED[key]
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a saved model (not a zip file)")
    package = saved_policy_module(path).split(".")[0]
    if package in SIBLINGS:  # the policy class (training.policy): not someone else's
        check_package(package)
    # SB3 builds the training rollout buffer on load (its masks alone: steps x envs x
    # ~10^4 actions as float32, about 0.5 GB a shipped model); playing never reads it.
    loaded = open_model(path, trust_pickle, rollout_buffer_class=_NoRolloutBuffer)
    if cached:
        _LOADED[key] = loaded
    return loaded


def open_model(
    path: str | Path,
    trust_pickle: bool = False,
    algorithm: type[BaseAlgorithm] | None = None,
    **kwargs: Any,
) -> Any:
    """The MaskablePPO or PPO model saved at `path`, on the CPU, built by SB3's `load`
    of `algorithm` (a subclass of the file's algorithm, e.g. a trainer's
    `training.learner.ThreadedMaskablePPO`; default: the file's)
    (`kwargs`: its keywords, e.g. ``env``) from the file's weights (read by torch
    without pickle) and its description (`carcassonne_env.model_file`): SB3 unpickles
    nothing. The policy and rollout-buffer classes come only from `ALLOWED_CLASSES`.
    ValueError for a file that is not a saved model, `UnsafeModelError` for one without
    a description or with pickled data it does not replace, unless `trust_pickle`
    (then SB3 unpickles the file: for files one trusts only)."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3 import PPO
    except ImportError as err:  # pragma: no cover - the train extra is missing
        raise ImportError(f"playing a trained policy needs: {install_hint('train')}") from err
    _check_sb3()
    if trust_pickle:
        model, buffer = (
            _sb3_load(path, [algorithm] if algorithm else [MaskablePPO, PPO], **kwargs),
            None,
        )
    else:
        data = saved_data(path)
        described = read_description(path)
        check_rebuilt(path, data)
        objects = _rebuilt_objects(described)
        algorithms: dict[str, type[BaseAlgorithm]] = {"MaskablePPO": MaskablePPO, "PPO": PPO}
        saved_as = algorithms[described["algorithm"]]
        if algorithm is not None and not issubclass(algorithm, saved_as):
            raise ValueError(
                f"{path} holds a {saved_as.__name__} model, not one {algorithm.__name__} loads"
            )
        model = _sb3_load(path, [algorithm or saved_as], custom_objects=objects, **kwargs)
        buffer = objects["rollout_buffer_class"]
        if described["solo"] is not None:  # (an older file told it by its last observation)
            model.carcassonne_solo = described["solo"]
        model.carcassonne_rules = described.get("rules")  # the table (None: not recorded)
    if model.rollout_buffer_class is _NoRolloutBuffer:  # left out to play: saved as it was
        model.rollout_buffer_class = buffer
    return model


def _sb3_load(path: str | Path, algorithms: list[type[BaseAlgorithm]], **kwargs: Any) -> Any:
    """SB3's `load` of the first of `algorithms` that loads the file; ValueError saying
    what the file is not (not which SB3 internal failed) if none does."""
    import pickle

    first = None
    for algorithm in algorithms:
        try:
            return algorithm.load(path, device="cpu", **kwargs)
        except pickle.UnpicklingError as err:  # torch's weights_only refused an entry
            named = re.search(r"Unsupported global: GLOBAL (\S+)", str(err))
            raise ValueError(
                f"{path}: its weights (.pth) hold more than tensors, which would "
                "run code stored in the file; torch refused them"
                f"{f' (they name {named.group(1)})' if named else ''}"
            ) from None
        except Exception as err:  # a PPO model, or a corrupt or foreign zip
            first = first or err
    message = " ".join(str(first).split())
    raise ValueError(
        f"{path} is not a saved Stable-Baselines3 model: {type(first).__name__}: {message}"
    ) from first


# The modules whose classes a model file may name (`open_model`), with the base class
# each must extend.
ALLOWED_CLASSES = {
    "policy_class": (
        (
            "training.policy",
            "sb3_contrib.common.maskable.policies",
            "stable_baselines3.common.policies",
        ),
        "BasePolicy",
    ),
    "rollout_buffer_class": (
        (
            "training.buffers",
            "sb3_contrib.common.maskable.buffers",
            "stable_baselines3.common.buffers",
        ),
        "BaseBuffer",
    ),
}


def allowed_class(kind: str, name: str) -> type:
    """The class "module.QualName" `name` for `kind` ("policy_class" or
    "rollout_buffer_class"), imported only from `ALLOWED_CLASSES`' modules and only if
    it extends their base class; ValueError otherwise."""
    import importlib

    from stable_baselines3.common.buffers import BaseBuffer
    from stable_baselines3.common.policies import BasePolicy

    modules, base = ALLOWED_CLASSES[kind]
    module, _, qualname = name.rpartition(".")
    found = (
        getattr(importlib.import_module(module), qualname, None)
        if module in modules and qualname.isidentifier()
        else None
    )
    if not (
        isinstance(found, type)
        and issubclass(found, {"BasePolicy": BasePolicy, "BaseBuffer": BaseBuffer}[base])
    ):
        raise ValueError(
            f"{kind} {name!r} is not one a model file may name (a {base} of {', '.join(modules)})"
        )
    return found


def _rebuilt_objects(described: dict[str, Any]) -> dict[str, Any]:
    """SB3's `custom_objects` for a model with description `described`: every object SB3
    would unpickle, from the description, and the training state fresh."""
    from stable_baselines3.common.utils import FloatSchedule

    buffer = described["rollout_buffer_class"]
    return {
        "policy_class": allowed_class("policy_class", described["policy_class"]),
        "rollout_buffer_class": buffer and allowed_class("rollout_buffer_class", buffer),
        "observation_space": described["observation_space"],
        "action_space": described["action_space"],
        "learning_rate": described["learning_rate"],
        "lr_schedule": FloatSchedule(described["learning_rate"]),
        "clip_range": described["clip_range"],
        "clip_range_vf": described["clip_range_vf"],
        "carcassonne_solo": described["solo"],
        **dict.fromkeys(FRESH_KEYS),
    }


# The first stable-baselines3 whose loader reads the weights with torch's weights_only
# (2.3.2 to 2.7.1 unpickled them).
SAFE_SB3 = (2, 8)


def _check_sb3() -> None:
    """ImportError unless the installed stable-baselines3 reads weights safely."""
    import stable_baselines3

    found = tuple(int(part) for part in stable_baselines3.__version__.split(".")[:2])
    if found < SAFE_SB3:
        raise ImportError(
            f"stable-baselines3 {stable_baselines3.__version__} unpickles model "
            f"weights; loading models needs >= {'.'.join(map(str, SAFE_SB3))}: "
            f"{install_hint('train')}"
        )


class _NoRolloutBuffer:
    """What a model `load_model` loaded has in place of its rollout buffer: training it
    (`learn`) says how to load it for that instead of failing on a missing array."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # (SB3 builds it with the buffer's arguments)

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(
            "this model was loaded to play (agents.sb3_policy.load_model "
            "leaves out its rollout buffer): to train it, load it with "
            "agents.sb3_policy.open_model(path, env=...)"
        )


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run the block with `n` torch threads (None: as torch is set), restored after. One
    move's forward pass is too small to share: with more threads they mostly wait on
    each other, most of all on a busy machine."""
    import torch

    before = torch.get_num_threads()
    if n is None or n == before:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def observer_of(game: Game) -> int:
    """The seat whose view a model observes in `game` (not over): the seat to move, or
    0 in solo (one player for every colour). ValueError for a game over."""
    if game.rules.variant == "solo":
        return 0
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: no seat is to move")
    return seat


def _other_table(table: Rules, rules: Rules) -> str:
    """Why a model trained at `table` does not play a game at `rules`: the options that
    differ, both values."""
    mine, theirs = vars(table), vars(rules)
    diffs = "; ".join(
        f"{k}={v!r} (model) vs {theirs[k]!r} (this game)" for k, v in mine.items() if v != theirs[k]
    )
    return f"the model was trained at another table: {diffs}"


def _space_options(rules: Rules) -> dict[str, Any]:
    """The rule options that shape the observation and action spaces."""
    solo = rules.variant == "solo"
    return {
        "variant": rules.variant,
        "players": rules.players,
        "solo_colours": rules.solo_colours if solo else None,
        "hand_size": rules.hand_size,
    }


class SB3Agent:
    """Plays a policy trained on this package's environments (Solo-v0, VsBots-v0 or the
    PettingZoo env with a matching encoder): it encodes the game as the env does for
    the seat to move and takes the policy's action among the legal ones. Observation
    options (aggregate planes, candidate moves) are read off the model's spaces. A model
    that records the table it was trained at (`table`; `carcassonne_env.model_file`)
    plays only there: a game at other rules is refused (ValueError naming the options
    that differ); one that does not is played wherever its spaces fit.

    Args:
        model: a loaded SB3 model (MaskablePPO or any model with `policy`), an SB3
            policy itself (e.g. a snapshot during self-play training), a path to a
            saved .zip or a shipped model's name (`shipped_models()`: "ppo_duel",
            "ppo_solo").
        seed: unused by deterministic play; seeds sampling when `deterministic=False`.
        board_size: the encoder's window; default (and the only value accepted): the
            one read off the model's observation space.
        action_mode: "turn" or "two_step", as the model was trained; default: read off
            the size of its action space.
        deterministic: play the most likely legal action (default) or sample one.
        torch_threads: torch threads for each forward pass (set for the pass, then
            restored); default 1, the fastest for one position at a time; None leaves
            torch's setting alone.
    """

    name = "sb3"

    def __init__(
        self,
        model: Any,
        seed: int | None = None,
        board_size: int | None = None,
        action_mode: str | None = None,
        deterministic: bool = True,
        torch_threads: int | None = 1,
    ) -> None:
        self.model = load_model(model) if isinstance(model, (str, Path)) else model
        self.policy = getattr(self.model, "policy", self.model)
        space = getattr(self.model, "observation_space", None)
        if (
            space is None
            or not hasattr(space, "__getitem__")
            or not hasattr(self.model, "action_space")
        ):
            raise ValueError(
                "model must be a path to a saved model, an SB3 model or policy, "
                f"got {type(model).__name__}"
            )
        model_size = int(space["board"].shape[0]) // 3
        if check_optional_int("board_size", board_size, 3) not in (None, model_size):
            raise ValueError(
                f"board_size: the model was trained on a {model_size}-cell "
                f"window, got board_size={board_size}"
            )
        if action_mode is not None:
            check_choice("action_mode", action_mode, ACTION_MODES)
        self.board_size = model_size
        self.action_mode = action_mode
        self.deterministic = check_bool("deterministic", deterministic)
        self.torch_threads = check_optional_int("torch_threads", torch_threads, 1, 1024)
        self._rng = np.random.default_rng(check_seed("seed", seed))
        self._encoders: dict = {}
        self._heuristic = HeuristicAgent()  # evaluates the moves for a move-prior model
        self.fallbacks = 0
        # the rules the model was trained at (None: not recorded, e.g. a policy snapshot)
        self.table = trained_rules(self.model)

    def encoder_for(self, game: Game) -> Encoder:
        """The encoder that lays out `game` as the model's observation (its window, action
        mode and features; made once per rule set)."""
        key = (game.rules, game.tileset)
        if key not in self._encoders:
            if self.table is not None and game.rules != self.table:
                raise ValueError(_other_table(self.table, game.rules))
            n_actions = int(self.model.action_space.n)
            board_shape = self.model.observation_space["board"].shape
            n_features = self.model.observation_space["features"].shape[0]
            K, n_columns = candidate_shape(self.model.observation_space)
            modes = (self.action_mode,) if self.action_mode else ACTION_MODES
            fits = [
                enc
                for mode in modes
                if not K or mode == "turn"  # candidates: whole turns
                for features in OBS_FEATURES
                for enc in [
                    Encoder(
                        game.rules,
                        self.board_size,
                        mode,
                        tileset=game.tileset,
                        obs_features=features,
                        candidate_moves=K,
                    )
                ]
                if (enc.n_actions, enc.board_shape, enc.n_features)
                == (n_actions, board_shape, n_features)
                and (not K or enc.n_candidate_columns == n_columns)
            ]
            if not fits:
                raise ValueError(self._mismatch(game))
            enc = fits[0]
            # The model learned with this window: a legal move outside it is masked out
            # as in training, no news to warn about (no move inside: `act` falls back).
            enc.overflow_warned = True
            self._encoders[key] = enc
        return self._encoders[key]

    def _mismatch(self, game: Game) -> str:
        """Which setting keeps the model from playing `game`, with both values."""
        from carcassonne_env.envs.for_model import model_env_options, model_rules

        n_actions = int(self.model.action_space.n)
        trained = []  # the rule sets the model's spaces fit (two where solo is ambiguous)
        for solo in (None, True, False):
            try:
                trained.append(model_rules(self.model, solo))
            except ValueError:  # no fit, or both solo and players fit: try each in turn
                continue
            if solo is None:
                break
        if not trained:
            space = self.model.observation_space
            return (
                f"the model's spaces (board {tuple(space['board'].shape)}, "
                f"{space['features'].shape[0]} features, {n_actions} actions) fit no "
                f"rule set of this package; this game: {game.rules}"
            )
        ours = _space_options(game.rules)
        diffs = [
            {k: v for k, v in _space_options(rules).items() if v != ours[k]} for rules in trained
        ]
        if not all(diffs):  # the rules fit: the action mode does not
            sizes = {
                m: Encoder(game.rules, self.board_size, m, tileset=game.tileset).n_actions
                for m in ACTION_MODES
            }
            fits = [m for m, n in sizes.items() if n == n_actions]
            if self.action_mode and fits:
                return (
                    f"action mode differs: the model was trained with {fits[0]!r} "
                    f"({n_actions} actions), the bot was given {self.action_mode!r} "
                    f"({sizes[self.action_mode]} actions)"
                )
            return f"the model has {n_actions} actions, this game's action modes give {sizes}"
        space = self.model.observation_space
        enc = Encoder(
            game.rules,
            self.board_size,
            tileset=game.tileset,
            obs_features=model_env_options(self.model, trained[0].variant == "solo").get(
                "obs_features", "standard"
            ),
        )
        planes = (
            f"{space['board'].shape[2]} board planes and {space['features'].shape[0]} "
            f"features (model) vs {enc.board_shape[2]} and {enc.n_features}"
        )
        if len(diffs) == 1:
            return (
                "rules differ: "
                + "; ".join(
                    f"{k}={v!r} (model) vs {ours[k]!r} (this game)" for k, v in diffs[0].items()
                )
                + f": {planes}"
            )
        theirs = " or ".join(", ".join(f"{k}={v!r}" for k, v in d.items()) for d in diffs)
        mine = ", ".join(f"{k}={ours[k]!r}" for k in dict.fromkeys(k for d in diffs for k in d))
        return (
            f"rules differ: {theirs} (model: its spaces fit both) vs {mine} (this game): {planes}"
        )

    def legal_logits(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        """The policy's logits for observation `obs` (float64, one per action), -inf
        where `mask` is 0."""
        import torch

        policy = self.policy
        tensors, _ = policy.obs_to_tensor({k: obs[k] for k in self.model.observation_space.spaces})
        with torch.no_grad(), torch_threads(self.torch_threads):
            dist = policy.get_distribution(tensors)
            logits = dist.distribution.logits[0].cpu().numpy().astype(np.float64)
        logits[mask == 0] = -np.inf
        return logits

    def _pick(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        """The policy's action restricted to `mask`: masked logits, argmax or a sample."""
        logits = self.legal_logits(obs, mask)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self._rng.choice(len(p), p=p / p.sum()))

    def act(self, game: Game) -> Move:
        """The policy's move; a uniformly random legal move (counted in `fallbacks`, one
        warning) if the board has outgrown the model's window so far that no legal move
        is visible in it."""
        enc = self.encoder_for(game)
        try:
            obs = self.observe(game)
        except WindowOverflowError as err:
            self.fallbacks += 1
            if self.fallbacks == 1:
                warnings.warn(
                    f"{err}: playing a random legal move instead (counted in SB3Agent.fallbacks)",
                    WindowOverflowWarning,
                    stacklevel=2,
                )
            moves = game.legal_moves()
            return moves[int(self._rng.integers(len(moves)))]
        action = self._pick(obs, obs["action_mask"])
        if enc.action_mode == "turn":
            return enc.action_to_move(game, action)
        pending = enc.placement(game, action)
        obs = enc.encode(game, observer_of(game), pending=pending)
        return enc.action_to_move(game, self._pick(obs, obs["action_mask"]), pending)

    def observe(self, game: Game) -> dict[str, np.ndarray]:
        """The model's observation of `game` for the seat to move, with its action mask
        (and the heuristic's move prior if the model takes it); raises
        WindowOverflowError when no legal move fits the model's window."""
        enc = self.encoder_for(game)
        obs = enc.encode(game, observer_of(game))
        if PRIOR_KEY in self.model.observation_space.spaces:  # the model takes the prior
            obs[PRIOR_KEY] = game_prior(game, enc, self._heuristic)
        return obs
