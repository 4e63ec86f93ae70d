"""The aggregate observation (`obs_features="aggregate"`, issue 13 section 2): per-pixel
feature planes from the union-find and each seat's projected score, exact on a fixed
scenario, cross-checked against the naive reference scorer, and accepted by every env,
the sb3 bot and `make_env_for_model`."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import Game, Move, Rules, carcassonne_v0
from carcassonne_env.encoding import Encoder
from tests.support import reference as ref

AGG = (
    "feature_points_complete",
    "feature_points_end",
    "feature_open_edges",
    "feature_tiles",
    "feature_claimable",
)


def test_standard_layout_is_unchanged_and_aggregate_adds_planes_and_features():
    for rules in (Rules(players=2), Rules(players=5), Rules(variant="solo")):
        standard = Encoder(rules, 12)
        aggregate = Encoder(rules, 12, obs_features="aggregate")
        seats = rules.seats
        assert standard.board_shape == (36, 36, 8 + seats)
        assert aggregate.board_shape == (36, 36, 8 + seats + 5 + seats)
        assert aggregate.plane_names[: 8 + seats] == standard.plane_names
        assert tuple(aggregate.plane_names[8 + seats : 13 + seats]) == AGG
        assert aggregate.feature_names == standard.feature_names + [
            f"projected_score_{q}" for q in range(seats)
        ]
        assert (standard.observation_space()["board"].high == 1).all()
    with pytest.raises(ValueError, match="obs_features must be one of"):
        Encoder(Rules(), 12, obs_features="rich")


def _cell_planes(enc: Encoder, game: Game, observer: int, x: int, y: int, kind: str):
    """{plane name: values at the pixels of cell (x, y) showing terrain `kind`}."""
    obs = enc.encode(game, observer)
    x0, y0 = enc.window_origin(game)
    cell = obs["board"][3 * (y - y0) : 3 * (y - y0) + 3, 3 * (x - x0) : 3 * (x - x0) + 3]
    on = cell[..., enc.plane_names.index(kind)] == 1
    return {
        name: sorted(set(cell[..., c][on].tolist())) for c, name in enumerate(enc.plane_names)
    }, obs["features"]


def test_a_claimed_road_and_an_open_city_on_fixed_tiles():
    """Start tile D (city north, road west-east); U (a straight road) east of it with
    seat 0's thief: the road has 2 tiles and 2 open ends, scores 2 either way."""
    game = Game(Rules(players=2), tile_order="UVVEK")
    game.play(Move(1, 0, 0, "road:W"))
    enc = Encoder(game.rules, 8, obs_features="aggregate")
    road, feats = _cell_planes(enc, game, 0, 1, 0, "road")
    assert road["feature_points_complete"] == road["feature_points_end"] == [2]
    assert road["feature_open_edges"] == road["feature_tiles"] == [2]
    assert road["feature_claimable"] == [0]
    assert road["feature_follower_me"] == [1] and road["feature_follower_opponent_1"] == [0]
    names = enc.feature_names
    assert feats[names.index("projected_score_0")] == pytest.approx(0.02)  # 0 + 2 pending
    assert feats[names.index("projected_score_1")] == 0
    # seen by seat 1 the thief is an opponent's, and the projections are relative
    road, feats = _cell_planes(enc, game, 1, 1, 0, "road")
    assert road["feature_follower_me"] == [0] and road["feature_follower_opponent_1"] == [1]
    assert feats[names.index("projected_score_1")] == pytest.approx(0.02)
    city, _ = _cell_planes(enc, game, 0, 0, 0, "city")  # the start tile's one-tile city
    assert city["feature_points_complete"] == [2] and city["feature_points_end"] == [1]
    assert city["feature_open_edges"] == city["feature_tiles"] == [1]
    assert city["feature_claimable"] == [1] and city["feature_follower_me"] == [0]


BOTH = ["inns_cathedrals", "traders_builders"]


@pytest.mark.parametrize(
    "rules",
    [
        {"players": 2},
        {"players": 3, "farm_scoring": "city"},
        {"players": 4, "small_city": True},
        {"players": 2, "expansions": BOTH},
        {"players": 5, "expansions": ["traders_builders"]},
        {"variant": "solo"},
    ],
    ids=str,
)
def test_projected_scores_equal_the_reference_scorers_end_of_game(rules):
    """At random points of random games, score + pending end-game points is what the
    naive reference scorer gives when the game ends right there."""
    enc = None
    for seed in range(4):
        game, rng = Game(Rules(**rules), seed=seed), random.Random(seed)
        stops = set(rng.sample(range(1, 60), 5))
        while not game.done:
            game.play(rng.choice(game.legal_moves()))
            if game.turn not in stops or game.done:
                continue
            enc = enc or Encoder(game.rules, 32, obs_features="aggregate")
            seats = game.rules.seats
            record = game.to_record()
            want = ref.replay_scores(record, final=True)[-1]
            assert ref.replay_scores(record, final=False)[-1] == list(game.scores)
            for observer in range(1 if game.rules.variant == "solo" else seats):
                feats = enc.encode(game, observer)["features"][-seats:]
                got = [round(feats[(p - observer) % seats] * 100) for p in range(seats)]
                assert got == want, (rules, seed, game.turn, observer)


