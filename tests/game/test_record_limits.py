"""Records from strangers (issue 75): deep nesting, huge integers, oversized files, too
many moves and over-long strings are refused in one line, quickly: a ValueError naming
the field from `Game.from_record`, and from `carcassonne view` / `render` / `gif` one
stderr line naming the file with exit status 2. Limits: docs/records.md."""

from __future__ import annotations

import copy
import json
import time

import pytest

from carcassonne_env import Game, Rules
from carcassonne_env.cli import main
from carcassonne_env.records import MAX_DEPTH, MAX_RECORD_BYTES

FAST = 2.0  # seconds: a generous guard; each refusal takes a small fraction of it


def played(rules: Rules | None = None, moves: int = 4) -> dict:
    game = Game(rules or Rules(), seed=1)
    for _ in range(moves):
        game.play(game.legal_moves()[0])
    return json.loads(json.dumps(game.to_record()))


GOOD = played()


def changed(change) -> dict:
    record = copy.deepcopy(GOOD)
    change(record)
    return record


def nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def refused(record) -> str:
    """The message `Game.from_record` refuses `record` with, checked to come quickly."""
    start = time.perf_counter()
    with pytest.raises(ValueError) as err:
        Game.from_record(record)
    assert time.perf_counter() - start < FAST
    return str(err.value)


# ------------------------------------------------------------------ the API


def test_coordinates_are_bounded_by_what_a_board_can_reach():
    assert refused(changed(lambda r: r["moves"][0].update(x=10**30))) == (
        "malformed record at moves[0].x (move 0): 1000000000000000000000000000000 is "
        "greater than the maximum of 2000"
    )
    assert refused(changed(lambda r: r["moves"][0].update(x=2**63))) == (
        "malformed record at moves[0].x (move 0): 9223372036854775808 is greater than the "
        "maximum of 2000"
    )
    assert refused(changed(lambda r: r["moves"][2].update(y=-(2**63)))) == (
        "malformed record at moves[2].y (move 2): -9223372036854775808 is less than the "
        "minimum of -2000"
    )
    assert refused(changed(lambda r: r["moves"][1].update(x=-2001))) == (
        "malformed record at moves[1].x (move 1): -2001 is less than the minimum of -2000"
    )
    # the bound itself passes the schema: the replay then finds the cell unreachable
    assert refused(changed(lambda r: r["moves"][1].update(x=2000))).startswith(
        "move 1 of the record is illegal: "
    )
    assert refused(changed(lambda r: r["moves"][0].update(x=1.0))) == (
        "malformed record at moves[0].x (move 0): 1.0 is not of type 'integer'"
    )


def test_other_integers_are_bounded():
    assert refused(changed(lambda r: r["moves"][0].update(player=2**63))) == (
        "malformed record at moves[0].player (move 0): 9223372036854775808 is greater than "
        "the maximum of 5"
    )
    assert refused(changed(lambda r: r["scores"][1].__setitem__(0, 10**30))) == (
        "malformed record at scores[1][0]: 1000000000000000000000000000000 is greater than "
        "the maximum of 1000000"
    )
    assert refused(changed(lambda r: r.update(result=-(2**63)))) == (
        "malformed record at result: -9223372036854775808 is less than the minimum of -1000000"
    )
    assert refused(changed(lambda r: r.update(seed=-1))) == (
        "malformed record at seed: -1 is less than the minimum of 0"
    )


def test_deep_nesting_and_cycles_are_refused():
    too_deep = f"malformed record: nested deeper than {MAX_DEPTH} levels"
    assert refused(changed(lambda r: r.update(notes=nested(MAX_DEPTH)))) == too_deep
    assert refused(changed(lambda r: r.update(notes=nested(100_000)))) == too_deep
    cyclic = copy.deepcopy(GOOD)
    cyclic["notes"] = cyclic
    assert refused(cyclic) == too_deep
    # the deepest record allowed: the record itself is level 1
    assert Game.from_record(changed(lambda r: r.update(notes=nested(MAX_DEPTH - 1)))).turn == 4


def test_no_more_moves_than_the_tiles_allow():
    assert refused(changed(lambda r: r.update(tile_order=r["tile_order"][:3]))) == (
        "malformed record at moves: 4 moves, at most 3 (one per tile of its tile_order)"
    )
    assert refused(changed(lambda r: r.update(moves=r["moves"] * 1001))) == (
        "malformed record at moves: 4004 items, at most 4000"
    )
    assert refused(changed(lambda r: r.update(tile_order=r["tile_order"] * 29))) == (
        "malformed record at tile_order: 2059 items, at most 2000"
    )
    solo = played(Rules(variant="solo", scoring_order="player"), moves=5)
    solo["tile_order"] = solo["tile_order"][:2]
    assert refused(solo) == (
        "malformed record at moves: 5 moves, at most 4 (one per tile of its tile_order and a "
        "scoring choice per follower placed)"
    )


