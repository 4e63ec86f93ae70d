"""The OpenSpiel game `python_carcassonne` (carcassonne_env.openspiel) and the arena's
``openspiel:`` bots."""

import re
import sys
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

import carcassonne_env.openspiel as cos  # noqa: E402  (after the skip: registers the game)
from agents.arena import run_arena  # noqa: E402
from carcassonne_env import Game, Move, Rules, make_bot  # noqa: E402
from carcassonne_env.encoding import Encoder  # noqa: E402
from carcassonne_env.tiles import tileset_for  # noqa: E402
from tests.support.paths import ROOT  # noqa: E402

BOTH = {"inns_cathedrals": True, "traders_builders": True}
SOLO = {"variant": "solo", "players": 1, "returns": "score"}
STRATEGIC = r"^hand_size=3: the strategic variant \(hidden hands\) is not offered by the OpenSpiel"
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def _load(**params):
    return pyspiel.load_game("python_carcassonne", params)


def _sample(state, rng):
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(actions, p=probs))


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 3},
        {"players": 4},
        BOTH,
        {"players": 1, "returns": "score"},
        SOLO,
        {**SOLO, "solo_colours": 4, "scoring_order": "player"},
    ],
    ids=["2p", "3p", "4p", "both_expansions", "1p_score", "solo", "solo_4_player_order"],
)
def test_random_sim_test_passes(params):
    game = _load(**params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_info_follows_the_rules():
    game = _load(players=3, **BOTH)
    assert game.num_players() == 3
    assert game.max_chance_outcomes() == len(tileset_for(tuple(BOTH)).names)
    assert game.max_game_length() == 113  # 71 + 18 + 24 tiles after the start tile
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    scored = _load(returns="score")
    assert scored.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert scored.max_utility() == cos.score_bound(Rules(), 72)
    assert game.rules == Rules(players=3, expansions=tuple(BOTH))


@pytest.mark.parametrize("players", [2, 3])
def test_openspiel_mcts_plays_a_game_to_the_end(players):
    game = _load(players=players)
    rng = np.random.RandomState(players)
    bot = mcts.MCTSBot(game, 2.0, 3, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_sample(state, rng))
        else:
            state.apply_action(bot.step(state))
            decisions += 1
    assert decisions == len(state.game.moves_played) == state.game.turn
    assert state.game.done and state.game.tiles_left == 0
    scores = state.game.scores
    top = [s == max(scores) for s in scores]
    assert state.returns() == [1.0 / sum(top) if t else 0.0 for t in top]


def test_same_final_scores_as_game_for_the_same_seed_and_moves():
    played = Game(Rules(players=3), seed=52)
    order = played.tile_order()
    state = _load(players=3, seed=52).new_initial_state()
    names = tileset_for(()).names
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        while state.is_chance_node():  # the tile the package's game drew at this point
            left = len(order) if state.game is None else state.game.tiles_left
            state.apply_action(names.index(order[len(order) - left]))
        assert state.game.scores == played.scores
        assert state.game.current_tile == played.current_tile
        if played.done:
            break
        assert state.current_player() == played.current_player
        moves = played.legal_moves()
        move = moves[rng.integers(len(moves))]
        state.apply_action(state.action_of_move(move))
        played.play(move)
    assert state.is_terminal() and played.done
    assert played.discarded == state.game.discarded == ["C"]  # a redraw, not a chance node
    assert state.game.scores == played.scores
    assert state.game.moves_played == played.moves_played
    mirror = cos.mirror_state(played)
    assert mirror.is_terminal() and mirror.history() == state.history()
    assert mirror.returns() == state.returns()


def test_chance_outcomes_are_the_stack_counts():
    state = _load().new_initial_state()
    ts = tileset_for(())
    counts = Counter(ts.full_deck())
    first = state.chance_outcomes()
    assert [a for a, _ in first] == sorted(counts)
    assert first == [(t, counts[t] / 71) for t in sorted(counts)]
    assert sum(p for _, p in first) == pytest.approx(1.0)
    tile = ts.index("U")
    state.apply_action(tile)
    assert state.game.current_tile == "U" and state.game.tiles_left == 70
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()  # the move waits for its draw
    counts[tile] -= 1
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {t: c / 70 for t, c in counts.items() if c}
    assert sum(outcomes.values()) == pytest.approx(1.0)


def test_legal_actions_are_the_games_legal_moves():
    state = _load(**BOTH).new_initial_state()
    rng = np.random.RandomState(3)
    for _ in range(30):
        while state.is_chance_node():
            state.apply_action(_sample(state, rng))
        moves = state.game.legal_moves()
        assert state.legal_actions() == sorted(state.action_of_move(m) for m in moves)
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_the_action_window_holds_a_straight_line_of_the_whole_deck():
    # the widest board of a deck: every tile in one row, each move at its east end
    game, spiel_game = Game(Rules(), tile_order="U" * 71), _load()
    while not game.done:
        rows = game.legal_rows()
        actions = spiel_game.action_ids(game, rows)  # RuntimeError if one lay outside
        assert len(set(actions.tolist())) == len(rows)
        game.play(max(game.legal_moves(), key=lambda m: (m.y == 0, m.x)))
    assert game.bounding_box() == (0, 0, 71, 0)


def test_observations_are_the_encoders_and_the_information_state_the_history():
    game = _load(players=3, board_size=16)
    state = game.new_initial_state()
    assert state.observation_tensor(1) == [0.0] * game.observation_tensor_size()
    rng = np.random.RandomState(0)
    for _ in range(9):
        while state.is_chance_node():
            state.apply_action(_sample(state, rng))
        state.apply_action(state.legal_actions()[0])
    while state.is_chance_node():
        state.apply_action(_sample(state, rng))
    enc = Encoder(Rules(players=3), board_size=16)
    for seat in range(3):
        obs = enc.encode(state.game, seat, with_mask=False)
        want = np.concatenate([obs["board"].reshape(-1), obs["features"]])
        assert np.array_equal(np.array(state.observation_tensor(seat), np.float32), want)
        assert state.information_state_tensor(seat) == state.observation_tensor(seat)
        assert state.information_state_string(seat) == state.history_str()
        assert state.observation_string(seat) == str(state.game)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"hand_size": 3}, STRATEGIC),
        ({"variant": "solo"}, r"^the solo variant is played by players=1, got 2$"),
        ({"variant": "solo", "players": 1}, r"^players=1 \(a 1-player game\): returns="),
        ({"solo_colours": 4}, r"^solo_colours=4 is a solo-variant option"),
        ({"followers": -2}, r"^followers must be an integer in \[0, 99\], got -2$"),
        ({"players": 7}, r"^players must be an integer in \[1, 6\], got 7$"),
        ({"players": 1}, r"^players=1 \(a 1-player game\): returns='win_share' is 1 in"),
        ({"returns": "margin"}, r"^returns must be one of"),
        ({"farm_scoring": "meadow"}, r"^farm_scoring must be one of"),
        ({"board_size": 2}, r"^board_size must be an integer >= 3, got 2$"),
        ({"seed": -1}, r"^seed must be an integer >= 0, got -1$"),
    ],
)
def test_bad_parameters_raise_a_clear_error(params, message):
    with pytest.raises(ValueError, match=message):
        _load(**params)


