"""Tournaments between bots: round-robin or gauntlet tables, paired decks with rotated
seats, win rates with Wilson intervals, score margins, OpenSkill ratings, time per move.

    result = run_arena(["random", "greedy"], games=20, seed=1)
    print(result.to_markdown())

Every game is a pure function of the run seed, its deck, the seating and the bots' specs,
so the results (all but the timings) are the same whatever the number of workers or the
backend. A stopped run resumes: `run_arena(..., played=rows)` plays only the games not in
`rows` (`read_saved_run` and `read_games_csv` read what `carcassonne arena --out` saved).
The scheme, the columns and the Ray setup are described in docs/arena.md.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import math
import random
import re
import statistics
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from openskill.models import PlackettLuce

from carcassonne_env import Game, IllegalMoveError, Rules
from carcassonne_env.atomic import atomic_open, write_json
from carcassonne_env.bots import make_bot
from carcassonne_env.checks import check_bool, check_int
from carcassonne_env.cli_errors import Interrupted

from .catalog import warm_up
from .parallel import read_json_file, run_jobs, setting_differences
from .stats import mean_interval, wilson_interval

RATING_ORDERS = 8  # shuffled game orders the ratings are averaged over


def deck_seed(seed: int, deck: int) -> int:
    """Seed of deck `deck` in a run seeded `seed`: `Game(rules, seed=deck_seed(seed, deck))`
    deals the same tiles."""
    return int(np.random.SeedSequence([seed, 0, deck]).generate_state(1)[0])


# A copy of a bot in a table: "heuristic#2" is the heuristic in a second seat.
_COPY_LABEL = re.compile(r"#[0-9]+$")


def copies(specs: Sequence[str]) -> list[str]:
    """`specs` with every repeat of a spec labelled as a copy, so that one bot can fill
    several seats and each seat keeps its own results: ``["ppo", "heuristic",
    "heuristic"]`` -> ``["ppo", "heuristic", "heuristic#2"]``. A label ``#K`` at the end
    of a spec names the same bot (`copied_spec`)."""
    seen: dict[str, int] = {}
    labelled = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labelled.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labelled


def copied_spec(spec: str) -> str:
    """The bot spec of a seat's spec: its copy label (`copies`) dropped."""
    return _COPY_LABEL.sub("", spec)


def bot_seed(seed: int, deck: int, seat: int, spec: str) -> int:
    """Seed of the bot `spec` playing seat `seat` on deck `deck`. It does not depend on
    the table or the other bots in the run: adding a bot leaves the other games as they
    were."""
    key = int.from_bytes(hashlib.sha256(spec.encode()).digest()[:4], "little")
    return int(np.random.SeedSequence([seed, 1, deck, seat, key]).generate_state(1)[0])


@dataclass(frozen=True)
class ArenaSettings:
    """What fixes every game of a run (`arena_settings` checks it): the bots (a gauntlet
    bot first), the seats, the games per table, the seed, the gauntlet bot and the rules."""

    bots: tuple[str, ...]
    players: int
    games: int  # per table
    seed: int
    gauntlet: str | None
    rules: Rules

    @property
    def tables(self) -> list[tuple[str, ...]]:
        """The bots of each table, in rotation-0 seat order."""
        return _tables(list(self.bots), self.players, self.gauntlet)

    @property
    def total(self) -> int:
        """Games of the whole run."""
        return self.games * len(self.tables)

    def differences(self, other: ArenaSettings) -> list[str]:
        """One ``"name: saved MINE, given OTHER'S"`` entry per setting that differs from
        `other`'s (`agents.parallel.setting_differences`)."""
        mine, theirs = (
            dict(
                bots=",".join(s.bots),
                games=s.games,
                seed=s.seed,
                gauntlet=s.gauntlet,
                rules=s.rules,
            )  # players: in the rules
            for s in (self, other)
        )
        return setting_differences(mine, theirs)


