"""The solo variant with ``scoring_order="player"`` (docs/rules.md 6.5): the player orders
the scoring of the features one move completes and of the end bonus, as decisions of the
Game API and of the envs."""

from itertools import permutations

import numpy as np
import pytest

from carcassonne_env import Game, IllegalMoveError, Rules, make_bot
from carcassonne_env.bots.jitted_bots import JittedBot
from carcassonne_env.envs import SoloEnv

PLAYER = Rules(variant="solo", scoring_order="player")
# Heuristic games (bot seed = deal) whose moves complete two or more features holding
# followers at once: (deal, turn, options) as found by `_decisions`.
DEALS = range(0, 41)


def _decisions(deals=DEALS):
    """Every feature-order decision of heuristic games on `deals`: (deal, game clone)."""
    out = []
    for deal in deals:
        game = Game(PLAYER, seed=deal)
        bot = make_bot("heuristic", seed=deal)
        while not game.done:
            if game.decision == "score_feature":
                out.append((deal, game.clone()))
            game.play(bot.act(game))
    return out


@pytest.fixture(scope="module")
def decisions():
    found = _decisions()
    assert len(found) >= 10 and any(len(g.legal_moves()) >= 3 for _, g in found)
    return found


def _finish_turn(game, moves):
    """Play the choices `moves`, then (if the game ends) the end bonus as "auto" does;
    the value (lowest score, sum) the turn reached."""
    for m in moves:
        game.play(m)
    while game.decision == "score_follower":
        game.play(game.auto_scoring_move())
    return min(game.scores), sum(game.scores)


def test_rules_refuse_bad_scoring_orders():
    with pytest.raises(ValueError, match="scoring_order must be one of"):
        Rules(variant="solo", scoring_order="best")
    with pytest.raises(ValueError, match="scoring_order='player' is a solo-variant option"):
        Rules(scoring_order="player")
    assert Rules.from_dict(PLAYER.to_dict()) == PLAYER


def test_auto_choice_reaches_the_best_of_every_order(decisions):
    """At each decision, the auto choices reach the best (lowest, sum) over every order
    of the pending features: what `scoring_order="auto"` takes, checked by enumeration."""
    for deal, game in decisions:
        choices = game.legal_moves()
        turn = game.turn
        values = {}
        for order in permutations(choices):
            g = game.clone()
            values[order] = _finish_turn(g, order[:-1])  # the last one scores by itself
            assert g.decision != "score_feature" and (g.done or g.turn == turn + 1)
        g = game.clone()
        while g.decision == "score_feature":
            g.play(g.auto_scoring_move())
        assert _finish_turn(g, []) == max(values.values()), (deal, turn, values)


def test_a_decision_lists_one_follower_per_pending_feature(decisions):
    for _, game in decisions:
        choices = game.scoring_choices()
        assert [c.move for c in choices] == game.legal_moves()
        assert game.current_tile is None and game.hand == []
        roots = set()
        for c in choices:
            assert c.kind in ("road", "city", "monastery") and c.majority and c.points > 0
            placed = game.board[(c.move.x, c.move.y)]
            assert placed.rotation == c.move.rotation
            assert placed.follower[1] == c.move.follower
            assert (c.move.x, c.move.y) in c.tiles
            roots.add(c.tiles)
        assert len(roots) == len(choices)  # one option per feature


def test_illegal_choices_are_refused_and_change_nothing(decisions):
    _, game = decisions[0]
    before = game.to_record()
    choice = game.legal_moves()[0]
    with pytest.raises(
        IllegalMoveError,
        match=r"score_feature decision: no follower "
        r"awaiting scoring stands at .* the choices: \[Move\(",
    ):
        game.play(choice._replace(follower=None))
    bad = choice._replace(x=choice.x + 40)
    with pytest.raises(IllegalMoveError, match="score_feature decision"):
        game.play(bad)
    assert game.to_record() == before
    with pytest.raises(ValueError, match="no scoring decision now"):
        Game(PLAYER, seed=0).auto_scoring_move()


def test_auto_choices_play_exactly_the_auto_rules():
    """Heuristic games under "player" (the built-in bots take the auto choice) equal the
    same games under "auto": scores, end and scoring events."""
    for deal in range(0, 41, 4):
        out = []
        for rules in (Rules(variant="solo"), PLAYER):
            game = Game(rules, seed=deal)
            bot = make_bot("heuristic", seed=deal)
            while not game.done:
                game.play(bot.act(game))
            out.append((game.scores, game.end_reason, game.events))
        assert out[0] == out[1], deal


def test_every_choice_order_replays_from_its_record(decisions):
    deal, game = next((d, g) for d, g in decisions if len(g.legal_moves()) >= 2)
    rng = np.random.default_rng(0)
    while not game.done:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    record = game.to_record()
    kinds = {m.get("decision") for m in record["moves"]}
    assert {"score_feature", None} <= kinds
    again = Game.from_record(record)
    assert again.scores == game.scores and again.events == game.events


