"""One direction of imports (issue 27): `carcassonne_env` stands alone (its environments
play the built-in bots of `carcassonne_env.bots`), `agents` builds on it, `training` on
both, the command line on all; a user's own `agents/` or `training/` package does not
break the environments, and where our code needs our `agents` or `training`, a shadowing
package gets one clear error."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import carcassonne_env  # noqa: F401 - registers the ids
from carcassonne_env import shadowing
from carcassonne_env.bots import BUILTIN_BOTS, factory, make_bot
from carcassonne_env.bots.simple import GreedyAgent
from tests.support.paths import ROOT


def _run(code: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter started in `cwd`, this checkout's packages on
    PYTHONPATH (behind the working directory, as for an installed package)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARCASSONNE_NO_COMPILE_NOTICE": "1"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=check,
        timeout=900,
    )


# --------------------------------------------------------------------------- direction


def _imported_packages(path: Path) -> set[str]:
    """Top-level names `path` imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value).split(".")[0])
    return found


@pytest.mark.parametrize(
    ("package", "below"),
    [
        ("carcassonne_env", {"agents", "training"}),
        ("agents", {"training"}),
    ],
)
def test_imports_go_one_way(package, below):
    """core -> carcassonne_env -> agents -> training -> CLI: no file imports a package
    above it (the command line, carcassonne_env/cli/, is the top)."""
    wrong = {
        str(p.relative_to(ROOT)): sorted(_imported_packages(p) & below)
        for p in sorted((ROOT / package).rglob("*.py"))
        if ROOT / "carcassonne_env" / "cli" not in p.parents
    }
    assert {f: names for f, names in wrong.items() if names} == {}


# Layers inside carcassonne_env, low to high: a module imports only its own layer or lower
# ones. The first matching prefix gives a module's layer.
LAYERS = [
    ("compiler.", -1),
    ("core.", 0),
    ("checks", 0),
    ("cli_errors", 0),
    ("shadowing", 0),
    ("registration", 0),
    ("atomic", 0),
    ("workers", 0),
    ("model_file", 5),
    ("tiles", 1),
    ("rules", 1),
    ("moves", 1),
    ("records", 1),
    ("rendering", 1),
    ("clones", 1),
    ("game", 2),
    ("encoding", 3),
    ("symmetry", 3),
    ("bots", 4),
    ("envs", 5),
    ("carcassonne_v0", 6),
    ("speed", 6),
    ("compilation", 6),
    ("viewer", 6),
    ("cli", 7),
    ("", 6),  # the package's __init__
]