def test_an_unknown_parameter_is_refused_by_openspiel():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'tiles'"):
        _load(tiles=3)


def test_an_openspiel_bot_plays_in_the_arena():
    spec = "openspiel:mcts:simulations=2"
    result = run_arena([spec, "greedy"], games=2, seed=3, progress=False)
    assert result.complete and len(result.rows) == 2
    for row in result.rows:
        assert sorted(row.bots) == sorted([spec, "greedy"])
        assert sum(row.moves) == 71  # every tile of the deck placed: full games
    agent = make_bot("openspiel:mcts:simulations=2:uct_c=1.5", seed=1)
    assert agent.name == "openspiel:mcts:simulations=2:uct_c=1.5"
    assert (agent.simulations, agent.uct_c) == (2, 1.5)
    game = Game(Rules(), seed=9)
    same = [make_bot("openspiel:mcts:simulations=3", seed=7).act(game) for _ in range(2)]
    assert same[0] == same[1] and same[0] in game.legal_moves()  # seeded: reproducible


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel", r"^unknown OpenSpiel bot in 'openspiel'; available: openspiel:mcts$"),
        ("openspiel:alphazero", r"^unknown OpenSpiel bot in 'openspiel:alphazero'"),
        ("openspiel:mcts:sims=3", r"^'openspiel:mcts:sims=3': .*unknown option 'sims'"),
        ("openspiel:mcts:simulations=0", r"simulations must be an integer in \[1, "),
    ],
)
def test_bad_openspiel_bot_specs_raise_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_rules_the_game_refuses_fail_in_the_bot():
    game = Game(Rules(hand_size=3), seed=0)
    with pytest.raises(ValueError, match=STRATEGIC):
        make_bot("openspiel:mcts").act(game)


