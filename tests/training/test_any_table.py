"""`carcassonne train multi` at any table (issue 77): 3 and 4 players and both expansions
train and resume, the model file records its table and the `sb3` bot plays it there only,
the expansions' figures are candidate moves, the N-seat projected reward (the others'
best or mean) on a hand-made case, bad table options are one line each, and `train
evaluate` plays an N-player model in every seat against the other seats' bots."""

import csv
import json
import shutil
import warnings
import zipfile

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from carcassonne_env import Game, Rules, make_bot  # noqa: E402
from carcassonne_env.encoding import WindowOverflowWarning  # noqa: E402
from carcassonne_env.envs import make_env_for_model, model_rules  # noqa: E402
from carcassonne_env.envs.for_model import model_encoder  # noqa: E402
from carcassonne_env.model_file import MODEL_ENTRY, read_description, rewrite_zip  # noqa: E402
from training import evaluate, train_multi  # noqa: E402
from training.ppo import load_or_create, run_encoder  # noqa: E402
from training.shaping import ProjectedReward  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

BOTH = "inns_cathedrals,traders_builders"
# The default recipe ("candidates"), tiny: a rollout is 4 games x 16 steps.
TINY = {
    **train_multi.PRESETS["candidates"],
    "n_envs": 4,
    "n_steps": 16,
    "batch_size": 32,
    "n_epochs": 1,
    "hidden": 8,
    "candidate_moves": 32,
    "torch_threads": 1,
    "checkpoint_every": 64,
    "total_timesteps": 64,
}


def _train_and_resume(out, **table):
    """One rollout of the default recipe at `table` (settings), then --resume to a second;
    returns the resumed model."""
    settings = train_multi.MultiSettings(**{**TINY, **table})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        assert train_multi.train(settings, out, progress=False).num_timesteps == 64
        return train_multi.train(
            settings, out, resume=True, progress=False, changes={"total_timesteps": 128}
        )


# The same tiny run on the command line.
TINY_ARGS = [
    *("--n-envs", "4", "--n-steps", "16", "--batch-size", "32", "--n-epochs", "1"),
    *("--hidden", "8", "--candidate-moves", "32", "--torch-threads", "1"),
    *("--checkpoint-every", "64", "--no-progress"),
]


@pytest.mark.parametrize(
    "options, stored, rules",
    [
        (
            ["--players", "4", "--small-city", "--farm-scoring", "city", "--potential", "best"],
            {"players": 4, "small_city": True, "farm_scoring": "city", "potential": "best"},
            Rules(players=4, small_city=True, farm_scoring="city"),
        ),
        (
            ["--expansions", BOTH],
            {"players": 2, "expansions": BOTH, "potential": "mean"},
            Rules(players=2, expansions=tuple(BOTH.split(","))),
        ),
    ],
    ids=["4 players", "both expansions"],
)
def test_a_table_trains_resumes_and_is_recorded_in_the_model(tmp_path, options, stored, rules):
    from carcassonne_env.cli import main

    out = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        for more in (
            [*options, "--total-timesteps", "64"],
            ["--resume", "--total-timesteps", "128"],
        ):
            assert main(["train", "multi", "--out", str(out), *TINY_ARGS, *more]) == 0
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "model_128_steps.zip",
        "model_64_steps.zip",
    ]
    settings = json.loads((out / "config.json").read_text())["settings"]
    assert {k: settings[k] for k in stored} == stored
    assert settings["total_timesteps"] == 128
    for path in (out / "model.zip", out / "checkpoints" / "model_128_steps.zip"):
        assert read_description(path)["rules"] == rules.to_dict()
        assert model_rules(path) == rules
    # the env made for the model plays its table, options and all
    env = make_env_for_model(out / "model.zip", opponents=["greedy"] * (rules.players - 1))
    assert env.unwrapped.rules == rules
    env.close()


