"""National federations: their sizes and rating offsets, :class:`FederationsConfig`.

Every player belongs to one federation, drawn on entry with the federations'
relative sizes. A federation's *rating offset* is how far its players'
initial published ratings sit from their true strengths (a national list
inflated or deflated by its own history); national events keep the offset
inside the federation, international events between federations wear it away
(:mod:`~simulator.world.events`). Eight by default; one federation (the
simple world, ``experiments/world-simple.toml``) draws nothing.

Source: docs/world.md, "FIDE standard (OTB classical)": most games are
domestic; national pools with their own offsets meeting in international
events are a main source of rating-list distortion (issue 17).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.world import _keys

__all__ = ["FederationsConfig", "assign_federations"]

_OWNER = "FederationsConfig"


@dataclass(frozen=True)
class FederationsConfig:
    """Federations' relative sizes and rating offsets.

    Parameters
    ----------
    shares : tuple of float, default (0.25, 0.2, 0.15, 0.1, 0.1, 0.08, 0.07, 0.05)
        Relative sizes (dimensionless, normalised) of the federations; a
        player joins one on entry with these chances. Our choice: a few
        large federations and several small ones, as in
        FIDE's lists (docs/world.md, "FIDE standard (OTB classical)").
        Unit: dimensionless (relative sizes).
    rating_offsets : tuple of float, default (0, 40, -30, 20, -50, 60, -20, 30)
        Per federation, the points added to its initial pool's seeded ratings
        (rating points; the true strengths are not moved). Our assumption,
        docs/world.md has no figure: offsets of a few dozen points.
        Unit: rating points.
    """

    shares: tuple[float, ...] = (0.25, 0.2, 0.15, 0.1, 0.1, 0.08, 0.07, 0.05)
    rating_offsets: tuple[float, ...] = (
        0.0,
        40.0,
        -30.0,
        20.0,
        -50.0,
        60.0,
        -20.0,
        30.0,
    )

    def __post_init__(self) -> None:
        shares = _keys.floats(_OWNER, "shares", self.shares)
        offsets = _keys.floats(_OWNER, "rating_offsets", self.rating_offsets)
        _keys.same_length(_OWNER, shares=shares, rating_offsets=offsets)
        _keys.weights(_OWNER, "shares", shares)
        _keys.each(_OWNER, "rating_offsets", offsets, -1000, 1000)
        object.__setattr__(self, "shares", shares)
        object.__setattr__(self, "rating_offsets", offsets)

    @property
    def n_federations(self) -> int:
        """Number of federations."""
        return len(self.shares)

    @property
    def off(self) -> bool:
        """True with one federation: no federation is drawn."""
        return self.n_federations == 1


def assign_federations(
    config: FederationsConfig, n: int, rng: np.random.Generator
) -> NDArray[np.int16]:
    """Each of ``n`` players' federation (int16); no draw with one federation."""
    if config.n_federations == 1:
        return np.zeros(n, dtype=np.int16)
    p = np.asarray(config.shares) / np.sum(config.shares)
    return rng.choice(p.shape[0], size=n, p=p).astype(np.int16)
