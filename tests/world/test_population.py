"""Tests of world.population: sizes, docs/world.md targets, ages, arrivals, departures.

Stochastic tests hold for any seed: tolerances are 5 standard errors of the
statistic, from the sample size, or documented margins well outside them. Run
``RATINGSIM_SEEDS=all pytest ...`` to sweep seeds 0-99, or
``RATINGSIM_SEEDS=3`` to reproduce one (the ``seed`` fixture of conftest.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from small_pools import START, Z, arrays, pool, simple_pool

from simulator.systems._common import year_of
from simulator.world.population import (
    JUNIOR_AGE,
    PlayerKind,
    active,
    age,
    make_population,
)
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import DAYS_PER_YEAR, advance


def test_sizes_dtypes_and_kinds(rng: np.random.Generator) -> None:
    """Every array covers the initial pool plus all newcomers, with fixed dtypes."""
    pop = pool(rng, 3000, n_days=730)
    n = pop.n_players
    n_new = int(pop.newcomer.sum())
    assert n == 3000 + n_new and n_new > 0
    for name, arr in arrays(pop).items():
        assert arr.shape == (n,), name
    assert pop.true_strength.dtype == np.float64
    assert pop.birth_year.dtype == np.int64
    assert pop.kind.dtype == np.int8
    assert np.all(pop.kind[:3000] == PlayerKind.INITIAL)
    assert np.all(pop.kind[3000:] == PlayerKind.NEWCOMER)
    assert np.all(pop.arrival_day[:3000] == START)
    arrivals = pop.arrival_day[3000:]
    assert np.all((arrivals >= START) & (arrivals < START + 730))
    assert np.all(np.diff(arrivals) >= 0)
    assert np.all(pop.departure_day > pop.arrival_day)
    assert np.all(np.isinf(pop.departure_day) | (pop.departure_day < START + 730))
    assert np.all(pop.activity > 0) and np.all(pop.growth > 0)
    assert pop.day == START


def test_no_newcomers_without_a_horizon(rng: np.random.Generator) -> None:
    """With n_days = 0 the population is the initial pool, none of whom leave."""
    pop = pool(rng, 500)
    assert pop.n_players == 500
    assert not pop.newcomer.any()
    assert np.all(np.isinf(pop.departure_day))


def test_arrivals_at_configured_rate(rng: np.random.Generator) -> None:
    """About 22 % of the pool arrives each year (Poisson count within 5 SD).

    The simple world's constant rate; arrivals that follow the pool (the
    default) are tested in test_realistic_world.
    """
    pop = simple_pool(rng, 20_000, n_days=2 * DAYS_PER_YEAR)
    mean = 0.22 * 20_000 * 2
    assert abs(int(pop.newcomer.sum()) - mean) <= Z * np.sqrt(mean)


def test_junior_share(rng: np.random.Generator) -> None:
    """About 37 % of the initial pool is aged 18 or less (docs/world.md)."""
    n = 50_000
    pop = pool(rng, n)
    share = np.mean(age(pop, START) < JUNIOR_AGE)
    assert abs(share - 0.37) <= Z * np.sqrt(0.37 * 0.63 / n)
    ages = age(pop, START)
    assert ages.min() >= 6 and ages.max() <= 85


def test_simple_initial_strength_near_world_targets(rng: np.random.Generator) -> None:
    """The simple world: median near 1700, SD within 235-340, docs/world.md's bands."""
    pop = simple_pool(rng, 100_000)
    s = pop.true_strength
    # Documented: median about 1705, SD about 333 (sampling SEs about 1 point).
    assert abs(np.median(s) - 1705) <= 15
    assert 235 <= s.std() <= 340
    assert abs(s.std() - 333) <= 10
    # docs/world.md bands (Oct 2026): <1600 33 %, 2000+ 12.8 %, 2400+ 0.8 %.
    assert 0.30 <= np.mean(s < 1600) <= 0.40
    assert 0.10 <= np.mean(s >= 2000) <= 0.16
    assert 0.004 <= np.mean(s >= 2400) <= 0.014
    # Juniors are most of the weak band and few of the strong (64 %, 10 %).
    junior = age(pop, START) < JUNIOR_AGE
    assert 0.55 <= np.mean(junior[s < 1600]) <= 0.72
    assert np.mean(junior[s >= 2400]) <= 0.2
    # Adults 25-45: SD near 235 (docs/world.md, after March 2024).
    adult = (age(pop, START) >= 25) & (age(pop, START) < 45)
    assert 190 <= s[adult].std() <= 250


