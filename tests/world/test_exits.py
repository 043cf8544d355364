"""Departures under the hazard model: the compiled months are the definition's."""

from __future__ import annotations

import numpy as np
import pytest

from simulator._calendar import DAYS_PER_MONTH, DAYS_PER_YEAR
from simulator.world.exits import ExitsConfig, departure_days, yearly_hazard
from simulator.world.population import _count_in_pool


def _month_by_month(
    config: ExitsConfig,
    arrival_day: np.ndarray,
    entry_age: np.ndarray,
    activity: np.ndarray,
    end_day: float,
    rng: np.random.Generator,
    established: bool,
) -> np.ndarray:
    """The definition, one month at a time in numpy (``departure_days``'s docs).

    Each month the players still in the pool whose month begins before the
    end draw one uniform each, in order; one below their chance of leaving
    that month leaves, on a day uniform within it.
    """
    out = np.full(arrival_day.shape[0], np.inf)
    games_per_year = activity * 12.0
    staying = np.flatnonzero(arrival_day < end_day)
    k = 0
    while staying.size:
        t = arrival_day[staying] + k * DAYS_PER_MONTH
        staying, t = staying[t < end_day], t[t < end_day]
        if staying.size == 0:
            break
        years_in = k * DAYS_PER_MONTH / DAYS_PER_YEAR
        hazard = yearly_hazard(
            config,
            entry_age[staying] + years_in,
            np.inf if established else games_per_year[staying] * years_in,
            games_per_year[staying],
        )
        p = -np.expm1(-hazard * DAYS_PER_MONTH / DAYS_PER_YEAR)
        u = rng.random(staying.size)
        leave = u < p
        day = t[leave] + DAYS_PER_MONTH * u[leave] / p[leave]
        out[staying[leave]] = np.where(day < end_day, day, np.inf)
        staying = staying[~leave]
        k += 1
    return out


@pytest.mark.parametrize(
    "bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox]
)
@pytest.mark.parametrize("established", [False, True])
@pytest.mark.parametrize(
    "config",
    [
        ExitsConfig(),
        ExitsConfig(base_rate=2.0, idle_rate=5.0, age_knots=(), age_factors=()),
        ExitsConfig(base_rate=0.0, idle_rate=0.0),  # nobody leaves
    ],
)
def test_departures_are_the_month_by_month_draws(
    seed: int,
    bit_generator: type[np.random.BitGenerator],
    established: bool,
    config: ExitsConfig,
) -> None:
    """Same days, bit for bit, and the generator left in the same state."""
    rng = np.random.default_rng(seed)
    for n, end_day in ((0, 100.0), (1, 40.0), (3000, 9000.0), (700, 700.0)):
        # Arrivals before, on and after the end; ages young and old; some
        # players who never play (activity 0: idle, new for ever).
        arrival = np.sort(rng.uniform(-500.0, end_day + 50.0, n))
        age = rng.uniform(6.0, 90.0, n)
        activity = np.where(rng.random(n) < 0.1, 0.0, rng.exponential(2.0, n))
        ours = np.random.Generator(bit_generator(seed + n))
        reference = np.random.Generator(bit_generator(seed + n))
        got = departure_days(
            config, arrival, age, activity, end_day, ours, established=established
        )
        want = _month_by_month(
            config, arrival, age, activity, end_day, reference, established
        )
        assert got.tobytes() == want.tobytes()
        assert ours.random() == reference.random()


def test_pool_counts_by_month(seed: int) -> None:
    """The running counts are the players present at each month's start."""
    rng = np.random.default_rng(seed)
    month_start = 100.0 + DAYS_PER_MONTH * np.arange(40, dtype=np.float64)
    change = np.zeros(month_start.size + 1, dtype=np.int64)
    drawn = []
    for first in (0, 0, 3, 17, 39):
        departure = rng.uniform(50.0, 1500.0, 300)
        departure[:5] = [np.inf, np.nan, month_start[first], 100.0, -np.inf]
        _count_in_pool(change, departure, month_start, first)
        drawn.append((first, departure))
    for i, start in enumerate(month_start):
        want = sum(int(np.count_nonzero(d > start)) for first, d in drawn if first <= i)
        assert int(change[: i + 1].sum()) == want
