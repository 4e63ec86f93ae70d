"""The benchmark protocol (``carcassonne benchmark BOT``): one bot at the reference tables.

    result = run_benchmark("heuristic", budget=QUICK)
    print(result.to_markdown())

The tables (`TABLES`): 2 players, 3 players, 4 players, 2 players with both expansions,
and solo. At each multi-player table the bot plays a gauntlet (`agents.arena.run_arena`)
against the table's opponents (`opponents`): the reference bots (`REFERENCE_BOTS`: the
heuristic, mcts at the budget's iterations) and the table's shipped learned model where
one is shipped, seats left over filled by `FILLERS`; every lineup plays the same decks,
each once per seat rotation. Solo, the bot plays the budget's deals
(`agents.solo_bench.run_solo_bench`) and the references (the heuristic, the shipped solo
model) play the same deals. Decks, deals and bot seeds derive from the run's seed, so
the same seed gives the same results (all but the timings) for any number of workers.
The protocol is described in docs/benchmark.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from carcassonne_env import Rules
from carcassonne_env.atomic import write_json, write_text
from carcassonne_env.bots import make_bot
from carcassonne_env.checks import check_int
from carcassonne_env.cli_errors import Interrupted

from .arena import ArenaResult, Standing, run_arena
from .catalog import warm_up
from .sb3_policy import shipped_models
from .solo_bench import SoloBenchResult, _machine, markdown_table, run_solo_bench
from .solo_compare import compare_runs

#: How a table where the bot raised an error in the middle of a game is reported.
STOPPED = "stopped by an error"
#: The names of the files a run writes into its folder.
SUMMARY_FILES = ("summary.json", "summary.md")
_FORMAT = "carcassonne-env/benchmark"


@dataclass(frozen=True)
class Budget:
    """How much a run plays: `decks` per lineup at each multi-player table (each deck
    once per seat rotation: players x decks games), `deals` solo deals per bot, and the
    iterations per move of the reference mcts."""

    decks: int
    deals: int
    mcts_iterations: int = 200

    def __post_init__(self) -> None:
        for name in ("decks", "deals", "mcts_iterations"):
            check_int(name, getattr(self, name), 1)


#: The standard run and the quick one (`carcassonne benchmark BOT --quick`).
FULL = Budget(decks=100, deals=1000)
QUICK = Budget(decks=20, deals=100)


@dataclass(frozen=True)
class Table:
    """A reference table: its key in the summary, its title, its rules and the shipped
    model that plays it (a reference once `agents/models` holds it)."""

    name: str
    title: str
    rules: Rules
    learned: str


TABLES = (
    Table("2p", "2 players", Rules(players=2), "ppo_duel_rl"),
    Table("3p", "3 players", Rules(players=3), "ppo_3p_rl"),
    Table("4p", "4 players", Rules(players=4), "ppo_4p_rl"),
    Table(
        "2p-expansions",
        "2 players, both expansions",
        Rules(players=2, expansions=("inns_cathedrals", "traders_builders")),
        "ppo_duel_exp_rl",
    ),
    Table("solo", "solo, 3 colours", Rules(variant="solo"), "ppo_solo_rl"),
)

#: The reference bots of the multi-player tables ({iterations}: the budget's); solo's
#: reference is the heuristic alone (and the shipped solo model).
REFERENCE_BOTS = ("heuristic", "mcts:iterations={iterations}")
#: The bots that fill the seats the references leave empty (4 players without a
#: shipped 4-player model; a bot that is itself a reference).
FILLERS = ("greedy", "random")


def opponents(table: Table, bot: str, budget: Budget) -> tuple[str, ...]:
    """The bot specs `bot` plays against at `table`: the references, then the table's
    shipped model (if shipped), then fillers up to the seats of one game; `bot` itself is
    never its own opponent."""
    solo = table.rules.variant == "solo"
    references = (
        ["heuristic"]
        if solo
        else [spec.format(iterations=budget.mcts_iterations) for spec in REFERENCE_BOTS]
    )
    if table.learned in shipped_models():
        references.append(f"sb3:model={table.learned}")
    chosen = [spec for spec in references if spec != bot]
    for filler in FILLERS:
        if len(chosen) >= table.rules.players - 1:
            break
        if filler != bot and filler not in chosen:
            chosen.append(filler)
    return tuple(chosen)


@dataclass
class TableResult:
    """`bot`'s results at one table: the gauntlet (`arena`, multi-player), or its solo
    run and the references' (`solo`, the bot's first); or why the bot did not play the
    table (`refused`: what its first move there raised, or the error that stopped a
    game)."""

    table: Table
    bot: str
    opponents: tuple[str, ...]
    arena: ArenaResult | None = None
    solo: tuple[SoloBenchResult, ...] = ()
    refused: str | None = None

    @property
    def started(self) -> bool:
        """Whether the table has results (or was refused)."""
        return self.arena is not None or bool(self.solo) or self.refused is not None

    @property
    def complete(self) -> bool:
        """Whether every game or deal of the table was played (or it was refused)."""
        if self.refused is not None:
            return True
        if self.arena is not None:
            return self.arena.complete
        return len(self.solo) == 1 + len(self.opponents) and all(r.complete for r in self.solo)

    def standing(self) -> Standing | None:
        """The bot's results over all its games at a multi-player table (None otherwise)."""
        if self.arena is None:
            return None
        return next(s for s in self.arena.leaderboard if s.bot == self.bot)

    def line(self) -> dict[str, Any]:
        """The table's line of the summary: games (deals), the bot's win share with its
        Wilson 95% interval beside the fair share 1/N, or its mean solo score with its
        95% interval beside the references'; ms per move; OpenSkill rating (ordinal,
        mu - 3 sigma, of this table's games)."""
        base: dict[str, Any] = {
            "table": self.table.name,
            "title": self.table.title,
            "opponents": list(self.opponents),
            "complete": self.complete,
        }
        if self.refused is not None:
            return {**base, "refused": self.refused}
        if self.arena is not None:
            s = self.standing()
            assert s is not None
            rating = self.arena.ratings[self.bot]
            return {
                **base,
                "games": s.games,
                "win_share": s.win_rate,
                "ci95": [s.win_lo, s.win_hi],
                "fair_share": 1 / self.table.rules.players,
                "ms_per_move": 1000 * s.seconds_per_move,
                "rating": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal},
            }
        mine, *references = (r.summary() for r in self.solo)
        return {
            **base,
            "deals": mine["deals"],
            "mean_score": mine["mean"],
            "ci95": mine["ci95"],
            "references": [
                {"bot": s["bot"], "deals": s["deals"], "mean_score": s["mean"], "ci95": s["ci95"]}
                for s in references
            ],
            "paired_differences": [_paired(self.solo[0], ref) for ref in self.solo[1:]],
            "ms_per_move": 1000 * mine["seconds_per_move"],
        }

    def details(self) -> str:
        """The table's full results in markdown: the arena's tables, or the solo runs
        stacked and the paired differences."""
        head = f"## {self.table.title}\n\n"
        if self.refused is not None:
            return f"{head}Not played: {self.refused}\n"
        if self.arena is not None:
            return head + self.arena.to_markdown()
        pairs = [
            f"- {d['bot']} - {d['reference']}: {d['difference']:+.2f} {_interval(d['ci95'])} "
            f"over {d['deals']} deals, paired by deal"
            for d in self.line()["paired_differences"]
        ]
        return head + markdown_table(self.solo) + "\n" + "".join(f"\n{p}" for p in pairs) + "\n"


