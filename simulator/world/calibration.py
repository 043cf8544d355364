"""The simulated pool beside published figures: :func:`calibrate`.

``ratingsim world CONFIG`` draws a config's population over its years, in a
few replicates, and compares it with what docs/world.md reports of FIDE's
standard pool: rating percentiles and bands of the active list, the share of
juniors and of newcomers, games per active player a year by level, the draw
rate and White's score by level, the yearly change by age and the list's size
over time. Each row gives the simulated mean with a 95 % interval over
replicates, the published figure, the deviation and whether it lies within
the row's stated tolerance.

What is measured, and how it stands for the published figure:

- a player is *active* in a year if they play at least one game in it: the
  games are a Poisson count at their activity over their time in the pool
  that year (what the engine's schedule draws entries from);
- the "list" is the active players' true strengths at the year's end: the
  ratings a converged list would show;
- the yearly change by age is the median change of true strength over a
  year of the players in the pool all year, by age at its start (published:
  the median change of ratings);
- draws and White's score are games between players of equal strength at
  each level, sampled from the arena's outcome model (published: games at
  equal ratings).

Every row is read from the drawn population and the outcome model, not from
the games an engine run plays: the events the engine forms give games in
clumps of an event's rounds, so fewer players play in a year than the
Poisson count here says (in the default world of 2,000 players, about 1,720
in the first year against about 2,440 here, with 15.5 games each), and
national events of small federations lose rounds. Measuring the rows from
an engine run's games is an open item (issue 17).

Sources: docs/world.md, "FIDE standard (OTB classical)", "Change with age",
"Draws and White's edge".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from simulator._calendar import DAYS_PER_YEAR
from simulator.world.outcomes import OutcomeModel
from simulator.world.population import JUNIOR_AGE, PlayerKind, age, make_population
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import advance

__all__ = ["COLUMNS", "PUBLISHED", "Published", "calibrate"]

FloatArray = NDArray[np.float64]

_FIDE = "docs/world.md, FIDE standard (OTB classical)"
_AGE = "docs/world.md, Change with age"
_DRAWS = "docs/world.md, Draws and White's edge"

#: Bands of the published shares and games a year (rating points).
BANDS = (
    ("<1600", -np.inf, 1600.0),
    ("1600-1999", 1600.0, 2000.0),
    ("2000-2199", 2000.0, 2200.0),
    ("2200-2399", 2200.0, 2400.0),
    ("2400-2599", 2400.0, 2600.0),
    ("2600+", 2600.0, np.inf),
)
#: Age bands of the published yearly change (years; upper bound excluded).
AGE_BANDS = (
    ("<=18", 0.0, 19.0),
    ("19-24", 19.0, 25.0),
    ("25-45", 25.0, 46.0),
    ("46-64", 46.0, 65.0),
    ("65+", 65.0, 200.0),
)
#: Levels (true strength, points) of the draw and White's score rows.
LEVELS = (
    ("<1600", 1500.0),
    ("1800-1999", 1900.0),
    ("2200-2399", 2300.0),
    ("2400-2599", 2500.0),
    ("2600+", 2700.0),
)


@dataclass(frozen=True)
class Published:
    """One published figure and the tolerance a simulated pool is held to.

    Attributes
    ----------
    quantity, group : str
        What and for whom (e.g. ``"games a year"``, ``"2000-2199"``).
    value : float
        The published figure.
    tolerance : float
        Largest accepted absolute deviation, in the figure's unit.
    unit : str
        ``"points"``, ``"%"``, ``"games"`` or ``"points/year"``.
    source : str
        The section of docs/world.md that gives it.
    """

    quantity: str
    group: str
    value: float
    tolerance: float
    unit: str
    source: str


def _rows() -> tuple[Published, ...]:
    shares = (33.0, 55.0, 9.0, 3.0, 0.7, 0.07)
    share_tol = (5.0, 6.0, 3.0, 1.5, 0.5, 0.12)
    games = (15.5, 17.3, 22.5, 31.1, 49.2, 59.0)
    draws = (23.0, 34.0, 45.0, 58.0, 62.0)
    change = (27.5, 7.0, -3.0, -9.0, -14.0)
    out = [
        Published("median of the list", "active", 1703.0, 60.0, "points", _FIDE),
        Published("SD of the list", "active 25-45", 235.0, 60.0, "points", _FIDE),
    ]
    out += [
        Published("share of the list", band, s, t, "%", _FIDE)
        for (band, _, _), s, t in zip(BANDS, shares, share_tol, strict=True)
    ]
    out += [
        Published("juniors (<=18)", "active", 37.0, 5.0, "%", _FIDE),
        Published("juniors (<=18)", "<1600", 64.0, 10.0, "%", _FIDE),
        Published("juniors (<=18)", "2400-2599", 10.0, 8.0, "%", _FIDE),
        Published("newcomers a year", "share of active", 22.0, 4.0, "%", _FIDE),
        Published("games a year", "active", 17.3, 3.5, "games", _FIDE),
    ]
    out += [
        Published("games a year", band, g, 0.25 * g, "games", _FIDE)
        for (band, _, _), g in zip(BANDS, games, strict=True)
    ]
    out += [
        Published("draw rate at equal strength", band, d, 5.0, "%", _DRAWS)
        for (band, _), d in zip(LEVELS, draws, strict=True)
    ]
    out += [
        Published("White's score at equal strength", band, 54.0, 1.5, "%", _DRAWS)
        for band, _ in LEVELS
    ]
    out += [
        Published("yearly change (median)", band, c, 12.0, "points/year", _AGE)
        for (band, _, _), c in zip(AGE_BANDS, change, strict=True)
    ]
    # 177k (Feb 2024) -> 218k (Oct 2026): 32 months.
    growth = 100.0 * ((218.0 / 177.0) ** (12.0 / 32.0) - 1.0)
    out.append(Published("list growth a year", "active", growth, 4.0, "%", _FIDE))
    return tuple(out)


#: The published figures and tolerances, one per calibration row.
PUBLISHED: tuple[Published, ...] = _rows()

#: Columns of :func:`calibrate`'s table.
COLUMNS = (
    "quantity",
    "group",
    "simulated",
    "low",
    "high",
    "published",
    "deviation",
    "tolerance",
    "unit",
    "within",
    "source",
)


def _in_band(x: FloatArray, low: float, high: float) -> NDArray[np.bool_]:
    return (x >= low) & (x < high)


def _percent(part: NDArray[np.bool_], whole: NDArray[np.bool_]) -> float:
    n = np.count_nonzero(whole)
    return 100.0 * np.count_nonzero(part & whole) / n if n else np.nan


def _replicate(
    config: PopulationConfig,
    outcomes: OutcomeModel,
    rng: np.random.Generator,
    start: float,
    years: int,
    n_games: int,
) -> dict[tuple[str, str], float]:
    """One replicate's figures (and the list size each year)."""
    pop = make_population(config, rng, start_day=start, n_days=years * DAYS_PER_YEAR)
    out: dict[tuple[str, str], float] = {}
    sizes, newcomer_shares, games_by = [], [], []
    for y in range(years):
        day0, day1 = start + y * DAYS_PER_YEAR, start + (y + 1) * DAYS_PER_YEAR
        before = pop.true_strength.copy()
        pop = advance(pop, day1, rng)
        in_pool = (
            np.clip(
                np.minimum(pop.departure_day, day1) - np.maximum(pop.arrival_day, day0),
                0.0,
                None,
            )
            / DAYS_PER_YEAR
        )
        games = rng.poisson(pop.activity * 12.0 * in_pool)
        played = games > 0
        sizes.append(np.count_nonzero(played))
        new = played & (pop.arrival_day >= day0) & (pop.kind == PlayerKind.NEWCOMER)
        newcomer_shares.append(_percent(new, played))
        games_by.append((games, played, pop.true_strength.copy()))
        if y == years - 1:
            strength, ages = pop.true_strength, age(pop, day1)
            whole_year = (pop.arrival_day <= day0) & (pop.departure_day > day1)
            whole_year &= pop.kind != PlayerKind.PROBE
            change = pop.true_strength - before
            ages0 = age(pop, day0)
    out["median of the list", "active"] = float(np.median(strength[played]))
    adults = played & (ages >= 25) & (ages < 46)
    out["SD of the list", "active 25-45"] = float(np.std(strength[adults]))
    junior = ages < JUNIOR_AGE
    for band, low, high in BANDS:
        in_band = _in_band(strength, low, high)
        out["share of the list", band] = _percent(in_band, played)
    out["juniors (<=18)", "active"] = _percent(junior, played)
    out["juniors (<=18)", "<1600"] = _percent(junior, played & (strength < 1600))
    out["juniors (<=18)", "2400-2599"] = _percent(
        junior, played & _in_band(strength, 2400, 2600)
    )
    out["newcomers a year", "share of active"] = float(np.mean(newcomer_shares))
    all_games = np.concatenate([g[p] for g, p, _ in games_by])
    out["games a year", "active"] = float(np.mean(all_games))
    for band, low, high in BANDS:
        g = np.concatenate([g[p & _in_band(s, low, high)] for g, p, s in games_by])
        out["games a year", band] = float(np.mean(g)) if g.size else np.nan
    for band, level in LEVELS:
        score = outcomes.sample(np.full(n_games, level), np.full(n_games, level), rng)
        out["draw rate at equal strength", band] = 100.0 * float(np.mean(score == 0.5))
        out["White's score at equal strength", band] = 100.0 * float(np.mean(score))
    for band, low, high in AGE_BANDS:
        c = change[whole_year & _in_band(ages0, low, high)]
        out["yearly change (median)", band] = float(np.median(c)) if c.size else np.nan
    growth = [100.0 * (b / a - 1.0) for a, b in itertools.pairwise(sizes) if a]
    out["list growth a year", "active"] = float(np.mean(growth)) if growth else np.nan
    for y, n in enumerate(sizes):
        out["list size", f"year {y + 1}"] = float(n)
    return out