def arena_settings(
    bots: Sequence[str],
    *,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    gauntlet: str | None = None,
    rules: Rules | None = None,
) -> ArenaSettings:
    """The settings of a run of `run_arena` with these arguments (see there), checked:
    ValueError for games not a multiple of players, too few bots for a table... A spec
    given more than once is a copy of that bot: its repeats are labelled (`copies`). The
    bot specs are not built here (`run_arena` does)."""
    bots = copies(bots)
    if gauntlet is not None and gauntlet not in bots:
        bots.insert(0, gauntlet)
    if len(set(bots)) != len(bots):
        raise ValueError(
            f"bots must be distinct once copies are labelled, got {bots} "
            f"(a repeated spec is labelled SPEC#2, SPEC#3...: give those labels once)"
        )
    if rules is None:
        rules = Rules(players=2 if players is None else players)
    elif players is not None and players != rules.players:
        raise ValueError(f"players={players} but rules.players={rules.players}")
    if rules.variant == "solo":
        raise ValueError(
            "the arena plays multi-player games; the solo variant has its own benchmark"
        )
    players = rules.players
    if players < 2:
        raise ValueError(f"the arena needs at least 2 players, got {players}")
    if isinstance(games, bool) or not isinstance(games, int) or games < players or games % players:
        raise ValueError(
            f"games (per table) must be a positive multiple of players="
            f"{players} (each deck is played once per seat rotation), "
            f"got {games!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    _tables(bots, players, gauntlet)  # too few bots for a table fails here
    return ArenaSettings(tuple(bots), players, games, seed, gauntlet, rules)


@dataclass(frozen=True)
class GameRow:
    """One finished game. Per-seat tuples are in seat order (seat 0 moves first)."""

    table: int  # index into ArenaResult.tables
    game: int  # index in the table: deck * players + rotation
    deck: int
    deck_seed: int
    rotation: int  # seat s is played by table bot (s + rotation) % players
    bots: tuple[str, ...]  # seat -> bot spec
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # seats with the top score (more than one: a draw)
    moves: tuple[int, ...]  # act() calls per seat
    seconds: tuple[float, ...]  # total act() wall time per seat

    def outcome(self, seat: int) -> str:
        """ "win" (sole top score), "draw" (shared top score) or "loss"."""
        if seat not in self.winners:
            return "loss"
        return "win" if len(self.winners) == 1 else "draw"

    def margin(self, seat: int) -> int:
        """The seat's score minus the best score among the other seats."""
        return self.scores[seat] - max(s for k, s in enumerate(self.scores) if k != seat)


@dataclass(frozen=True)
class Standing:
    """A bot's results over a set of games (a table, or the whole run). The win rate is
    the bot's win share: a top score shared by k seats counts 1/k of a win (a 2-player
    draw: half), so the seats' shares add up to 1; `win_lo`/`win_hi` is its Wilson 95%
    interval and `margin_lo`/`margin_hi` the normal 95% interval of the mean margin (None
    under 2 games)."""

    bot: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_lo: float
    win_hi: float
    mean_score: float
    mean_margin: float
    margin_lo: float | None
    margin_hi: float | None
    moves: int
    seconds: float

    @property
    def seconds_per_move(self) -> float:
        """Mean wall time of one act() call."""
        return self.seconds / self.moves if self.moves else 0.0


@dataclass(frozen=True)
class Rating:
    """OpenSkill (Plackett-Luce) rating; `ordinal` = mu - 3 sigma ranks the leaderboard."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative rating the ladder ranks by: mu - 3 sigma (OpenSkill's ordinal)."""
        return self.mu - 3 * self.sigma


def _standing(bot: str, games: Sequence[tuple[GameRow, int]]) -> Standing:
    outcomes = [row.outcome(seat) for row, seat in games]
    wins, draws = outcomes.count("win"), outcomes.count("draw")
    n = len(games)
    won = sum(1 / len(row.winners) for row, seat in games if seat in row.winners)
    margins = [row.margin(seat) for row, seat in games]
    lo, hi = wilson_interval(won, n)
    interval = mean_interval(margins)
    return Standing(
        bot=bot,
        games=n,
        wins=wins,
        draws=draws,
        losses=n - wins - draws,
        win_rate=won / n,
        win_lo=lo,
        win_hi=hi,
        mean_score=statistics.fmean(row.scores[seat] for row, seat in games),
        mean_margin=statistics.fmean(margins),
        margin_lo=interval[0] if interval else None,
        margin_hi=interval[1] if interval else None,
        moves=sum(row.moves[seat] for row, seat in games),
        seconds=sum(row.seconds[seat] for row, seat in games),
    )


@dataclass
class ArenaResult:
    """The games of a run and their statistics (computed on first use)."""

    bots: list[str]
    players: int
    games: int  # per table
    seed: int
    rules: Rules
    gauntlet: str | None
    tables: list[tuple[str, ...]]  # the bots of each table, in rotation-0 seat order
    rows: list[GameRow] = field(repr=False)
    complete: bool = True  # False: a Ctrl-C stopped the run (`rows` are the games played)
    # Every bot of the run; a stopped run's `bots` and `tables` are those that played.
    planned_bots: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.planned_bots:
            self.planned_bots = list(self.bots)

    @property
    def settings(self) -> ArenaSettings:
        """The settings of the run (of all its games, played or not)."""
        return ArenaSettings(
            tuple(self.planned_bots), self.players, self.games, self.seed, self.gauntlet, self.rules
        )

    def _games_of(self, bot: str, table: int | None = None) -> list[tuple[GameRow, int]]:
        return [
            (row, row.bots.index(bot))
            for row in self.rows
            if bot in row.bots and (table is None or row.table == table)
        ]

    @cached_property
    def ratings(self) -> dict[str, Rating]:
        """OpenSkill Plackett-Luce ratings (no skill drift: tau = 0; equal scores are tied
        ranks). Online ratings depend on the order of the games, so they are averaged over
        RATING_ORDERS fixed shuffles of the games (the same whatever the seed)."""
        model = PlackettLuce(tau=0.0)
        mu = dict.fromkeys(self.bots, 0.0)
        sigma = dict.fromkeys(self.bots, 0.0)
        for order in range(RATING_ORDERS):
            current = {bot: model.rating(name=bot) for bot in self.bots}
            rows = list(self.rows)
            random.Random(order).shuffle(rows)
            for row in rows:
                teams = [[current[bot]] for bot in row.bots]
                ranks: list[float] = [sum(s > mine for s in row.scores) for mine in row.scores]
                rated = model.rate(teams, ranks=ranks)
                for bot, [rating] in zip(row.bots, rated, strict=True):
                    current[bot] = rating
            for bot, r in current.items():
                mu[bot] += r.mu / RATING_ORDERS
                sigma[bot] += r.sigma / RATING_ORDERS
        return {bot: Rating(mu[bot], sigma[bot]) for bot in self.bots}

    @cached_property
    def leaderboard(self) -> list[Standing]:
        """Every bot over all its games, best rating (ordinal) first."""
        standings = [_standing(bot, self._games_of(bot)) for bot in self.bots]
        return sorted(
            standings, key=lambda s: (-self.ratings[s.bot].ordinal, -self.ratings[s.bot].mu, s.bot)
        )

    @cached_property
    def table_standings(self) -> list[list[Standing]]:
        """For each table, each of its bots' results there (in the table's bot order)."""
        return [
            [_standing(bot, self._games_of(bot, t)) for bot in bots]
            for t, bots in enumerate(self.tables)
        ]

    def pairwise(self) -> dict[tuple[str, str], Standing]:
        """2 players: (A, B) -> A's results against B (both orders). Empty otherwise."""
        if self.players != 2:
            return {}
        pairs = {}
        for (a, b), (sa, sb) in zip(self.tables, self.table_standings, strict=True):
            pairs[a, b], pairs[b, a] = sa, sb
        return pairs

    # ---- output ----------------------------------------------------------------------

    def to_markdown(self) -> str:
        """A leaderboard, a "row vs column" win-rate matrix (2 players) and per-table
        results, as markdown tables."""
        order = [s.bot for s in self.leaderboard]
        mode = f"gauntlet of {self.gauntlet}" if self.gauntlet else "round-robin"
        lines = [
            f"{len(self.tables)} table(s), {mode}, {self.players} players, {self.games} "
            f"games per table ({self.games // self.players} decks x {self.players} seat "
            f"rotations), seed {self.seed}",
            *(
                []
                if self.complete
                else [
                    "",
                    f"Interrupted: partial results of the {len(self.rows)} games played "
                    "(see the games column).",
                ]
            ),
            "",
            "| rank | bot | rating | mu | sigma | games | W-D-L | win rate [95% CI] "
            "| mean score | mean margin [95% CI] | ms/move |",
            "|---:|---|---:|---:|---:|---:|---|---|---:|---|---:|",
        ]
        for rank, s in enumerate(self.leaderboard, 1):
            r = self.ratings[s.bot]
            lines.append(
                f"| {rank} | {s.bot} | {r.ordinal:.2f} | {r.mu:.2f} | {r.sigma:.2f} "
                f"| {s.games} | {s.wins}-{s.draws}-{s.losses} | {_rate(s)} "
                f"| {s.mean_score:.1f} | {_margin(s)} | {1000 * s.seconds_per_move:.3g} |"
            )
        pairs = self.pairwise()
        if pairs:
            lines += [
                "",
                "Win rate of the row bot against the column bot [95% CI]:",
                "",
                "| vs | " + " | ".join(order) + " |",
                "|---|" + "---|" * len(order),
            ]
            for a in order:
                cells = [
                    "-" if a == b else _rate(pairs[a, b]) if (a, b) in pairs else "" for b in order
                ]
                lines.append(f"| {a} | " + " | ".join(cells) + " |")
        lines += [
            "",
            "Per table (margin: score minus the best other score):",
            "",
            "| table | bot | games | W-D-L | win rate [95% CI] | mean score "
            "| mean margin [95% CI] | ms/move |",
            "|---|---|---:|---|---|---:|---|---:|",
        ]
        for bots, standings in zip(self.tables, self.table_standings, strict=True):
            label = " vs ".join(bots)
            for s in standings:
                lines.append(
                    f"| {label} | {s.bot} | {s.games} | {s.wins}-{s.draws}-{s.losses} "
                    f"| {_rate(s)} | {s.mean_score:.1f} | {_margin(s)} "
                    f"| {1000 * s.seconds_per_move:.3g} |"
                )
        return "\n".join(lines) + "\n"

    def to_dict(self, games: bool = False) -> dict[str, Any]:
        """Settings, leaderboard (with ratings), per-table standings and, with `games`,
        every game row; JSON-serialisable."""
        out: dict[str, Any] = {
            "bots": self.bots,
            "players": self.players,
            "games_per_table": self.games,
            "complete": self.complete,
            "games_played": len(self.rows),
            "games_planned": self.settings.total,
            "planned_bots": self.planned_bots,
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "rules": self.rules.to_dict(),
            "tables": [list(t) for t in self.tables],
            "leaderboard": [
                {
                    **asdict(s),
                    "seconds_per_move": s.seconds_per_move,
                    **asdict(self.ratings[s.bot]),
                    "ordinal": self.ratings[s.bot].ordinal,
                }
                for s in self.leaderboard
            ],
            "table_standings": [
                {"table": t, "bots": list(bots), "standings": [asdict(s) for s in st]}
                for t, (bots, st) in enumerate(zip(self.tables, self.table_standings, strict=True))
            ],
        }
        if games:
            out["games"] = [asdict(row) for row in self.rows]
        return out

    def to_json(self, path: str | Path, games: bool = False) -> None:
        """Write `to_dict(games)` as JSON (whole or not at all: `carcassonne_env.atomic`)."""
        write_json(path, self.to_dict(games))

    def to_csv(self, path: str | Path) -> None:
        """Write one line per game (columns in docs/arena.md); per-seat values in
        `<name>_<seat>` columns, winners as space-separated seats. `read_games_csv` reads
        it back."""
        with atomic_open(path, newline="") as f:
            writer = csv.writer(f)
            writer.writerow(_csv_header(self.players))
            for r in self.rows:
                writer.writerow(
                    [
                        r.table,
                        r.game,
                        r.deck,
                        r.deck_seed,
                        r.rotation,
                        *r.bots,
                        *r.scores,
                        " ".join(map(str, r.winners)),
                        *r.moves,
                        *(f"{t:.6f}" for t in r.seconds),
                    ]
                )

    def leaderboard_csv(self, path: str | Path) -> None:
        """Write the leaderboard (the `to_dict()["leaderboard"]` entries) as CSV."""
        entries = self.to_dict()["leaderboard"]
        with atomic_open(path, newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(entries[0]))
            writer.writeheader()
            writer.writerows(entries)


def _rate(s: Standing) -> str:
    return f"{s.win_rate:.3f} [{s.win_lo:.3f}, {s.win_hi:.3f}]"


def _margin(s: Standing) -> str:
    if s.margin_lo is None:
        return f"{s.mean_margin:+.1f}"
    return f"{s.mean_margin:+.1f} [{s.margin_lo:+.1f}, {s.margin_hi:+.1f}]"


# ---- running games -------------------------------------------------------------------


class _Batch(NamedTuple):
    """A job: games [start, stop) of one table (module-level and plain data, so that it
    pickles for worker processes and Ray)."""

    table: int
    bots: tuple[str, ...]
    rules: Rules
    seed: int
    start: int
    stop: int
    record: bool
    annotate: bool = False  # records carry the bots' annotations


def _play_game(batch: _Batch, game_index: int) -> tuple[GameRow, dict | None]:
    players = len(batch.bots)
    deck, rotation = divmod(game_index, players)
    seating = _seating(batch.bots, rotation)
    bots = [
        make_bot(copied_spec(spec), seed=bot_seed(batch.seed, deck, s, spec))
        for s, spec in enumerate(seating)
    ]
    dseed = deck_seed(batch.seed, deck)
    game = Game(batch.rules, seed=dseed)
    moves, seconds = [0] * players, [0.0] * players
    notes: list | None = [] if batch.record and batch.annotate else None
    while (seat := game.current_player) is not None:  # None once the game is over
        t0 = time.perf_counter()
        move = bots[seat].act(game)
        seconds[seat] += time.perf_counter() - t0
        moves[seat] += 1
        if notes is not None:  # outside the clock
            from .annotations import explain

            notes.append(explain(bots[seat], game))
        try:
            game.play(move)
        except IllegalMoveError as err:
            raise ValueError(
                f"bot {seating[seat]} played an illegal move {tuple(move)} in "
                f"table {batch.table} game {game_index}: {err}"
            ) from err
    scores = tuple(game.scores)
    row = GameRow(
        table=batch.table,
        game=game_index,
        deck=deck,
        deck_seed=dseed,
        rotation=rotation,
        bots=seating,
        scores=scores,
        winners=_winners(scores),
        moves=tuple(moves),
        seconds=tuple(seconds),
    )
    record = None
    if batch.record:
        record = dict(
            game.to_record(),
            bots=list(seating),
            arena={
                "seed": batch.seed,
                "table": batch.table,
                "game": game_index,
                "deck": deck,
                "deck_seed": dseed,
                "rotation": rotation,
            },
        )
        if notes is not None:
            from carcassonne_env.records import annotations_block

            record["annotations"] = annotations_block(notes)
    return row, record


def _play_batch(batch: _Batch) -> list[tuple[GameRow, dict | None]]:
    for spec in {copied_spec(spec) for spec in batch.bots}:
        warm_up(spec, batch.rules)
    return [_play_game(batch, g) for g in range(batch.start, batch.stop)]


def _tables(bots: list[str], players: int, gauntlet: str | None) -> list[tuple[str, ...]]:
    if gauntlet is None:
        if len(bots) < players:
            raise ValueError(
                f"a round-robin of {players}-player games needs at least "
                f"{players} bots, got {len(bots)}"
            )
        return list(itertools.combinations(bots, players))
    others = [b for b in bots if b != gauntlet]
    if len(others) < players - 1:
        raise ValueError(
            f"a gauntlet of {players}-player games needs at least "
            f"{players - 1} other bots, got {len(others)}"
        )
    return [(gauntlet, *combo) for combo in itertools.combinations(others, players - 1)]


def run_arena(
    bots: Sequence[str],
    *,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    gauntlet: str | None = None,
    rules: Rules | None = None,
    records_dir: str | Path | None = None,
    progress: bool = True,
    backend: str = "process",
    ray_address: str | None = None,
    annotate: bool = False,
    played: Sequence[GameRow] = (),
) -> ArenaResult:
    """Play a tournament and return its games and statistics.

    bots: bot specs for `carcassonne_env.make_bot` (``"greedy"``, ``"mcts:iterations=500"``).
        A spec given twice is two copies of the bot, the second labelled ``SPEC#2``
        (`copies`): ``["ppo", "heuristic", "heuristic"]`` at 3 players is one table, ppo
        against two heuristics. Tables: every combination of `players` bots
        (round-robin), or with `gauntlet` (a spec, added to `bots` if missing) that bot
        against every combination of `players - 1` others.
    players: seats per game; default `rules.players`, else 2.
    games: games per table, a multiple of `players`: each deck is played `players` times
        with the seats rotated, and every table plays the same decks.
    seed: non-negative; decks and bot seeds derive from it (`deck_seed`, `bot_seed`).
    workers: parallel jobs (processes, or Ray tasks in flight); the results but the
        timings do not depend on it.
    rules: default `Rules(players=players)`; the solo variant is not a tournament.
    records_dir: if given, every game's record (`Game.to_record()` plus "bots", seat ->
        spec, and "arena": seed, table, game, deck) is written there as
        ``t<table>_g<game>.json``; `Game.from_record` replays it.
    backend, ray_address: "process" or "ray" (see `agents.parallel.run_jobs`).
    annotate: the records also keep what each bot thought about its moves
        (`agents.annotations.explain`, docs/records.md "Annotations"; needs `records_dir`).
    played: games of this run already played (a stopped run's rows): kept as they are
        (their scores are trusted), only the other games are played (and recorded). Each
        must be a game of these settings: its table's bots in the seats of its rotation,
        its deck's seed; ValueError otherwise. The result is the same as a run that
        played them all.

    Raises ValueError for bad arguments (unknown bot, games not a multiple of players...).
    A Ctrl-C (or SIGTERM under `sigterm_as_interrupt`) raises
    `carcassonne_env.cli_errors.Interrupted` whose `partial` is the result of the games
    played so far, those of `played` included (None if none).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    settings = arena_settings(
        bots, players=players, games=games, seed=seed, gauntlet=gauntlet, rules=rules
    )
    for spec in settings.bots:  # fail fast, before any worker starts
        make_bot(copied_spec(spec), seed=0)
    if annotate and records_dir is None:
        raise ValueError("annotate=True writes into the records: give records_dir")
    rows = _checked_played(played, settings)
    jobs = _jobs(
        settings,
        {(row.table, row.game) for row in rows},
        workers,
        records_dir is not None,
        bool(annotate),
    )
    if records_dir is not None:
        records_dir = Path(records_dir)
        records_dir.mkdir(parents=True, exist_ok=True)
    batches = run_jobs(
        _play_batch,
        jobs,
        workers,
        progress=progress,
        desc="arena",
        unit="game",
        weights=[b.stop - b.start for b in jobs],
        backend=backend,
        address=ray_address,
    )
    try:
        with closing(batches):  # a Ctrl-C stops the workers now, not at exit
            for batch in batches:
                for row, record in batch:
                    # Record first, then count: a Ctrl-C in between never counts a game
                    # whose record is missing. (Games have records with a records_dir.)
                    if record is not None and records_dir is not None:
                        write_json(
                            records_dir / f"t{row.table:02d}_g{row.game:05d}.json",
                            record,
                            indent=None,
                        )
                    rows.append(row)
    except KeyboardInterrupt:
        raise Interrupted(
            f"{len(rows)} of {settings.total} games played", _partial(settings, rows)
        ) from None
    return _result(settings, rows)


def _jobs(
    settings: ArenaSettings, done: set[tuple[int, int]], workers: int, record: bool, annotate: bool
) -> list[_Batch]:
    """The jobs that play the games not in `done` ((table, game) pairs), table by table.
    Jobs of a few decks each: enough jobs to balance the workers, few enough that per-job
    overhead stays small. The split does not change any game."""
    tables, players = settings.tables, settings.players
    decks = (settings.total - len(done)) // players
    size = players * min(8, max(1, decks // (4 * workers)))  # games per job
    jobs = []
    for t, table_bots in enumerate(tables):
        todo = [g for g in range(settings.games) if (t, g) not in done]
        for start, stop in _ranges(todo, size):
            jobs.append(
                _Batch(t, table_bots, settings.rules, settings.seed, start, stop, record, annotate)
            )
    return jobs


def _ranges(indices: list[int], size: int) -> list[tuple[int, int]]:
    """Increasing `indices` as [start, stop) ranges of consecutive indices, each at most
    `size` long."""
    ranges: list[tuple[int, int]] = []
    for i in indices:
        if ranges and ranges[-1][1] == i and i - ranges[-1][0] < size:
            ranges[-1] = (ranges[-1][0], i + 1)
        else:
            ranges.append((i, i + 1))
    return ranges


def _checked_played(played: Sequence[GameRow], settings: ArenaSettings) -> list[GameRow]:
    """`played` in game order, each checked to be a distinct game of `settings`."""
    tables, players = settings.tables, settings.players
    seen: set[tuple[int, int]] = set()
    for row in played:
        if not isinstance(row, GameRow):
            raise ValueError(f"played must hold GameRow games, got {row!r}")
        where = f"played game (table {row.table}, game {row.game})"
        if not (
            isinstance(row.table, int)
            and 0 <= row.table < len(tables)
            and isinstance(row.game, int)
            and 0 <= row.game < settings.games
        ):
            raise ValueError(
                f"{where} is not a game of this run: {len(tables)} table(s) "
                f"of {settings.games} games"
            )
        if (row.table, row.game) in seen:
            raise ValueError(f"{where} is given twice")
        seen.add((row.table, row.game))
        deck, rotation = divmod(row.game, players)
        expected = {
            "deck": deck,
            "rotation": rotation,
            "deck_seed": deck_seed(settings.seed, deck),
            "bots": _seating(tables[row.table], rotation),
        }
        for name, value in expected.items():
            if getattr(row, name) != value:
                raise ValueError(
                    f"{where} has {name} {getattr(row, name)!r}; this run's is {value!r}"
                )
        for name in ("scores", "moves", "seconds"):
            if len(getattr(row, name)) != players:
                raise ValueError(
                    f"{where} has {len(getattr(row, name))} {name} for {players} seats"
                )
        if row.winners != _winners(row.scores):
            raise ValueError(
                f"{where} has winners {row.winners}; its scores {row.scores} "
                f"make {_winners(row.scores)}"
            )
    return _in_game_order(played)


def _in_game_order(rows: Sequence[GameRow]) -> list[GameRow]:
    """`rows` table by table, each table's in game order: the order of a run's rows (and
    of the games its ratings read)."""
    return sorted(rows, key=lambda row: (row.table, row.game))


def _seating(table_bots: tuple[str, ...], rotation: int) -> tuple[str, ...]:
    """Seat -> bot spec of a table's game with this seat rotation."""
    players = len(table_bots)
    return tuple(table_bots[(s + rotation) % players] for s in range(players))


def _winners(scores: tuple[int, ...]) -> tuple[int, ...]:
    """The seats with the top score."""
    return tuple(s for s, score in enumerate(scores) if score == max(scores))


def _result(settings: ArenaSettings, rows: list[GameRow]) -> ArenaResult:
    """The result of the whole run."""
    return ArenaResult(
        bots=list(settings.bots),
        players=settings.players,
        games=settings.games,
        seed=settings.seed,
        rules=settings.rules,
        gauntlet=settings.gauntlet,
        tables=settings.tables,
        rows=_in_game_order(rows),
    )


def _partial(settings: ArenaSettings, rows: list[GameRow]) -> ArenaResult | None:
    """The result of the games played before a Ctrl-C (None if none): the tables that
    started (jobs run table by table, so a prefix of the tables) and their bots."""
    if not rows:
        return None
    started = settings.tables[: max(row.table for row in rows) + 1]
    playing = [b for b in settings.bots if any(b in t for t in started)]
    return ArenaResult(
        bots=playing,
        players=settings.players,
        games=settings.games,
        seed=settings.seed,
        rules=settings.rules,
        gauntlet=settings.gauntlet,
        tables=started,
        rows=_in_game_order(rows),
        complete=False,
        planned_bots=list(settings.bots),
    )


# ---- resuming a saved run -------------------------------------------------------------


class SavedRun(NamedTuple):
    """What the summary.json of `carcassonne arena --out` says about its run."""

    settings: ArenaSettings
    complete: bool
    games_played: int


def read_saved_run(folder: str | Path) -> SavedRun | None:
    """The run whose summary.json (`ArenaResult.to_json`) is in `folder`; None if there is
    none. ValueError naming the file if it is not an arena summary."""
    path = Path(folder) / "summary.json"
    if not path.exists():
        return None
    data = read_json_file(path, "an arena summary")
    try:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        bots = data.get("planned_bots", data.get("bots"))
        if not (isinstance(bots, list) and all(isinstance(b, str) for b in bots)):
            raise ValueError("bots: not a list of bot specs")
        gauntlet = data.get("gauntlet")
        if gauntlet is not None and not isinstance(gauntlet, str):
            raise ValueError("gauntlet: not a bot spec")
        if not isinstance(data.get("rules"), dict):
            raise ValueError("rules: not a JSON object")
        settings = arena_settings(
            bots,
            players=check_int("players", data.get("players"), 2),
            games=check_int("games_per_table", data.get("games_per_table"), 1),
            seed=check_int("seed", data.get("seed"), 0),
            gauntlet=gauntlet,
            rules=Rules.from_dict(data["rules"]),
        )
        # Summaries from before Ctrl-C kept games have neither: complete runs.
        complete = check_bool("complete", data.get("complete", True))
        played = check_int(
            "games_played", data.get("games_played", settings.total), 0, settings.total
        )
    except (ValueError, TypeError) as err:
        raise ValueError(f"{path}: not an arena summary: {err}") from None
    return SavedRun(settings, complete, played)


def _csv_header(players: int) -> list[str]:
    seats = range(players)
    return [
        "table",
        "game",
        "deck",
        "deck_seed",
        "rotation",
        *(f"bot_{s}" for s in seats),
        *(f"score_{s}" for s in seats),
        "winners",
        *(f"moves_{s}" for s in seats),
        *(f"seconds_{s}" for s in seats),
    ]


def read_games_csv(path: str | Path, players: int) -> list[GameRow]:
    """The games of a games.csv (`ArenaResult.to_csv`) of `players`-player games, read
    back as `GameRow`s (the seconds to the microsecond). ValueError naming the file and
    line if it is not one."""
    header = _csv_header(players)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = csv.reader(f)
            if next(lines, None) != header:
                raise ValueError(
                    f"{path}: not the games.csv of a {players}-player arena run "
                    f"(its first line is not {','.join(header)})"
                )
            rows = []
            for number, cells in enumerate(lines, 2):
                try:
                    rows.append(_game_row(cells, players, len(header)))
                except ValueError as err:
                    raise ValueError(f"{path}: line {number}: {err}") from None
    except (UnicodeDecodeError, csv.Error) as err:
        raise ValueError(f"{path}: not a games.csv: {err}") from None
    return rows


def _game_row(cells: list[str], players: int, columns: int) -> GameRow:
    """One line of games.csv as a GameRow; ValueError if a cell is not what its column
    holds."""
    if len(cells) != columns:
        raise ValueError(f"{len(cells)} cells, expected {columns}")
    table, game, deck, dseed, rotation = (int(c) for c in cells[:5])
    bots = tuple(cells[5 : 5 + players])
    scores = tuple(int(c) for c in cells[5 + players : 5 + 2 * players])
    winners = tuple(int(c) for c in cells[5 + 2 * players].split())
    moves = tuple(int(c) for c in cells[6 + 2 * players : 6 + 3 * players])
    seconds = tuple(float(c) for c in cells[6 + 3 * players :])
    if not all(math.isfinite(t) and t >= 0 for t in seconds):
        raise ValueError(f"seconds must be finite and >= 0, got {seconds}")
    return GameRow(
        table=table,
        game=game,
        deck=deck,
        deck_seed=dseed,
        rotation=rotation,
        bots=bots,
        scores=scores,
        winners=winners,
        moves=moves,
        seconds=seconds,
    )
