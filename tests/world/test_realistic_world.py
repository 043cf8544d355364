"""Tests of the realistic world's keys: entrants, exits, development, federations.

Stochastic tests hold for any seed (the ``seed`` fixture; ``RATINGSIM_SEEDS=all``
sweeps 0-99): tolerances are ``Z`` standard errors of the statistic.
"""

from __future__ import annotations

import numpy as np
import pytest
from small_pools import START, Z, simple_config

from simulator.config import ConfigError, parse_config
from simulator.world.development import DevelopmentConfig, junior_growth
from simulator.world.entrants import EntrantsConfig
from simulator.world.exits import ExitsConfig
from simulator.world.federations import FederationsConfig
from simulator.world.population import (
    JUNIOR_AGE,
    PlayerKind,
    active,
    age,
    make_population,
)
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import DAYS_PER_YEAR, advance


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda: EntrantsConfig(arrival="growing"), "arrival"),
        (lambda: EntrantsConfig(strength_medians=(1500.0,)), "strength_medians"),
        (
            lambda: EntrantsConfig(strength_sds=(200.0, -1.0, 2.0, 3.0)),
            "strength_sds[1]",
        ),
        (
            lambda: EntrantsConfig(age_edges=(6.0, 10.0), age_weights=(1.0, 2.0)),
            "age_weights",
        ),
        (lambda: EntrantsConfig(activity_sds=(0.5, 9.0)), "activity_sds[1]"),
        (lambda: ExitsConfig(model="sudden"), "model"),
        (lambda: ExitsConfig(base_rate=-0.1), "base_rate"),
        (
            lambda: ExitsConfig(age_knots=(20.0, 10.0), age_factors=(1.0, 2.0)),
            "age_knots",
        ),
        (lambda: DevelopmentConfig(noise_ages=(10.0,), noise_sds=()), "noise_ages"),
        (lambda: DevelopmentConfig(junior_rate_sd=9.0), "junior_rate_sd"),
        (
            lambda: DevelopmentConfig(
                level_strengths=(1.0,), level_rates=(float("nan"),)
            ),
            "level_rates",
        ),
        (lambda: FederationsConfig(shares=(1.0, 2.0), rating_offsets=(0.0,)), "shares"),
        (
            lambda: FederationsConfig(shares=(0.0, 0.0), rating_offsets=(0.0, 0.0)),
            "shares",
        ),
    ],
)
def test_bad_value_is_one_line_naming_the_key(make: object, key: str) -> None:
    """A bad value is a one-line ValueError naming the key and the value."""
    with pytest.raises(
        ValueError, match=key.replace("[", r"\[").replace("]", r"\]")
    ) as info:
        make()  # type: ignore[operator]
    assert "\n" not in str(info.value)


def test_config_file_names_the_dotted_key() -> None:
    """A bad key in a TOML table is a ConfigError naming its path."""
    text = '[population.exits]\nmodel = "sudden"\n[[arena]]\nsystems = ["elo"]\n'
    with pytest.raises(ConfigError, match=r"population\.exits.*'model'.*sudden"):
        parse_config(text)
    text = '[population.entrants]\nspeed = 1\n[[arena]]\nsystems = ["elo"]\n'
    with pytest.raises(ConfigError, match=r"Unknown key 'population\.entrants\.speed'"):
        parse_config(text)


def _pool(rng: np.random.Generator, n: int, years: float, **keys: object) -> object:
    config = PopulationConfig(n_players=n, **keys)  # type: ignore[arg-type]
    return make_population(config, rng, start_day=START, n_days=years * DAYS_PER_YEAR)


