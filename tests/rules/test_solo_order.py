"""The solo variant's automatic scoring order (`Rules(variant="solo")`, docs/rules.md 6.4):
among every order of the features one move completes, the engine takes one that maximises
the lowest colour's score after the turn (after the end bonus on the game's last turn),
then the sum of the scores. Checked against brute-force enumeration of every order."""

from functools import cache
from itertools import permutations

import numpy as np
import pytest

from carcassonne_env import Game, Rules

# internals: the depth-first search `solo_best_order` hands large cases to, checked on its own
from carcassonne_env.core.scoring import _solo_order_dfs, solo_best_order
from tests.support.reference import solo_best


def _outcome(scores, items, order, bonus=None):
    """Scores after scoring `items` (colour bit mask, points) in `order`, then the bonus."""
    s = list(scores)
    for f in order:
        mask, pts = items[f]
        if any(mask >> p & 1 and s[p] == min(s) for p in range(len(s))):
            for p in range(len(s)):
                if mask >> p & 1:
                    s[p] += pts
    if bonus is not None:  # 2 per follower while its colour is lowest: by brute force too
        s = list(_bonus_best(tuple(s), tuple(bonus)))
    return s


@cache
def _bonus_best(s, left):
    """The best final scores over every order of paying the bonus followers."""
    out = [s]
    for p, k in enumerate(left):
        if k:
            nxt = list(s)
            if s[p] == min(s):
                nxt[p] += 2
            rest = list(left)
            rest[p] -= 1
            out.append(_bonus_best(tuple(nxt), tuple(rest)))
    return max(out, key=_value)


def _value(s):
    return (min(s), sum(s))


def _brute_best(scores, items, bonus=None):
    return max(_value(_outcome(scores, items, o, bonus)) for o in permutations(range(len(items))))


def _engine_order(scores, items, bonus=None, search=solo_best_order):
    """The order the engine's search picks (called on a real solo state's buffers)."""
    game = Game(Rules(variant="solo", solo_colours=len(scores)), seed=0)
    st = game.state
    st.scores[:] = scores
    n = len(items)
    maj = np.array([m for m, _ in items] + [0] * 8, np.int64)
    pts = np.array([p for _, p in items] + [0] * 8, np.int64)
    b = np.zeros(8, np.int64)
    if bonus is not None:
        b[: len(bonus)] = bonus
    best = np.zeros(16, np.int64)
    search(st, maj, pts, n, b, bonus is not None, best)
    return [int(k) for k in best[:n]]


YELLOW, RED, GREEN = 0, 1, 2  # scores 1, 2, 3 before the turn (the solo rules' example)
RULES_EXAMPLE = [(1 << YELLOW, 3), (1 << GREEN, 4), (1 << RED, 4)]  # road 3, city 4, road 4


def test_the_rules_worked_example_only_one_order_lets_every_colour_score():
    scores = [1, 2, 3]
    finals = {o: _outcome(scores, RULES_EXAMPLE, o) for o in permutations(range(3))}
    everyone = [o for o, s in finals.items() if s == [4, 6, 7]]
    assert everyone == [(0, 2, 1)]  # yellow road, red road, green city
    assert all(min(s) < 4 for o, s in finals.items() if o != (0, 2, 1))
    for search in (solo_best_order, _solo_order_dfs):
        order = _engine_order(scores, RULES_EXAMPLE, search=search)
        assert order == [0, 2, 1]
        assert _outcome(scores, RULES_EXAMPLE, order) == [4, 6, 7]


def _random_case(rng, n):
    P = int(rng.integers(3, 5))
    scores = [int(v) for v in rng.integers(0, 12, P)]
    items = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            mask = 0  # no follower on it
        elif r < 0.8:
            mask = 1 << int(rng.integers(P))
        else:
            mask = int(rng.integers(1, 1 << P))
        items.append((mask, int(rng.integers(1, 12))))
    bonus = [int(v) for v in rng.integers(0, 3, P)] if rng.random() < 0.4 else None
    return scores, items, bonus


@pytest.mark.parametrize("search", [solo_best_order, _solo_order_dfs])
def test_search_matches_every_order_enumeration(search):
    """3 to 6 simultaneous completions, 3 or 4 colours, with and without the end bonus."""
    rng = np.random.default_rng(15)
    for case in range(300):
        n = 3 + case % 4
        scores, items, bonus = _random_case(rng, n)
        order = _engine_order(scores, items, bonus, search)
        assert sorted(order) == list(range(n))
        got = _value(_outcome(scores, items, order, bonus))
        assert got == _brute_best(scores, items, bonus), (scores, items, bonus, order)


def test_both_searches_pick_the_same_first_best_order():
    """The depth-first search (used beyond 8 features) keeps Heap's tie rule's goal: same
    value; on these cases, whose best value is reached by one score vector, same scores."""
    rng = np.random.default_rng(16)
    for _ in range(200):
        scores, items, bonus = _random_case(rng, 5)
        a = _outcome(scores, items, _engine_order(scores, items, bonus), bonus)
        b = _outcome(scores, items, _engine_order(scores, items, bonus, _solo_order_dfs), bonus)
        assert _value(a) == _value(b)


def test_more_than_eight_completions_still_exact():
    """9-11 features (beyond Heap's enumeration): the depth-first search is exact."""
    rng = np.random.default_rng(17)
    for case in range(6):
        n = 9 + case % 3
        scores = [int(v) for v in rng.integers(0, 8, 3)]
        colours = [int(c) for c in rng.integers(0, 3, n)]
        items = [(1 << c, int(rng.integers(1, 4))) for c in colours]
        best = solo_best(
            tuple(scores), tuple(((c,), p) for c, (_, p) in zip(colours, items, strict=True))
        )
        order = _engine_order(scores, items)
        assert sorted(order) == list(range(n))
        assert _value(_outcome(scores, items, order)) == _value(best[0])


def test_last_turn_order_counts_the_end_bonus():
    """On the last turn the order is chosen for the score after the end bonus: here the
    order best after the features alone ([5, 5, 20] or so) loses to one that keeps colour
    0 lowest so that its 3 followers on the board still pay."""
    rng = np.random.default_rng(18)
    found = 0
    for _ in range(3000):
        scores, items, bonus = _random_case(rng, 4)
        if bonus is None:
            continue
        myopic = max(permutations(range(4)), key=lambda o: _value(_outcome(scores, items, o)))
        joint = _brute_best(scores, items, bonus)
        if _value(_outcome(scores, items, myopic, bonus)) < joint:
            order = _engine_order(scores, items, bonus)
            assert _value(_outcome(scores, items, order, bonus)) == joint
            found += 1
    assert found > 0  # the two goals do differ on some positions
