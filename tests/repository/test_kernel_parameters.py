"""No jitted function takes more than 10 parameters: arguments that travel together are
named records (`core.observe.Observation`, `envs.vector_kernels.Games`, ...), built once
where Python owns the buffers."""

from __future__ import annotations

import importlib
import inspect

from numba.core.registry import CPUDispatcher

from agents.warmup import JITTED_MODULES

MOST_PARAMETERS = 10


def _jitted_functions() -> dict[str, CPUDispatcher]:
    found = {}
    for name in JITTED_MODULES:
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name:
                found[f"{name}.{attr}"] = obj
    return found


def test_no_jitted_function_takes_more_than_ten_parameters():
    functions = _jitted_functions()
    assert len(functions) > 150  # every module's (a wrong filter would find none)
    assert "carcassonne_env.envs.vector_kernels.run_batch" in functions
    counts = {name: len(inspect.signature(f.py_func).parameters) for name, f in functions.items()}
    assert {name: n for name, n in counts.items() if n > MOST_PARAMETERS} == {}
