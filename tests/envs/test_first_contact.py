"""What a new user meets first: the standard SB3 predict/step loop on the shipped models,
the integer forms an action may take, episodes that end, envs built to match a model,
and clear errors for bad constructor arguments and moves (issue 12)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import Game, IllegalMoveError, Move, Rules, carcassonne_v0
from carcassonne_env.envs import (
    SoloEnv,
    SoloVectorEnv,
    VsBotsEnv,
    make_env_for_model,
    model_env_options,
)
from tests.support.paths import ROOT

# the standard-layout (RL-only) models: the envs below are built with default options
SOLO_MODEL, DUEL_MODEL = (
    ROOT / "agents/models/ppo_solo_rl.zip",
    ROOT / "agents/models/ppo_duel_rl.zip",
)


@pytest.fixture(scope="module")
def models():
    """The two shipped models, loaded once (the train extra)."""
    pytest.importorskip("sb3_contrib")
    from agents.sb3_policy import load_model

    return {"solo": load_model(SOLO_MODEL), "duel": load_model(DUEL_MODEL)}


def bot_moves(model, rules: Rules, seed: int, seats: int) -> list[dict]:
    """The moves of a game on deck `seed` with every seat played by the `sb3` bot of
    `model` (deterministic: argmax of the masked logits)."""
    from agents.sb3_policy import SB3Agent

    game, bot = Game(rules, seed=seed), SB3Agent(model)
    while not game.done:
        game.play(bot.act(game))
    return game.to_record()["moves"]


# --------------------------------------------------------------------------- item 1


def test_sb3_predict_step_loop_on_solo_v0(models):
    """The loop from the issue, verbatim, on Solo-v0 at the model's window: SB3's 0-d
    integer arrays are played (before the fix: illegal at move 1), and the moves are
    exactly those of the sb3 bot on the same deal."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    model = models["solo"]
    env = gymnasium.make(
        "Carcassonne/Solo-v0", board_size=16, obs_features="aggregate", candidate_moves=128
    )  # the model's observation
    obs, info = env.reset(seed=3)
    total, steps = 0.0, 0
    while True:
        action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, reward, terminated, truncated, info = env.step(action)
        assert "illegal_move" not in info
        total, steps = total + reward, steps + 1
        if terminated or truncated:
            break
    game = env.unwrapped.game
    assert game.done and steps == game.turn
    assert total == game.result - 1  # the solo return: result minus the starting point
    assert game.to_record()["moves"] == bot_moves(model, game.rules, game.seed, 1)


