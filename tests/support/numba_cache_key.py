"""The tests' numba cache key (tests/conftest.py): a hash of every file with jitted
functions and of the project modules those files import, found by scanning the sources (a
new jitted module is covered without editing a list). tests/compiler/test_compilation.py
checks the scan against the modules numba really compiles."""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from tests.support.paths import ROOT

_SOURCE_DIRS = ("carcassonne_env", "agents", "training")  # what the tests run
# A decorator (@njit, @jit, @numba.njit, the core's @hot...) or a call njit(...)(f).
_JIT_DEFINITION = re.compile(
    r"^\s*@(?:numba\.)?(?:njit|jit|hot|hot_inline|counted|vectorize|guvectorize|cfunc|stencil)\b"
    r"|\b(?:njit|jit)\([^)]*\)\s*\(\s*\w",
    re.MULTILINE,
)


def _module_file(name: str) -> Path | None:
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_level(tree: ast.AST):
    """The nodes of `tree` outside function bodies: what a module's globals come from.
    An import inside a function binds a local name of that (Python) function, which no
    compiled code reads (numba refuses an import inside a jitted function)."""
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node
            yield from _module_level(node)


def _imported_files(path: Path) -> set[Path]:
    """Project files imported at module level by `path` (`from .config import X`, `from
    carcassonne_env.core import config`, `import carcassonne_env.bots.evaluation`)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[Path] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # each name: the submodule if it is one, else the package
            choices = [(f"{base}.{alias.name}", base) for alias in node.names]
        elif isinstance(node, ast.Import):
            choices = [(alias.name,) for alias in node.names]
        else:
            continue
        for names in choices:
            for name in names:
                if name.split(".")[0] in _SOURCE_DIRS and (found := _module_file(name)):
                    out.add(found)
                    break
    return out


def jitted_files() -> list[Path]:
    """Every source file defining jitted functions, and the project files they import
    (the jitted functions they call, the constants compiled in): what compiled machine
    code can depend on."""
    jitted = [
        p
        for d in _SOURCE_DIRS
        for p in sorted((ROOT / d).rglob("*.py"))
        if _JIT_DEFINITION.search(p.read_text(encoding="utf-8"))
    ]
    # and the compile options' own imports (`compiler.link_only` decides what the cache holds)
    options = ROOT / "carcassonne_env" / "compiler" / "jit.py"
    imported = [_imported_files(p) for p in jitted] + [
        _imported_files(options) if options.is_file() else set()
    ]
    return sorted(set(jitted).union(*imported))


def jitted_hash() -> str:
    digest = hashlib.sha256()
    for path in jitted_files():
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
