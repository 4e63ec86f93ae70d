"""The action codec: a flat action index <-> (hand, window row, window column, rotation,
slot), the layout of `carcassonne_env.encoding` (docs/observations.md):

    turn action      = (((hand * B + row) * B + col) * 4 + rotation) * SL + slot + 1
    placement action = ((hand * B + row) * B + col) * 4 + rotation

B: the window's cells per side; SL: follower slots per rotation (slot -1 = no figure,
else figure * S + segment). Each function is jitted for the kernels; its `py_func`
(`turn_actions`, `placements`) computes whole numpy columns at once in Python.
"""

from __future__ import annotations

from ..compiler.jit import hot


def _turn_action(h, row, col, r, slot, B, SL):
    """Turn action of hand tile h at window (row, col), rotation r, follower slot (-1:
    none); B the window, SL the slots per rotation."""
    return (((h * B + row) * B + col) * 4 + r) * SL + slot + 1


def _placement(h, row, col, r, B):
    """Placement action (two-step mode) of hand tile h at window (row, col), rotation r."""
    return ((h * B + row) * B + col) * 4 + r


def _split_turn_action(a, B, SL):
    """(hand, row, col, rotation, slot) of turn action `a`."""
    slot = a % SL - 1
    rest = a // SL
    r = rest % 4
    rest //= 4
    col = rest % B
    rest //= B
    return rest // B, rest % B, col, r, slot


def _split_placement(a, B):
    """(hand, row, col, rotation) of placement action `a`."""
    r = a % 4
    rest = a // 4
    col = rest % B
    rest //= B
    return rest // B, rest % B, col, r


# jitted, for the kernels
turn_action = hot(_turn_action)
placement = hot(_placement)
split_turn_action = hot(_split_turn_action)
# plain Python: ints, or whole numpy columns at once
turn_actions = _turn_action
placements = _placement
split_turn_actions = _split_turn_action
split_placements = _split_placement