def test_the_readme_first_example_is_the_sb3_loop_and_runs(models, monkeypatch, capsys, tmp_path):
    """The Quick start runs as written from any folder (it loads the shipped model by
    name; issue 28)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    language, code = re.search(r"```(\w*)\n(.*?)```", readme, re.DOTALL).groups()
    assert language == "python"
    assert "model.predict(obs, action_masks=get_action_masks(env)" in code
    assert "env.step(action)" in code and 'load_model("ppo_solo")' in code
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    game, info = namespace["env"].unwrapped.game, namespace["info"]
    assert game.done and "illegal_move" not in info
    assert capsys.readouterr().out == (f"solo result: {game.result} colour scores: {game.scores}\n")


def test_sb3_predict_step_loop_on_vsbots_v0(models):
    from sb3_contrib.common.maskable.utils import get_action_masks

    model = models["duel"]
    env = make_env_for_model(model, opponents="greedy", seat=0)
    obs, _ = env.reset(seed=1)
    while True:
        action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        assert "illegal_move" not in info
        if terminated or truncated:
            break
    game = env.unwrapped.game
    assert game.done and len(game.to_record()["moves"]) == 71


@pytest.mark.parametrize(
    "as_action", [np.int64, lambda a: np.array(a)], ids=["np.int64", "0-d array"]
)
def test_pettingzoo_loop_with_numpy_actions(models, as_action):
    """PettingZoo's loop with numpy integers and 0-d arrays (SB3 predict's output) for
    both seats of a 2-player game: the moves are those of the sb3 bot on that deck."""
    model = models["duel"]
    env = carcassonne_v0.env(**model_env_options(model))
    env.reset(seed=5)
    for _agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        assert "illegal_move" not in info
        if termination or truncation:
            env.step(None)
            continue
        action, _ = model.predict(
            obs["observation"], action_masks=obs["action_mask"], deterministic=True
        )
        env.step(as_action(int(action)))
    game = env.unwrapped.game
    assert game.done
    assert game.to_record()["moves"] == bot_moves(model, game.rules, game.seed, 2)


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


ACCEPTED = [int, np.int64, np.int32, np.uint16, np.array, lambda a: np.array(a, np.int16)]
REFUSED = [
    float,
    np.float32,
    lambda a: np.array(float(a)),
    lambda a: True,
    lambda a: np.bool_(True),
    str,
    lambda a: np.array([a]),
    lambda a: np.array([[a]]),
    lambda a: [a],
    lambda a: None,
]


def _single_envs():
    return [SoloEnv(), VsBotsEnv(opponents="random", seat=0)]


@pytest.mark.parametrize("form", range(len(ACCEPTED)))
def test_single_agent_envs_accept_every_integer_scalar(form):
    for env in _single_envs():
        _, info = env.reset(seed=0)
        action = _first_legal(info["action_mask"])
        reference = type(env)(
            **({} if isinstance(env, SoloEnv) else {"opponents": "random", "seat": 0})
        )
        reference.reset(seed=0)
        _, r_ref, _, _, _ = reference.step(action)
        _, reward, terminated, _, info = env.step(ACCEPTED[form](action))
        assert "illegal_move" not in info
        assert reward == r_ref and not terminated
        assert env.game.to_record() == reference.game.to_record()


NOT_AN_ACTION = (
    "action must be an integer in the action space (an int, a numpy integer "
    "or a 0-d integer array), got "
)


@pytest.mark.parametrize("form", range(len(REFUSED)))
def test_single_agent_envs_refuse_other_actions(form):
    """An action outside the action space is the caller's bug: a ValueError, nothing
    played, the episode goes on (issue 28; not the illegal-move ending)."""
    for env in _single_envs():
        _, info = env.reset(seed=0)
        action = _first_legal(info["action_mask"])
        bad = REFUSED[form](action)
        turn = env.game.turn
        with pytest.raises(ValueError) as err:
            env.step(bad)
        assert str(err.value) == NOT_AN_ACTION + repr(bad)
        assert env.game.turn == turn
        _, _, terminated, _, info = env.step(action)  # still playing
        assert not terminated and "illegal_move" not in info


@pytest.mark.parametrize(
    "make",
    [
        SoloEnv,
        lambda: VsBotsEnv(opponents="random", seat=0),
        lambda: gymnasium.make("Carcassonne/Solo-v0"),
    ],
    ids=["Solo", "VsBots", "gym.make"],
)
@pytest.mark.parametrize("bad", [-1, "n"], ids=["-1", "n_actions"])
def test_single_agent_envs_refuse_integers_outside_the_space(make, bad):
    env = make()
    env.reset(seed=0)
    n = env.action_space.n
    bad = n if bad == "n" else bad
    with pytest.raises(
        ValueError, match=re.escape(f"action {bad} is outside the action space [0, {n})")
    ):
        env.step(bad)
    assert env.unwrapped.game.turn in (0, env.unwrapped.game.current_player)


@pytest.mark.parametrize(
    ("form", "legal"),
    [(f, True) for f in range(len(ACCEPTED))] + [(f, False) for f in range(len(REFUSED))],
)
def test_aec_env_accepts_integer_scalars_only(form, legal):
    env = carcassonne_v0.env(players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    action = _first_legal(env.last()[0]["action_mask"])
    if legal:
        env.step(ACCEPTED[form](action))
        assert env.unwrapped.game.turn == 1 and env.agent_selection != agent
        assert not any(env.terminations.values())
    else:
        bad = REFUSED[form](action)
        with pytest.raises(ValueError) as err:
            env.step(bad)
        assert str(err.value) == NOT_AN_ACTION + repr(bad)
        assert env.unwrapped.game.turn == 0 and not any(env.terminations.values())
        assert env.agent_selection == agent


def test_aec_env_refuses_integers_outside_the_space():
    env = carcassonne_v0.env(players=2)
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    for bad in (-1, n):
        with pytest.raises(
            ValueError, match=re.escape(f"action {bad} is outside the action space [0, {n})")
        ):
            env.step(bad)
    assert env.unwrapped.game.turn == 0 and not any(env.terminations.values())


def test_vector_env_refuses_non_integer_actions():
    venv = SoloVectorEnv(num_envs=2)
    _, _ = venv.reset(seed=0)
    legal = [_first_legal(m) for m in venv.action_masks()]
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        venv.step(np.array(legal, np.float64))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        venv.step(legal[:1])
    n = venv.single_action_space.n
    for bad in (-1, n):
        with pytest.raises(
            ValueError,
            match=re.escape(f"action {bad} of game 1 is outside the action space [0, {n})"),
        ):
            venv.step(np.array([legal[0], bad]))
    assert venv.game(0).turn == 0  # nothing was played
    _, _, terminated, _, _ = venv.step(np.array(legal, np.int32))
    assert not terminated.any() and venv.game(0).turn == 1


def test_vs_bots_vector_env_refuses_actions_outside_the_space():
    from carcassonne_env.envs import VsBotsVectorEnv

    venv = VsBotsVectorEnv(num_envs=2, opponents="random", seat=0)
    venv.reset(seed=0)
    legal = [_first_legal(m) for m in venv.action_masks()]
    with pytest.raises(ValueError, match="action -1 of game 0 is outside the action space"):
        venv.step(np.array([-1, legal[1]]))
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        venv.step(np.array(legal, np.float64))
    _, _, terminated, _, _ = venv.step(np.array(legal))
    assert not terminated.any()


# --------------------------------------------------------------------------- item 2


def _play_to_the_end(env, seed: int) -> None:
    _, info = env.reset(seed=seed)
    rng, terminated = np.random.default_rng(seed), False
    while not terminated:
        _, _, terminated, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
    assert env.unwrapped.game.done


@pytest.mark.parametrize("env_id", ["Carcassonne/Solo-v0", "Carcassonne/VsBots-v0"])
def test_step_after_the_end_asks_for_reset(env_id):
    env = gymnasium.make(env_id)
    _play_to_the_end(env, seed=0)
    record = env.unwrapped.game.to_record()
    with pytest.raises(ResetNeeded, match=r"after the game ended .*call reset\(\)"):
        env.step(0)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.unwrapped.game.to_record()
    _, _, terminated, _, _ = env.step(illegal)
    assert terminated
    for action in (illegal, _first_legal(info["action_mask"])):  # legal or not: refused
        with pytest.raises(ResetNeeded, match=r"after an illegal action .*call reset\(\)"):
            env.step(action)
    assert env.unwrapped.game.to_record() == before  # the game did not move on
    assert record != before
    _, info = env.reset(seed=1)  # a new episode plays again
    env.step(_first_legal(info["action_mask"]))


def test_step_before_reset_asks_for_reset():
    for env in _single_envs():
        with pytest.raises(ResetNeeded, match=r"before the first reset\(\)"):
            env.step(0)


# --------------------------------------------------------------------------- item 3


CONSTRUCTOR_ERRORS = [
    # (constructor, keyword arguments, message)
    (Rules, {"players": "2"}, "players must be an integer in \\[1, 6\\], got '2'"),
    (Rules, {"followers": 7.0}, "followers must be an integer in \\[0, 99\\], got 7.0"),
    (Rules, {"small_city": 1}, "small_city must be True or False, got 1"),
    (Rules, {"farm_scoring": ["field"]}, "farm_scoring must be one of"),
    (Rules, {"hand_size": 3.0}, "hand_size must be an integer, got 3.0"),
    (Rules, {"variant": None}, "variant must be one of"),
    (Rules, {"farm_city_points": True}, "farm_city_points must be an integer"),
    (Game, {"seed": 1.5}, "seed must be None or a non-negative integer, got 1.5"),
    (Game, {"seed": "7"}, "seed must be None or a non-negative integer, got '7'"),
    (Game, {"seed": -1}, "seed must be None or a non-negative integer, got -1"),
    (Game, {"tile_order": 5}, "tile_order must be a string of tile letters"),
    (Game, {"tile_order": ["U", 2]}, "tile_order must be a string of tile letters"),
    (SoloEnv, {"colours": 3.0}, "colours must be an integer in \\[3, 4\\], got 3.0"),
    (SoloEnv, {"board_size": 16.0}, "board_size must be an integer >= 3, got 16.0"),
    (SoloEnv, {"action_mode": 1}, "action_mode must be one of"),
    (SoloEnv, {"on_overflow": None}, "on_overflow must be one of"),
    (SoloEnv, {"illegal_reward": "-1"}, "illegal_reward must be a finite number, got '-1'"),
    (SoloEnv, {"illegal_reward": float("nan")}, "illegal_reward must be a finite number"),
    (SoloEnv, {"render_mode": 1}, "render_mode must be one of"),
    (
        VsBotsEnv,
        {"opponents": ["greedy"], "seat": 1.0},
        "seat must be an integer in \\[0, 1\\], got 1.0",
    ),
    (VsBotsEnv, {"opponents": ["greedy"], "seat": True}, "seat must be an integer"),
    (VsBotsEnv, {"opponents": [3]}, "opponents must be a bot spec or a list of bot specs"),
    (VsBotsEnv, {"opponents": None}, "opponents must be a bot spec"),
    (VsBotsEnv, {"reward": 1}, "reward must be one of"),
    (VsBotsEnv, {"illegal_reward": None}, "illegal_reward must be a finite number"),
    (VsBotsEnv, {"rules": {"players": 2}}, "rules must be a Rules instance"),
    (VsBotsEnv, {"players": 2.0}, "players must be an integer"),
    (VsBotsEnv, {"board_size": "32"}, "board_size must be an integer"),
    (carcassonne_v0.env, {"players": "3"}, "players must be an integer"),
    (carcassonne_v0.env, {"reward": None}, "reward must be one of"),
    (carcassonne_v0.env, {"illegal_reward": [1]}, "illegal_reward must be a finite number"),
    (carcassonne_v0.env, {"render_mode": 0}, "render_mode must be one of"),
    (carcassonne_v0.env, {"obs_layout": "planar"}, "obs_layout must be one of"),
    (carcassonne_v0.env, {"board_size": 2.5}, "board_size must be an integer"),
    (SoloVectorEnv, {"num_envs": 2.0}, "num_envs must be an integer >= 1, got 2.0"),
    (SoloVectorEnv, {"colours": "3"}, "colours must be an integer in \\[3, 4\\]"),
    (SoloVectorEnv, {"num_threads": 1.0}, "num_threads must be an integer >= 1"),
    (SoloVectorEnv, {"copy": "yes"}, "copy must be True or False"),
    (SoloVectorEnv, {"illegal_reward": True}, "illegal_reward must be a finite number"),
    (SoloVectorEnv, {"render_mode": "human"}, "render_mode must be one of"),
]


def _make_bot(**kwargs):
    from carcassonne_env import make_bot

    name = kwargs.pop("name")
    return make_bot(name, **kwargs)


BOT_ERRORS = [
    ({"name": "random", "seed": 1.5}, "seed must be an integer, got 1.5"),
    ({"name": "greedy", "seed": "0"}, "seed must be an integer, got '0'"),
    ({"name": "heuristic", "seed": [0]}, "seed must be an integer"),
    # a spec value that does not parse as its option's type is refused by the spec reader
    ({"name": "heuristic:follower=abc"}, "option 'follower' takes a number, got 'abc'"),
    ({"name": "mcts:iterations=2.5"}, "option 'iterations' takes an integer, got '2.5'"),
    ({"name": "mcts:c=fast"}, "option 'c' takes a number, got 'fast'"),
    ({"name": "mcts:top_k=1.5"}, "option 'top_k' takes an integer, got '1.5'"),
    ({"name": "mcts:depth=x"}, "option 'depth' takes an integer, got 'x'"),
    # one that parses but is out of range, by the bot's constructor
    ({"name": "mcts:solo_scale=0"}, "solo_scale must be a finite number > 0, got 0"),
    ({"name": "mcts:threads=0"}, "threads must be an integer >= 1, got 0"),
    ({"name": "mcts:iterations=0"}, "iterations must be an integer >= 1, got 0"),
    ({"name": "mcts", "seed": 0.5}, "seed must be an integer"),
]


@pytest.mark.parametrize(
    ("constructor", "kwargs", "match"),
    CONSTRUCTOR_ERRORS,
    ids=lambda v: getattr(v, "__name__", None) or str(v),
)
def test_constructors_refuse_wrong_types_naming_the_argument(constructor, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        constructor(**kwargs)


@pytest.mark.parametrize(("kwargs", "match"), BOT_ERRORS, ids=str)
def test_bots_refuse_wrong_types_naming_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _make_bot(**kwargs)


def test_bot_constructors_refuse_wrong_types_naming_the_argument():
    """Python callers skip the spec reader: the constructors check types themselves."""
    from agents.mcts import MCTSAgent
    from carcassonne_env.bots.heuristic import HeuristicAgent

    for constructor, kwargs, match in [
        (HeuristicAgent, {"follower": "abc"}, "follower must be a finite number, got 'abc'"),
        (MCTSAgent, {"iterations": 2.5}, "iterations must be an integer >= 1, got 2.5"),
        (MCTSAgent, {"c": "fast"}, "c must be a finite number >= 0, got 'fast'"),
        (MCTSAgent, {"top_k": 1.5}, "top_k must be an integer >= 0, got 1.5"),
        (MCTSAgent, {"depth": "x"}, "depth must be -1"),
    ]:
        with pytest.raises(ValueError, match=match):
            constructor(**kwargs)


def test_the_crash_from_inside_numba_is_a_clear_error():
    with pytest.raises(ValueError, match="seat must be an integer in \\[0, 1\\], got 1.0"):
        gymnasium.make("Carcassonne/VsBots-v0", opponents=["greedy"], seat=1.0)


def test_sb3_bot_refuses_wrong_types(models):
    from agents.sb3_policy import SB3Agent

    for kwargs, match in [
        ({"board_size": 16.0}, "board_size must be an integer >= 3"),
        ({"action_mode": "three_step"}, "action_mode must be one of"),
        ({"deterministic": "no"}, "deterministic must be True or False"),
        ({"seed": 0.5}, "seed must be None or a non-negative integer"),
    ]:
        with pytest.raises(ValueError, match=match):
            SB3Agent(models["solo"], **kwargs)
    with pytest.raises(ValueError, match="model must be a path to a saved model"):
        SB3Agent(42)


def test_numpy_integer_arguments_are_accepted_as_plain_ints():
    rules = Rules(players=np.int64(3), followers=np.int32(5), small_city=np.bool_(True))
    assert rules == Rules(players=3, followers=5, small_city=True)
    assert type(rules.players) is int and type(rules.small_city) is bool
    env = VsBotsEnv(opponents="random", seat=np.int64(1), players=np.int8(2))
    assert env.fixed_seat == 1 and type(env.fixed_seat) is int
    assert SoloVectorEnv(num_envs=np.int64(2)).num_envs == 2


# --------------------------------------------------------------------------- item 4


@pytest.mark.parametrize("warm", [False, True], ids=["cold cache", "warm cache"])
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("x", float, "x must be an integer, got {v!r}"),
        ("x", bool, "x must be an integer, got {v!r}"),
        ("y", float, "y must be an integer, got {v!r}"),
        ("rotation", float, "rotation must be an integer, got {v!r}"),
        ("rotation", str, "rotation must be an integer, got {v!r}"),
    ],
)
def test_play_validates_types_whether_or_not_the_legal_move_cache_is_warm(
    warm, field, value, message
):
    game = Game(tile_order="VUVE")
    move = next(m for m in Game(tile_order="VUVE").legal_moves() if m.x == 1)  # east
    if warm:
        game.legal_moves()
    v = value(getattr(move, field))
    bad = move._replace(**{field: v})
    assert bad == move or value is str  # equal: the warm cache holds it as a legal move
    with pytest.raises(IllegalMoveError) as err:
        game.play(bad)
    assert str(err.value) == message.format(v=v)
    assert game.turn == 0


@pytest.mark.parametrize("warm", [False, True], ids=["cold cache", "warm cache"])
def test_play_validates_follower_and_tile_types_on_both_paths(warm):
    game = Game(tile_order="VUVE")
    move = game.legal_moves()[0] if warm else Game(tile_order="VUVE").legal_moves()[0]
    for field, v in (("follower", 3), ("tile", 0)):
        with pytest.raises(IllegalMoveError, match=f"{field} must be None or a string"):
            game.play(move._replace(**{field: v}))
    game.play(Move(np.int64(move.x), np.int32(move.y), np.int8(move.rotation), move.follower))
    assert game.turn == 1


# --------------------------------------------------------------------------- item 5


@pytest.mark.parametrize("kwargs", [{"players": 1}, {"rules": Rules(players=1)}])
def test_vsbots_refuses_one_player(kwargs):
    with pytest.raises(ValueError, match="VsBots is for 2-6 players; use 'Carcassonne/Solo-v0'"):
        gymnasium.make("Carcassonne/VsBots-v0", opponents=["greedy"], **kwargs)


# --------------------------------------------------------------------------- item 6


def test_model_env_options_of_the_shipped_models(models):
    assert model_env_options(models["solo"]) == {
        "colours": 3,
        "board_size": 16,
        "action_mode": "turn",
        "obs_features": "aggregate",
        "candidate_moves": 128,
    }
    # (ppo_duel_rl: trained with room for 512 candidates)
    assert model_env_options(DUEL_MODEL) == {
        "players": 2,
        "hand_size": 1,
        "board_size": 20,
        "action_mode": "turn",
        "obs_features": "aggregate",
        "candidate_moves": 512,
    }
    env = make_env_for_model(SOLO_MODEL)
    assert env.spec.id == "Carcassonne/Solo-v0"
    assert env.observation_space == models["solo"].observation_space
    assert env.action_space == models["solo"].action_space
    env = make_env_for_model(models["duel"], opponents=["heuristic"], reward="margin")
    assert env.spec.id == "Carcassonne/VsBots-v0"
    assert env.unwrapped.opponent_names == ["heuristic"] and env.unwrapped.reward_mode == "margin"
    assert env.observation_space == models["duel"].observation_space


def _fake_model(env, last_features=None):
    """An object with a model's spaces (and optionally its saved last observation)."""
    model = SimpleNamespace(observation_space=env.observation_space, action_space=env.action_space)
    if last_features is not None:  # internals: SB3's last training observation
        model._last_obs = {"features": last_features}
    return model


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 4, "hand_size": 3, "board_size": 12, "action_mode": "turn"},
        {"players": 2, "hand_size": 1, "board_size": 9, "action_mode": "two_step"},
        {"players": 6, "hand_size": 1, "board_size": 5, "action_mode": "turn"},
    ],
    ids=str,
)
def test_model_env_options_reads_every_setting(kwargs):
    env = VsBotsEnv(opponents="random", **kwargs)
    assert model_env_options(_fake_model(env)) == kwargs


