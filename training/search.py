"""Search-guided self-play (expert iteration, AlphaZero-style) with replay and gating, for
a policy over candidate moves.

    carcassonne train search --init ppo_duel_rl --out runs/loop       # start from a model
    carcassonne train search --out runs/loop --resume                 # continue the run
    carcassonne train search --init ppo_duel_rl --out runs/loop --minutes 60   # by time
    carcassonne train search --init ppo_duel_rl --out runs/loop --iterations 1 \\
        --games 1 --simulations 2 --gate-games 2 --panel-games 0      # a smoke test

Two networks: the best (generation g; generation 0 is `init`) plays the self-play games,
the candidate learns. Each iteration:

1. Self-play: `games` games in which both seats search every move with
   `agents.puct.PUCTAgent` on the best network (its priors at `prior_temperature` and
   its value; `simulations` per move; the first `explore_moves` moves of each game are
   sampled in proportion to the visits, the rest are the most visited). Every searched
   decision is a sample: the network's inputs, the root's visit shares over its
   candidates (the policy target) and the seat's final margin minus its projected
   margin then, in value units (the value target: what the value head predicts under
   projected rewards, see `training.shaping`). The samples are saved as
   samples_<k>.npz.
2. Fit: the candidate takes `epochs` passes over the samples of the last `replay`
   iterations (cross-entropy to the visit shares plus `value_coef` x squared value
   error, Adam, gradient norm 0.5).
3. Gate: the candidate plays `gate_games` games against the best, both with their raw
   policy (one forward pass per move, no search), both seatings of each deck. A win
   rate (draws half) >= `gate_threshold` sends it to the confirmation: `gate_games` more
   games against the best on other decks. The gate's own figure is biased upwards (of
   many candidates, the one that won its draw passes), so the confirmation decides: a
   win rate >= `confirm_threshold` there (0: the gate alone decides) makes the candidate
   the best, generation g + 1 (gen_<g+1>.zip). A rejected candidate keeps its weights
   and goes on learning; the self-play goes on with the best. `gate_games` 0 accepts
   every candidate.
4. Value refit: the best network's value MLP and `value_net` take `value_epochs` passes
   of squared error over the replay, everything else frozen (`training.value_fit`'s
   refit: its raw policy does not change, its searches do), saved as best.zip.
5. Panel: every new generation (and generation 0 when the run starts) plays its raw
   policy against each bot of `panel` over `panel_games` games (the same decks for
   every generation, both seatings).

Nothing but the rules and the networks' own searches and games goes in: no bot's
evaluation, no cloning; the bots are opponents of the evaluation only.

The run folder holds config.json, state.json (what --resume continues from), curve.csv
(a row per iteration: wall-clock seconds, samples, losses, the gate's win rate with its
Wilson 95% interval, whether it was accepted, and for a new generation the panel's win
rates with their intervals; row 0 is the start), model_iter_<k>.zip (the candidate after
iteration k), gen_<g>.zip (the generations as accepted), best.zip (the best with its
refitted value head), samples_<k>.npz (the replay),
optimizer.pt (the Adam state), curve.png (the curve against wall-clock time) and
model.zip (the best). 2-player base game only.

With --minutes M the run ends when M minutes have passed (or at --iterations, whichever
comes first; without --iterations, no iteration target): an iteration starts only while
the time left is at least the longest iteration's so far, and one whose time runs out
during its self-play is dropped (as Ctrl-C drops it); its fit, gate and panel are never
cut. model.zip is then the best and evaluation.json / evaluation.md its evaluation.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.puct import PUCTAgent, row_actions
from agents.sb3_policy import SB3Agent, load_model
from carcassonne_env import Game, Rules
from carcassonne_env.atomic import atomic_path, write_json
from carcassonne_env.cli_errors import Interrupted, run_script
from carcassonne_env.encoding import WindowOverflowError
from carcassonne_env.envs.for_model import read_saved_model
from carcassonne_env.model_file import save_model

from .cli import run_cli
from .curves import append_row, read_rows, write_rows
from .generations import (
    GateSettings,
    gate_and_confirm,
    interval_cells,
    interval_columns,
    panel_cells,
    panel_columns,
)
from .plots import plot_loop
from .run_folder import (
    CONFIG_FILE,
    CURVE_FILE,
    CURVE_PLOT,
    EVALUATION_FILES,
    FINAL_MODEL,
    Session,
    SessionOptions,
    check_target,
    plan_folder,
    read_json,
    remove_run_files,
    write_config,
)
from .settings import require, setting
from .value_fit import fit_epoch

if TYPE_CHECKING:
    from typing_extensions import Unpack

OBS_KEYS = ("features", "candidates", "candidate_actions")  # what the network reads
STATE_FILE = "state.json"  # where --resume continues: iteration, generation, wall_s
# What a search run writes into its folder (glob patterns; `run_folder.run_files`)
SEARCH_FILES = (
    CONFIG_FILE,
    STATE_FILE,
    CURVE_FILE,
    CURVE_PLOT,
    FINAL_MODEL,
    "best.zip",
    "optimizer.pt",
    "model_iter_*.zip",
    "gen_*.zip",
    "samples_*.npz",
    *EVALUATION_FILES,
)
_NAN = float("nan")


@dataclasses.dataclass
class SearchSettings(GateSettings):
    """Settings of a search-guided self-play run (see the module docstring); gate_games
    0 accepts every candidate."""

    init: str = setting(
        "ppo_duel_rl",
        "the starting network (generation 0): a saved model "
        "over candidate moves or a shipped model's name",
    )
    iterations: int = setting(
        60,
        "iterations to run to, counted from the start of the run; "
        "0: no iteration target (a --minutes run)",
    )
    games: int = setting(128, "self-play games per iteration")
    simulations: int = setting(64, "PUCT simulations per move")
    c: float = setting(1.5, "PUCT's exploration constant")
    prior_temperature: float = setting(3.0, "the search's priors: softmax(logits / this)")
    explore_moves: int = setting(
        10, "moves per game sampled in proportion to the visits (the rest: the most visited)"
    )
    target_temperature: float = setting(
        1.0, "the policy target: visit shares ** (1 / this), normalised"
    )
    replay: int = setting(4, "the iterations whose samples the candidate fits on")
    epochs: int = setting(2, "passes over the replay per iteration")
    batch_size: int = setting(128, "minibatch of the fit")
    learning_rate: float = setting(1e-4, "Adam's learning rate of the fit")
    value_coef: float = setting(0.5, "weight of the value error in the fit")
    value_scale: float = setting(
        10.0, "points per value unit (the start model's reward scale 0.1: 10)"
    )
    value_epochs: int = setting(4, "passes of the best's value head over the replay (0: no refit)")
    value_learning_rate: float = setting(1e-3, "Adam's learning rate of the value refit")
    seed: int = setting(0, "seeds the self-play decks, the searches and the fit")
    torch_threads: int = setting(1, "PyTorch's threads")

    def check(self) -> None:
        """ValueError naming the first setting out of its range."""
        require(
            self,
            "iterations",
            int,
            lambda v: v >= 0,
            "an integer >= 0 (0: no iteration target, with --minutes)",
        )
        for name in ("games", "simulations", "replay", "epochs", "batch_size", "torch_threads"):
            require(self, name, int, lambda v: v >= 1, "a positive integer")
        for name in ("explore_moves", "value_epochs", "seed"):
            require(self, name, int, lambda v: v >= 0, "an integer >= 0")
        self.check_gate()
        for name in (
            "learning_rate",
            "value_learning_rate",
            "value_scale",
            "prior_temperature",
            "target_temperature",
        ):
            require(self, name, float, lambda v: v > 0, "a number > 0")
        for name in ("c", "value_coef"):
            require(self, name, float, lambda v: v >= 0, "a number >= 0")


def curve_columns(settings: SearchSettings) -> list[str]:
    """curve.csv's columns for a run with `settings` (a column trio per panel bot)."""
    panel = panel_columns(settings)
    return [
        "iteration",
        "wall_s",
        "generation",
        "accepted",
        "games",
        "samples",
        "replay_samples",
        "policy_loss",
        "value_loss",
        "best_value_loss",
        *interval_columns("gate"),
        *panel,
        *interval_columns("confirm"),
        "self_play_s",
        "fit_s",
        "gate_s",
        "panel_s",
    ]


