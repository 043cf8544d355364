"""Synthetic players: true strength, age and growth, activity, arrivals, departures.

A run's players are drawn up front: the initial pool and every newcomer who
will arrive over the horizon, so player indices are stable for the whole run
and memory grows with players only. :func:`make_population` draws them,
:func:`advance` moves true strengths forward in time, :func:`active` says who
is in the pool on a day and :func:`age` gives ages.

True strength moves along an age curve (juniors improve fast, more slowly
as they grow up, adults hold, veterans decline), scaled per player by a
lognormal growth factor, plus a Brownian random walk. Both parts scale exactly
with the elapsed time: the curve is integrated over the player's age and the
walk's variance grows linearly with time, so advancing 60 days in one step or
in 60 steps of one day gives the same distribution of changes.

The defaults imitate the FIDE-rated OTB pool of WORLD.md; each parameter's
docstring names its source. Figures marked (L) there come from FIDE's lists or
the Lichess broadcast archive, not peer reviewed.

Days are numbers of days since 1970-01-01 (``simulator.systems._common.day_of``);
a year is 365.2425 days.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._jit import jit
from simulator._validate import check_interval

__all__ = [
    "DAYS_PER_YEAR",
    "JUNIOR_AGE",
    "PlayerKind",
    "Population",
    "PopulationConfig",
    "Strengths",
    "active",
    "advance",
    "age",
    "make_population",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: Days in a mean Gregorian year.
DAYS_PER_YEAR = 365.2425
#: Juniors are players aged 18 or less, i.e. younger than this (FIDE, WORLD.md).
JUNIOR_AGE = 19.0

_OWNER = "PopulationConfig"


class PlayerKind(IntEnum):
    """How a player entered the run."""

    #: In the pool on the first day.
    INITIAL = 0
    #: Arrived during the run.
    NEWCOMER = 1
    #: A probe: a newcomer of known, fixed true strength (the convergence
    #: experiment), who neither improves nor drifts.
    PROBE = 2


def _as_floats(name: str, value: Any) -> tuple[float, ...]:
    """A non-empty tuple of finite floats, or a sklearn-style ``ValueError``."""
    try:
        items = tuple(value)
    except TypeError:
        items = ()
    ok = len(items) > 0 and all(
        isinstance(v, int | float | np.integer | np.floating)
        and not isinstance(v, bool)
        and np.isfinite(float(v))
        for v in items
    )
    if not ok:
        raise ValueError(
            f"The {name!r} parameter of {_OWNER} must be a non-empty sequence of "
            f"finite floats. Got {value!r} instead."
        )
    return tuple(float(v) for v in items)


def _check_each(
    name: str,
    values: tuple[float, ...],
    low: float,
    high: float,
    closed: Literal["both", "left", "right", "neither"],
) -> None:
    """Check every entry of a sequence parameter, naming the entry."""
    for i, v in enumerate(values):
        check_interval(_OWNER, f"{name}[{i}]", v, low, high, closed=closed)


def _check_same_length(names: tuple[str, ...], lengths: tuple[int, ...]) -> None:
    if len(set(lengths)) != 1:
        listed = ", ".join(f"{n!r} ({k})" for n, k in zip(names, lengths, strict=True))
        raise ValueError(
            f"The parameters {listed} of {_OWNER} must have equal lengths."
        )


def _check_increasing(name: str, values: tuple[float, ...]) -> None:
    if any(b <= a for a, b in itertools.pairwise(values)):
        raise ValueError(
            f"The {name!r} parameter of {_OWNER} must be strictly increasing. "
            f"Got {values!r} instead."
        )


def _check_weights(name: str, values: tuple[float, ...]) -> None:
    _check_each(name, values, 0, np.inf, "left")
    if sum(values) <= 0:
        raise ValueError(
            f"The {name!r} parameter of {_OWNER} must have a positive sum. "
            f"Got {values!r} instead."
        )


@dataclass(frozen=True)
class PopulationConfig:
    """Parameters of a synthetic player pool; defaults imitate FIDE's OTB pool.

    Parameters
    ----------
    n_players : int, default 2000
        Players in the pool on the first day.
    strength_weights, strength_means, strength_sds : tuple of float
        A normal mixture (weights, means and SDs in rating points) of each
        player's *peak* true strength, the strength at ``peak_age``; a single
        normal is a one-entry mixture. A player's strength on entry is this
        draw moved along their own age curve from ``peak_age`` to their age, so
        juniors sit below it by the growth still ahead of them and veterans by
        the decline behind them. Defaults ``(0.8, 0.2)``, ``(1860, 2030)``,
        ``(180, 280)``: the initial pool then has a median near 1705 and an SD
        near 333 (adults 25-45: SD near 215), with about 36 % below 1600, 13 %
        above 2000, 3.5 % above 2200, 0.85 % above 2400 and 0.17 % above 2600;
        juniors are about 64 % of the players below 1600 and 10 % of those
        above 2400. WORLD.md: median of active players 1703 (Oct 2026); SD of active
        adults 25-45 about 235 after March 2024, 342 before; bands <1600 33 %,
        2000+ 12.8 %, 2200+ 3.8 %, 2400+ 0.8 %, 2600+ 0.07 %; juniors 64 % of
        the <1600 band and 10 % of 2400-2599.
    peak_age : float, default 35.0
        Age (years) at which a player's strength equals their mixture draw;
        it should be where the age curve turns from gains to losses (35 with
        the default curve). WORLD.md: peak age in the mid-30s to early 40s
        (Elo 1965; Roring & Charness 2007; Strittmatter et al. 2020).
    age_edges : tuple of float, default (6, 10, 15, 19, 30, 45, 65, 85)
        Edges (years) of the age bands on the first day; ages are uniform
        within a band.
    age_weights : tuple of float, default (0.04, 0.17, 0.16, 0.18, 0.20, 0.17, 0.08)
        Share of the initial pool in each age band (normalised). The first three
        bands are the juniors: 37 % (WORLD.md: juniors, age <= 18, are 37 % of
        active players). The adult split is ours; WORLD.md has no figure.
    newcomer_age_weights : tuple of float
        Share of newcomers in each age band at arrival, default
        ``(0.18, 0.25, 0.14, 0.18, 0.13, 0.09, 0.03)``: younger than the pool,
        57 % juniors, so that the pool's junior share stays near 37 % as
        juniors grow up (checked over ten simulated years). Our choice;
        WORLD.md gives newcomers' ratings by age, not their ages.
    growth_ages : tuple of float, default (10, 13.5, 17.5, 22, 35, 53, 70)
        Ages (years) of the knots of the age curve; the yearly change is
        interpolated linearly between knots and constant beyond them.
    growth_rates : tuple of float, default (80, 62.5, 32.5, 18, 0, -9, -17)
        Typical change of true strength (points per year) at each knot. WORLD.md:
        strong players gain, relative to adults 25-45, about 160 under 12, 125
        at 12-15, 65 at 16-19 and 36 at 20-24 a year, and typical juniors about
        half that (hence 80, 62.5, 32.5, 18); they lose 9 at 46-60 and 17 over
        60 (kept in full; published ratings: -9 at 46-64, -14 at 65+).
    growth_sd : float, default 0.4
        SD of the log of each player's growth factor, a lognormal multiplier
        with mean 1 on the age curve (gains and losses alike): about 3 % of
        players develop at least twice the typical pace, the strong players'
        pace of WORLD.md. Our choice.
    drift_sd : float, default 30.0
        SD of the random walk of true strength, in points per square root of a
        year (a player's strength a year on is the curve's change plus a normal
        change with this SD). Our assumption; WORLD.md has no figure.
    activity_strengths : tuple of float, default (1400, 1800, 2100, 2300, 2500, 2700)
        Strengths (points) of the knots of the mean activity curve: the middles
        of WORLD.md's bands <1600, 1600-1999, 2000-2199, 2200-2399, 2400-2599
        and 2600+.
    games_per_year : tuple of float, default (15.5, 17.3, 22.5, 31.1, 49.2, 59.0)
        Mean rated games a year at each knot (WORLD.md, by band; 17.3 over all
        players in 2019), interpolated linearly and constant beyond the ends.
        With the default strengths the pool's mean is near 17.9 a year.
    activity_sd : float, default 0.93
        SD of the log of each player's activity multiplier, a lognormal with
        mean 1: heavy-tailed activity. WORLD.md: club adults 1600-1999 play a
        median of 10 rated games a year with p10 3 and p90 33, a log-spread of
        ``ln(33/3) / (2 * 1.2816) = 0.93``. With the defaults, club adults
        1600-1999 aged 25-60 get a median near 11.7 games a year.
    max_games_per_year : float, default 150.0
        Cap on a player's expected games a year (the busiest professionals).
    arrival_rate : float, default 0.22
        Newcomers a year as a share of ``n_players`` (a Poisson process at a
        constant rate). WORLD.md: about 48,000 newcomers a year, about 22 % of
        the active pool.
    newcomer_offset : float, default -50.0
        Points added to a newcomer's peak-strength draw. Newcomers enter weaker
        than the pool mostly because they are younger: with the defaults their
        median on arrival is near 1560, and near 1060, 1370, 1590 and 1755 for
        ages under 10, 10-14, 15-18 and 19+. WORLD.md: newcomers' median first
        rating 1533-1564 (2024-2026); by age in 2025 <10 1492, 10-14 1513,
        15-19 1579, 20+ about 1650, against a pool median near 1700. Published
        first ratings are floored at 1400, so the youngest sit lower in truth.
        With the defaults the pool's median drifts down by about 45 points
        over ten years.
    departure_rate : float, default 0.15
        Probability that a player leaves the pool within a year (a constant
        hazard, for every player). With ``arrival_rate`` 0.22 the pool grows
        about 7 % a year at first (WORLD.md: 177k to 218k players with a rated
        game in 12 months, Feb 2024 to Oct 2026). Our fit; WORLD.md gives no
        departure rate.

    probe_levels : tuple of float, default ()
        True strengths of *probe* newcomers (the convergence experiment): for
        each level, ``probes_per_level`` adults of exactly that strength, which
        never changes (no age curve, no random walk), arrive within four weeks
        from ``probe_arrival_years`` after the start, play at the mean activity
        of their level and never leave. None by default.
    probes_per_level : int, default 40
        Probes at each level.
    probe_arrival_years : float, default 1.0
        When the probes arrive, in years after the start (after the pool has
        settled).
    probe_age : float, default 30.0
        The probes' age on arrival (adults, so no junior K factor).

    Notes
    -----
    A player's activity is fixed when drawn, from their strength then.
    Departure is independent of age, strength and activity.
    """

    n_players: int = 2000
    strength_weights: tuple[float, ...] = (0.8, 0.2)
    strength_means: tuple[float, ...] = (1860.0, 2030.0)
    strength_sds: tuple[float, ...] = (180.0, 280.0)
    peak_age: float = 35.0
    age_edges: tuple[float, ...] = (6.0, 10.0, 15.0, 19.0, 30.0, 45.0, 65.0, 85.0)
    age_weights: tuple[float, ...] = (0.04, 0.17, 0.16, 0.18, 0.20, 0.17, 0.08)
    newcomer_age_weights: tuple[float, ...] = (
        0.18,
        0.25,
        0.14,
        0.18,
        0.13,
        0.09,
        0.03,
    )
    growth_ages: tuple[float, ...] = (10.0, 13.5, 17.5, 22.0, 35.0, 53.0, 70.0)
    growth_rates: tuple[float, ...] = (80.0, 62.5, 32.5, 18.0, 0.0, -9.0, -17.0)
    growth_sd: float = 0.4
    drift_sd: float = 30.0
    activity_strengths: tuple[float, ...] = (
        1400.0,
        1800.0,
        2100.0,
        2300.0,
        2500.0,
        2700.0,
    )
    games_per_year: tuple[float, ...] = (15.5, 17.3, 22.5, 31.1, 49.2, 59.0)
    activity_sd: float = 0.93
    max_games_per_year: float = 150.0
    arrival_rate: float = 0.22
    newcomer_offset: float = -50.0
    departure_rate: float = 0.15
    probe_levels: tuple[float, ...] = ()
    probes_per_level: int = 40
    probe_arrival_years: float = 1.0
    probe_age: float = 30.0

    def __post_init__(self) -> None:
        n = self.n_players
        if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 0:
            raise ValueError(
                f"The 'n_players' parameter of {_OWNER} must be an int in "
                f"[0, inf). Got {n!r} instead."
            )
        seqs = {
            name: _as_floats(name, getattr(self, name))
            for name in (
                "strength_weights",
                "strength_means",
                "strength_sds",
                "age_edges",
                "age_weights",
                "newcomer_age_weights",
                "growth_ages",
                "growth_rates",
                "activity_strengths",
                "games_per_year",
            )
        }
        for name, value in seqs.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "n_players", int(n))

        _check_same_length(
            ("strength_weights", "strength_means", "strength_sds"),
            tuple(
                len(seqs[k])
                for k in ("strength_weights", "strength_means", "strength_sds")
            ),
        )
        _check_weights("strength_weights", seqs["strength_weights"])
        _check_each("strength_sds", seqs["strength_sds"], 0, np.inf, "left")

        if len(seqs["age_edges"]) < 2:
            raise ValueError(
                f"The 'age_edges' parameter of {_OWNER} must have at least two "
                f"entries (one band). Got {seqs['age_edges']!r} instead."
            )
        _check_increasing("age_edges", seqs["age_edges"])
        _check_each("age_edges", seqs["age_edges"], 0, 150, "both")
        n_bands = len(seqs["age_edges"]) - 1
        for name in ("age_weights", "newcomer_age_weights"):
            if len(seqs[name]) != n_bands:
                raise ValueError(
                    f"The {name!r} parameter of {_OWNER} must have one entry per "
                    f"age band ({n_bands}, one fewer than 'age_edges'). Got "
                    f"{len(seqs[name])} instead."
                )
            _check_weights(name, seqs[name])

        _check_same_length(
            ("growth_ages", "growth_rates"),
            (len(seqs["growth_ages"]), len(seqs["growth_rates"])),
        )
        _check_increasing("growth_ages", seqs["growth_ages"])

        _check_same_length(
            ("activity_strengths", "games_per_year"),
            (len(seqs["activity_strengths"]), len(seqs["games_per_year"])),
        )
        _check_increasing("activity_strengths", seqs["activity_strengths"])
        _check_each("games_per_year", seqs["games_per_year"], 0, np.inf, "left")

        check_interval(_OWNER, "peak_age", self.peak_age, 0, 150, closed="both")
        check_interval(_OWNER, "growth_sd", self.growth_sd, 0, 5, closed="both")
        check_interval(_OWNER, "drift_sd", self.drift_sd, 0, np.inf, closed="left")
        check_interval(_OWNER, "activity_sd", self.activity_sd, 0, 5, closed="both")
        check_interval(
            _OWNER,
            "max_games_per_year",
            self.max_games_per_year,
            0,
            np.inf,
            closed="neither",
        )
        check_interval(
            _OWNER, "arrival_rate", self.arrival_rate, 0, np.inf, closed="left"
        )
        check_interval(
            _OWNER,
            "newcomer_offset",
            self.newcomer_offset,
            -np.inf,
            np.inf,
            closed="neither",
        )
        check_interval(
            _OWNER, "departure_rate", self.departure_rate, 0, 1, closed="left"
        )
        if self.probe_levels:
            object.__setattr__(
                self, "probe_levels", _as_floats("probe_levels", self.probe_levels)
            )
        check_interval(
            _OWNER, "probes_per_level", self.probes_per_level, 1, 10**6, kind="an int"
        )
        check_interval(_OWNER, "probe_arrival_years", self.probe_arrival_years, 0, 200)
        check_interval(_OWNER, "probe_age", self.probe_age, 5, 100)


#: Marks a Population built without ``strength_day``: everyone on ``day``.
_EVERYONE: FloatArray = np.empty(0)


@dataclass(frozen=True, eq=False)
class Population:
    """Every player of a run, as parallel read-only arrays of shape (n_players,).

    Players ``0 .. config.n_players - 1`` are the initial pool; the newcomers
    follow in order of arrival. Build with :func:`make_population`; move with
    :func:`advance`, which returns a new population.

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
        :class:`PlayerKind` codes (int8): initial pool or newcomer.
    strength_day : ndarray of shape (n_players,), optional
        The day each player's ``true_strength`` refers to, at most ``day``
        (players are advanced on their own when only some are needed, see
        :func:`advance`); ``day`` for everyone by default.
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

    def __post_init__(self) -> None:
        n = np.shape(self.true_strength)[0] if np.ndim(self.true_strength) else -1
        if self.strength_day is _EVERYONE:
            object.__setattr__(self, "strength_day", np.full(max(n, 0), self.day))
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


