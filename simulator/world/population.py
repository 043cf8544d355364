"""Synthetic players: true strength, age and growth, activity, arrivals, departures.

A run's players are drawn up front: the initial pool and every newcomer who
will arrive over the horizon, so player indices are stable for the whole run
and memory grows with players only. :func:`make_population` draws them from a
:class:`~simulator.world.population_config.PopulationConfig`, :func:`active`
says who is in the pool on a day and :func:`age` gives ages; their true
strengths move in time in :mod:`~simulator.world.strengths`.

A player's strength on entry is their peak-strength draw moved along their
own age curve (:func:`~simulator.world.strengths._growth_integral`), so
juniors sit below it by the growth still ahead of them and veterans by the
decline behind them.

Days are numbers of days since 1970-01-01 (``simulator.systems._common.day_of``);
a year is 365.2425 days (``DAYS_PER_YEAR``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator._calendar import DAYS_PER_MONTH
from simulator._validate import check_interval
from simulator.world.development import junior_growth
from simulator.world.entrants import activity_sd, entry_strength
from simulator.world.exits import departure_days
from simulator.world.federations import assign_federations
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import DAYS_PER_YEAR, _growth_integral

__all__ = [
    "JUNIOR_AGE",
    "PlayerKind",
    "Population",
    "active",
    "age",
    "make_population",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: Juniors are players aged 18 or less, i.e. younger than this (FIDE, docs/world.md).
JUNIOR_AGE = 19.0


class PlayerKind(IntEnum):
    """How a player entered the run."""

    #: In the pool on the first day.
    INITIAL = 0
    #: Arrived during the run.
    NEWCOMER = 1
    #: A probe: a newcomer of known, fixed true strength (the convergence
    #: experiment), who neither improves nor drifts.
    PROBE = 2


#: Marks a Population built without ``strength_day``: everyone on ``day``.
_EVERYONE: FloatArray = np.empty(0)
#: Marks a Population built without ``federation``: everyone in federation 0.
_NO_FEDERATION: NDArray[np.int16] = np.empty(0, dtype=np.int16)


@dataclass(frozen=True, eq=False)
class Population:
    """Every player of a run, as parallel read-only arrays of shape (n_players,).

    Players ``0 .. config.n_players - 1`` are the initial pool; the newcomers
    follow in order of arrival. Build with :func:`make_population`; move with
    :func:`~simulator.world.strengths.advance`, which returns a new population.

    Parameters
    ----------
    config : PopulationConfig
        The parameters the players were drawn from (``advance`` reads the age
        curve and the random walk from it).
    day : float
        The population's clock (days since 1970-01-01): the latest day it was
        advanced to. Only ``true_strength`` depends on it (and on
        ``strength_day``); the other fields are fixed for the run.
    true_strength : ndarray of shape (n_players,)
        True strength in rating points on each player's ``strength_day``. A
        player who has not yet arrived holds their strength at arrival; one
        who has left keeps the strength they left with.
    birth_day : ndarray of shape (n_players,)
        Day of birth (days since 1970-01-01, fractional).
    birth_year : ndarray of shape (n_players,)
        Calendar year of birth (int64), for rules written in birth years.
    arrival_day : ndarray of shape (n_players,)
        First day in the pool: the start day for the initial pool.
    departure_day : ndarray of shape (n_players,)
        First day out of the pool; ``inf`` if the player stays past the horizon.
    activity : ndarray of shape (n_players,)
        Expected rated games per month (a twelfth of a year) while in the pool.
    growth : ndarray of shape (n_players,)
        Multiplier of the age curve (lognormal, mean 1).
    kind : ndarray of shape (n_players,)
        :class:`PlayerKind` codes (int8): initial pool, newcomer or probe.
    strength_day : ndarray of shape (n_players,), optional
        The day each player's ``true_strength`` refers to, at most ``day``
        (players are advanced on their own when only some are needed, see
        :func:`~simulator.world.strengths.advance`); ``day`` for everyone by
        default.
    federation : ndarray of shape (n_players,), optional
        Each player's federation (int16, an index into
        ``config.federations``); 0 for everyone by default.
    """

    config: PopulationConfig
    day: float
    true_strength: FloatArray
    birth_day: FloatArray
    birth_year: IntArray
    arrival_day: FloatArray
    departure_day: FloatArray
    activity: FloatArray
    growth: FloatArray
    kind: NDArray[np.int8]
    strength_day: FloatArray = dataclasses.field(default_factory=lambda: _EVERYONE)
    federation: NDArray[np.int16] = dataclasses.field(
        default_factory=lambda: _NO_FEDERATION
    )

    def __post_init__(self) -> None:
        n = np.shape(self.true_strength)[0] if np.ndim(self.true_strength) else -1
        if self.strength_day is _EVERYONE:
            object.__setattr__(self, "strength_day", np.full(max(n, 0), self.day))
        if self.federation is _NO_FEDERATION:
            object.__setattr__(self, "federation", np.zeros(max(n, 0), np.int16))
        dtypes: dict[str, Any] = {
            "true_strength": np.float64,
            "birth_day": np.float64,
            "birth_year": np.int64,
            "arrival_day": np.float64,
            "departure_day": np.float64,
            "activity": np.float64,
            "growth": np.float64,
            "kind": np.int8,
            "strength_day": np.float64,
            "federation": np.int16,
        }
        for name, dtype in dtypes.items():
            value = getattr(self, name)
            arr = np.asarray(value, dtype=dtype)
            if arr.ndim != 1 or arr.shape[0] != n:
                raise ValueError(
                    f"Population.{name} must have shape ({n},), like "
                    f"Population.true_strength. Got {arr.shape}."
                )
            if arr.flags.writeable:
                # Our own read-only copy: no one can write into the state.
                arr = arr.copy()
                arr.flags.writeable = False
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "day", float(self.day))
        if n > 0:
            # Two reductions, no temporary array: advance rebuilds a
            # population for every round (NaN makes both NaN).
            low, high = np.min(self.strength_day), np.max(self.strength_day)
            if not (np.isfinite(low) and np.isfinite(high)):
                bad = self.strength_day[~np.isfinite(self.strength_day)][0]
                raise ValueError(
                    f"Population.strength_day must hold finite days. Got {bad!r}."
                )
            if not high <= self.day:
                raise ValueError(
                    "Population.strength_day must not pass Population.day "
                    f"({self.day:g}). Got {high!r}."
                )

    @property
    def n_players(self) -> int:
        """Number of players over the whole run (initial pool and newcomers)."""
        return int(self.true_strength.shape[0])

    @property
    def newcomer(self) -> NDArray[np.bool_]:
        """Mask of the players who arrive during the run."""
        return np.equal(self.kind, int(PlayerKind.NEWCOMER))

    @property
    def probe(self) -> NDArray[np.bool_]:
        """Mask of the probes, whose true strength never changes."""
        return np.equal(self.kind, int(PlayerKind.PROBE))


def _mixture(
    weights: tuple[float, ...],
    means: tuple[float, ...],
    sds: tuple[float, ...],
    n: int,
    rng: np.random.Generator,
) -> FloatArray:
    """``n`` draws from a normal mixture."""
    p = np.asarray(weights) / np.sum(weights)
    component = rng.choice(p.shape[0], size=n, p=p)
    z = rng.standard_normal(n)
    mean: FloatArray = np.asarray(means, dtype=np.float64)[component]
    sd: FloatArray = np.asarray(sds, dtype=np.float64)[component]
    return mean + sd * z


def _ages(
    edges: tuple[float, ...],
    weights: tuple[float, ...],
    n: int,
    rng: np.random.Generator,
) -> FloatArray:
    """``n`` ages (years), uniform within bands chosen with ``weights``."""
    e: FloatArray = np.asarray(edges, dtype=np.float64)
    p = np.asarray(weights) / np.sum(weights)
    band = rng.choice(p.shape[0], size=n, p=p)
    low: FloatArray = e[band]
    high: FloatArray = e[band + 1]
    return low + rng.random(n) * (high - low)


def _lognormal_mean_one(
    sd: float | FloatArray, n: int, rng: np.random.Generator
) -> FloatArray:
    """``n`` lognormal multipliers with mean 1 and log-SD ``sd``."""
    return np.exp(sd * rng.standard_normal(n) - 0.5 * sd * sd)


def _activity(
    config: PopulationConfig, strength: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """Expected rated games per month: the curve at ``strength`` times a lognormal."""
    sd = activity_sd(
        config.entrants, config.activity_strengths, config.activity_sd, strength
    )
    per_year = np.interp(
        strength, config.activity_strengths, config.games_per_year
    ) * _lognormal_mean_one(sd, strength.shape[0], rng)
    return np.minimum(per_year, config.max_games_per_year) / 12.0


def _birth_year(birth_day: FloatArray) -> IntArray:
    """Calendar year of each birth day."""
    days = np.floor(birth_day).astype(np.int64).astype("datetime64[D]")
    return days.astype("datetime64[Y]").astype(np.int64) + 1970


def _departures(
    config: PopulationConfig,
    arrival_day: FloatArray,
    end_day: float,
    rng: np.random.Generator,
) -> FloatArray:
    """Departure days at a constant yearly hazard; ``inf`` past ``end_day``."""
    n = arrival_day.shape[0]
    if config.departure_rate == 0:
        return np.full(n, np.inf)
    hazard = -np.log1p(-config.departure_rate)  # per year
    stay = rng.exponential(DAYS_PER_YEAR / hazard, size=n)
    departure = arrival_day + stay
    return np.where(departure < end_day, departure, np.inf)


def make_population(
    config: PopulationConfig,
    rng: np.random.Generator,
    *,
    start_day: float,
    n_days: float,
) -> Population:
    """Draw every player of a run: the initial pool and all newcomers.

    Parameters
    ----------
    config : PopulationConfig
        The pool's parameters.
    rng : numpy.random.Generator
        The run's generator; the only source of randomness.
    start_day : float
        First day of the run (days since 1970-01-01).
    n_days : float
        Length of the horizon in days: newcomers arrive in
        ``[start_day, start_day + n_days)`` and departures later than that are
        ``inf``.

    Returns
    -------
    Population
        All players, with true strengths as on ``start_day``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> pop = make_population(PopulationConfig(n_players=500), rng,
    ...                       start_day=19723, n_days=365)
    >>> int(active(pop, 19723).sum()), pop.n_players > 500
    (500, True)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            "make_population needs a numpy.random.Generator as 'rng'. "
            f"Got {type(rng).__name__} instead."
        )
    check_interval(
        "make_population", "start_day", start_day, -np.inf, np.inf, closed="neither"
    )
    check_interval("make_population", "n_days", n_days, 0, np.inf, closed="left")
    start = float(start_day)
    end = start + float(n_days)
    n0 = config.n_players
    if not config.original:
        # The realistic world's keys: newcomers, exits, development, federations.
        drawn = _draw_extended(config, rng, start, end)
        return _with_probes(config, rng, start, end, n_days, **drawn)

    # Newcomers: a Poisson process at a constant rate over the horizon.
    n_new = int(rng.poisson(config.arrival_rate * n0 * float(n_days) / DAYS_PER_YEAR))
    arrival = np.concatenate(
        [np.full(n0, start), np.sort(start + rng.random(n_new) * float(n_days))]
    )
    n = n0 + n_new
    newcomer = np.arange(n) >= n0

    # Ages on entry, then birth days.
    entry_age = np.concatenate(
        [
            _ages(config.age_edges, config.age_weights, n0, rng),
            _ages(config.age_edges, config.newcomer_age_weights, n_new, rng),
        ]
    )
    birth_day = arrival - entry_age * DAYS_PER_YEAR

    # Strength on entry: adult level, newcomers lower, juniors lower by age.
    strength = _mixture(
        config.strength_weights, config.strength_means, config.strength_sds, n, rng
    )
    strength += np.where(newcomer, config.newcomer_offset, 0.0)
    growth = _lognormal_mean_one(config.growth_sd, n, rng)
    # Strength on entry: the peak-age draw moved along the player's own age
    # curve, so juniors sit below it by the growth still to come and veterans
    # by the decline behind them.
    strength += growth * (
        _growth_integral(entry_age, config.growth_ages, config.growth_rates)
        - _growth_integral(
            np.array([config.peak_age]), config.growth_ages, config.growth_rates
        )
    )

    departure = _departures(config, arrival, end, rng)
    activity = _activity(config, strength, rng)
    kind = np.where(newcomer, PlayerKind.NEWCOMER, PlayerKind.INITIAL).astype(np.int8)
    return _with_probes(
        config,
        rng,
        start,
        end,
        n_days,
        arrival=arrival,
        birth_day=birth_day,
        strength=strength,
        departure=departure,
        activity=activity,
        growth=growth,
        kind=kind,
        federation=np.zeros(n, dtype=np.int16),
    )