@dataclasses.dataclass
class Sample:
    """One searched decision: the observation (its candidate rows cut to the present
    ones: at K = 512 the rest would be 300 KB of zeros), the visit shares per candidate
    row and the value target (filled in when the game ends)."""

    obs: dict[str, np.ndarray]
    target: np.ndarray
    seat: int
    base: float
    value: float = 0.0


def self_play_game(
    agent: PUCTAgent, rules: Rules, seed: int, explore_moves: int, rng: np.random.Generator
) -> tuple[list[Sample], list[int]]:
    """One game in which both seats search with `agent` (solo: every colour's move);
    returns its samples (value targets in points: the final margin minus the projected
    margin, in solo the lowest colour's final score minus its projection: `puct`'s
    values) and final scores."""
    net = agent.net
    if net is None:
        raise ValueError("self-play learns from a PUCT agent with a network, got one without")
    game = Game(rules, seed=seed)
    samples: list[Sample] = []
    keys = [k for k in net.model.observation_space.spaces if k in OBS_KEYS]
    ply = 0
    while (seat := game.current_player) is not None:  # None once the game is over
        moves = game.legal_moves()
        if len(moves) == 1:
            game.play(moves[0])
            continue
        try:
            obs = net.observe(game)
        except WindowOverflowError:  # the window cannot show it: no sample
            obs = None
        visits = agent.search(game).astype(np.float64)
        if obs is not None:
            enc = net.encoder_for(game)
            actions = row_actions(game, enc, game.legal_rows())  # the root's edges
            share = dict(zip(actions.tolist(), (visits / visits.sum()).tolist(), strict=True))
            target = np.array(
                [share.get(a, 0.0) for a in obs["candidate_actions"].tolist()], np.float32
            )
            if target.sum() > 0:  # some visited move is among the candidates
                n = int((obs["candidate_actions"] >= 0).sum())  # (a prefix of the rows)
                kept = {k: obs[k][:n].copy() if k == "candidates" else obs[k].copy() for k in keys}
                samples.append(
                    Sample(
                        kept, target / target.sum(), seat, agent.base(game, enc, obs["features"])
                    )
                )
        if ply < explore_moves:
            k = int(rng.choice(len(moves), p=visits / visits.sum()))
        else:
            k = int(np.argmax(visits + 1e-6 * agent.root_prior))
        game.play(moves[k])
        ply += 1
    scores = list(game.scores)
    for s in samples:
        final = (
            min(scores)
            if rules.variant == "solo"
            else scores[s.seat] - max(v for q, v in enumerate(scores) if q != s.seat)
        )
        s.value = final - s.base
    return samples, scores


