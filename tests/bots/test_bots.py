"""Built-in bots: legality in every rule set, seeding, options, the search internals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import Agent, registry
from agents.mcts import MCTSAgent
from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.bots.heuristic import DEFAULT_WEIGHTS, HeuristicAgent

RULE_SETS = {
    "2p": Rules(),
    "3p-small-city-1st-ed-farms": Rules(players=3, small_city=True, farm_scoring="city"),
    "strategic": Rules(players=2, hand_size=3),
    "solo": Rules(variant="solo"),
    "solo-4": Rules(variant="solo", solo_colours=4),
}
FAST_BOTS = [
    "random",
    "greedy",
    "heuristic",
    "mcts:iterations=30",
    "mcts:iterations=10:depth=1:top_k=3",
]


def play(rules: Rules, specs: list[str], seed: int) -> Game:
    """One game where seat s (solo: every turn) is played by specs[s]; every move is
    checked against the legal move list."""
    bots = [make_bot(spec, seed=seed + k) for k, spec in enumerate(specs)]
    game = Game(rules, seed=seed)
    while not game.done:
        bot = bots[0] if rules.variant == "solo" else bots[game.current_player]
        move = bot.act(game)
        assert move in game.legal_moves()
        game.play(move)
    return game


@pytest.mark.parametrize("rules", RULE_SETS.values(), ids=RULE_SETS.keys())
@pytest.mark.parametrize("spec", FAST_BOTS)
def test_bots_play_legal_moves_to_the_end(rules, spec):
    specs = [spec] * (1 if rules.variant == "solo" else rules.players)
    game = play(rules, specs, seed=3)
    assert game.done


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "mcts:iterations=40"])
def test_same_seed_same_game(spec):
    a = play(Rules(), [spec, "random"], seed=11).to_record()
    b = play(Rules(), [spec, "random"], seed=11).to_record()
    assert a == b


def test_bots_follow_the_protocol_and_registry():
    for name, cls in registry().items():
        assert isinstance(cls.name, str) and cls.name == name
    for spec in ("random", "greedy", "heuristic", "mcts"):
        assert isinstance(make_bot(spec, seed=0), Agent)


def test_make_bot_options():
    bot = make_bot("mcts:iterations=25:c=0.5:depth=1", seed=0)
    assert (bot.iterations, bot.c, bot.depth, bot.name) == (
        25,
        0.5,
        1,
        "mcts:iterations=25:c=0.5:depth=1",
    )
    assert make_bot("heuristic:follower=4", seed=0).weights["follower"] == 4.0
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("alphazero")
    with pytest.raises(ValueError, match="not key=value"):
        make_bot("mcts:iterations")
    with pytest.raises(ValueError, match="bad options"):
        make_bot("mcts:budget=3")
    with pytest.raises(ValueError, match="bad options"):
        make_bot("heuristic:speed=3")
    with pytest.raises(ValueError, match="iterations"):
        make_bot("mcts:iterations=0")
    with pytest.raises(ValueError, match="depth"):
        make_bot("mcts:depth=-2")


# Every built-in bot's spec options and the type each is read as (from the constructors).
SPEC_OPTIONS = {
    "random": {},
    "greedy": {},
    "heuristic": {"follower": float, "farm": float},
    "mcts": {
        "iterations": int,
        "c": float,
        "trees": int,
        "threads": int,
        "depth": int,
        "top_k": int,
        "margin_scale": float,
        "solo_scale": float,
        "follower": float,
    },
    "sb3": {"model": Any, "board_size": int, "action_mode": str, "deterministic": bool},
}
UNFIT = {int: ["1.5", "x", "", "true"], float: ["x", "", "1,5"], bool: ["yes", "2", ""]}


@pytest.mark.parametrize("name", sorted(SPEC_OPTIONS))
def test_spec_options_are_typed_from_the_constructors(name):
    from agents.catalog import agent_class
    from carcassonne_env.bots.factory import option_type

    for key, kind in SPEC_OPTIONS[name].items():
        assert option_type(agent_class(name), key) == kind, key
    assert option_type(agent_class(name), "no_such_option") in (None, float)  # **weights


@pytest.mark.parametrize("name", sorted(SPEC_OPTIONS))
def test_spec_values_that_do_not_fit_are_refused_naming_the_option(name):
    for key, kind in SPEC_OPTIONS[name].items():
        for text in UNFIT.get(kind, []):
            with pytest.raises(ValueError, match=f"bad options for bot '{name}'.*option '{key}'"):
                make_bot(f"{name}:{key}={text}")
    if name in ("random", "greedy"):
        with pytest.raises(ValueError, match="unknown option 'depth'"):
            make_bot(f"{name}:depth=1")
    with pytest.raises(ValueError, match="seeded by the caller"):
        make_bot(f"{name}:seed=3")


def test_spec_values_take_their_option_type():
    bot = make_bot("mcts:iterations=25:c=1:margin_scale=5:follower=2", seed=0)
    assert (bot.iterations, bot.c, bot.margin_scale) == (25, 1.0, 5.0)
    assert type(bot.c) is float and type(bot.iterations) is int
    assert make_bot("heuristic:follower=4").weights["follower"] == 4.0


def test_sb3_spec_booleans(tmp_path, one_torch_thread):
    """`deterministic=False` samples (the string 'False' used to be truthy)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from carcassonne_env.envs import SoloEnv
    from carcassonne_env.model_file import save_model

    save_model(
        sb3_contrib.MaskablePPO(
            "MultiInputPolicy", SoloEnv(board_size=4), n_steps=16, batch_size=16, device="cpu"
        ),
        tmp_path / "m.zip",
    )
    spec = f"sb3:model={tmp_path / 'm.zip'}"
    for text, value in [
        ("False", False),
        ("false", False),
        ("FALSE", False),
        ("0", False),
        ("True", True),
        ("true", True),
        ("1", True),
    ]:
        bot = make_bot(f"{spec}:deterministic={text}")
        assert bot.deterministic is value, text
    bot = make_bot(f"{spec}:board_size=4:action_mode=turn")
    assert (bot.board_size, bot.action_mode) == (4, "turn")