def test_entry_strength_by_age_group(rng: np.random.Generator) -> None:
    """Newcomers' strengths follow each entry age group's median and SD."""
    entrants = EntrantsConfig(strength="by_age")
    pop = _pool(rng, 20_000, 2.0, entrants=entrants)
    new = pop.newcomer
    ages = age(pop, 0.0)[new] - (0.0 - pop.arrival_day[new]) / DAYS_PER_YEAR
    strength = pop.true_strength[new]
    groups = np.searchsorted(entrants.strength_age_edges, ages, side="right")
    for g, (median, sd) in enumerate(
        zip(entrants.strength_medians, entrants.strength_sds, strict=True)
    ):
        s = strength[groups == g]
        assert s.size > 300
        # SE of a normal median: 1.2533 sd / sqrt(n).
        assert abs(np.median(s) - median) < Z * 1.2533 * sd / np.sqrt(s.size)
        assert abs(s.std() / sd - 1) < Z / np.sqrt(2 * s.size)


def test_arrivals_follow_the_pool(rng: np.random.Generator) -> None:
    """With ``arrival = "pool"`` newcomers a year are the rate times the pool."""
    rate = 0.3
    pop = _pool(
        rng, 10_000, 3.0, arrival_rate=rate, entrants=EntrantsConfig(arrival="pool")
    )
    for y in range(3):
        day0 = START + y * DAYS_PER_YEAR
        days = np.linspace(day0, day0 + DAYS_PER_YEAR, 13)[:-1]
        mean_pool = np.mean([active(pop, d).sum() for d in days])
        arrived = np.count_nonzero(
            pop.newcomer
            & (pop.arrival_day >= day0)
            & (pop.arrival_day < day0 + DAYS_PER_YEAR)
        )
        expected = rate * mean_pool
        # Poisson count; the monthly steps lag the pool by half a month.
        assert abs(arrived - expected) < Z * np.sqrt(expected) + 0.03 * expected


def test_exit_hazard(rng: np.random.Generator) -> None:
    """The base hazard alone gives its yearly share; idle players leave more."""
    base = ExitsConfig(
        model="hazard",
        base_rate=0.2,
        new_player_factor=1.0,
        idle_rate=0.0,
        age_knots=(),
        age_factors=(),
    )
    pop = _pool(rng, 20_000, 1.0, exits=base)
    initial = pop.kind == PlayerKind.INITIAL
    left = np.mean(np.isfinite(pop.departure_day[initial]))
    p = -np.expm1(-0.2)
    assert abs(left - p) < Z * np.sqrt(p * (1 - p) / initial.sum())
    idle = ExitsConfig(
        model="hazard",
        base_rate=0.05,
        new_player_factor=1.0,
        idle_rate=2.0,
        age_knots=(),
        age_factors=(),
    )
    pop = _pool(rng, 20_000, 1.0, exits=idle)
    games = pop.activity * 12
    initial = pop.kind == PlayerKind.INITIAL
    gone = np.isfinite(pop.departure_day)
    # The initial pool is established: a constant yearly hazard, the base
    # plus the idle part, exp(-games a year) weighted.
    p_gone = -np.expm1(-(0.05 + 2.0 * np.exp(-games)))
    few, many = initial & (games < 2), initial & (games > 20)
    for mask in (few, many):
        expected = p_gone[mask].mean()
        se = np.sqrt(expected * (1 - expected) / mask.sum())
        assert abs(gone[mask].mean() - expected) < Z * se
    assert gone[few].mean() > gone[many].mean() + 0.2
    # New players (fewer than 30 games expected) leave more often: each
    # newcomer's chance to leave within a year, month by month.
    newbie = ExitsConfig(
        model="hazard",
        base_rate=0.1,
        new_player_factor=4.0,
        idle_rate=0.0,
        age_knots=(),
        age_factors=(),
    )
    pop = _pool(rng, 20_000, 2.0, arrival_rate=1.0, exits=newbie)
    first = pop.newcomer & (pop.arrival_day < START + DAYS_PER_YEAR)
    gone = pop.departure_day[first] < pop.arrival_day[first] + DAYS_PER_YEAR
    games = pop.activity[first] * 12
    months = np.arange(12) / 12
    new = games[:, None] * months[None, :] < 30
    hazard = np.where(new, 0.4, 0.1)
    p_gone = 1 - np.exp(-hazard.sum(axis=1) / 12)
    for mask in (games < 10, games > 60):
        expected = p_gone[mask].mean()
        se = np.sqrt(expected * (1 - expected) / mask.sum())
        assert abs(gone[mask].mean() - expected) < Z * se
    assert p_gone[games < 10].mean() > p_gone[games > 60].mean() + 0.1
    # The initial pool is established: the base hazard only.
    initial = pop.kind == PlayerKind.INITIAL
    left = np.mean(pop.departure_day[initial] < START + DAYS_PER_YEAR)
    p = -np.expm1(-0.1)
    assert abs(left - p) < Z * np.sqrt(p * (1 - p) / initial.sum())


