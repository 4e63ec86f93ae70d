"""A bot that plays a trained Stable-Baselines3 policy through the environments' encoder."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_env import Game, Move
from carcassonne_env.checks import check_bool, check_choice, check_optional_int, check_seed
from carcassonne_env.encoding import (
    ACTION_MODES,
    Encoder,
    WindowOverflowError,
    WindowOverflowWarning,
)

_LOADED: dict[tuple[Path, float], Any] = {}


def load_model(path: str | Path) -> Any:
    """Load a saved MaskablePPO (sb3-contrib) or PPO model from a .zip file. Loaded
    models are kept (per file and modification time): benchmarks build a fresh bot for
    every game, and the models are only read."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3 import PPO
    except ImportError as err:  # pragma: no cover - the train extra is missing
        raise ImportError('playing a trained policy needs: pip install "carcassonne-env[train]"'
                          ) from err
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no model file at {path}")
    key = (path.resolve(), path.stat().st_mtime)
    if key not in _LOADED:
        try:
            _LOADED[key] = MaskablePPO.load(path, device="cpu")
        except (ValueError, KeyError, TypeError):
            _LOADED[key] = PPO.load(path, device="cpu")
    return _LOADED[key]


class SB3Agent:
    """Plays a policy trained on this package's environments (Solo-v0, VsBots-v0 or the
    PettingZoo env with a matching encoder): it encodes the game as the env does for
    the seat to move and takes the policy's action among the legal ones.

    Args:
        model: a loaded SB3 model (MaskablePPO or any model with `policy`), an SB3
            policy itself (e.g. a snapshot during self-play training) or a path to a
            saved .zip.
        seed: unused by deterministic play; seeds sampling when `deterministic=False`.
        board_size: the encoder's window; default: read off the model's observation
            space.
        action_mode: "turn" or "two_step", as the model was trained; default: read off
            the size of its action space.
        deterministic: play the most likely legal action (default) or sample one.
    """

    name = "sb3"

    def __init__(self, model: Any, seed: int | None = None, board_size: int | None = None,
                 action_mode: str | None = None, deterministic: bool = True) -> None:
        self.model = load_model(model) if isinstance(model, (str, Path)) else model
        self.policy = getattr(self.model, "policy", self.model)
        space = getattr(self.model, "observation_space", None)
        if not hasattr(space, "__getitem__") or not hasattr(self.model, "action_space"):
            raise ValueError("model must be a path to a saved model, an SB3 model or policy, "
                             f"got {type(model).__name__}")
        if board_size is None:
            board_size = int(space["board"].shape[0]) // 3
        self.board_size = check_optional_int("board_size", board_size, 3)
        if action_mode is not None:
            check_choice("action_mode", action_mode, ACTION_MODES)
        self.action_mode = action_mode
        self.deterministic = check_bool("deterministic", deterministic)
        self._rng = np.random.default_rng(check_seed("seed", seed))
        self._encoders: dict = {}
        self.fallbacks = 0

    def _encoder(self, game: Game) -> Encoder:
        key = (game.rules, game._ts)
        if key not in self._encoders:
            n_actions = int(self.model.action_space.n)
            board_shape = self.model.observation_space["board"].shape
            for mode in (self.action_mode,) if self.action_mode else ACTION_MODES:
                enc = Encoder(game.rules, self.board_size, mode, tileset=game._ts)
                if enc.n_actions == n_actions and enc.board_shape == board_shape:
                    break
            else:
                raise ValueError("the model was trained for other rules, board size or "
                                 "action mode than this game's")
            self._encoders[key] = enc
        return self._encoders[key]

    def _pick(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        """The policy's action restricted to `mask`: masked logits, argmax or a sample."""
        import torch

        policy = self.policy
        tensors, _ = policy.obs_to_tensor({"board": obs["board"], "features": obs["features"]})
        with torch.no_grad():
            dist = policy.get_distribution(tensors)
            logits = dist.distribution.logits[0].cpu().numpy().astype(np.float64)
        logits[mask == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self._rng.choice(len(p), p=p / p.sum()))

    def act(self, game: Game) -> Move:
        """The policy's move; a uniformly random legal move (counted in `fallbacks`, one
        warning) if the board has outgrown the model's window so far that no legal move
        is visible in it."""
        enc = self._encoder(game)
        observer = 0 if game.rules.variant == "solo" else game.current_player
        try:
            obs = enc.encode(game, observer)
        except WindowOverflowError as err:
            self.fallbacks += 1
            if self.fallbacks == 1:
                warnings.warn(f"{err}: playing a random legal move instead (counted in "
                              "SB3Agent.fallbacks)", WindowOverflowWarning, stacklevel=2)
            moves = game.legal_moves()
            return moves[int(self._rng.integers(len(moves)))]
        action = self._pick(obs, obs["action_mask"])
        if enc.action_mode == "turn":
            return enc.action_to_move(game, action)
        pending = enc.placement(game, action)
        obs = enc.encode(game, observer, pending=pending)
        return enc.action_to_move(game, self._pick(obs, obs["action_mask"]), pending)
