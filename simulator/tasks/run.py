"""Replicates and sweep points on local processes or a Dask cluster.

A task is one replicate of one sweep point: a pure function of the point's
config and the replicate's own stream from ``SeedSequence(seed).spawn(n)``.
Every point uses the same replicate streams (common random numbers), and
results are combined in replicate order, so serial, multi-process and Dask
runs give identical numbers. A failed task is reported with its point, its
replicate and its seed; the other results are kept.

:func:`run_experiment` is ``ratingsim run``: it resolves the seed, the
replicates and the results folder, runs the sweep and writes the folder
(report, tables, figures, config, seed and versions).
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import secrets
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from simulator import __version__
from simulator._atomic import OutputError, check_output, claim
from simulator.config import Point, RunConfig, expand
from simulator.engine import run_replicate
from simulator.evaluation.histories import gather, write_table
from simulator.evaluation.results import ReplicateResult, Summary, combine
from simulator.tasks.precompile import compile_share

__all__ = [
    "ClusterError",
    "Failure",
    "OutFolderError",
    "RunReport",
    "RunResult",
    "SweepResult",
    "Task",
    "default_jobs",
    "run",
    "run_experiment",
    "run_one",
    "run_sweep",
    "run_task",
    "write_outputs",
]


@dataclass(frozen=True)
class RunResult:
    """A finished run: the summary of each arena, the seed and the replicates."""

    seed: int
    replicates: dict[str, tuple[ReplicateResult, ...]]
    summary: dict[str, Summary]

    @property
    def history(self) -> pd.DataFrame:
        """Every replicate's rating histories (``[output] histories``), stacked.

        Columns ``arena``, ``replicate``, then those of
        :mod:`~simulator.evaluation.histories`; empty if not kept.
        """
        return gather({k: [r.history for r in v] for k, v in self.replicates.items()})

    @property
    def predictions(self) -> pd.DataFrame:
        """Every replicate's per-game predictions (``[output] predictions``)."""
        return gather(
            {k: [r.predictions for r in v] for k, v in self.replicates.items()}
        )

    def __repr__(self) -> str:
        arenas = ", ".join(self.summary)
        n = max((len(v) for v in self.replicates.values()), default=0)
        return f"RunResult(arenas {arenas}; {n} replicates; seed {self.seed})"


def write_outputs(result: RunResult, folder: Path) -> list[str]:
    """Write the kept histories and predictions as Parquet; the files written.

    A table asked for is written even without a row (no measured game).
    """
    written = []
    for name in ("history", "predictions"):
        table: pd.DataFrame = getattr(result, name)
        if len(table.columns):  # kept, if without a row
            write_table(table, folder / f"{name}.parquet")
            written.append(f"{name}.parquet")
    return written


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
    workers = min(jobs, len(calls))
    with ProcessPoolExecutor(workers, **_compile_ahead(workers)) as pool:
        futures: list[Future[Any]] = [pool.submit(run_task, c, s) for c, s in calls]
        for future in futures:
            yield future.result()


def _compile_ahead(workers: int) -> dict[str, Any]:
    """The pool's initializer: each worker compiles a share of the compile plan.

    See :mod:`simulator.tasks.precompile`: with an empty numba cache the
    workers split the compiling instead of each doing all of it.
    """
    try:
        counter = multiprocessing.Value("i", 0)
    except OSError:  # no shared memory (a locked-down container): no shares
        return {}
    return {"initializer": compile_share, "initargs": (counter, workers)}


def _dask(
    calls: Sequence[tuple[RunConfig, np.random.SeedSequence]], address: str
) -> Iterator[Any]:
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise RuntimeError(
            "Dask runs need the 'dask' extra: pip install 'ratingsim[dask]'."
        ) from None
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    connect: Any = Client  # distributed's Client is not fully typed
    try:
        client = connect(address, timeout="20s")
    except (OSError, ValueError, TypeError) as exc:
        # A bad address (ValueError), nobody listening (OSError after the
        # timeout): the user's input, not a bug.
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address!r}: {_short(exc)}"
        ) from None
    with client:
        futures = [client.submit(run_task, c, s, pure=False) for c, s in calls]
        for future in futures:
            try:
                result = future.result()
            except (OSError, KilledWorker, CancelledError) as exc:
                # A task's own error comes back as a Failure (run_task); these
                # are the cluster's: a worker killed, the scheduler lost.
                raise ClusterError(
                    f"the Dask cluster at {address!r} failed: "
                    f"{type(exc).__name__}: {_short(exc)}"
                ) from None
            yield result


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:197] + "..."