def test_default_initial_strength_as_documented(rng: np.random.Generator) -> None:
    """The default initial pool: the figures of PopulationConfig's docstring.

    It starts above the published list of Oct 2026 so that, three years on,
    its list is that list (test_calibration holds the list).
    """
    pop = pool(rng, 100_000)
    s = pop.true_strength
    # Documented: median about 1790, SD about 263, adults 25-45 about 213
    # (sampling SEs about 1 point).
    assert abs(np.median(s) - 1790) <= 15
    assert abs(s.std() - 263) <= 10
    adult = (age(pop, START) >= 25) & (age(pop, START) < 45)
    assert abs(s[adult].std() - 213) <= 10
    # About 21 % below 1600, 19 % above 2000, 1.1 % above 2400 (SE <= 0.13 %).
    assert abs(np.mean(s < 1600) - 0.21) <= 0.015
    assert abs(np.mean(s >= 2000) - 0.19) <= 0.015
    assert abs(np.mean(s >= 2400) - 0.011) <= 0.002
    junior = age(pop, START) < JUNIOR_AGE
    assert abs(np.mean(junior[s < 1600]) - 0.545) <= 0.03


def test_activity_heavy_tailed_and_rising_with_strength(
    rng: np.random.Generator,
) -> None:
    """About 17 games a year on average, heavy-tailed, more for stronger players."""
    pop = pool(rng, 50_000)
    per_year = 12 * pop.activity
    # docs/world.md: 17.3 rated games per player-year (2019).
    assert 15.5 <= per_year.mean() <= 19.5
    # Heavy tail: the mean exceeds the median, and p90 / p10 is large.
    p10, p50, p90 = np.percentile(per_year, [10, 50, 90])
    assert per_year.mean() > 1.3 * p50
    assert p90 / p10 > 6
    assert per_year.max() <= 150
    s = pop.true_strength
    weak, strong = per_year[s < 1600].mean(), per_year[s >= 2200].mean()
    assert strong > 1.4 * weak


