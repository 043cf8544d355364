"""The parameters of a synthetic player pool, checked: :class:`PopulationConfig`.

The defaults imitate the FIDE-rated OTB pool of docs/world.md; each parameter's
docstring names its source. Figures marked (L) there come from FIDE's lists or
the Lichess broadcast archive, not peer reviewed. :mod:`~simulator.world.population`
draws the players from them and :mod:`~simulator.world.strengths` moves their
true strengths in time.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from simulator._validate import check_interval
from simulator.world.development import DevelopmentConfig
from simulator.world.entrants import EntrantsConfig
from simulator.world.exits import ExitsConfig
from simulator.world.federations import FederationsConfig

__all__ = ["PopulationConfig"]

_OWNER = "PopulationConfig"


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

    The defaults are the realistic world (issue 17): with them the pool's
    list three years on matches docs/world.md, "FIDE standard (OTB
    classical)", "Change with age", within every tolerance of the
    calibration report (``ratingsim world``). ``experiments/world-simple.toml``
    sets the simple world, the defaults before it.

    Parameters
    ----------
    n_players : int, default 2000
        Players in the pool on the first day; the list grows about 8 % a year
        from it. 2,000 keeps the default experiment near a minute; the
        calibration is the same for any size, up to noise in the top bands
        (``ratingsim world`` draws enough replicates for 20,000 players).
        Unit: players.
    strength_weights, strength_means, strength_sds : tuple of float
        A normal mixture (weights, means and SDs in rating points) of each
        player's *peak* true strength, the strength at ``peak_age``; a single
        normal is a one-entry mixture. A player's strength on entry is this
        draw moved along their own age curve from ``peak_age`` to their age, so
        juniors sit below it by the growth still ahead of them and veterans by
        the decline behind them. Defaults ``(0.8, 0.2)``, ``(1900, 2050)``,
        ``(180, 280)``: the initial pool then has a median near 1790 and an SD
        near 263 (adults 25-45: SD near 213), with about 21 % below 1600, 19 %
        above 2000, 4.9 % above 2200, 1.1 % above 2400 and 0.23 % above 2600;
        juniors are about 54 % of the players below 1600. It starts above the
        published list because the newcomers (weaker, by ``entrants``) pull
        it down: three years on (Oct 2026 from a start in 2024) the active list
        has a median near 1700, 34 % below 1600, 0.5 % at 2400-2599 and 56 %
        juniors below 1600 (``ratingsim world``). docs/world.md, "FIDE
        standard (OTB classical)": median of active players 1703 (Oct 2026);
        SD of active adults 25-45 about 235 after March 2024, 342 before;
        bands <1600 33 %, 1600-1999 55 %, 2000-2199 9 %, 2200-2399 3 %,
        2400-2599 0.7 %, 2600+ 0.07 %; juniors 64 % of the <1600 band and
        10 % of 2400-2599. The simple world's means are ``(1860, 2030)``.
        Unit: rating points (means and SDs), relative (weights).
    peak_age : float, default 35.0
        Age (years) at which a player's strength equals their mixture draw,
        near where the age curve turns from gains to losses (about 32 with
        the default curve, 35 with the simple world's). docs/world.md: peak
        age in the mid-30s to early 40s (Elo 1965; Roring & Charness 2007;
        Strittmatter et al. 2020).
        Unit: years.
    age_edges : tuple of float, default (6, 10, 15, 19, 30, 45, 65, 85)
        Edges (years) of the age bands on the first day; ages are uniform
        within a band.
        Unit: years.
    age_weights : tuple of float, default (0.04, 0.17, 0.16, 0.18, 0.20, 0.17, 0.08)
        Share of the initial pool in each age band (normalised). The first three
        bands are the juniors: 37 % (docs/world.md: juniors, age <= 18, are 37 % of
        active players). The adult split is ours; docs/world.md has no figure.
        Unit: relative weights.
    newcomer_age_weights : tuple of float
        Share of newcomers in each age band at arrival, default
        ``(0.18, 0.25, 0.14, 0.18, 0.13, 0.09, 0.03)``: younger than the pool,
        57 % juniors, so that the pool's junior share stays near 37 % as
        juniors grow up (checked over ten simulated years). Our choice;
        docs/world.md gives newcomers' ratings by age, not their ages.
        Unit: relative weights.
    growth_ages : tuple of float, default (10, 13.5, 17.5, 22, 35, 53, 70)
        Ages (years) of the knots of the age curve; the yearly change is
        interpolated linearly between knots and constant beyond them.
        Unit: years.
    growth_rates : tuple of float, default (44, 36, 21, 8, -2, -9, -15)
        Typical change of true strength (points per year) at each knot.
        docs/world.md, "Change with age": published ratings change per year
        (median) +24 to +31 at 18 or less, +7 at 19-24, -3 at 25-45, -9 at
        46-64 and -14 at 65+; the curve is the typical junior's, fitted so
        that the pool's median yearly change by age matches those (with the
        juniors' personal rates of ``development``). The simple world's
        ``(80, 62.5, 32.5, 18, 0, -9, -17)`` followed the strong players' fit
        of the same section (+160 under 12 ... relative to adults, halved),
        and its juniors gained about +50 a year, twice the published median.
        Unit: rating points per year.
    growth_sd : float, default 0.4
        SD of the log of each player's growth factor, a lognormal multiplier
        with mean 1 on the age curve (gains and losses alike): about 3 % of
        players develop at least twice the typical pace, the strong players'
        pace of docs/world.md. Our choice.
        Unit: natural log of a factor.
    drift_sd : float, default 30.0
        SD of the random walk of true strength, in points per square root of a
        year (a player's strength a year on is the curve's change plus a normal
        change with this SD). Our assumption; docs/world.md has no figure.
        Read only without ``development.noise_ages`` (the simple world; by
        default the walk's SD is by age); a value other than 30 with them is
        a ValueError, as for ``departure_rate``, ``newcomer_offset`` and
        ``activity_sd`` below.
        Unit: rating points per square root of a year.
    activity_strengths : tuple of float, default (1400, 1800, 2100, 2300, 2500, 2700)
        Strengths (points) of the knots of the mean activity curve: the middles
        of docs/world.md's bands <1600, 1600-1999, 2000-2199, 2200-2399, 2400-2599
        and 2600+.
        Unit: rating points.
    games_per_year : tuple of float, default (15.5, 17.3, 22.5, 31.1, 49.2, 59.0)
        Mean rated games a year at each knot (docs/world.md, by band; 17.3 over all
        players in 2019), interpolated linearly and constant beyond the ends.
        With the default strengths the pool's mean is near 18.8 a year.
        Unit: games per year.
    activity_sd : float, default 0.93
        SD of the log of each player's activity multiplier, a lognormal with
        mean 1: heavy-tailed activity. docs/world.md: club adults 1600-1999 play a
        median of 10 rated games a year with p10 3 and p90 33, a log-spread of
        ``ln(33/3) / (2 * 1.2816) = 0.93``. With the defaults, club adults
        1600-1999 aged 25-60 get a median near 12 games a year. Read only
        without ``entrants.activity_sds`` (the simple world; by default the
        spread is by level).
        Unit: natural log of a factor.
    max_games_per_year : float, default 150.0
        Cap on a player's expected games a year (the busiest professionals).
        Unit: games per year.
    arrival_rate : float, default 0.29
        Newcomers a year as a share of the pool (``entrants.arrival``: of the
        players in the pool each month by default; of ``n_players`` on the
        first day under ``"constant"``). docs/world.md, "FIDE standard (OTB
        classical)": about 48,000 newcomers a year, about 22 % of the active
        pool. The pool also holds players idle this year, and late arrivals
        play their first game the next year: 0.29 gives about 21 % of the
        active list (the calibration row "newcomers a year"). The simple
        world's 0.22 of the first day's pool gives about 16 %.
        Unit: newcomers per year per player in the pool.
    newcomer_offset : float, default -50.0
        Points added to a newcomer's peak-strength draw, under
        ``entrants.strength = "age_curve"`` only (the simple world; by default
        newcomers' strengths are ``entrants``' by age group). Newcomers enter weaker
        than the pool mostly because they are younger: with the defaults their
        median on arrival is near 1560, and near 1060, 1370, 1590 and 1755 for
        ages under 10, 10-14, 15-18 and 19+. docs/world.md: newcomers' median first
        rating 1533-1564 (2024-2026); by age in 2025 <10 1492, 10-14 1513,
        15-19 1579, 20+ about 1650, against a pool median near 1700. Published
        first ratings are floored at 1400, so the youngest sit lower in truth.
        In the simple world the pool's median drifts down by about 45 points
        over ten years.
        Unit: rating points.
    departure_rate : float, default 0.15
        Probability that a player leaves the pool within a year (a constant
        hazard, for every player), under ``exits.model = "constant"`` only
        (the simple world; by default ``exits``' hazard by games, age and
        idleness). With ``arrival_rate`` 0.22 the pool grows
        about 7 % a year at first (docs/world.md: 177k to 218k players with a rated
        game in 12 months, Feb 2024 to Oct 2026). Our fit; docs/world.md gives no
        departure rate.
        Unit: probability per year.

    probe_levels : tuple of float, default ()
        True strengths of *probe* newcomers (the convergence experiment): for
        each level, ``probes_per_level`` adults of exactly that strength, which
        never changes (no age curve, no random walk), arrive within four weeks
        from ``probe_arrival_years`` after the start, play at the mean activity
        of their level and never leave. None by default.
        Unit: rating points.
    probes_per_level : int, default 40
        Probes at each level.
        Unit: players.
    probe_arrival_years : float, default 1.0
        When the probes arrive, in years after the start (after the pool has
        settled).
        Unit: years.
    probe_age : float, default 30.0
        The probes' age on arrival (adults, so no junior K factor).
        Unit: years.
    entrants : EntrantsConfig
        Newcomers' arrivals, ages and strengths by their own distributions,
        and activity's spread by level (``[population.entrants]``).
    exits : ExitsConfig
        A departure hazard by games played, age and idleness
        (``[population.exits]``).
    development : DevelopmentConfig
        Juniors' personal improvement rates, drift by level, noise by age
        (``[population.development]``).
    federations : FederationsConfig
        Federations' sizes and rating offsets (``[population.federations]``).

    Every one of these keys is at its sourced value by default (docs/world.md;
    ``experiments/world-realistic.toml`` lists them with their sources);
    ``experiments/world-simple.toml`` turns them off. ``ratingsim world``
    checks a config's pool against the published figures.

    Notes
    -----
    A player's activity is fixed when drawn, from their strength then.
    """

    n_players: int = 2000
    strength_weights: tuple[float, ...] = (0.8, 0.2)
    strength_means: tuple[float, ...] = (1900.0, 2050.0)
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
    growth_rates: tuple[float, ...] = (44.0, 36.0, 21.0, 8.0, -2.0, -9.0, -15.0)
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
    arrival_rate: float = 0.29
    newcomer_offset: float = -50.0
    departure_rate: float = 0.15
    probe_levels: tuple[float, ...] = ()
    probes_per_level: int = 40
    probe_arrival_years: float = 1.0
    probe_age: float = 30.0
    entrants: EntrantsConfig = field(default_factory=EntrantsConfig)
    exits: ExitsConfig = field(default_factory=ExitsConfig)
    development: DevelopmentConfig = field(default_factory=DevelopmentConfig)
    federations: FederationsConfig = field(default_factory=FederationsConfig)

    @property
    def original(self) -> bool:
        """True when every key of the realistic world is off: the simple world.

        The population is then drawn exactly as the simple world was before
        those keys existed (the same players from the same stream;
        ``experiments/world-simple.toml``).
        """
        return (
            self.entrants.off
            and self.exits.off
            and self.development.off
            and self.federations.off
        )

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
        self._check_in_effect()

    def _check_in_effect(self) -> None:
        """Refuse a key moved from its default where another key overrides it.

        Since issue 17 the default world's entrants, exits and development
        replace four keys of the simple world; a config that sets one of them
        without the model that reads it would change nothing, silently.
        """
        unread = (
            ("departure_rate", 0.15, not self.exits.off, "exits.model = 'constant'"),
            (
                "newcomer_offset",
                -50.0,
                self.entrants.strength != "age_curve",
                "entrants.strength = 'age_curve'",
            ),
            (
                "activity_sd",
                0.93,
                bool(self.entrants.activity_sds),
                "entrants.activity_sds = []",
            ),
            (
                "drift_sd",
                30.0,
                bool(self.development.noise_ages),
                "development.noise_ages = [] and noise_sds = []",
            ),
        )
        for name, default, overridden, needs in unread:
            value = getattr(self, name)
            if overridden and value != default:
                raise ValueError(
                    f"The {name!r} parameter of {_OWNER} has no effect in this "
                    f"world: set {needs} to use it, as "
                    f"experiments/world-simple.toml does. Got {value!r}."
                )
