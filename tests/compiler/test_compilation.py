"""numba compilation as users and contributors meet it: the one-line notice when a part
compiles (only then), `carcassonne warmup`, `carcassonne clear-cache`, and the tests'
cache key covering every file compiled code depends on."""

from __future__ import annotations

import ast
import hashlib
import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

from agents.warmup import JITTED_MODULES
from carcassonne_env import Game, compilation
from carcassonne_env.cli import main
from carcassonne_env.compiler import notices
from carcassonne_env.compiler.notices import NOTICE_ENV
from tests.support import numba_cache_key
from tests.support.numba_cache_key import jitted_files, jitted_hash
from tests.support.paths import ROOT

NOTICE = notices.notice("core")


def _all_dispatchers() -> dict[str, list]:
    """Jitted functions of every importable module of the packages, by module."""
    found: dict[str, list] = {}
    for package in ("carcassonne_env", "agents", "training"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an extra that is not installed (torch, ray)
                continue
            for f in vars(module).values():
                if isinstance(f, Dispatcher) and f.__module__ == info.name:
                    found.setdefault(info.name, []).append(f)
    return found


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter, with the compile notices on (conftest turns
    them off) unless `env` says otherwise."""
    full = {**{k: v for k, v in os.environ.items() if k != NOTICE_ENV}, **env}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=full, check=True
    )


# --------------------------------------------------------------------------- item 9


def test_the_cache_key_covers_every_module_with_jitted_code():
    modules = _all_dispatchers()
    assert sorted(modules) == sorted(JITTED_MODULES)
    assert sorted(compilation.JITTED_MODULES) == sorted(  # carcassonne_env's own
        m for m in modules if m.startswith("carcassonne_env.")
    )
    covered = set(jitted_files())
    for name in modules:
        assert Path(importlib.import_module(name).__file__) in covered, name
    expected = (
        {
            f"carcassonne_env/core/{m}.py"
            for m in (
                "actions",
                "aggregates",
                "board",
                "candidate_columns",
                "candidates",
                "choices",
                "closers",
                "constants",
                "followers",
                "observe",
                "packed",
                "planes",
                "playout",
                "queries",
                "scoring",
                "state",
                "turn",
            )
        }
        | {
            f"carcassonne_env/compiler/{m}.py"
            for m in (
                "jit",
                "link_only",
                "notices",
                "numba_cache",
                "numba_inlining",
                "numba_typing",
            )
        }
        | {f"carcassonne_env/bots/{m}.py" for m in ("evaluation", "jitted_bots")}
        | {
            "carcassonne_env/envs/vector_kernels.py",
            "agents/search_kernels.py",
            "agents/candidate_forward.py",
            "agents/puct_kernel.py",
        }
    )
    assert {str(p.relative_to(ROOT)) for p in covered} == expected
    if os.environ["NUMBA_CACHE_DIR"].startswith(str(ROOT / ".numba_cache")):
        assert os.environ["NUMBA_CACHE_DIR"] == str(ROOT / ".numba_cache" / jitted_hash())


def _jitted_functions() -> list[tuple[str, ast.FunctionDef]]:
    """Every jitted function of the packages: its decorator's name ("njit" for a call such
    as ``njit(cache=True)``) and its definition."""
    found = []
    for name in JITTED_MODULES:
        tree = ast.parse(Path(importlib.import_module(name).__file__).read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.decorator_list:
                d = node.decorator_list[0]
                found.append((d.id if isinstance(d, ast.Name) else "njit", node))
    return found


def test_inlined_functions_have_one_jitted_caller():
    # numba copies a `hot_inline` function into each caller and types it there again:
    # one caller costs nothing extra, several multiply the compile (compiler/jit.py)
    functions = _jitted_functions()
    inlined = [node.name for kind, node in functions if kind == "hot_inline"]
    assert len(inlined) > 40
    names = [node.name for _, node in functions]
    assert [n for n in inlined if names.count(n) > 1] == []  # a call names one function
    callers: dict[str, set[str]] = {name: set() for name in inlined}
    for _, node in functions:
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in callers
                and call.func.id != node.name
            ):
                callers[call.func.id].add(node.name)
    assert {name: sorted(c) for name, c in callers.items() if len(c) != 1} == {}


def test_the_cache_key_follows_imports_of_jitted_files(tmp_path, monkeypatch):
    """An edit to a constant module a jitted file imports changes the key (numba alone
    would keep serving the old machine code); an unrelated file does not, nor one the
    jitted file imports inside a (Python) function only: no compiled code reads it."""
    core = tmp_path / "carcassonne_env" / "core"
    core.mkdir(parents=True)
    (core / "__init__.py").write_text("")
    (core / "fast.py").write_text(
        "from . import consts as K\nfrom .jit import hot\n\n\n"
        "@hot\ndef f(x):\n    return x + K.ONE\n\n\n"
        "def spec():\n    from .slow import g\n    return g\n"
    )
    (core / "jit.py").write_text("from numba import njit\nhot = njit(cache=True)\n")
    (core / "consts.py").write_text("ONE = 1\n")
    (core / "slow.py").write_text("def g(x):\n    return x\n")
    monkeypatch.setattr(numba_cache_key, "ROOT", tmp_path)
    assert [p.name for p in jitted_files()] == ["consts.py", "fast.py", "jit.py"]
    before = jitted_hash()
    (core / "slow.py").write_text("def g(x):\n    return -x\n")
    assert jitted_hash() == before
    (core / "consts.py").write_text("ONE = 2\n")
    assert jitted_hash() != before


def _fill_cache() -> None:
    game = Game(seed=0)
    game.play(game.legal_moves()[0])


def test_clear_cache_deletes_only_this_packages_compiled_code(tmp_path):
    """On a copy of the tests' cache: clear-cache deletes every .nbi/.nbc file of the
    jitted modules and nothing else; afterwards the core is not compiled any more."""
    _fill_cache()
    cache = tmp_path / "cache"
    shutil.copytree(os.environ["NUMBA_CACHE_DIR"], cache)
    # The shared test cache may also hold jitted helpers of the test files themselves
    # (e.g. tests/core/test_fuzz.py's, from an earlier test on this worker): not the
    # package's. numba keeps a source folder's files in "<folder name>_<sha1 of its path>".
    test_folders = {
        f"{d.name}_{hashlib.sha1(str(d).encode()).hexdigest()}"
        for d in [ROOT / "tests", *(ROOT / "tests").rglob("*")]
        if d.is_dir()
    }
    found = sorted(cache.rglob("*.nb[ic]"))
    others = [p for p in found if p.parent.name in test_folders]
    ours = [p for p in found if p not in others]
    assert any(p.name.startswith("turn.apply_move-") for p in ours)
    stranger = next(p.parent for p in ours) / "unrelated.f-1.py311.nbi"
    stranger.write_bytes(b"keep me")
    check = "from carcassonne_env.compilation import core_is_compiled as c; print(c())"
    assert _run(check, NUMBA_CACHE_DIR=str(cache)).stdout == "True\n"
    listed = _run(
        "from carcassonne_env.cli import main; main(['clear-cache', '--dry-run'])",
        NUMBA_CACHE_DIR=str(cache),
    )
    assert sorted(Path(p) for p in listed.stdout.split()) == ours
    done = _run(
        "from carcassonne_env.cli import main; main(['clear-cache'])", NUMBA_CACHE_DIR=str(cache)
    )
    assert done.stderr == (f"deleted {len(ours)} numba cache files; the next run compiles afresh\n")
    assert sorted(cache.rglob("*.nb[ic]")) == sorted([stranger, *others])
    assert _run(check, NUMBA_CACHE_DIR=str(cache)).stdout == "False\n"


# --------------------------------------------------------------------------- item 8


TWO_GAMES = "from carcassonne_env import Game\nGame(seed=0); Game(seed=1)"


def test_the_core_notice_comes_once_and_only_when_the_core_compiles(tmp_path):
    cold = _run(TWO_GAMES, NUMBA_CACHE_DIR=str(tmp_path))
    assert cold.stderr == NOTICE + "\n"  # once, on stderr (not a terminal: no ticker)
    assert cold.stdout == ""
    warm = _run(TWO_GAMES, NUMBA_CACHE_DIR=str(tmp_path))  # loaded from the cache
    assert warm.stderr == ""
    assert "carcassonne warmup" in NOTICE and NOTICE_ENV in NOTICE


def _jitted_in(stem: str, source: str, name: str, **names):
    """A numba function (no disk cache) defined as if in the jitted module whose name
    ends in `stem` (any module name with a dot); `names` are its globals (other jitted
    functions it calls)."""
    from numba import njit

    module = next((m for m in JITTED_MODULES if m.endswith(f".{stem}")), stem)
    scope = {"__name__": module, **names}
    exec(source, scope)  # noqa: S102 - test helper: a function that claims another module
    return njit(scope[name])


@pytest.fixture
def fresh_notices(monkeypatch):
    # internals: the parts announced so far, emptied as at a program's start
    monkeypatch.setattr(notices, "_announced", set())
    monkeypatch.setattr(notices, "NOTICE_AFTER_S", 0)  # these compiles are short: no wait
    monkeypatch.delenv(NOTICE_ENV, raising=False)


def test_each_part_announces_its_first_compile(fresh_notices, capsys):
    """A real compile of a function of the encoder's module prints the encoder's notice,
    once; a function of the vector envs' kernels calling the jitted bots' (compiled
    inside it) names only the vector envs; a module outside the package names
    nothing."""
    encode = _jitted_in("observe", "def f(x):\n    return x + 1\n", "f")
    assert encode(1) == 2 and encode(2.5) == 3.5  # the second type compiles again: silent
    bot = _jitted_in("jitted_bots", "def g(x):\n    return 2 * x\n", "g")
    env = _jitted_in("vector_kernels", "def h(x):\n    return g(x) + 1\n", "h", g=bot)
    assert env(1) == 3
    assert _jitted_in("somebody.else", "def k(x):\n    return x\n", "k")(1) == 1
    core = _jitted_in("turn", "def c(x):\n    return x\n", "c")
    assert core(1) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "".join(notices.notice(p) + "\n" for p in ("observe", "vector_kernels", "core"))
    assert bot(1) == 2  # compiled inside h: the jitted bots' notice never came, nor comes
    assert capsys.readouterr().err == ""


def test_the_switch_silences_every_part(fresh_notices, monkeypatch, capsys):
    """With CARCASSONNE_NO_COMPILE_NOTICE=1 a first compile of each part prints nothing
    (the switch is read at each compile: set in a running program, it holds from then)."""
    monkeypatch.setenv(NOTICE_ENV, "1")
    for i, stem in enumerate(("observe", "vector_kernels", "turn")):
        assert _jitted_in(stem, f"def f(x):\n    return x + {i}\n", "f")(1) == 1 + i
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(NOTICE_ENV, "0")  # "0" is off, as unset
    assert _jitted_in("turn", "def f(x):\n    return x\n", "f")(1) == 1
    assert capsys.readouterr().err == notices.notice("core") + "\n"


def test_the_notices_name_their_part_and_warmup():
    names = {m.rsplit(".", 1)[1] for m in JITTED_MODULES}
    assert set(notices.PARTS) - {"core"} <= names  # no part without a module
    for part, (what, _took) in notices.PARTS.items():
        line = notices.notice(part)
        assert f"compiling {what} with numba" in line and "`carcassonne warmup`" in line
        assert NOTICE_ENV in line and "\n" not in line


def test_the_observe_pass_and_the_kernels_name_the_observation_parts_they_compile():
    from numba import types

    from carcassonne_env.core.observe import observe
    from carcassonne_env.envs.vector_kernels import run_batch, solo_batch

    args = [types.int64] * 8
    some = types.Tuple((types.int64, types.int64))
    assert notices.part_of(observe.py_func, (*args, types.none, types.none)) == "observe"
    assert notices.part_of(observe.py_func, (*args, some, types.none)) == "aggregates"
    assert notices.part_of(observe.py_func, (*args, some, some)) == "candidates"
    for kernel, at in ((solo_batch, 3), (run_batch, 5)):
        head = [types.int64] * at
        plain = types.Tuple((types.int64, types.int64, types.none, types.none))
        with_cand = types.Tuple((types.int64, types.int64, types.none, some))
        assert notices.part_of(kernel.py_func, (*head, plain)) == "vector_kernels"
        assert notices.part_of(kernel.py_func, (*head, with_cand)) == "candidates"


def test_the_notices_give_the_readme_start_up_cpu_times():
    """Each part's notice says the CPU seconds of its row in the README's "Start-up"
    table, and every row but the total is a part."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Start-up") : readme.index("## Using the API")]
    rows = [
        line.split("|")[1:3]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| part ")
    ]
    table = {label.strip(): int(cpu) for label, cpu in rows if "everything" not in label}
    found = {}
    for part, (what, cpu) in notices.PARTS.items():
        label = what.removeprefix("the ")
        row = [k for k in table if k == label or k.startswith(label + " (")]
        assert len(row) == 1, (part, row)
        found[row[0]] = part
        assert table[row[0]] == cpu, part
        assert f"first use only: up to about {cpu} s of CPU time on a 2-core machine" in (
            notices.notice(part)
        )
    assert set(found) == set(table)


