"""Refit a candidate model's value head on the outcomes of its own self-play games (Monte
Carlo value targets), its policy unchanged: the network `agents.puct` searches with.

    carcassonne train value --init ppo_duel_rl --out runs/value
    carcassonne train value --init ppo_duel_rl --out runs/value --games 64 --epochs 1 \\
        --envs 32                                                     # a smoke test

The model plays `games` 2-player games against itself in the jitted `VsBotsVectorEnv`
(both seats sample its moves; `envs` games at a time). Every decision of either seat is
a sample: the value head's input (the candidates' pooled embeddings and the context,
`training.policy.CandidateNet.trunk`) and, once the game ends, the seat's final margin
minus its projected margin at that decision, over `value_scale` (what a value head
trained on projected rewards predicts, `training.shaping`; `agents.puct` adds it to the
projected margin). A share `holdout` of the games is kept out; the value MLP and
`value_net` then take `epochs` passes of squared error with Adam, everything else frozen,
so the model plays move for move as before. Only the game's results go in: no bot's
evaluation, no cloning.

Why: a PPO critic can predict these targets worse than a constant, and PUCT's one-ply
values are only as good as it; the refit fits them directly (what it gains:
results/training/value_fit.md; most of the error left is the tiles still to be drawn).

The run folder holds config.json, curve.csv (per epoch: wall-clock seconds, training and
held-out error in points^2; epoch 0 is the model before) and model.zip. 2 players, a model
over candidate moves that observes the projected scores (``obs_features="aggregate"``).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.sb3_policy import load_model
from carcassonne_env.cli_errors import run_script
from carcassonne_env.envs.for_model import model_env_options
from carcassonne_env.model_file import save_model

from .cli import run_cli
from .curves import write_rows
from .run_folder import (
    CONFIG_FILE,
    CURVE_FILE,
    FINAL_MODEL,
    Session,
    SessionOptions,
    plan_folder,
    remove_run_files,
    write_config,
)
from .settings import require, setting

if TYPE_CHECKING:
    from typing_extensions import Unpack

CURVE = ["epoch", "wall_s", "train_mse", "holdout_mse"]
VALUE_FILES = (CONFIG_FILE, CURVE_FILE, FINAL_MODEL)  # what a refit writes in its folder


@dataclasses.dataclass
class ValueSettings:
    """Settings of a value refit (see the module docstring)."""

    init: str = setting(
        "ppo_duel_rl", "the model refitted: a saved model or a shipped model's name"
    )
    games: int = setting(3000, "self-play games (a few more finish in the last batch)")
    envs: int = setting(128, "games played at once")
    epochs: int = setting(8, "passes of the fit over the samples")
    batch_size: int = setting(512, "minibatch of the fit")
    learning_rate: float = setting(1e-3, "Adam's learning rate")
    value_scale: float = setting(10.0, "points per value unit (the model's reward scale 0.1: 10)")
    holdout: float = setting(0.1, "share of the games kept out of the fit, for its error")
    seed: int = setting(0, "seeds the games and the fit")
    threads: int = setting(2, "numba and PyTorch threads")

    def check(self) -> None:
        """ValueError naming the first setting out of its range."""
        for name in ("games", "envs", "epochs", "batch_size", "threads"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        require(self, "seed", int, lambda v: v >= 0, "an integer >= 0")
        for name in ("learning_rate", "value_scale"):
            require(self, name, float, lambda v: v > 0, "a number > 0")
        require(self, "holdout", float, lambda v: 0 <= v < 1, "a number in [0, 1)")


def env_options(model: Any) -> dict[str, Any]:
    """The `VsBotsVectorEnv` settings of `model`'s games (a loaded model, or a saved
    one's path or shipped name); ValueError for a model the refit does not take (see
    the module docstring)."""
    options = model_env_options(model)
    if (
        options.get("players") != 2
        or options.get("hand_size") != 1
        or not options.get("candidate_moves")
    ):
        raise ValueError(
            "the value refit takes a 2-player model over candidate moves "
            "(trained with --policy candidates, one tile in hand), got one "
            f"for {options}"
        )
    if options.get("obs_features") != "aggregate":
        raise ValueError(
            "the value refit needs a model that observes the projected scores "
            "(obs_features='aggregate'): its targets start from them"
        )
    options.pop("action_mode")
    return options


def self_play(
    model: Any, settings: ValueSettings, progress: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play `settings.games` self-play games of `model`; returns per decision the value
    head's input, the target in value units and the game's number."""
    import torch
    from tqdm import tqdm

    from carcassonne_env.envs import VsBotsVectorEnv

    options = env_options(model)
    net = model.policy.features_extractor.net
    env = VsBotsVectorEnv(settings.envs, opponents="self", num_threads=settings.threads, **options)
    names = env.encoder.feature_names
    proj = names.index("projected_score_0")  # seat to move first
    unseen = [j for j, name in enumerate(names) if name.startswith("unseen_")]
    rng = np.random.default_rng(settings.seed)
    # A game's samples, kept until it ends. A game is told from the next one on the same
    # env by the tiles not yet seen (public with one tile in hand), which only fall during
    # a game: the next game's first decision can come inside the step that ends one,
    # before the caller sees the end. left[i] = inf: env i's open game has not decided.
    games: list[list[int]] = [[] for _ in range(settings.envs)]  # open games per env
    samples: dict[int, list[tuple[np.ndarray, float, int]]] = {}
    left = np.full(settings.envs, np.inf)  # tiles unseen at each env's last decision

    numbers = itertools.count()

    def open_game(i: int) -> None:
        games[i].append(next(numbers))
        samples[games[i][-1]] = []
        left[i] = np.inf

    def act(obs: dict[str, np.ndarray], envs: np.ndarray, observers: np.ndarray) -> np.ndarray:
        """Sample the model's moves; keep each decision's value input, projected margin
        and seat under its game."""
        with torch.no_grad():
            logits, pooled = net.trunk(
                *(torch.as_tensor(obs[k]) for k in ("features", "candidates", "candidate_actions"))
            )
        actions = obs["candidate_actions"]
        present = actions >= 0
        logits = np.where(present, logits.numpy().astype(np.float64), -np.inf)
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        pick = (p.cumsum(1) < rng.random((len(p), 1))).sum(1).clip(max=present.sum(1) - 1)
        features = obs["features"]
        pooled = pooled.numpy()
        for row, (i, seat) in enumerate(
            zip(np.asarray(envs).tolist(), np.asarray(observers).tolist(), strict=True)
        ):
            now = float(features[row, unseen].sum())
            if now > left[i]:  # a new game began on env i
                open_game(i)
            left[i] = now
            base = 100.0 * float(features[row, proj] - features[row, proj + 1])
            samples[games[i][-1]].append((pooled[row], base, seat))
        return actions[np.arange(len(p)), pick]

    parts: list[tuple[np.ndarray, np.ndarray]] = []  # (inputs, targets) per ended game
    for i in range(settings.envs):  # the first games (the reset may play their first moves)
        open_game(i)
    env.self_policy = lambda obs, masks, observers, games: act(obs, games, observers)
    obs, _ = env.reset(seed=settings.seed)
    with tqdm(total=settings.games, desc="self-play", unit="game", disable=not progress) as bar:
        while len(parts) < settings.games:
            actions = act(obs, np.arange(settings.envs), env.seats)
            obs, _, terminated, truncated, info = env.step(actions)
            for i in np.flatnonzero(terminated | truncated).tolist():
                ended = samples.pop(games[i].pop(0))  # the oldest open game of env i
                if not games[i]:  # the next one has not decided yet
                    open_game(i)
                if truncated[i]:  # cut short by the window: no outcome
                    continue
                scores = info["final_info"]["scores"][i]
                margins = np.array([scores[s] - scores[1 - s] for _, _, s in ended])
                bases = np.array([b for _, b, _ in ended])
                parts.append(
                    (np.stack([x for x, _, _ in ended]), (margins - bases) / settings.value_scale)
                )
                bar.update(1)
    x = np.concatenate([xs for xs, _ in parts])
    y = np.concatenate([ys for _, ys in parts]).astype(np.float32)
    g = np.concatenate([np.full(len(ys), k) for k, (_, ys) in enumerate(parts)])
    return x, y, g