def _with_probes(
    config: PopulationConfig,
    rng: np.random.Generator,
    start: float,
    end: float,
    n_days: float,
    *,
    arrival: FloatArray,
    birth_day: FloatArray,
    strength: FloatArray,
    departure: FloatArray,
    activity: FloatArray,
    growth: FloatArray,
    kind: NDArray[np.int8],
    federation: NDArray[np.int16],
) -> Population:
    """The players drawn, the probes appended, as a :class:`Population`."""
    # Probes: known, fixed strengths, appended after everyone else.
    levels = np.repeat(np.asarray(config.probe_levels), config.probes_per_level)
    if levels.size:
        probe_start = start + config.probe_arrival_years * DAYS_PER_YEAR
        if probe_start >= end:
            raise ValueError(
                f"Probes arrive {config.probe_arrival_years:g} years after the "
                f"start, after the run's end ({float(n_days) / DAYS_PER_YEAR:.2f} "
                "years)."
            )
        probe_arrival = np.minimum(probe_start + rng.random(levels.size) * 28, end)
        probe_birth = probe_arrival - config.probe_age * DAYS_PER_YEAR
        arrival = np.concatenate([arrival, probe_arrival])
        birth_day = np.concatenate([birth_day, probe_birth])
        strength = np.concatenate([strength, levels])
        departure = np.concatenate([departure, np.full(levels.size, np.inf)])
        mean_rate = np.interp(levels, config.activity_strengths, config.games_per_year)
        activity = np.concatenate([activity, mean_rate / 12.0])
        growth = np.concatenate([growth, np.zeros(levels.size)])
        kind = np.concatenate(
            [kind, np.full(levels.size, PlayerKind.PROBE, dtype=np.int8)]
        )
        federation = np.concatenate([federation, np.zeros(levels.size, np.int16)])

    return Population(
        config=config,
        day=start,
        true_strength=strength,
        birth_day=birth_day,
        birth_year=_birth_year(birth_day),
        arrival_day=arrival,
        departure_day=departure,
        activity=activity,
        growth=growth,
        kind=kind,
        federation=federation,
    )