# ---------------------------------------------------------------------- the replay
def sharpen(shares: np.ndarray, temperature: float) -> np.ndarray:
    """Visit shares (a row per sample) raised to 1 / `temperature` and normalised: below
    1 the target leans to the most visited moves."""
    if temperature == 1.0:
        return shares.astype(np.float32)
    logs = np.where(shares > 0, np.log(np.maximum(shares, 1e-30)), -np.inf) / temperature
    p = np.exp(logs - logs.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)).astype(np.float32)


def pack(
    samples: list[Sample], value_scale: float, target_temperature: float = 1.0
) -> dict[str, np.ndarray]:
    """Samples as compact arrays: only the present candidate rows are kept (`counts` per
    sample, `rows` concatenated); `value` in value units; the policy targets sharpened
    with `target_temperature`."""
    actions = np.stack([s.obs["candidate_actions"] for s in samples])
    counts = (actions >= 0).sum(1)
    return {
        "features": np.stack([s.obs["features"] for s in samples]).astype(np.float32),
        "actions": actions.astype(np.int64),
        "counts": counts.astype(np.int32),
        "rows": _compact(
            np.concatenate([s.obs["candidates"][:n] for s, n in zip(samples, counts, strict=True)])
        ),
        "target": sharpen(np.stack([s.target for s in samples]), target_temperature),
        "value": np.array([s.value / value_scale for s in samples], np.float32),
    }


