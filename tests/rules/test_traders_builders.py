"""Traders & Builders in full mode (docs/rules.md 7.7-7.9): trade goods, the
builder's extra turn, the pig; scenarios on fixed tile orders with exact scores worked
out by hand, errors, records, envs and pictures.

Coordinates: the start tile D lies at (0, 0) turned 0 (city N, road W-E, fields N of the
road (touching the city) and S); x grows east, y south. Base tiles by letter, Traders &
Builders tiles "T" + letter (TT: diagonal city N+W with wine; TW: diagonal city N+W with
wine and a road from E)."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env import Game, IllegalMoveError, Move, Rules
from tests.support.scenarios import assert_figures_conserved

TB = "traders_builders"
FULL = Rules(expansions=[TB])


def _game(tiles: list[str], rules: Rules = FULL) -> Game:
    return Game(rules, tile_order=tiles)


def test_goods_go_to_the_player_who_completes_the_city():
    """Seat 0 claims the city of D + TT (wine) + a cap; seat 1 places the cap: seat 0
    scores the city (3 tiles: 6), seat 1 takes the wine and its 10 points at the end."""
    game = _game(["TT", "E"])
    game.play(Move(0, -1, 2, "city:E"))
    game.play(Move(1, -1, 3))
    assert game.goods == [{"wine": 0, "grain": 0, "cloth": 0}, {"wine": 1, "grain": 0, "cloth": 0}]
    assert game.done and game.scores == [6, 10]
    goods = [e for e in game.events if e.kind == "goods"]
    assert [(e.detail, e.points, e.scorers, e.tiles) for e in goods] == [("wine", 10, (1,), ())]
    tiles_only = _game(["TT", "E"], Rules(expansions=[TB], expansion_mode="tiles_only"))
    tiles_only.play(Move(0, -1, 2, "city:E"))
    tiles_only.play(Move(1, -1, 3))
    assert tiles_only.scores == [6, 0] and tiles_only.goods[1]["wine"] == 0


def test_tied_goods_majorities_all_score():
    """City A (D, TT, cap) completed by seat 1, city B (cap, TW, cap) south of D by seat
    0: one wine each, no follower anywhere: 10 points each."""
    game = _game(["TT", "E", "E", "TW", "E"])
    for move in (Move(0, -1, 2), Move(1, -1, 3), Move(0, 1, 2), Move(0, 2, 0), Move(-1, 2, 1)):
        game.play(move)
    assert [g["wine"] for g in game.goods] == [1, 1]
    assert game.done and game.scores == [10, 10]


@pytest.mark.parametrize(
    ("unowned", "goods", "scores"),
    [
        (True, [{"wine": 1, "grain": 0, "cloth": 0}] * 2, [10, 10]),  # rulebook
        (False, [{"wine": 0, "grain": 0, "cloth": 0}] * 2, [0, 0]),  # BGA
    ],
)
def test_goods_of_cities_nobody_owns_follow_the_rules_option(unowned, goods, scores):
    """The two cities of the tied game above, each completed without a follower on it:
    the completers take the wine by the rulebook, nothing with BGA's behaviour."""
    rules = Rules(expansions=[TB], goods_from_unowned_city=unowned)
    game = _game(["TT", "E", "E", "TW", "E"], rules)
    for move in (Move(0, -1, 2), Move(1, -1, 3), Move(0, 1, 2), Move(0, 2, 0), Move(-1, 2, 1)):
        game.play(move)
    assert game.done and game.goods == goods and game.scores == scores
    assert len([e for e in game.events if e.kind == "goods"]) == (1 if unowned else 0)
    record = game.to_record()
    assert record["rules"].get("goods_from_unowned_city", True) is unowned
    assert Game.from_record(record).goods == goods


@pytest.mark.parametrize("unowned", [True, False])
def test_goods_of_an_owned_city_go_to_the_completer_either_way(unowned):
    """Seat 0 owns the wine city, seat 1 completes it: seat 1 takes the wine with both
    settings (BGA withholds goods only when nobody owns the city)."""
    game = _game(["TT", "E"], Rules(expansions=[TB], goods_from_unowned_city=unowned))
    game.play(Move(0, -1, 2, "city:E"))
    game.play(Move(1, -1, 3))
    assert game.goods[1] == {"wine": 1, "grain": 0, "cloth": 0}
    assert game.done and game.scores == [6, 10]