def fit_epoch(head: Any, optimizer: Any, x: Any, y: Any, order: Any, batch_size: int) -> None:
    """One pass of squared error of `head` on tensors (x, y), in minibatches of
    `batch_size` taken in `order` (a permutation of the rows)."""
    for start in range(0, len(y), batch_size):
        idx = order[start : start + batch_size]
        loss = ((head(x[idx]).squeeze(-1) - y[idx]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def fit(
    model: Any,
    x: np.ndarray,
    y: np.ndarray,
    games: np.ndarray,
    settings: ValueSettings,
    out: Path,
    progress: bool = True,
) -> None:
    """Fit the value MLP and value_net of `model` on (x, y), the games with the highest
    numbers (a `holdout` share) kept out; write curve.csv rows per epoch."""
    import torch
    from tqdm import tqdm

    policy = model.policy
    head = torch.nn.Sequential(policy.features_extractor.net.value, policy.value_net)
    cut = int(round(games.max() * (1 - settings.holdout))) if settings.holdout else games.max() + 1
    train, held = games < cut, games >= cut
    xt, yt = torch.as_tensor(x[train]), torch.as_tensor(y[train])
    xh, yh = torch.as_tensor(x[held]), torch.as_tensor(y[held])
    scale2 = settings.value_scale**2

    def mse(xs: Any, ys: Any) -> float:
        if len(ys) == 0:
            return float("nan")
        with torch.no_grad():
            return float(((head(xs).squeeze(-1) - ys) ** 2).mean()) * scale2

    torch.manual_seed(settings.seed)
    optimizer = torch.optim.Adam(head.parameters(), lr=settings.learning_rate)
    started = time.perf_counter()
    rows = [dict(zip(CURVE, [0, 0.0, round(mse(xt, yt), 2), round(mse(xh, yh), 2)], strict=True))]
    write_rows(out / CURVE_FILE, CURVE, rows)
    for epoch in tqdm(
        range(1, settings.epochs + 1), desc="fit", unit="epoch", disable=not progress
    ):
        fit_epoch(head, optimizer, xt, yt, torch.randperm(len(yt)), settings.batch_size)
        rows.append(
            dict(
                zip(
                    CURVE,
                    [
                        epoch,
                        round(time.perf_counter() - started, 1),
                        round(mse(xt, yt), 2),
                        round(mse(xh, yh), 2),
                    ],
                    strict=True,
                )
            )
        )
        write_rows(out / CURVE_FILE, CURVE, rows)  # whole, after every epoch


def plan_value(out: Path, settings: ValueSettings, session: Session) -> ValueSettings:
    """The checks of a refit before any work, writing nothing (`run_folder.plan_folder`:
    a refit does not resume); returns the settings. ValueError for a model the refit
    does not take (`env_options`)."""
    if session.resume:
        raise ValueError("a refit does not resume: start a new one (--overwrite replaces it)")
    settings = plan_folder(out, settings, session.untimed("a refit"), VALUE_FILES, ())
    env_options(settings.init)  # read from its description: nothing is loaded
    return settings


def run(settings: ValueSettings, out: Path, **options: Unpack[SessionOptions]) -> Path:
    """Refit the value head of `settings.init` in folder `out` as the `options` say
    (`run_folder.Session`: overwrite, progress; a refit neither resumes nor takes a
    budget); returns the model's path."""
    import torch

    session = Session(**options)
    settings = plan_value(out, settings, session)
    progress = session.progress
    model = load_model(settings.init, cached=False)
    torch.set_num_threads(settings.threads)
    if session.overwrite:
        remove_run_files(out, VALUE_FILES)
    out.mkdir(parents=True, exist_ok=True)
    write_config(out, settings)
    started = time.perf_counter()
    x, y, games = self_play(model, settings, progress)
    play_s = time.perf_counter() - started
    fit(model, x, y, games, settings, out, progress)
    save_model(model, out / FINAL_MODEL)
    write_config(
        out,
        settings,
        samples=int(len(y)),
        self_play_s=round(play_s, 1),
        total_s=round(time.perf_counter() - started, 1),
    )
    return out / FINAL_MODEL


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli(
        "carcassonne train value",
        __doc__,
        ValueSettings,
        {"full": {}},
        run,
        argv,
        plan=plan_value,
        resume=None,
    )


if __name__ == "__main__":
    raise SystemExit(run_script(main))