def _lognormal_mean_one(sd: float, n: int, rng: np.random.Generator) -> FloatArray:
    """``n`` lognormal multipliers with mean 1 and log-SD ``sd``."""
    return np.exp(sd * rng.standard_normal(n) - 0.5 * sd * sd)


@functools.cache
def _age_curve(
    ages: tuple[float, ...], rates: tuple[float, ...]
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The age curve as the tables of :func:`_curve_integral`, once per curve.

    Returns the knots, the rates at them, and per segment (the part of the
    curve from a knot to the next) the integral at its knot (trapezoids) and
    half its slope (zero beyond the last knot), all read-only.
    """
    x: FloatArray = np.asarray(ages, dtype=np.float64)
    y: FloatArray = np.asarray(rates, dtype=np.float64)
    at_knot = np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(x))])
    half_slope = np.zeros_like(x)
    half_slope[:-1] = 0.5 * (np.diff(y) / np.diff(x))
    tables = (x, y, at_knot, half_slope)
    for table in tables:
        table.flags.writeable = False
    return tables


@jit
def _curve_integral(
    age_years: float,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
) -> float:
    """Integral of the age curve (tables of :func:`_age_curve`) up to one age."""
    # Below the first knot the rate is constant at its first value.
    if age_years < x[0]:
        return float(y[0] * (age_years - x[0]))
    # The segment of the age: the knots at or below it, less one (none for NaN).
    seg = 0
    for k in range(1, x.shape[0]):
        if age_years >= x[k]:
            seg += 1
    # A quadratic in the time t since the segment's knot.
    t = age_years - x[seg]
    return float(at_knot[seg] + y[seg] * t + half_slope[seg] * t * t)


@jit
def _curve_integrals(
    age_years: FloatArray,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
) -> FloatArray:
    """:func:`_curve_integral` of each age."""
    out = np.empty(age_years.shape[0])
    for i in range(age_years.shape[0]):
        out[i] = _curve_integral(age_years[i], x, y, at_knot, half_slope)
    return out


def _growth_integral(
    age_years: FloatArray, ages: tuple[float, ...], rates: tuple[float, ...]
) -> FloatArray:
    """Integral of the piecewise-linear age curve from ``ages[0]`` to ``age_years``.

    The curve is linear between knots and constant beyond them, so the integral
    is exact and additive: the change over [a, b] is ``I(b) - I(a)``.
    """
    a = np.asarray(age_years, dtype=np.float64)
    return _curve_integrals(a, *_age_curve(ages, rates))


def _activity(
    config: PopulationConfig, strength: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """Expected rated games per month: the curve at ``strength`` times a lognormal."""
    per_year = np.interp(
        strength, config.activity_strengths, config.games_per_year
    ) * _lognormal_mean_one(config.activity_sd, strength.shape[0], rng)
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
    )


def advance(
    population: Population,
    day: float,
    rng: np.random.Generator,
    *,
    players: ArrayLike | None = None,
) -> Population:
    """Move true strengths to ``day``, everyone's or some players' only.

    Each player changes only over the part of the interval since their
    ``strength_day`` that they are in the pool (after arrival, before
    departure): by their growth factor times the age curve integrated over
    their age, plus a normal change with variance ``drift_sd^2`` times the
    years in the pool. Both parts add up over consecutive steps, so the step
    size does not change the distribution, and a player moved only on the
    days their strength is read has the same strengths, in distribution, as
    one moved every day.

    Parameters
    ----------
    population : Population
        The players, not modified.
    day : float
        The new day (days since 1970-01-01), not before ``population.day``.
    rng : numpy.random.Generator
        The run's generator. Moving everyone draws one standard normal per
        player (in the pool or not, so the stream does not depend on who
        is); moving ``players`` draws one per player among them who is in
        the pool for part of the step (none for a player already on ``day``).
    players : array of int, optional
        Distinct indices of the players to move; everyone by default.

    Returns
    -------
    Population
        A new population on ``day``; only ``true_strength``, ``strength_day``
        and ``day`` differ.

    See Also
    --------
    Strengths : The same moves in place, a few players at a time.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> pop = make_population(PopulationConfig(n_players=100), rng,
    ...                       start_day=0, n_days=30)
    >>> later = advance(pop, 30, rng)
    >>> later.day, bool(np.all(later.true_strength != pop.true_strength))
    (30.0, True)
    >>> some = advance(pop, 30, rng, players=[0, 1])
    >>> bool(np.all(some.true_strength[2:] == pop.true_strength[2:]))
    True
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            "advance needs a numpy.random.Generator as 'rng'. "
            f"Got {type(rng).__name__} instead."
        )
    t1 = float(day)
    if not t1 >= population.day:
        raise ValueError(
            f"advance cannot go back in time: population is on day "
            f"{population.day:g}, asked for day {day!r}."
        )
    chosen = None if players is None else _player_indices(players, population.n_players)
    strengths = Strengths(population)
    strengths.advance(t1, rng, players=chosen)
    return strengths.population()


