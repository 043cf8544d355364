"""Tests of world.strengths: ageing, step invariance, moving some players.

Stochastic tests hold for any seed: tolerances are 5 standard errors of the
statistic, from the sample size, or documented margins well outside them. Run
``RATINGSIM_SEEDS=all pytest ...`` to sweep seeds 0-99, or
``RATINGSIM_SEEDS=3`` to reproduce one (the ``seed`` fixture of conftest.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from small_pools import START, Z, arrays, pool, simple_config, simple_pool

from simulator.world.population import (
    JUNIOR_AGE,
    PlayerKind,
    Population,
    active,
    age,
    make_population,
)
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import DAYS_PER_YEAR, Strengths, advance


def test_juniors_improve_and_veterans_decline(rng: np.random.Generator) -> None:
    """Over a year, juniors gain and over-65s lose strength on average."""
    pop = pool(rng, 20_000)
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
    """Without the random walk, a year's change is growth x the curve's integral.

    The simple world: no drift by level, one random walk (``drift_sd``).
    """
    config = simple_config(2000, drift_sd=0.0)
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
    """One step of n days and many small steps give matching changes.

    The simple world, whose random walk is ``drift_sd`` at every age.
    """
    pop = simple_pool(np.random.default_rng(seed), 20_000, n_days=n_days)
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
    pop = pool(rng, 2_000, n_days=365)
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
    pop = pool(rng, 100)
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
    pop = advance(pool(rng, 500, n_days=365), START + 40, rng)
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
    pop = pool(np.random.default_rng(seed), 500, n_days=730, probe_levels=(1800.0,))
    before = {name: a.copy() for name, a in arrays(pop).items()}
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
    for name, a in arrays(pop).items():
        np.testing.assert_array_equal(a, before[name])


def test_moving_players_only_when_read_keeps_the_distribution(seed: int) -> None:
    """Players moved on scattered days match players moved every day.

    The engine moves a player only when their strength is read (their games,
    the checkpoints); the changes over the whole span must have the same
    distribution as daily steps for everyone. The simple world, whose random
    walk is ``drift_sd`` at every age.
    """
    n_days = 120
    pop = simple_pool(np.random.default_rng(seed), 20_000, n_days=n_days)
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


def test_pool_stays_near_targets_for_five_years(rng: np.random.Generator) -> None:
    """After five years the active pool keeps about a third juniors, median ~1700."""
    pop = pool(rng, 20_000, n_days=5 * DAYS_PER_YEAR)
    for year in range(1, 6):
        pop = advance(pop, START + year * DAYS_PER_YEAR - 1, rng)
    on = active(pop, pop.day)
    assert 0.30 <= np.mean(age(pop, pop.day)[on] < JUNIOR_AGE) <= 0.44
    assert 1600 <= np.median(pop.true_strength[on]) <= 1760
    # Growth of the pool: arrivals outnumber departures (22 % vs 15 % a year).
    assert 1.15 * 20_000 <= on.sum() <= 1.5 * 20_000


def test_absent_players_do_not_change(rng: np.random.Generator) -> None:
    """Players not yet arrived, or already gone, keep their strength."""
    pop = pool(rng, 2000, n_days=365)
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


def test_inputs_not_mutated(rng: np.random.Generator) -> None:
    """Advancing returns a new state and leaves the old one and the config intact."""
    config = PopulationConfig(n_players=1000)
    before_config = dataclasses.replace(config)
    pop = make_population(config, rng, start_day=START, n_days=365)
    snapshot = {k: v.copy() for k, v in arrays(pop).items()}
    later = advance(pop, START + 100, rng)
    assert later is not pop and pop.day == START and later.day == START + 100
    for name, arr in arrays(pop).items():
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


def test_advance_refuses_going_back(rng: np.random.Generator) -> None:
    """Advancing to a day before the population's day raises."""
    pop = advance(pool(rng, 100), START + 10, rng)
    with pytest.raises(ValueError, match="back in time"):
        advance(pop, START + 9, rng)
    same = advance(pop, START + 10, rng)
    np.testing.assert_array_equal(same.true_strength, pop.true_strength)


