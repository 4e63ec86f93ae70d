"""Dihedral symmetries (carcassonne_env.symmetry): tile tables, group laws, masks that stay
legal, and exact agreement with the encoder on a rotated / mirrored game."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.core import constants as C
from carcassonne_env.encoding import Encoder, subtile_table
from carcassonne_env.game import Move
from carcassonne_env.symmetry import Symmetry, mirror_table

# internals: `_compile` builds the small tile sets below (no public constructor takes tiles)
from carcassonne_env.tiles import TileSet, _compile, base_tileset, load_json

BASE = base_tileset()
# The base tiles with the monastery B as start tile: B looks the same under all 8
# elements, so a game can be rotated or mirrored exactly (start tile included).
SYMMETRIC_START = dataclasses.replace(BASE, start=BASE.index("B"))
MIDS = ((0, 1), (1, 2), (2, 1), (1, 0))  # pixels of the edge midpoints N, E, S, W
CONFIGS = [
    (Rules(players=2), "turn"),
    (Rules(players=2), "two_step"),
    (Rules(players=2, hand_size=3), "turn"),
    (Rules(players=2, hand_size=3), "two_step"),
]
IDS = ["turn", "two_step", "hand3-turn", "hand3-two_step"]


def _same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _hand(enc: Encoder, feats: np.ndarray) -> list[int]:
    """Tile type in each hand position from the features alone (-1 = none)."""
    T = enc.n_types
    out = []
    for h in range(enc.hand_size):
        onehot = feats[h * T : (h + 1) * T]
        assert onehot.sum() <= 1
        out.append(int(onehot.argmax()) if onehot.any() else -1)
    return out


def _observations(enc: Encoder, seeds, moves: int = 24, every: int = 3):
    """(obs, pending, placement action) at random states of games. In two_step mode each
    state also gives a follower-phase observation after a random placement action (with
    the encoder's pending tuple); otherwise pending and placement are None."""
    rng = random.Random(7)
    for seed in seeds:
        game = Game(enc.rules, seed=seed)
        while not game.done and game.turn < moves:
            if game.turn % every == 0:
                obs = enc.encode(game, game.current_player)
                yield obs, None, None
                if enc.action_mode == "two_step":
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                    pending = enc.placement(game, action)
                    yield enc.encode(game, game.current_player, pending=pending), pending, action
            game.play(rng.choice(game.legal_moves()))


# ---------------------------------------------------------------------------- tile tables
def test_tile_pictures_turn_with_the_tile():
    sub = subtile_table(BASE)
    for t in range(len(BASE.names)):
        for r in range(4):
            turned = np.rot90(sub[t, r], k=-1, axes=(0, 1))
            np.testing.assert_array_equal(sub[t, (r + 1) % 4], turned, err_msg=BASE.names[t])


def test_mirror_table_of_the_base_tiles():
    mt = mirror_table(BASE)
    tb, sub = BASE.tables, subtile_table(BASE)
    assert mt.missing == ()
    assert mt.pairs(BASE.names) == [("J", "K")]  # the only chiral pair of the base game
    assert [BASE.names[u] for u in mt.tile] == [{"J": "K", "K": "J"}.get(n, n) for n in BASE.names]
    terrain = lambda t, r, e: (tb.edge_code[t, r] >> (2 * e)) & 3  # noqa: E731
    for t in range(len(BASE.names)):
        n = int(tb.n_seg[t])
        u = int(mt.tile[t])
        sigma = mt.segment[t, :n]
        assert sorted(sigma.tolist()) == list(range(n))
        assert (tb.seg_kind[u, sigma] == tb.seg_kind[t, :n]).all()
        for r in range(4):
            q = int(mt.rotation[t, r])
            # Edges: E and W swap; the mirror of the mirror is the tile itself.
            for e, m in enumerate((0, 3, 2, 1)):
                assert terrain(u, q, e) == terrain(t, r, m)
            assert int(mt.tile[u]) == t and int(mt.rotation[u, q]) == r
            assert (mt.segment[u, sigma] == np.arange(n)).all()
            # The picture: mirrored kinds, segment ids renamed by sigma.
            flipped = np.flip(sub[t, r], axis=1)
            np.testing.assert_array_equal(sub[u, q, :, :, 0], flipped[:, :, 0])
            segs = flipped[:, :, 1].astype(np.int64)
            renamed = np.where(segs >= 0, sigma[np.maximum(segs, 0)], -1)
            np.testing.assert_array_equal(sub[u, q, :, :, 1], renamed)


def _tileset(letters: str) -> TileSet:
    """Internals: a tile set of these base tiles, compiled as `tileset_for` compiles one."""
    tiles = [t for t in load_json()["tiles"] if t["letter"] in letters]
    tables, slot_names, slot_aliases, canonical, S = _compile(tiles)
    return TileSet(
        names=tuple(t["letter"] for t in tiles),
        counts=(4,) * len(tiles),
        start=0,
        max_segments=S,
        tables=tables,
        slot_names=slot_names,
        slot_aliases=slot_aliases,
        canonical_rotation=canonical,
    )


def test_a_tile_without_mirror_image_needs_reflections_off():
    ts = _tileset("DJ")
    assert mirror_table(ts).missing == ("J",)
    enc = Encoder(Rules(players=2), board_size=9, tileset=ts)
    with pytest.raises(ValueError, match="J"):
        Symmetry(enc)
    sym = Symmetry(enc, reflections=False)
    assert sym.n_elements == 4 and [sym.inverse(k) for k in range(4)] == [0, 3, 2, 1]
    game = Game(Rules(players=2), tile_order="JJDJJ", tileset=ts)
    game.play(game.legal_moves()[0])
    obs = enc.encode(game, game.current_player)
    for k in range(4):
        back = sym.transform_obs(sym.transform_obs(obs, k), sym.inverse(k))
        _same(back, obs)
    with pytest.raises(ValueError, match="k must be"):
        sym.transform_obs(obs, 4)
    both = Encoder(Rules(players=2), board_size=9, tileset=_tileset("DJK"))
    assert Symmetry(both).n_elements == 8


def test_bad_arguments():
    enc = Encoder(Rules(players=2), board_size=7)
    sym = Symmetry(enc)
    obs = enc.encode(Game(Rules(players=2), seed=0), 0)
    for k in (-1, 8, True, 1.0):
        with pytest.raises(ValueError, match="k must be"):
            sym.transform_obs(obs, k)
    with pytest.raises(ValueError):
        sym.transform_action(enc.n_actions, 1, obs)
    with pytest.raises(ValueError):
        sym.transform_mask(obs["action_mask"][:-1], 1, obs)
    with pytest.raises(ValueError, match="unknown"):
        sym.transform_obs({**obs, "extra": 1}, 1)


# ---------------------------------------------------------------------------- group laws
@pytest.mark.parametrize(("rules", "mode"), CONFIGS, ids=IDS)
def test_group_laws(rules, mode):
    enc = Encoder(rules, board_size=32, action_mode=mode, on_overflow="raise")
    sym = Symmetry(enc)
    assert [sym.inverse(k) for k in range(8)] == [0, 3, 2, 1, 4, 5, 6, 7]
    assert sym.compose(1, 1) == 2 and sym.compose(3, 1) == 0 and sym.compose(1, 4) == 5
    rng = np.random.default_rng(0)
    n_obs = mirrored_features = 0
    for i, (obs, pending, _) in enumerate(_observations(enc, seeds=range(2))):
        n_obs += 1
        follower = mode == "two_step" and pending is not None
        n_act = enc.slots if follower else enc.n_actions
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0 and legal.max() < n_act
        everything = np.arange(n_act)
        noise = (rng.random(enc.n_actions) < 0.3).astype(np.int8)
        noise[n_act:] = 0
        same = sym.transform_obs(obs, 0)
        _same(same, obs)
        assert not any(np.shares_memory(same[key], obs[key]) for key in obs)
        images = {}
        for k in range(8):
            img = images[k] = sym.transform_obs(obs, k)
            assert img["board"].flags.c_contiguous
            # The inverse undoes k on observations and on every action.
            _same(sym.transform_obs(img, sym.inverse(k)), obs)
            moved = sym.transform_action(everything, k, obs)
            np.testing.assert_array_equal(np.sort(moved), everything)  # a permutation
            back = sym.transform_action(moved, sym.inverse(k), img)
            np.testing.assert_array_equal(back, everything)
            # Actions and masks move together (legal -> legal, one to one).
            assert int(img["action_mask"].sum()) == len(legal)
            assert (img["action_mask"][sym.transform_action(legal, k, obs)] == 1).all()
            assert sym.transform_action(int(legal[0]), k, obs) == moved[legal[0]]
            shuffled = sym.transform_mask(noise, k, obs, pending)
            np.testing.assert_array_equal(shuffled[moved], noise[:n_act])
            assert not shuffled[n_act:].any()
            # Only tile-type features move, and only under mirrors.
            changed = img["features"] != obs["features"]
            assert k >= 4 or not changed.any()
            names = np.array(enc.feature_names)[changed]
            assert all(n.startswith(("tile_", "hand", "unseen_")) for n in names)
        mirrored_features += not np.array_equal(images[4]["features"], obs["features"])
        # Composition: x -> b -> a equals compose(a, b); 4 quarter turns = identity.
        if i % 8 == 0:
            for a in range(8):
                for b in range(8):
                    _same(sym.transform_obs(images[b], a), images[sym.compose(a, b)])
        np.testing.assert_array_equal(sym.transform_obs(images[1], 1)["board"], images[2]["board"])
        x = obs
        for _ in range(4):
            x = sym.transform_obs(x, 1)
        _same(x, obs)
    assert n_obs >= 16 and mirrored_features > 0


def test_quarter_turn_direction_and_mirror_on_a_known_board():
    """k=1 turns the picture clockwise (north edge -> east edge), k=4 mirrors west<->east,
    k=5 turns after mirroring."""
    enc = Encoder(Rules(players=2), board_size=5)
    sym = Symmetry(enc)
    obs = enc.encode(Game(Rules(players=2), tile_order="J"), 0)
    board = obs["board"]
    centre = board[6:9, 6:9, :4].argmax(-1)  # start tile D: city N, road W-E
    assert centre.tolist() == [[2, 0, 2], [1, 1, 1], [2, 2, 2]]
    turned = sym.transform_obs(obs, 1)["board"][6:9, 6:9, :4].argmax(-1)
    assert turned.tolist() == [[2, 1, 2], [2, 1, 0], [2, 1, 2]]  # city E, road N-S
    assert sym.transform_cell(0, 0, 1) == (0, 4)  # NW corner -> NE corner
    assert sym.transform_cell(0, 0, 4) == (0, 4) and sym.transform_cell(0, 1, 5) == (3, 4)
    # The drawn tile J (city N, road E-S) becomes K (city N, road S-W) under a mirror.
    feats = dict(
        zip(enc.feature_names, sym.transform_obs(obs, 4)["features"].tolist(), strict=True)
    )
    assert feats["tile_K"] == 1.0 and feats["tile_J"] == 0.0
    assert sym.transform_tile(BASE.index("J"), 0, 4) == (BASE.index("K"), 0, 0)
    assert sym.transform_tile(BASE.index("J"), 0, 1) == (BASE.index("J"), 1, 0)


@pytest.mark.parametrize(("rules", "mode"), CONFIGS, ids=IDS)
def test_batches_match_one_by_one(rules, mode):
    enc = Encoder(rules, board_size=32, action_mode=mode, on_overflow="raise")
    sym = Symmetry(enc)
    samples = [obs for obs, _, _ in _observations(enc, seeds=[5], every=4)]
    assert len(samples) >= 5
    batch = {key: np.stack([o[key] for o in samples]) for key in samples[0]}
    rng = np.random.default_rng(1)
    actions = np.array([rng.choice(np.flatnonzero(o["action_mask"])) for o in samples])
    for k in range(8):
        got = sym.transform_obs(batch, k)
        for i, obs in enumerate(samples):
            _same({key: got[key][i] for key in got}, sym.transform_obs(obs, k))
        moved = sym.transform_action(actions, k, batch)
        assert moved.shape == actions.shape
        assert moved.tolist() == [
            sym.transform_action(int(a), k, o) for a, o in zip(actions, samples, strict=True)
        ]
        assert (got["action_mask"][np.arange(len(samples)), moved] == 1).all()
        # The PettingZoo form: {"observation": {board, features}, "action_mask"}.
        obs = samples[-1]
        nested = sym.transform_obs(
            {
                "observation": {"board": obs["board"], "features": obs["features"]},
                "action_mask": obs["action_mask"],
            },
            k,
        )
        flat = sym.transform_obs(obs, k)
        _same(nested["observation"], {"board": flat["board"], "features": flat["features"]})
        np.testing.assert_array_equal(nested["action_mask"], flat["action_mask"])


# ---------------------------------------------------------------------------- legality
def _brute_force_placements(enc: Encoder, obs: dict) -> set:
    """Every (hand, row, col, rotation) that fits the board planes: an open cell whose
    placed neighbours show the same terrain at the facing edge midpoints."""
    board, sub, B = obs["board"], enc.subtiles, enc.board_size
    kinds = np.where(board[:, :, :4].any(-1), board[:, :, :4].argmax(-1), -1)
    opened = board[1::3, 1::3, enc.plane_names.index("open_cell")] == 1
    placed = kinds[1::3, 1::3] >= 0
    assert not (opened & placed).any()
    out, seen = set(), set()
    for h, t in enumerate(_hand(enc, obs["features"])):
        if t < 0 or t in seen:
            continue  # the encoder lists each distinct tile of a hand once
        seen.add(t)
        for row, col in zip(*np.nonzero(opened), strict=True):
            for r in range(4):
                fits, touching = True, 0
                for e in range(4):
                    nr, nc = row + C.DY[e], col + C.DX[e]
                    if not (0 <= nr < B and 0 <= nc < B and placed[nr, nc]):
                        continue
                    touching += 1
                    a, b = MIDS[(e + 2) % 4]
                    mine = int(sub[t, r, MIDS[e][0], MIDS[e][1], 0])
                    fits &= mine == int(kinds[3 * nr + a, 3 * nc + b])
                assert touching > 0
                if fits:
                    out.add((h, int(row), int(col), r))
    return out


@pytest.mark.parametrize(("rules", "mode"), CONFIGS, ids=IDS)
def test_transformed_masks_are_the_legal_moves_of_the_transformed_board(rules, mode):
    enc = Encoder(rules, board_size=32, action_mode=mode, on_overflow="raise")
    sym = Symmetry(enc)
    sub, tb = enc.subtiles, enc.tileset.tables
    last = enc.plane_names.index("last_tile")
    checked = 0
    for obs, pending, placement in _observations(enc, seeds=range(10, 12), every=4):
        for k in range(8):
            img = sym.transform_obs(obs, k, pending)
            hand = _hand(enc, img["features"])
            legal = np.flatnonzero(img["action_mask"])
            assert len(legal) == int(obs["action_mask"].sum())
            if pending is not None:  # follower phase: the pending tile, turned, in place
                before = dict(obs, features=obs["features"].copy())
                before["features"][enc.feature_names.index("follower_phase")] = 0.0
                h2, row, col, r2, _ = enc.split(sym.transform_action(placement, k, before))
                t2 = hand[h2]
                cell = img["board"][3 * row : 3 * row + 3, 3 * col : 3 * col + 3]
                assert (cell[:, :, last] == 1).all() and img["board"][:, :, last].sum() == 9
                np.testing.assert_array_equal(cell[:, :, :4].argmax(-1), sub[t2, r2, :, :, 0])
                assert legal.max() <= tb.n_seg[t2] and 0 in legal
                continue
            decoded = [enc.split(int(a)) for a in legal]
            places = {(h, row, col, r) for h, row, col, r, _ in decoded}
            assert places == _brute_force_placements(enc, img)
            for h, _, _, _, slot in decoded:
                assert -1 <= slot < tb.n_seg[hand[h]]
            if mode == "turn":  # every placement may also go without a follower
                assert places == {(h, rw, c, r) for h, rw, c, r, s in decoded if s == -1}
            checked += 1
    assert checked >= 60


# ---------------------------------------------------------------------------- real games
def _image_move(sym: Symmetry, game: Game, move: Move, k: int) -> Move:
    """`move` of `game` in the game turned / mirrored by element k."""
    ts = game.tileset
    t = ts.index(move.tile if move.tile is not None else game.current_tile)
    slot = 0 if move.follower is None else ts.slot_aliases[t][move.rotation][move.follower] + 1
    t2, r2, s2 = sym.transform_tile(t, move.rotation, k, slot)
    x, y = move.x, move.y
    if k >= 4:
        x = -x
    for _ in range(k % 4):
        x, y = -y, x  # a clockwise quarter turn: east -> south, north -> east
    follower = ts.slot_names[t2][r2][s2 - 1] if s2 else None
    return Move(x, y, r2, follower, ts.names[t2] if move.tile is not None else None)


@pytest.mark.parametrize(("rules", "mode"), CONFIGS, ids=IDS)
def test_matches_the_encoder_on_a_turned_or_mirrored_game(rules, mode):
    """Play a game and its image under k move for move (start tile B looks the same
    under every element). Whenever the bounding box has odd width and height (B odd) the
    windows correspond exactly, so the transformed observation must equal the encoder's
    observation of the image game, mask included; the legal moves correspond always."""
    B = 25
    enc = Encoder(
        rules, board_size=B, action_mode=mode, tileset=SYMMETRIC_START, on_overflow="raise"
    )
    sym = Symmetry(enc)
    ts = SYMMETRIC_START
    rng = random.Random(3)
    compared = followers = 0
    for k in range(8):
        deck = [ts.names[t] for t in ts.full_deck()]
        rng.shuffle(deck)
        deck = deck[:20]
        image_deck = [ts.names[sym.tile_map[k, ts.index(n)]] for n in deck]
        game = Game(rules, tile_order=deck, tileset=ts)
        image = Game(rules, tile_order=image_deck, tileset=ts)
        while not game.done:
            seat = game.current_player
            assert image.current_player == seat
            legal = game.legal_moves()
            assert {_image_move(sym, game, m, k) for m in legal} == set(image.legal_moves())
            x0, y0, x1, y1 = game.bounding_box()
            if (x1 - x0) % 2 == 0 and (y1 - y0) % 2 == 0:
                obs = enc.encode(game, seat)
                _same(sym.transform_obs(obs, k), enc.encode(image, seat))
                compared += 1
                if mode == "turn":
                    for action in rng.sample(list(np.flatnonzero(obs["action_mask"])), 10):
                        moved = sym.transform_action(int(action), k, obs)
                        want = _image_move(sym, game, enc.action_to_move(game, action), k)
                        assert enc.action_to_move(image, moved) == want
                else:  # a placement, then the follower step (pending tile recognised)
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                    h, x, y, r = enc.placement(game, action)
                    name = game.hand[h] if rules.hand_size > 1 else None
                    m2 = _image_move(sym, game, Move(x, y, r, None, name), k)
                    pending2 = (h, m2.x, m2.y, m2.rotation)
                    assert enc.placement(image, sym.transform_action(action, k, obs)) == pending2
                    fol = enc.encode(game, seat, pending=(h, x, y, r))
                    fol2 = enc.encode(image, seat, pending=pending2)
                    _same(sym.transform_obs(fol, k), fol2)
                    followers += int(fol["action_mask"].sum()) > 2
            move = rng.choice(legal)
            image.play(_image_move(sym, game, move, k))
            game.play(move)
        assert image.scores == game.scores
    assert compared >= 25 and (mode == "turn" or followers >= 10)


def test_follower_step_with_a_partly_empty_hand():
    """Strategic variant, empty deck: hand [X, X, none]; then the same observation with
    the hand features reordered to [none, X, X] (pending in position 1). X's slots are
    permuted by mirrors, so the pending tile must be found, not taken from position 0."""
    rules = Rules(players=2, hand_size=3)
    enc = Encoder(rules, board_size=9, action_mode="two_step")
    sym = Symmetry(enc)
    game = Game(rules, tile_order="XXXUUU")
    for _ in range(2):
        game.play(next(m for m in game.legal_moves() if m.tile == game.hand[0]))
    assert game.hand == ["X", "X"]
    obs = enc.encode(game, game.current_player)
    action = int(np.flatnonzero(obs["action_mask"])[0])
    pending = enc.placement(game, action)
    fol = enc.encode(game, game.current_player, pending=pending)
    assert pending[0] == 0 and int(fol["action_mask"].sum()) >= 4
    T = enc.n_types
    shifted = dict(fol, features=fol["features"].copy())
    shifted["features"][: 3 * T] = np.roll(fol["features"][: 3 * T], T)
    assert _hand(enc, shifted["features"]) == [-1, BASE.index("X"), BASE.index("X")]
    slots = np.arange(enc.slots)
    for k in range(8):
        want = [sym.transform_tile(BASE.index("X"), pending[3], k, s)[2] for s in slots]
        for obs_, h in ((fol, 0), (shifted, 1)):
            assert sym.transform_action(slots, k, obs_).tolist() == want
            assert sym.transform_action(slots, k, obs_, pending=h).tolist() == want
            mask = sym.transform_obs(obs_, k)["action_mask"]
            np.testing.assert_array_equal(mask[want], fol["action_mask"][: enc.slots])
    assert want != slots.tolist()