def _compact(rows: np.ndarray) -> np.ndarray:
    """`rows` as float16 where that keeps every value (the rule quantities are small
    counts: half the memory), else as they are."""
    half = rows.astype(np.float16)
    return half if np.array_equal(half.astype(rows.dtype), rows) else rows


def save_samples(path: Path, packed: dict[str, np.ndarray]) -> None:
    """Write packed samples to `path` (npz) whole: a killed run leaves no half file."""
    with atomic_path(path) as tmp:
        # the keys name arrays: none is savez's own keyword allow_pickle (a bool)
        np.savez_compressed(tmp, **packed)  # type: ignore[arg-type]


def load_samples(path: Path) -> dict[str, np.ndarray]:
    """The packed samples `save_samples` wrote."""
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def union(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The packed samples of several iterations as one set."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _batch(
    data: dict[str, np.ndarray], starts: np.ndarray, idx: np.ndarray, k: int
) -> dict[str, np.ndarray]:
    """The observations of samples `idx` (candidate rows padded to `k`)."""
    width = data["rows"].shape[1]
    cand = np.zeros((len(idx), k, width), np.float32)
    for j, i in enumerate(idx):
        n = data["counts"][i]
        cand[j, :n] = data["rows"][starts[i] : starts[i] + n]
    return {
        "features": data["features"][idx],
        "candidates": cand,
        "candidate_actions": data["actions"][idx],
    }


def train_on(
    model: Any,
    data: dict[str, np.ndarray],
    settings: SearchSettings,
    rng: np.random.Generator,
    optimizer: Any,
) -> tuple[float, float]:
    """`epochs` passes of cross-entropy to the visit shares and value regression over the
    packed samples `data`; returns the mean policy and value losses of the last pass."""
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    n = len(data["value"])
    k = int(model.observation_space["candidates"].shape[0])
    starts = np.concatenate([[0], np.cumsum(data["counts"])[:-1]])
    targets = torch.as_tensor(data["target"])
    values = torch.as_tensor(data["value"])
    losses: list[tuple[float, float]] = []
    for _ in range(settings.epochs):
        losses = []
        order = rng.permutation(n)
        for start in range(0, n, settings.batch_size):
            idx = order[start : start + settings.batch_size]
            obs, _ = policy.obs_to_tensor(_batch(data, starts, idx, k))
            dist = policy.get_distribution(obs)
            logits = dist.distribution.logits
            cand = obs["candidate_actions"].long()
            present = cand >= 0
            chosen = logits.gather(1, cand.clamp(min=0)).masked_fill(~present, -1e9)
            logp = torch.log_softmax(chosen, dim=1)
            policy_loss = -(targets[idx] * logp.masked_fill(~present, 0.0)).sum(1).mean()
            value_loss = torch.nn.functional.mse_loss(
                policy.predict_values(obs).squeeze(-1), values[idx]
            )
            loss = policy_loss + settings.value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            losses.append((policy_loss.item(), value_loss.item()))
    policy.set_training_mode(False)
    return float(np.mean([p for p, _ in losses])), float(np.mean([v for _, v in losses]))


