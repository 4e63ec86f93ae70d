"""Search-guided self-play (expert iteration, AlphaZero-style) for a policy over candidate
moves.

    carcassonne train search --init ppo_duel_rl --out runs/exit       # start from a model
    carcassonne train search --out runs/exit --resume                 # continue the run
    carcassonne train search --init ppo_duel_rl --out runs/exit --iterations 1 \\
        --games 2 --simulations 4 --eval-games 0                      # a smoke test

Each iteration plays `games` self-play games in which both seats search every move with
`agents.puct.PUCTAgent` (the current network's priors and value; `simulations` per move;
the first `explore_moves` moves of each game are sampled in proportion to the visits,
the rest are the most visited). Every searched decision gives a training sample: the
network's observation, the root's visit shares over its candidates (the policy target)
and the seat's final margin minus its projected margin at that moment, in value units
(the value target: what the value head predicts under projected rewards, see
`training.shaping`). The network then takes `epochs` passes over the iteration's samples
(cross-entropy to the visit shares plus `value_coef` x squared value error, Adam) and
plays the next iteration. Nothing but the rules and the network's own searches goes in:
no bot's evaluation, no cloning.

A run folder holds config.json, model_iter_<k>.zip (the network after iteration k;
``model_iter_0`` is the start), curve.csv (per iteration: wall-clock seconds, samples,
losses, the raw policy's win rate against greedy and heuristic over `eval_games` games
each, both seatings) and model.zip (the last). 2-player base game only.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.puct import PUCTAgent, row_actions
from agents.sb3_policy import SB3Agent, load_model
from carcassonne_env import Game, Rules
from carcassonne_env.cli_errors import Interrupted, OneLineParser
from carcassonne_env.encoding import WindowOverflowError

from .common import require

CURVE = ["iteration", "wall_s", "games", "samples", "policy_loss", "value_loss",
         "win_vs_greedy", "win_vs_heuristic"]


@dataclasses.dataclass
class SearchSettings:
    """Settings of a search-guided self-play run (see the module docstring)."""

    init: str = "ppo_duel_rl"  # the starting network: a saved model or a shipped name
    iterations: int = 20
    games: int = 16  # self-play games per iteration
    simulations: int = 32  # PUCT simulations per move
    c: float = 1.5  # PUCT exploration constant
    explore_moves: int = 10  # moves per game sampled in proportion to the visits
    epochs: int = 2
    batch_size: int = 128
    learning_rate: float = 1e-4
    value_coef: float = 0.5
    value_scale: float = 10.0  # points per value unit (the init's reward_scale: 0.1)
    eval_games: int = 20  # per opponent after each iteration (0: none)
    seed: int = 0
    torch_threads: int = 1

    def check(self) -> None:
        """ValueError naming the first setting out of its range."""
        for name in ("iterations", "games", "simulations", "epochs", "batch_size",
                     "torch_threads"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        for name in ("explore_moves", "eval_games", "seed"):
            require(self, name, int, lambda v: v >= 0, "an integer >= 0")
        for name in ("learning_rate", "value_scale"):
            require(self, name, float, lambda v: v > 0, "a number > 0")
        for name in ("c", "value_coef"):
            require(self, name, float, lambda v: v >= 0, "a number >= 0")


@dataclasses.dataclass
class Sample:
    """One searched decision: the observation, the visit shares per candidate row and
    the value target (filled in when the game ends)."""

    obs: dict[str, np.ndarray]
    target: np.ndarray
    seat: int
    base: float
    value: float = 0.0


def self_play_game(agent: PUCTAgent, rules: Rules, seed: int, explore_moves: int,
                   rng: np.random.Generator) -> tuple[list[Sample], list[int]]:
    """One game in which both seats search with `agent`; returns its samples (value
    targets in points: final margin minus the projected margin) and final scores."""
    game = Game(rules, seed=seed)
    samples: list[Sample] = []
    keys = list(agent.net.model.observation_space.spaces)
    ply = 0
    while not game.done:
        moves = game.legal_moves()
        if len(moves) == 1:
            game.play(moves[0])
            continue
        try:
            obs = agent.net.observe(game)
        except WindowOverflowError:  # the window cannot show it: no sample
            obs = None
        visits = agent.search(game).astype(np.float64)
        if obs is not None:
            enc = agent.net.encoder_for(game)
            actions = row_actions(game, enc, game.legal_rows())  # the root's edges
            share = dict(zip(actions.tolist(), (visits / visits.sum()).tolist(), strict=True))
            target = np.array([share.get(a, 0.0) for a in obs["candidate_actions"].tolist()],
                              np.float32)
            if target.sum() > 0:  # some visited move is among the candidates
                samples.append(Sample({k: obs[k].copy() for k in keys}, target / target.sum(),
                                      game.current_player,
                                      agent.base(game, enc, obs["features"])))
        if ply < explore_moves:
            k = int(rng.choice(len(moves), p=visits / visits.sum()))
        else:
            k = int(np.argmax(visits + 1e-6 * agent.root_prior))
        game.play(moves[k])
        ply += 1
    scores = list(game.scores)
    for s in samples:
        s.value = scores[s.seat] - max(v for q, v in enumerate(scores) if q != s.seat) - s.base
    return samples, scores


def train_on(model: Any, samples: list[Sample], settings: SearchSettings,
             rng: np.random.Generator, optimizer: Any) -> tuple[float, float]:
    """`epochs` passes of cross-entropy to the visit shares and value regression over
    `samples`; returns the mean policy and value losses of the last pass."""
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    n = len(samples)
    stacked = {k: np.stack([s.obs[k] for s in samples]) for k in samples[0].obs}
    targets = torch.as_tensor(np.stack([s.target for s in samples]))
    values = torch.as_tensor(np.array([s.value / settings.value_scale for s in samples],
                                      np.float32))
    losses: list[tuple[float, float]] = []
    for _ in range(settings.epochs):
        losses = []
        order = rng.permutation(n)
        for start in range(0, n, settings.batch_size):
            idx = order[start:start + settings.batch_size]
            obs, _ = policy.obs_to_tensor({k: v[idx] for k, v in stacked.items()})
            dist = policy.get_distribution(obs)
            logits = dist.distribution.logits
            cand = obs["candidate_actions"].long()
            present = cand >= 0
            chosen = logits.gather(1, cand.clamp(min=0)).masked_fill(~present, -1e9)
            logp = torch.log_softmax(chosen, dim=1)
            policy_loss = -(targets[idx] * logp.masked_fill(~present, 0.0)).sum(1).mean()
            value_loss = torch.nn.functional.mse_loss(policy.predict_values(obs).squeeze(-1),
                                                      values[idx])
            loss = policy_loss + settings.value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            losses.append((policy_loss.item(), value_loss.item()))
    policy.set_training_mode(False)
    return float(np.mean([p for p, _ in losses])), float(np.mean([v for _, v in losses]))


def evaluate_raw(path: Path, games: int, seed: int) -> tuple[float, float]:
    """The saved network's own moves (no search) against greedy and heuristic: win rates
    over `games` games each (seats swapped on every deck)."""
    from agents.arena import run_arena

    spec = f"sb3:model={path}"
    result = run_arena([spec, "greedy", "heuristic"], games=games, seed=seed,
                       gauntlet=spec, progress=False)
    pairs = result.pairwise()
    return pairs[spec, "greedy"].win_rate, pairs[spec, "heuristic"].win_rate


def _saved_iterations(out: Path) -> list[int]:
    return sorted(int(p.stem.rsplit("_", 1)[1]) for p in out.glob("model_iter_*.zip"))


def run(settings: SearchSettings | None, out: Path, resume: bool = False,
        iterations: int | None = None, progress: bool = True,
        overwrite: bool = False) -> Path:
    """Run the loop with `settings` in folder `out` (`overwrite`: replacing the run
    there), or with `resume` continue the run there with its stored settings (and
    `iterations` in all, if given); returns the last model's path."""
    import torch
    from tqdm import tqdm

    config = out / "config.json"
    if resume:
        if not config.is_file() or not _saved_iterations(out):
            raise ValueError(f"--resume: no search run in {out} (no config.json or "
                             "model_iter_*.zip)")
        settings = SearchSettings(**json.loads(config.read_text())["settings"])
        if iterations is not None:
            settings.iterations = iterations
        settings.check()
    else:
        if settings is None:
            raise ValueError("a new run needs its settings")
        settings.check()
        if config.exists() and not overwrite:
            raise ValueError(f"{out} holds a run: --resume continues it, --overwrite "
                             "replaces it")
        start = load_model(settings.init, cached=False)  # checked before the folder changes
        if "candidates" not in start.observation_space.spaces:
            raise ValueError(f"--init {settings.init}: search-guided self-play trains a policy "
                             "over candidate moves (a model trained with --policy candidates)")
        if overwrite and out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True, exist_ok=True)
        start.save(out / "model_iter_0.zip")
        with open(out / "curve.csv", "w", newline="") as f:
            csv.writer(f).writerow(CURVE)
    config.write_text(json.dumps({"settings": dataclasses.asdict(settings)}, indent=2))
    torch.set_num_threads(settings.torch_threads)
    done = _saved_iterations(out)[-1]
    path = out / f"model_iter_{done}.zip"
    model = load_model(path, cached=False)
    optimizer = torch.optim.Adam(model.policy.parameters(), lr=settings.learning_rate)
    rules = Rules(players=2)
    started = time.perf_counter() - _elapsed(out)
    for it in range(done + 1, settings.iterations + 1):
        rng = np.random.default_rng([settings.seed, it])
        agent = PUCTAgent(SB3Agent(model), seed=int(rng.integers(2**31)),
                          simulations=settings.simulations, c=settings.c,
                          value_scale=settings.value_scale, value_base="projected",
                          prior_temperature=1.0,  # the priors as the policy gives them
                          lookahead=0)  # (its runs were measured so)
        samples: list[Sample] = []
        games = range(settings.games)
        try:
            for g in tqdm(games, desc=f"iteration {it}: self-play", unit="game",
                          disable=not progress, leave=False):
                # decks no evaluation uses: the evaluations' seeds are small
                new, _ = self_play_game(agent, rules, 10**6 * (settings.seed + 1) + it * 1000
                                        + g, settings.explore_moves, rng)
                samples.extend(new)
        except KeyboardInterrupt:
            raise Interrupted(f"stopped during iteration {it}; iterations up to {it - 1} "
                              f"are saved in {out}: --resume continues") from None
        p_loss, v_loss = train_on(model, samples, settings, rng, optimizer)
        path = out / f"model_iter_{it}.zip"
        model.save(path)
        wins = evaluate_raw(path, settings.eval_games, seed=it) if settings.eval_games \
            else (float("nan"), float("nan"))
        with open(out / "curve.csv", "a", newline="") as f:
            csv.writer(f).writerow([it, round(time.perf_counter() - started, 1),
                                    settings.games, len(samples), round(p_loss, 4),
                                    round(v_loss, 4), *wins])
        if progress:
            print(f"iteration {it}: {len(samples)} samples, policy loss {p_loss:.3f}, "
                  f"value loss {v_loss:.3f}, raw policy vs greedy {wins[0]:.2f}, "
                  f"vs heuristic {wins[1]:.2f}")
    shutil.copyfile(path, out / "model.zip")
    return out / "model.zip"


def _elapsed(out: Path) -> float:
    """Wall-clock seconds of the iterations already in the curve (a resumed run goes on
    counting from there)."""
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return float(rows[-1]["wall_s"]) if rows else 0.0


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = OneLineParser(prog="carcassonne train search", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="run folder")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its last iteration with its "
                        "stored settings (only --iterations may change)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the run in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    defaults = SearchSettings()
    for field in dataclasses.fields(SearchSettings):
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(getattr(
            defaults, field.name)), default=None, help=f"default: {getattr(defaults, field.name)}")
    args = parser.parse_args(argv)
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(SearchSettings)
             if getattr(args, f.name) is not None}
    if args.resume and set(given) - {"iterations"}:
        parser.error("--resume keeps the stored settings; only --iterations may change, got "
                     + ", ".join("--" + k.replace("_", "-") for k in given if k != "iterations"))
    try:
        path = run(None if args.resume else dataclasses.replace(defaults, **given), args.out,
                   resume=args.resume, iterations=given.get("iterations"),
                   progress=not args.no_progress, overwrite=args.overwrite)
    except ValueError as err:
        parser.error(str(err))
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
