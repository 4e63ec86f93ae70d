"""Bots as a user writes them (a module of functions ``make(seed=None)`` returning an
object with ``act(game) -> Move``), benchmarked by their ``module:function`` specs
(``f"{user_bots.__name__}:make_random_mover"``)."""

from __future__ import annotations

import random

from carcassonne_env import Game, Move

#: The models shipped when the benchmark tests were written: their tables stay the same
#: (and small) when a model for 3 or 4 players ships.
SHIPPED = ["ppo_duel_rl", "ppo_solo_rl"]


class RandomMover:
    """A seeded random legal move."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, game: Game) -> Move:
        return self.rng.choice(game.legal_moves())


def make_random_mover(seed: int | None = None) -> RandomMover:
    return RandomMover(seed)


class TwoPlayersOnly(RandomMover):
    """Refuses every game but the 2-player base game, as a model trained for it does."""

    def act(self, game: Game) -> Move:
        rules = game.rules
        if rules.players != 2 or rules.expansions or rules.variant == "solo":
            raise ValueError("this bot plays the 2-player base game only")
        return super().act(game)


def make_two_players_only(seed: int | None = None) -> TwoPlayersOnly:
    return TwoPlayersOnly(seed)


class Refuser(RandomMover):
    """Refuses every game."""

    def act(self, game: Game) -> Move:
        raise ValueError("this bot plays nothing")


def make_refuser(seed: int | None = None) -> Refuser:
    return Refuser(seed)


class FailsAtThreePlayers(RandomMover):
    """A bot with a bug: its third move of a 3-player game raises."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.moves = 0

    def act(self, game: Game) -> Move:
        if game.rules.players == 3:
            self.moves += 1
            if self.moves == 3:
                raise RuntimeError("a bug at 3 players")
        return super().act(game)


def make_fails_at_three_players(seed: int | None = None) -> FailsAtThreePlayers:
    return FailsAtThreePlayers(seed)


# Where `make_stopped`'s bots press Ctrl-C: [players of the game, moves at such games
# before it (counted across its bots since `stop_at`), moves played so far].
_ctrl_c = [3, 30, 0]


class Stopped(RandomMover):
    """Presses Ctrl-C (KeyboardInterrupt) where `stop_at` says."""

    def act(self, game: Game) -> Move:
        if game.rules.players == _ctrl_c[0] and not game.rules.expansions:
            _ctrl_c[2] += 1
            if _ctrl_c[2] == _ctrl_c[1]:
                raise KeyboardInterrupt
        return super().act(game)


def make_stopped(seed: int | None = None) -> Stopped:
    return Stopped(seed)


def stop_at(players: int, move: int) -> None:
    """`make_stopped`'s bots press Ctrl-C on their `move`-th move (counted from now, a
    warm-up move included) in base games of `players` players."""
    _ctrl_c[:] = [players, move, 0]