class ClusterError(RuntimeError):
    """The Dask cluster cannot be reached or failed: a one-line error (exit 2)."""


def _root(config: RunConfig, seed: int | None) -> int:
    root = seed if seed is not None else config.seed
    return secrets.randbits(128) if root is None else root


def _combine(
    config: RunConfig, root: int, results: Sequence[dict[str, ReplicateResult]]
) -> RunResult:
    reference = {a.name: a.reference for a in config.arena}
    per_arena = {name: tuple(r[name] for r in results) for name in reference}
    summaries = {k: combine(v, reference=reference[k]) for k, v in per_arena.items()}
    return RunResult(root, per_arena, summaries)


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


# --------------------------------------------------------------------------
# ratingsim run: an experiment into its results folder
# --------------------------------------------------------------------------


class OutFolderError(OutputError):
    """The results folder cannot be written: nothing is run.

    It exists and is not empty (without ``force``), is an input, or its
    folder cannot be written (read-only, full, a file in the way).
    """


@dataclass(frozen=True)
class RunReport:
    """What :func:`run_experiment` did.

    Attributes
    ----------
    seed : int
        The root seed the run used.
    path : Path or None
        The results folder written; None if every replicate of a single-point
        run failed (nothing written).
    failures : tuple of Failure
        The tasks that raised.
    sweep : SweepResult or None
        The results themselves (for a caller that makes more of them, such
        as ``ratingsim convert --build --out``).
    """

    seed: int
    path: Path | None
    failures: tuple[Failure, ...]
    sweep: SweepResult | None = field(default=None, compare=False, repr=False)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def versions() -> dict[str, str]:
    """Versions of Python and of the packages that shape the numbers."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "ratingsim": __version__}
    for name in ("numpy", "numba", "scipy", "pandas", "matplotlib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - all are dependencies
            out[name] = "absent"
    return out


def _outputs(result: RunResult | None) -> Callable[[Path], object] | None:
    """What writes a run's kept histories and predictions into its folder."""
    if result is None:
        return None
    return lambda folder: write_outputs(result, folder)