def refit_value(
    model: Any, data: dict[str, np.ndarray], settings: SearchSettings, rng: np.random.Generator
) -> float:
    """`value_epochs` passes of squared error over the packed samples `data` for the value
    MLP and `value_net` of `model`, everything else frozen (its policy does not change:
    `training.value_fit`'s refit); returns the mean squared error after them, in value
    units^2."""
    import torch

    policy = model.policy
    net = policy.features_extractor.net
    head = torch.nn.Sequential(net.value, policy.value_net)
    k = int(model.observation_space["candidates"].shape[0])
    starts = np.concatenate([[0], np.cumsum(data["counts"])[:-1]])
    n = len(data["value"])
    parts = []
    with torch.no_grad():  # the value MLP's input, once
        for start in range(0, n, 512):
            obs, _ = policy.obs_to_tensor(
                _batch(data, starts, np.arange(start, min(n, start + 512)), k)
            )
            parts.append(
                net.trunk(obs["features"], obs["candidates"], obs["candidate_actions"].long())[1]
            )
    x, y = torch.cat(parts), torch.as_tensor(data["value"])
    optimizer = torch.optim.Adam(head.parameters(), lr=settings.value_learning_rate)
    for _ in range(settings.value_epochs):
        fit_epoch(head, optimizer, x, y, torch.as_tensor(rng.permutation(n)), 512)
    with torch.no_grad():
        return float(((head(x).squeeze(-1) - y) ** 2).mean())


# ---------------------------------------------------------------------- the run
def _copy(src: Path, dst: Path) -> None:
    """Copy the file `src` to `dst` whole (`carcassonne_env.atomic`)."""
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


def _trim_curve(out: Path, columns: list[str], done: int) -> None:
    """Drop the curve rows of iterations after `done` (a run stopped before its state
    was saved wrote them)."""
    rows = [r for r in read_rows(out / CURVE_FILE) if int(r["iteration"]) <= done]
    write_rows(out / CURVE_FILE, columns, rows)


def plan_search(out: Path, settings: SearchSettings, session: Session) -> SearchSettings:
    """The checks of a search run before any work, writing nothing; returns the settings
    to run with. The folder as `run_folder.plan_folder` checks it (`SEARCH_FILES`; on
    --resume only --iterations may change, not below the iterations done); a new run's
    --init must be a model over candidate moves; a run without an iteration target
    (iterations 0) needs the `session`'s wall-clock budget (--minutes)."""
    settings = plan_folder(out, settings, session, SEARCH_FILES, ("iterations",))
    check_target(settings, "iterations", session.budget is not None)
    if not session.resume:
        check_start_model(settings.init)
    elif settings.iterations and (done := read_state(out)["iteration"]) > settings.iterations:
        raise ValueError(
            f"{out} has {done} iterations done already; --iterations "
            f"{settings.iterations} is below that (give more to train on)"
        )
    return settings


def check_start_model(init: str) -> None:
    """ValueError unless the saved model `init` (a path or a shipped name) is a policy
    over candidate moves (read from its description: nothing is loaded)."""
    space = read_saved_model(init).observation_space
    if "candidates" not in getattr(space, "spaces", {}):
        raise ValueError(
            f"--init {init}: search-guided self-play trains a policy over "
            "candidate moves (a model trained with --policy candidates)"
        )


def read_state(out: Path) -> dict[str, Any]:
    """The run's state.json (where --resume continues: iteration, generation, wall_s);
    FileNotFoundError if there is none, ValueError in one line if it is unreadable."""
    path = out / STATE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"nothing to resume: no {STATE_FILE} in {out}")
    state = read_json(path)
    if not (
        isinstance(state, dict)
        and all(
            isinstance(state.get(k), (int, float)) for k in ("iteration", "generation", "wall_s")
        )
    ):
        raise ValueError(f"{path} is unreadable: not the state this package writes")
    return state


