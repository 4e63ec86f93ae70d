"""The shared part of the Gymnasium single-agent envs (`SoloEnv` in `envs.solo`,
`VsBotsEnv` in `envs.vs_bots`): `SingleAgentEnv` holds the spaces, seeding, masks,
illegal actions and rendering over a `TurnDriver`. Both envs give ``action_masks()`` for
sb3-contrib's MaskablePPO (and, with ``mask_in_obs=True``, the mask as the observation's
"action_mask" entry, for libraries that read it there: TorchRL, Tianshou, RLlib;
docs/clients.md), take any integer scalar as an action (int, numpy integer, 0-d integer
array as SB3's ``predict`` returns) and raise `gymnasium.error.ResetNeeded` on a step
after the episode ended (game over or illegal action) until ``reset()``.

`info` holds numpy arrays and scalars only, no lists: "scores" int64[P], "action_mask"
int8[n_actions], "moves_outside_window" an int, "end_reason" None while the game runs and
then "A" / "B" / "tiles". Readers that turn entries into tensors take the arrays (TorchRL:
an explicit ``default_info_dict_reader(["scores"], ...)``, docs/clients.md; its
``auto_register_info_dict`` wants every entry numpy, which "end_reason" is not)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from ..checks import check_bool, check_choice, check_real
from ..rendering.modes import RENDER_MODES, render_game
from ..rules import Rules
from .aec import SCORES_DTYPE
from .driver import TurnDriver

#: The observation key of the action mask with ``mask_in_obs=True`` (the AEC env's name).
MASK_KEY = "action_mask"


class SingleAgentEnv(gym.Env, ABC):
    """The base of `SoloEnv` and `VsBotsEnv`: spaces, seeding, masks, illegal actions,
    rendering. A subclass implements the abstract methods: `_observer` (the seat whose
    view is observed), `reset` and `step`, played through `_new_game`, `driver`,
    `_obs_info`, `_illegal`."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        rules: Rules,
        board_size: int,
        action_mode: str,
        on_overflow: str,
        illegal_reward: float,
        render_mode: str | None,
        obs_features: str,
        candidate_moves: int,
        mask_in_obs: bool = False,
    ) -> None:
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.rules = rules
        self.render_mode = render_mode
        self.illegal_reward = check_real("illegal_reward", illegal_reward)
        self.driver = TurnDriver(
            rules, board_size, action_mode, on_overflow, obs_features, candidate_moves
        )
        self.mask_in_obs = check_bool("mask_in_obs", mask_in_obs)
        enc = self.driver.encoder
        self.observation_space = enc.observation_space()
        if self.mask_in_obs:  # the AEC env's key and space (`carcassonne_v0`)
            self.observation_space = gym.spaces.Dict(
                {
                    **self.observation_space.spaces,
                    MASK_KEY: gym.spaces.Box(0, 1, (enc.n_actions,), np.int8),
                }
            )
        self._obs_keys = tuple(self.observation_space.spaces)
        self.action_space = enc.action_space()
        self._over: str | None = "before the first reset()"  # why step() is refused

    @property
    def game(self):
        """The `Game` being played (read it, don't play moves on it)."""
        return self.driver.game

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions (sb3-contrib's MaskablePPO calls this)."""
        return self.driver.action_mask().view(np.bool_)  # 0/1 int8 viewed as bool

    @abstractmethod
    def _observer(self) -> int:
        """The seat whose view the observation shows (solo: 0)."""

    @abstractmethod
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new episode (`_new_game`); returns `_obs_info()`."""

    @abstractmethod
    def step(self, action):
        """Play `action` for the agent (`_check_playing`, then the driver); returns
        Gymnasium's (obs, reward, terminated, truncated, info)."""

    def _obs_info(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs = self.driver.observe(self._observer())
        game = self.driver.live_game
        info = {
            "scores": np.array(game.scores, SCORES_DTYPE),
            "end_reason": game.end_reason,
            "action_mask": self.driver.action_mask(),
            "moves_outside_window": int(self.driver.encoder.last_outside),
        }
        # with mask_in_obs, obs["action_mask"] (the driver's) equals info["action_mask"]
        return {k: obs[k] for k in self._obs_keys}, info

    def _new_game(self, seed: int | None) -> None:
        super().reset(seed=seed)
        self.driver.new_game(int(self.np_random.integers(2**63)))
        self._over = None

    def _check_playing(self) -> None:
        """ResetNeeded unless an episode is running: a step after the episode ended
        (game over or illegal action) must not play on in the finished game."""
        if self._over is not None:
            raise ResetNeeded(f"step() called {self._over}: call reset() to start a new episode")

    def _finish_if_done(self) -> None:
        if self.driver.live_game.done:
            self._over = "after the game ended (terminated)"

    def _illegal(self, reason: str):
        self._over = "after an illegal action ended the episode (terminated)"
        obs, info = self._obs_info()
        obs = {k: v.copy() for k, v in obs.items()}  # same decision: never hand out twice
        info["action_mask"] = info["action_mask"].copy()
        info["illegal_move"] = reason
        return obs, self.illegal_reward, True, False, info

    def render(self):
        if self.render_mode is None:
            return None
        return render_game(self.driver.game, self.render_mode)