def test_a_follower_placed_by_the_completing_tile_makes_the_city_owned():
    """BGA's setting: seat 1 completes the wine city and puts a follower on it with the
    same tile: the city has an owner, so seat 1 takes the wine (and scores the city)."""
    game = _game(["TT", "E"], Rules(expansions=[TB], goods_from_unowned_city=False))
    game.play(Move(0, -1, 2))
    game.play(Move(1, -1, 3, "city:W"))
    assert game.goods[1] == {"wine": 1, "grain": 0, "cloth": 0}
    assert game.done and game.scores == [0, 16]


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"expansions": [TB], "expansion_mode": "tiles_only"},
        {"variant": "solo", "expansions": [TB]},
    ],
    ids=str,
)
def test_goods_from_unowned_city_is_refused_where_it_would_be_ignored(rules):
    with pytest.raises(
        ValueError,
        match="goods_from_unowned_city=False changes only the trade goods of Traders & Builders",
    ):
        Rules(goods_from_unowned_city=False, **rules)
    with pytest.raises(ValueError, match="goods_from_unowned_city must be True or False"):
        Rules(expansions=[TB], goods_from_unowned_city=0)


# A road W-E through D: seat 0's follower on U east of D, its builder on the next U, then
# seat 0 extends the road again (an extra turn) and again in that extra turn (no chain);
# monastery stubs A close both ends.
_BUILDER = ["U", "B", "U", "B", "U", "U", "A", "A", "B"]


def test_the_builder_gives_one_extra_turn_never_a_chain():
    game = _game(_BUILDER)
    game.play(Move(1, 0, 0, "road:E"))
    assert not [m for m in game.legal_moves() if m.figure == "builder"]  # not seat 1's road
    game.play(Move(0, 1, 0))
    assert [m for m in game.legal_moves() if m.figure == "builder"]
    game.play(Move(2, 0, 0, "road:E", figure="builder"))
    assert game.board[(2, 0)].figure == "builder"
    assert game.figures_in_supply[0] == {"follower": 6, "builder": 0, "pig": 1}
    game.play(Move(1, 1, 0))
    game.play(Move(3, 0, 0))  # extends the builder's road
    assert game.current_player == 0  # the extra turn
    game.play(Move(4, 0, 0))  # extends it again during the extra turn: no second one
    assert game.current_player == 1
    assert [m["player"] for m in game.to_record()["moves"]] == [0, 1, 0, 1, 0, 0]
    game.play(Move(-1, 0, 3))
    game.play(Move(5, 0, 1))  # completes the road (7 tiles): the builder counts for none
    assert game.scores == [7, 0]
    assert game.figures_in_supply[0] == {"follower": 7, "builder": 1, "pig": 1}
    assert game.current_player == 0  # completing the builder's road extends it too
    game.play(Move(2, 1, 0))
    assert game.done and game.scores == [7, 0]
    record = game.to_record()
    assert record["moves"][2]["figure"] == "builder"
    assert [m["player"] for m in record["moves"]] == [0, 1, 0, 1, 0, 0, 1, 0, 0]
    assert Game.from_record(record).scores == [7, 0]


@pytest.mark.parametrize(("pig", "scores"), [(True, [4, 0]), (False, [3, 0])])
def test_a_pig_adds_one_point_per_city_to_its_owners_farm(pig, scores):
    """Seat 0's farmer on U east of D (the field north of the road, touching D's city),
    its pig on the next U in the same field; seat 1 completes D's city with a cap."""
    game = _game(["U", "B", "U", "E"])
    game.play(Move(1, 0, 0, "field:N_w"))
    game.play(Move(0, 1, 0))
    game.play(Move(2, 0, 0, "field:N_w", figure="pig") if pig else Move(2, 0, 0))
    game.play(Move(0, -1, 2))
    assert game.done and game.scores == scores
    (farm,) = [e for e in game.events if e.kind == "field"]
    assert (farm.points, farm.detail) == ((4, "pig") if pig else (3, None))