def test_a_missing_open_spiel_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` fails
    monkeypatch.delitem(sys.modules, "carcassonne_env.openspiel")
    with pytest.raises(ImportError, match=r"needs open-spiel: pip install .*\[openspiel\]"):
        make_bot("openspiel:mcts")


def test_the_docs_example_runs(capsys):
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    found = [code for lang, code in FENCE.findall(text) if lang == "py" and "open_spiel" in code]
    assert len(found) == 1
    exec(compile(found[0], "docs/clients.md openspiel", "exec"), {})
    scores = r"\[\d+, \d+, \d+\]"
    share = r"(0\.0|1\.0|0\.5|0\.333\d*)"  # a win share of 3 seats
    returns = rf"\[{share}, {share}, {share}\]"
    assert re.fullmatch(f"{scores} {returns}\n", capsys.readouterr().out)


def test_the_solo_variant_is_a_one_player_game_with_the_games_result():
    rules = Rules(variant="solo", scoring_order="player")
    played = Game(rules, seed=4)
    spiel_game = _load(**SOLO, scoring_order="player", seed=4)
    assert spiel_game.num_players() == 1 and spiel_game.rules == rules
    state = spiel_game.new_initial_state()
    rng = np.random.default_rng(2)
    choices = 0
    while not played.done:
        while state.is_chance_node():
            state.apply_action(state.next_tile())  # the seed's stack, as `played` draws
        assert state.current_player() == 0 and state.game.scores == played.scores
        moves = played.legal_moves()
        move = moves[rng.integers(len(moves))]
        choices += played.decision != "place"
        state.apply_action(state.action_of_move(move))
        played.play(move)
    assert choices > 0  # scoring decisions were the player's
    replay = Game(rules, seed=4)
    for move in played.moves_played[:10]:
        replay.play(Move(**{k: v for k, v in move.items() if k not in ("player", "decision")}))
    bot = make_bot("openspiel:mcts:simulations=2", seed=0)
    assert bot.act(replay) in replay.legal_moves()
    with pytest.raises(ValueError, match=r"^the game is over: no move to pick$"):
        bot.act(played)
    assert state.is_terminal() and state.returns() == [float(played.result)]
    assert state.game.to_record() == played.to_record() | {"seed": None}
    assert cos.mirror_state(played).history() == state.history()


def test_solo_chance_outcomes_cover_every_colours_stack():
    state = _load(**SOLO).new_initial_state()
    rng = np.random.RandomState(1)
    for _ in range(5):  # colours 0, 1, 2, 0, 1 place
        while state.is_chance_node():
            state.apply_action(_sample(state, rng))
        state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()
    game = state.game
    ts = tileset_for(())
    left = Counter(ts.full_deck())
    drawn = [m["tile"] for m in game.moves_played] + [game.current_tile] + game.discarded
    left.subtract(ts.index(name) for name in drawn)  # placed, pending, discarded
    assert sum(left.values()) == game.tiles_left == 71 - len(drawn)
    assert dict(state.chance_outcomes()) == {t: c / game.tiles_left for t, c in left.items() if c}