def test_strength_day_must_be_finite(rng: np.random.Generator) -> None:
    """NaN or infinite strength days are refused with their own message."""
    pop = pool(rng, 50)
    for bad in (np.nan, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            dataclasses.replace(pop, strength_day=np.full(pop.n_players, bad))
    with pytest.raises(ValueError, match="9223372036854775808 is outside"):
        advance(pop, START + 1, rng, players=np.array([2**63], dtype=np.uint64))


def test_arrivals_weaker_younger_and_juniors_lower(rng: np.random.Generator) -> None:
    """Newcomers enter weaker and younger than the pool; their juniors lower still.

    The simple world's newcomers, on the age curve; the default's strengths
    by entry age group are tested in test_realistic_world.
    """
    pop = simple_pool(rng, 20_000, n_days=3 * DAYS_PER_YEAR)
    new = pop.newcomer
    entry_age = (pop.arrival_day - pop.birth_day) / DAYS_PER_YEAR
    s = pop.true_strength
    assert s[new].mean() < s[~new].mean() - 80
    # docs/world.md: newcomers' median first rating 1533-1564.
    assert 1450 <= np.median(s[new]) <= 1650
    assert entry_age[new].mean() < entry_age[~new].mean() - 5
    junior = entry_age < JUNIOR_AGE
    assert np.mean(junior[new]) > np.mean(junior[~new]) + 0.1
    assert s[new & junior].mean() < s[new & ~junior].mean() - 200


def test_departures_at_configured_rate(rng: np.random.Generator) -> None:
    """About 15 % of players leave within a year of entering.

    The simple world's constant hazard; the default's hazard by games, age and
    idleness is tested in test_realistic_world.
    """
    n = 100_000
    pop = simple_pool(rng, n, n_days=2 * DAYS_PER_YEAR)
    p = pop.config.departure_rate
    assert p == 0.15
    initial = ~pop.newcomer
    left = np.mean(pop.departure_day[initial] < START + DAYS_PER_YEAR)
    assert abs(left - p) <= Z * np.sqrt(p * (1 - p) / n)
    # Newcomers who arrived in the first year: same yearly rate from arrival.
    early = pop.newcomer & (pop.arrival_day < START + DAYS_PER_YEAR)
    m = int(early.sum())
    stay = pop.departure_day[early] - pop.arrival_day[early]
    left_new = np.mean(stay < DAYS_PER_YEAR)
    assert abs(left_new - p) <= Z * np.sqrt(p * (1 - p) / m)


def test_active_mask(rng: np.random.Generator) -> None:
    """Active means arrived and not yet departed."""
    pop = pool(rng, 2000, n_days=365)
    np.testing.assert_array_equal(active(pop, START), ~pop.newcomer)
    day = START + 200.5
    expected = (pop.arrival_day <= day) & (pop.departure_day > day)
    np.testing.assert_array_equal(active(pop, day), expected)
    gone = np.isfinite(pop.departure_day)
    assert not np.any(active(pop, START + 365)[gone])


def test_age_and_birth_year(rng: np.random.Generator) -> None:
    """Ages grow one a year, and birth years are the calendar years of birth days."""
    pop = pool(rng, 500, n_days=365)
    np.testing.assert_allclose(
        age(pop, START + DAYS_PER_YEAR), age(pop, START) + 1.0, atol=1e-12
    )
    for i in range(0, pop.n_players, 97):
        assert pop.birth_year[i] == year_of(pop.birth_day[i])
    entry = (pop.arrival_day - pop.birth_day) / DAYS_PER_YEAR
    assert entry.min() >= 6 and entry.max() <= 85


def test_determinism(seed: int) -> None:
    """The same seed gives the same players and the same moves."""
    pops = [pool(np.random.default_rng(seed), 1000, n_days=400) for _ in range(2)]
    for name, arr in arrays(pops[0]).items():
        np.testing.assert_array_equal(arr, getattr(pops[1], name), err_msg=name)
    a = advance(pops[0], START + 90, np.random.default_rng(seed + 1))
    b = advance(pops[1], START + 90, np.random.default_rng(seed + 1))
    np.testing.assert_array_equal(a.true_strength, b.true_strength)


def test_population_copies_callerarrays(rng: np.random.Generator) -> None:
    """Building a Population from writable arrays copies them."""
    pop = pool(rng, 10)
    strength = np.array(pop.true_strength)
    other = dataclasses.replace(pop, true_strength=strength)
    strength[0] += 100.0
    assert other.true_strength[0] == pop.true_strength[0]
    with pytest.raises(ValueError, match="shape"):
        dataclasses.replace(pop, activity=np.ones(3))


@pytest.mark.parametrize("bad", [7, None, np.random.RandomState(0)])
def test_rng_must_be_a_generator(bad: object) -> None:
    """make_population and advance take only a numpy Generator."""
    with pytest.raises(TypeError, match="rng"):
        make_population(PopulationConfig(), bad, start_day=START, n_days=10)  # type: ignore[arg-type]
    pop = pool(np.random.default_rng(0), 10)
    with pytest.raises(TypeError, match="rng"):
        advance(pop, START + 1, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("start_day", "n_days", "name"),
    [(0, -1, "n_days"), (np.nan, 10, "start_day"), (0, np.inf, "n_days")],
)
def test_invalid_horizon_raises(start_day: float, n_days: float, name: str) -> None:
    """make_population validates its horizon."""
    with pytest.raises(ValueError, match=f"'{name}'"):
        make_population(
            PopulationConfig(n_players=10),
            np.random.default_rng(0),
            start_day=start_day,
            n_days=n_days,
        )
