"""Shared test fixtures: the ``seed`` of stochastic tests, and ``rng``.

A test that draws random numbers takes the ``seed`` fixture and builds its own
``np.random.default_rng(seed)``, or takes ``rng``, that generator ready made.
By default every such test runs once, with :data:`DEFAULT_SEED`;
``RATINGSIM_SEEDS=all`` sweeps ``range(100)`` and ``RATINGSIM_SEEDS=17`` (or
``3,17``) runs the given seeds, which is how a failure seen in a sweep is
reproduced. Property tests built on hypothesis print their own falsifying
example instead.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

#: The environment variable that selects the seeds.
SEEDS_ENV = "RATINGSIM_SEEDS"
#: The seed of a default run.
DEFAULT_SEED = 42


def _seeds() -> list[int]:
    """The seeds selected by ``RATINGSIM_SEEDS``."""
    value = os.environ.get(SEEDS_ENV, "").strip()
    if value == "":
        return [DEFAULT_SEED]
    if value == "all":
        return list(range(100))
    try:
        seeds = [int(part) for part in value.split(",")]
    except ValueError:
        raise pytest.UsageError(
            f"{SEEDS_ENV} must be 'all', a whole number or a comma-separated list "
            f"of whole numbers. Got {value!r}."
        ) from None
    if any(s < 0 for s in seeds):
        raise pytest.UsageError(f"{SEEDS_ENV} seeds must be >= 0. Got {value!r}.")
    return seeds


def pytest_report_header(config: pytest.Config) -> str:
    """Say which seeds run and how to reproduce one."""
    all_seeds = os.environ.get(SEEDS_ENV, "").strip() == "all"
    shown = "range(100)" if all_seeds else ", ".join(map(str, _seeds()))
    return (
        f"ratingsim seeds: {shown}. Reproduce a failure with {SEEDS_ENV}=<seed> "
        f"(the [seed=N] in the test id); sweep with {SEEDS_ENV}=all."
    )


@pytest.fixture(params=_seeds(), ids=lambda s: f"seed={s}")
def seed(request: pytest.FixtureRequest) -> int:
    """The seed of a stochastic test (see the module docstring)."""
    return int(request.param)


@pytest.fixture
def rng(seed: int) -> np.random.Generator:
    """A fresh generator for the test's seed."""
    return np.random.default_rng(seed)
