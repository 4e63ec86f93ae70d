"""Carcassonne as an OpenSpiel game: ``import carcassonne_env.openspiel`` registers
``python_carcassonne`` with pyspiel (``pip install "carcassonne-env[openspiel]"``), and
`OpenSpielMCTSAgent` lets OpenSpiel's MCTS play in the arena (bot spec ``openspiel:mcts``).

The game is a thin adapter over `carcassonne_env.Game`: every move, draw and score is the
package's. A decision is one whole turn, an action of the package's action codec (the
"turn" layout of `carcassonne_env.encoding`, the AEC env's) in a window of
``deck tiles + 3`` cells, wide enough for every board of the deck, so that no legal move
is ever missing from `legal_actions` (a move outside it raises RuntimeError, never a
silent loss). Action ids are relative to the window, which is recentred on the placed
tiles before each decision.

Chance nodes are the tile draws: the game starts at one (the first tile), and after each
move that draws a tile it rests at one with the move pending; its outcomes are the tile
types not drawn yet (ids: the tile set's type indices; in the solo variant those of every
colour's stack, whose unseen tiles are alike), each with probability count / tiles left.
An outcome puts one tile of that type where the next draw takes it (swapping it with
that tile, inside the undrawn part), then the pending move is played (and draws it). Not a
chance node: the redraw after an unplaceable tile is discarded (docs/rules.md 2.2), which
takes the next tile of the shuffled stack (game parameter ``seed``), so the state stays
a function of its history.

Game parameters: the rule options of `Rules` (``players`` 1-6, one boolean per
expansion, ``inns_cathedrals`` and ``traders_builders``, ``expansion_mode``,
``followers`` (-1: the variant's default), ``small_city``, ``farm_scoring``,
``farm_city_points``, ``goods_from_unowned_city``, ``variant``, ``solo_colours``,
``scoring_order``); ``seed`` (the stack's shuffle, numpy's as in
``Game(rules, seed=seed)``); ``returns``; ``board_size`` (the tensors' window). The solo
variant is a 1-player game (``variant="solo", players=1``) whose player moves every
colour (its scoring decisions too, with ``scoring_order="player"``). The strategic
variant (``hand_size=3``: hidden hands) is refused with a ValueError.

Returns (terminal only, zero before): ``returns="win_share"`` (default, constant-sum 1):
each of the k seats with the top final score gets 1/k, the others 0;
``returns="score"`` (general-sum; the one choice of a 1-player game): each seat's final
score, in the solo variant the result (the lowest colour's score). Its max utility is a
bound of the deck, far above any real score.

Observations: the tensor is the AEC env's observation of the seat asked for (the board
planes of a ``board_size``-cell window around the placed tiles, then the feature vector;
docs/observations.md), so cells outside that window are not in it. The game has perfect
information: the information-state tensor is the observation tensor, the
information-state string the whole history of actions and the observation string the
board as text with scores, the seat to move and its tile. At a chance node the tensors
show the position before the pending move (the strings name it); at the first chance
node, before any tile is drawn, the tensors are zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .checks import check_bool, check_choice, check_int, install_hint

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as _err:  # the optional extra is missing
    raise ImportError(f"the OpenSpiel game needs open-spiel: {install_hint('openspiel')}") from _err

from .bots.base import check_weight
from .core.actions import turn_actions
from .encoding import Encoder
from .game import Game, Move
from .rules import EXPANSIONS, Rules
from .tiles import TileSet, shuffled_deck, tileset_for

GAME_NAME = "python_carcassonne"
RETURNS = ("win_share", "score")
#: Rule options the game refuses, with why (the rest of `Rules` are parameters).
REFUSED = {"hand_size": "the strategic variant (hidden hands) is not offered by the OpenSpiel game"}
#: The parameters and their defaults (a rule option's default is `Rules`').
PARAMETERS: dict[str, Any] = {
    "players": 2,
    **{name: False for name in EXPANSIONS},  # "inns_cathedrals", "traders_builders"
    "expansion_mode": "full",
    "followers": -1,  # the variant's default: 7, solo 4
    "small_city": False,
    "farm_scoring": "field",
    "farm_city_points": 3,
    "goods_from_unowned_city": True,
    "hand_size": 1,
    "variant": "standard",
    "solo_colours": 3,
    "scoring_order": "auto",
    "seed": 0,
    "returns": "win_share",
    "board_size": 32,
}
_RULE_KEYS = (
    "players",
    "small_city",
    "farm_scoring",
    "farm_city_points",
    "goods_from_unowned_city",
    "expansion_mode",
    "variant",
    "solo_colours",
    "scoring_order",
)
_GOODS_POINTS = 30  # Traders & Builders: 10 per kind of goods held most


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Carcassonne (carcassonne-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS,
    )


def rules_from_parameters(params: dict[str, Any]) -> Rules:
    """The `Rules` of the game parameters `params` (missing ones: their defaults);
    ValueError naming the option for a refused or bad value."""
    given = {**PARAMETERS, **params}
    for key, why in REFUSED.items():
        if given[key] != PARAMETERS[key]:
            raise ValueError(f"{key}={given[key]!r}: {why}")
    options = {k: given[k] for k in _RULE_KEYS}
    if given["followers"] != -1:  # (-1: the variant's default)
        options["followers"] = given["followers"]
    expansions = tuple(name for name in EXPANSIONS if check_bool(name, given[name]))
    return Rules(expansions=expansions, **options)


def parameters_from_rules(rules: Rules) -> dict[str, Any]:
    """The game parameters of `rules` (ValueError for the refused variants)."""
    for key, why in REFUSED.items():
        if getattr(rules, key) != PARAMETERS[key]:
            raise ValueError(f"{key}={getattr(rules, key)!r}: {why}")
    params = {k: getattr(rules, k) for k in _RULE_KEYS}
    params["followers"] = rules.followers
    return {**params, **{name: name in rules.expansions for name in EXPANSIONS}}


def score_bound(rules: Rules, tiles: int) -> int:
    """A final score no seat can exceed with `tiles` tiles on the board: per tile at most
    4 city segments x 6 (cathedral tile and pennant), 4 road segments x 2 (inn), a
    monastery's 9 and 16 field-city contacts x (farm points + pig); plus the goods."""
    return tiles * (24 + 8 + 9 + 16 * (rules.farm_city_points + 1)) + _GOODS_POINTS


