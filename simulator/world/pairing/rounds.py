"""A round of pairings, and the checks of the players every pairing takes.

Every pairing of :mod:`simulator.world.pairing` returns a :class:`Round`, in
which a player plays at most once. The private checks turn a bad list of
players, ratings or a bad ``rng`` into an error that names the function and
the parameter.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import FloatArray, IntArray

__all__ = ["Round"]


class Round(NamedTuple):
    """One round: who has White, who has Black, and who has no game.

    Attributes
    ----------
    white, black : ndarray of shape (n_games,)
        Player indices, one game per entry, best board first.
    bye : ndarray of shape (n_byes,)
        Players in the round without a game: a Swiss event's bye, the player
        sitting out a round-robin round or left alone in the online pool.
    """

    white: IntArray
    black: IntArray
    bye: IntArray

    @property
    def n_games(self) -> int:
        """Number of games."""
        return int(self.white.shape[0])


def _as_players(owner: str, players: ArrayLike, name: str = "players") -> IntArray:
    """Player indices as a fresh intp array; ``ValueError`` if not distinct."""
    a = np.asarray(players)
    if a.ndim != 1:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be one-dimensional. "
            f"Got shape {a.shape} instead."
        )
    # Plain integers first: this runs for every event, and the general test
    # costs more than the rest.
    if (
        a.size
        and a.dtype.kind not in "iu"
        and (
            a.dtype == np.bool_
            or not (
                np.issubdtype(a.dtype, np.integer)
                or np.issubdtype(a.dtype, np.floating)
            )
            or not np.all(np.equal(np.mod(a, 1), 0))
        )
    ):
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold integer player indices."
        )
    out = a.astype(np.intp)
    if out.size and out.min() < 0:
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold non-negative player "
            f"indices. Got {int(out.min())}."
        )
    s = np.sort(out)
    twice = s[1:][s[1:] == s[:-1]]
    if twice.size:
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold distinct players. "
            f"Got player {int(twice[0])} more than once."
        )
    return out


def _as_rating(owner: str, rating: ArrayLike, n: int, *, allow_nan: bool) -> FloatArray:
    """Ratings aligned with the players, as a fresh float64 array."""
    r = np.array(rating, dtype=np.float64)
    if r.shape != (n,):
        raise ValueError(
            f"The 'rating' parameter of {owner} must have one entry per player "
            f"({n}), aligned with 'players'. Got shape {r.shape} instead."
        )
    bad = np.isinf(r) if allow_nan else ~np.isfinite(r)
    if bad.any():
        what = "finite or NaN (unrated)" if allow_nan else "finite"
        raise ValueError(
            f"The 'rating' parameter of {owner} must be {what}. "
            f"Got {float(r[bad][0])} at position {int(np.flatnonzero(bad)[0])}."
        )
    return r


def _check_rng(owner: str, rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"The 'rng' parameter of {owner} must be a numpy.random.Generator. "
            f"Got {type(rng).__name__} instead."
        )
