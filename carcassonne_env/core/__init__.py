"""The jitted rules core: game state as numpy arrays, rules as numba functions over them."""