def _move_every_row(
    pop_rows: np.ndarray, t1: float, z: np.ndarray, pop: Population
) -> None:
    """Reference: the pass over every drawn row that the pool's moves replace.

    Written out from the docstring of :func:`advance` (the age curve's and the
    walk's variance's integrals over the part of the step in the pool), with
    no integral kept from a step to the next.
    """
    from simulator.world.strengths import _age_curve, _curve_integral, _extra_tables

    config = pop.config
    dev = config.development
    curve = _age_curve(config.growth_ages, config.growth_rates)
    nx, ny, n_at, n_half, lx, ly = _extra_tables(
        dev.noise_ages, dev.noise_sds, dev.level_strengths, dev.level_rates
    )
    for i, row in enumerate(pop_rows):
        # Columns: strength, its day, arrival, departure, birth, growth.
        strength, since, arrival, departure, birth, growth = row
        if arrival < t1 and departure > since:
            lo = max(since, arrival)
            hi = max(min(t1, departure), lo)
            years = (hi - lo) / DAYS_PER_YEAR
            age_lo, age_hi = (lo - birth) / DAYS_PER_YEAR, (hi - birth) / DAYS_PER_YEAR
            trend = growth * (
                _curve_integral(age_hi, *curve) - _curve_integral(age_lo, *curve)
            )
            if lx.size:
                trend += np.interp(strength, lx, ly) * years
            if nx.size:
                var = _curve_integral(age_hi, nx, ny, n_at, n_half) - _curve_integral(
                    age_lo, nx, ny, n_at, n_half
                )
                walk_sd = np.sqrt(max(var, 0.0))
            else:
                walk_sd = config.drift_sd * np.sqrt(years)
            row[0] = (strength + trend) + walk_sd * z[i]
        row[1] = t1


def test_moving_everyone_moves_the_pool_as_every_row(seed: int) -> None:
    """A move of everyone, over the players in the pool only, is the pass over all.

    Strengths keeps the players in the pool (arrived, not gone) between moves;
    steps that cross arrivals, departures and probes must give, bit for bit,
    the strengths of a pass over every row with the same normals, and every
    strength day on the day of the move.
    """
    pop = pool(np.random.default_rng(seed), 400, n_days=3 * 365, probe_levels=(1800.0,))
    strengths = Strengths(pop)
    rows = np.column_stack(
        [
            pop.true_strength,
            pop.strength_day,
            pop.arrival_day,
            np.where(pop.probe, -np.inf, pop.departure_day),
            pop.birth_day,
            pop.growth,
        ]
    )
    rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
    days = [START + 3.0, START + 3.0, START + 50.5, START + 400.0, START + 1200.0]
    for k, day in enumerate(days):
        if k == 2:
            # Some players read between the moves of everyone.
            players = np.arange(0, pop.n_players, 5)
            strengths.advance(day - 20.0, rng, players=players)
            moved = advance(
                dataclasses.replace(
                    pop,
                    true_strength=rows[:, 0].copy(),
                    strength_day=rows[:, 1].copy(),
                    day=float(rows[:, 1].max()),
                ),
                day - 20.0,
                twin,
                players=players,
            )
            rows[:, 0], rows[:, 1] = moved.true_strength, moved.strength_day
        strengths.advance(day, rng)
        _move_every_row(rows, day, twin.standard_normal(pop.n_players), pop)
        now = strengths.population()
        np.testing.assert_array_equal(now.true_strength, rows[:, 0])
        np.testing.assert_array_equal(now.strength_day, rows[:, 1])
    gone = pop.departure_day < days[-1]
    assert gone.any() and (pop.arrival_day > START).any()


@pytest.mark.parametrize(
    "bit_generator",
    [
        np.random.PCG64,
        np.random.PCG64DXSM,
        np.random.MT19937,
        np.random.Philox,
        np.random.SFC64,
    ],
)
def test_compiled_normals_are_numpys_bit_for_bit(
    seed: int, bit_generator: type[np.random.BitGenerator]
) -> None:
    """The compiled fill gives numpy's normals and leaves numpy's state.

    200,000 draws reach the ziggurat's slow paths (the wedges and the tail)
    hundreds of times; a second fill checks that the generators stay in step.
    """
    from simulator.world.strengths import _fill_standard_normal

    ours = np.random.Generator(bit_generator(seed))
    numpys = np.random.Generator(bit_generator(seed))
    z = np.empty(200_000)
    for _ in range(2):
        _fill_standard_normal(ours, z)
        np.testing.assert_array_equal(z, numpys.standard_normal(z.shape[0]))
        _assert_same_state(ours.bit_generator.state, numpys.bit_generator.state)
    assert ours.random() == numpys.random()


def _assert_same_state(a: object, b: object) -> None:
    """Two bit generators' states equal (MT19937's holds an array)."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys()
        for key in a:
            _assert_same_state(a[key], b[key])
    else:
        np.testing.assert_array_equal(a, b)