def _paired(mine: SoloBenchResult, reference: SoloBenchResult) -> dict[str, Any]:
    """The bot's solo score minus the reference's, paired by deal, on the deals both
    played (a stopped run's)."""
    deals = {r.deal_seed for r in mine.rows} & {r.deal_seed for r in reference.rows}

    def on_shared(run: SoloBenchResult) -> SoloBenchResult:
        rows = [r for r in run.rows if r.deal_seed in deals]
        return SoloBenchResult(run.bot, run.rules, run.seed, run.first_deal, rows)

    comparison = compare_runs([on_shared(reference)], [on_shared(mine)])
    return {
        "bot": mine.bot,
        "reference": reference.bot,
        "deals": comparison.deals,
        "difference": comparison.difference,
        "ci95": list(comparison.ci95) if comparison.ci95 else None,
    }


@dataclass
class BenchmarkResult:
    """A run: the bot, its budget (`budget_name`: quick, full or custom), the seed and
    one `TableResult` per table played (a stopped run: those it started)."""

    bot: str
    budget: Budget
    budget_name: str
    seed: int
    workers: int
    tables: list[TableResult]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether every table was played to the end."""
        return len(self.tables) == len(TABLES) and all(t.complete for t in self.tables)

    def to_markdown(self) -> str:
        """The summary table: one line per table (`TableResult.line`)."""
        b = self.budget
        lines = [
            f"Benchmark of {self.bot}: {self.budget_name} budget ({b.decks} decks per "
            f"lineup, each once per seat rotation; {b.deals} solo deals; reference mcts "
            f"at {b.mcts_iterations} iterations), seed {self.seed}",
            *([] if self.complete else ["", "Interrupted: the results of what was played."]),
            "",
            "| table | opponents | games | result [95% CI] | reference | ms/move | rating |",
            "|---|---|---:|---|---|---:|---:|",
        ]
        lines += [_markdown_line(t.line()) for t in self.tables]
        return "\n".join(lines) + "\n"

    def details(self) -> str:
        """summary.md: the summary table, then every table's full results."""
        return "\n".join([self.to_markdown(), *(t.details() for t in self.tables)])

    def to_dict(self) -> dict[str, Any]:
        """Setup, one line per table and each table's full results; JSON-serialisable."""
        return {
            "format": _FORMAT,
            "version": 1,
            "bot": self.bot,
            "budget": self.budget_name,
            **asdict(self.budget),
            "seed": self.seed,
            "workers": self.workers,
            "complete": self.complete,
            "tables_planned": [t.name for t in TABLES],
            "metadata": self.metadata,
            "tables": [
                {
                    **t.line(),
                    "rules": t.table.rules.to_dict(),
                    "arena": t.arena.to_dict() if t.arena is not None else None,
                    "solo": [r.summary() for r in t.solo],
                }
                for t in self.tables
            ],
        }

    def write(self, folder: str | Path) -> None:
        """Write summary.md and summary.json into `folder` (each whole or not at all:
        `carcassonne_env.atomic`); summary.json last."""
        folder = Path(folder)
        write_text(folder / "summary.md", self.details())
        write_json(folder / "summary.json", self.to_dict())