@pytest.mark.parametrize(
    "rules",
    [
        {"players": 2},
        {"players": 6, "small_city": True},
        {"players": 2, "expansions": BOTH},
        {"players": 4, "expansions": ["traders_builders"]},
        {"players": 3, "expansions": ["inns_cathedrals"]},
        {"players": 2, "expansions": BOTH, "expansion_mode": "tiles_only"},
    ],
    ids=str,
)
def test_pending_points_summed_per_feature_equal_the_end_scoring(rules):
    """`pending_from_features` (the followers' features' end points and the goods, read
    off the state) gives what the engine's end scoring on a copy gives, at every turn."""
    from carcassonne_env.core.aggregates import (
        by_features,
        field_city_counts,
        pending_from_features,
        pending_points,
    )
    from carcassonne_env.core.state import copy_state

    checked = 0
    for seed in range(3):
        game, rng = Game(Rules(**rules), seed=seed), random.Random(seed)
        st, tb = game.state, game.tables
        assert by_features(st)
        scratch, counts = copy_state(st), np.zeros(st.parent.shape[0], np.int64)
        want, got = np.zeros(game.rules.seats, np.int64), np.zeros(game.rules.seats, np.int64)
        while not game.done:
            game.play(rng.choice(game.legal_moves()))
            pending_points(st, tb, scratch, want)
            field_city_counts(st, counts)
            pending_from_features(st, tb, counts, got)
            assert list(got) == list(want), (rules, seed, game.turn)
            checked += int(want.any())
    assert checked > 50  # (positions with points pending)


def _random_steps(env, seed: int, steps: int = 40) -> None:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        assert env.observation_space.contains(obs)
        legal = np.flatnonzero(info["action_mask"])
        obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            obs, info = env.reset()


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("Carcassonne/Solo-v0", {}),
        ("Carcassonne/VsBots-v0", {"opponents": ["greedy"], "players": 2}),
    ],
    ids=["solo", "vsbots"],
)
def test_gymnasium_envs_take_the_option(env_id, kwargs):
    env = gymnasium.make(env_id, board_size=16, obs_features="aggregate", **kwargs)
    assert env.observation_space["board"].shape[2] == 8 + 2 * env.unwrapped.rules.seats + 5
    _random_steps(env, seed=1)
    with pytest.raises(ValueError, match="obs_features must be one of"):
        gymnasium.make(env_id, obs_features=True, **kwargs)


@pytest.mark.parametrize("layout", ["dict", "classic", "flat"])
def test_the_pettingzoo_env_takes_the_option(layout):
    env = carcassonne_v0.env(players=3, board_size=16, obs_layout=layout, obs_features="aggregate")
    env.reset(seed=2)
    for agent in env.agent_iter(max_iter=30):
        obs, _, termination, truncation, info = env.last()
        assert env.observation_space(agent).contains(obs)
        mask = info["action_mask"] if layout == "flat" else obs["action_mask"]
        env.step(None if termination or truncation else int(np.flatnonzero(mask)[0]))


def test_a_model_trained_on_the_aggregate_observation_plays_and_gets_its_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents.sb3_policy import SB3Agent
    from carcassonne_env.envs import SoloEnv, make_env_for_model, model_env_options
    from training.policy import BoardPolicy

    model = MaskablePPO(
        BoardPolicy,
        SoloEnv(board_size=8, obs_features="aggregate"),
        n_steps=16,
        batch_size=16,
        device="cpu",
    )
    extractor = model.policy.features_extractor
    assert extractor.scale is not None and float(extractor.scale.min()) == pytest.approx(1 / 60)
    assert "scale" not in model.policy.state_dict()  # derived from the space, not saved
    assert model_env_options(model, solo=True) == {
        "colours": 3,
        "board_size": 8,
        "action_mode": "turn",
        "obs_features": "aggregate",
    }
    env = make_env_for_model(model, solo=True)  # untrained: no observation tells
    assert env.observation_space == model.observation_space
    game = Game(Rules(variant="solo"), seed=0)
    bot = SB3Agent(model)
    for _ in range(5):
        game.play(bot.act(game))
    assert bot.encoder_for(game).obs_features == "aggregate"
