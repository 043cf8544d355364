"""Tests of world.population: sizes, WORLD.md targets, ageing, step invariance.

Stochastic tests hold for any seed: tolerances are 5 standard errors of the
statistic, from the sample size, or documented margins well outside them. Run
``RATINGSIM_SEEDS=all pytest ...`` to sweep seeds 0-99, or
``RATINGSIM_SEEDS=3`` to reproduce one (the ``seed`` fixture of conftest.py).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from simulator.systems._common import day_of, year_of
from simulator.world.population import (
    DAYS_PER_YEAR,
    JUNIOR_AGE,
    PlayerKind,
    Population,
    PopulationConfig,
    Strengths,
    active,
    advance,
    age,
    make_population,
)

START = day_of("2024-01-01")
#: Standard errors allowed in stochastic assertions.
Z = 5.0


@pytest.fixture
def rng(seed: int) -> np.random.Generator:
    """A fresh generator for the test's seed."""
    return np.random.default_rng(seed)


def _pool(
    rng: np.random.Generator, n_players: int, n_days: float = 0.0, **kwargs: object
) -> Population:
    config = PopulationConfig(n_players=n_players, **kwargs)  # type: ignore[arg-type]
    return make_population(config, rng, start_day=START, n_days=n_days)


def _arrays(pop: Population) -> dict[str, np.ndarray]:
    return {
        f.name: getattr(pop, f.name)
        for f in dataclasses.fields(pop)
        if isinstance(getattr(pop, f.name), np.ndarray)
    }


def test_sizes_dtypes_and_kinds(rng: np.random.Generator) -> None:
    """Every array covers the initial pool plus all newcomers, with fixed dtypes."""
    pop = _pool(rng, 3000, n_days=730)
    n = pop.n_players
    n_new = int(pop.newcomer.sum())
    assert n == 3000 + n_new and n_new > 0
    for name, arr in _arrays(pop).items():
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
    pop = _pool(rng, 500)
    assert pop.n_players == 500
    assert not pop.newcomer.any()
    assert np.all(np.isinf(pop.departure_day))


def test_arrivals_at_configured_rate(rng: np.random.Generator) -> None:
    """About 22 % of the pool arrives each year (Poisson count within 5 SD)."""
    pop = _pool(rng, 20_000, n_days=2 * DAYS_PER_YEAR)
    mean = 0.22 * 20_000 * 2
    assert abs(int(pop.newcomer.sum()) - mean) <= Z * np.sqrt(mean)


def test_junior_share(rng: np.random.Generator) -> None:
    """About 37 % of the initial pool is aged 18 or less (WORLD.md)."""
    n = 50_000
    pop = _pool(rng, n)
    share = np.mean(age(pop, START) < JUNIOR_AGE)
    assert abs(share - 0.37) <= Z * np.sqrt(0.37 * 0.63 / n)
    ages = age(pop, START)
    assert ages.min() >= 6 and ages.max() <= 85


def test_initial_strength_near_world_targets(rng: np.random.Generator) -> None:
    """Median near 1700, SD within 235-340 and the band shares of WORLD.md."""
    pop = _pool(rng, 100_000)
    s = pop.true_strength
    # Documented: median about 1705, SD about 333 (sampling SEs about 1 point).
    assert abs(np.median(s) - 1705) <= 15
    assert 235 <= s.std() <= 340
    assert abs(s.std() - 333) <= 10
    # WORLD.md bands (Oct 2026): <1600 33 %, 2000+ 12.8 %, 2400+ 0.8 %.
    assert 0.30 <= np.mean(s < 1600) <= 0.40
    assert 0.10 <= np.mean(s >= 2000) <= 0.16
    assert 0.004 <= np.mean(s >= 2400) <= 0.014
    # Juniors are most of the weak band and few of the strong (64 %, 10 %).
    junior = age(pop, START) < JUNIOR_AGE
    assert 0.55 <= np.mean(junior[s < 1600]) <= 0.72
    assert np.mean(junior[s >= 2400]) <= 0.2
    # Adults 25-45: SD near 235 (WORLD.md, after March 2024).
    adult = (age(pop, START) >= 25) & (age(pop, START) < 45)
    assert 190 <= s[adult].std() <= 250