def test_builder_and_pig_need_the_players_own_follower():
    game = _game(["U", "U", "U"])
    figures = {m.figure for m in game.legal_moves()}
    assert figures == {"follower"}  # nothing of seat 0's to join yet
    with pytest.raises(
        IllegalMoveError, match="a builder goes where seat 0 already has a follower"
    ):
        game.play(Move(1, 0, 0, "road:E", figure="builder"))
    game.play(Move(1, 0, 0, "field:N_w"))
    game.play(Move(-1, 0, 0))
    pig = [m for m in game.legal_moves() if m.figure == "pig"]
    assert pig and all(m.follower.startswith("field") for m in pig)
    with pytest.raises(
        IllegalMoveError,
        match=r"figure must be one of .* \(builder and pig "
        "come with Traders & Builders",
    ):
        Game(Rules(), seed=0).play(Move(1, 0, 0, "road:E", figure="pig"))


def test_solo_with_traders_builders_has_no_goods_builder_or_pig():
    rules = Rules(variant="solo", expansions=[TB])
    assert rules.figures == ("follower",)
    game = Game(rules, seed=3)
    rng = np.random.default_rng(0)
    while not game.done:
        moves = game.legal_moves()
        assert {m.figure for m in moves} == {"follower"}
        game.play(moves[int(rng.integers(len(moves)))])
    assert all(sum(g.values()) == 0 for g in game.goods)
    assert not [e for e in game.events if e.kind == "goods"]


OPTIONS = [
    {},
    {"players": 3},
    {"hand_size": 3},
    {"farm_scoring": "city"},
    {"players": 5, "followers": 4},
]


@pytest.mark.parametrize("expansions", [[TB], ["inns_cathedrals", TB]], ids=str)
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_random_full_games_keep_their_invariants_and_replay(expansions, options):
    """Figures conserved (supply + board = the start), scores never decrease, goods only
    grow, extra turns only after a builder's road or city grew, records replay."""
    rules = Rules(expansions=expansions, **options)
    rng = np.random.default_rng(11)
    extra_turns = 0
    for seed in range(5):
        game = Game(rules, seed=seed)
        start = game.figures_in_supply
        while not game.done:
            moves = game.legal_moves()
            special = [m for m in moves if m.figure != "follower"]
            pick = special if special and rng.random() < 0.7 else moves
            seat, before, goods = game.current_player, game.scores, game.goods
            game.play(pick[int(rng.integers(len(pick)))])
            assert all(b >= a for a, b in zip(before, game.scores, strict=True))
            for old, new in zip(goods, game.goods, strict=True):
                assert all(new[k] >= old[k] for k in old)
            if game.done:
                break
            extra_turns += game.current_player == seat and rules.players > 1
            assert_figures_conserved(game, start)
        again = Game.from_record(game.to_record())
        assert again.scores == game.scores and again.events == game.events
    assert extra_turns > 0


def test_env_actions_planes_and_features_of_traders_builders():
    from carcassonne_env.encoding import Encoder

    rules = Rules(expansions=["inns_cathedrals", TB])
    enc = Encoder(rules, 24)
    assert enc.slots == 1 + 4 * enc.tileset.max_segments
    assert enc.plane_names[-5:] == ["goods_wine", "goods_grain", "goods_cloth", "builder", "pig"]
    assert {"builder_supply_1", "pig_supply_0", "goods_cloth_1", "extra_turn"} <= set(
        enc.feature_names
    )
    only_tb = Encoder(Rules(expansions=[TB]), 24)
    assert only_tb.slots == 1 + 4 * only_tb.tileset.max_segments  # figure ids, not count
    game = Game(rules, seed=4)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs = enc.encode(game, game.current_player)
        actions = {enc.move_to_action(game, m): m for m in game.legal_moves()}
        assert sorted(actions) == np.flatnonzero(obs["action_mask"]).tolist()
        for a, m in actions.items():
            assert enc.action_to_move(game, a) == m
        special = [m for m in actions.values() if m.figure in ("builder", "pig")]
        moves = special or list(actions.values())
        game.play(moves[int(rng.integers(len(moves)))])
    names = enc.plane_names
    board = enc.encode(game, 0)["board"]
    for figure in ("builder", "pig"):
        placed = [xy for xy, p in game.board.items() if p.figure == figure]
        assert bool(board[..., names.index(figure)].any()) == bool(placed)