def run_experiment(
    config_file: str | None = None,
    *,
    seed: int | None = None,
    replicates: int | None = None,
    out: str | Path | None = None,
    jobs: int | None = None,
    dask: str | None = None,
    figures: bool = True,
    progress: bool = True,
    force: bool = False,
    histories: bool | None = None,
    predictions: bool | None = None,
    settings: Sequence[str] = (),
    show: Callable[[str], None] = print,
    say: Callable[[str], None] = _stderr,
) -> RunReport:
    """Run an experiment (the default comparison without a config) into a folder.

    Parameters
    ----------
    config_file : str, optional
        A TOML config; without one, the built-in default comparison.
    seed : int, optional
        Root seed; defaults to the config's, else a fresh 64-bit one.
    replicates : int, optional
        Defaults to the config's.
    out : str or Path, optional
        The results folder (default ``results/run-SEED``); it may exist only
        as an empty folder.
    jobs, dask, progress
        As :func:`run_sweep`.
    figures : bool
        Draw the PNG figures.
    force : bool
        Replace an existing ``out`` (``--force``); it is moved aside only
        once the new folder is complete.
    histories, predictions : bool, optional
        Override the config's ``[output]`` keys (``--histories``,
        ``--predictions``): write ``history.parquet``, ``predictions.parquet``.
    settings : sequence of str
        ``KEY=VALUE`` overrides of the config (``--set``,
        :func:`simulator.config.override_config`), e.g.
        ``population.n_players=20000``.
    show : callable
        Receives the summary table (default: standard output).
    say : callable
        Receives each message: the run's start, a failed task's trace and
        line, where the results went (default: standard error).

    Raises
    ------
    simulator.config.ConfigError
        A bad config (a :class:`ValueError`).
    OutFolderError
        ``out`` exists and is not an empty folder (without ``force``), or
        cannot be written (see :func:`simulator._atomic.check_output`);
        nothing is run.
    """
    from simulator.config import (
        ConfigError,
        default_config,
        load_config,
        override_config,
    )
    from simulator.evaluation.formatting import (
        format_summary_table,
        format_sweep_table,
    )
    from simulator.evaluation.paired import paired_points
    from simulator.evaluation.report import (
        sweep_table,
        write_report,
        write_sweep_report,
    )
    from simulator.tasks.describe import complete_config, describe_world, run_styles

    config = default_config() if config_file is None else load_config(config_file)
    if settings:
        config = override_config(config, settings)
    seed = seed if seed is not None else config.seed
    if seed is None:
        seed = secrets.randbits(64)
    replicates = replicates if replicates is not None else config.replicates
    output = dataclasses.replace(
        config.output,
        **{
            k: v
            for k, v in (("histories", histories), ("predictions", predictions))
            if v is not None
        },
    )
    try:
        config = dataclasses.replace(
            config, seed=seed, replicates=replicates, output=output
        )
    except ValueError as exc:  # --seed and --replicates, checked as the config's
        raise ConfigError(str(exc)) from None
    folder = Path(out) if out else Path("results") / f"run-{seed}"
    stack = contextlib.ExitStack()
    try:
        # Before the first game: a folder that cannot be written is found now,
        # not after the run.
        check_output(
            folder,
            force=force,
            folder=True,
            inputs=() if config_file is None else (config_file,),
            option="the results folder",
        )
        # Held until the folder is written: a second run into it fails now.
        stack.enter_context(claim(folder))
    except OutputError as exc:
        raise OutFolderError(str(exc)) from None
    with stack:
        is_sweep = bool(config.variant or config.grid)
        where = f"on the Dask cluster at {dask}" if dask else "locally"
        say(
            f"ratingsim run: {config.title}; seed {seed}, {replicates} replicates, "
            f"{where}"
        )
        sweep = run_sweep(config, jobs=jobs, dask=dask, progress=progress)
        source = config_file if config_file is not None else "the default comparison"
        common: dict[str, Any] = {
            # Every key and every system's every parameter: loading it
            # reruns the same numbers.
            "config_text": complete_config(config),
            "styles": run_styles(config),
            "seed": seed,
            "versions": versions(),
            "title": config.title,
            "figures": figures,
            "force": force,
            "reproduce": (
                f"ratingsim run {'' if config_file is None else config_file + ' '}"
                f"--seed {seed} --replicates {replicates}"
            ),
        }
        if is_sweep:
            names = [p.name for p in sweep.points]
            summaries = [None if r is None else r.summary for r in sweep.results]
            show(format_sweep_table(sweep_table(names, summaries)))
            path = write_sweep_report(
                folder,
                names,
                summaries,
                [vars(f) for f in sweep.failures],
                point_configs=[complete_config(p.config) for p in sweep.points],
                point_styles=[run_styles(p.config) for p in sweep.points],
                point_worlds=[describe_world(p.config) for p in sweep.points],
                point_extras=[_outputs(r) for r in sweep.results],
                paired=paired_points(
                    names, [None if r is None else r.replicates for r in sweep.results]
                ),
                **common,
            )
        else:
            result = sweep.results[0]
            if result is None:
                failure = sweep.failures[0]
                say(failure.trace)
                say(
                    f"ratingsim run: every replicate failed; first: replicate "
                    f"{failure.replicate} ({failure.seed}): {failure.error}"
                )
                return RunReport(seed, None, sweep.failures, sweep)
            show(format_summary_table(result.summary))
            path = write_report(
                folder,
                result.summary,
                world=describe_world(config),
                extra=_outputs(result),
                **common,
            )
        for failure in sweep.failures:
            say(
                f"ratingsim run: FAILED point '{failure.point}', replicate "
                f"{failure.replicate}, seed {failure.seed}: {failure.error}"
            )
        say(f"Results of {source} written to {path}/")
        return RunReport(seed, Path(path), sweep.failures, sweep)
