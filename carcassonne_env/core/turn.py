"""A whole turn: move checking, applying a move, drawing the next tile.

After `reset` and after every `apply_move`, the state rests at a decision point: the seat
to move holds a tile that can be placed (unplaceable draws were discarded), or the game is
over and fully scored.
"""

import numpy as np

from ..compiler.jit import hot, hot_entry, hot_inline
from . import constants as C
from .board import (
    EMPTY,
    NEIGHBOUR_DX,
    NEIGHBOUR_DY,
    constraint,
    find,
    fits,
    has_placement,
    list_placements,
    n_segments,
    origin,
    place_tile,
    root_of,
)
from .choices import (
    apply_choice,
    auto_choice,
    bonus_needs_choice,
    choice_index,
    choice_row,
    choice_rows,
    start_feature_choice,
)
from .followers import follower_options
from .scoring import score_completed, score_game_end
from .state import STATE_FIELDS, copy_features, copy_field, copy_flat, has_figure

# ---------------------------------------------------------------------------- drawing


@hot
def _discard(st, t):
    k = st.ndisc
    st.discards[k] = t
    st.ndisc = k + 1


@hot_inline
def _draw_from_deck(st, tb):
    """Next placeable tile from the shared deck (discarding unplaceable ones), or -1."""
    deck = st.deck
    while st.deck_pos < st.deck_len:
        t = deck[st.deck_pos]
        st.deck_pos += 1
        if has_placement(st, tb, t):
            return t
        _discard(st, t)
    return -1


@hot
def solo_stack_size(st, c):
    colours = st.seats
    n = st.deck_len
    return (n - c + colours - 1) // colours if c < n else 0


@hot_inline
def _draw_from_stack(st, tb, c):
    """Solo: next placeable tile of colour c's stack (deck[c::colours]), or -1."""
    colours = st.seats
    spos = st.spos
    deck = st.deck
    while spos[c] < solo_stack_size(st, c):
        t = deck[c + colours * spos[c]]
        spos[c] += 1
        if has_placement(st, tb, t):
            return t
        _discard(st, t)
    return -1


@hot_inline
def _refill_hand(st, tb, p):
    """Strategic variant: replace unplaceable tiles of seat p's hand by fresh draws, then
    pack the hand to the left. Returns the number of tiles left in it."""
    hand = st.hands[p]
    deck = st.deck
    for k in range(hand.shape[0]):
        while hand[k] >= 0 and not has_placement(st, tb, hand[k]):
            _discard(st, hand[k])
            hand[k] = -1
            if st.deck_pos < st.deck_len:
                hand[k] = deck[st.deck_pos]
                st.deck_pos += 1
    n = 0
    for k in range(hand.shape[0]):
        if hand[k] >= 0:
            hand[n] = hand[k]
            n += 1
    hand[n:] = -1
    return n


@hot
def _end_game(st, tb, reason):
    st.end_reason = reason
    st.tile = -1
    if st.solo and st.player_order and bonus_needs_choice(st):
        st.phase = C.PHASE_BONUS  # the player scores the end bonus (core.choices)
        return
    st.done = 1
    score_game_end(st, tb)


@hot
def _begin_turn(st, tb, seat):
    """Give the turn to `seat` (or the next seat able to play) with a placeable tile, or
    end the game."""
    solo = st.solo != 0
    if solo or st.hand_size == 1:
        t = _draw_from_stack(st, tb, seat) if solo else _draw_from_deck(st, tb)
        if t < 0:  # solo: the stack ran out through discards (end B)
            _end_game(st, tb, C.END_SOLO_B if solo else C.END_TILES)
            return
        st.seat = seat
        st.tile = t
        return
    P = st.seats
    for k in range(P):
        p = (seat + k) % P
        if _refill_hand(st, tb, p) > 0:
            st.seat = p
            return
    _end_game(st, tb, C.END_TILES)