def test_three_or_four_seats_need_the_variant():
    solo, trio = (
        SoloEnv(colours=4, board_size=8),
        VsBotsEnv(opponents="random", players=4, board_size=8),
    )
    assert solo.observation_space == trio.observation_space  # the spaces cannot tell
    with pytest.raises(ValueError, match="pass solo=True or solo=False"):
        model_env_options(_fake_model(solo))
    assert model_env_options(_fake_model(solo), solo=True) == {
        "colours": 4,
        "board_size": 8,
        "action_mode": "turn",
    }
    assert model_env_options(_fake_model(trio), solo=False)["players"] == 4
    # A saved training observation tells: its last feature is the "solo" flag.
    solo.reset(seed=0)
    trio.reset(seed=0)
    solo_obs = solo.driver.observe(0)["features"]
    trio_obs = trio.driver.observe(0)["features"]
    assert model_env_options(_fake_model(solo, solo_obs[None]))["colours"] == 4
    assert model_env_options(_fake_model(trio, trio_obs[None]))["players"] == 4


def test_make_env_for_model_errors(models):
    with pytest.raises(ValueError, match="the model fixes board_size=16; got board_size=32"):
        make_env_for_model(models["solo"], board_size=32)
    with pytest.raises(ValueError, match="model must be an SB3 model or policy"):
        model_env_options(
            SimpleNamespace(
                observation_space=gymnasium.spaces.Discrete(3),
                action_space=gymnasium.spaces.Discrete(3),
            )
        )
    bad = SimpleNamespace(
        observation_space=SoloEnv(board_size=8).observation_space,
        action_space=gymnasium.spaces.Discrete(7),
    )
    with pytest.raises(ValueError, match="no env of this package gives"):
        model_env_options(bad)


