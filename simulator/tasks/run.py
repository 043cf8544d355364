"""Replicates and sweep points on local processes or a Dask cluster.

A task is one replicate of one sweep point: a pure function of the point's
config and the replicate's own stream from ``SeedSequence(seed).spawn(n)``.
Every point uses the same replicate streams (common random numbers), and
results are combined in replicate order, so serial, multi-process and Dask
runs give identical numbers. A failed task is reported with its point, its
replicate and its seed; the other results are kept.
"""

from __future__ import annotations

import os
import secrets
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from simulator.config import Point, RunConfig, expand
from simulator.engine import run_replicate
from simulator.evaluation.results import ReplicateResult, Summary, combine

__all__ = [
    "Failure",
    "RunResult",
    "SweepResult",
    "Task",
    "default_jobs",
    "run",
    "run_one",
    "run_sweep",
    "run_task",
]


@dataclass(frozen=True)
class RunResult:
    """A finished run: the summary of each arena, the seed and the replicates."""

    seed: int
    replicates: dict[str, tuple[ReplicateResult, ...]]
    summary: dict[str, Summary]


@dataclass(frozen=True)
class Task:
    """One replicate of one sweep point."""

    point: int
    replicate: int
    seed: np.random.SeedSequence


@dataclass(frozen=True)
class Failure:
    """A task that raised: where, with which seed, and what it said."""

    point: str
    replicate: int
    seed: str
    error: str
    trace: str


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep: each point's result (None if every replicate failed)."""

    seed: int
    points: tuple[Point, ...]
    results: tuple[RunResult | None, ...]
    failures: tuple[Failure, ...]


def default_jobs() -> int:
    """All local cores."""
    return max(1, os.cpu_count() or 1)


def run_one(
    config: RunConfig, seed: np.random.SeedSequence
) -> dict[str, ReplicateResult]:
    """Run one replicate from its own seed sequence (a top-level, picklable task)."""
    return run_replicate(config, np.random.default_rng(seed))


def run_task(
    config: RunConfig, seed: np.random.SeedSequence
) -> tuple[dict[str, ReplicateResult] | None, str | None, str | None]:
    """:func:`run_one` that returns its error instead of raising (for pools)."""
    try:
        return run_one(config, seed), None, None
    except Exception as exc:  # a task's failure is reported, never lost
        return None, f"{type(exc).__name__}: {exc}", traceback.format_exc()


def _local(
    calls: Sequence[tuple[RunConfig, np.random.SeedSequence]], jobs: int
) -> Iterator[Any]:
    if jobs <= 1 or len(calls) <= 1:
        for config, seed in calls:
            yield run_task(config, seed)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(calls))) as pool:
        futures: list[Future[Any]] = [pool.submit(run_task, c, s) for c, s in calls]
        for future in futures:
            yield future.result()


def _dask(
    calls: Sequence[tuple[RunConfig, np.random.SeedSequence]], address: str
) -> Iterator[Any]:
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise RuntimeError(
            "Dask runs need the 'dask' extra: pip install 'ratingsim[dask]'."
        ) from None
    connect: Any = Client  # distributed's Client is not fully typed
    with connect(address) as client:
        futures = [client.submit(run_task, c, s, pure=False) for c, s in calls]
        for future in futures:
            yield future.result()


def _root(config: RunConfig, seed: int | None) -> int:
    root = seed if seed is not None else config.seed
    return secrets.randbits(128) if root is None else root


def _combine(
    config: RunConfig, root: int, results: Sequence[dict[str, ReplicateResult]]
) -> RunResult:
    names = [a.name for a in config.arena]
    per_arena = {name: tuple(r[name] for r in results) for name in names}
    return RunResult(root, per_arena, {k: combine(v) for k, v in per_arena.items()})


def run_sweep(
    config: RunConfig,
    *,
    seed: int | None = None,
    replicates: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress: bool = True,
    executor: Callable[..., Iterator[Any]] | None = None,
) -> SweepResult:
    """Run every replicate of every point of ``config``'s sweep.

    Parameters
    ----------
    config : RunConfig
        The experiment; a config without ``variant``/``grid`` is one point.
    seed : int, optional
        Root seed; defaults to ``config.seed``, else a fresh 128-bit one.
    replicates : int, optional
        Defaults to ``config.replicates``.
    jobs : int, optional
        Local processes; defaults to every local core; ``1`` runs here.
    dask : str, optional
        Address of a Dask scheduler (``tcp://host:port``) to run the tasks on
        instead of local processes.
    progress : bool
        Show a progress bar of tasks on standard error.
    executor : callable, optional
        For tests: replaces the local/Dask executor.
    """
    root = _root(config, seed)
    n = replicates if replicates is not None else config.replicates
    points = tuple(expand(config))
    streams = np.random.SeedSequence(root).spawn(n)
    tasks = [Task(p, r, streams[r]) for p in range(len(points)) for r in range(n)]
    calls = [(points[t.point].config, t.seed) for t in tasks]
    if executor is not None:
        outputs = executor(calls)
    elif dask is not None:
        outputs = _dask(calls, dask)
    else:
        outputs = _local(calls, default_jobs() if jobs is None else jobs)
    done: list[list[dict[str, ReplicateResult]]] = [[] for _ in points]
    failures: list[Failure] = []
    with tqdm(total=len(tasks), desc="tasks", unit="task", disable=not progress) as bar:
        for task, (result, error, trace) in zip(tasks, outputs, strict=True):
            if result is None:
                failures.append(
                    Failure(
                        points[task.point].name,
                        task.replicate,
                        f"SeedSequence({root}).spawn({n})[{task.replicate}]",
                        str(error),
                        str(trace),
                    )
                )
            else:
                done[task.point].append(result)
            bar.update()
    results = tuple(
        _combine(p.config, root, d) if d else None
        for p, d in zip(points, done, strict=True)
    )
    return SweepResult(root, points, results, tuple(failures))


def run(
    config: RunConfig,
    *,
    seed: int | None = None,
    replicates: int | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    progress: bool = True,
) -> RunResult:
    """Run every replicate of a single-point ``config`` and combine them.

    Raises
    ------
    RuntimeError
        If a replicate failed (its seed and error in the message), or if the
        config is a sweep (use :func:`run_sweep`).
    """
    if config.variant or config.grid:
        raise RuntimeError("This config is a sweep: use run_sweep().")
    sweep = run_sweep(
        config,
        seed=seed,
        replicates=replicates,
        jobs=jobs,
        dask=dask,
        progress=progress,
    )
    if sweep.failures:
        f = sweep.failures[0]
        raise RuntimeError(
            f"Replicate {f.replicate} ({f.seed}) failed: {f.error}\n{f.trace}"
        )
    result = sweep.results[0]
    assert result is not None
    return result