def test_noise_by_age_and_drift_by_level(rng: np.random.Generator) -> None:
    """Without the age curve, a year's change has the level's drift and the age's SD."""
    dev = DevelopmentConfig(
        noise_ages=(10.0, 30.0),
        noise_sds=(60.0, 20.0),
        level_strengths=(1500.0, 2500.0),
        level_rates=(10.0, -10.0),
    )
    pop = _pool(rng, 40_000, 0.0, growth_rates=(0.0,) * 7, development=dev)
    later = advance(pop, START + DAYS_PER_YEAR, rng)
    change = later.true_strength - pop.true_strength
    ages, s = age(pop, START), pop.true_strength
    for mask, sd in (
        ((ages >= 32) & (ages < 60), 20.0),
        ((ages >= 6) & (ages < 9), 60.0),
    ):
        c = change[mask]
        assert abs(c.std() / sd - 1) < Z / np.sqrt(2 * c.size)
    for mask, drift in ((s < 1450, 10.0), (s > 2550, -10.0)):
        c = change[mask & (ages > 32)]
        assert abs(c.mean() - drift) < Z * 20.0 / np.sqrt(c.size)


def test_junior_rates(rng: np.random.Generator) -> None:
    """Juniors draw their own rate spread, rising with their level among their age."""
    dev = DevelopmentConfig(
        junior_rate_sd=0.7,
        junior_rate_levels=(-200.0, 200.0),
        junior_rate_factors=(0.5, 2.0),
    )
    n = 40_000
    entry_age = 8.0 + 20.0 * rng.random(n)
    strength = 1500.0 + 200.0 * rng.standard_normal(n)
    junior = entry_age < JUNIOR_AGE
    growth = junior_growth(dev, np.ones(n), junior, strength, entry_age, rng)
    assert np.all(growth[~junior] == 1.0)
    # The middle of each age (level factor near 1): log-SD junior_rate_sd.
    years = np.floor(entry_age)
    level = strength.copy()
    for y in np.unique(years[junior]):
        same = junior & (years == y)
        level[same] -= np.median(strength[same])
    middle = junior & (np.abs(level) < 10)
    log_g = np.log(growth[middle])
    assert abs(log_g.std() / 0.7 - 1) < Z / np.sqrt(2 * log_g.size) + 0.05
    strong, weak = junior & (level > 200), junior & (level < -200)
    ratio = np.median(growth[strong]) / np.median(growth[weak])
    assert abs(np.log(ratio) - np.log(4.0)) < Z * 0.7 * 1.25 * np.sqrt(
        1 / strong.sum() + 1 / weak.sum()
    )


def test_federations_and_default_draws(rng: np.random.Generator) -> None:
    """Federations follow their shares; one federation draws nothing."""
    feds = FederationsConfig(shares=(0.5, 0.3, 0.2), rating_offsets=(0.0, 30.0, -30.0))
    pop = _pool(rng, 20_000, 0.0, federations=feds)
    counts = np.bincount(pop.federation, minlength=3) / pop.n_players
    for share, got in zip((0.5, 0.3, 0.2), counts, strict=True):
        assert abs(got - share) < Z * np.sqrt(share * (1 - share) / pop.n_players)
    assert not PopulationConfig(federations=feds).original
    # The default is the realistic world; the simple world draws as before.
    assert not PopulationConfig().original
    assert simple_config(100).original
    assert not simple_config(100, federations=feds).original