@hot
def reset(st, tb, deck_len):
    """Start a game whose draw order is already in `st.deck[:deck_len]`: place the start
    tile, deal hands / stacks, give the first turn."""
    board = st.board
    if st.placed > 0:  # a used state: clear the rectangle its last game touched
        for y in range(st.ymin - 1, st.ymax + 2):
            for x in range(st.xmin - 1, st.xmax + 2):
                board[y, x] = EMPTY
    else:  # fresh from make_state (already clear) or unknown: clear everything
        board[:] = EMPTY
    st.sc[:] = 0
    st.scores[:] = 0
    st.supply[:] = st.followers
    for fig in range(1, 4):  # a large follower, builder, pig each, as the rules give
        st.xsupply[:, fig - 1] = 1 if has_figure(st.cfg, fig) else 0
    st.goods[:] = 0
    st.spos[:] = 0
    st.hands[:] = -1
    st.deck_len = deck_len
    st.tile = -1
    o = origin(st)
    k = 0
    st.xmin = st.xmax = st.ymin = st.ymax = o
    st.frontier[0, 0] = o  # the start cell is the only open cell of an empty board
    st.frontier[0, 1] = o
    st.frontier[0, 2] = 0
    board[o, o] = -2
    st.nfront = 1
    place_tile(st, tb, st.start_tile, 0, o, o)
    if st.solo:
        for p in range(st.scores.shape[0]):
            st.scores[p] = p + 1
    if st.hand_size > 1:
        for p in range(st.hands.shape[0]):
            for h in range(st.hand_size):
                if k < deck_len:
                    st.hands[p, h] = st.deck[k]
                    k += 1
        st.deck_pos = k
    _begin_turn(st, tb, 0)


# ---------------------------------------------------------------------------- moves


@hot
def tile_to_place(st, hand_idx):
    if st.hand_size > 1:
        return st.hands[st.seat, hand_idx]
    return st.tile


@hot_entry
def check_move(st, tb, hand_idx, x, y, r, slot):
    """Error code (config.E_*) of a move, OK if legal. Reads the state, never changes it."""
    if st.done:
        return C.E_OVER
    if st.phase != C.PHASE_PLACE:
        return C.OK if _choice_of(st, x, y, r, slot) >= 0 else C.E_NOT_A_CHOICE
    if st.hand_size > 1 and not (0 <= hand_idx < C.HAND_MAX):
        return C.E_NOT_IN_HAND
    t = tile_to_place(st, hand_idx)
    if t < 0:
        return C.E_NOT_IN_HAND
    if not (0 <= r < 4):
        return C.E_BAD_ROTATION
    o = origin(st)
    bx, by = x + o, y + o
    if not (1 <= bx < st.board.shape[1] - 1 and 1 <= by < st.board.shape[0] - 1):
        return C.E_OFF_BOARD
    if st.board[by, bx] >= 0:
        return C.E_OCCUPIED_CELL
    con = constraint(st, bx, by)
    if con == 0:
        return C.E_NOT_ADJACENT
    if not fits(tb.edge_code, t, r, con):
        return C.E_EDGE_MISMATCH
    S = n_segments(st)
    if slot != C.NO_FOLLOWER and not (
        0 <= slot and slot % S < tb.n_seg[t] and slot // S < 4 and has_figure(st.cfg, slot // S)
    ):
        return C.E_NO_SUCH_SEGMENT
    opts = st.work[C.W_OPTS]
    n, _ = follower_options(st, tb, t, r, bx, by, opts)
    for k in range(n):
        if opts[k] == slot:
            return C.OK
    # Not offered: explain why.
    if slot == C.NO_FOLLOWER:
        return C.E_SOLO_COMPULSORY
    if st.solo and tb.seg_kind[t, slot] == C.K_FIELD:
        return C.E_SOLO_FARMER
    fig = slot // S
    seat = st.seat
    if (st.supply[seat] if fig == C.FIG_FOLLOWER else st.xsupply[seat, fig - 1]) <= 0:
        return C.E_NO_SUPPLY
    if fig == C.FIG_BUILDER or fig == C.FIG_PIG:
        return C.E_NOT_OWN
    return C.E_FEATURE_OCCUPIED


@hot
def apply_move(st, tb, hand_idx, x, y, r, slot):
    """Play one whole turn, or one scoring choice at a scoring decision (`core.choices`).
    The move must be legal (`check_move(...) == OK`)."""
    seat = st.seat
    if st.phase != C.PHASE_PLACE:
        if apply_choice(st, tb, _choice_of(st, x, y, r, slot)) and not st.done:
            _end_turn(st, tb, seat, hand_idx)
        return
    if place_and_score(st, tb, hand_idx, x, y, r, slot, True):
        return  # the player picks the order; the turn ends with the last choice
    _end_turn(st, tb, seat, hand_idx)