def test_notices_are_silent_when_asked_and_during_warmup(fresh_notices, monkeypatch, capsys):
    monkeypatch.setenv(NOTICE_ENV, "1")
    _jitted_in("observe", "def f(x):\n    return x\n", "f")(1)
    monkeypatch.delenv(NOTICE_ENV)
    with notices.no_notices():
        _jitted_in("vector_kernels", "def f(x):\n    return x\n", "f")(1)
    assert capsys.readouterr().err == ""
    assert notices._announced == set()  # internals: nothing is counted as announced


@pytest.mark.last
def test_warmup_command(capsys):
    assert main(["warmup", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("compiled code ready (") and out.endswith(" s)\n")
    assert compilation.core_is_compiled()


@pytest.mark.slow
def test_warmup_compiles_every_jitted_function(tmp_path):
    """From an empty cache (minutes): after `carcassonne warmup` every jitted function
    has up-to-date machine code in the cache, so nothing compiles later. (Functions
    inlined by numba, `inline="always"`, never compile alone: their code is their
    callers'.) `encode_candidates` (the candidate encoder that lists the legal moves
    itself) serves only the tests. Meanwhile no compile
    notice is printed: the command reports its own progress."""
    code = (
        "from carcassonne_env.cli import main; main(['warmup', '-q'])\n"
        "from agents.warmup import JITTED_MODULES\n"
        "from carcassonne_env.compilation import _dispatchers\n"
        "print([f'{m}.{f.__name__}' for m in JITTED_MODULES for f in _dispatchers(m)\n"
        "       if f.targetoptions.get('inline') != 'always'\n"
        "       and f.__name__ != 'encode_candidates'\n"
        "       and not f._cache._cache_file._load_index()])"
    )
    result = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert result.stdout.splitlines()[-1] == "[]"
    assert "carcassonne-env: compiling" not in result.stderr


def test_package_docs_mention_the_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "carcassonne warmup" in readme and NOTICE_ENV in readme
    assert "carcassonne clear-cache" in contributing


@pytest.mark.parametrize("command", ["warmup", "clear-cache"])
def test_commands_have_help(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "numba" in capsys.readouterr().out