def test_a_three_player_model_plays_at_its_table_and_is_refused_at_another(tmp_path):
    """Against the heuristic and the league of its own snapshots: it plays a whole
    3-player game through the bot factory; a game at other rules is one clear error."""
    out = tmp_path / "run"
    _train_and_resume(out, players=3, bots="heuristic", bot_share=0.5, snapshot_every=64)
    assert (out / "curve.csv").read_text().splitlines()[0] == (
        "timesteps,wall_s,episodes,win_vs_heuristic,win_vs_self"
    )
    assert sorted(p.name for p in (out / "pool").iterdir()) == [
        "snapshot_128.pt",
        "snapshot_64.pt",
    ]
    spec = f"sb3:model={out / 'model.zip'}"
    game = Game(Rules(players=3), seed=3)
    bots = [make_bot(spec), make_bot("greedy", seed=1), make_bot("heuristic", seed=2)]
    while not game.done:
        game.play(bots[game.current_player].act(game))
    assert bots[0].fallbacks == 0
    for rules, why in [
        (Rules(players=2), "players=3 (model) vs 2 (this game)"),
        (Rules(players=3, small_city=True), "small_city=False (model) vs True (this game)"),
    ]:
        with pytest.raises(ValueError) as refused:
            make_bot(spec).act(Game(rules, seed=0))
        assert str(refused.value) == f"the model was trained at another table: {why}"
    # a recorded table that is no rule set is a malformed description, refused on loading
    bad = tmp_path / "bad.zip"
    shutil.copy(out / "model.zip", bad)
    described = json.loads(zipfile.ZipFile(bad).read(MODEL_ENTRY))
    rewrite_zip(bad, {MODEL_ENTRY: json.dumps({**described, "rules": {"players": 9}})})
    with pytest.raises(ValueError, match=f"bad.zip: its {MODEL_ENTRY} is malformed: players"):
        make_bot(f"sb3:model={bad}")


