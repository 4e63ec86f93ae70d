"""Issue 75: SIGTERM stops `arena` and `solo-bench` as Ctrl-C does (the workers end, the
games played are saved, one line says how many, no process is left behind), and `--resume`
finishes a stopped run with the results of a run that was never stopped. Also: what
`--resume` refuses, the saved files read back, the played games checked, `train evaluate`'s
partial results."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import agents.arena
import agents.solo_bench
from agents.arena import GameRow, read_games_csv, read_saved_run, run_arena
from agents.solo_bench import SoloBenchResult, run_solo_bench
from carcassonne_env import Rules
from carcassonne_env.cli import main
from carcassonne_env.cli_errors import Interrupted
from tests.support.terminal import interrupt_on_call

# Big enough that a run is still going a second after its first games are in (about
# 5 ms a game with 2 workers), small enough to play again in a few seconds.
ARENA = ["arena", "--bots", "random,heuristic", "--games", "200", "--seed", "5"]
SOLO = ["solo-bench", "--bot", "greedy", "--deals", "500", "--seed", "2"]
WORKERS = ["--workers", "2"]
# The run that was never stopped: one worker, since the results do not depend on it
# (tests/agents/test_arena.py, tests/agents/test_solo_bench.py) and a pool would only add its start.
WHOLE = ["--workers", "1", "--no-progress"]
TIMINGS = {"seconds", "seconds_per_move", "act_seconds", "metadata"}


# --- processes ------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a live process, None if there is none."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0], int(fields[19])


def _descendants(pid: int) -> dict[int, tuple[int, str]]:
    """Every process under `pid`: pid -> (start time, command line)."""
    stats = {int(d): _stat(int(d)) for d in os.listdir("/proc") if d.isdigit()}
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, stat in stats.items():
            if stat is not None and stat[0] == parent and child not in found:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
                found[child] = (stat[2], cmdline.decode(errors="replace"))
                todo.append(child)
    return found


def _running(pid: int, started: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[2] == started and stat[1] != "Z"


def _assert_none_left(family: dict[int, tuple[int, str]]) -> None:
    """The pool's two workers and its resource tracker were there; all end (the tracker
    when the last holder of its pipe is gone)."""
    commands = [cmd for _, cmd in family.values()]
    assert sum("spawn_main" in c for c in commands) == 2, commands
    assert sum("resource_tracker" in c for c in commands) == 1, commands
    deadline = time.monotonic() + 10
    while any(_running(pid, started) for pid, (started, _) in family.items()):
        assert time.monotonic() < deadline, [c for p, (s, c) in family.items() if _running(p, s)]
        time.sleep(0.05)


class _Command:
    """`carcassonne ARGV` in a subprocess of its own process group; stderr is read as it
    comes (the progress bar)."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "carcassonne_env.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.stderr: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while chunk := self.process.stderr.read(256):
            self.stderr.append(chunk)

    def wait_for(self, condition) -> None:
        deadline = time.monotonic() + 120
        while not condition():
            assert self.process.poll() is None, "".join(self.stderr)  # finished too soon
            assert time.monotonic() < deadline
            time.sleep(0.02)

    def stop(self) -> tuple[str, str]:
        """SIGTERM to the command only (as `kill PID`): its stdout and stderr."""
        self.process.send_signal(signal.SIGTERM)
        stdout = self.process.stdout.read()
        self.process.wait(timeout=60)
        self._reader.join(timeout=10)
        return stdout, "".join(self.stderr)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


# --- comparisons ----------------------------------------------------------------------