#: The columns of a row of :class:`Strengths`.
_STRENGTH, _SINCE, _ARRIVAL, _DEPARTURE, _BIRTH, _GROWTH = range(6)


class Strengths:
    """The players' true strengths, moved in place a few players at a time.

    :func:`advance` copies a whole population for every move. A caller who
    reads some players' strengths at a time (the engine: each round's
    players) moves them here instead, at a cost that grows with the players
    moved, not with the population; the draws and the strengths are those of
    :func:`advance`. Each player's row holds what moving them reads (strength,
    its day, arrival, departure, birth day, growth), so that a player costs
    one or two cache lines rather than one per array.

    Parameters
    ----------
    population : Population
        The players; not modified.

    Attributes
    ----------
    day : float
        The latest day anyone was moved to (the population's to begin with).
    """

    def __init__(self, population: Population) -> None:
        self._population = population
        self.day = population.day
        self._rows = np.column_stack(
            [
                population.true_strength,
                population.strength_day,
                population.arrival_day,
                # Probes keep their known strength: as if they had left.
                np.where(
                    population.kind == PlayerKind.PROBE,
                    -np.inf,
                    population.departure_day,
                ),
                population.birth_day,
                population.growth,
            ]
        )

    def advance(
        self,
        day: float,
        rng: np.random.Generator,
        *,
        players: NDArray[np.intp] | None = None,
    ) -> None:
        """Move everyone, or ``players`` only, to ``day`` (as :func:`advance`).

        Parameters
        ----------
        day : float
            The new day, not before the last one (not checked).
        rng : numpy.random.Generator
            The run's generator, drawn from as by :func:`advance`.
        players : ndarray of intp, optional
            Distinct valid indices of the players to move (not checked);
            everyone by default.
        """
        t1 = float(day)
        config = self._population.config
        curve = _age_curve(config.growth_ages, config.growth_rates)
        if players is None:
            # A normal for everyone, drawn first: one pass does the rest.
            z = rng.standard_normal(len(self._rows))
            _move_everyone(z, t1, config.drift_sd, self._rows, *curve)
        else:
            # The normals of the players who move, known once the trends are.
            moving, trended, walk_sd = _trend_players(
                players, t1, config.drift_sd, self._rows, *curve
            )
            z = rng.standard_normal(len(moving))
            _walk(moving, trended, walk_sd, z, self._rows)
        self.day = max(self.day, t1)

    def read(self, players: NDArray[np.intp]) -> FloatArray:
        """The true strengths of ``players`` as last moved."""
        strength: FloatArray = self._rows[players, _STRENGTH]
        return strength

    def population(self) -> Population:
        """The players with these strengths, on the latest day moved to."""
        return dataclasses.replace(
            self._population,
            day=self.day,
            true_strength=self._rows[:, _STRENGTH],
            strength_day=self._rows[:, _SINCE],
        )


