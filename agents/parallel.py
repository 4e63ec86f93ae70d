"""Run independent jobs (batches of games) in worker processes, results in job order.

The arena and the solo benchmark split their games into jobs whose outcome depends only
on the job's own arguments (seeds included), so the results are the same whatever the
number of workers or the order in which jobs finish, and a stopped run resumes from the
results it saved (`read_json_file` reads them back, `setting_differences` says whether
the settings given are the saved run's). Two backends: a local process pool
(default) and Ray (`pip install carcassonne-env[ray]`), for a Ray cluster.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from tqdm.auto import tqdm

from carcassonne_env import Rules
from carcassonne_env.checks import install_hint
from carcassonne_env.workers import worker_pool

T = TypeVar("T")

BACKENDS = ("process", "ray")


def run_jobs(
    fn: Callable[[Any], T],
    jobs: Sequence[Any],
    workers: int = 1,
    *,
    progress: bool = True,
    desc: str = "",
    unit: str = "job",
    weights: Sequence[int] | None = None,
    backend: str = "process",
    address: str | None = None,
) -> Generator[T, None, None]:
    """Yield `fn(job)` for every job, in job order. With workers > 1 the jobs run in a
    process pool (`fn` and the jobs must be picklable: module-level functions and plain
    data). `weights` (e.g. games per job) drive the progress bar.

    `backend="ray"` runs every job as a Ray task, at most `workers` of them at a time (so
    pass the number of CPUs to use in the cluster). It uses the Ray connection of this
    process if there is one (`ray.init(...)` called before), else connects to `address`
    (e.g. ``"auto"`` or ``"ray://head:10001"``), else starts a local Ray instance. Every
    node needs this package installed."""
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; available: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError("a Ray address needs backend='ray'")
    weights = list(weights) if weights is not None else [1] * len(jobs)
    if len(weights) != len(jobs):
        raise ValueError(f"{len(weights)} weights for {len(jobs)} jobs")
    bar = tqdm(total=sum(weights), desc=desc, unit=unit, disable=not progress)
    try:
        if backend == "ray":
            yield from _run_ray(fn, jobs, workers, weights, bar, address)
            return
        if workers == 1 or len(jobs) <= 1:
            for job, w in zip(jobs, weights, strict=True):
                yield fn(job)
                bar.update(w)
            return
        with worker_pool(workers) as pool:  # stopped at once on a Ctrl-C or SIGTERM
            futures = [pool.submit(fn, job) for job in jobs]
            for fut, w in zip(futures, weights, strict=True):  # the bar moves as jobs end
                fut.add_done_callback(partial(_advance, bar, w))
            for fut in futures:
                yield fut.result()
    finally:
        bar.close()


def _run_ray(
    fn: Callable[[Any], T],
    jobs: Sequence[Any],
    workers: int,
    weights: list[int],
    bar: tqdm,
    address: str | None,
) -> Generator[T, None, None]:
    try:
        import ray
    except ImportError:
        raise ImportError(f"the Ray backend needs Ray: {install_hint('ray')}") from None
    if not ray.is_initialized():
        ray.init(address=address)
    remote = ray.remote(fn)
    refs: list[Any] = [None] * len(jobs)
    pending: dict[Any, int] = {}  # running tasks: ref -> job index
    submitted = 0
    try:
        for k in range(len(jobs)):
            while True:
                # At most `workers` tasks in flight: a shared cluster is not flooded.
                while submitted < len(jobs) and len(pending) < workers:
                    refs[submitted] = remote.remote(jobs[submitted])
                    pending[refs[submitted]] = submitted
                    submitted += 1
                if refs[k] not in pending:
                    break
                [ready], _ = ray.wait(list(pending), num_returns=1)
                bar.update(weights[pending.pop(ready)])
            yield ray.get(refs[k])
            refs[k] = None  # drop the reference so that Ray can free the result
    finally:
        for ref in pending:
            ray.cancel(ref)


def _advance(bar: tqdm, weight: int, _job: Any) -> None:
    """Move `bar` on by `weight`: a job's future is done."""
    bar.update(weight)


def read_json_file(path: str | Path, what: str) -> Any:
    """The JSON value in the file `path`; ValueError ``PATH: not WHAT (...)`` if it is not
    UTF-8 JSON that Python reads (too deeply nested, an integer too long...). `what`
    names what the file should hold ("a solo benchmark result")."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError:  # not JSON, not UTF-8, an integer of thousands of digits
        raise ValueError(f"{path}: not {what} (not JSON)") from None
    except RecursionError:
        raise ValueError(f"{path}: not {what} (JSON nested too deeply)") from None


def setting_differences(saved: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """``"NAME: saved SAVED, given GIVEN"`` for every setting (name -> value, the same
    names in both) of a saved run that differs from the one given; `Rules` values are
    compared option by option (``"rule farm_scoring: saved field, given city"``)."""
    pairs: list[tuple[str, Any, Any]] = []
    for name, mine in saved.items():
        theirs = given[name]
        if isinstance(mine, Rules) and isinstance(theirs, Rules):
            a, b = mine.to_dict(), theirs.to_dict()  # later options appear when not default
            pairs += [
                (f"rule {key}", a.get(key, "default"), b.get(key, "default"))
                for key in sorted(set(a) | set(b))
            ]
        else:
            pairs.append((name, mine, theirs))
    return [f"{name}: saved {a}, given {b}" for name, a, b in pairs if a != b]