def test_activity_heavy_tailed_and_rising_with_strength(
    rng: np.random.Generator,
) -> None:
    """About 17 games a year on average, heavy-tailed, more for stronger players."""
    pop = _pool(rng, 50_000)
    per_year = 12 * pop.activity
    # WORLD.md: 17.3 rated games per player-year (2019).
    assert 15.5 <= per_year.mean() <= 19.5
    # Heavy tail: the mean exceeds the median, and p90 / p10 is large.
    p10, p50, p90 = np.percentile(per_year, [10, 50, 90])
    assert per_year.mean() > 1.3 * p50
    assert p90 / p10 > 6
    assert per_year.max() <= 150
    s = pop.true_strength
    weak, strong = per_year[s < 1600].mean(), per_year[s >= 2200].mean()
    assert strong > 1.4 * weak


def test_juniors_improve_and_veterans_decline(rng: np.random.Generator) -> None:
    """Over a year, juniors gain and over-65s lose strength on average."""
    pop = _pool(rng, 20_000)
    later = advance(pop, START + 365, rng)
    change = later.true_strength - pop.true_strength
    ages = age(pop, START)
    for mask, sign in ((ages < JUNIOR_AGE, 1.0), (ages >= 65, -1.0)):
        c = change[mask]
        se = c.std() / np.sqrt(c.size)
        assert sign * c.mean() > Z * se
    assert change[ages < 12].mean() > 40
    assert change[ages >= 65].mean() < -5
    # Adults near the peak barely move on average.
    peak = (ages >= 30) & (ages < 40)
    assert abs(change[peak].mean()) < 10


def test_trend_is_the_integral_of_the_age_curve(rng: np.random.Generator) -> None:
    """Without the random walk, a year's change is growth x the curve's integral."""
    config = PopulationConfig(n_players=2000, drift_sd=0.0)
    pop = make_population(config, rng, start_day=START, n_days=0)
    change = advance(pop, START + DAYS_PER_YEAR, rng).true_strength - pop.true_strength
    a0 = age(pop, START)
    grid = a0[:, None] + np.linspace(0.0, 1.0, 2001)[None, :]
    rate = np.interp(grid, config.growth_ages, config.growth_rates)
    integral = 0.5 * (rate[:, 1:] + rate[:, :-1]).sum(axis=1) / 2000  # trapezoids
    np.testing.assert_allclose(change, pop.growth * integral, rtol=0, atol=1e-3)


@pytest.mark.parametrize(("n_days", "n_steps"), [(60, 60), (365, 12), (730, 3)])
def test_step_size_does_not_change_distribution(
    seed: int, n_days: int, n_steps: int
) -> None:
    """One step of n days and many small steps give matching changes."""
    pop = _pool(np.random.default_rng(seed), 20_000, n_days=n_days)
    one_rng, many_rng = np.random.default_rng(seed).spawn(2)
    one = advance(pop, START + n_days, one_rng)
    many = pop
    for day in np.linspace(START, START + n_days, n_steps + 1)[1:]:
        many = advance(many, day, many_rng)
    assert many.day == one.day == START + n_days
    # The age-curve part is identical: check it without the random walk.
    calm = dataclasses.replace(
        pop, config=dataclasses.replace(pop.config, drift_sd=0.0)
    )
    trend_one = advance(calm, START + n_days, one_rng).true_strength
    trend_many = calm
    for day in np.linspace(START, START + n_days, n_steps + 1)[1:]:
        trend_many = advance(trend_many, day, many_rng)
    np.testing.assert_allclose(trend_many.true_strength, trend_one, rtol=0, atol=1e-8)
    # The random walks: mean 0, equal variances (5 standard errors).
    walk_one = one.true_strength - trend_one
    walk_many = many.true_strength - trend_one
    n = walk_one.size
    expected_var = np.mean(
        pop.config.drift_sd**2
        * (
            np.minimum(pop.departure_day, START + n_days)
            - np.maximum(pop.arrival_day, START)
        ).clip(0)
        / DAYS_PER_YEAR
    )
    for walk in (walk_one, walk_many):
        assert abs(walk.mean()) <= Z * np.sqrt(walk.var() / n)
        # SE of a variance of normals with unequal scales is below
        # sqrt(2 * E[s^4] / n); E[s^4] <= max(s^2) * mean(s^2).
        se_var = np.sqrt(
            2 * pop.config.drift_sd**2 * n_days / DAYS_PER_YEAR * expected_var / n
        )
        assert abs(np.mean(walk**2) - expected_var) <= Z * se_var
    change_one = one.true_strength - pop.true_strength
    change_many = many.true_strength - pop.true_strength
    se_mean = np.sqrt((change_one.var() + change_many.var()) / n)
    assert abs(change_one.mean() - change_many.mean()) <= Z * se_mean