@jit
def _trend(
    row: FloatArray,
    t1: float,
    drift_sd: float,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
) -> tuple[float, float]:
    """A player's strength moved along the age curve to ``t1``, and walk SD.

    ``row`` is the player's row of :class:`Strengths`.
    """
    # The part of the step in the pool.
    lo = max(row[_SINCE], row[_ARRIVAL])
    hi = max(min(t1, row[_DEPARTURE]), lo)
    years = (hi - lo) / DAYS_PER_YEAR
    age_lo = (lo - row[_BIRTH]) / DAYS_PER_YEAR
    age_hi = (hi - row[_BIRTH]) / DAYS_PER_YEAR
    trend = row[_GROWTH] * (
        _curve_integral(age_hi, x, y, at_knot, half_slope)
        - _curve_integral(age_lo, x, y, at_knot, half_slope)
    )
    return float(row[_STRENGTH] + trend), float(drift_sd * np.sqrt(years))


# Only players in the pool for part of their step move: those who arrive
# before t1 and leave after their strength day (probes "left" at -inf). For
# the others both the trend and the walk are exactly zero (the age curve's
# integral over an empty interval, sqrt(0) times the normal) and adding them
# changes nothing; they are skipped.


@jit
def _move_everyone(
    z: FloatArray,
    t1: float,
    drift_sd: float,
    rows: FloatArray,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
) -> None:
    """Move every row to ``t1`` in place, row ``i`` with the normal ``z[i]``."""
    for i in range(rows.shape[0]):
        row = rows[i]
        if row[_ARRIVAL] < t1 and row[_DEPARTURE] > row[_SINCE]:
            trended, walk_sd = _trend(row, t1, drift_sd, x, y, at_knot, half_slope)
            row[_STRENGTH] = trended + walk_sd * z[i]
        row[_SINCE] = t1


