"""`mcts`'s options take effect: its UCB exploration constant `c` spreads the visits of
the root's moves (0: each move's first visit, then only the best mean)."""

from __future__ import annotations

from carcassonne_env import Game, Rules, make_bot


def _root_visits(c: float) -> list[int]:
    game = Game(Rules(players=2), seed=3)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    bot = make_bot(f"mcts:iterations=300:c={c}:top_k=0:depth=1", seed=0)
    bot.act(game)
    return sorted((visits for visits, _ in bot.last_stats.values()), reverse=True)


def test_exploration_constant_spreads_the_visits():
    greedy, default = _root_visits(0.0), _root_visits(4.0)
    assert greedy != default
    # without exploration the best first estimate takes almost every visit
    assert greedy[0] > default[0]
    assert sum(greedy) == sum(default) == 300