def start_run(settings: SearchSettings, out: Path, overwrite: bool = False) -> dict[str, Any]:
    """Start a new run in `out` (`overwrite`: removing the old run's files first):
    generation 0 is `init`, its panel is the curve's row 0. Returns the run's state."""
    start = load_model(settings.init, cached=False)
    if overwrite:
        remove_run_files(out, SEARCH_FILES)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("model_iter_0.zip", "gen_0.zip", "best.zip"):
        save_model(start, out / name)
    columns = curve_columns(settings)
    write_rows(out / CURVE_FILE, columns)
    t0 = time.perf_counter()
    cells = panel_cells(settings, out / "gen_0.zip")
    panel_s = round(time.perf_counter() - t0, 1)
    append_row(
        out / CURVE_FILE,
        columns,
        {
            "iteration": 0,
            "wall_s": panel_s,
            "generation": 0,
            "accepted": 1,
            **dict(zip(panel_columns(settings), cells, strict=True)),
            "panel_s": panel_s,
        },
    )
    state = {"iteration": 0, "generation": 0, "wall_s": panel_s}
    write_json(out / STATE_FILE, state, indent=2)
    return state


def self_play_iteration(
    agent: PUCTAgent,
    settings: SearchSettings,
    it: int,
    rng: np.random.Generator,
    out: Path,
    session: Session,
) -> list[Sample] | None:
    """The self-play games of iteration `it` (decks no evaluation uses: the evaluations'
    come from the arena); None if the `session`'s budget runs out of training time
    before the last one (the iteration is dropped). Ctrl-C: `Interrupted`, naming what
    is saved."""
    budget = session.budget
    from tqdm import tqdm

    samples: list[Sample] = []
    try:
        for g in tqdm(
            range(settings.games),
            desc=f"iteration {it}: self-play",
            unit="game",
            disable=not session.progress,
            leave=False,
        ):
            if budget is not None and budget.training_left() <= 0:
                return None
            new, _ = self_play_game(
                agent,
                Rules(players=2),
                10**6 * (settings.seed + 1) + it * 1000 + g,
                settings.explore_moves,
                rng,
            )
            samples.extend(new)
    except KeyboardInterrupt:
        raise Interrupted(
            f"stopped during iteration {it}; iterations up to {it - 1} "
            f"are saved in {out}: --resume continues"
        ) from None
    return samples