def _settings(params: dict[str, Any]) -> tuple[Rules, str, int, int]:
    """The rules, returns, seed and tensor window of game parameters `params` (all
    given); ValueError naming the parameter for a bad one."""
    rules = rules_from_parameters(params)
    returns = check_choice("returns", params["returns"], RETURNS)
    if rules.players == 1 and returns == "win_share":
        raise ValueError(
            "players=1 (a 1-player game): returns='win_share' is 1 in every game; "
            "use returns='score'"
        )
    seed = check_int("seed", params["seed"], 0)
    return rules, returns, seed, check_int("board_size", params["board_size"], 3)


class CarcassonneGame(pyspiel.Game):
    """The OpenSpiel game ``python_carcassonne`` (see the module's docstring); build it
    with ``pyspiel.load_game("python_carcassonne", params)``."""

    def __new__(cls, params: dict[str, Any] | None = None) -> CarcassonneGame:
        # The parameters are checked before the object exists: an exception out of
        # __init__ would leave a half-made pyspiel object, which crashes what prints it.
        _settings({**PARAMETERS, **(params or {})})
        return super().__new__(cls)

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**PARAMETERS, **(params or {})}
        self.rules, self.returns_kind, self.seed, obs_size = _settings(params)
        self.tileset: TileSet = tileset_for(self.rules.expansions)
        self.deck = np.asarray(shuffled_deck(self.tileset, self.seed), np.int8)
        window = len(self.deck) + 3  # spans any board of the deck, with its open cells
        self.actions = Encoder(self.rules, board_size=window, on_overflow="raise")
        self.observer_encoder = Encoder(self.rules, board_size=obs_size)
        win_share = self.returns_kind == "win_share"
        utility = (
            {"max_utility": 1.0, "utility_sum": 1.0}
            if win_share
            else {"max_utility": float(score_bound(self.rules, len(self.deck) + 1))}
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.n_actions,
            max_chance_outcomes=len(self.tileset.names),
            num_players=self.rules.players,
            min_utility=0.0,
            max_game_length=self._max_decisions(),
            **utility,
        )
        kinds = pyspiel.GameType.Utility
        kind = _game_type(kinds.CONSTANT_SUM if win_share else kinds.GENERAL_SUM)
        super().__init__(kind, info, params)

    def _max_decisions(self) -> int:
        """Decisions of the longest game: one per tile of the stack; with the solo
        player's scoring order also one per feature a tile completes (its segments and
        up to 9 monasteries) and one per follower of the end bonus."""
        tiles, rules = len(self.deck), self.rules
        if rules.scoring_order == "auto":
            return tiles
        choices = tiles * (self.tileset.max_segments + 9) + rules.seats * rules.followers
        return tiles + choices

    def action_ids(self, game: Game, rows: np.ndarray) -> np.ndarray:
        """The action ids of core rows `rows` (int64[n, 5], as `Game.legal_rows` gives
        them) in the action window of `game` (a game of these rules); RuntimeError if
        one lies outside it (never for a game of this deck)."""
        enc = self.actions
        x0, y0 = enc.window_origin(game)
        col, row = rows[:, 1] - x0, rows[:, 2] - y0
        B = enc.board_size
        if rows.size and not (col.min() >= 0 and row.min() >= 0 and max(col.max(), row.max()) < B):
            raise RuntimeError(f"a legal move lies outside the {B}-cell action window")
        return turn_actions(rows[:, 0], row, col, rows[:, 3], rows[:, 4], B, enc.slots)

    def new_initial_state(self) -> CarcassonneState:
        """The state before the first draw (a chance node)."""
        return CarcassonneState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> CarcassonneObserver:
        """The observer of the observation (default) or information-state type."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return CarcassonneObserver(self, iig_obs_type)


class _Position:
    """What a state holds: the package's `Game` (None before the first draw), the
    stack before the first draw, at a chance node the pending move (a core row) and the
    stack index its draw takes, and the legal actions' rows. Deep copies clone the game
    (the cheap copy OpenSpiel's `clone` gets)."""

    def __init__(self, game: Game | None, deck: np.ndarray | None) -> None:
        self.game = game
        self.deck = deck
        self.pending: list[int] | None = None
        self.draw_at = 0  # the stack index the next draw takes
        self.legal: dict[int, list[int]] | None = None

    def __deepcopy__(self, memo: dict) -> _Position:
        other = _Position(None if self.game is None else self.game.clone(), self.deck)
        other.pending, other.draw_at = self.pending, self.draw_at
        other.legal = self.legal  # (never changed in place)
        return other


class CarcassonneState(pyspiel.State):
    """A state of ``python_carcassonne``: a chance node (a draw), a decision (one whole
    turn, or in the solo variant a scoring choice) or the end."""

    def __init__(self, game: CarcassonneGame) -> None:
        super().__init__(game)
        self._pos = _Position(None, game.deck)

    # ------------------------------------------------------------------ the engine's game
    @property
    def game(self) -> Game | None:
        """The package's `Game` underneath (None before the first draw); at a chance node
        it holds the position before the pending move. Read it, never play on it."""
        return self._pos.game

    def _spiel_game(self) -> CarcassonneGame:
        return self.get_game()  # (our subclass)

    def current_player(self) -> int:
        """The seat to move (0 in the solo variant), or pyspiel's CHANCE / TERMINAL id."""
        game = self._pos.game
        if game is None or self._pos.pending is not None:
            return pyspiel.PlayerId.CHANCE
        if game.done:
            return pyspiel.PlayerId.TERMINAL
        seat = game.current_player
        assert seat is not None  # (not done)
        return 0 if game.rules.variant == "solo" else seat

    def is_terminal(self) -> bool:
        """True once the game is over and scored."""
        return self._pos.game is not None and self._pos.pending is None and self._pos.game.done

    # ------------------------------------------------------------------ decisions
    def _legal_rows(self) -> dict[int, list[int]]:
        """The legal moves' core rows by action id (cached until the position changes)."""
        if self._pos.legal is None:
            game = self._pos.game
            assert game is not None
            rows = game.legal_rows()
            actions = self._spiel_game().action_ids(game, rows)
            self._pos.legal = dict(zip(actions.tolist(), rows.tolist(), strict=True))
        return self._pos.legal

    def action_of_move(self, move: Move) -> int:
        """The action id of legal `move` of the package's `Game` (`IllegalMoveError`
        otherwise)."""
        game = self._pos.game
        if game is None or self.current_player() < 0:
            raise ValueError("no seat is to move in this state")
        row = np.array([game.row_of(move)], np.int64)
        return int(self._spiel_game().action_ids(game, row)[0])

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._legal_rows())

    def _apply_action(self, action: int) -> None:
        pos = self._pos
        if pos.game is None or pos.pending is not None:
            self._draw(action)
            return
        row = self._legal_rows().get(action)
        if row is None:
            raise ValueError(f"action {action} is not legal now")
        pos.legal = None
        game = pos.game
        if game.rules.variant != "solo":
            if game.tiles_left:  # every turn of the standard game ends with a draw
                pos.pending, pos.draw_at = row, int(game.state.deck_pos)
            else:
                _play(game, row)
            return
        # Solo: whether and from which stack the move draws, the probe says
        probe = game.clone()
        _play(probe, row)
        drawn = np.flatnonzero(probe.state.spos != game.state.spos)
        if drawn.size:
            colour = int(drawn[0])
            pos.pending = row
            pos.draw_at = colour + game.rules.seats * int(game.state.spos[colour])
        else:
            pos.game = probe

    # ------------------------------------------------------------------ chance
    def _undrawn(self) -> np.ndarray:
        """The stack indices not drawn yet."""
        game = self._pos.game
        if game is None:
            return np.arange(len(self._stack()))
        st = game.state
        if game.rules.variant != "solo":
            return np.arange(st.deck_pos, st.deck_len)
        colours, n = game.rules.seats, st.deck_len
        return np.array(
            [i for c in range(colours) for i in range(c + colours * int(st.spos[c]), n, colours)]
        )

    def _stack(self) -> np.ndarray:
        """The draw order (before the first draw: the game's), writable."""
        game, deck = self._pos.game, self._pos.deck
        if game is None:
            assert deck is not None  # (before the first draw)
            return deck
        return game.state.deck

    def next_tile(self) -> int:
        """At a chance node, the tile type the stack holds where the next draw takes it
        (the outcome that keeps the stack's order)."""
        if not self.is_chance_node():
            raise ValueError("not a chance node")
        return int(self._stack()[self._pos.draw_at])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(tile type, probability) for each tile type not drawn yet."""
        undrawn = self._stack()[self._undrawn()]
        counts = np.bincount(undrawn)
        tiles = np.flatnonzero(counts)
        return list(zip(tiles.tolist(), (counts[tiles] / len(undrawn)).tolist(), strict=True))

    def _draw(self, tile: int) -> None:
        """Chance outcome `tile`: put one such tile where the next draw takes it, then
        play the pending move (or deal the first tile)."""
        pos = self._pos
        stack, undrawn = self._stack(), self._undrawn()
        where = undrawn[stack[undrawn] == tile]
        if not where.size:
            raise ValueError(f"chance outcome {tile}: no such tile is left in the stack")
        if pos.game is None:
            stack = stack.copy()
        k, at = int(where[0]), pos.draw_at
        stack[at], stack[k] = stack[k], stack[at]
        if pos.game is None:
            names = self._spiel_game().tileset.names
            pos.game = Game(self._spiel_game().rules, tile_order=[names[t] for t in stack])
            pos.deck = None
            return
        row, pos.pending, pos.legal = pos.pending, None, None
        assert row is not None
        _play(pos.game, row)

    # ------------------------------------------------------------------ text and returns
    def _action_to_string(self, player: int, action: int) -> str:
        names = self._spiel_game().tileset.names
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {names[action]}" if 0 <= action < len(names) else f"draw {action}"
        game = self._pos.game
        row = None if game is None or self._pos.pending else self._legal_rows().get(action)
        if game is None or row is None:
            return f"action {action}"
        return _move_text(game, row, self._spiel_game().actions.action_to_move(game, action))

    def returns(self) -> list[float]:
        """Zero until the end; then each seat's win share or final score (`returns`; solo:
        the result)."""
        game = self._pos.game
        if game is None or not self.is_terminal():
            return [0.0] * self._spiel_game().rules.players
        result = game.result
        assert result is not None  # (over)
        scores = result if isinstance(result, list) else [result]
        if self._spiel_game().returns_kind == "score":
            return [float(s) for s in scores]
        top = max(scores)
        winners = scores.count(top)
        return [1.0 / winners if s == top else 0.0 for s in scores]

    def position_text(self) -> str:
        """The board as text with scores and the tile to place, and a pending move."""
        game = self._pos.game
        if game is None:
            return "before the first draw"
        text = str(game)
        if self._pos.pending is not None:
            h, x, y, r, slot = self._pos.pending
            text += f"\npending: ({x}, {y}) rotation {r} slot {slot}, then a draw"
        return text

    def __str__(self) -> str:
        return self.position_text()


def _play(game: Game, row: list[int]) -> None:
    """Play core row `row` (a legal move of `game`)."""
    h, x, y, r, slot = row
    game.play_row(h, x, y, r, slot)


def _move_text(game: Game, row: list[int], move: Move) -> str:
    """A legal move of `game` (its core row and `Move`) as text."""
    h, x, y, r, slot = row
    who = f"{'colour' if game.rules.variant == 'solo' else 'seat'} {game.current_player}"
    if game.decision != "place":
        return f"{who}: {game.decision} {move.follower} at ({x}, {y})"
    tile = game.hand[h] if game.rules.hand_size > 1 else game.current_tile
    figure = "" if move.follower is None else f", {move.figure} on {move.follower}"
    return f"{who}: {tile} at ({x}, {y}) rotation {r}{figure}"


class CarcassonneObserver:
    """OpenSpiel's Python observer of ``python_carcassonne`` (see the module's docstring):
    `tensor` (flat float32) with the views `dict` ("board", "features")."""

    def __init__(
        self, game: CarcassonneGame, iig_obs_type: pyspiel.IIGObservationType | None
    ) -> None:
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.public = iig_obs_type is None or bool(iig_obs_type.public_info)
        enc = game.observer_encoder
        self.encoder = enc
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if not self.public:  # a perfect-information game has no private information
            return
        sizes = {"board": enc.board_shape, "features": (enc.n_features,)}
        self.tensor = np.zeros(sum(int(np.prod(s)) for s in sizes.values()), np.float32)
        start = 0
        for name, shape in sizes.items():
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size
        self._out: dict[str, np.ndarray] | None = None

    def set_from(self, state: CarcassonneState, player: int) -> None:
        """Write `state` as seen by `player` into `tensor`."""
        if self.tensor is None:
            return
        game = state.game
        if game is None:
            self.tensor.fill(0.0)
            return
        self._out = self.encoder.encode(game, player, with_mask=False, out=self._out)
        self.dict["board"][...] = self._out["board"]
        self.dict["features"][...] = self._out["features"]

    def string_from(self, state: CarcassonneState, player: int) -> str:
        """The history (information state) or the position as text (observation)."""
        if not self.public:
            return ""
        if self.perfect_recall:
            return state.history_str()
        return state.position_text()


# (the class itself: a plain function registered here makes the interpreter abort at exit
# under pytest, when pyspiel's registry lets go of it without the GIL)
pyspiel.register_game(_game_type(pyspiel.GameType.Utility.CONSTANT_SUM), CarcassonneGame)


# ---------------------------------------------------------------------- the arena's bot
def load(rules: Rules, **params: Any) -> CarcassonneGame:
    """The ``python_carcassonne`` game of `rules` (other parameters as keywords; a
    1-player game's returns are "score")."""
    returns = {"returns": "score"} if rules.players == 1 else {}
    return pyspiel.load_game(GAME_NAME, {**parameters_from_rules(rules), **returns, **params})


def mirror_state(game: Game, spiel_game: CarcassonneGame | None = None) -> CarcassonneState:
    """The OpenSpiel state of the package's `game`: its stack, each draw's outcome the
    tile it drew and its moves as actions (`spiel_game`: the game of its rules,
    default `load(game.rules)`). ValueError for rules the OpenSpiel game refuses or a
    stack other than a deck of the rules."""
    spiel_game = spiel_game or load(game.rules)
    deck = np.array([game.tileset.index(name) for name in game.tile_order()], np.int8)
    if sorted(deck.tolist()) != sorted(spiel_game.deck.tolist()):
        raise ValueError("the game's stack is not a deck of its rules (a custom tile_order)")
    state = spiel_game.new_initial_state()
    state._pos.deck = deck  # this game's stack: each draw below takes its next tile
    for entry in game.moves_played:
        _next_draws(state)
        move = Move(
            entry["x"],
            entry["y"],
            entry["rotation"],
            entry["follower"],
            entry.get("tile"),
            entry.get("figure", "follower"),
        )
        state.apply_action(state.action_of_move(move))
    _next_draws(state)
    return state


def _next_draws(state: CarcassonneState) -> None:
    """Play the chance nodes ahead as the stack's order gives them."""
    while state.is_chance_node():
        state.apply_action(state.next_tile())


class OpenSpielMCTSAgent:
    """OpenSpiel's `MCTSBot` (open_spiel.python.algorithms.mcts) on the mirror of the
    arena's game (`mirror_state`), with random-rollout evaluation: bot spec
    ``openspiel:mcts[:simulations=N][:rollouts=R][:uct_c=C]``.

    Args:
        simulations: MCTS simulations per move.
        rollouts: random playouts per leaf evaluation.
        uct_c: the UCT exploration constant.
        seed: seeds the search and the rollouts.
    """

    def __init__(
        self,
        simulations: int = 100,
        rollouts: int = 1,
        uct_c: float = 2.0,
        seed: int | None = None,
    ) -> None:
        self.simulations = check_int("simulations", simulations, 1, 1_000_000)
        self.rollouts = check_int("rollouts", rollouts, 1, 10_000)
        self.uct_c = check_weight("uct_c", uct_c, 0.0, strict=True)
        self.name = "openspiel:mcts"
        self._rng = np.random.RandomState(np.random.SeedSequence(seed).generate_state(1))
        self._games: dict[Rules, CarcassonneGame] = {}

    def act(self, game: Game) -> Move:
        """The move OpenSpiel's MCTS picks in `game`."""
        if game.done:
            raise ValueError("the game is over: no move to pick")
        if game.rules not in self._games:
            self._games[game.rules] = load(game.rules)
        spiel_game = self._games[game.rules]
        state = mirror_state(game, spiel_game)
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self._rng)
        bot = mcts.MCTSBot(
            spiel_game, self.uct_c, self.simulations, evaluator, random_state=self._rng
        )
        row = state._legal_rows()[bot.step(state)]
        for move in game.legal_moves():
            if game.row_of(move) == row:
                return move
        raise RuntimeError("OpenSpiel's move is not a legal move of the game")


__all__ = [
    "GAME_NAME",
    "CarcassonneGame",
    "CarcassonneObserver",
    "CarcassonneState",
    "OpenSpielMCTSAgent",
    "load",
    "mirror_state",
    "parameters_from_rules",
    "rules_from_parameters",
]
