"""Golden traces of the rules core: random games per rule set, recorded once from an
earlier core and replayed by tests/core/test_traces.py against the current one.

A game of a rule set is fixed by its index k: the deck is shuffled with seed k and each
turn plays legal move number ``rng.integers(len(moves))`` (``rng`` seeded with k, so
the choice also depends on how many legal moves there are). Its digest hashes, turn by
turn, the legal moves in order, the move played, the scores and the scoring events, and
at the end the live part of every state array (`final_state`): two cores that agree on
a digest agree on every legal move, score and event of that game.

The observation digests hash what the encoders write (board planes, features, action
mask, aggregate planes, candidate moves, the two-step follower mask) on sampled turns.

Record (only from a trusted core; the files are the specification):

    python -m tests.support.traces record            # tests/support/data/traces.npz
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from pathlib import Path

import numpy as np

from carcassonne_env.core import constants as C
from carcassonne_env.game import Game
from carcassonne_env.rules import Rules

TRACE_FILE = Path(__file__).parent / "data" / "traces.npz"

# The rule sets traced: every option, the strategic hand, solo in both scoring orders,
# each expansion in full mode, both, and their tiles only.
RULE_SETS: dict[str, Rules] = {
    "base": Rules(players=2),
    "options": Rules(
        players=3, small_city=True, farm_scoring="city", farm_city_points=4, followers=5
    ),
    "many_players": Rules(players=6, followers=3),
    "strategic": Rules(players=2, hand_size=3),
    "solo": Rules(variant="solo"),
    "solo_player_order": Rules(variant="solo", solo_colours=4, scoring_order="player"),
    "inns_cathedrals": Rules(players=3, expansions=("inns_cathedrals",)),
    "traders_builders": Rules(players=2, expansions=("traders_builders",)),
    "traders_builders_bga": Rules(
        players=4, expansions=("traders_builders",), goods_from_unowned_city=False
    ),
    "both": Rules(players=4, expansions=("inns_cathedrals", "traders_builders")),
    "tiles_only": Rules(
        players=2,
        expansions=("inns_cathedrals", "traders_builders"),
        expansion_mode="tiles_only",
        hand_size=3,
    ),
}
GAMES = 10_000  # per rule set
DETAILED = 20  # games per rule set whose per-turn digests are kept (to find a first split)
OBSERVED = 200  # games per rule set whose observations are hashed
PLAYOUTS = 200  # games per rule set whose random playouts (from turn 10) are hashed
OBSERVE_EVERY = 5  # every 5th turn of those (and the last)


def _digest(h: hashlib._Hash) -> np.uint64:
    return np.uint64(int.from_bytes(h.digest()[:8], "little"))


def final_state(game: Game) -> dict[str, np.ndarray]:
    """The live part of each state array: what a core must agree on after a game."""
    st = game.state
    sc = st.sc
    n = int(sc[C.SC_PLACED])
    g = n * int(st.cfg[C.CFG_NSEG])
    return {
        "cfg": st.cfg,
        "sc": sc,
        "board": st.board,
        "frontier": st.frontier[: sc[C.SC_NFRONT]],
        "ptype": st.ptype[:n],
        "prot": st.prot[:n],
        "px": st.px[:n],
        "py": st.py[:n],
        "parent": st.parent[:g],
        "fbits": st.fbits[:g],
        "fntiles": st.fntiles[:g],
        "fpenn": st.fpenn[:g],
        "fopen": st.fopen[:g],
        "fmeep": st.fmeep[:g],
        "fdone": st.fdone[:g],
        "fflag": st.fflag[:g],
        "fgoods": st.fgoods[:g],
        "fbuild": st.fbuild[:g],
        "fpig": st.fpig[:g],
        "owner": st.owner[:g],
        "ofig": st.ofig[:g],
        "active": st.active[: sc[C.SC_NACTIVE]],
        "supply": st.supply,
        "xsupply": st.xsupply,
        "goods": st.goods,
        "scores": st.scores,
        "deck": st.deck[: sc[C.SC_DECK_LEN]],
        "spos": st.spos,
        "hands": st.hands,
        "pairs": st.pairs[: sc[C.SC_NPAIRS]],
        "discards": st.discards[: sc[C.SC_NDISC]],
        "events": st.events[: sc[C.SC_NEVENTS]],
    }


def play(rules: Rules, k: int, detailed: bool = False, observe=None):
    """Play game k of `rules` (module docstring). Returns (digest, per-turn digests or
    None, final scores). `observe(game, turn)` is called before each move."""
    game = Game(rules, seed=k)
    rng = np.random.default_rng(k)
    h = hashlib.blake2b(digest_size=16)
    turns = [] if detailed else None
    turn = n_events = 0
    while not game.done:
        if observe is not None:
            observe(game, turn)
        moves = game.legal_moves()
        i = int(rng.integers(len(moves)))
        game.play(moves[i])
        events = game.events
        step = repr((moves, i, game.scores, events[n_events:], game.decision)).encode()
        n_events = len(events)
        h.update(step)
        if turns is not None:
            turns.append(_digest(hashlib.blake2b(step, digest_size=8)))
        turn += 1
    if observe is not None:
        observe(game, turn)
    for name, a in final_state(game).items():
        h.update(name.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(repr((game.events, game.result, game.end_reason, game.discarded)).encode())
    return _digest(h), (np.array(turns, np.uint64) if detailed else None), game.scores


def observation_digests(rules: Rules, k: int) -> np.ndarray:
    """Digests of every encoder's output on sampled turns of game k of `rules`."""
    from carcassonne_env.encoding import Encoder, WindowOverflowError

    encoders = [
        Encoder(rules, 16, on_overflow="truncate"),
        Encoder(rules, 12, on_overflow="truncate", obs_features="aggregate"),
        Encoder(rules, 16, on_overflow="truncate", candidate_moves=24),
        Encoder(rules, 16, on_overflow="truncate", action_mode="two_step"),
    ]
    out: list[np.uint64] = []

    def observe(game: Game, turn: int) -> None:
        if turn % OBSERVE_EVERY and not game.done:
            return
        h = hashlib.blake2b(digest_size=8)
        seats = range(rules.seats)
        for enc in encoders:
            for observer in seats:
                try:
                    obs = enc.encode(game, observer)
                except WindowOverflowError:  # every legal move outside the window
                    h.update(b"overflow")
                    obs = {}
                for key in sorted(obs):
                    h.update(key.encode())
                    h.update(np.ascontiguousarray(obs[key]).tobytes())
            if enc.action_mode == "two_step" and not game.done and obs:
                mask = obs["action_mask"]
                if mask.any() and game.decision == "place":
                    pending = enc.placement(game, int(mask.argmax()))
                    obs = enc.encode(game, int(game.current_player or 0), pending=pending)
                    h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
        out.append(_digest(h))

    play(rules, k, observe=observe)
    return np.array(out, np.uint64)


