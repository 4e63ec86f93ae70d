"""The solo benchmark: one bot plays a fixed, published set of solo deals.

Deal ``i`` of a run is ``Game(rules, seed=first_deal + i)`` (by default the deal seeds are
``0..deals-1``); the bot gets a fresh instance per deal, seeded with
``deal_bot_seed(seed, deal_seed)``, so every deal's outcome depends only on (bot, rules,
seed, deal seed): the same whatever the number of worker processes, and a stopped run
resumes (`run_solo_bench(..., played=saved.rows)` plays only the other deals). The result
of a deal is ``game.result``, the lowest colour's score. See docs/solo_bench.md.
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import platform
import re
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np

import carcassonne_env
from carcassonne_env import Game, Rules
from carcassonne_env.atomic import atomic_open, atomic_path, write_json
from carcassonne_env.bots import make_bot
from carcassonne_env.checks import check_choice, check_int, check_real, install_hint
from carcassonne_env.cli_errors import Interrupted

from .catalog import warm_up
from .parallel import read_json_file, run_jobs
from .stats import Z95

PERCENTILES = (5, 10, 25, 50, 75, 90, 95)
END_REASONS = ("A", "B")
# Small jobs keep the progress bar moving and the workers evenly loaded with slow bots.
_MAX_DEALS_PER_JOB = 10
_FORMAT = "carcassonne-env/solo-bench"


def deal_bot_seed(seed: int, deal_seed: int) -> int:
    """The bot's seed for one deal: a 32-bit hash of (seed, deal seed),
    ``int(numpy.random.SeedSequence([seed, deal_seed]).generate_state(1)[0])``.
    Hashed rather than, say, ``seed + deal_seed`` so that a bot drawing from numpy's
    generator never replays the stream that shuffled the deal, and runs with different
    `seed` share no bot seeds."""
    return int(np.random.SeedSequence([seed, deal_seed]).generate_state(1)[0])


def _fingerprint(tile_orders: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(tile_orders).encode()).hexdigest()[:16]


def deals_fingerprint(first_deal: int = 0, deals: int = 1000) -> str:
    """16 hex digits of the SHA-256 of the deals' tile orders (one line of tile letters
    per deal). The deal seeds only name deals through numpy's shuffle; this checks that
    they still name the published ones (docs/solo_bench.md gives the value for 0..999)."""
    return _fingerprint(
        ["".join(Game(seed=d).tile_order()) for d in range(first_deal, first_deal + deals)]
    )


@dataclass(frozen=True)
class DealResult:
    """One deal: its seed, the bot's seed, the result (lowest colour's score), the end
    reason ("A": a compulsory follower with an empty supply; "B": a stack ran out), the
    final colour scores, the moves played, the seconds spent in ``bot.act`` and the deal's
    tile order (letters, as ``game.tile_order()``)."""

    deal_seed: int
    bot_seed: int
    result: int
    end_reason: str
    scores: tuple[int, ...]
    moves: int
    act_seconds: float
    tiles: str


class _Job(NamedTuple):
    bot: str
    rules: Rules
    seed: int
    deal_seeds: tuple[int, ...]


def play_deal(bot: str, rules: Rules, seed: int, deal_seed: int) -> DealResult:
    """Play deal `deal_seed` with a fresh `bot` seeded ``deal_bot_seed(seed, deal_seed)``;
    only the `act` calls are timed."""
    bot_seed = deal_bot_seed(seed, deal_seed)
    agent = make_bot(bot, seed=bot_seed)
    game = Game(rules, seed=deal_seed)
    moves, seconds = 0, 0.0
    while not game.done:
        start = time.perf_counter()
        move = agent.act(game)
        seconds += time.perf_counter() - start
        game.play(move)
        moves += 1
    result = game.result
    assert isinstance(result, int)  # a finished solo game's: its lowest colour's score
    return DealResult(
        deal_seed=deal_seed,
        bot_seed=bot_seed,
        result=result,
        end_reason=str(game.end_reason),
        scores=tuple(game.scores),
        moves=moves,
        act_seconds=seconds,
        tiles="".join(game.tile_order()),
    )


def _play_job(job: _Job) -> list[DealResult]:
    warm_up(job.bot, job.rules)
    return [play_deal(job.bot, job.rules, job.seed, d) for d in job.deal_seeds]


def _percentile(values: np.ndarray, q: float) -> float:
    # numpy's default "linear" method: interpolate between the two nearest order statistics.
    return float(np.percentile(values, q))


@dataclass
class SoloBenchResult:
    """The outcome of `run_solo_bench`: the setup and one `DealResult` per deal, in deal
    order; `summary()` computes the statistics."""

    bot: str
    rules: Rules
    seed: int
    first_deal: int
    rows: list[DealResult]
    workers: int = 1
    # Date, wall time, versions and machine of the run (see `_machine`).
    metadata: dict[str, Any] = field(default_factory=dict)
    # Deals of the run, played or not (a stopped run played fewer); None: all were played.
    deals_planned: int | None = None

    def __post_init__(self) -> None:
        if self.deals_planned is None:
            self.deals_planned = len(self.rows)

    @property
    def deals(self) -> int:
        """Number of deals played."""
        return len(self.rows)

    @property
    def complete(self) -> bool:
        """Whether every deal of the run was played (False: a Ctrl-C stopped it)."""
        return len(self.rows) == self.deals_planned

    @property
    def results(self) -> np.ndarray:
        """The result (lowest colour's score) of every deal, in deal order."""
        return np.array([r.result for r in self.rows], dtype=np.int64)

    def summary(self) -> dict[str, Any]:
        """The statistics, JSON-serialisable: the setup, the `deals_fingerprint` of the
        deals played, mean with its 95% interval (normal approximation,
        ``mean +- 1.96 * std / sqrt(deals)``), std (sample, ddof=1), median, percentiles
        ``p5 .. p95`` (numpy's linear interpolation), min, max, the distribution
        ``{result: deals}``, the end reasons (deals, share, mean result under each), the
        mean moves per deal and the mean seconds per `act` call (total act time / total
        moves). std and the interval are None for a single deal."""
        x = self.results.astype(np.float64)
        n = len(x)
        mean = float(x.mean())
        std = float(x.std(ddof=1)) if n > 1 else None
        half = Z95 * std / math.sqrt(n) if std is not None else None
        ends: dict[str, dict[str, Any]] = {}
        for reason in END_REASONS:
            sel = [r.result for r in self.rows if r.end_reason == reason]
            ends[reason] = {
                "deals": len(sel),
                "share": len(sel) / n,
                "mean_result": sum(sel) / len(sel) if sel else None,
            }
        moves = sum(r.moves for r in self.rows)
        return {
            "bot": self.bot,
            "colours": self.rules.solo_colours,
            "deals": n,
            "first_deal": self.first_deal,
            "last_deal": self.first_deal + n - 1,
            "seed": self.seed,
            "deals_fingerprint": _fingerprint([r.tiles for r in self.rows]),
            "mean": mean,
            "ci95": [mean - half, mean + half] if half is not None else None,
            "std": std,
            "median": _percentile(x, 50),
            **{f"p{q}": _percentile(x, q) for q in PERCENTILES},
            "min": int(x.min()),
            "max": int(x.max()),
            "distribution": dict(sorted(Counter(int(v) for v in x).items())),
            "end_reasons": ends,
            "mean_moves": moves / n,
            "seconds_per_move": sum(r.act_seconds for r in self.rows) / moves,
        }

    def to_markdown(self) -> str:
        """A markdown table with one row for this bot (see `markdown_table`)."""
        return markdown_table([self])

    def to_dict(self) -> dict[str, Any]:
        """Setup, summary and per-deal rows, JSON-serialisable (what `to_json` writes)."""
        return {
            "format": _FORMAT,
            "version": 1,
            "bot": self.bot,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "first_deal": self.first_deal,
            "workers": self.workers,
            "deals_planned": self.deals_planned,
            "complete": self.complete,
            "metadata": self.metadata,
            "summary": self.summary(),
            "rows": [asdict(r) for r in self.rows],
        }

    def to_json(self, path: str | Path) -> None:
        """Write `to_dict()` as JSON (whole or not at all: `carcassonne_env.atomic`);
        `from_json` reads it back."""
        write_json(path, self.to_dict())

    @classmethod
    def from_json(cls, path: str | Path) -> SoloBenchResult:
        """Read a result written by `to_json` (e.g. to stack saved runs with
        `markdown_table`, or to resume a stopped one); the summary is recomputed from the
        rows. ValueError naming the file if it is not such a result."""
        data = read_json_file(path, "a solo benchmark result")
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"{path}: not a solo benchmark result ({_FORMAT})")
        try:
            rows = [_deal_result(r) for r in _field(data, "rows", list)]
            if not rows:
                raise ValueError("no deals")
            planned = data.get("deals_planned", len(rows))  # absent before resuming existed
            return cls(
                bot=_field(data, "bot", str),
                rules=Rules.from_dict(_field(data, "rules", dict)),
                seed=check_int("seed", data.get("seed"), 0),
                first_deal=check_int("first_deal", data.get("first_deal"), 0),
                rows=rows,
                workers=check_int("workers", data.get("workers"), 1),
                metadata=_field(data, "metadata", dict, {}),
                deals_planned=check_int("deals_planned", planned, len(rows)),
            )
        except (ValueError, TypeError) as err:
            raise ValueError(f"{path}: not a solo benchmark result: {err}") from None

    def to_csv(self, path: str | Path) -> None:
        """Write the per-deal rows: deal_seed, bot_seed, result, end_reason, score_0 ..
        score_{colours-1}, moves, act_seconds, tiles."""
        colours = self.rules.solo_colours
        with atomic_open(path, newline="") as f:
            w = csv.writer(f)
            w.writerow(
                [
                    "deal_seed",
                    "bot_seed",
                    "result",
                    "end_reason",
                    *(f"score_{c}" for c in range(colours)),
                    "moves",
                    "act_seconds",
                    "tiles",
                ]
            )
            for r in self.rows:
                w.writerow(
                    [
                        r.deal_seed,
                        r.bot_seed,
                        r.result,
                        r.end_reason,
                        *r.scores,
                        r.moves,
                        repr(r.act_seconds),
                        r.tiles,
                    ]
                )

    def histogram_png(self, path: str | Path) -> None:
        """Draw the distribution of the result as a PNG (or the SVG or PDF the suffix of
        `path` names, `histogram_format`): bars stacked by end reason (A / B), mean and
        median marked. Needs matplotlib (``pip install "carcassonne-env[plot]"``)."""
        fmt = histogram_format(path)
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
        except ImportError as err:
            raise ImportError(f"the histogram needs matplotlib: {install_hint('plot')}") from err
        s = self.summary()
        lo, hi = s["min"], s["max"]
        # One bar per result value, merged in pairs, threes... beyond 60 bars.
        width = max(1, math.ceil((hi - lo + 1) / 60))
        edges = (np.arange(lo, hi + width + 1, width) - 0.5).tolist()
        by_end = [[r.result for r in self.rows if r.end_reason == e] for e in END_REASONS]
        labels = [
            f"end A: supply empty ({s['end_reasons']['A']['deals']} deals)",
            f"end B: a stack ran out ({s['end_reasons']['B']['deals']} deals)",
        ]
        # Figure + Agg canvas, not pyplot: no global backend switch, no window.
        fig = Figure(figsize=(8, 4.5), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.hist(
            by_end,
            bins=edges,
            stacked=True,
            label=labels,
            color=["#d95f02", "#1b9e77"],
            edgecolor="white",
            linewidth=0.5,
        )
        ax.axvline(s["mean"], color="black", linestyle="--", label=f"mean {s['mean']:.2f}")
        ax.axvline(
            s["median"],
            color="#7570b3",
            linestyle=":",
            linewidth=2,
            label=f"median {s['median']:g}",
        )
        ax.set_xlabel("result (lowest colour's score)")
        ax.set_ylabel("deals")
        ax.set_title(
            f"solo benchmark: {self.bot}, {s['deals']} deals "
            f"(seeds {s['first_deal']}-{s['last_deal']}), "
            f"{self.rules.solo_colours} colours"
        )
        ax.legend(fontsize="small")
        fig.tight_layout()
        with atomic_path(path) as tmp:  # whole or not at all
            fig.savefig(tmp, format=fmt)


def _field(data: dict, key: str, kind: type, default: Any = None) -> Any:
    """`data[key]`, which must be a `kind` (or missing, with a `default`)."""
    value = data.get(key, default)
    if not isinstance(value, kind):
        raise ValueError(f"{key}: expected a {kind.__name__}, got {value!r:.40}")
    return value


def _deal_result(row: Any) -> DealResult:
    """A saved per-deal row (`asdict(DealResult)`) back as a DealResult, its fields checked
    to be of their types."""
    if not isinstance(row, dict) or set(row) != set(DealResult.__dataclass_fields__):
        raise ValueError(f"a row must have the fields {', '.join(DealResult.__dataclass_fields__)}")
    scores = _field(row, "scores", list)
    return DealResult(
        deal_seed=check_int("deal_seed", row["deal_seed"], 0),
        bot_seed=check_int("bot_seed", row["bot_seed"], 0),
        result=check_int("result", row["result"]),
        end_reason=check_choice("end_reason", row["end_reason"], END_REASONS),
        scores=tuple(check_int("scores", v) for v in scores),
        moves=check_int("moves", row["moves"], 0),
        act_seconds=check_real("act_seconds", row["act_seconds"], 0.0),
        tiles=_field(row, "tiles", str),
    )


HISTOGRAM_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def histogram_format(path: str | Path) -> str:
    """The histogram format `path`'s suffix names; ValueError for any other suffix (a
    .txt file gets no PNG bytes)."""
    fmt = HISTOGRAM_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ValueError(
            f"cannot tell a histogram format from the suffix of {path} "
            f"(known: {', '.join(HISTOGRAM_FORMATS)})"
        )
    return fmt


def _fmt(value: float | None, spec: str = "g") -> str:
    return "-" if value is None else format(value, spec)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"  # no exponents for slow bots


def markdown_table(results: Sequence[SoloBenchResult]) -> str:
    """One markdown table, one row per result, so several bots stack in one table:
    bot, colours, deals (with their seeds), mean +- 95% interval, std, min, p5, p25, median,
    p75, p95, max, share of end A / B with the mean result under each, and ms per move."""
    head = (
        "| bot | colours | deals | mean ± 95% CI | std | min | p5 | p25 | median | p75 "
        "| p95 | max | end A | mean A | end B | mean B | ms/move |"
    )
    lines = [head, "|---|---:|---|---:" + "|---:" * 13 + "|"]
    for res in results:
        s = res.summary()
        half = None if s["ci95"] is None else s["mean"] - s["ci95"][0]
        a, b = s["end_reasons"]["A"], s["end_reasons"]["B"]
        cells = [
            res.bot,
            str(s["colours"]),
            f"{s['deals']} (seeds {s['first_deal']}-{s['last_deal']})",
            f"{s['mean']:.2f} ± {_fmt(half, '.2f')}",
            _fmt(s["std"], ".2f"),
            str(s["min"]),
            *(_fmt(s[k]) for k in ("p5", "p25", "median", "p75", "p95")),
            str(s["max"]),
            f"{a['share']:.1%}",
            _fmt(a["mean_result"], ".2f"),
            f"{b['share']:.1%}",
            _fmt(b["mean_result"], ".2f"),
            _ms(s["seconds_per_move"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _check_count(name: str, value: object, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def run_solo_bench(
    bot: str,
    *,
    deals: int = 1000,
    first_deal: int = 0,
    seed: int = 0,
    workers: int = 1,
    rules: Rules | None = None,
    progress: bool = True,
    played: Sequence[DealResult] = (),
) -> SoloBenchResult:
    """Play deals ``first_deal .. first_deal + deals - 1`` of the solo variant with `bot`
    (a `make_bot` spec such as ``"random"`` or ``"mcts:iterations=500"``).

    Args:
        bot: bot spec; a fresh bot plays each deal, seeded ``deal_bot_seed(seed, deal)``.
        deals: number of deals (>= 1).
        first_deal: seed of the first deal (>= 0).
        seed: the bot seed of the run (>= 0), hashed with each deal seed.
        workers: processes (results identical for any count; timings are not, when the
            workers share cores).
        rules: solo rules (default ``Rules(variant="solo")``: 3 colours).
        progress: show a progress bar (tqdm, on stderr).
        played: deals of this run already played (the rows of a stopped run): kept as
            they are (their results are trusted), only the other deals are played. Each
            must be a deal of the run, with its bot seed; the result is the same as a run
            that played them all.

    Raises ValueError for non-solo rules, bad counts, an unknown bot or a `played` deal
    that is not one of this run. On a Ctrl-C (or SIGTERM under `sigterm_as_interrupt`),
    raises `carcassonne_env.cli_errors.Interrupted` (a KeyboardInterrupt) whose
    `partial` is the result of the deals played so far, `played` included (None if none).
    """
    rules = Rules(variant="solo") if rules is None else rules
    if not isinstance(rules, Rules) or rules.variant != "solo":
        raise ValueError(
            f"the solo benchmark needs solo rules (Rules(variant='solo')), got {rules!r}"
        )
    _check_count("deals", deals, 1)
    _check_count("first_deal", first_deal, 0)
    _check_count("seed", seed, 0)
    _check_count("workers", workers, 1)
    if not isinstance(bot, str):
        raise ValueError(f"bot must be a spec string such as 'random', got {bot!r}")
    rows = _checked_played(played, range(first_deal, first_deal + deals), seed, rules)
    warm_up(bot, rules)  # a bad spec, or a bot that cannot play these rules, fails here
    done = {r.deal_seed for r in rows}
    todo = [d for d in range(first_deal, first_deal + deals) if d not in done]
    # At least 4 jobs per worker when there are enough deals, to balance the load.
    per_job = max(1, min(_MAX_DEALS_PER_JOB, len(todo) // (4 * workers)))
    jobs = [
        _Job(bot, rules, seed, tuple(todo[i : i + per_job])) for i in range(0, len(todo), per_job)
    ]
    started = time.time()
    chunks = run_jobs(
        _play_job,
        jobs,
        workers,
        progress=progress,
        desc=f"solo-bench {bot}",
        unit="deal",
        weights=[len(j.deal_seeds) for j in jobs],
    )

    def result() -> SoloBenchResult:
        return SoloBenchResult(
            bot=bot,
            rules=rules,
            seed=seed,
            first_deal=first_deal,
            rows=sorted(rows, key=lambda r: r.deal_seed),
            workers=workers,
            metadata=_machine(started),
            deals_planned=deals,
        )

    try:
        with closing(chunks):  # a Ctrl-C stops the workers now, not at exit
            for chunk in chunks:
                rows.extend(chunk)
    except KeyboardInterrupt:  # the deals played so far
        raise Interrupted(
            f"{bot}: {len(rows)} of {deals} deals played", result() if rows else None
        ) from None
    return result()


def _checked_played(
    played: Sequence[DealResult], seeds: range, seed: int, rules: Rules
) -> list[DealResult]:
    """`played` as a list, each checked to be a distinct deal of `seeds` played with the
    run's bot seed and these rules' colours."""
    seen: set[int] = set()
    for row in played:
        if not isinstance(row, DealResult):
            raise ValueError(f"played must hold DealResult rows, got {row!r:.60}")
        if row.deal_seed not in seeds or row.deal_seed in seen:
            raise ValueError(
                f"played deal {row.deal_seed!r} is not a deal of this run "
                f"(seeds {seeds.start}-{seeds.stop - 1}) or is given twice"
            )
        seen.add(row.deal_seed)
        if row.bot_seed != deal_bot_seed(seed, row.deal_seed):
            raise ValueError(
                f"played deal {row.deal_seed} has bot seed {row.bot_seed}; this "
                f"run's is {deal_bot_seed(seed, row.deal_seed)} (seed {seed})"
            )
        if len(row.scores) != rules.solo_colours or row.result != min(row.scores):
            raise ValueError(
                f"played deal {row.deal_seed} has scores {row.scores} and result "
                f"{row.result}: not a result of {rules.solo_colours} colours"
            )
    return list(played)


def _machine(started: float) -> dict[str, Any]:
    """Where and when the run happened: timings only compare on the same machine."""
    return {
        "date": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.time() - started, 3),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "carcassonne_env": carcassonne_env.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }


def file_for_bot(path: str | Path, bot: str) -> Path:
    """`path` with the bot spec inserted before the suffix (``hist.png`` ->
    ``hist-mcts_iterations_500.png``): one file per bot when several are benchmarked."""
    path = Path(path)
    slug = re.sub(r"[^A-Za-z0-9.]+", "_", bot).strip("_")
    return path.with_name(f"{path.stem}-{slug}{path.suffix}")