def _module_graph(package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at run time (anywhere in the file, but
    not under ``if TYPE_CHECKING:``), names relative to `package` ("" = its __init__)."""
    paths = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = list(path.relative_to(ROOT / package).with_suffix("").parts)
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def imports(name: str, path: Path) -> set[str]:
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()

        def visit(node: ast.AST) -> None:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for child in node.orelse:
                    visit(child)
                return
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1] + (
                        node.module.split(".") if node.module else []
                    )
                elif (node.module or "").split(".")[0] == package:
                    base = node.module.split(".")[1:]
                else:
                    base = None
                if base is not None:
                    found.add(".".join(base))
                    found.update(".".join([*base, a.name]) for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(
                    ".".join(a.name.split(".")[1:])
                    for a in node.names
                    if a.name.split(".")[0] == package
                )
            for child in ast.iter_child_nodes(node):
                visit(child)

        visit(ast.parse(path.read_text(encoding="utf-8")))
        return {m for m in found if m in paths and m != name}

    return {name: imports(name, path) for name, path in paths.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _layer(module: str) -> int:
    return next(
        layer
        for prefix, layer in LAYERS
        if module == prefix.rstrip(".") or module.startswith(prefix)
    )


def test_no_import_circles_and_no_upward_imports_inside_carcassonne_env():
    graph = _module_graph("carcassonne_env")
    assert _circles(graph) == []
    upward = {m: sorted(d for d in deps if _layer(d) > _layer(m)) for m, deps in graph.items()}
    assert {m: d for m, d in upward.items() if d} == {}


def test_the_circle_check_can_fail():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _layer("core.state") == 0 and _layer("cli") == 7 and _layer("bots.heuristic") == 4
    assert _layer("compiler.jit") == -1  # below the rules: the core builds on it


def _private_names_of_classes(tree: ast.AST) -> set[str]:
    """The private attribute and method names the classes of a module define."""
    names = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


# Private names of other projects' classes that we read on purpose.
FOREIGN_PRIVATE = {
    "_cache",  # numba's Dispatcher: where its on-disk cache lives
    "_get_action_dist_from_latent",  # Stable-Baselines3's policies
    "_cumulative_rewards",  # PettingZoo's AECEnv
    "_values",  # numba's TargetConfig: the options a flags object sets
}


def test_no_module_reads_a_private_attribute_of_another_modules_class():
    """Bots, envs and tools use `Game.state`, `Game.legal_rows()`... not `game._st`."""
    trees = {
        p: ast.parse(p.read_text(encoding="utf-8"))
        for package in ("carcassonne_env", "agents", "training")
        for p in sorted((ROOT / package).rglob("*.py"))
    }
    own = {p: _private_names_of_classes(tree) for p, tree in trees.items()}
    everyone = set().union(*own.values()) - FOREIGN_PRIVATE
    reads = [
        f"{p.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"
        for p, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in everyone - own[p]
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert reads == []


BLOCK = """
import sys

class Unimportable:  # `agents` and `training` cannot be imported at all
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("agents", "training"):
            raise ImportError(f"{name} is unimportable in this test")

sys.meta_path.insert(0, Unimportable())
"""

# Every env of the package with the built-in bots: a few steps each.
EVERY_ENV = """
import gymnasium as gym
import numpy as np
import carcassonne_env
from carcassonne_env import carcassonne_v0
from carcassonne_env.envs import SoloVectorEnv
from carcassonne_env.envs import VsBotsVectorEnv

def play(env, steps=4):
    obs, info = env.reset(seed=0)
    for _ in range(steps):
        mask = env.unwrapped.action_masks()
        obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        if done:
            break
    return env.unwrapped.game.turn

print("solo", play(gym.make("Carcassonne/Solo-v0", board_size=16)))
for bots in (["greedy"], ["heuristic"], ["random", "greedy", "heuristic:follower=3.0"]):
    print("vsbots", play(gym.make("Carcassonne/VsBots-v0", opponents=bots, seat=0,
                                  board_size=16)))
aec = carcassonne_v0.env(players=2, board_size=16)
aec.reset(seed=0)
for _ in range(4):
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"])[0]))
print("aec", aec.unwrapped.game.turn)
venv = SoloVectorEnv(num_envs=2, board_size=16, num_threads=1)
venv.reset(seed=0)
venv.step(venv.action_masks().argmax(axis=1))
print("teacher", venv.teacher("heuristic").action.shape)
vs = VsBotsVectorEnv(num_envs=2, opponents=["greedy", "heuristic"], board_size=16,
                     num_threads=1)
vs.reset(seed=0)
vs.step(vs.action_masks().argmax(axis=1))
print("vsbots-vector", vs.num_envs)
made = gym.make_vec("Carcassonne/VsBots-v0", num_envs=2, opponents=["random"],
                    vectorization_mode="vector_entry_point", board_size=16, num_threads=1)
made.reset(seed=0)
print("make_vec", made.num_envs)
"""

# Four learner steps: turn 4 in solo, 8 with one bot, 16 with three (seat 0 starts).
EXPECTED = (
    "solo 4\nvsbots 8\nvsbots 8\nvsbots 16\naec 4\nteacher (2,)\nvsbots-vector 2\nmake_vec 2\n"
)


def test_carcassonne_env_runs_with_agents_and_training_unimportable(tmp_path):
    """Every module of carcassonne_env (but the command line) imports, and every env runs
    with the built-in bots, while `agents` and `training` cannot be imported."""
    code = (
        BLOCK
        + EVERY_ENV
        + """
import importlib, importlib.util, pkgutil
optional = {"carcassonne_env.openspiel": "pyspiel"}  # a module of an extra: where installed
for info in pkgutil.walk_packages(carcassonne_env.__path__, "carcassonne_env."):
    needs = optional.get(info.name)
    if info.name != "carcassonne_env.cli" and (needs is None or importlib.util.find_spec(needs)):
        importlib.import_module(info.name)
from carcassonne_env.envs import make_env_for_model
print("for_model", type(make_env_for_model("ppo_duel")).__name__)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "training")))
"""
    )
    out = _run(code, tmp_path).stdout
    assert out == EXPECTED + "for_model MovePriorObservation\n[]\n"


# --------------------------------------------------------------------------- item 3


@pytest.fixture
def own_packages(tmp_path):
    """A user's project folder with packages of their own named agents and training."""
    for name in ("agents", "training"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f'WHOSE = "the user\'s {name}"\n')
    return tmp_path


def test_the_envs_run_from_a_folder_with_its_own_agents_and_training(own_packages):
    code = (
        EVERY_ENV
        + """
import agents, training
print(agents.WHOSE, "/", training.WHOSE)
"""
    )
    out = _run(code, own_packages).stdout
    assert out == EXPECTED + "the user's agents / the user's training\n"


