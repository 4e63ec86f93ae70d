"""Game records: the shipped JSON Schema, and a clear ValueError naming the field (and
move) for every malformed record."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources

import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.records import RECORD_VERSION


def _record(rules: Rules | None = None, moves: int = 4) -> dict:
    game = Game(rules or Rules(), seed=1)
    for _ in range(moves):
        game.play(game.legal_moves()[0])
    return game.to_record()


def _broken(change) -> dict:
    record = copy.deepcopy(GOOD)
    change(record)
    return record


GOOD = _record()
# name: (broken record, the whole message, or a pattern where game.py's move checks word it)
CORPUS = {
    "a string": ("hello", "a game record is a JSON object (dict), got str"),
    "None": (None, "a game record is a JSON object (dict), got NoneType"),
    "a list": ([GOOD], "a game record is a JSON object (dict), got list"),
    "a move without y": (
        _broken(lambda r: r["moves"][2].pop("y")),
        "malformed record at moves[2].y (move 2): missing",
    ),
    "no tile_order": (
        _broken(lambda r: r.pop("tile_order")),
        "malformed record at tile_order: missing",
    ),
    "no moves": (_broken(lambda r: r.pop("moves")), "malformed record at moves: missing"),
    "rules null": (
        _broken(lambda r: r.update(rules=None)),
        "malformed record at rules: None is not of type 'object'",
    ),
    "moves {}": (
        _broken(lambda r: r.update(moves={})),
        "malformed record at moves: {} is not of type 'array'",
    ),
    "a null move": (
        _broken(lambda r: r["moves"].__setitem__(1, None)),
        "malformed record at moves[1] (move 1): None is not of type 'object'",
    ),
    "x a string": (
        _broken(lambda r: r["moves"][3].update(x="1")),
        "malformed record at moves[3].x (move 3): '1' is not of type 'integer'",
    ),
    "x a bool": (
        _broken(lambda r: r["moves"][3].update(x=True)),
        "malformed record at moves[3].x (move 3): True is not of type 'integer'",
    ),
    "rotation 5": (
        _broken(lambda r: r["moves"][0].update(rotation=5)),
        "malformed record at moves[0].rotation (move 0): 5 is not one of [0, 1, 2, 3]",
    ),
    "player -1": (
        _broken(lambda r: r["moves"][0].update(player=-1)),
        "malformed record at moves[0].player (move 0): -1 is less than the minimum of 0",
    ),
    "follower a number": (
        _broken(lambda r: r["moves"][2].update(follower=3)),
        "malformed record at moves[2].follower (move 2): 3 is not of type 'string', 'null'",
    ),
    "a misspelt move key": (
        _broken(lambda r: r["moves"][2].update(rot=1)),
        "malformed record at moves[2] (move 2): Additional properties are "
        "not allowed ('rot' was unexpected)",
    ),
    "a tile that is a number": (
        _broken(lambda r: r["tile_order"].__setitem__(5, 3)),
        "malformed record at tile_order[5]: 3 is not of type 'string'",
    ),
    "an unknown tile": (
        _broken(lambda r: r["tile_order"].__setitem__(5, "Z")),
        "malformed record at tile_order: unknown tile 'Z'; known tiles: ABCDEFGHIJKLMNOPQRSTUVWX",
    ),
    "tile_order a string": (
        _broken(lambda r: r.update(tile_order="ABC")),
        "malformed record at tile_order: 'ABC' is not of type 'array'",
    ),
    "players a string": (
        _broken(lambda r: r["rules"].update(players="2")),
        "malformed record at rules.players: '2' is not of type 'integer', 'null'",
    ),
    "players 9": (
        _broken(lambda r: r["rules"].update(players=9)),
        "malformed record at rules: players must be an integer in [1, 6], got 9",
    ),
    "an unknown rule": (
        _broken(lambda r: r["rules"].update(speed=9)),
        "malformed record at rules: Additional properties are not allowed ('speed' was unexpected)",
    ),
    "version 2": (
        _broken(lambda r: r.update(version=2)),
        "malformed record at version: unsupported record version 2 (this release reads version 1)",
    ),
    "no format": (_broken(lambda r: r.pop("format")), "malformed record at format: missing"),
    "another format": (
        _broken(lambda r: r.update(format="pgn")),
        "malformed record at format: not a carcassonne-env/record record",
    ),
    "scores a string": (
        _broken(lambda r: r.update(scores="x")),
        "malformed record at scores: 'x' is not of type 'array'",
    ),
    "a score not a number": (
        _broken(lambda r: r["scores"].__setitem__(2, [0, "a"])),
        "malformed record at scores[2][1]: 'a' is not of type 'integer'",
    ),
    "seed a string": (
        _broken(lambda r: r.update(seed="1")),
        "malformed record at seed: '1' is not of type 'integer', 'null'",
    ),
    "an illegal move": (
        _broken(lambda r: r["moves"][3].update(x=60, y=0)),
        re.compile(r"move 3 of the record is illegal: .*\(60, 0\)"),
    ),
    "the wrong seat": (
        _broken(lambda r: r["moves"][1].update(player=0)),
        "move 1: seat 1 is to move, the record says 0",
    ),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_malformed_records_raise_value_error_naming_the_field(name):
    record, message = CORPUS[name]
    pattern = message if isinstance(message, re.Pattern) else f"^{re.escape(message)}$"
    with pytest.raises(ValueError, match=pattern):
        Game.from_record(record)


def test_the_schema_ships_with_the_package_and_accepts_every_kind_of_record():
    """Records of every rule set (with the arena's extra keys) and a hand-written minimal
    one pass; the schema reads the current record version."""
    jsonschema = pytest.importorskip("jsonschema")
    text = resources.files("carcassonne_env").joinpath("data/record.schema.json").read_text()
    schema = json.loads(text)
    assert schema["properties"]["version"] == {"const": RECORD_VERSION}
    for rules in (Rules(), Rules(players=3, hand_size=3), Rules(variant="solo")):
        record = dict(_record(rules, moves=6), bots=["a", "b"], arena={"table": 0})
        jsonschema.validate(json.loads(json.dumps(record)), schema)
        assert Game.from_record(record).to_record() == _record(rules, moves=6)
    minimal = {
        "format": "carcassonne-env/record",
        "version": 1,
        "rules": {},
        "tile_order": list("EV"),
        "moves": [{"player": 0, "x": 0, "y": -1, "rotation": 2}],
    }
    game = Game.from_record(minimal)
    assert (game.turn, game.board[(0, -1)].tile) == (1, "E")


# --------------------------------------------------------------------------- issue 28 §5


def _finished(players: int = 4, seed: int = 3) -> dict:
    game = Game(Rules(players=players), seed=seed)
    while not game.done:
        game.play(game.legal_moves()[0])
    return json.loads(json.dumps(game.to_record()))


def test_a_record_states_its_end_reason_and_a_replay_reproduces_it():
    record = _finished()
    assert record["end_reason"] == "tiles" and len(record["result"]) == 4
    assert Game.from_record(record).to_record() == record
    running = _record()
    assert running["result"] is None and running["end_reason"] is None
    Game.from_record(running)


def test_a_record_missing_its_last_moves_is_refused_with_the_values():
    record = _finished()
    game = Game.from_record(
        dict(
            record,
            moves=record["moves"][:-5],
            scores=record["scores"][:-5],
            result=None,
            end_reason=None,
        )
    )  # a consistent prefix is fine
    n = len(record["moves"]) - 5
    cut = dict(record, moves=record["moves"][:-5])  # scores and result kept
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"the record has {n} moves but scores after {n + 5} moves: after move {n - 1} "
            f"the replay scores are {game.scores}, the record's last scores "
            f"{record['scores'][-1]}"
        ),
    ):
        Game.from_record(cut)
    cut.pop("scores")  # the result alone still tells
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"after move {n - 1} (the last): replay result None differs from the record's "
            f"{record['result']}"
        ),
    ):
        Game.from_record(cut)


@pytest.mark.parametrize("key, value", [("result", [999, 0, 0, 0]), ("end_reason", "A")])
def test_a_record_with_another_outcome_is_refused(key, value):
    record = _finished()
    last = len(record["moves"]) - 1
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"after move {last} (the last): replay {key} {record[key]!r} differs from the "
            f"record's {value!r}"
        ),
    ):
        Game.from_record(dict(record, **{key: value}))


def test_a_solo_record_checks_its_result():
    game = Game(Rules(variant="solo"), seed=2)
    while not game.done:
        game.play(game.legal_moves()[0])
    record = game.to_record()
    assert Game.from_record(record).result == record["result"] == game.result
    with pytest.raises(
        ValueError, match=f"replay result {game.result} differs from the record's {game.result + 1}"
    ):
        Game.from_record(dict(record, result=game.result + 1))


def test_a_relabelled_seat_count_is_named():
    record = _finished()
    record["rules"]["players"] = 2
    with pytest.raises(
        ValueError,
        match=re.escape(
            "the seat count disagrees: the record's rules have 2 players but its scores "
            "after move 0 has 4 scores [0, 0, 0, 0]"
        ),
    ):
        Game.from_record(record)
    record.pop("scores")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "the seat count disagrees: the record's rules have 2 players but its result "
            "has 4 scores"
        ),
    ):
        Game.from_record(record)
    record.pop("result")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "the seat count disagrees: the record's rules have 2 players but move 2 is "
            "played by seat 2"
        ),
    ):
        Game.from_record(record)