def test_heuristic_values_one_per_legal_move_and_prefers_scoring():
    # Tile order: the start tile's city is closed by the first tile (a 2-tile city).
    game = Game(tile_order="E" * 5)
    bot = HeuristicAgent(seed=0)
    moves, values = bot.move_values(game)
    assert len(moves) == len(values) == len(game.legal_moves())
    best = moves[int(np.argmax(values))]
    after = game.clone()
    after.play(best)
    assert after.scores[0] == 4  # closing the start city with a knight: 4 points


def test_heuristic_weights_change_play():
    assert set(HeuristicAgent(seed=0).weights) == set(DEFAULT_WEIGHTS)
    a = play(Rules(), ["heuristic", "random"], seed=5).to_record()
    b = play(Rules(), ["heuristic:follower=0:farm=5", "random"], seed=5).to_record()
    assert a["moves"] != b["moves"]


def test_mcts_root_statistics_cover_the_root_moves():
    game = Game(seed=2)
    bot = MCTSAgent(seed=1, iterations=300, depth=-1, top_k=0)  # plain ISMCTS
    bot.act(game)
    rows = {tuple(r) for r in game.legal_rows().tolist()}
    assert set(bot.last_stats) == rows  # 300 iterations expand every root move
    assert sum(v for v, _ in bot.last_stats.values()) == 300
    assert all(0.0 <= mean <= 1.0 for _, mean in bot.last_stats.values())


def test_mcts_top_k_prunes_to_the_heuristics_best():
    game = Game(seed=4)
    for _ in range(6):
        game.play(make_bot("heuristic", seed=0).act(game))
    bot = MCTSAgent(seed=1, iterations=50, top_k=3, depth=0)
    bot.act(game)
    _, values = HeuristicAgent(seed=0).move_values(game)
    rows = game.legal_rows().tolist()
    best3 = {tuple(rows[i]) for i in np.argsort(-values, kind="stable")[:3]}
    assert set(bot.last_stats) == best3


def test_mcts_trees_threads_do_not_change_the_result():
    game = Game(seed=6)
    one = MCTSAgent(seed=9, iterations=60, trees=3, threads=1)
    many = MCTSAgent(seed=9, iterations=60, trees=3, threads=3)
    assert one.act(game) == many.act(game)
    assert one.last_stats == many.last_stats
    assert sum(v for v, _ in one.last_stats.values()) == 180