def _draw_players(
    config: PopulationConfig,
    arrival: FloatArray,
    initial: bool,
    end: float,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Players arriving on ``arrival``: the initial pool's or newcomers' draws.

    The initial pool is drawn as in the simple world; newcomers by the
    entrants' own distributions when set. Then juniors' personal rates,
    activity, departures and federations.
    """
    n = arrival.shape[0]
    ent = config.entrants
    if initial or not ent.age_edges:
        weights = config.age_weights if initial else config.newcomer_age_weights
        entry_age = _ages(config.age_edges, weights, n, rng)
    else:
        entry_age = _ages(ent.age_edges, ent.age_weights, n, rng)
    growth = _lognormal_mean_one(config.growth_sd, n, rng)
    if initial or ent.strength == "age_curve":
        peak = _mixture(
            config.strength_weights, config.strength_means, config.strength_sds, n, rng
        )
        if not initial:
            peak += config.newcomer_offset
        growth = junior_growth(
            config.development, growth, entry_age < JUNIOR_AGE, peak, entry_age, rng
        )
        strength = peak + growth * (
            _growth_integral(entry_age, config.growth_ages, config.growth_rates)
            - _growth_integral(
                np.array([config.peak_age]), config.growth_ages, config.growth_rates
            )
        )
    else:
        strength = entry_strength(ent, entry_age, rng)
        growth = junior_growth(
            config.development, growth, entry_age < JUNIOR_AGE, strength, entry_age, rng
        )
    activity = _activity(config, strength, rng)
    if config.exits.model == "constant":
        departure = _departures(config, arrival, end, rng)
    else:
        departure = departure_days(
            config.exits, arrival, entry_age, activity, end, rng, established=initial
        )
    return {
        "arrival": arrival,
        "birth_day": arrival - entry_age * DAYS_PER_YEAR,
        "strength": strength,
        "departure": departure,
        "activity": activity,
        "growth": growth,
        "kind": np.full(
            n, PlayerKind.INITIAL if initial else PlayerKind.NEWCOMER, dtype=np.int8
        ),
        "federation": assign_federations(config.federations, n, rng),
    }


def _draw_extended(
    config: PopulationConfig, rng: np.random.Generator, start: float, end: float
) -> dict[str, Any]:
    """Every player but the probes, under the realistic world's keys.

    With ``entrants.arrival = "pool"`` newcomers arrive month by month, a
    Poisson number at ``arrival_rate`` a year of the players in the pool at
    the month's start (the initial pool and earlier newcomers not yet gone).
    """
    parts = [_draw_players(config, np.full(config.n_players, start), True, end, rng)]
    if config.entrants.arrival == "constant":
        n_new = int(
            rng.poisson(
                config.arrival_rate * config.n_players * (end - start) / DAYS_PER_YEAR
            )
        )
        arrival = np.sort(start + rng.random(n_new) * (end - start))
        parts.append(_draw_players(config, arrival, False, end, rng))
    else:
        months = []
        month = start
        while month < end:
            months.append(month)
            month += DAYS_PER_MONTH
        # The pool at each month's start, counted as players are drawn: each
        # adds one to the months from the next on that begin before they
        # leave (a running sum of changes, not a pass over everyone a month).
        month_start = np.array(months)
        change = np.zeros(month_start.size + 1, dtype=np.int64)
        _count_in_pool(change, parts[0]["departure"], month_start, 0)
        in_pool = 0
        for i, month in enumerate(months):
            length = min(DAYS_PER_MONTH, end - month)
            in_pool += int(change[i])
            n_new = int(
                rng.poisson(config.arrival_rate * in_pool * length / DAYS_PER_YEAR)
            )
            arrival = np.sort(month + rng.random(n_new) * length)
            parts.append(_draw_players(config, arrival, False, end, rng))
            _count_in_pool(change, parts[-1]["departure"], month_start, i + 1)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _count_in_pool(
    change: NDArray[np.int64],
    departure: FloatArray,
    month_start: FloatArray,
    first: int,
) -> None:
    """Count players in the pool at the starts of months ``first`` on.

    A player is in the pool at a month's start before their ``departure``
    (``departure > start``; NaN never): months ``first`` up to the first that
    begins on or after it. ``change[i]`` is the pool at month ``i`` less
    that at month ``i - 1``.
    """
    end = np.searchsorted(month_start, departure, side="left")
    end = np.where(np.isnan(departure), first, np.maximum(end, first))
    change[first] += departure.size
    change -= np.bincount(end, minlength=change.size)


def active(population: Population, day: float) -> NDArray[np.bool_]:
    """Mask of the players in the pool on ``day``: arrived and not yet left.

    Parameters
    ----------
    population : Population
        The players.
    day : float
        Days since 1970-01-01.

    Returns
    -------
    ndarray of bool, shape (n_players,)
        ``arrival_day <= day < departure_day``.
    """
    return (population.arrival_day <= day) & (day < population.departure_day)


def age(population: Population, day: float) -> FloatArray:
    """Each player's age in years (fractional) on ``day``.

    Parameters
    ----------
    population : Population
        The players.
    day : float
        Days since 1970-01-01.

    Returns
    -------
    ndarray of float64, shape (n_players,)
        ``(day - birth_day) / 365.2425``.
    """
    return (float(day) - population.birth_day) / DAYS_PER_YEAR