def calibrate(
    config: PopulationConfig,
    outcomes: OutcomeModel,
    rng: np.random.Generator,
    *,
    start_day: float,
    years: int = 5,
    replicates: int = 3,
    n_games: int = 20_000,
) -> pd.DataFrame:
    """The calibration table of a world: simulated beside published, per row.

    Parameters
    ----------
    config : PopulationConfig
        The world's players.
    outcomes : OutcomeModel
        The arena's outcome model (draws and White's score).
    rng : numpy.random.Generator
        The root generator; each replicate gets a spawned stream.
    start_day : float
        First day (days since 1970-01-01).
    years : int, default 5
        Years simulated; the list is read at the end of the last, games and
        newcomers every year, the growth between consecutive years.
    replicates : int, default 3
        Independent replicates; the interval is the mean's 95 % t-interval
        over them (NaN with one).
    n_games : int, default 20000
        Games sampled per level for the draw and White's score rows.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`, one row per published figure, then one row per year
        of the list's size (no published figure: growth is the row checked).
    """
    if not isinstance(years, int) or not 2 <= years <= 100:
        raise ValueError(
            f"calibrate: 'years' must be an int in [2, 100]. Got {years!r}."
        )
    if not isinstance(replicates, int) or not 1 <= replicates <= 1000:
        raise ValueError(
            f"calibrate: 'replicates' must be an int in [1, 1000]. Got {replicates!r}."
        )
    runs = [
        _replicate(config, outcomes, r, float(start_day), years, n_games)
        for r in rng.spawn(replicates)
    ]
    rows = []
    t = {1: np.nan, 2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36}
    extra = [
        Published("list size", f"year {y + 1}", np.nan, np.nan, "players", _FIDE)
        for y in range(years)
    ]
    for row in (*PUBLISHED, *extra):
        values = np.array([r[row.quantity, row.group] for r in runs], dtype=float)
        mean = float(np.nanmean(values)) if np.any(~np.isnan(values)) else np.nan
        n = int(np.count_nonzero(~np.isnan(values)))
        half = (
            t.get(n, 1.96) * float(np.nanstd(values, ddof=1)) / np.sqrt(n)
            if n > 1
            else np.nan
        )
        deviation = mean - row.value
        rows.append(
            {
                "quantity": row.quantity,
                "group": row.group,
                "simulated": mean,
                "low": mean - half,
                "high": mean + half,
                "published": row.value,
                "deviation": deviation,
                "tolerance": row.tolerance,
                "unit": row.unit,
                "within": (
                    ""
                    if np.isnan(row.value)
                    else ("yes" if abs(deviation) <= row.tolerance else "NO")
                ),
                "source": row.source,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))
