"""Every public name of the three packages has a docstring: the modules, their classes and
functions, and the public methods and properties of the classes (an override of a
documented method may rely on the base class's docstring). The API reference is these
docstrings (`help()`, `pydoc`, an IDE)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

pytest.importorskip("torch")  # training's modules need the train extra
pytest.importorskip("ray")


def _modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
    return [n for n in names if not any(p.startswith("_") for p in n.split(".")[1:])]


def _documented_above(cls: type, name: str) -> bool:
    return any(getattr(getattr(base, name, None), "__doc__", None) for base in cls.__mro__[1:])


def _undocumented(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    missing = [] if inspect.getdoc(module) else [module_name]
    for name, obj in vars(module).items():
        if (
            name.startswith("_")
            or getattr(obj, "__module__", None) != module_name
            or not (inspect.isclass(obj) or inspect.isfunction(obj))
        ):
            continue
        if not obj.__doc__:
            missing.append(f"{module_name}.{name}")
        if not inspect.isclass(obj):
            continue
        for key, value in vars(obj).items():
            if key.startswith("_"):
                continue
            function = getattr(value, "__func__", value)  # classmethod, staticmethod
            if isinstance(value, property):
                doc = value.__doc__
            elif inspect.isfunction(function):
                doc = function.__doc__
            else:
                continue  # a class attribute
            if not doc and not _documented_above(obj, key):
                missing.append(f"{module_name}.{name}.{key}")
    return missing


@pytest.mark.parametrize("package", ["carcassonne_env", "agents", "training"])
def test_every_public_name_has_a_docstring(package, monkeypatch):
    monkeypatch.setenv("CARCASSONNE_NO_COMPILE_NOTICE", "1")
    missing = [name for module in _modules(package) for name in _undocumented(module)]
    assert missing == []


def test_the_check_finds_a_missing_docstring():
    class Documented:
        """A class."""

        def method(self):  # no docstring
            return 1

    assert not Documented.method.__doc__ and not _documented_above(Documented, "method")