@hot_inline
def finish_placing(st, tb, hand_idx, i, slot):
    """The rest of `apply_move` once `put_tile` has put the hand's tile down as
    placement i (and a solo end A is marked): the figure on `slot`, the scoring, the
    end of the turn."""
    seat = st.seat
    if not figure_and_score(st, tb, i, slot, True):
        _end_turn(st, tb, seat, hand_idx)


@hot_inline
def place_and_score(st, tb, hand_idx, x, y, r, slot, ask):
    """The first half of a placing turn (`apply_move` without passing the turn): put the
    tile and figure down, mark and score what it completed. With `ask` and
    scoring_order="player", two or more completions stop at the player's scoring choice
    (returns True); otherwise they score in the automatic order (returns False).
    Candidate-move observations (`core.candidates`) read the state it leaves."""
    t = tile_to_place(st, hand_idx)
    o = origin(st)
    bx, by = x + o, y + o
    if st.solo and slot == C.NO_FOLLOWER and solo_blocked(st, tb, t, r, bx, by):
        st.solo_end_a = 1
    i = put_tile(st, tb, t, r, bx, by)
    return figure_and_score(st, tb, i, slot, ask)


@hot
def solo_blocked(st, tb, t, r, bx, by):
    """Solo: whether placing t/r on (bx, by) without a follower ends the game (a
    follower is compulsory but the supply is empty: end A). Read before placing."""
    opts = st.work[C.W_OPTS]
    _, blocked = follower_options(st, tb, t, r, bx, by, opts)
    return blocked


@hot
def put_tile(st, tb, t, r, bx, by):
    """`place_and_score`'s first step: the tile down (features merged) and the builder's
    extra turn checked, no figure yet. Returns the placement index."""
    i = place_tile(st, tb, t, r, bx, by)
    seat = st.seat
    # (a builder in the supply is on no feature: nothing to look up)
    if (
        st.expansions & C.EXP_TRADERS_BUILDERS
        and not st.extra
        and st.xsupply[seat, C.FIG_BUILDER - 1] == 0
    ):
        _check_builder(st, tb, t, i, seat)  # before this move's own figure
    return i