def test_a_million_moves_are_refused_without_validating_each():
    record = changed(lambda r: r.update(moves=r["moves"] * 250_000))
    assert refused(record) == "malformed record at moves: 1000000 items, at most 4000"


def annotated(**fields) -> dict:
    """GOOD with an annotation on move 0; `fields` replace its keys (`top_0` the first
    top move's, `coach` the coach's)."""
    best = {"x": 0, "y": -1, "rotation": 3, "follower": "city:S"}
    top = dict(dict(best, weight=1.0, label="estimate 2.87", score=2.87), **fields.pop("top_0", {}))
    coach = dict({"bot": "heuristic", "best": best, "points_lost": 0.0}, **fields.pop("coach", {}))
    note = dict(
        {"agent": "heuristic", "kind": "scores", "value": 2.87, "top": [top], "coach": coach},
        **fields,
    )
    return dict(copy.deepcopy(GOOD), annotations={"version": 1, "moves": [note, None, None, None]})


def test_strings_the_viewer_shows_are_bounded():
    long = "<" * 1001
    assert Game.from_record(annotated(agent="a" * 1000)).turn == 4
    cases = {
        "bots[1]": changed(lambda r: r.update(bots=["random", long])),
        "annotations.moves[0].agent": annotated(agent=long),
        "annotations.moves[0].top[0].label": annotated(top_0={"label": long}),
        "annotations.moves[0].coach.bot": annotated(coach={"bot": long}),
        "annotations.moves[0].coach.text": annotated(coach={"text": long}),
    }
    for where, record in cases.items():
        assert refused(record) == (
            f"malformed record at {where}: a string of 1001 characters, at most 1000"
        )
    names = {
        "annotations.moves[0].top[0].follower": annotated(top_0={"follower": "f" * 65}),
        "annotations.moves[0].top[0].tile": annotated(top_0={"tile": "t" * 65}),
        "moves[1].follower (move 1)": changed(lambda r: r["moves"][1].update(follower="f" * 65)),
        "tile_order[3]": changed(lambda r: r["tile_order"].__setitem__(3, "T" * 65)),
        "end_reason": changed(lambda r: r.update(end_reason="e" * 65)),
    }
    for where, record in names.items():
        assert refused(record) == (
            f"malformed record at {where}: a string of 65 characters, at most 64"
        )
    assert refused(changed(lambda r: r.update(bots=["random"] * 7))) == (
        "malformed record at bots: 7 items, at most 6"
    )
    assert refused(annotated(top=[{"x": 0, "y": 0, "rotation": 0}] * 1001)) == (
        "malformed record at annotations.moves[0].top: 1001 items, at most 1000"
    )


def test_a_huge_offending_value_is_quoted_short():
    value = list(range(100_000))
    message = refused(changed(lambda r: r["moves"][1].update(follower=value)))
    assert message == (
        f"malformed record at moves[1].follower (move 1): "
        f"{repr(value)[:57]}... is not of type 'string', 'null'"
    )


# ------------------------------------------------------------------ files and the CLI


def as_bytes(record: dict) -> bytes:
    return json.dumps(record).encode()


def with_seed(text: bytes) -> bytes:
    """GOOD as JSON with `text` for its seed."""
    return as_bytes(GOOD).replace(b'"seed": 1', b'"seed": ' + text)


def padded(size: int) -> bytes:
    """GOOD as JSON padded with spaces to `size` bytes."""
    text = as_bytes(GOOD)
    return text + b" " * (size - len(text))


