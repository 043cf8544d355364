"""True strengths over time: the age curve, the random walk, :class:`Strengths`.

True strength moves along an age curve (juniors improve fast, more slowly
as they grow up, adults hold, veterans decline), scaled per player by a
lognormal growth factor, plus a Brownian random walk. Both parts scale exactly
with the elapsed time: the curve is integrated over the player's age and the
walk's variance grows linearly with time, so advancing 60 days in one step or
in 60 steps of one day gives the same distribution of changes.

:func:`advance` returns a population moved to a later day; :class:`Strengths`
moves some players in place, at a cost that grows with the players moved. The
moves are compiled loops (:mod:`simulator._jit`), kept in this module with the
constants they read.

Days are numbers of days since 1970-01-01 (``simulator.systems._common.day_of``);
a year is :data:`DAYS_PER_YEAR` days.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._calendar import DAYS_PER_YEAR
from simulator._jit import jit
from simulator._types import read_only_view

if TYPE_CHECKING:
    from simulator.world.population import Population

__all__ = ["DAYS_PER_YEAR", "Strengths", "advance"]

FloatArray = NDArray[np.float64]


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


@functools.cache
def _extra_tables(
    noise_ages: tuple[float, ...],
    noise_sds: tuple[float, ...],
    level_strengths: tuple[float, ...],
    level_rates: tuple[float, ...],
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The tables of :class:`~simulator.world.development.DevelopmentConfig`.

    The walk's variance rate by age as the tables of :func:`_age_curve` (empty
    without ``noise_ages``) and the drift by level's knots and rates (empty
    without ``level_strengths``), all float64 and read-only.
    """
    if noise_ages:
        noise = _age_curve(noise_ages, tuple(s * s for s in noise_sds))
    else:
        noise = tuple(np.zeros(0) for _ in range(4))  # type: ignore[assignment]
    level = (
        np.asarray(level_strengths, dtype=np.float64),
        np.asarray(level_rates, dtype=np.float64),
    )
    for table in (*noise, *level):
        table.flags.writeable = False
    return (*noise, *level)


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
    >>> from simulator.world.population import make_population
    >>> from simulator.world.population_config import PopulationConfig
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


#: The columns of a row of :class:`Strengths`: the day of the strength, the
#: fixed fields a move reads, and the age curve's and the walk's variance's
#: integrals at the age of a day (NaN: none yet), which the next move starts
#: from (a step's integral at its end is the next step's at its start).
_SINCE, _ARRIVAL, _DEPARTURE, _BIRTH, _GROWTH = range(5)
_KNOWN_DAY, _CURVE_AT, _NOISE_AT = range(5, 8)