@hot
def figure_and_score(st, tb, i, slot, ask):
    """`place_and_score`'s second step on placement i (just put down by `put_tile`):
    the figure on `slot`, then what the tile completed marked and scored."""
    if slot != C.NO_FOLLOWER:
        S = n_segments(st)
        place_figure(st, i * S + slot % S, slot // S, st.seat)
    n = mark_completed(st, tb, i)
    roots = st.work[C.W_ROOTS]
    if ask and st.player_order and start_feature_choice(st, roots, n):
        return True
    # Solo: the game ends after this move (end A, or this colour's stack is used up), so
    # the order of its completions also decides the end bonus (see score_completed).
    score_completed(st, tb, roots, n, solo_ends_after_turn(st))
    return False


@hot
def mark_completed(st, tb, i):
    """Mark done what placement i (its figure down) completed, its roads and cities and
    the monasteries around it, and list them in ``st.work[W_ROOTS][:n]``; the seat to
    move takes a completed city's trade goods. Returns n (`score_completed` scores
    them)."""
    seat = st.seat
    t = st.ptype[i]
    bx, by = st.px[i], st.py[i]
    S = n_segments(st)
    roots = st.work[C.W_ROOTS]
    parent, fopen, fdone, board, ptype = st.parent, st.fopen, st.fdone, st.board, st.ptype
    seg_kind, mon_seg = tb.seg_kind, tb.mon_seg
    n = 0
    for s in range(tb.n_seg[t]):
        kind = seg_kind[t, s]
        if kind == C.K_CITY or kind == C.K_ROAD:
            root = find(parent, i * S + s)
            if fopen[root] == 0 and not fdone[root]:
                fdone[root] = 1
                roots[n] = root
                n += 1
                # Trade goods go to the player completing the city; with
                # goods_from_unowned_city=False (BGA) only if a follower stands on it.
                if kind == C.K_CITY and (st.goods_unowned or st.fmeep[root].sum() > 0):
                    for k in range(C.N_GOODS):
                        st.goods[seat, k] += st.fgoods[root, k]
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            j = board[by + dy, bx + dx]
            if j >= 0:
                m = mon_seg[ptype[j]]
                if m >= 0 and fopen[j * S + m] == 0 and not fdone[j * S + m]:
                    fdone[j * S + m] = 1
                    roots[n] = j * S + m
                    n += 1
    return n


@hot
def place_figure(st, g, fig, seat):
    """Put `seat`'s figure `fig` (config.FIG_*) on segment g of the tile just placed. A
    large follower counts as two followers for majorities, a builder or pig as none."""
    root = find(st.parent, g)
    if fig == C.FIG_FOLLOWER or fig == C.FIG_LARGE:
        st.fmeep[root, seat] += 1 + fig
    elif fig == C.FIG_BUILDER:
        st.fbuild[root] |= 1 << seat
    else:
        st.fpig[root] |= 1 << seat
    st.owner[g] = seat
    st.ofig[g] = fig
    st.active[st.nactive] = g
    st.nactive += 1
    if fig == C.FIG_FOLLOWER:
        st.supply[seat] -= 1
    else:
        st.xsupply[seat, fig - 1] -= 1


@hot_inline
def lift_figure(st, g, fig, seat):
    """Take back the figure that `place_figure(st, g, fig, seat)` put down, nothing
    having changed since (the candidate pass tries a position's figure options on one
    state this way). A builder or pig goes only where none of its seat's stands (its one
    figure was in the supply), so its bit is cleared; `ofig` is read only where a figure
    stands."""
    root = find(st.parent, g)
    if fig == C.FIG_FOLLOWER or fig == C.FIG_LARGE:
        st.fmeep[root, seat] -= 1 + fig
    elif fig == C.FIG_BUILDER:
        st.fbuild[root] &= ~(1 << seat)
    else:
        st.fpig[root] &= ~(1 << seat)
    st.owner[g] = -1
    st.nactive -= 1
    if fig == C.FIG_FOLLOWER:
        st.supply[seat] += 1
    else:
        st.xsupply[seat, fig - 1] += 1


@hot_inline
def undo_place(dst, src, tb):
    """Make `dst` play on exactly like `src` again, where dst was a copy of src (or a
    `state.copy_into` of it) on which only the steps of `place_and_score` were played
    since: `put_tile`, figures placed or lifted, completions scored, and the end scoring
    at most. The candidate pass tries each placement of a position this way: it restores
    only what those steps change (cheaper than a full copy), so any other change to
    dst, or a dst holding another game, leaves it wrong.

    Those steps change the board only around the tile (the tile, its new open cells,
    the frontier slot that moved into the tile's), the tile sets (`fbits`) only of the
    features it joined by a city or road edge, and otherwise the small arrays and the
    live part of the per-segment ones; they only append to the rest (events, pairs,
    the tile's own entries), which the restored counters then ignore."""
    i = src.placed
    S = n_segments(src)
    board, src_board = dst.board, src.board
    if dst.placed > i:  # the tile is down: its cell and the merged tile sets
        bx, by = dst.px[i], dst.py[i]
        board[by, bx] = src_board[by, bx]
        W = dst.fbits.shape[1]
        for d in range(4):
            nx, ny = bx + NEIGHBOUR_DX[d], by + NEIGHBOUR_DY[d]
            j = src_board[ny, nx]
            board[ny, nx] = j
            if j >= 0:
                s = tb.edge_seg[src.ptype[j], src.prot[j], (d + 2) % 4]
                if s >= 0:  # a city or road edge: the union's root got the tile's bit
                    root = np.int64(root_of(src.parent, j * S + s))
                    copy_flat(dst.fbits, src.fbits, root * W, W)
        last = src.nfront - 1  # the slot `place_tile` moved into the tile's
        if last >= 0:
            lx, ly = src.frontier[last, 0], src.frontier[last, 1]
            board[ly, lx] = src_board[ly, lx]
    copy_field(dst.words, src.words, STATE_FIELDS.sc, C.SC_SIZE)
    copy_field(dst.words, src.words, STATE_FIELDS.frontier, src.nfront)
    copy_features(dst, src, i * S, src.expansions != 0)


@hot_inline
def _check_builder(st, tb, t, i, seat):
    """Traders & Builders: the tile just placed (placement i) earns `seat` an extra turn
    if it extends a road or city holding that seat's builder (not during an extra turn:
    never a chain)."""
    S = n_segments(st)
    for s in range(tb.n_seg[t]):
        kind = tb.seg_kind[t, s]
        if (kind == C.K_ROAD or kind == C.K_CITY) and st.fbuild[find(st.parent, i * S + s)] & (
            1 << seat
        ):
            st.earned = 1


@hot_entry
def apply_move_auto(st, tb, hand_idx, x, y, r, slot):
    """`apply_move`, then the scoring choices it opens (scoring_order="player") made as
    "auto" makes them: the bots' lookahead, which assumes the automatic order."""
    apply_move(st, tb, hand_idx, x, y, r, slot)
    while st.phase != C.PHASE_PLACE and not st.done:
        x, y, r, slot = choice_row(st, auto_choice(st, tb, solo_ends_after_turn(st)))
        apply_move(st, tb, 0, x, y, r, slot)


@hot
def solo_ends_after_turn(st):
    """Solo: whether the game ends after the current turn (end A, or the colour to move
    has placed the last tile of its stack); False outside the solo variant."""
    seat = st.seat
    return st.solo != 0 and (st.solo_end_a != 0 or st.spos[seat] >= solo_stack_size(st, seat))


@hot
def _end_turn(st, tb, seat, hand_idx):
    """After the scoring of a turn: refill the hand, pass the turn or end the game."""
    st.turn += 1
    if st.hand_size > 1:
        hand = st.hands[seat]
        hand[hand_idx] = -1
        if st.deck_pos < st.deck_len:
            hand[hand_idx] = st.deck[st.deck_pos]
            st.deck_pos += 1
    _advance(st, tb, seat)


@hot_inline
def _advance(st, tb, seat):
    P = st.seats
    if st.solo:
        if st.solo_end_a:
            _end_game(st, tb, C.END_SOLO_A)
            return
        if st.spos[seat] >= solo_stack_size(st, seat):
            _end_game(st, tb, C.END_SOLO_B)
            return
    if st.earned:  # a builder's extra turn: the same seat draws again
        st.earned = 0
        _begin_turn(st, tb, seat)
        st.extra = 1 if st.seat == seat and not st.done else 0
        return
    st.extra = 0
    _begin_turn(st, tb, (seat + 1) % P)


@hot
def _choice_of(st, x, y, r, slot):
    """The scoring choice named by a follower at (x, y) on `slot` of a tile turned `r`
    (core.choices), -1 if there is none."""
    o = origin(st)
    bx, by = x + o, y + o
    if not (0 <= bx < st.board.shape[1] and 0 <= by < st.board.shape[0]):
        return -1
    i = st.board[by, bx]
    S = n_segments(st)
    if i < 0 or st.prot[i] != r or not 0 <= slot < S:
        return -1
    return choice_index(st, i * S + slot)


@hot_inline
def _earlier_in_hand(st, h, t):
    for k in range(h):
        if tile_to_place(st, k) == t:
            return True
    return False


@hot
def legal_moves(st, tb, out):
    """Write every legal move as rows (hand index, x, y, rotation, slot) into `out`;
    returns the count. Order: hand tile, frontier cell, rotation, slot."""
    if st.done:
        return 0
    if st.phase != C.PHASE_PLACE:
        return choice_rows(st, out)
    o = origin(st)
    places = st.places
    opts = st.work[C.W_OPTS]
    n_hand = st.hand_size
    n = 0
    for h in range(n_hand):
        t = tile_to_place(st, h)
        if t < 0 or _earlier_in_hand(st, h, t):
            continue  # each distinct tile once
        n_places = list_placements(st, tb, t, places)
        for k in range(n_places):
            bx, by, r = places[0, k], places[1, k], places[2, k]
            n_opts, _ = follower_options(st, tb, t, r, bx, by, opts)
            for q in range(n_opts):
                out[n, 0] = h
                out[n, 1] = bx - o
                out[n, 2] = by - o
                out[n, 3] = r
                out[n, 4] = opts[q]
                n += 1
    return n


# ---------------------------------------------------------------------------- from Python

OP_RESET, OP_LEGAL_MOVES, OP_APPLY_MOVE = 0, 1, 2


@hot_entry
def game_call(st, tb, op, a, x, y, r, slot, rows):
    """`reset` (`a`: the deck length), `legal_moves` into `rows` (its count returned) or
    `apply_move` (`a`: the hand index), chosen by `op`: the one compiled function through
    which Python plays a game. The three share most of the rules core; as one function
    Python calls, that code is optimised and turned into machine code once, not three
    times (`compiler.link_only`)."""
    if op == OP_APPLY_MOVE:
        apply_move(st, tb, a, x, y, r, slot)
        return 0
    if op == OP_LEGAL_MOVES:
        return legal_moves(st, tb, rows)
    reset(st, tb, a)
    return 0
