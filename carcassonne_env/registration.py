"""Registers the environments with Gymnasium and, where it has a registry (1.27+),
PettingZoo. Entry points are strings, so nothing heavy is imported until an env is made."""

from __future__ import annotations

GYM_IDS = {
    "Carcassonne/Solo-v0": "carcassonne_env.envs.solo:SoloEnv",
    "Carcassonne/VsBots-v0": "carcassonne_env.envs.vs_bots:VsBotsEnv",
}
# gymnasium.make_vec("Carcassonne/Solo-v0", num_envs=N, vectorization_mode=
# "vector_entry_point") builds the jitted vector env.
VECTOR_ENTRY_POINTS = {
    "Carcassonne/Solo-v0": "carcassonne_env.envs.solo:SoloVectorEnv",
    # batched games against jitted bots (players=P, opponents=[...])
    "Carcassonne/VsBots-v0": "carcassonne_env.envs.vs_bots:VsBotsVectorEnv",
}
PETTINGZOO_ID = "Carcassonne/Carcassonne-v0"


def register_envs() -> None:
    """Register `Carcassonne/Solo-v0` and `Carcassonne/VsBots-v0` with Gymnasium (once; importing
    the package does it)."""
    import gymnasium

    for env_id, entry_point in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=entry_point,
                disable_env_checker=True,
                vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id),
            )
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        return
    register = getattr(pettingzoo, "register", None)
    if register is None:  # PettingZoo < 1.27 has no registry
        return
    for kind, registry in (("aec", "aec_registry"), ("parallel", "parallel_registry")):
        if PETTINGZOO_ID not in getattr(pettingzoo, registry, {}):
            entry = (
                "carcassonne_env.envs.aec:env"
                if kind == "aec"
                else "carcassonne_env.envs.aec:parallel_env"
            )
            register(kind, PETTINGZOO_ID, entry_point=entry)