# --------------------------------------------------------------------------- issue 28 §4


def test_make_bot_refuses_a_spec_that_is_not_a_string_and_a_negative_seed():
    from carcassonne_env import make_bot

    with pytest.raises(
        TypeError,
        match=re.escape(
            "a bot spec is a string such as 'greedy' or 'mcts:iterations=400', got 123"
        ),
    ):
        make_bot(123)
    for name in ("heuristic", "random", "greedy", "mcts"):
        with pytest.raises(
            ValueError, match=re.escape("seed must be None or a non-negative integer, got -1")
        ):
            make_bot(name, seed=-1)
    assert make_bot("heuristic", seed=0).act(Game(seed=1)) in Game(seed=1).legal_moves()


@pytest.mark.parametrize("move", [None, "junk", 3, (1, 2), ()])
def test_game_play_says_a_move_is_expected(move):
    game = Game(seed=1)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "a move is a Move (from legal_moves(), or Move(x, y, rotation, follower=None, "
            f"tile=None, figure='follower')) or a tuple of its fields, got {move!r}"
        ),
    ):
        game.play(move)
    assert game.turn == 0
    game.play(tuple(game.legal_moves()[0]))  # a tuple of the fields still plays


def test_tiles_only_needs_expansions():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "expansion_mode='tiles_only' says how to play the tiles of expansions, but "
            "expansions names none"
        ),
    ):
        Rules(expansion_mode="tiles_only")
    assert Rules(expansions=("inns_cathedrals",), expansion_mode="tiles_only").expansions


