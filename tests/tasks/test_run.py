"""Tests of simulator.tasks.run: the same numbers serially, in parallel and again."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd
import pytest

from simulator.config import parse_config
from simulator.evaluation.results import ReplicateResult, Summary
from simulator.tasks.run import RunResult, run, run_one

#: Two arenas, so that per-arena combining is compared too.
SMALL = """
title = "parallel"
years = 1
replicates = 2

[population]
n_players = 100

[[arena]]
name = "otb"
systems = ["fide", "glicko2", {system = "elo", label = "elo-k40", k_factor = 40}]

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"

[arena.schedule]
kind = "online"
participation = 0.5
activity_scale = 2.0
rounds_per_day = 2
"""

TABLES = ("summary", "timeseries", "prediction", "calibration", "convergence")


def _assert_same_replicate(a: ReplicateResult, b: ReplicateResult) -> None:
    assert a.systems == b.systems and a.thresholds == b.thresholds
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def _assert_same_summary(a: Summary, b: Summary) -> None:
    assert a.n_replicates == b.n_replicates and a.systems == b.systems
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def _assert_same_run(a: RunResult, b: RunResult) -> None:
    """Every table of every replicate and arena, and the summaries, are equal."""
    assert a.seed == b.seed
    assert list(a.replicates) == list(b.replicates) == ["otb", "online"]
    for arena in a.replicates:
        assert len(a.replicates[arena]) == len(b.replicates[arena])
        for x, y in zip(a.replicates[arena], b.replicates[arena], strict=True):
            _assert_same_replicate(x, y)
        _assert_same_summary(a.summary[arena], b.summary[arena])


@functools.cache
def _serial(seed: int) -> RunResult:
    """The serial run of SMALL with ``seed`` (cached: tests only read it)."""
    return run(parse_config(SMALL), seed=seed, jobs=1, progress=False)


def test_serial_and_parallel_runs_are_identical(seed: int) -> None:
    """One process and two processes give exactly the same tables."""
    parallel = run(parse_config(SMALL), seed=seed, jobs=2, progress=False)
    _assert_same_run(_serial(seed), parallel)
    assert parallel.summary["otb"].n_replicates == 2


def test_same_seed_twice_gives_identical_results(seed: int) -> None:
    """Running a config twice with one seed repeats every number."""
    again = run(parse_config(SMALL), seed=seed, jobs=1, progress=False)
    _assert_same_run(_serial(seed), again)


def test_different_seeds_differ(seed: int) -> None:
    """Different root seeds give different numbers."""
    a = _serial(seed)
    b = run(parse_config(SMALL), seed=seed + 1, replicates=1, jobs=1, progress=False)
    for arena in ("otb", "online"):
        first, other = a.replicates[arena][0], b.replicates[arena][0]
        with pytest.raises(AssertionError):
            pd.testing.assert_frame_equal(first.summary, other.summary)
        assert not np.array_equal(
            first.prediction["log_loss"], other.prediction["log_loss"]
        )


def test_replicates_differ_within_a_run(seed: int) -> None:
    """Each replicate has its own stream: two replicates of one run differ."""
    for arena in ("otb", "online"):
        first, second = _serial(seed).replicates[arena]
        assert not first.prediction["log_loss"].equals(second.prediction["log_loss"])


def test_a_replicate_reruns_alone(seed: int) -> None:
    """Replicate i of a run is run_one on the i-th spawned stream."""
    config = parse_config(SMALL)
    result = _serial(seed)
    stream = np.random.SeedSequence(seed).spawn(2)[1]
    alone = run_one(config, stream)
    for arena in ("otb", "online"):
        _assert_same_replicate(result.replicates[arena][1], alone[arena])


def test_seed_and_replicates_come_from_config_unless_given() -> None:
    """The root seed and the replicate count default to the config's."""
    config = dataclasses.replace(parse_config(SMALL), seed=7, replicates=1, years=0.1)
    from_config = run(config, jobs=1, progress=False)
    assert from_config.seed == 7
    assert from_config.summary["otb"].n_replicates == 1
    explicit = run(config, seed=7, replicates=3, jobs=1, progress=False)
    assert explicit.summary["otb"].n_replicates == 3
    assert len(explicit.replicates["online"]) == 3
    # The first replicate is the same whatever the number of replicates.
    _assert_same_replicate(
        from_config.replicates["otb"][0], explicit.replicates["otb"][0]
    )


def test_fresh_seed_is_recorded() -> None:
    """Without any seed a fresh 128-bit one is drawn and recorded."""
    config = dataclasses.replace(
        parse_config(SMALL), seed=None, replicates=1, years=0.05
    )
    a = run(config, jobs=1, progress=False)
    b = run(config, jobs=1, progress=False)
    assert 0 <= a.seed < 2**128 and a.seed != b.seed
    again = run(config, seed=a.seed, jobs=1, progress=False)
    _assert_same_run(a, again)