def test_pictures_show_goods_builder_and_pig():
    from carcassonne_env.rendering.image import render_rgb
    from carcassonne_env.rendering.palette import GOODS_COLOURS, SEAT_COLOURS, SNOUT
    from carcassonne_env.rendering.tile_pictures import tile_raster

    ts = Game(FULL, seed=0).tileset
    for name, good in (("TT", "wine"), ("TG", "grain"), ("TK", "cloth")):
        img = tile_raster(ts, ts.index(name), 1, 48)
        assert (img == GOODS_COLOURS[good]).all(-1).sum() > 15, name
    game = _game(["U", "B", "U", "U"])
    game.play(Move(1, 0, 0, "field:N_w"))
    game.play(Move(0, 1, 0))
    game.play(Move(2, 0, 0, "field:N_w", figure="pig"))
    img = render_rgb(game, cell=48, show_scores=False)
    assert (img == SNOUT).all(-1).sum() > 10
    game = _game(_BUILDER)
    game.play(Move(1, 0, 0, "road:E"))
    game.play(Move(0, 1, 0))
    before = (render_rgb(game, cell=48) == SEAT_COLOURS[0]).all(-1).sum()
    game.play(Move(2, 0, 0, "road:E", figure="builder"))
    after = (render_rgb(game, cell=48) == SEAT_COLOURS[0]).all(-1).sum()
    assert after > before
    text = str(game)
    assert "A" in text.splitlines()[2] and "builder [0, 1]" in text


def test_bench_reports_the_expansions_beside_the_base_game():
    from benchmarks.targets import TARGETS
    from carcassonne_env.speed import EXPANSION_RULES, bench_expansions

    results = bench_expansions(games=4, steps=8, repeats=1)
    for label in EXPANSION_RULES:
        for measure in ("playout decisions", "AEC env steps"):
            key = f"{measure} ratio to base ({label})"
            assert results[key] > 0 and TARGETS[key] == 0.67


def test_the_bridge_keeps_its_two_roads_apart():
    """TB east of the start tile: seat 0's follower on its N-S road; seat 1 can still
    claim the W-E road (through the bridge) with U; closed by monastery stubs it scores
    5 tiles for seat 1 alone; seat 0's N-S road (1 tile, open) scores 1 at the end."""
    game = _game(["TB", "U", "A", "A"])
    game.play(Move(1, 0, 0, "road:N"))
    game.play(Move(2, 0, 0, "road:E"))  # legal: the W-E road holds no follower
    game.play(Move(-1, 0, 3))
    game.play(Move(3, 0, 1))
    assert game.done and game.scores == [1, 5]
    roads = sorted((e.points, e.scorers, len(e.tiles)) for e in game.events if e.kind == "road")
    assert roads == [(1, (0,), 1), (5, (1,), 5)]


def test_the_aec_env_gives_the_extra_turn_to_the_same_agent():
    """Two heuristic bots through the PettingZoo env: after a builder's extra turn the
    same agent acts again, always the game's seat to move."""
    from carcassonne_env import carcassonne_v0, make_bot

    env = carcassonne_v0.env(players=2, expansions=[TB], board_size=32)
    env.reset(seed=5)
    raw = env.unwrapped
    bots = [make_bot("heuristic", seed=1), make_bot("heuristic", seed=2)]
    previous, repeats = None, 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw.game.current_player
        assert agent == raw.agents[seat]
        repeats += agent == previous
        previous = agent
        env.step(raw.driver.encoder.move_to_action(raw.game, bots[seat].act(raw.game)))
    assert repeats > 0