@jit
def _trend_players(
    players: NDArray[np.intp],
    t1: float,
    drift_sd: float,
    rows: FloatArray,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
    """The move of ``players`` to ``t1`` but the walk: who moves, trended, walk SD.

    Players already on ``t1`` have nothing to move (nor a normal to draw):
    reading a strength twice on a day does not change the stream. Sets the
    strength day of ``players`` to ``t1``.
    """
    n = players.shape[0]
    moving = np.empty(n, dtype=np.intp)
    trended = np.empty(n)
    walk_sd = np.empty(n)
    m = 0
    for i in players:
        row = rows[i]
        if row[_ARRIVAL] < t1 and row[_DEPARTURE] > row[_SINCE] and row[_SINCE] < t1:
            moving[m] = i
            trended[m], walk_sd[m] = _trend(
                row, t1, drift_sd, x, y, at_knot, half_slope
            )
            m += 1
        row[_SINCE] = t1
    return moving[:m], trended[:m], walk_sd[:m]


@jit
def _walk(
    moving: NDArray[np.intp],
    trended: FloatArray,
    walk_sd: FloatArray,
    z: FloatArray,
    rows: FloatArray,
) -> None:
    """Add each mover's walk, ``walk_sd`` times a standard normal ``z``."""
    for j in range(moving.shape[0]):
        rows[moving[j], _STRENGTH] = trended[j] + walk_sd[j] * z[j]


def _player_indices(players: ArrayLike, n_players: int) -> NDArray[np.intp]:
    """``players`` as distinct valid indices, or a ValueError naming them."""
    idx = np.asarray(players)
    if idx.ndim != 1 or not (idx.size == 0 or np.issubdtype(idx.dtype, np.integer)):
        raise ValueError(
            "advance: players must be a 1-D array of player indices. "
            f"Got shape {idx.shape} and dtype {idx.dtype}."
        )
    outside = (idx < 0) | (idx >= n_players)
    if np.any(outside):
        raise ValueError(
            f"advance: player index {int(idx[outside][0])} is outside "
            f"0..{n_players - 1}."
        )
    idx = idx.astype(np.intp)
    seen = np.zeros(n_players, dtype=bool)
    seen[idx] = True
    if np.count_nonzero(seen) != idx.size:
        raise ValueError("advance: players must be distinct (a player moves once).")
    return idx


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
