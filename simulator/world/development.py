"""How true strength develops beyond the age curve: :class:`DevelopmentConfig`.

The age curve of :class:`~simulator.world.population_config.PopulationConfig`
gives everyone's typical yearly change by age, scaled by a personal growth
factor, plus a random walk of one SD for all ages. The keys here refine it,
each on by default (the realistic world; ``experiments/world-simple.toml``
turns them off, :attr:`DevelopmentConfig.off`):

- a personal improvement rate for juniors, with its own spread and a mean
  that rises with the junior's level among players of their age
  (:func:`junior_growth`);
- a drift by level, a yearly change added to the age curve's by true strength
  (read by :mod:`~simulator.world.strengths`);
- a random walk whose SD depends on age (juniors' strengths are less settled
  than adults').

Sources: docs/world.md, "Change with age".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator._validate import check_interval
from simulator.world import _keys

__all__ = ["DevelopmentConfig", "junior_growth"]

_OWNER = "DevelopmentConfig"
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class DevelopmentConfig:
    """Refinements of the age curve: personal junior rates, level drift, noise by age.

    Parameters
    ----------
    junior_rate_sd : float or None, default 0.5
        SD of the log of a junior's personal improvement rate (a lognormal
        multiplier of the age curve with mean 1, drawn once per player who
        enters younger than 19), in log units. None: juniors draw the same
        ``growth_sd`` as everyone. Source: docs/world.md, "Change with age":
        strong juniors improve about twice as fast as typical ones; 0.5 puts
        about 8 % of juniors at twice the typical pace or more.
        Unit: log units.
    junior_rate_levels : tuple of float, default (-300, 0, 300)
        Knots (rating points) of a junior's level on entry, measured from the
        median of the players drawn with them at the same whole year of age.
        Unit: rating points.
    junior_rate_factors : tuple of float, default (0.7, 1, 1.6)
        Multiplier (dimensionless) of a junior's personal rate at each knot of
        ``junior_rate_levels``, interpolated and constant beyond the ends;
        empty: 1 for every level. Source: docs/world.md, "Change with age":
        strong players gain about twice what typical juniors gain.
        Unit: dimensionless.
    level_strengths : tuple of float, default (2000, 2600)
        Knots (rating points of true strength) of the drift by level.
        Unit: rating points.
    level_rates : tuple of float, default (0, -3)
        Yearly change (points a year) added to the age curve's at each knot of
        ``level_strengths``, interpolated and constant beyond the ends; read at
        the strength a step starts from. Empty: no drift by level. Source:
        docs/world.md, "Change with age" (the published changes by age are of
        the whole list; it gives none by level, so the default's values are
        small: our assumption).
        Unit: rating points a year.
    noise_ages : tuple of float, default (10, 19, 30)
        Knots (years of age) of the random walk's SD by age.
        Unit: years.
    noise_sds : tuple of float, default (45, 35, 30)
        SD of the random walk (points per square root of a year) at each knot
        of ``noise_ages``; its square (the variance rate) is interpolated
        linearly in age and constant beyond the ends, and integrated exactly
        over each step. Empty: ``drift_sd`` at every age. Our assumption,
        docs/world.md, "Change with age" has no figure: juniors' form moves
        more than adults'.
        Unit: rating points per square root of a year.
    """

    junior_rate_sd: float | None = 0.5
    junior_rate_levels: tuple[float, ...] = (-300.0, 0.0, 300.0)
    junior_rate_factors: tuple[float, ...] = (0.7, 1.0, 1.6)
    level_strengths: tuple[float, ...] = (2000.0, 2600.0)
    level_rates: tuple[float, ...] = (0.0, -3.0)
    noise_ages: tuple[float, ...] = (10.0, 19.0, 30.0)
    noise_sds: tuple[float, ...] = (45.0, 35.0, 30.0)

    def __post_init__(self) -> None:
        if self.junior_rate_sd is not None:
            check_interval(_OWNER, "junior_rate_sd", self.junior_rate_sd, 0, 5)
        for x_name, y_name in (
            ("junior_rate_levels", "junior_rate_factors"),
            ("level_strengths", "level_rates"),
            ("noise_ages", "noise_sds"),
        ):
            xs, ys = _keys.knots(
                _OWNER, x_name, getattr(self, x_name), y_name, getattr(self, y_name)
            )
            object.__setattr__(self, x_name, xs)
            object.__setattr__(self, y_name, ys)
        _keys.each(_OWNER, "junior_rate_factors", self.junior_rate_factors, 0, 100)
        _keys.each(_OWNER, "level_rates", self.level_rates, -500, 500)
        _keys.each(_OWNER, "noise_ages", self.noise_ages, 0, 150)
        _keys.each(_OWNER, "noise_sds", self.noise_sds, 0, 1000)

    @property
    def off(self) -> bool:
        """True when no refinement is set: the age curve and one random walk only."""
        return (
            self.junior_rate_sd is None
            and not self.junior_rate_levels
            and not self.level_strengths
            and not self.noise_ages
        )


def junior_growth(
    config: DevelopmentConfig,
    growth: FloatArray,
    junior: NDArray[np.bool_],
    strength: FloatArray,
    entry_age: FloatArray,
    rng: np.random.Generator,
) -> FloatArray:
    """Personal growth factors with juniors' own rates; ``growth`` for the others.

    Draws one standard normal per junior when ``junior_rate_sd`` is set (none
    otherwise). A junior's factor is a lognormal of mean 1 and log-SD
    ``junior_rate_sd`` times the factor of their level: their strength minus
    the median of the juniors drawn with them at the same whole year of age.
    """
    out = growth.copy()
    idx = np.flatnonzero(junior)
    if idx.size == 0:
        return out
    if config.junior_rate_sd is not None:
        sd = config.junior_rate_sd
        out[idx] = np.exp(sd * rng.standard_normal(idx.size) - 0.5 * sd * sd)
    if config.junior_rate_levels:
        years = np.floor(entry_age[idx]).astype(np.int64)
        level = np.empty(idx.size)
        for y in np.unique(years):
            same = years == y
            s = strength[idx[same]]
            level[same] = s - np.median(s)
        out[idx] *= np.interp(
            level, config.junior_rate_levels, config.junior_rate_factors
        )
    return out
