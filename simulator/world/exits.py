"""When players leave the pool: :class:`ExitsConfig` and :func:`departure_days`.

The simple world (``experiments/world-simple.toml``) has every player leave
at a constant hazard (``departure_rate``). With ``model = "hazard"``, the
default, a player's hazard depends on
their games so far (new players leave more often), their age and how idle
they are (a player who goes a year without a game mostly leaves).

A player's departure is drawn when the player is, from what is known then:
"games so far" is the expected count (their activity times the time in the
pool), and "idle" the chance of a year without a game at their activity,
``exp(-games a year)``. The games the engine then plays follow the same
activity, so the two agree on average.

Sources: docs/world.md, "FIDE standard (OTB classical)" (newcomers about 22 %
of the pool a year while it grew from 177k to 218k in 32 months: about 14 %
of the pool leave a year) and "Lichess (online)" (most players stop early,
after about 30 games).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator._calendar import DAYS_PER_MONTH, DAYS_PER_YEAR
from simulator._jit import jit
from simulator._validate import check_interval
from simulator.world import _keys

__all__ = ["EXIT_MODELS", "ExitsConfig", "departure_days"]

_OWNER = "ExitsConfig"
FloatArray = NDArray[np.float64]

#: ``model`` choices.
EXIT_MODELS = ("constant", "hazard")


@dataclass(frozen=True)
class ExitsConfig:
    """The hazard of leaving the pool.

    Parameters
    ----------
    model : {"constant", "hazard"}, default "hazard"
        ``"constant"``: the pool's ``departure_rate`` for everyone.
        ``"hazard"``: the yearly hazard ``base_rate * age factor * new-player
        factor + idle_rate * exp(-games a year)``, month by month.
    base_rate : float, default 0.13
        Yearly hazard (per year) of an established adult who plays regularly.
        Source: docs/world.md, "FIDE standard (OTB classical)": about 14 % of
        the pool leave a year overall, most of them new or idle players; fitted
        so that the list grows about 8 % a year (the published 177k -> 218k in
        32 months) with newcomers at 22 % (the calibration row "list growth a
        year").
        Unit: per year.
    new_player_games : float, default 30.0
        Games (expected so far) below which a player counts as new. Source:
        docs/world.md, "Lichess (online)": most players stop after about 30
        games.
        Unit: games.
    new_player_factor : float, default 2.5
        Multiplier (dimensionless) of ``base_rate`` while a player is new.
        Our fit, docs/world.md, "FIDE standard (OTB classical)" (newcomers'
        share against the pool's growth).
        Unit: dimensionless.
    age_knots : tuple of float, default (16, 18, 22, 60, 80)
        Ages (years) of the knots of the age factor.
        Unit: years.
    age_factors : tuple of float, default (1, 1.6, 1, 1, 2.5)
        Multiplier (dimensionless) of ``base_rate`` at each age knot,
        interpolated and constant beyond the ends; empty: 1 at every age.
        Our assumption (docs/world.md has no figure): juniors leave more at
        the end of school, veterans more with age.
        Unit: dimensionless.
    idle_rate : float, default 1.0
        Yearly hazard (per year) of a player who goes a year without a game,
        weighted by that chance, ``exp(-games a year)``. Source:
        docs/world.md, "FIDE standard (OTB classical)": only 21-23 % of the
        12-month actives play in a given month; long-idle players drop off
        the list.
        Unit: per year.
    """

    model: str = "hazard"
    base_rate: float = 0.13
    new_player_games: float = 30.0
    new_player_factor: float = 2.5
    age_knots: tuple[float, ...] = (16.0, 18.0, 22.0, 60.0, 80.0)
    age_factors: tuple[float, ...] = (1.0, 1.6, 1.0, 1.0, 2.5)
    idle_rate: float = 1.0

    def __post_init__(self) -> None:
        _keys.choice(_OWNER, "model", self.model, EXIT_MODELS)
        check_interval(_OWNER, "base_rate", self.base_rate, 0, 10)
        check_interval(_OWNER, "new_player_games", self.new_player_games, 0, 10_000)
        check_interval(_OWNER, "new_player_factor", self.new_player_factor, 0, 100)
        check_interval(_OWNER, "idle_rate", self.idle_rate, 0, 100)
        xs, ys = _keys.knots(
            _OWNER, "age_knots", self.age_knots, "age_factors", self.age_factors
        )
        _keys.each(_OWNER, "age_knots", xs, 0, 150)
        _keys.each(_OWNER, "age_factors", ys, 0, 100)
        object.__setattr__(self, "age_knots", xs)
        object.__setattr__(self, "age_factors", ys)

    @property
    def off(self) -> bool:
        """True under ``model = "constant"``: the pool's ``departure_rate`` for all."""
        return self.model == "constant"


def yearly_hazard(
    config: ExitsConfig,
    age_years: FloatArray,
    games_so_far: FloatArray | float,
    games_per_year: FloatArray,
) -> FloatArray:
    """The yearly hazard of leaving, per player (``model = "hazard"``)."""
    rate = np.full(age_years.shape, config.base_rate)
    if config.age_knots:
        rate = rate * np.interp(age_years, config.age_knots, config.age_factors)
    rate = np.where(
        games_so_far < config.new_player_games, rate * config.new_player_factor, rate
    )
    out: FloatArray = rate + config.idle_rate * np.exp(-games_per_year)
    return out


def departure_days(
    config: ExitsConfig,
    arrival_day: FloatArray,
    entry_age: FloatArray,
    activity: FloatArray,
    end_day: float,
    rng: np.random.Generator,
    *,
    established: bool = False,
) -> FloatArray:
    """Departure days under the hazard model, month by month; ``inf`` past ``end_day``.

    Parameters
    ----------
    config : ExitsConfig
        The hazard (``model = "hazard"``).
    arrival_day, entry_age, activity : ndarray of shape (n,)
        First day in the pool, age then (years), expected games a month.
    end_day : float
        The horizon's end.
    rng : numpy.random.Generator
        One uniform per player still in the pool each month.
    established : bool, default False
        The players are established (the initial pool, seeded with games
        already played): never new.

    Returns
    -------
    ndarray of shape (n,)
        The first day out of the pool, within the month the player leaves
        (uniform in it), or ``inf``.
    """
    n = arrival_day.shape[0]
    out = np.full(n, np.inf)
    games_per_year = activity * 12.0
    staying = np.flatnonzero(arrival_day < end_day)
    k = 0
    while staying.size:
        # The chances of leaving in each of the next months, as one array
        # (a month at a time, the array calls cost more than the arithmetic).
        # The same operations on the same numbers as a month at a time, so
        # the same bits; months after a player leaves are not read.
        years_in = np.arange(k, k + _MONTHS_AT_ONCE) * DAYS_PER_MONTH / DAYS_PER_YEAR
        hazard = yearly_hazard(
            config,
            entry_age[staying] + years_in[:, np.newaxis],
            np.inf
            if established
            else games_per_year[staying] * years_in[:, np.newaxis],
            games_per_year[staying],
        )
        p = -np.expm1(-hazard * DAYS_PER_MONTH / DAYS_PER_YEAR)
        staying = _leave(
            staying, arrival_day, p, k, DAYS_PER_MONTH, float(end_day), rng, out
        )
        k += _MONTHS_AT_ONCE
    return out


#: Months of :func:`departure_days`'s chances computed at once.
_MONTHS_AT_ONCE = 24


@jit
def _leave(
    staying: NDArray[np.intp],
    arrival_day: FloatArray,
    p: FloatArray,
    k0: int,
    month_days: float,
    end_day: float,
    rng: np.random.Generator,
    out: FloatArray,
) -> NDArray[np.intp]:
    """Months ``k0 ..`` of :func:`departure_days` for ``staying``; who stays.

    ``p[k, j]``: the chance that ``staying[j]`` leaves in month ``k0 + k``.
    Month by month, the players whose month begins before ``end_day`` draw
    one uniform each, in order (``rng.random(m)``'s numbers, drawn one by
    one: numba compiles the generator's ``random`` as numpy runs it); one
    below their chance leaves within the month. Compiled: the draws of a
    month depend on who left in the months before, and a month at a time in
    numpy, a dozen array calls for a few hundred players, cost most of the
    population's drawing. A cohort of 700 newcomers over 40 years: 1.28 ms
    against 12.1 ms (20 calls each, one process); ``benchmarks/run.py``'s
    40-year world drew its population (480 monthly cohorts, 342,411 players)
    in 0.8 s against 3.6 s.
    """
    column = np.arange(staying.shape[0])  # each one staying's column of p
    m = staying.shape[0]
    for k in range(p.shape[0]):
        start = (k0 + k) * month_days
        kept = 0
        for j in range(m):
            c = column[j]
            t = arrival_day[staying[c]] + start
            if not t < end_day:
                continue
            u = rng.random()
            if u < p[k, c]:
                # Within the month: u / p is uniform on [0, 1) given u < p.
                day = t + month_days * u / p[k, c]
                out[staying[c]] = day if day < end_day else np.inf
            else:
                column[kept] = c
                kept += 1
        m = kept
    who = np.empty(m, dtype=np.intp)
    for j in range(m):
        who[j] = staying[column[j]]
    return who