def test_a_tile_order_may_hold_more_copies_than_the_deck():
    """Documented (Game docstring, docs/api.md): test positions need not be real deals."""
    game = Game(tile_order="A" * 20)
    assert game.tile_order() == ["A"] * 20
    assert "more than the deck holds" in Game.__doc__


@pytest.mark.parametrize(
    "make, key, own",
    [
        (
            lambda **kw: gymnasium.make("Carcassonne/Solo-v0", **kw),
            "reward",
            "SoloEnv got an unexpected keyword argument 'reward'; its parameters: colours, "
            "board_size, action_mode",
        ),
        (
            lambda **kw: gymnasium.make("Carcassonne/VsBots-v0", **kw),
            "rewards",
            "VsBotsEnv got an unexpected keyword argument 'rewards'; its parameters: opponents, "
            "seat, reward",
        ),
        (
            lambda **kw: carcassonne_v0.env(**kw),
            "rewards",
            "raw_env got an unexpected keyword argument 'rewards'; its parameters: rules, reward",
        ),
        (
            lambda **kw: SoloVectorEnv(num_envs=1, **kw),
            "reward",
            "SoloVectorEnv got an unexpected keyword argument 'reward'; its parameters: num_envs",
        ),
    ],
    ids=["Solo-v0", "VsBots-v0", "AEC", "SoloVectorEnv"],
)
def test_an_unknown_env_keyword_names_the_envs_own_parameters(make, key, own):
    """gym.make("Carcassonne/Solo-v0", reward=...) blamed Rules.__init__ (issue 28)."""
    with pytest.raises(TypeError) as err:
        make(**{key: "bogus"})
    message = str(err.value)
    assert own in message and "Rules.__init__" not in message
    assert "; Rules options: players, followers, small_city" in message