def test_advancing_some_players_moves_them_only(rng: np.random.Generator) -> None:
    """Players moved alone reach the day; the others keep strength and day."""
    pop = _pool(rng, 2_000, n_days=365)
    chosen = np.array([3, 10, 500, 1999])
    some = advance(pop, START + 30, rng, players=chosen)
    assert some.day == START + 30
    others = np.setdiff1d(np.arange(pop.n_players), chosen)
    np.testing.assert_array_equal(some.true_strength[others], pop.true_strength[others])
    np.testing.assert_array_equal(some.strength_day[others], START)
    np.testing.assert_array_equal(some.strength_day[chosen], START + 30)
    assert np.all(some.true_strength[chosen] != pop.true_strength[chosen])
    # Moving everyone to the same day leaves the chosen where they are and
    # moves the others in the pool over their whole 30 days.
    everyone = advance(some, START + 30, rng)
    np.testing.assert_array_equal(
        everyone.true_strength[chosen], some.true_strength[chosen]
    )
    in_pool = others[pop.arrival_day[others] < START + 30]
    assert in_pool.size > 1_900
    assert np.all(everyone.true_strength[in_pool] != pop.true_strength[in_pool])
    np.testing.assert_array_equal(everyone.strength_day, START + 30)


def test_advancing_some_players_refuses_bad_indices(rng: np.random.Generator) -> None:
    """Repeated, out-of-range or non-integer players raise, naming the problem."""
    pop = _pool(rng, 100)
    with pytest.raises(ValueError, match="distinct"):
        advance(pop, START + 1, rng, players=[1, 1])
    with pytest.raises(ValueError, match="100 is outside"):
        advance(pop, START + 1, rng, players=[100])
    with pytest.raises(ValueError, match="indices"):
        advance(pop, START + 1, rng, players=[0.5])
    with pytest.raises(ValueError, match="strength_day"):
        dataclasses.replace(pop, strength_day=np.full(pop.n_players, START + 5.0))


def test_advancing_some_players_twice_on_a_day_draws_nothing(
    rng: np.random.Generator,
) -> None:
    """Players already on the day, or outside the pool, neither move nor draw."""
    pop = advance(_pool(rng, 500, n_days=365), START + 40, rng)
    state = rng.bit_generator.state
    again = advance(pop, START + 40, rng, players=np.arange(pop.n_players))
    assert rng.bit_generator.state == state
    np.testing.assert_array_equal(again.true_strength, pop.true_strength)
    empty = advance(pop, START + 41, rng, players=np.array([], dtype=np.intp))
    assert rng.bit_generator.state == state and empty.day == START + 41
    np.testing.assert_array_equal(empty.true_strength, pop.true_strength)
    # Newcomers who arrive later, and players who left, keep their strength.
    later = np.flatnonzero(pop.arrival_day > START + 60)
    gone = np.flatnonzero(pop.departure_day <= START + 40)
    assert later.size and gone.size
    moved = advance(pop, START + 60, rng, players=np.concatenate([later, gone]))
    np.testing.assert_array_equal(moved.true_strength[later], pop.true_strength[later])
    np.testing.assert_array_equal(moved.true_strength[gone], pop.true_strength[gone])