def playout_digest(rules: Rules, k: int) -> np.uint64:
    """Digest of 4 jitted random playouts (seed k) from turn 10 of game k of `rules`,
    played on a clone."""
    game = Game(rules, seed=k)
    rng = np.random.default_rng(k)
    for _ in range(10):
        if game.done:
            break
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    scores = game.clone().random_playouts(4, seed=k)
    return _digest(hashlib.blake2b(scores.tobytes() + repr(game.scores).encode()))


def record(path: Path = TRACE_FILE, games: int = GAMES) -> None:
    from tqdm import tqdm

    data: dict[str, np.ndarray] = {}
    if path.exists():  # resume: the rule sets recorded before
        data.update(np.load(path))
    for name, rules in RULE_SETS.items():
        if f"{name}/observations/{OBSERVED - 1}" in data:
            continue
        digests = np.zeros(games, np.uint64)
        scores = []
        for k in tqdm(range(games), desc=name, file=sys.stderr):
            digests[k], turns, final = play(rules, k, detailed=k < DETAILED)
            scores.append(final)
            if turns is not None:
                data[f"{name}/turns/{k}"] = turns
        data[f"{name}/digests"] = digests
        data[f"{name}/scores"] = np.array(scores, np.int32)
        data[f"{name}/playouts"] = np.array(
            [playout_digest(rules, k) for k in range(PLAYOUTS)], np.uint64
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # window overflow: the masks say what it hides
            for k in tqdm(range(OBSERVED), desc=f"{name} observations", file=sys.stderr):
                data[f"{name}/observations/{k}"] = observation_digests(rules, k)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **data)  # after each rule set


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python -m tests.support.traces record")
    record()