def _interval(ci: Sequence[float] | None, spec: str = ".2f") -> str:
    return "[-]" if ci is None else f"[{ci[0]:{spec}}, {ci[1]:{spec}}]"


def _markdown_line(line: dict[str, Any]) -> str:
    """One line of the summary table."""
    cells = [line["title"], ", ".join(line["opponents"]) or "-"]
    if "refused" in line:
        cells += ["-", f"not played: {line['refused']}", "-", "-", "-"]
    elif "win_share" in line:
        cells += [
            str(line["games"]),
            f"win share {line['win_share']:.3f} {_interval(line['ci95'], '.3f')}",
            f"fair share {line['fair_share']:.3f}",
            f"{line['ms_per_move']:.3g}",
            f"{line['rating']['ordinal']:.2f}",
        ]
    else:
        references = "; ".join(
            f"{r['bot']} {r['mean_score']:.2f} {_interval(r['ci95'])}" for r in line["references"]
        )
        cells += [
            f"{line['deals']} deals",
            f"mean score {line['mean_score']:.2f} {_interval(line['ci95'])}",
            references or "-",
            f"{line['ms_per_move']:.3g}",
            "-",
        ]
    return "| " + " | ".join(cells) + " |"


def budget_name(budget: Budget) -> str:
    """Which budget `budget` is: "full", "quick" or "custom"."""
    return {FULL: "full", QUICK: "quick"}.get(budget, "custom")


