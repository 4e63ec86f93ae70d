"""PPO baselines: training scripts, the features extractor and policy
(`training.policy.BoardPolicy`), slim exports. They build on `carcassonne_env` and
`agents`, so another package named `agents` ahead on sys.path is reported here, in one
error, rather than as a puzzling ``cannot import name`` later."""

from carcassonne_env.shadowing import check_package

check_package("agents")