def test_the_issue_example_from_a_folder_with_its_own_agents(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    code = """
import gymnasium as gym, carcassonne_env
env = gym.make("Carcassonne/VsBots-v0", opponents=["greedy"])
print(env.reset(seed=0)[1]["seat"] in (0, 1))
"""
    assert _run(code, tmp_path).stdout == "True\n"


# --------------------------------------------------------------------------- item 2


def _shadowing(name: str, folder: Path) -> str:
    return shadowing.shadowing_message(name, (folder / name).resolve())


def test_the_shadowing_message_names_both_paths_and_what_to_do(tmp_path):
    message = _shadowing("agents", tmp_path)
    assert message == (
        f"'import agents' finds {tmp_path.resolve() / 'agents'}, not carcassonne-env's "
        f"'agents' package ({ROOT / 'agents'}): a package of yours named 'agents' comes "
        "first on sys.path. Run from another folder, rename your package, or install "
        "carcassonne-env so that no other 'agents' (the working directory, PYTHONPATH, an "
        "editable install) is ahead of it on sys.path"
    )


def test_check_package(tmp_path, monkeypatch):
    shadowing.check_package("agents")  # ours: imported from this checkout
    shadowing.check_package("training")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    monkeypatch.delitem(sys.modules, "agents", raising=False)  # looked up, not imported
    monkeypatch.syspath_prepend(str(tmp_path))
    assert shadowing.found_path("agents") == (tmp_path / "agents").resolve()
    with pytest.raises(shadowing.ShadowedPackageError) as caught:
        shadowing.check_package("agents")
    assert str(caught.value) == _shadowing("agents", tmp_path)
    assert isinstance(caught.value, ImportError) and caught.value.name == "agents"


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and "cannot import name" not in result.stderr
    assert result.stderr.count("\n") == 1
    return result.stderr


@pytest.mark.parametrize(
    ("argv", "own", "name"),
    [
        ("['warmup', '-q']", ("agents", "training"), "agents"),
        (
            "['play', '--bots', 'greedy,greedy', '--players', '2', '--seed', '0']",
            ("agents",),
            "agents",
        ),
        ("['train', 'export', 'ppo_duel', '-o', 'out.zip']", ("training",), "training"),
    ],
)
def test_the_command_line_names_the_shadowing_package(tmp_path, argv, own, name):
    """`python -m carcassonne_env.cli` (the working directory first on sys.path) from a
    folder with its own agents or training: one line, exit status 2, nothing done."""
    for package in own:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    result = _run(
        f"from carcassonne_env.cli import main; raise SystemExit(main({argv}))",
        tmp_path,
        check=False,
    )
    assert _one_line_error(result) == f"carcassonne: error: {_shadowing(name, tmp_path)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(own)


def test_training_names_a_shadowing_agents_package(tmp_path):
    """Our `training` builds on `agents`: with the user's agents/ first it says so at
    import, not with a `cannot import name` from deep inside."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    result = _run("import training.imitation", tmp_path, check=False)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"carcassonne_env.shadowing.ShadowedPackageError: {_shadowing('agents', tmp_path)}"
    )


def test_loading_a_model_names_a_shadowing_training_package(tmp_path):
    """The shipped models' policy class is `training.policy.BoardPolicy`: loading one
    with the user's training/ first names it (SB3 would fail on the pickled class)."""
    pytest.importorskip("sb3_contrib")
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "__init__.py").write_text("")
    code = """
from agents.sb3_policy import load_model
try:
    load_model("ppo_duel")
except ImportError as err:
    print(type(err).__name__, err)
"""
    out = _run(code, tmp_path).stdout
    assert out == f"ShadowedPackageError {_shadowing('training', tmp_path)}\n"


# --------------------------------------------------------------------------- opponents


def _episode(env, seed: int = 3) -> tuple[list, float, int]:
    obs, info = env.reset(seed=seed)
    total = 0.0
    while True:
        mask = env.unwrapped.action_masks()
        obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        total += reward
        if done:
            break
    game = env.unwrapped.game
    return game.to_record()["moves"], total, info["seat"]


def test_vsbots_takes_a_factory_and_plays_as_with_the_spec():
    """A factory gets the seed the spec's bot would get: the same game."""
    by_spec = gymnasium.make(
        "Carcassonne/VsBots-v0", opponents=["greedy", "heuristic"], board_size=24
    )
    by_factory = gymnasium.make(
        "Carcassonne/VsBots-v0",
        opponents=[functools.partial(make_bot, "greedy"), functools.partial(make_bot, "heuristic")],
        board_size=24,
    )
    assert by_factory.unwrapped.opponent_names == ["partial", "partial"]
    assert _episode(by_factory) == _episode(by_spec)
    by_class = gymnasium.make(
        "Carcassonne/VsBots-v0", opponents=GreedyAgent, players=3, board_size=24
    )  # a bot class is a factory too
    assert by_class.unwrapped.opponent_names == ["greedy", "greedy"]
    assert _episode(by_class) == _episode(
        gymnasium.make("Carcassonne/VsBots-v0", opponents="greedy", players=3, board_size=24)
    )


