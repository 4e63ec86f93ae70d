"""Expansion tiles with ``expansion_mode="tiles_only"`` (issue 14, first step): the tiles
of Inns & Cathedrals and Traders & Builders join the deck and play as ordinary tiles
(docs/rules.md 7.1, 7.2)."""

import numpy as np
import pytest

from carcassonne_env import Game, Move, Rules
from carcassonne_env.tiles import tileset_for

IC, TB = "inns_cathedrals", "traders_builders"
COMBOS = [(IC,), (TB,), (IC, TB)]


def _rules(expansions, **options):
    return Rules(expansions=expansions, expansion_mode="tiles_only", **options)


def test_rules_validate_the_expansions():
    assert _rules([TB, IC]).expansions == (IC, TB)  # canonical order, a tuple
    with pytest.raises(ValueError, match="expansions must be one of"):
        _rules(("inns",))
    with pytest.raises(ValueError, match="expansions must be a list or tuple"):
        _rules(IC)
    with pytest.raises(ValueError, match="lists a name twice"):
        _rules((IC, IC))
    assert Rules(expansions=(IC,)).figures == ("follower", "large")
    assert Rules(expansions=(TB,)).figures == ("follower", "builder", "pig")
    assert Rules(expansions=(IC, TB)).figures == ("follower", "large", "builder", "pig")
    assert Rules(expansions=(IC,), variant="solo").figures == ("follower",)
    assert _rules((IC,)).figures == ("follower",)
    with pytest.raises(ValueError, match="expansion_mode must be one of"):
        Rules(expansion_mode="some")
    rules = _rules((IC, TB), players=3)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.to_dict()["expansions"] == [IC, TB]
    assert "expansions" not in Rules().to_dict()  # base records stay as they were


@pytest.mark.parametrize(
    "expansions, extra, prefix", [((IC,), 18, "E"), ((TB,), 24, "T"), ((IC, TB), 42, None)]
)
def test_the_deck_holds_the_expansion_tiles(expansions, extra, prefix):
    game = Game(_rules(expansions), seed=3)
    order = game.tile_order()
    assert len(order) == 71 + extra
    new = [t for t in order if len(t) == 2]
    assert len(new) == extra
    if prefix:
        assert all(t.startswith(prefix) for t in new)
    if IC in expansions:
        assert order.count("EK") == 2  # the cathedral comes twice
    assert sorted(order) == sorted(Game(_rules(expansions), seed=4).tile_order())


def test_expansion_tile_ids_in_a_tile_order():
    game = Game(_rules((IC,)), tile_order=["EB", "EB"])
    assert game.current_tile == "EB"
    with pytest.raises(
        ValueError,
        match=r"unknown tile 'EB' \(expansion tiles need "
        r"Rules\(expansions=\[\.\.\.\]\)\); known tiles",
    ):
        Game(Rules(), tile_order=["EB"])  # either mode plays them (issue 28: no stale hint)


def test_an_inn_is_an_ordinary_road_with_tiles_only():
    """EB (a straight road with an inn) extends the start tile's road; every road that
    completes scores 1 per tile, with or without an inn on it."""
    game = Game(_rules((IC,)), tile_order=["EB", "EB"])
    move = next(
        m
        for m in game.legal_moves()
        if (m.x, m.y) == (1, 0) and m.follower and m.follower.startswith("road")
    )
    game.play(move)
    assert game.board[(1, 0)].follower == (0, move.follower)
    assert game.scores == [0, 0]
    while not game.done:
        game.play(game.legal_moves()[0])
    road = [e for e in game.events if e.kind == "road"]
    assert road and all(e.points == len(e.tiles) for e in road)


