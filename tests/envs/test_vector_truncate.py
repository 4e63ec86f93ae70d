"""``on_overflow="truncate"`` in the batched vector envs: a game whose every legal move
lies outside the observation window (the learner's, or a policy opponent's) is cut short
as truncated and replaced by a new game, instead of raising `WindowOverflowError`. Tiny
windows (board_size 3-4) and first-legal-action play make that happen within a few
moves."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from carcassonne_env import Rules
from carcassonne_env.encoding import Encoder, WindowOverflowError, WindowOverflowWarning
from carcassonne_env.envs import SoloVectorEnv, VsBotsVectorEnv

SEEDS = [3, 11, 42]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # tiny windows: partial overflows everywhere
        warnings.simplefilter("ignore", WindowOverflowWarning)
        yield


def first_legal(obs, masks, seats):
    """A policy opponent: the first legal action (deterministic, game by game)."""
    return masks.argmax(axis=1)


def make(kind: str, num_envs: int, on_overflow: str = "truncate", board_size: int = 3, **kwargs):
    if kind == "solo":
        return SoloVectorEnv(
            num_envs, board_size=board_size, on_overflow=on_overflow, num_threads=1, **kwargs
        )
    opponents = "random" if kind == "bots" else first_legal
    return VsBotsVectorEnv(
        num_envs,
        opponents=opponents,
        players=2,
        seat=0,
        board_size=board_size,
        on_overflow=on_overflow,
        num_threads=1,
        **kwargs,
    )


KINDS = ["solo", "bots", "policy"]


# --------------------------------------------------------------------------- arguments


def test_truncate_is_listed_and_accepted():
    with pytest.raises(ValueError, match=r"\('warn', 'raise', 'truncate'\)"):
        Encoder(Rules(), on_overflow="cut")
    for env in (SoloVectorEnv, VsBotsVectorEnv):
        with pytest.raises(ValueError, match="truncate"):
            env(2, board_size=8, on_overflow="cut")
        assert env(2, board_size=8, on_overflow="truncate").encoder.on_overflow == "truncate"
    assert Encoder(Rules(), on_overflow="truncate").on_overflow == "truncate"


# --------------------------------------------------------------------------- default


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("policy", ["warn", "raise"])
def test_without_truncate_a_blocked_game_still_raises(kind, policy):
    env = make(kind, 3, on_overflow=policy)
    env.reset(seed=SEEDS)
    with pytest.raises(WindowOverflowError, match="legal moves lie outside the 3-cell"):
        for _ in range(40):
            env.step(env.action_masks().argmax(axis=1))


# --------------------------------------------------------------------------- truncate


@pytest.mark.parametrize("kind", KINDS)
def test_truncate_cuts_only_the_blocked_game_and_deals_a_new_one(kind):
    """Step by step, the batch equals independent one-game envs with the same seeds
    (the other games are untouched by a cut); the first cut comes at the step where the
    default policy raises; a cut game is truncated, not terminated, flagged
    "window_overflow", has no "result", and is replaced by a fresh game."""
    env = make(kind, 3)
    singles = [make(kind, 1) for _ in SEEDS]
    twin = make(kind, 3, on_overflow="warn")
    obs, _ = env.reset(seed=SEEDS)
    for k, single in enumerate(singles):
        one, _ = single.reset(seed=[SEEDS[k]])
        assert np.array_equal(obs["board"][k], one["board"][0])
    twin.reset(seed=SEEDS)
    twin_raised_at = None
    cuts = 0
    for step in range(40):
        masks = env.action_masks()
        assert masks.any(axis=1).all()  # never a decision without a visible move
        for k, single in enumerate(singles):
            assert np.array_equal(masks[k], single.action_masks()[0])
        actions = masks.argmax(axis=1)
        if twin_raised_at is None:
            try:
                twin.step(actions)
            except WindowOverflowError:
                twin_raised_at = step
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert not (terminated & truncated).any()
        if truncated.any() and cuts == 0:
            assert twin_raised_at == step  # the first cut: where "warn" raises
        for k, single in enumerate(singles):
            o, r, te, tr, inf = single.step(actions[k : k + 1])
            assert np.array_equal(obs["board"][k], o["board"][0])
            assert np.array_equal(obs["features"][k], o["features"][0])
            assert (rewards[k], terminated[k], truncated[k]) == (r[0], te[0], tr[0])
            if tr[0]:
                assert np.array_equal(infos["final_obs"][k]["board"], inf["final_obs"][0]["board"])
        if not truncated.any():
            assert "window_overflow" not in infos.get("final_info", {})
            continue
        cut = np.flatnonzero(truncated)
        cuts += len(cut)
        final = infos["final_info"]
        assert np.array_equal(final["_window_overflow"], truncated)
        assert np.array_equal(final["window_overflow"], truncated)
        assert np.array_equal(infos["_final_obs"], terminated | truncated)
        assert "result" not in final or not final["_result"][cut].any()
        for i in cut:
            assert final["end_reason"][i] is None  # the game did not end
            assert len(final["scores"][i]) == (3 if kind == "solo" else 2)
            game = env.game(i)  # a fresh game in its place
            assert game.turn == 0 and len(game.board) == 1
            assert not np.array_equal(infos["final_obs"][i]["board"], obs["board"][i])
    assert cuts >= 2
    assert twin_raised_at is not None


def test_truncated_final_observation_and_rewards_with_a_stuck_policy_opponent():
    """VsBots with a policy opponent: games cut at the learner's decision and at the
    policy's (it had no visible move) both give the learner's observation of the
    position where they stopped, and the rewards of an episode add up to its score."""

    class Spy(VsBotsVectorEnv):
        def _restart(self, which):
            self.before = {
                int(i): (
                    self.game(i).current_player,
                    self.encoder.encode(self.game(i), int(self.seats[i]), with_mask=False),
                )
                for i in which
            }
            super()._restart(which)

    env = Spy(
        4,
        opponents=first_legal,
        players=2,
        seat=0,
        reward="score",
        board_size=3,
        on_overflow="truncate",
        num_threads=1,
    )
    env.reset(seed=0)
    returns = np.zeros(4)
    stops = set()
    for _ in range(40):
        obs, rewards, terminated, truncated, infos = env.step(env.action_masks().argmax(axis=1))
        returns += rewards
        for i in np.flatnonzero(terminated | truncated):
            to_move, seen = env.before[int(i)]
            final = infos["final_obs"][i]
            assert np.array_equal(final["board"], seen["board"])
            assert np.array_equal(final["features"], seen["features"])
            assert returns[i] == infos["final_info"]["scores"][i][0]
            returns[i] = 0.0
            if truncated[i]:
                stops.add("learner" if to_move == 0 else "policy")
    assert stops == {"learner", "policy"}


def test_truncate_deals_again_a_game_that_cannot_start():
    """Six players, the learner last, a 3-cell window: the policy opponents often have
    nothing visible before the learner's first move; such games are dealt again, so
    every decision the learner sees has a legal move."""
    env = VsBotsVectorEnv(
        4,
        opponents=first_legal,
        players=6,
        seat=5,
        board_size=3,
        on_overflow="truncate",
        num_threads=1,
    )
    env.reset(seed=1)
    for _ in range(10):
        assert env.action_masks().any(axis=1).all()
        assert all(env.game(i).current_player == 5 for i in range(4))
        env.step(env.action_masks().argmax(axis=1))


# --------------------------------------------------------------------------- SB3


@pytest.mark.parametrize("kind", ["solo", "policy"])
def test_sb3_adapter_marks_the_cut_game_truncated(kind):
    pytest.importorskip("stable_baselines3")
    env = make(kind, 3).to_sb3()
    env.seed(0)
    env.reset()
    seen = 0
    for _ in range(30):
        env.step_async(env.action_masks().argmax(axis=1))
        obs, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["TimeLimit.truncated"] is bool(info.get("window_overflow", False))
            assert set(info["terminal_observation"]) == {"board", "features"}
            if info["TimeLimit.truncated"]:
                assert "result" not in info and "illegal_move" not in info
                seen += 1
    assert seen >= 2


def test_trainers_use_truncate():
    pytest.importorskip("sb3_contrib")
    from training.train_multi import MultiSettings, make_batched_env, win_against
    from training.train_solo import SoloSettings, make_env

    venv = make_env(SoloSettings(n_envs=2))
    while hasattr(venv, "venv"):
        venv = venv.venv
    assert venv.encoder.on_overflow == "truncate"
    joined, _ = make_batched_env(
        MultiSettings(n_envs=2, env="batched", bots="random", bot_share=1.0)
    )
    assert all(g.encoder.on_overflow == "truncate" for g in joined.venv.groups)
    info = {"opponent": "random", "scores": [3, 1], "seat": 0}
    assert win_against("random")(info) == 1.0
    assert win_against("random")({**info, "window_overflow": True}) is None
    from training.imitation import ImitationSettings
    from training.imitation import make_env as make_bc_env

    for players in (1, 2):
        bc = make_bc_env(ImitationSettings(players=players), 2, ["random"])
        assert bc.encoder.on_overflow == "truncate"