@pytest.mark.parametrize("table", [{"expansions": BOTH}, {"players": 3}], ids=["expansions", "3p"])
def test_init_from_another_table_computes_what_it_did_on_the_inputs_it_knew(tmp_path, table):
    """--init with a 2-player base model at a table with more inputs: each input the two
    tables share keeps its weights (matched by name), the new ones start at zero, so the
    start's logits on a position are the saved model's on the same position's shared
    inputs; the run then trains."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        base = train_multi.train(
            train_multi.MultiSettings(**TINY), tmp_path / "base", progress=False
        )
        init = str(tmp_path / "base" / "model.zip")
        settings = train_multi.MultiSettings(**{**TINY, **table, "init": init})
        venv, _ = train_multi.make_batched_env(settings)
        model = load_or_create(settings, venv, tmp_path / "start", resume=False)
        old, new = model_encoder(init), run_encoder(settings)
        assert len(new.feature_names) > len(old.feature_names)
        features = [new.feature_names.index(n) for n in old.feature_names]
        columns = [new.candidate_names.index(n) for n in old.candidate_names]
        fresh = [i for i, n in enumerate(new.feature_names) if n not in old.feature_names]
        net = model.policy.features_extractor.net
        assert not net.context[0].weight[:, fresh].any()
        obs = venv.reset()
        for _ in range(6):
            t = {k: torch.as_tensor(v) for k, v in obs.items()}
            with torch.no_grad():
                got, _ = net(t["features"], t["candidates"], t["candidate_actions"])
                want, _ = base.policy.features_extractor.net(
                    t["features"][:, features],
                    t["candidates"][:, :, columns],
                    t["candidate_actions"],
                )
            assert torch.allclose(got, want, atol=1e-5)
            obs, *_ = venv.step(model.predict(obs, deterministic=True)[0])
        venv.close()
        trained = train_multi.train(settings, tmp_path / "run", progress=False)
    assert trained.policy.features_extractor.net.context[0].weight[:, fresh].any()


def test_expansion_figures_are_candidate_moves_the_learner_can_play():
    """In the default recipe's env with both expansions, at 3 players: the large
    follower, the builder and the pig each appear among the learner's candidates as
    legal actions, and playing such a candidate is a legal step."""
    settings = train_multi.MultiSettings(**{**TINY, "players": 3, "expansions": BOTH})
    env, _ = train_multi.make_batched_env(settings)
    joined = env.venv.venv  # VecMonitor(ProjectedReward(JoinedVecEnv))
    names = joined.groups[0].encoder.candidate_names
    columns = {f: names.index(f"figure_{f}") for f in ("large", "builder", "pig")}
    present = names.index("present")
    env.seed(0)
    obs = env.reset()
    rng = np.random.default_rng(0)
    played = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        for _ in range(200):
            masks = np.stack(env.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            for i in range(env.num_envs):  # a figure's candidate where there is one
                for figure, col in columns.items():
                    rows = np.flatnonzero(
                        (obs["candidates"][i, :, present] > 0) & (obs["candidates"][i, :, col] > 0)
                    )
                    if figure not in played and rows.size:
                        actions[i] = obs["candidate_actions"][i, rows[0]]
                        assert masks[i, actions[i]]
                        played.add(figure)
            obs, _, _, infos = env.step(actions)
            assert not any("illegal_move" in info for info in infos)
            if played == set(columns):
                break
    assert played == set(columns)


class _Scripted(VecEnv):
    """A VecEnv whose features are scripted rows (projected scores, observer first, in
    points / 100) and whose games end where the script says."""

    def __init__(self, seats: int, start: list, steps: list) -> None:
        n = len(start)
        features = spaces.Box(-1.0, 1.0, (seats,), np.float32)
        super().__init__(n, spaces.Dict({"features": features}), spaces.Discrete(1))
        self.start, self.steps = start, list(steps)

    @staticmethod
    def _rows(points: list) -> np.ndarray:
        return np.asarray(points, np.float32) / 100

    def reset(self):
        return {"features": self._rows(self.start)}

    def step_async(self, actions):
        pass

    def step_wait(self):
        now, ended = self.steps.pop(0)  # ended: game -> its last (terminal) row
        dones = np.array([i in ended for i in range(self.num_envs)])
        infos = [
            {"terminal_observation": {"features": self._rows(ended[i])}} if i in ended else {}
            for i in range(self.num_envs)
        ]
        return {"features": self._rows(now)}, np.zeros(self.num_envs), dones, infos

    def close(self):
        pass

    def get_attr(self, attr_name, indices=None):
        return [None] * self.num_envs  # (SB3 asks for the render mode only)

    def set_attr(self, attr_name, value, indices=None):
        raise NotImplementedError

    def env_method(self, method_name, *args, indices=None, **kwargs):
        raise NotImplementedError

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs


# Two 3-seat games, projected points observer first. Game 0: 0,0,0 -> 10,4,8 -> ends at
# 12,20,2 (lost), its next game starts at 0,3,0 -> 2,3,7. Game 1: 0,0,0 -> 5,1,2 -> ends
# at 30,10,20 (won), its next game starts at 0,0,0 -> 0,0,0.
THREE_SEATS = (
    [[0, 0, 0], [0, 0, 0]],
    [
        ([[10, 4, 8], [5, 1, 2]], {}),
        ([[0, 3, 0], [0, 0, 0]], {0: [12, 20, 2], 1: [30, 10, 20]}),
        ([[2, 3, 7], [0, 0, 0]], {}),
    ],
)


@pytest.mark.parametrize(
    "potential, expected",
    [
        # own minus the others' mean: 10 - 6 = 4; 12 - 11 = 1; next game 0 - 1.5, 2 - 5
        # game 1: 5 - 1.5 = 3.5; 30 - 15 = 15; then 0
        ("mean", [[4, 3.5], [1 - 4 - 5, 15 - 3.5 + 5], [-3 - -1.5, 0]]),
        # own minus the best other's: 10 - 8 = 2; 12 - 20 = -8; next game 0 - 3, 2 - 7
        # game 1: 5 - 2 = 3; 30 - 20 = 10; then 0
        ("best", [[2, 3], [-8 - 2 - 5, 10 - 3 + 5], [-5 - -3, 0]]),
    ],
)
def test_the_n_seat_projected_reward_gives_the_values_worked_by_hand(potential, expected):
    """Rewards are the rise of the potential (scaled), a finished game's last one read off
    its terminal observation, a win bonus of 5 added to the won game and taken from the
    lost one (won and lost: against the best other seat, whatever the potential)."""
    shaped = ProjectedReward(
        _Scripted(3, *THREE_SEATS),
        ["projected_score_0", "projected_score_1", "projected_score_2"],
        seats=3,
        potential=potential,
        scale=0.5,
        win_bonus=5.0,
    )
    shaped.reset()
    for want in expected:
        _, rewards, _, _ = shaped.step(np.zeros(2, np.int64))
        assert rewards == pytest.approx(0.5 * np.array(want), abs=1e-4)


def test_with_two_seats_mean_and_best_are_the_same_margin():
    script = (
        [[0, 0], [0, 3]],
        [([[10, 4], [5, 9]], {}), ([[0, 0], [0, 2]], {0: [12, 20], 1: [30, 10]})],
    )
    names = ["projected_score_0", "projected_score_1"]
    rewards = {}
    for potential in ("mean", "best"):
        shaped = ProjectedReward(_Scripted(2, *script), names, 2, potential, win_bonus=1.0)
        shaped.reset()
        rewards[potential] = [shaped.step(np.zeros(2, np.int64))[1] for _ in range(2)]
    assert np.array_equal(rewards["mean"], rewards["best"])
    assert rewards["best"][1] == pytest.approx([-8 - 6 - 1, 20 - -4 + 1], abs=1e-4)


@pytest.mark.parametrize(
    "value, message",
    [
        ("1", "--players must be an integer in [2, 5], got 1"),
        ("6", "--players must be an integer in [2, 5], got 6"),
        ("three", "argument --players: invalid int value: 'three'"),
    ],
)
def test_a_bad_players_option_is_one_line(tmp_path, capsys, value, message):
    from carcassonne_env.cli import main

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["train", "multi", "--out", str(out), "--players", value, "--no-progress"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"carcassonne train multi: error: {message} (see carcassonne train multi --help)\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"expansions": "inns_cathedrals,rivers"}, "--expansions must be comma-separated names"),
        ({"expansion_mode": "tiles_only"}, "--expansion-mode tiles_only needs --expansions"),
        ({"hand_size": 2}, "--hand-size must be 1 or 3, got 2"),
        ({"farm_scoring": "meadow"}, "--farm-scoring must be field or city, got 'meadow'"),
        ({"potential": "worst"}, "--potential must be best or mean, got 'worst'"),
        ({"potential": "best", "reward": "margin"}, "--potential shapes --reward projected"),
        ({"players": 3, "gate_every": 64}, "--gate-every gates the learner in 2-player"),
    ],
)
def test_bad_table_settings_are_refused_before_any_work(tmp_path, change, message):
    settings = train_multi.MultiSettings(**{**TINY, **change})
    with pytest.raises(ValueError, match=message):
        train_multi.train(settings, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_a_minutes_run_at_three_players_ends_with_its_evaluation_and_train_evaluate_rotates_seats(
    tmp_path, capsys
):
    """The final evaluation of a 3-player run plays the heuristic in both other seats,
    every seat rotation of each deck; `train evaluate` fills the other seats from
    --opponents and plays the model in every seat equally often, its win share beside
    the fair share."""
    from carcassonne_env.cli import main

    out = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WindowOverflowWarning)
        argv = ["train", "multi", "--out", str(out), *TINY_ARGS, "--players", "3"]
        assert main([*argv, "--minutes", "0.05", "--final-eval", "2"]) == 0
    report = json.loads((out / "evaluation.json").read_text())
    assert (report["players"], report["games"], report["opponent"]) == (3, 3, "heuristic")
    assert "over 3 games (fair share 0.333)" in capsys.readouterr().out
    model = out / "model.zip"
    argv = ["train", "evaluate", str(model), "--games", "6", "--no-progress"]
    assert main([*argv, "--opponents", "heuristic", "--out", str(tmp_path / "eval")]) == 0
    headline = capsys.readouterr().out.splitlines()[0]
    assert headline.startswith(f"sb3:model={model}: win share ")
    assert headline.endswith(
        "at 3 players against heuristic, heuristic#2 over 6 games (2 in each seat); "
        "fair share 0.333"
    )
    with open(tmp_path / "eval" / "games.csv", newline="") as f:
        seatings = [[row[f"bot_{s}"] for s in range(3)] for row in csv.DictReader(f)]
    seats = sorted(seating.index(f"sb3:model={model}") for seating in seatings)
    assert seats == [0, 0, 1, 1, 2, 2]
    assert main([*argv, "--opponents", "greedy,heuristic,random"]) == 0
    assert "against greedy, heuristic, random over 18 games (6 in each seat)" in (
        capsys.readouterr().out
    )
    assert main([*argv, "--deals", "5"]) == 2
    assert capsys.readouterr().err == (
        f"carcassonne train evaluate: error: --deals is for a solo model; {model} is a "
        "3-player model (it takes --opponents, --games)\n"
    )


@pytest.mark.parametrize(
    "opponents, players, seats",
    [
        (["heuristic"], 2, ["heuristic"]),
        (["random", "greedy"], 2, ["random", "greedy"]),
        (["heuristic"], 4, ["heuristic", "heuristic#2", "heuristic#3"]),
        (["heuristic", "heuristic", "greedy"], 4, ["heuristic", "heuristic#2", "greedy"]),
    ],
)
def test_the_opponents_fill_the_other_seats(opponents, players, seats):
    assert evaluate.other_seats(opponents, players) == seats


def test_opponents_that_fill_some_of_the_other_seats_are_refused():
    with pytest.raises(ValueError) as refused:
        evaluate.other_seats(["heuristic", "greedy"], 4)
    assert str(refused.value) == (
        "a 4-player model has 3 other seats: name one bot (it fills them all), 3 bots "
        "(one table; a bot may be named twice) or more (a table of every 3 of them), "
        "got 2: heuristic,greedy"
    )