def test_vsbots_takes_an_agent_object():
    class Counting:
        name = "counting"

        def __init__(self):
            self.bot, self.moves = make_bot("random", seed=5), 0

        def act(self, game):
            self.moves += 1
            return self.bot.act(game)

    agent = Counting()
    env = gymnasium.make("Carcassonne/VsBots-v0", opponents=agent, players=3, seat=0, board_size=24)
    assert env.unwrapped.opponent_names == ["counting", "counting"]
    moves, _, seat = _episode(env)
    assert seat == 0
    assert agent.moves == sum(1 for m in moves if m["player"] != 0) > 0


@pytest.mark.parametrize("opponents", [[3], None, ["greedy", 2.5]])
def test_vsbots_refuses_other_opponents(opponents):
    with pytest.raises(ValueError, match="opponents must be a bot spec or a list of bot specs"):
        gymnasium.make("Carcassonne/VsBots-v0", opponents=opponents)


def test_unknown_bots_list_the_known_ones(monkeypatch):
    # internals: no bot registered, as in a program that imported no plugin
    monkeypatch.setattr(factory, "_FACTORIES", {})
    monkeypatch.setattr(factory, "entry_points", lambda **kw: [])
    with pytest.raises(
        ValueError,
        match=r"^unknown bot 'mcts'; available: greedy, "
        r"heuristic, random$",
    ):
        gymnasium.make("Carcassonne/VsBots-v0", opponents=["mcts"])
    factory.register_bots(["mine"], lambda spec, seed=None: GreedyAgent(seed=seed))
    with pytest.raises(
        ValueError,
        match=r"^unknown bot 'mcst'; available: greedy, "
        r"heuristic, mine, random$",
    ):
        make_bot("mcst")


def test_agents_registers_its_bots_for_the_envs():
    """Internals: `import agents` puts its builder in the factory's table, and the env
    holds the bot built from the spec (`_bots`)."""
    import agents
    from agents.mcts import MCTSAgent

    assert {n for n, f in factory._FACTORIES.items() if f is agents.catalog._build_bot} == {
        "mcts",
        "sb3",
        "solo-search",
        "puct",
    }
    env = gymnasium.make(
        "Carcassonne/VsBots-v0", opponents=["mcts:iterations=3"], seat=1, board_size=24
    )
    env.reset(seed=0)
    assert isinstance(env.unwrapped._bots[0], MCTSAgent)
    with pytest.raises(ValueError, match="is a built-in bot"):
        factory.register_bots(["greedy"], agents.catalog._build_bot)


def test_bots_by_entry_point_need_no_import(monkeypatch):
    """The "carcassonne_env.bots" entry points (this distribution's pyproject.toml
    declares the search and policy bots of `agents`) serve names nobody registered."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    points = declared["project"]["entry-points"][factory.ENTRY_POINT_GROUP]
    from agents.catalog import BOTS

    assert points == {
        name: "agents.catalog:_build_bot" for name in BOTS if name not in BUILTIN_BOTS
    }
    eps = [EntryPoint(name, value, factory.ENTRY_POINT_GROUP) for name, value in points.items()]
    monkeypatch.setattr(factory, "_FACTORIES", {})  # internals: nothing registered yet
    monkeypatch.setattr(
        factory,
        "entry_points",
        lambda group, name=None: [
            ep for ep in eps if ep.group == group and name in (None, ep.name)
        ],
    )
    bot = make_bot("mcts:iterations=3", seed=1)
    assert type(bot).__name__ == "MCTSAgent" and bot.name == "mcts:iterations=3"
    assert factory.plugin_names() == ["mcts", "puct", "sb3", "solo-search"]


def test_installed_entry_points_serve_mcts_without_importing_agents(tmp_path):
    """As a user runs it: ``opponents=["mcts"]`` without ``import agents`` (needs the
    installed metadata to hold the entry points: ``pip install -e .`` after pulling)."""
    from importlib.metadata import entry_points

    if not entry_points(group=factory.ENTRY_POINT_GROUP, name="mcts"):
        pytest.skip("the installed carcassonne-env metadata predates its bot entry points")
    # internals: the env's opponents (`_bots`), to see which bot the spec built
    code = """
import gymnasium as gym, carcassonne_env
env = gym.make("Carcassonne/VsBots-v0", opponents=["mcts:iterations=2"], seat=1)
env.reset(seed=0)
print(type(env.unwrapped._bots[0]).__name__)
print(type(carcassonne_env.make_bot("solo-search:samples=1", seed=0)).__name__)
"""
    assert _run(code, tmp_path).stdout == "MCTSAgent\nSoloSearchAgent\n"
