"""Sweeps on a Dask cluster give the same numbers as local runs (issue: scale)."""

import pandas as pd
import pytest
from distributed import LocalCluster

from simulator.config import parse_config
from simulator.tasks.run import run_sweep

SWEEP = """
title = "dask sweep"
years = 0.5
replicates = 2
[population]
n_players = 150
[[arena]]
systems = ["fide", {system = "elo", label = "elo"}]
[[grid]]
key = "arena.0.systems.1.k_factor"
values = [10, 40]
"""


@pytest.fixture(scope="module")
def cluster():
    """A two-worker cluster on loopback, closed after the module."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as c:
        yield c


def test_dask_sweep_equals_local(cluster):
    """Every table of every point and replicate is identical on Dask and locally."""
    config = parse_config(SWEEP)
    local = run_sweep(config, seed=11, jobs=1, progress=False)
    remote = run_sweep(config, seed=11, dask=cluster.scheduler_address, progress=False)
    assert not local.failures and not remote.failures
    assert [p.name for p in local.points] == [p.name for p in remote.points]
    for a, b in zip(local.results, remote.results, strict=True):
        assert a is not None and b is not None
        for arena in a.summary:
            for name in ("summary", "timeseries", "prediction", "convergence"):
                pd.testing.assert_frame_equal(
                    getattr(a.summary[arena], name), getattr(b.summary[arena], name)
                )


def test_failed_task_is_reported_and_others_kept():
    """A task that raises is reported with its point and seed; the rest are kept."""
    config = parse_config(SWEEP)

    def flaky(calls):
        from simulator.tasks.run import run_task

        for i, (cfg, seed) in enumerate(calls):
            if i == 1:
                yield None, "RuntimeError: boom", "trace"
            else:
                yield run_task(cfg, seed)

    sweep = run_sweep(config, seed=5, executor=flaky, progress=False)
    assert len(sweep.failures) == 1
    failure = sweep.failures[0]
    assert failure.point == sweep.points[0].name
    assert failure.replicate == 1
    assert "spawn(2)[1]" in failure.seed and "boom" in failure.error
    assert all(r is not None for r in sweep.results)
    first = sweep.results[0]
    assert first is not None and len(first.replicates["otb"]) == 1
