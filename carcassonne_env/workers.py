"""Process pools that stop at once: on Ctrl-C, SIGTERM or an error in the parent, the
queued jobs are cancelled and the workers ended, instead of the pool's exit waiting for
every job (`carcassonne warmup --jobs`, the arena's and solo benchmark's workers)."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from .atomic import held_signals


@contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` fresh processes (spawned: no numba state is inherited) for the
    block; if the block raises (a KeyboardInterrupt included), the pool is stopped now
    (`stop_pool`) and the exception goes on."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_signals
    ) as pool:
        try:
            yield pool
        except BaseException:
            with held_signals():  # a second signal must not leave workers running
                stop_pool(pool)
            raise


def _worker_signals() -> None:
    """Worker initializer: a Ctrl-C reaches the whole process group; only the parent
    handles it (it stops the workers), so the workers print no traceback. SIGTERM (the
    parent's way to stop them) ends a worker at once, not as a KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the pool's queued jobs and end its workers now, without waiting for the
    running jobs (a long batch would hold up a Ctrl-C). The pool's exit then reaps them;
    the resource tracker ends with the last process that holds its pipe."""
    processes = list((pool._processes or {}).values())  # shutdown() forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