def _untimed(value):
    """A JSON value without its timing fields."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _untimed_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return [
            {k: v for k, v in row.items() if not re.match(r"(act_)?seconds", k)}
            for row in csv.DictReader(f)
        ]


def _untimed_markdown(text: str) -> str:
    """The printed tables without their ms/move column (the last, where there is one)."""
    lines, timed, in_table = [], False, False
    for line in text.splitlines():
        if line.startswith("|") and not in_table:  # a table's header
            timed = line.endswith("| ms/move |")
        in_table = line.startswith("|")
        lines.append(line.rsplit("|", 2)[0] + "|" if in_table and timed else line)
    return "\n".join(lines)


# --- SIGTERM, then --resume -----------------------------------------------------------


def test_sigterm_keeps_the_arena_games_and_resume_finishes_the_run(tmp_path, capsys):
    """A real signal to a real process tree: the reported case of issue 75."""
    out, records = tmp_path / "out", tmp_path / "records"
    argv = [*ARENA, *WORKERS, "--out", str(out), "--records", str(records)]
    command = _Command([*argv, "--no-progress"])
    try:
        # Two records: the parent writes a game's record, then counts it.
        command.wait_for(lambda: len(list(records.glob("*.json"))) >= 2)
        family = _descendants(command.process.pid)
        stdout, stderr = command.stop()
    finally:
        command.kill()
    assert command.process.returncode == 130, stderr
    assert "Traceback" not in stderr
    summary = json.loads((out / "summary.json").read_text())
    played = summary["games_played"]
    assert (summary["complete"], summary["games_planned"]) == (False, 200)
    assert 0 < played < 200 and played <= len(list(records.glob("*.json")))
    assert summary["planned_bots"] == ["random", "heuristic"]
    assert stderr.splitlines()[-1] == (
        f"carcassonne: interrupted: {played} of 200 games played; their results are above "
        f"and in {out}; add --resume to play the rest"
    )
    assert len((out / "games.csv").read_text().splitlines()) == played + 1
    assert (out / "leaderboard.md").read_text() == stdout
    _assert_none_left(family)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temp files

    assert main([*argv, "--no-progress", "--resume"]) == 0
    resumed = capsys.readouterr().out
    assert main([*ARENA, *WHOLE, "--out", str(tmp_path / "whole")]) == 0
    whole = capsys.readouterr().out
    assert _untimed(json.loads((out / "summary.json").read_text())) == _untimed(
        json.loads((tmp_path / "whole" / "summary.json").read_text())
    )
    assert _untimed_csv(out / "games.csv") == _untimed_csv(tmp_path / "whole" / "games.csv")
    assert _untimed_markdown(resumed) == _untimed_markdown(whole)
    assert "| 1 | heuristic |" in whole and "Interrupted" not in whole
    assert len(list(records.glob("*.json"))) == 200


def test_sigterm_keeps_the_solo_deals_and_resume_finishes_the_run(tmp_path, capsys):
    saved, deals_csv = tmp_path / "greedy.json", tmp_path / "greedy.csv"
    argv = [*SOLO, *WORKERS, "--json", str(saved), "--csv", str(deals_csv)]
    command = _Command(argv)  # with the progress bar: it says when deals are done
    try:
        command.wait_for(
            lambda: any(int(n) >= 30 for n in re.findall(r"(\d+)/500", "".join(command.stderr)))
        )
        family = _descendants(command.process.pid)
        stdout, stderr = command.stop()
    finally:
        command.kill()
    assert command.process.returncode == 130, stderr
    assert "Traceback" not in stderr
    data = json.loads(saved.read_text())
    played = data["summary"]["deals"]
    assert (data["complete"], data["deals_planned"]) == (False, 500) and 0 < played < 500
    assert [r["deal_seed"] for r in data["rows"]] == list(range(played))
    assert stderr.splitlines()[-1] == (
        f"carcassonne: interrupted: greedy: {played} of 500 deals played; the results of "
        "the deals played are above and in the files written; add --resume to play the "
        "rest"
    )
    assert f"| greedy | 3 | {played} (seeds 0-{played - 1}) |" in stdout
    assert len(deals_csv.read_text().splitlines()) == played + 1
    _assert_none_left(family)

    assert main([*argv, "--no-progress", "--resume"]) == 0
    resumed = capsys.readouterr().out
    whole_json, whole_csv = tmp_path / "whole.json", tmp_path / "whole.csv"
    assert main([*SOLO, *WHOLE, "--json", str(whole_json), "--csv", str(whole_csv)]) == 0
    whole = capsys.readouterr().out
    resumed_data, whole_data = (_untimed(json.loads(f.read_text())) for f in (saved, whole_json))
    assert (resumed_data.pop("workers"), whole_data.pop("workers")) == (2, 1)  # as run
    assert resumed_data == whole_data
    assert _untimed_csv(deals_csv) == _untimed_csv(whole_csv)
    assert _untimed_markdown(resumed) == _untimed_markdown(whole)
    assert "| greedy | 3 | 500 (seeds 0-499) |" in whole


# --- what --resume refuses (one line, status 2) ---------------------------------------


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stopped_arena(tmp_path, capsys, monkeypatch):
    """An --out folder of a 3-bot round-robin stopped after 4 of its 12 games; the argv."""
    argv = [
        "arena",
        "--bots",
        "random,greedy,heuristic",
        "--games",
        "4",
        "--seed",
        "3",
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
    ]
    with monkeypatch.context() as patch:
        interrupt_on_call(patch, agents.arena, "_play_game", 5)  # in the 2nd batch
        assert _run(argv, capsys)[0] == 130
    return argv


def test_a_stopped_arena_run_records_its_whole_plan(stopped_arena, tmp_path):
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["games_played"], summary["games_planned"]) == (4, 12)
    assert summary["bots"] == ["random", "greedy"]  # the table that started
    assert summary["planned_bots"] == ["random", "greedy", "heuristic"]
    saved = read_saved_run(tmp_path / "out")
    assert (saved.complete, saved.games_played, saved.settings.total) == (False, 4, 12)
    rows = read_games_csv(tmp_path / "out" / "games.csv", 2)
    assert [(r.table, r.game) for r in rows] == [(0, 0), (0, 1), (0, 2), (0, 3)]


@pytest.mark.parametrize(
    "change, message",
    [
        (
            [],
            "{out} holds a stopped run (4 of 12 games played): add --resume to play the rest, "
            "or give another --out",
        ),
        (
            ["--resume", "--seed", "4"],
            "{out} holds a run with other settings (seed: saved 3, "
            "given 4); --resume needs the options of that run",
        ),
        (
            ["--resume", "--bots", "random,greedy"],
            "{out} holds a run with other settings (bots: saved random,greedy,heuristic, given "
            "random,greedy); --resume needs the options of that run",
        ),
        (["--resume", "--farm-scoring", "city"], "(rule farm_scoring: saved field, given city)"),
    ],
)
def test_resume_refuses_other_settings_and_a_new_run_keeps_a_stopped_one(
    stopped_arena, change, message, tmp_path, capsys
):
    out = tmp_path / "out"
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, stdout, err = _run(stopped_arena + change, capsys)
    assert (code, stdout) == (2, "")
    assert err.count("\n") == 1 and message.format(out=out) in err
    assert err.startswith("carcassonne: error: ")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_resume_refuses_when_there_is_nothing_to_resume(stopped_arena, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(stopped_arena + ["--resume"], capsys)[0] == 0
    code, _, err = _run(stopped_arena + ["--resume"], capsys)
    assert (code, err) == (
        2,
        f"carcassonne: error: nothing to resume: {out} holds a complete run (12 games)\n",
    )
    code, _, err = _run(stopped_arena[:-1] + [str(tmp_path / "empty"), "--resume"], capsys)
    assert (code, err) == (
        2,
        f"carcassonne: error: nothing to resume: no summary.json in {tmp_path / 'empty'}\n",
    )
    code, _, err = _run(stopped_arena[:-2] + ["--resume"], capsys)
    assert (code, err) == (
        2,
        "carcassonne: error: --resume finishes the run saved in --out DIR: give --out\n",
    )
    # A complete run is replaced by a new one, as before, and the line says so.
    code, _, err = _run(stopped_arena, capsys)
    assert code == 0 and err == (
        f"wrote summary.json, games.csv, leaderboard.csv, "
        f"leaderboard.md to {out} (replacing the complete run "
        "there)\n"
    )


def test_a_resumed_run_stopped_again_keeps_both_parts(stopped_arena, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        interrupt_on_call(patch, agents.arena, "_play_game", 3)  # 2 more games
        code, _, err = _run(stopped_arena + ["--resume"], capsys)
    assert code == 130 and "interrupted: 6 of 12 games played" in err
    assert [(r.table, r.game) for r in read_games_csv(out / "games.csv", 2)] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 0),
        (1, 1),
    ]
    assert _run(stopped_arena + ["--resume"], capsys)[0] == 0
    whole = run_arena(["random", "greedy", "heuristic"], games=4, seed=3, progress=False)
    assert _untimed(json.loads((out / "summary.json").read_text())) == _untimed(whole.to_dict())


def test_resume_refuses_saved_files_that_do_not_match(stopped_arena, tmp_path, capsys):
    out = tmp_path / "out"
    games = (out / "games.csv").read_text().splitlines()
    (out / "games.csv").write_text("\n".join(games[:-1]) + "\n")
    code, _, err = _run(stopped_arena + ["--resume"], capsys)
    assert (code, err) == (
        2,
        f"carcassonne: error: {out / 'games.csv'} has 3 games but "
        "summary.json says 4 were played\n",
    )
    cells = games[1].split(",")
    cells[9] = "1" if cells[9] == "0" else "0"  # winners the scores do not make
    (out / "games.csv").write_text("\n".join([games[0], ",".join(cells), *games[2:]]))
    code, _, err = _run(stopped_arena + ["--resume"], capsys)
    assert code == 2 and "played game (table 0, game 0) has winners" in err
    (out / "games.csv").write_text("\n".join([games[0], "0,0,x", *games[2:]]))
    code, _, err = _run(stopped_arena + ["--resume"], capsys)
    assert code == 2 and f"{out / 'games.csv'}: line 2: 3 cells, expected 14" in err
    for text in ("{", "[]", '{"bots": "random"}', "[" * 100_000):
        (out / "summary.json").write_text(text)
        code, _, err = _run(stopped_arena + ["--resume"], capsys)
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith(f"carcassonne: error: {out / 'summary.json'}: not an arena summary")


def test_solo_bench_resume_refusals(tmp_path, capsys, monkeypatch):
    saved = tmp_path / "r.json"
    argv = [
        "solo-bench",
        "--bot",
        "random",
        "--deals",
        "6",
        "--seed",
        "1",
        "--no-progress",
        "--json",
        str(saved),
    ]
    with monkeypatch.context() as patch:
        interrupt_on_call(patch, agents.solo_bench, "play_deal", 3)
        assert _run(argv, capsys)[0] == 130
    before = saved.read_bytes()
    for change, line in (
        (
            [],
            f"{saved} holds a stopped run (2 of 6 deals played): add --resume to play "
            "the rest, or give another --json",
        ),
        (
            ["--resume", "--deals", "7"],
            f"{saved} holds a run with other settings "
            "(deals: saved 6, given 7); --resume needs the options of that run",
        ),
        (["--resume", "--solo-colours", "4"], "(rule solo_colours: saved 3, given 4)"),
        (
            ["--resume", "--json", str(tmp_path / "x.json")],
            f"nothing to resume: {tmp_path / 'x.json'} not found",
        ),
    ):
        code, out, err = _run(argv + change, capsys)
        assert (code, out) == (2, "") and err.count("\n") == 1 and line in err, err
    assert saved.read_bytes() == before
    code, _, err = _run(["solo-bench", "--resume"], capsys)
    assert (code, err) == (
        2,
        "carcassonne: error: --resume finishes the run saved in --json FILE: give --json\n",
    )
    assert _run(argv + ["--resume"], capsys)[0] == 0
    result = SoloBenchResult.from_json(saved)
    assert result.complete and [r.deal_seed for r in result.rows] == list(range(6))
    whole = run_solo_bench("random", deals=6, seed=1, progress=False)
    assert [r.result for r in result.rows] == [r.result for r in whole.rows]
    code, _, err = _run(argv + ["--resume"], capsys)
    assert (code, err) == (
        2,
        f"carcassonne: error: nothing to resume: {saved} holds a complete run\n",
    )


def test_several_solo_bots_resume_bot_by_bot(tmp_path, capsys, monkeypatch):
    """Stopped in the second bot: the first bot's complete run is kept, the second
    finished; the third was never started and is played whole."""
    argv = [
        "solo-bench",
        "--bot",
        "random,greedy,heuristic",
        "--deals",
        "3",
        "--no-progress",
        "--json",
        str(tmp_path / "r.json"),
    ]
    with monkeypatch.context() as patch:
        interrupt_on_call(patch, agents.solo_bench, "play_deal", 5)
        code, _, err = _run(argv, capsys)
    assert code == 130 and "greedy: 1 of 3 deals played" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-greedy.json", "r-random.json"]
    first = (tmp_path / "r-random.json").read_bytes()
    code, out, _ = _run(argv + ["--resume"], capsys)
    assert code == 0 and (tmp_path / "r-random.json").read_bytes() == first
    for bot in ("random", "greedy", "heuristic"):
        result = SoloBenchResult.from_json(tmp_path / f"r-{bot}.json")
        assert result.complete and f"| {bot} | 3 | 3 (seeds 0-2) |" in out
        assert [r.result for r in result.rows] == [
            r.result for r in run_solo_bench(bot, deals=3, progress=False).rows
        ]


# --- the library ----------------------------------------------------------------------


def test_run_arena_plays_only_the_games_not_played():
    whole = run_arena(["random", "greedy"], games=6, seed=2, progress=False)
    kept = [whole.rows[k] for k in (0, 1, 4)]  # gaps are fine
    resumed = run_arena(["random", "greedy"], games=6, seed=2, progress=False, played=kept)
    assert resumed.rows[:2] == whole.rows[:2] and resumed.rows[4] == whole.rows[4]
    untimed = [(r.table, r.game, r.bots, r.scores, r.winners, r.moves) for r in resumed.rows]
    assert untimed == [(r.table, r.game, r.bots, r.scores, r.winners, r.moves) for r in whole.rows]
    assert [(s.bot, s.wins) for s in resumed.leaderboard] == [
        (s.bot, s.wins) for s in whole.leaderboard
    ]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"table": 1}, r"played game \(table 1, game 0\) is not a game of this run"),
        ({"deck_seed": 7}, "has deck_seed 7; this run's is"),
        ({"bots": ("greedy", "random")}, r"has bots \('greedy', 'random'\); this run's is"),
        ({"scores": (1, 2, 3)}, "has 3 scores for 2 seats"),
        ({"winners": (0, 1)}, r"has winners \(0, 1\)"),
    ],
)
def test_run_arena_checks_the_played_games(change, message):
    row = run_arena(["random", "greedy"], games=2, seed=2, progress=False).rows[0]
    assert row.winners == (1,)  # greedy (seat 1) beats random: (0, 1) is wrong
    bad = GameRow(**{**row.__dict__, **change})
    with pytest.raises(ValueError, match=message):
        run_arena(["random", "greedy"], games=2, seed=2, progress=False, played=[bad])
    with pytest.raises(ValueError, match="is given twice"):
        run_arena(["random", "greedy"], games=2, seed=2, progress=False, played=[row, row])


def test_run_solo_bench_checks_the_played_deals():
    rows = run_solo_bench("random", deals=3, seed=1, progress=False).rows
    for played, message in (([rows[0]], "bot seed"), ([rows[0], rows[0]], "given twice")):
        with pytest.raises(ValueError, match=message):
            run_solo_bench(
                "random", deals=3, seed=1 + (message == "bot seed"), progress=False, played=played
            )
    with pytest.raises(ValueError, match="played deal 0 is not a deal of this run"):
        run_solo_bench("random", deals=3, first_deal=1, seed=1, progress=False, played=[rows[0]])


def test_a_saved_solo_result_with_bad_rows_is_one_value_error(tmp_path):
    good = run_solo_bench("random", deals=2, progress=False).to_dict()
    for rows in ([{"deal_seed": 0}], [dict(good["rows"][0], result="9")], "rows", []):
        (tmp_path / "r.json").write_text(json.dumps(dict(good, rows=rows)))
        with pytest.raises(ValueError, match=r"r\.json: not a solo benchmark result: "):
            SoloBenchResult.from_json(tmp_path / "r.json")
    (tmp_path / "r.json").write_text(json.dumps(dict(good, deals_planned=1)))
    with pytest.raises(ValueError, match="deals_planned must be an integer >= 2"):
        SoloBenchResult.from_json(tmp_path / "r.json")


def test_outputs_are_written_whole(tmp_path, monkeypatch):
    """Every output goes through the atomic writer: when the final move of a file
    fails, the previous file is left as it was, and no temporary file."""
    import carcassonne_env.atomic

    result = run_arena(["random", "greedy"], games=2, progress=False)
    solo = run_solo_bench("random", deals=2, progress=False)
    writers = {
        "summary.json": result.to_json,
        "games.csv": result.to_csv,
        "leaderboard.csv": result.leaderboard_csv,
        "solo.json": solo.to_json,
        "solo.csv": solo.to_csv,
    }
    if importlib.util.find_spec("matplotlib") is not None:
        writers["hist.png"] = solo.histogram_png
    for name in writers:
        (tmp_path / name).write_text("previous")

    def failing_replace(source, destination):
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(carcassonne_env.atomic.os, "replace", failing_replace)
        for name, write in writers.items():
            with pytest.raises(OSError, match="disk full"):
                write(tmp_path / name)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(writers)
    assert all((tmp_path / name).read_text() == "previous" for name in writers)


def test_train_evaluate_keeps_the_games_played(tmp_path, capsys, monkeypatch):
    """`train evaluate --out` stopped (Ctrl-C or SIGTERM, as in the arena): the table
    of the games played, their files in --out, one line."""
    import training.evaluate

    rules = Rules(players=2)
    monkeypatch.setattr(training.evaluate, "load_model", lambda path: None)
    monkeypatch.setattr(training.evaluate, "model_rules", lambda model: rules)
    with pytest.raises(Interrupted) as stop:
        with monkeypatch.context() as patch:
            interrupt_on_call(patch, agents.arena, "_play_game", 3)
            run_arena(["random", "greedy"], games=4, progress=False)

    def stopped_arena(*args, **kwargs):
        raise stop.value

    monkeypatch.setattr(agents.arena, "run_arena", stopped_arena)
    out = tmp_path / "eval"
    code, stdout, err = _run(
        [
            "train",
            "evaluate",
            "model.zip",
            "--opponents",
            "greedy",
            "--out",
            str(out),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 130
    assert err == (
        f"carcassonne: interrupted: 2 of 4 games played; their results are above and in {out}\n"
    )
    assert "Interrupted: partial results of the 2 games played" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["complete"], summary["games_played"]) == (False, 2)
    assert len((out / "games.csv").read_text().splitlines()) == 3