class Strengths:
    """The players' true strengths, moved in place a few players at a time.

    :func:`advance` copies a whole population for every move. A caller who
    reads some players' strengths at a time (the engine: each round's
    players) moves them here instead, at a cost that grows with the players
    moved, not with the population; the draws and the strengths are those of
    :func:`advance`. Each player's row holds what moving them reads besides
    the strength (its day, arrival, departure, birth day, growth, the
    integrals the next step starts from), so that a player costs one or two
    cache lines rather than one per array; the strengths are one array of
    their own, which a checkpoint reads whole.

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
                population.strength_day,
                population.arrival_day,
                # Probes keep their known strength: as if they had left.
                np.where(population.probe, -np.inf, population.departure_day),
                population.birth_day,
                population.growth,
                np.full(population.n_players, np.nan),
                np.zeros(population.n_players),
                np.zeros(population.n_players),
            ]
        )
        # The strengths in an array of their own: read whole at every
        # checkpoint, and by the rows' index when a player moves.
        self._strength = population.true_strength.copy()
        # Moving everyone moves only the players in the pool (the others'
        # moves are exactly zero): those who have arrived, taken in order of
        # arrival, less those who have left, dropped as they leave. So a
        # move of everyone costs the pool, not every player drawn for the
        # run, most of whom, in a long run, have left or are yet to come.
        self._by_arrival = np.argsort(population.arrival_day, kind="stable")
        self._arrival_sorted = population.arrival_day[self._by_arrival]
        for order in (self._by_arrival, self._arrival_sorted):
            order.flags.writeable = False
        self._n_admitted = 0
        self._live = np.empty(0, dtype=np.intp)
        # The last day everyone was moved to: the strength day of the
        # players a move of everyone skipped.
        self._everyone_day = -np.inf
        self._z: FloatArray | None = None

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
        dev = config.development
        extra = _extra_tables(
            dev.noise_ages, dev.noise_sds, dev.level_strengths, dev.level_rates
        )
        if players is None:
            # A normal for everyone, drawn first (the stream does not depend
            # on who is in the pool): one pass over the pool does the rest.
            # (Into one buffer: a new array of every player's normal would
            # cost a page fault per 512 of them, at every checkpoint.)
            if self._z is None:
                self._z = np.empty(len(self._rows))
            z = self._z
            _fill_standard_normal(rng, z)
            arrived = int(np.searchsorted(self._arrival_sorted, t1, side="left"))
            if arrived > self._n_admitted:
                admitted = self._by_arrival[self._n_admitted : arrived]
                self._live = np.concatenate([self._live, admitted])
                self._n_admitted = arrived
            self._live = _move_live(
                self._live,
                z,
                t1,
                config.drift_sd,
                self._rows,
                self._strength,
                *curve,
                extra,
            )
            self._everyone_day = max(self._everyone_day, t1)
        else:
            # The normals of the players who move, known once the trends are.
            moving, trended, walk_sd = _trend_players(
                players, t1, config.drift_sd, self._rows, self._strength, *curve, extra
            )
            z = rng.standard_normal(len(moving))
            _walk(moving, trended, walk_sd, z, self._strength)
        self.day = max(self.day, t1)

    @property
    def by_arrival(self) -> tuple[NDArray[np.intp], FloatArray]:
        """The players in order of arrival, and their arrival days so sorted.

        Ties in the order drawn; both arrays read-only.
        """
        return self._by_arrival, self._arrival_sorted

    def read(self, players: NDArray[np.intp]) -> FloatArray:
        """The true strengths of ``players`` as last moved."""
        strength: FloatArray = self._strength[players]
        return strength

    def true_strength(self) -> FloatArray:
        """Everyone's true strength as last moved: a read-only view.

        :meth:`population` without building (and checking) a population.
        Valid until the next move, which changes it in place (a copy of
        every player drawn, at every checkpoint, cost more than the reading).
        """
        return read_only_view(self._strength)

    def population(self) -> Population:
        """The players with these strengths, on the latest day moved to."""
        return dataclasses.replace(
            self._population,
            day=self.day,
            true_strength=self._strength,
            # The players a move of everyone skipped are on its day too.
            strength_day=np.maximum(self._rows[:, _SINCE], self._everyone_day),
        )


@jit
def _interp_one(value: float, xp: FloatArray, fp: FloatArray) -> float:
    """``np.interp(value, xp, fp)`` for one value and strictly increasing ``xp``.

    The same result, bit for bit, as numpy's and numba's ``np.interp`` (the
    same branches and the same arithmetic: the segment's slope, then
    ``slope * (value - xp[j]) + fp[j]``, and the other end if that is NaN),
    without the arrays numba's version allocates for a scalar: 380 ns a call
    there against a few here, and it runs for every player moved.
    """
    n = xp.shape[0]
    if n == 1:
        return float(fp[0])
    if np.isnan(value):
        return value
    if value > xp[n - 1]:
        return float(fp[n - 1])
    if value < xp[0]:
        return float(fp[0])
    # The last knot at or below the value (numpy's search, for increasing xp).
    j = 0
    while j + 1 < n and value >= xp[j + 1]:
        j += 1
    if j == n - 1 or xp[j] == value:
        return float(fp[j])
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    out = slope * (value - xp[j]) + fp[j]
    if np.isnan(out):
        out = slope * (value - xp[j + 1]) + fp[j + 1]
        if np.isnan(out) and fp[j] == fp[j + 1]:
            out = fp[j]
    return float(out)


@jit
def _trend(
    row: FloatArray,
    strength: float,
    t1: float,
    drift_sd: float,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
    extra: tuple[
        FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray
    ],
) -> tuple[float, float]:
    """A player's strength moved along the age curve to ``t1``, and walk SD.

    ``row`` is the player's row of :class:`Strengths`, ``strength`` their
    strength on the row's day; ``extra`` the tables
    of :func:`_extra_tables` (empty: the age curve and ``drift_sd`` alone).
    Notes in the row the integrals at the step's end, where the player's next
    step starts: one integral of each kind per step instead of two.
    """
    # The part of the step in the pool.
    lo = max(row[_SINCE], row[_ARRIVAL])
    hi = max(min(t1, row[_DEPARTURE]), lo)
    years = (hi - lo) / DAYS_PER_YEAR
    age_hi = (hi - row[_BIRTH]) / DAYS_PER_YEAR
    nx, ny, n_at, n_half, lx, ly = extra
    with_noise = nx.shape[0] > 0
    # The integrals at the step's start are those at the last step's end
    # (the same day, so the same age and the same value), else computed.
    if lo == row[_KNOWN_DAY]:
        curve_lo, noise_lo = row[_CURVE_AT], row[_NOISE_AT]
    else:
        age_lo = (lo - row[_BIRTH]) / DAYS_PER_YEAR
        curve_lo = _curve_integral(age_lo, x, y, at_knot, half_slope)
        noise_lo = _curve_integral(age_lo, nx, ny, n_at, n_half) if with_noise else 0.0
    curve_hi = _curve_integral(age_hi, x, y, at_knot, half_slope)
    noise_hi = _curve_integral(age_hi, nx, ny, n_at, n_half) if with_noise else 0.0
    row[_KNOWN_DAY], row[_CURVE_AT], row[_NOISE_AT] = hi, curve_hi, noise_hi
    trend = row[_GROWTH] * (curve_hi - curve_lo)
    if lx.shape[0] > 0:
        # Drift by level, at the strength the step starts from.
        trend += _interp_one(strength, lx, ly) * years
    if with_noise:
        # The walk's variance: its rate by age integrated over the step.
        var = noise_hi - noise_lo
        return float(strength + trend), float(np.sqrt(max(var, 0.0)))
    return float(strength + trend), float(drift_sd * np.sqrt(years))


# Only players in the pool for part of their step move: those who arrive
# before t1 and leave after their strength day (probes "left" at -inf). For
# the others both the trend and the walk are exactly zero (the age curve's
# integral over an empty interval, sqrt(0) times the normal) and adding them
# changes nothing; they are skipped.


@jit
def _move_live(
    live: NDArray[np.intp],
    z: FloatArray,
    t1: float,
    drift_sd: float,
    rows: FloatArray,
    strength: FloatArray,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
    extra: tuple[
        FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray
    ],
) -> NDArray[np.intp]:
    """Move the rows ``live`` (arrived before ``t1``) to ``t1``, row i with ``z[i]``.

    Returns those still in the pool on ``t1``, in order. A row that does not
    move (left before its strength day) keeps its strength day, which only
    the test below reads.
    """
    still = np.empty(live.shape[0], dtype=np.intp)
    m = 0
    for i in live:
        row = rows[i]
        if row[_DEPARTURE] > row[_SINCE]:
            trended, walk_sd = _trend(
                row, strength[i], t1, drift_sd, x, y, at_knot, half_slope, extra
            )
            strength[i] = trended + walk_sd * z[i]
            row[_SINCE] = t1
            if row[_DEPARTURE] > t1:
                still[m] = i
                m += 1
    return still[:m]


@jit
def _trend_players(
    players: NDArray[np.intp],
    t1: float,
    drift_sd: float,
    rows: FloatArray,
    strength: FloatArray,
    x: FloatArray,
    y: FloatArray,
    at_knot: FloatArray,
    half_slope: FloatArray,
    extra: tuple[
        FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray
    ],
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
                row, strength[i], t1, drift_sd, x, y, at_knot, half_slope, extra
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
    strength: FloatArray,
) -> None:
    """Add each mover's walk, ``walk_sd`` times a standard normal ``z``."""
    for j in range(moving.shape[0]):
        strength[moving[j]] = trended[j] + walk_sd[j] * z[j]


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


@jit
def _fill_standard_normal(rng: np.random.Generator, out: FloatArray) -> None:
    """Fill ``out`` with ``rng.standard_normal(out=out)``'s values, compiled.

    numba compiles a generator's ``standard_normal`` as numpy runs it (the
    same ziggurat over the same bit generator), so the values, and the
    generator's state after, are numpy's bit for bit
    (``tests/world/test_strengths.py`` checks it on every run of the tests).
    It is faster for long arrays: 344,000 normals (every player drawn for
    ``benchmarks/run.py``'s 40-year world, at each of its 2,089 checkpoints)
    took 1.56 to 1.77 ms against numpy's 4.00 to 4.16 ms (best of 30, three
    interleaved pairs, one process). A call costs a few microseconds more
    than numpy's (numba unpacks the generator), so short draws, a round's
    movers, stay with numpy.
    """
    for i in range(out.shape[0]):
        out[i] = rng.standard_normal()
