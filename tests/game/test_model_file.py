"""Model files load without unpickling: a booby-trapped file (a pickled payload that
creates a marker file, in every pickled key of SB3's data and in the weights) is refused
or loaded without running it, through every way in; the shipped models load the safe way
exactly as the pickle load did; the training commands write files that load so."""

from __future__ import annotations

import base64
import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import cloudpickle  # noqa: E402
import torch  # noqa: E402

from agents.sb3_policy import SB3Agent, load_model, shipped_models  # noqa: E402
from carcassonne_env import Game, Rules, make_bot  # noqa: E402
from carcassonne_env.cli import main  # noqa: E402
from carcassonne_env.envs import make_env_for_model, model_rules  # noqa: E402
from carcassonne_env.envs.for_model import read_saved_model  # noqa: E402
from carcassonne_env.model_file import (  # noqa: E402
    FRESH_KEYS,
    MODEL_ENTRY,
    REBUILT_KEYS,
    UnsafeModelError,
    decode_space,
    encode_space,
    serialized_keys,
)
from tests.support.tiny_runs import TINY  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SOURCE = "ppo_solo_rl_small"  # the smallest shipped model (solo, candidate moves)


class _Trap:
    """Unpickled, it creates the file `marker`: what a malicious model file could run."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def _booby_trap(
    tmp_path: Path,
    *,
    data_keys: tuple[str, ...] = (),
    weights: bool = False,
    description: bool = True,
) -> tuple[Path, Path]:
    """A copy of the shipped SOURCE whose every pickled key of "data", and `data_keys`,
    carry the trap (and its ".pth" weights too with `weights`; without its description
    if not `description`); returns (file, marker)."""
    marker = tmp_path / "marker"
    path = tmp_path / "trapped.zip"
    with zipfile.ZipFile(_shipped(SOURCE)) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    payload = {
        ":type:": "<class 'object'>",
        ":serialized:": base64.b64encode(cloudpickle.dumps(_Trap(marker))).decode(),
    }
    for key in {*serialized_keys(data), *data_keys}:
        data[key] = payload
    entries["data"] = json.dumps(data).encode()
    if weights:
        for name in [n for n in entries if n.endswith(".pth")]:
            buffer = io.BytesIO()
            torch.save({"weights": _Trap(marker)}, buffer)
            entries[name] = buffer.getvalue()
    if not description:
        del entries[MODEL_ENTRY]
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return path, marker


def _shipped(name: str) -> Path:
    from agents.sb3_policy import model_path

    return model_path(name)


# every pickled key SB3 writes, the training state and a saved env: all rebuilt or fresh
REPLACED = ("_last_obs", "_last_episode_starts", "ep_info_buffer", "learning_rate", "env")
# ... and one the description does not give: the file is refused
UNREBUILT = (*REPLACED, "policy_kwargs")


def test_the_trap_runs_when_unpickled(tmp_path):
    """The payload is real: unpickling the file the old way creates the marker."""
    path, marker = _booby_trap(tmp_path, data_keys=REPLACED)
    read_saved_model(path, trust_pickle=True)
    assert marker.exists()


def test_a_trap_in_every_rebuilt_key_never_runs_and_the_model_plays_as_shipped(tmp_path):
    path, marker = _booby_trap(tmp_path, data_keys=REPLACED)
    assert set(serialized_keys(json.loads(zipfile.ZipFile(path).read("data")))) == {
        "policy_class",
        "clip_range",
        "observation_space",
        "action_space",
        "lr_schedule",
        *REPLACED,
    }
    model = load_model(path, cached=False)
    shipped = load_model(SOURCE, cached=False)
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            model.policy.state_dict().values(), shipped.policy.state_dict().values(), strict=True
        )
    )
    bot, reference = make_bot(f"sb3:model={path}"), make_bot(f"sb3:model={SOURCE}")
    game = Game(Rules(variant="solo"), seed=3)
    for _ in range(4):
        move = bot.act(game)
        assert move == reference.act(game)
        game.play(move)
    assert make_env_for_model(path).spec.id == "Carcassonne/Solo-v0"
    assert read_saved_model(path).observation_space == shipped.observation_space
    assert make_bot(f"puct:model={path}:simulations=2").act(game) in game.legal_moves()
    assert not marker.exists()


@pytest.mark.parametrize(
    "trap, why",
    [
        # a pickled policy_kwargs: nothing to rebuild it from
        (
            {"data_keys": UNREBUILT},
            "its data holds pickled policy_kwargs, which carcassonne.json does not describe",
        ),
        # pickles in the weights: torch's weights_only refuses them
        (
            {"data_keys": REPLACED, "weights": True},
            r"its weights \(\.pth\) hold more than "
            r"tensors, which would run code stored in the file; torch refused them \(they name "
            r"io\.open\)",
        ),
        (
            {"data_keys": UNREBUILT, "weights": True, "description": False},
            "the model file holds no carcassonne.json",
        ),
    ],
    ids=["policy_kwargs", "weights", "everything"],
)
def test_a_trap_that_cannot_be_replaced_is_refused_by_every_loader(tmp_path, capsys, trap, why):
    path, marker = _booby_trap(tmp_path, **trap)
    with pytest.raises(ValueError, match=why):
        load_model(path, cached=False)
    with pytest.raises(ValueError):
        make_bot(f"sb3:model={path}")
    with pytest.raises(ValueError):
        make_bot(f"puct:model={path}")
    for argv in (
        ["play", "--bots", f"sb3:model={path},random"],
        ["train", "export", str(path), "-o", str(tmp_path / "out.zip")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("carcassonne: error: ") and err.count("\n") == 1, err
    assert main(["train", "evaluate", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and err.count("\n") == 1, err
    run = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "solo",
                "--out",
                str(run),
                "--no-progress",
                "--init",
                str(path),
                "--total-timesteps",
                "128",
                "--preset",
                "board",
                *(f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.count("\n") == 1 and not run.exists()
    assert not marker.exists() and not (tmp_path / "out.zip").exists()


def test_a_file_without_a_description_is_refused_naming_the_safe_way(tmp_path, capsys):
    path, marker = _booby_trap(tmp_path, description=False)
    for load in (
        lambda: load_model(path),
        lambda: read_saved_model(path),
        lambda: make_env_for_model(path),
    ):
        with pytest.raises(
            UnsafeModelError,
            match=rf"holds no {MODEL_ENTRY}.*loading it would run code stored "
            rf"in the file \(pickle\): if you trust the file, convert it once: "
            rf"carcassonne train export {path} -o SAFE.zip --trust-pickle",
        ):
            load()
    assert main(["train", "card", str(path)]) == 0  # the card is JSON: read as such
    assert main(["train", "reproduce", str(path), "--out", str(tmp_path / "r"), "--dry-run"]) == 0
    capsys.readouterr()
    assert not marker.exists()


def test_trust_pickle_exports_a_file_one_trusts_to_one_that_loads_safely(tmp_path, capsys):
    from sb3_contrib import MaskablePPO

    plain = tmp_path / "plain.zip"
    MaskablePPO.load(_shipped(SOURCE), device="cpu").save(plain)  # SB3's own: no description
    with pytest.raises(UnsafeModelError):
        load_model(plain)
    assert (
        main(["train", "export", str(plain), "-o", str(tmp_path / "safe.zip"), "--trust-pickle"])
        == 0
    )
    capsys.readouterr()
    safe, shipped = load_model(tmp_path / "safe.zip"), load_model(SOURCE)
    assert safe.observation_space == shipped.observation_space
    assert safe.carcassonne_solo is True


@pytest.mark.parametrize(
    "name, why",
    [
        ("this.Zen", "is not one a model file may name"),  # (importing `this` prints)
        ("builtins.eval", "is not one a model file may name"),
        ("collections.OrderedDict", "is not one a model file may name"),
        ("training.policy.CandidateNet", "is not one a model file may name"),  # not a policy
    ],
)
def test_a_description_names_only_allowed_policy_classes(tmp_path, capsys, name, why):
    path = tmp_path / "m.zip"
    path.write_bytes(_shipped(SOURCE).read_bytes())
    described = json.loads(zipfile.ZipFile(path).read(MODEL_ENTRY))
    from carcassonne_env.model_file import rewrite_zip

    rewrite_zip(path, {MODEL_ENTRY: json.dumps({**described, "policy_class": name})})
    with pytest.raises(ValueError, match=why):
        load_model(path)
    assert "this" not in sys.modules and capsys.readouterr().out == ""


def test_a_malformed_description_is_one_clear_error(tmp_path):
    from carcassonne_env.model_file import rewrite_zip

    path = tmp_path / "m.zip"
    path.write_bytes(_shipped(SOURCE).read_bytes())
    rewrite_zip(path, {MODEL_ENTRY: '{"format": 1, "algorithm": "MaskablePPO"'})
    with pytest.raises(ValueError, match=rf"m\.zip: its {MODEL_ENTRY} is malformed"):
        load_model(path)
    with pytest.raises(ValueError, match=rf"its {MODEL_ENTRY} is malformed"):
        read_saved_model(path)


def test_spaces_round_trip_exactly_and_compactly():
    from gymnasium import spaces

    board_high = np.broadcast_to(np.arange(1, 6, dtype=np.int8), (4, 4, 5))
    space = spaces.Dict(
        [
            ("z", spaces.Box(0, board_high, (4, 4, 5), np.int8)),  # bounds along the last axis
            ("a", spaces.Box(-np.inf, np.inf, (3,), np.float64)),
            (
                "m",
                spaces.Box(
                    np.array([[0.1, 0.2], [0.3, np.float32(1 / 3)]], np.float32),
                    2.0,
                    (2, 2),
                    np.float32,
                ),
            ),
            ("d", spaces.Discrete(7, start=-1)),
        ]
    )
    encoded = encode_space(space)
    back = decode_space(json.loads(json.dumps(encoded, allow_nan=False)))
    assert back == space and list(back.spaces) == ["z", "a", "m", "d"]  # order kept
    for key in ("z", "a", "m"):
        assert back[key].dtype == space[key].dtype
        assert np.array_equal(back[key].low, space[key].low)
        assert np.array_equal(back[key].high, space[key].high)
    cells = dict(encoded["spaces"])
    assert cells["z"]["low"] == 0 and cells["z"]["high"] == {"last_axis": [1, 2, 3, 4, 5]}
    assert cells["a"]["low"] == "-inf" and cells["m"]["low"]["values"][3] == float(
        np.float32(1 / 3)
    )
    for bad in (
        {"type": "Box", "shape": [2], "dtype": "object", "low": 0, "high": 1},
        {"type": "Box", "shape": [2], "dtype": "int8", "low": {"values": [0]}, "high": 1},
        {"type": "Tuple"},
        {"type": "Dict", "spaces": [["a", {"type": "Discrete", "n": 0}]]},
    ):
        with pytest.raises(ValueError):
            decode_space(bad)


@pytest.mark.parametrize("name", shipped_models())
def test_a_shipped_model_loads_safely_exactly_as_by_pickle(name):
    """Same spaces (bounds, dtypes, key order), settings, weights, and the same logits and
    values on real positions as SB3's own (pickle) load of the same file."""
    safe = load_model(name, cached=False)
    pickled = load_model(name, cached=False, trust_pickle=True)
    assert safe.observation_space == pickled.observation_space
    assert safe.action_space == pickled.action_space
    for key, space in pickled.observation_space.spaces.items():
        mine = safe.observation_space[key]
        assert (mine.dtype, mine.shape) == (space.dtype, space.shape)
        assert np.array_equal(mine.low, space.low) and np.array_equal(mine.high, space.high)
    assert list(safe.observation_space.spaces) == list(pickled.observation_space.spaces)
    assert type(safe.policy) is type(pickled.policy)
    assert safe.policy_kwargs == pickled.policy_kwargs
    assert (safe.clip_range(1.0), safe.lr_schedule(1.0), safe.carcassonne_solo) == (
        pickled.clip_range(1.0),
        pickled.lr_schedule(1.0),
        pickled.carcassonne_solo,
    )
    a, b = SB3Agent(safe), SB3Agent(pickled)
    game = Game(model_rules(safe), seed=5)
    greedy = make_bot("greedy", seed=0)
    for _ in range(3):
        obs = a.observe(game)
        assert np.array_equal(
            a.legal_logits(obs, obs["action_mask"]), b.legal_logits(obs, obs["action_mask"])
        )
        with torch.no_grad():
            tensors = {
                p: p.obs_to_tensor({k: obs[k] for k in safe.observation_space.spaces})[0]
                for p in (safe.policy, pickled.policy)
            }
            assert torch.equal(
                safe.policy.predict_values(tensors[safe.policy]),
                pickled.policy.predict_values(tensors[pickled.policy]),
            )
        for _ in range(5):
            game.play(greedy.act(game))


def test_the_models_a_short_run_writes_load_safely(tmp_path):
    from training import train_solo
    from training.run_folder import saved_progress

    out = tmp_path / "run"
    model = train_solo.train(
        train_solo.SoloSettings(**TINY, total_timesteps=256), out, progress=False
    )
    files = sorted((out / "checkpoints").glob("*.zip")) + [out / "model.zip"]
    assert [p.name for p in files] == ["model_128_steps.zip", "model_256_steps.zip", "model.zip"]
    for path in files:
        data = json.loads(zipfile.ZipFile(path).read("data"))
        assert set(serialized_keys(data)) <= set(REBUILT_KEYS + FRESH_KEYS)
        assert MODEL_ENTRY in zipfile.ZipFile(path).namelist()
    loaded = load_model(out / "model.zip", cached=False)
    assert all(
        torch.equal(a, b)
        for a, b in zip(
            loaded.policy.state_dict().values(), model.policy.state_dict().values(), strict=True
        )
    )
    assert loaded.carcassonne_solo is True and saved_progress(out)[0] == 256
    assert not list(out.rglob(".*.tmp*"))  # no temporary file left behind
