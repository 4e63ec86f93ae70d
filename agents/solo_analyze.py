"""Analysis of a played solo game, move by move, by the solo search bot.

`analyze_record(record)` replays a solo game record (a person's or a bot's: the format of
docs/records.md) and, at every move that had a choice, asks the search bot
(`agents.solo_search`, or any bot spec with the same `evaluate(game, moves)` method) for
its value of the move played and of its best move. Values are the bot's estimate of the
solo objective in the heuristic's units (the lowest colour's estimated final score plus
0.25 times the mean, where the estimate also counts what followers in supply are worth;
see carcassonne_env/bots/evaluation.py), so "points given away" is a difference in those
units: points, but not calibrated final points. It is an estimate from a search with the
hidden tile order sampled, not a proof: small differences are noise.

    from agents.solo_analyze import analyze_record
    analysis = analyze_record(json.load(open("game.json")))
    print(analysis.summary())      # "lost 6.5 points over 3 moves; the worst at turn 41"
    for m in analysis.moves: ...   # MoveAnalysis rows

On the command line: ``carcassonne solo-analyze game.json [--bot SPEC] [--json FILE]``.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Any

from tqdm import tqdm

from carcassonne_env import Game, Move, Rules
from carcassonne_env.bots import make_bot
from carcassonne_env.records import check_record


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of the game: `turn` (0-based move index), `colour` that moved, `tile`,
    the move `played` and the bot's `best` move (``Move`` fields as a dict), their values
    `played_value` and `best_value` (estimated final lowest-colour score), `lost`
    (best_value - played_value, at least 0) and `choices` (legal moves; 1 = forced, not
    searched: both values are then None and lost 0)."""

    turn: int
    colour: int
    tile: str
    played: dict[str, Any]
    best: dict[str, Any]
    played_value: float | None
    best_value: float | None
    lost: float
    choices: int


@dataclass
class SoloAnalysis:
    """The analysis of a whole game: `moves` (one `MoveAnalysis` per move), the judging
    `bot` spec, the game's `result` and `end_reason`; `min_loss` is the loss from which a
    move counts as a mistake in the summary."""

    bot: str
    result: int | None
    end_reason: str | None
    moves: list[MoveAnalysis]
    min_loss: float = 0.5

    @property
    def mistakes(self) -> list[MoveAnalysis]:
        """Moves that gave away at least `min_loss` points."""
        return [m for m in self.moves if m.lost >= self.min_loss]

    @property
    def total_lost(self) -> float:
        """Points given away over the mistakes."""
        return sum(m.lost for m in self.mistakes)

    def summary(self) -> str:
        """One line: "lost 6.5 points over 3 moves; the worst at turn 41"."""
        bad = self.mistakes
        if not bad:
            return f"no move gave away {self.min_loss:g} points or more (result {self.result})"
        worst = max(bad, key=lambda m: m.lost)
        return (
            f"lost {self.total_lost:.1f} points over {len(bad)} move"
            f"{'s' if len(bad) != 1 else ''}; the worst at turn {worst.turn} "
            f"({worst.lost:.1f}) (result {self.result}, end {self.end_reason})"
        )

    def to_markdown(self) -> str:
        """A table, one row per move, then the summary line."""
        lines = [
            "| turn | colour | tile | played | value | best | value | lost |",
            "|---:|---:|:---:|:---|---:|:---|---:|---:|",
        ]
        for m in self.moves:
            pv = "" if m.played_value is None else f"{m.played_value:.1f}"
            bv = "" if m.best_value is None else f"{m.best_value:.1f}"
            best = "(same)" if m.best == m.played else _fmt(m.best)
            lost = f"**{m.lost:.1f}**" if m.lost >= self.min_loss else f"{m.lost:.1f}"
            lines.append(
                f"| {m.turn} | {m.colour} | {m.tile} | {_fmt(m.played)} | {pv} | "
                f"{best} | {bv} | {lost} |"
            )
        return "\n".join(lines) + "\n\n" + self.summary() + "\n"

    def to_dict(self) -> dict[str, Any]:
        """This analysis as JSON-ready data."""
        return {
            "bot": self.bot,
            "result": self.result,
            "end_reason": self.end_reason,
            "min_loss": self.min_loss,
            "summary": self.summary(),
            "total_lost": self.total_lost,
            "moves": [asdict(m) for m in self.moves],
        }


def _fmt(move: dict[str, Any]) -> str:
    f = move.get("follower")
    return f"({move['x']},{move['y']}) r{move['rotation']}" + (f" {f}" if f else "")


def _move_dict(move: Move) -> dict[str, Any]:
    return {"x": move.x, "y": move.y, "rotation": move.rotation, "follower": move.follower}


def analyze_record(
    record: dict[str, Any],
    bot: str = "solo-search",
    seed: int = 0,
    min_loss: float = 0.5,
    progress: bool = False,
) -> SoloAnalysis:
    """Analyse every move of a solo game record with `bot` (a spec whose bot has
    ``evaluate(game, moves) -> [(move, samples, value)]``, default ``"solo-search"``);
    `progress`: a progress bar on stderr (shown after a second).

    Raises ValueError if the record is malformed, not a solo game, or has an illegal
    move, or if the bot cannot evaluate positions."""
    check_record(record)
    rules = Rules.from_dict(record["rules"])
    if rules.variant != "solo":
        raise ValueError(f"record: solo-analyze needs a solo game, got variant {rules.variant!r}")
    judge = make_bot(bot, seed=seed)
    if not hasattr(judge, "evaluate"):
        raise ValueError(
            f"bot {bot!r} cannot evaluate positions (no evaluate method); use solo-search"
        )
    game = Game(rules, tile_order=record["tile_order"])
    rows = []
    moves = tqdm(
        record["moves"],
        desc="solo-analyze",
        unit="move",
        file=sys.stderr,
        delay=1.0,
        disable=not progress,
        leave=False,
    )
    for k, m in enumerate(moves):
        colour = game.current_player
        if colour is None:
            raise ValueError(f"record: move {k + 1} comes after the end of the game")
        played = Move(m["x"], m["y"], m["rotation"], m.get("follower"))
        legal = game.legal_moves()
        if played not in legal:  # an alias of a follower location, or illegal
            args = game.row_of(played)  # IllegalMoveError (a ValueError) if illegal
            found = [i for i, r in enumerate(game.legal_rows().tolist()) if r == args]
            played = legal[found[0]]
        tile = str(game.current_tile)
        if len(legal) == 1:
            rows.append(
                MoveAnalysis(
                    k, colour, tile, _move_dict(played), _move_dict(played), None, None, 0.0, 1
                )
            )
        else:
            stats = judge.evaluate(game, [played])
            value = {mv: v for mv, _, v in stats}
            best_move, _, best_value = stats[0]
            pv = value[played]
            if pv >= best_value:
                best_move, best_value = played, pv
            rows.append(
                MoveAnalysis(
                    k,
                    colour,
                    tile,
                    _move_dict(played),
                    _move_dict(best_move),
                    float(pv),
                    float(best_value),
                    max(0.0, float(best_value - pv)),
                    len(legal),
                )
            )
        game.play(played)
    result = game.result  # a solo game's: an int once over
    return SoloAnalysis(
        bot=bot,
        result=result if isinstance(result, int) else None,
        end_reason=game.end_reason,
        moves=rows,
        min_loss=min_loss,
    )