def test_solo_bots_aim_at_the_lowest_colour():
    # Over a few deals the heuristic's result (lowest colour) beats random's.
    rules = Rules(variant="solo")
    heur = [play(rules, ["heuristic"], seed=s).result for s in range(6)]
    rand = [play(rules, ["random"], seed=s).result for s in range(6)]
    assert np.mean(heur) > np.mean(rand)


@pytest.mark.parametrize(
    "env_kwargs",
    [
        {"env_id": "Carcassonne/Solo-v0", "board_size": 16},
        {"env_id": "Carcassonne/VsBots-v0", "board_size": 16, "action_mode": "two_step"},
    ],
)
@pytest.mark.filterwarnings("ignore::carcassonne_env.encoding.WindowOverflowWarning")
def test_sb3_agent_plays_a_policy_legally(env_kwargs, tmp_path, one_torch_thread):
    gymnasium = pytest.importorskip("gymnasium")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env_kwargs = dict(env_kwargs)
    env = gymnasium.make(env_kwargs.pop("env_id"), **env_kwargs)
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu"
    )
    from carcassonne_env.model_file import save_model

    save_model(model, tmp_path / "policy.zip")  # (with the description it loads by)
    bot = make_bot(f"sb3:model={tmp_path / 'policy.zip'}", seed=0)
    assert bot.board_size == 16
    rules = env.unwrapped.driver.encoder.rules
    game = play(rules, [bot.name] * (1 if rules.variant == "solo" else rules.players), 2)
    assert game.done
    # Deterministic play: the same policy picks the same moves.
    again = play(rules, [bot.name] * (1 if rules.variant == "solo" else rules.players), 2)
    assert again.to_record() == game.to_record()


def test_sb3_agent_falls_back_when_nothing_fits_its_window(one_torch_thread):
    """A 4-cell window soon shows no legal move: the bot then plays a random legal move
    (counted, one warning) instead of failing the game; the moves its window leaves out
    before that are no warning."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.sb3_policy import SB3Agent
    from carcassonne_env.encoding import WindowOverflowWarning
    from carcassonne_env.envs import VsBotsEnv

    env = VsBotsEnv(board_size=4)
    bot = SB3Agent(
        sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=16, seed=0, device="cpu"), seed=0
    )
    game = Game(Rules(), seed=4)
    with pytest.warns(WindowOverflowWarning) as caught:
        while not game.done:
            game.play(bot.act(game))  # raises on an illegal move
    assert bot.fallbacks > 0
    # one warning: moves outside the model's window are masked out as in its training
    assert ["random legal move" in str(w.message) for w in caught] == [True]


def test_sb3_agent_rejects_a_model_for_other_rules(one_torch_thread):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.sb3_policy import SB3Agent
    from carcassonne_env.envs import SoloEnv

    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", SoloEnv(board_size=8), n_steps=16, batch_size=16, device="cpu"
    )
    # 3 seats: the spaces alone fit 3 colours solo and 3 players; the message names both
    with pytest.raises(
        ValueError,
        match=r"rules differ: variant='solo', players=1, "
        r"solo_colours=3 or players=3 \(model: its spaces fit both\) vs "
        r"variant='standard', players=2, solo_colours=None \(this game\)",
    ):
        SB3Agent(model).act(Game(Rules()))
    model.carcassonne_solo = True  # what the training scripts write
    with pytest.raises(
        ValueError,
        match=r"rules differ: variant='solo' \(model\) vs "
        r"'standard' \(this game\); players=1 \(model\) vs 2 \(this game\)",
    ):
        SB3Agent(model).act(Game(Rules()))
    with pytest.raises(FileNotFoundError):
        make_bot("sb3:model=/nonexistent/policy.zip")


@pytest.mark.slow
def test_ladder_heuristic_beats_greedy_and_mcts_beats_heuristic():
    """The strength ladder at the published budgets (README), 100 paired games each."""
    from agents.arena import run_arena

    for strong, weak in (("heuristic", "greedy"), ("mcts", "heuristic")):
        res = run_arena([strong, weak], games=100, seed=1, workers=2, progress=False)
        row = {s.bot: s for s in res.leaderboard}[strong]
        assert row.win_lo > 0.5, (strong, weak, row)