def test_strengths_move_as_advance(seed: int) -> None:
    """Strengths moves in place, read by read and population, as advance moves."""
    pop = _pool(np.random.default_rng(seed), 500, n_days=730, probe_levels=(1800.0,))
    before = {name: a.copy() for name, a in _arrays(pop).items()}
    strengths = Strengths(pop)
    rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
    moved = pop
    for day, players in (
        (START + 10.0, np.arange(0, pop.n_players, 3)),
        (START + 10.0, np.arange(0, pop.n_players, 2)),  # some already on the day
        (START + 20.5, None),
        (START + 400.0, np.flatnonzero(pop.arrival_day > START + 100)),
    ):
        moved = advance(moved, day, rng, players=players)
        strengths.advance(day, twin, players=players)
        assert rng.bit_generator.state == twin.bit_generator.state
        now = strengths.population()
        assert now.day == moved.day
        np.testing.assert_array_equal(now.true_strength, moved.true_strength)
        np.testing.assert_array_equal(now.strength_day, moved.strength_day)
        read = np.arange(pop.n_players) if players is None else players
        np.testing.assert_array_equal(strengths.read(read), moved.true_strength[read])
    assert (moved.kind == PlayerKind.PROBE).any()
    for name, a in _arrays(pop).items():
        np.testing.assert_array_equal(a, before[name])