@pytest.mark.parametrize("expansions", COMBOS)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"players": 4},
        {"hand_size": 3},
        {"variant": "solo"},
        {"variant": "solo", "solo_colours": 4},
    ],
)
def test_random_games_finish_and_replay(expansions, options):
    rng = np.random.default_rng(len(expansions))
    for seed in range(3):
        game = Game(_rules(expansions, **options), seed=seed)
        while not game.done:
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
        placed = len(game.board) - 1 + len(game.discarded)
        if options.get("variant") != "solo":
            assert placed == len(game.tile_order())
        again = Game.from_record(game.to_record())
        assert again.scores == game.scores and again.events == game.events


def test_jitted_playouts_and_envs_take_the_expansions():
    import gymnasium as gym

    import carcassonne_env  # noqa: F401  (registers the envs)
    from carcassonne_env.envs import SoloVectorEnv

    game = Game(_rules((IC, TB)), seed=0)
    assert game.random_playouts(4, seed=1).shape == (4, 2)
    env = gym.make(
        "Carcassonne/VsBots-v0",
        opponents=["greedy"],
        board_size=24,
        expansions=[IC, TB],
        expansion_mode="tiles_only",
    )
    obs, info = env.reset(seed=0)
    enc = env.unwrapped.driver.encoder
    names = tileset_for((IC, TB)).names
    assert enc.feature_names.count("tile_EK") == 1 and len(names) == 65
    assert obs["features"].shape == (enc.n_features,)
    legal = sorted(
        enc.move_to_action(env.unwrapped.game, m) for m in env.unwrapped.game.legal_moves()
    )
    assert np.flatnonzero(info["action_mask"]).tolist() == legal
    solo = SoloVectorEnv(4, board_size=24, expansions=[TB], expansion_mode="tiles_only")
    solo.reset(seed=0)
    for _ in range(30):
        masks = solo.action_masks()
        solo.step(np.array([np.flatnonzero(m)[0] for m in masks]))


def test_pictures_draw_every_expansion_tile():
    from carcassonne_env.rendering.image import render_rgb

    ts = tileset_for((IC, TB))
    order = [n for n in ts.names if len(n) == 2]
    game = Game(_rules((IC, TB)), tile_order=order)
    rng = np.random.default_rng(0)
    while not game.done:
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    image = render_rgb(game)
    assert image.ndim == 3 and image.shape[2] == 3
    assert len(game.board) > 30


def test_the_arena_and_solo_bench_take_the_expansions(capsys):
    from carcassonne_env.cli import main

    flags = ["--expansions", f"{IC},{TB}", "--expansion-mode", "tiles_only"]
    assert main(["solo-bench", "--bot", "greedy", "--deals", "2", "--no-progress", *flags]) == 0
    assert main(["arena", "--bots", "random,greedy", "--games", "2", *flags]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "W-D-L" in out
    assert (
        main(
            [
                "solo-bench",
                "--bot",
                "greedy",
                "--deals",
                "2",
                "--expansions",
                f"{IC},{TB}",
                "--no-progress",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "arena",
                "--bots",
                "heuristic,greedy",
                "--games",
                "2",
                "--expansions",
                f"{IC},{TB}",
                "--no-progress",
            ]
        )
        == 0
    )
    assert main(["solo-bench", "--bot", "greedy", "--deals", "2", "--expansions", "goods"]) == 2
    assert "expansions must be one of" in capsys.readouterr().err


def test_an_incomplete_inn_road_scores_its_tiles_with_tiles_only():
    """Start tile D (road W-E), then EB (straight road with an inn) east of it with a
    follower on the road; the tiles run out. The road of 2 tiles is incomplete: with
    tiles only it scores 1 per tile, 2 points; with the full rules 0."""
    for rules, points in ((_rules((IC,)), 2), (Rules(expansions=(IC,)), 0)):
        game = Game(rules, tile_order=["EB"])
        game.play(Move(1, 0, 0, "road:E"))
        assert game.done and game.scores == [points, 0]
        (event,) = game.events
        assert (event.kind, event.tiles, event.points, event.final) == (
            "road",
            ((0, 0), (1, 0)),
            points,
            True,
        )