def run(settings: SearchSettings, out: Path, **options: Unpack[SessionOptions]) -> Path:
    """Run the loop with `settings` in folder `out`, a new run or the one there
    continued (with its stored settings: only iterations may change, `plan_search`), as
    the `options` say (`run_folder.Session`); returns the best model's path. A budget
    also ends the run (see the module docstring; iterations 0: no iteration target)."""
    import torch

    session = Session(**options)
    settings = plan_search(out, settings, session)
    budget, progress = session.budget, session.progress
    torch.set_num_threads(settings.torch_threads)
    columns = curve_columns(settings)
    if session.resume:
        state = read_state(out)
        _trim_curve(out, columns, state["iteration"])
    else:
        state = start_run(settings, out, session.overwrite)
    write_config(out, settings)
    plot_loop(out)
    done, generation = state["iteration"], state["generation"]
    model = load_model(out / f"model_iter_{done}.zip", cached=False)
    optimizer = torch.optim.Adam(model.policy.parameters(), lr=settings.learning_rate)
    if done and (out / "optimizer.pt").is_file():
        optimizer.load_state_dict(torch.load(out / "optimizer.pt", weights_only=True))
    replay = {
        k: load_samples(out / f"samples_{k}.npz")
        for k in range(max(1, done - settings.replay + 1), done + 1)
    }
    started = time.perf_counter() - state["wall_s"]
    longest = 0.0  # the longest iteration's seconds: one starts only if that much is left
    todo: Iterable[int] = (
        range(done + 1, settings.iterations + 1)
        if settings.iterations
        else itertools.count(done + 1)
    )
    for it in todo:
        if budget is not None and budget.training_left() < longest:
            break
        rng = np.random.default_rng([settings.seed, it])
        best_path = out / "best.zip"
        t0 = time.perf_counter()
        agent = PUCTAgent(
            SB3Agent(load_model(best_path, cached=False)),
            seed=int(rng.integers(2**31)),
            simulations=settings.simulations,
            c=settings.c,
            value_scale=settings.value_scale,
            value_base="projected",
            prior_temperature=settings.prior_temperature,
            lookahead=0,
        )
        samples = self_play_iteration(agent, settings, it, rng, out, session)
        if samples is None:
            if progress:
                print(f"iteration {it} dropped: the time is up", flush=True)
            break
        packed = pack(samples, settings.value_scale, settings.target_temperature)
        n_samples = len(samples)
        del samples  # (float32 rows: twice the packed size)
        save_samples(out / f"samples_{it}.npz", packed)
        replay[it] = packed
        for k in [k for k in replay if k <= it - settings.replay]:
            del replay[k]
        t1 = time.perf_counter()
        data = union([replay[k] for k in sorted(replay)])
        p_loss, v_loss = train_on(model, data, settings, rng, optimizer)
        path = out / f"model_iter_{it}.zip"
        save_model(model, path)
        with atomic_path(out / "optimizer.pt") as tmp:
            torch.save(optimizer.state_dict(), tmp)
        t2 = time.perf_counter()
        accepted, win, confirm = gate_and_confirm(path, best_path, settings, it)
        if accepted:
            generation += 1
            _copy(path, out / f"gen_{generation}.zip")
        t3 = time.perf_counter()
        best = load_model(path if accepted else best_path, cached=False)
        best_v_loss = refit_value(best, data, settings, rng) if settings.value_epochs else _NAN
        save_model(best, best_path)
        t3b = time.perf_counter()
        cells = panel_cells(settings, out / f"gen_{generation}.zip" if accepted else None)
        t4 = time.perf_counter()
        wall = round(t4 - started, 1)
        append_row(
            out / CURVE_FILE,
            columns,
            {
                "iteration": it,
                "wall_s": wall,
                "generation": generation,
                "accepted": int(accepted),
                "games": settings.games,
                "samples": n_samples,
                "replay_samples": len(data["value"]),
                "policy_loss": round(p_loss, 4),
                "value_loss": round(v_loss, 4),
                "best_value_loss": round(best_v_loss, 4),
                **interval_cells("gate", win),
                **interval_cells("confirm", confirm),
                **dict(zip(panel_columns(settings), cells, strict=True)),
                "self_play_s": round(t1 - t0, 1),
                "fit_s": round(t2 - t1 + t3b - t3, 1),
                "gate_s": round(t3 - t2, 1),
                "panel_s": round(t4 - t3b, 1),
            },
        )
        write_json(
            out / STATE_FILE, {"iteration": it, "generation": generation, "wall_s": wall}, indent=2
        )
        n_replay = len(data["value"])
        del data, best
        for old in out.glob("samples_*.npz"):  # out of the replay
            if int(old.stem.split("_")[1]) <= it - settings.replay:
                old.unlink()
        plot_loop(out)
        if progress:
            panel = ", ".join(
                f"vs {b} {cells[3 * j]:.2f}"
                for j, b in enumerate(settings.panel_bots())
                if not math.isnan(cells[3 * j])
            )
            print(
                f"iteration {it}: {n_samples} samples ({n_replay} in the "
                f"replay), policy loss {p_loss:.3f}, value loss {v_loss:.3f} (the best's "
                f"{best_v_loss:.3f}), gate "
                f"{win[0]:.3f} [{win[1]:.3f}, {win[2]:.3f}] "
                f"{'accepted: generation ' + str(generation) if accepted else 'rejected'}"
                f"{', ' + panel if panel else ''} ({wall / 60:.1f} min)",
                flush=True,
            )
        longest = max(longest, time.perf_counter() - t0)
    _copy(out / "best.zip", out / FINAL_MODEL)
    return out / FINAL_MODEL


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    return run_cli(
        "carcassonne train search",
        __doc__,
        SearchSettings,
        {"full": {}},
        run,
        argv,
        plan=plan_search,
        resume="continue the run in --out from its last "
        "iteration with its stored settings (only --iterations may change)",
        target="iterations",
        plot=False,
    )


if __name__ == "__main__":
    raise SystemExit(run_script(main))