def test_strength_day_must_be_finite(rng: np.random.Generator) -> None:
    """NaN or infinite strength days are refused with their own message."""
    pop = _pool(rng, 50)
    for bad in (np.nan, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            dataclasses.replace(pop, strength_day=np.full(pop.n_players, bad))
    with pytest.raises(ValueError, match="9223372036854775808 is outside"):
        advance(pop, START + 1, rng, players=np.array([2**63], dtype=np.uint64))


def test_moving_players_only_when_read_keeps_the_distribution(seed: int) -> None:
    """Players moved on scattered days match players moved every day.

    The engine moves a player only when their strength is read (their games,
    the checkpoints); the changes over the whole span must have the same
    distribution as daily steps for everyone.
    """
    n_days = 120
    pop = _pool(np.random.default_rng(seed), 20_000, n_days=n_days)
    daily_rng, lazy_rng = np.random.default_rng(seed).spawn(2)
    daily, lazy = pop, pop
    for day in range(START + 1, START + n_days + 1):
        daily = advance(daily, day, daily_rng)
        # About one player in eight is read on a given day.
        read = np.flatnonzero(lazy_rng.random(pop.n_players) < 0.125)
        lazy = advance(lazy, day, lazy_rng, players=read)
    lazy = advance(lazy, START + n_days, lazy_rng)
    # The age-curve part is exact; the random walks have equal variances.
    calm = dataclasses.replace(
        pop, config=dataclasses.replace(pop.config, drift_sd=0.0)
    )
    calm_lazy = calm
    for day in range(START + 1, START + n_days + 1, 7):
        calm_lazy = advance(calm_lazy, day, lazy_rng, players=np.arange(0, 20_000, 3))
    calm_lazy = advance(calm_lazy, START + n_days, lazy_rng)
    calm_one = advance(calm, START + n_days, lazy_rng)
    np.testing.assert_allclose(
        calm_lazy.true_strength, calm_one.true_strength, rtol=0, atol=1e-8
    )
    walk_daily = daily.true_strength - calm_one.true_strength
    walk_lazy = lazy.true_strength - calm_one.true_strength
    n = pop.n_players
    se = np.sqrt((walk_daily.var() + walk_lazy.var()) / n)
    assert abs(walk_daily.mean() - walk_lazy.mean()) <= Z * se
    # Variances of normals: SE of each about var * sqrt(2 / n).
    v_daily, v_lazy = walk_daily.var(), walk_lazy.var()
    assert v_daily > 0
    assert abs(v_daily - v_lazy) <= Z * np.sqrt(2.0 / n) * (v_daily + v_lazy)


def test_arrivals_weaker_younger_and_juniors_lower(rng: np.random.Generator) -> None:
    """Newcomers enter weaker and younger than the pool; their juniors lower still."""
    pop = _pool(rng, 20_000, n_days=3 * DAYS_PER_YEAR)
    new = pop.newcomer
    entry_age = (pop.arrival_day - pop.birth_day) / DAYS_PER_YEAR
    s = pop.true_strength
    assert s[new].mean() < s[~new].mean() - 80
    # WORLD.md: newcomers' median first rating 1533-1564.
    assert 1450 <= np.median(s[new]) <= 1650
    assert entry_age[new].mean() < entry_age[~new].mean() - 5
    junior = entry_age < JUNIOR_AGE
    assert np.mean(junior[new]) > np.mean(junior[~new]) + 0.1
    assert s[new & junior].mean() < s[new & ~junior].mean() - 200


def test_departures_at_configured_rate(rng: np.random.Generator) -> None:
    """About 15 % of players leave within a year of entering."""
    n = 100_000
    pop = _pool(rng, n, n_days=2 * DAYS_PER_YEAR)
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


def test_pool_stays_near_targets_for_five_years(rng: np.random.Generator) -> None:
    """After five years the active pool keeps about a third juniors, median ~1700."""
    pop = _pool(rng, 20_000, n_days=5 * DAYS_PER_YEAR)
    for year in range(1, 6):
        pop = advance(pop, START + year * DAYS_PER_YEAR - 1, rng)
    on = active(pop, pop.day)
    assert 0.30 <= np.mean(age(pop, pop.day)[on] < JUNIOR_AGE) <= 0.44
    assert 1600 <= np.median(pop.true_strength[on]) <= 1760
    # Growth of the pool: arrivals outnumber departures (22 % vs 15 % a year).
    assert 1.15 * 20_000 <= on.sum() <= 1.5 * 20_000


def test_active_mask(rng: np.random.Generator) -> None:
    """Active means arrived and not yet departed."""
    pop = _pool(rng, 2000, n_days=365)
    np.testing.assert_array_equal(active(pop, START), ~pop.newcomer)
    day = START + 200.5
    expected = (pop.arrival_day <= day) & (pop.departure_day > day)
    np.testing.assert_array_equal(active(pop, day), expected)
    gone = np.isfinite(pop.departure_day)
    assert not np.any(active(pop, START + 365)[gone])


def test_absent_players_do_not_change(rng: np.random.Generator) -> None:
    """Players not yet arrived, or already gone, keep their strength."""
    pop = _pool(rng, 2000, n_days=365)
    mid = START + 180
    later = advance(pop, mid, rng)
    not_yet = pop.arrival_day >= mid
    np.testing.assert_array_equal(
        later.true_strength[not_yet], pop.true_strength[not_yet]
    )
    after = advance(later, START + 365, rng)
    gone = pop.departure_day <= mid
    np.testing.assert_array_equal(after.true_strength[gone], later.true_strength[gone])
    moved = (pop.arrival_day < mid) & (pop.departure_day > START)
    assert np.all(later.true_strength[moved] != pop.true_strength[moved])


def test_age_and_birth_year(rng: np.random.Generator) -> None:
    """Ages grow one a year, and birth years are the calendar years of birth days."""
    pop = _pool(rng, 500, n_days=365)
    np.testing.assert_allclose(
        age(pop, START + DAYS_PER_YEAR), age(pop, START) + 1.0, atol=1e-12
    )
    for i in range(0, pop.n_players, 97):
        assert pop.birth_year[i] == year_of(pop.birth_day[i])
    entry = (pop.arrival_day - pop.birth_day) / DAYS_PER_YEAR
    assert entry.min() >= 6 and entry.max() <= 85


def test_determinism(seed: int) -> None:
    """The same seed gives the same players and the same moves."""
    pops = [_pool(np.random.default_rng(seed), 1000, n_days=400) for _ in range(2)]
    for name, arr in _arrays(pops[0]).items():
        np.testing.assert_array_equal(arr, getattr(pops[1], name), err_msg=name)
    a = advance(pops[0], START + 90, np.random.default_rng(seed + 1))
    b = advance(pops[1], START + 90, np.random.default_rng(seed + 1))
    np.testing.assert_array_equal(a.true_strength, b.true_strength)


def test_inputs_not_mutated(rng: np.random.Generator) -> None:
    """Advancing returns a new state and leaves the old one and the config intact."""
    config = PopulationConfig(n_players=1000)
    before_config = dataclasses.replace(config)
    pop = make_population(config, rng, start_day=START, n_days=365)
    snapshot = {k: v.copy() for k, v in _arrays(pop).items()}
    later = advance(pop, START + 100, rng)
    assert later is not pop and pop.day == START and later.day == START + 100
    for name, arr in _arrays(pop).items():
        np.testing.assert_array_equal(arr, snapshot[name], err_msg=name)
    assert config == before_config
    # The state is read-only: no caller can write into it.
    with pytest.raises(ValueError, match="read-only"):
        pop.true_strength[0] = 0.0
    # Only true strength moved, to the new day.
    for name in snapshot:
        if name not in ("true_strength", "strength_day"):
            np.testing.assert_array_equal(getattr(later, name), snapshot[name])
    assert np.all(later.strength_day == START + 100)


def test_population_copies_caller_arrays(rng: np.random.Generator) -> None:
    """Building a Population from writable arrays copies them."""
    pop = _pool(rng, 10)
    strength = np.array(pop.true_strength)
    other = dataclasses.replace(pop, true_strength=strength)
    strength[0] += 100.0
    assert other.true_strength[0] == pop.true_strength[0]
    with pytest.raises(ValueError, match="shape"):
        dataclasses.replace(pop, activity=np.ones(3))


def test_advance_refuses_going_back(rng: np.random.Generator) -> None:
    """Advancing to a day before the population's day raises."""
    pop = advance(_pool(rng, 100), START + 10, rng)
    with pytest.raises(ValueError, match="back in time"):
        advance(pop, START + 9, rng)
    same = advance(pop, START + 10, rng)
    np.testing.assert_array_equal(same.true_strength, pop.true_strength)


@pytest.mark.parametrize("bad", [7, None, np.random.RandomState(0)])
def test_rng_must_be_a_generator(bad: object) -> None:
    """make_population and advance take only a numpy Generator."""
    with pytest.raises(TypeError, match="rng"):
        make_population(PopulationConfig(), bad, start_day=START, n_days=10)  # type: ignore[arg-type]
    pop = _pool(np.random.default_rng(0), 10)
    with pytest.raises(TypeError, match="rng"):
        advance(pop, START + 1, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_players": -1}, "n_players"),
        ({"n_players": 2.5}, "n_players"),
        ({"n_players": True}, "n_players"),
        ({"strength_sds": (100.0, -1.0)}, "strength_sds[1]"),
        ({"strength_means": (1700.0,)}, "strength_means"),
        ({"strength_weights": (0.0, 0.0)}, "strength_weights"),
        ({"strength_weights": ()}, "strength_weights"),
        ({"strength_means": (1700.0, np.nan)}, "strength_means"),
        ({"age_edges": (6, 19, 15, 30, 45, 65, 85, 90)}, "age_edges"),
        ({"age_weights": (0.5, 0.5)}, "age_weights"),
        ({"newcomer_age_weights": (1, 1, 1, 1, 1, 1, -1)}, "newcomer_age_weights[6]"),
        ({"growth_rates": (80.0, 0.0)}, "growth_rates"),
        ({"growth_ages": (10, 9, 17.5, 22, 35, 53, 70)}, "growth_ages"),
        ({"games_per_year": (15, 17, 22, 31, 49, -1)}, "games_per_year[5]"),
        ({"activity_strengths": (1400.0,)}, "activity_strengths"),
        ({"peak_age": -3.0}, "peak_age"),
        ({"growth_sd": -0.1}, "growth_sd"),
        ({"drift_sd": np.nan}, "drift_sd"),
        ({"activity_sd": "wide"}, "activity_sd"),
        ({"max_games_per_year": 0.0}, "max_games_per_year"),
        ({"arrival_rate": -0.1}, "arrival_rate"),
        ({"newcomer_offset": np.inf}, "newcomer_offset"),
        ({"departure_rate": 1.0}, "departure_rate"),
    ],
)
def test_invalid_config_raises(kwargs: dict[str, object], name: str) -> None:
    """A bad parameter raises ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"'{name}'") + ".*PopulationConfig"):
        PopulationConfig(**kwargs)  # type: ignore[arg-type]


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


def test_config_sequences_become_tuples() -> None:
    """Lists given for sequence parameters are stored as tuples (hashable, frozen)."""
    config = PopulationConfig(
        strength_weights=[1], strength_means=[1800], strength_sds=[200]
    )  # type: ignore[arg-type]
    assert config.strength_means == (1800.0,)
    hash(config)
    with pytest.raises(AttributeError):
        config.n_players = 5  # type: ignore[misc]
