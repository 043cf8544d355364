"""Replicates on local processes: the same numbers serially and in parallel.

Each replicate gets its own stream from ``SeedSequence(seed).spawn(n)`` and is
a pure function of the config and that stream, so replicate *i* gives the
same result whichever process runs it, and results are combined in replicate
order.
"""

from __future__ import annotations

import os
import secrets
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from simulator.config import RunConfig
from simulator.engine import run_replicate
from simulator.metrics import ReplicateResult, Summary, combine

__all__ = ["RunResult", "default_jobs", "run", "run_one"]


@dataclass(frozen=True)
class RunResult:
    """A finished run: the summary of each arena, the seed and the replicates."""

    seed: int
    replicates: dict[str, tuple[ReplicateResult, ...]]
    summary: dict[str, Summary]


def default_jobs() -> int:
    """All local cores."""
    return max(1, os.cpu_count() or 1)


def run_one(
    config: RunConfig, seed: np.random.SeedSequence
) -> dict[str, ReplicateResult]:
    """Run one replicate from its own seed sequence (a top-level, picklable task)."""
    return run_replicate(config, np.random.default_rng(seed))


def run(
    config: RunConfig,
    *,
    seed: int | None = None,
    replicates: int | None = None,
    jobs: int | None = None,
    progress: bool = True,
) -> RunResult:
    """Run every replicate of ``config`` and combine them.

    Parameters
    ----------
    config : RunConfig
        The experiment.
    seed : int, optional
        Root seed; defaults to ``config.seed``, else a fresh 128-bit one
        (recorded in the result).
    replicates : int, optional
        Defaults to ``config.replicates``.
    jobs : int, optional
        Processes; defaults to every local core. ``1`` runs in this process.
    progress : bool
        Show a progress bar on standard error.
    """
    root = seed if seed is not None else config.seed
    if root is None:
        root = secrets.randbits(128)
    n = replicates if replicates is not None else config.replicates
    jobs = default_jobs() if jobs is None else jobs
    streams = np.random.SeedSequence(root).spawn(n)
    results: list[dict[str, ReplicateResult]]
    bar = tqdm(total=n, desc="replicates", unit="rep", disable=not progress)
    try:
        if jobs <= 1 or n == 1:
            results = []
            for stream in streams:
                results.append(run_one(config, stream))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=min(jobs, n)) as pool:
                futures = [pool.submit(run_one, config, s) for s in streams]
                results = []
                for future in futures:
                    results.append(future.result())
                    bar.update()
    finally:
        bar.close()
    names = [a.name for a in config.arena]
    per_arena = {name: tuple(r[name] for r in results) for name in names}
    return RunResult(root, per_arena, {k: combine(v) for k, v in per_arena.items()})