def check_bot(bot: str, budget: Budget = FULL) -> dict[str, str]:
    """Check before anything is played that `bot` and every opponent can play: the
    bot's spec must build (ValueError otherwise), each bot makes one untimed move at each
    table (`agents.catalog.warm_up`). Returns the tables the bot cannot play (its first
    move raised ValueError: a model of other rules...), name -> why; ValueError if it
    can play none. An opponent that cannot play raises."""
    make_bot(bot, seed=0)
    refused = {}
    for table in TABLES:
        try:
            warm_up(bot, table.rules)
        except ValueError as err:
            refused[table.name] = _one_line(err)
    if len(refused) == len(TABLES):
        first = next(iter(refused.items()))
        raise ValueError(f"{bot} cannot play any benchmark table ({first[0]}: {first[1]})")
    for table in TABLES:
        for spec in opponents(table, bot, budget):
            warm_up(spec, table.rules)
    return refused


def _one_line(err: Exception) -> str:
    """An error as one line (a ValueError by its message, another with its type)."""
    text = " ".join(str(err).split())
    return text if isinstance(err, ValueError) else f"{type(err).__name__}: {text}"


def run_benchmark(
    bot: str,
    *,
    budget: Budget = FULL,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
) -> BenchmarkResult:
    """Play the benchmark: `bot` (a `make_bot` spec) at every table of `TABLES` with
    `budget` (`FULL`, `QUICK` or your own), decks and deals from `seed`, `workers`
    processes (same results for any count).

    Raises ValueError for a bad spec, a bot that can play no table, bad arguments; a
    table the bot cannot play is reported as refused (`check_bot`), and so is a table
    where a bot raised an error in the middle of a game (its games are dropped; the
    other tables play). A Ctrl-C (or SIGTERM
    under `sigterm_as_interrupt`) raises `carcassonne_env.cli_errors.Interrupted` whose
    `partial` is the result of the tables played so far, the stopped one's games
    included (None if none).
    """
    check_int("seed", seed, 0)
    check_int("workers", workers, 1)
    if not isinstance(budget, Budget):
        raise ValueError(f"budget must be a Budget (FULL, QUICK or your own), got {budget!r}")
    started = time.time()
    refused = check_bot(bot, budget)
    tables: list[TableResult] = []

    def result() -> BenchmarkResult:
        return BenchmarkResult(
            bot, budget, budget_name(budget), seed, workers, tables, _machine(started)
        )

    try:
        for table in TABLES:
            mine = TableResult(table, bot, opponents(table, bot, budget))
            tables.append(mine)
            if progress:  # which table the progress bars below are of
                print(f"benchmark: {table.title}", file=sys.stderr)
            if table.name in refused:
                mine.refused = refused[table.name]
                continue
            play = _play_solo if table.rules.variant == "solo" else _play_arena
            try:
                play(mine, budget, seed, workers, progress)
            except Exception as err:  # noqa: BLE001 (a bot's error: the other tables play)
                mine.arena, mine.solo = None, ()
                mine.refused = f"{STOPPED}: {_one_line(err)}"
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the tables played so far
        if tables and not tables[-1].started:
            tables.pop()  # stopped before its first game
        played = sum(t.complete for t in tables)
        raise Interrupted(
            f"{bot}: {played} of {len(TABLES)} tables played", result() if tables else None
        ) from None
    return result()


def _play_arena(mine: TableResult, budget: Budget, seed: int, workers: int, progress: bool) -> None:
    """The gauntlet of one multi-player table, into `mine` (a stopped one's games too)."""
    rules = mine.table.rules
    try:
        mine.arena = run_arena(
            [mine.bot, *mine.opponents],
            games=budget.decks * rules.players,
            seed=seed,
            workers=workers,
            gauntlet=mine.bot,
            rules=rules,
            progress=progress,
        )
    except Interrupted as err:
        mine.arena = err.partial
        raise


def _play_solo(mine: TableResult, budget: Budget, seed: int, workers: int, progress: bool) -> None:
    """The solo runs of the bot and its references on the same deals, into `mine`."""
    for spec in (mine.bot, *mine.opponents):
        try:
            run = run_solo_bench(
                spec,
                deals=budget.deals,
                seed=seed,
                workers=workers,
                rules=mine.table.rules,
                progress=progress,
            )
        except Interrupted as err:
            if err.partial is not None:
                mine.solo += (err.partial,)
            raise
        mine.solo += (run,)