def test_the_end_bonus_is_the_players_choice():
    """Random play until an end-bonus decision with a follower of a colour that is not
    lowest: scoring it gives 0 points (logged), scoring a lowest colour's gives 2."""
    rng = np.random.default_rng(1)
    for deal in range(200):
        game = Game(PLAYER, seed=deal)
        while game.decision == "place":
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
        if game.decision != "score_follower":
            continue
        low = min(game.scores)
        choices = game.scoring_choices()
        idle = [c for c in choices if game.scores[c.majority[0]] != low]
        paying = [c for c in choices if game.scores[c.majority[0]] == low]
        assert paying  # a decision is asked only while a follower can score
        if not idle:
            continue
        assert game.end_reason in ("A", "B") and not game.done
        n_events = len(game.events)
        before = game.scores
        game.play(idle[0].move)
        assert game.scores == before
        event = game.events[n_events]
        assert (event.kind, event.points, event.scorers, event.final) == ("follower", 0, (), True)
        while not game.done:
            game.play(game.legal_moves()[0])
        return
    pytest.fail("no end-bonus decision with a non-lowest colour's follower in 200 deals")


def test_jitted_bots_take_the_python_bots_choices():
    for spec in ("greedy", "heuristic", "random"):
        for deal in (1, 38):
            game = Game(PLAYER, seed=deal)
            python_bot, jitted = make_bot(spec, seed=deal), JittedBot(spec, deal)
            while not game.done:
                move = python_bot.act(game)
                assert jitted.act(game) == move, (spec, deal, game.turn)
                game.play(move)


def test_solo_env_masks_exactly_the_choices(decisions):
    deal, _ = decisions[0]
    env = SoloEnv(board_size=24, scoring_order="player")
    obs, info = env.reset(seed=deal)
    bot = make_bot("heuristic", seed=deal)
    enc = env.unwrapped.driver.encoder
    game = env.unwrapped.game
    while game.decision != "score_feature":
        obs, _, done, _, info = env.step(enc.move_to_action(game, bot.act(game)))
        assert not done
    actions = sorted(enc.move_to_action(game, m) for m in game.legal_moves())
    assert np.flatnonzero(info["action_mask"]).tolist() == actions
    for a in actions[:-1]:
        assert enc.action_to_move(game, a) in game.legal_moves()
    low = min(game.scores)
    obs, reward, _, _, info = env.step(actions[0])
    assert "illegal_move" not in info and reward == min(game.scores) - low


def test_the_replay_viewer_shows_scoring_choices():
    from carcassonne_env.viewer import view_data, view_html

    game = Game(PLAYER, seed=38)
    bot = make_bot("heuristic", seed=38)
    while not game.done:
        game.play(bot.act(game))
    record = game.to_record()
    data = view_data(record)
    marked = [t["decision"] for t in data["turns"] if "decision" in t]
    assert len(data["turns"]) == len(record["moves"])
    assert marked == [m["decision"] for m in record["moves"] if "decision" in m]
    assert "score_feature" in marked and data["result"] == game.result
    assert "the scoring order" in view_html(record)


def test_the_order_decides_who_scores_on_deal_18():
    """Deal 18, heuristic play: move 24 completes a city of colour 1 (8 points) and a road
    of colour 0 (4 points) with scores 5, 6, 7. City first: colour 1 is not lowest and
    scores nothing, then the road lifts colour 0 to 9 -> 9, 6, 7. Road first: colour 0
    (lowest) scores 4 -> 9, 6, 7, which makes colour 1 lowest, so the city scores 8 ->
    9, 14, 7. With two features one choice ends the turn. "auto" takes the road first
    (lowest 7 rather than 6)."""
    game = Game(PLAYER, seed=18)
    bot = make_bot("heuristic", seed=18)
    while game.decision == "place":
        game.play(bot.act(game))
    assert (game.turn, game.scores) == (24, [5, 6, 7])
    city, road = game.scoring_choices()
    assert (city.kind, city.points, city.majority) == ("city", 8, (1,))
    assert (road.kind, road.points, road.majority) == ("road", 4, (0,))
    first_city, first_road = game.clone(), game.clone()
    first_city.play(city.move)  # the road, left alone, then scores by itself
    assert first_city.scores == [9, 6, 7] and first_city.turn == 25
    first_road.play(road.move)
    assert first_road.scores == [9, 14, 7] and first_road.turn == 25
    assert game.auto_scoring_move() == road.move


def test_search_bots_play_the_forced_move_without_searching():
    """`forced_move`: at a scoring decision the auto order's choice, at a placement with
    one legal move that move, else None (the search bots then search)."""
    from carcassonne_env.bots.base import forced_move

    found = _decisions(range(0, 8))  # fresh games: the module's fixture is shared
    assert found
    _, game = found[0]
    assert forced_move(game) == game.auto_scoring_move()
    assert make_bot("solo-search", seed=0).act(game) == game.auto_scoring_move()
    placing = Game(PLAYER, seed=0)
    assert len(placing.legal_moves()) > 1 and forced_move(placing) is None