TOO_LARGE = "not a game record: larger than 1,048,576 bytes (1 MiB, the limit for a record)"
# name: (the file's contents, made when needed; the error after the file name, `{what}`
# standing for the command's own words, e.g. "cannot show this record")
HOSTILE = {
    "deep list": (
        lambda: b"[" * 200_000,
        f"not a game record: nested deeper than {MAX_DEPTH} levels",
    ),
    "deep object": (
        lambda: b'{"a": ' * 100_000,
        f"not a game record: nested deeper than {MAX_DEPTH} levels",
    ),
    "deep inside a record": (
        lambda: as_bytes(dict(GOOD, notes=nested(MAX_DEPTH + 5))),
        f"{{what}}: malformed record: nested deeper than {MAX_DEPTH} levels",
    ),
    "x 10^30": (
        lambda: as_bytes(changed(lambda r: r["moves"][0].update(x=10**30))),
        "{what}: malformed record at moves[0].x (move 0): "
        "1000000000000000000000000000000 is greater than the maximum of 2000",
    ),
    "x 2^63": (
        lambda: as_bytes(changed(lambda r: r["moves"][0].update(x=2**63))),
        "{what}: malformed record at moves[0].x (move 0): 9223372036854775808 is "
        "greater than the maximum of 2000",
    ),
    "an integer of 5000 digits": (
        lambda: with_seed(b"9" * 5000),
        "not a game record: an integer of 5000 digits, at most 100",
    ),
    "NaN": (lambda: with_seed(b"NaN"), "not a game record: NaN is not a JSON number"),
    "1e999": (lambda: with_seed(b"1e999"), "not a game record: the number 1e999 is too large"),
    "oversized": (lambda: padded(MAX_RECORD_BYTES + 1), TOO_LARGE),
    "700,000 moves (36 MB)": (
        lambda: (
            b'{"moves": [' + b'{"player": 0, "x": 0, "y": -1, "rotation": 1}, ' * 700_000 + b"{}]}"
        ),
        TOO_LARGE,
    ),
    "too many moves": (
        lambda: as_bytes(changed(lambda r: r.update(tile_order=r["tile_order"][:2]))),
        "{what}: malformed record at moves: 4 moves, at most 2 (one per tile of its tile_order)",
    ),
    "a long bot name": (
        lambda: as_bytes(changed(lambda r: r.update(bots=["x" * 5000, "random"]))),
        "{what}: malformed record at bots[0]: a string of 5000 characters, at most 1000",
    ),
}
COMMANDS = {
    "view": ("out.html", "cannot show this record"),
    "render": ("out.png", "invalid game record"),
    "gif": ("out.gif", "cannot draw this record"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_cli_view_refuses_hostile_files_in_one_line(tmp_path, capsys, name):
    contents, error = HOSTILE[name]
    src = tmp_path / "evil.json"
    src.write_bytes(contents())
    start = time.perf_counter()
    assert main(["view", str(src), "-o", str(tmp_path / "out.html")]) == 2
    assert time.perf_counter() - start < FAST
    err = capsys.readouterr().err
    expected = error.format(what=COMMANDS["view"][1])
    assert err == f"carcassonne: error: {src}: {expected}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["evil.json"]  # no page, no temporary


@pytest.mark.parametrize("command", ["render", "gif"])
@pytest.mark.parametrize(
    "name", ["deep list", "deep inside a record", "x 2^63", "oversized", "too many moves"]
)
def test_cli_render_and_gif_refuse_hostile_files_in_one_line(tmp_path, capsys, command, name):
    contents, error = HOSTILE[name]
    src = tmp_path / "evil.json"
    src.write_bytes(contents())
    output, what = COMMANDS[command]
    start = time.perf_counter()
    assert main([command, str(src), "-o", str(tmp_path / output)]) == 2
    assert time.perf_counter() - start < FAST
    assert capsys.readouterr().err == (f"carcassonne: error: {src}: {error.format(what=what)}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["evil.json"]


def test_a_device_file_is_read_no_further_than_the_limit(capsys):
    start = time.perf_counter()
    assert main(["view", "/dev/zero", "-o", "/dev/null"]) == 2
    assert time.perf_counter() - start < FAST
    assert capsys.readouterr().err == (
        "carcassonne: error: /dev/zero: not a game record: larger than 1,048,576 bytes "
        "(1 MiB, the limit for a record)\n"
    )


def test_a_record_within_the_limits_is_shown(tmp_path, capsys):
    """The limits leave room: the largest strings, a record at the file limit (padding
    is whitespace), and annotations at their bounds."""
    record = annotated(agent="a" * 1000, top_0={"label": "b" * 1000, "follower": "city:S"})
    record["bots"] = ["c" * 1000, "random"]
    text = as_bytes(record)
    src = tmp_path / "game.json"
    src.write_bytes(text + b" " * (MAX_RECORD_BYTES - len(text)))
    assert main(["view", str(src), "-o", str(tmp_path / "game.html")]) == 0
    assert capsys.readouterr().out == f"replay of 4 moves written to {tmp_path / 'game.html'}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.json"]
