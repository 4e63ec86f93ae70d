"""carcassonne_env.checks: the gymnasium space checks the policies and exports share."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from carcassonne_env.checks import check_space, discrete_size

BOARD = spaces.Box(0, 1, (3, 3, 2), np.int8)
OBS = spaces.Dict({"board": BOARD, "hand": spaces.Discrete(4)})


def test_check_space_returns_the_space_or_its_entry():
    assert check_space(BOARD, spaces.Box) is BOARD
    assert check_space(OBS, spaces.Box, "board") is BOARD
    assert check_space(OBS, spaces.Dict) is OBS


@pytest.mark.parametrize(
    ("space", "kind", "key", "message"),
    [
        (OBS, spaces.Box, None, "the space must be a Box space, got Dict("),
        (OBS, spaces.Box, "hand", "observation 'hand' must be a Box space, got Discrete(4)"),
        (OBS, spaces.Box, "features", "observation 'features' must be a Box space, got None"),
        (BOARD, spaces.Box, "board", "observation 'board' must be a Box space, got None"),
    ],
)
def test_check_space_names_what_is_wrong(space, kind, key, message):
    with pytest.raises(ValueError) as err:
        check_space(space, kind, key)
    assert str(err.value).startswith(message)


def test_discrete_size():
    assert discrete_size(spaces.Discrete(7)) == 7
    assert type(discrete_size(spaces.Discrete(7))) is int
    with pytest.raises(ValueError, match=r"^the space must be a Discrete space, got Box\("):
        discrete_size(BOARD)
