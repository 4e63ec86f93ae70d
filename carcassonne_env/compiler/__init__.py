"""How this package's jitted code is compiled, apart from the rules it compiles: the
decorators every jitted function uses (`jit`: `hot`, `counted`, `entry_point`...), the
link-only libraries of functions Python never calls (`link_only`), numba's typing and
inlining made cheaper (`numba_typing`, `numba_inlining`), numba's cache files read
without trusting them to be whole (`numba_cache`) and the notice when a part starts
compiling (`notices`). It imports nothing of the rules: the core (`carcassonne_env.core`),
the bots, the vector envs and the search bots of `agents` build on it. Compiling ahead
of time and clearing the cache: `carcassonne_env.compilation`."""
