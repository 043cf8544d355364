"""Who enters the pool, when, at what age and strength: :class:`EntrantsConfig`.

The simple world (``experiments/world-simple.toml``, the default before issue
17) draws newcomers at a constant rate, their ages from the pool's age bands
and their strengths from the pool's peak-strength mixture moved along the age
curve. The keys here make each of those its own distribution, as published
figures give them (docs/world.md, "FIDE standard
(OTB classical)"):

- arrivals a year as a share of the *active* pool of the moment, not of the
  first day's (``arrival = "pool"``);
- the age at entry from its own bands and weights;
- the strength at entry from a normal per entry age group
  (``strength = "by_age"``), not the age curve;
- the spread of activity by level (everyone's, initial pool included).

Every key is on by default (the realistic world); :attr:`EntrantsConfig.off`
says when they change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.world import _keys

__all__ = ["ARRIVALS", "ENTRY_STRENGTHS", "EntrantsConfig"]

_OWNER = "EntrantsConfig"
FloatArray = NDArray[np.float64]

#: ``arrival`` choices: a share of the first day's pool, or of the active pool.
ARRIVALS = ("constant", "pool")
#: ``strength`` choices: the age curve's, or a normal by entry age group.
ENTRY_STRENGTHS = ("age_curve", "by_age")


@dataclass(frozen=True)
class EntrantsConfig:
    """Newcomers' arrivals, ages, strengths, and everyone's activity spread.

    Parameters
    ----------
    arrival : {"constant", "pool"}, default "pool"
        ``"constant"``: newcomers arrive as a Poisson process at
        ``arrival_rate`` (a share a year) of the first day's ``n_players``.
        ``"pool"``: each month, a Poisson number at ``arrival_rate`` of the
        players then in the pool, so arrivals grow and shrink with it. Source:
        docs/world.md, "FIDE standard (OTB classical)": newcomers are about
        22 % of the active pool a year (about 48,000 in 2024 and 2025).
    age_edges : tuple of float, default ()
        Edges (years) of the entry age bands, ages uniform within a band;
        empty: the pool's ``age_edges``.
        Unit: years.
    age_weights : tuple of float, default ()
        Share of newcomers in each band of ``age_edges`` (normalised); empty:
        the pool's ``newcomer_age_weights``. Our choice: docs/world.md,
        "FIDE standard (OTB classical)", gives newcomers' ratings by age
        group, not their ages; the juniors among them keep the pool's junior
        share near 37 %.
        Unit: dimensionless (relative weights).
    strength : {"age_curve", "by_age"}, default "by_age"
        ``"age_curve"``: a newcomer's strength is the pool's peak-strength
        draw plus ``newcomer_offset``, moved along their age curve.
        ``"by_age"``: a normal of the entry age group's median and SD (below).
    strength_age_edges : tuple of float, default (10, 15, 20)
        Inner edges (years) of the entry age groups: under 10, 10-14, 15-19
        and 20 or over by default, as docs/world.md, "FIDE standard (OTB
        classical)", gives newcomers' first ratings.
        Unit: years.
    strength_medians : tuple of float, default (1492, 1513, 1579, 1650)
        Median true strength on entry (rating points) of each group, one more
        than ``strength_age_edges``. Source: docs/world.md, "FIDE standard
        (OTB classical)": newcomers' median first rating by age in 2025,
        <10 1492, 10-14 1513, 15-19 1579, 20+ about 1650.
        Unit: rating points.
    strength_sds : tuple of float, default (160, 160, 170, 180)
        SD (rating points) of true strength on entry in each group. Our
        assumption: docs/world.md gives medians only; these keep the list's
        band shares and juniors' share of the <1600 band within the
        calibration's tolerances three years on.
        Unit: rating points.
    activity_sds : tuple of float, default (0.95, 0.93, 0.85, 0.75, 0.6, 0.5)
        Log-SD of the activity multiplier (a lognormal of mean 1) at each knot
        of the pool's ``activity_strengths``, interpolated; applies to every
        player, the initial pool too. Empty: ``activity_sd`` for all. Source:
        docs/world.md, "FIDE standard (OTB classical)": club adults
        1600-1999 play a median of 10 games a year, p10 3, p90 33 (log-SD
        0.93); strong players play more and more regularly.
        Unit: log units.
    """

    arrival: str = "pool"
    age_edges: tuple[float, ...] = ()
    age_weights: tuple[float, ...] = ()
    strength: str = "by_age"
    strength_age_edges: tuple[float, ...] = (10.0, 15.0, 20.0)
    strength_medians: tuple[float, ...] = (1492.0, 1513.0, 1579.0, 1650.0)
    strength_sds: tuple[float, ...] = (160.0, 160.0, 170.0, 180.0)
    activity_sds: tuple[float, ...] = (0.95, 0.93, 0.85, 0.75, 0.6, 0.5)

    def __post_init__(self) -> None:
        _keys.choice(_OWNER, "arrival", self.arrival, ARRIVALS)
        _keys.choice(_OWNER, "strength", self.strength, ENTRY_STRENGTHS)
        edges = _keys.floats(_OWNER, "age_edges", self.age_edges, empty=True)
        shares = _keys.floats(_OWNER, "age_weights", self.age_weights, empty=True)
        if edges or shares:
            if len(edges) < 2 or len(shares) != len(edges) - 1:
                raise ValueError(
                    f"The 'age_weights' parameter of {_OWNER} must have one entry per "
                    f"band of 'age_edges' ({max(len(edges) - 1, 0)}). Got "
                    f"{len(shares)} instead."
                )
            _keys.increasing(_OWNER, "age_edges", edges)
            _keys.each(_OWNER, "age_edges", edges, 0, 150)
            _keys.weights(_OWNER, "age_weights", shares)
        inner = _keys.floats(
            _OWNER, "strength_age_edges", self.strength_age_edges, empty=True
        )
        _keys.increasing(_OWNER, "strength_age_edges", inner)
        _keys.each(_OWNER, "strength_age_edges", inner, 0, 150)
        medians = _keys.floats(_OWNER, "strength_medians", self.strength_medians)
        sds = _keys.floats(_OWNER, "strength_sds", self.strength_sds)
        for name, values in (("strength_medians", medians), ("strength_sds", sds)):
            if len(values) != len(inner) + 1:
                raise ValueError(
                    f"The {name!r} parameter of {_OWNER} must have one entry per "
                    f"entry age group ({len(inner) + 1}, one more than "
                    f"'strength_age_edges'). Got {len(values)} instead."
                )
        _keys.each(_OWNER, "strength_medians", medians, 0, 4000)
        _keys.each(_OWNER, "strength_sds", sds, 0, 1000)
        act = _keys.floats(_OWNER, "activity_sds", self.activity_sds, empty=True)
        _keys.each(_OWNER, "activity_sds", act, 0, 5)
        for name, value in (
            ("age_edges", edges),
            ("age_weights", shares),
            ("strength_age_edges", inner),
            ("strength_medians", medians),
            ("strength_sds", sds),
            ("activity_sds", act),
        ):
            object.__setattr__(self, name, value)

    @property
    def off(self) -> bool:
        """True when these keys change nothing: the simple world's newcomers.

        Newcomers then arrive at a constant rate, at the pool's newcomer ages,
        with the age curve's strengths, and everyone's activity has one spread.
        """
        return (
            self.arrival == "constant"
            and self.strength == "age_curve"
            and not self.age_edges
            and not self.activity_sds
        )


def entry_strength(
    config: EntrantsConfig, entry_age: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """True strength on entry: a normal of the entry age group's median and SD.

    One standard normal per player.
    """
    group = np.searchsorted(
        np.asarray(config.strength_age_edges), entry_age, side="right"
    )
    median = np.asarray(config.strength_medians)[group]
    sd = np.asarray(config.strength_sds)[group]
    out: FloatArray = median + sd * rng.standard_normal(entry_age.shape[0])
    return out


def activity_sd(
    config: EntrantsConfig,
    knots: tuple[float, ...],
    default_sd: float,
    strength: FloatArray,
) -> FloatArray | float:
    """Each player's activity log-SD: by level if ``activity_sds`` is set."""
    if not config.activity_sds:
        return default_sd
    sd: FloatArray = np.interp(strength, knots, config.activity_sds)
    return sd
