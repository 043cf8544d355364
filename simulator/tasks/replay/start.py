"""Where a replay's new players start: a rating list, the file's ratings, or nothing.

A player enters every system at their first game. What they bring, in order
of precedence:

1. a :class:`StartList` entry (a rating list before the file: rating, and
   for list systems G, K and birth year), matched by the player's name in
   the file;
2. with ``seed="file"``, the file's rating at their first game (list
   systems: G = ``games_played_default``);
3. nothing: list systems put them on the list at ``start_rating`` if one is
   assumed, else they are unrated until the rules give a first rating; the
   other systems start them at their defaults.

:func:`entry_seeds` applies this to a block of new players (:class:`Seeds`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from simulator._types import BoolArray, FloatArray, IntArray

__all__ = ["Seeds", "StartList", "entry_seeds"]


@dataclass(frozen=True)
class StartList:
    """Players' standing before the first game of a replay, by name.

    Parameters
    ----------
    rating : mapping of str to float
        The rating each listed player starts with (every system).
    n_games : mapping of str to int
        G (games in the rating) for list systems; absent players get
        ``games_played_default`` of :func:`~simulator.tasks.replay.walk.replay`.
    k : mapping of str to int
        K on the list for list systems (replaces the K their rules give on
        the first list; later lists follow the rules).
    birth_year : mapping of str to float
        Birth years, for FIDE's junior K.
    """

    rating: Mapping[str, float]
    n_games: Mapping[str, int] = field(default_factory=dict)
    k: Mapping[str, int] = field(default_factory=dict)
    birth_year: Mapping[str, float] = field(default_factory=dict)


class Seeds(NamedTuple):
    """What a block of new players brings (module docstring)."""

    rating: FloatArray
    seeded: BoolArray
    n_games: IntArray
    k: IntArray
    birth_year: FloatArray


def entry_seeds(
    names: Sequence[str],
    file_rating: FloatArray,
    *,
    seed: str,
    start: StartList | None,
    games_played_default: int,
) -> Seeds:
    """The seeds of new players ``names`` (their file rating at their first game).

    ``k`` is 0 where the rules decide it.
    """
    n = file_rating.size
    rating = np.full(n, np.nan)
    n_games = np.full(n, games_played_default, dtype=np.intp)
    k = np.zeros(n, dtype=np.intp)
    birth = np.full(n, np.nan)
    if seed == "file":
        rating = np.array(file_rating, dtype=np.float64)
    if start is not None:
        for i, name in enumerate(names):
            r = start.rating.get(name)
            if r is None:
                continue
            rating[i] = float(r)
            n_games[i] = int(start.n_games.get(name, games_played_default))
            k[i] = int(start.k.get(name, 0))
            birth[i] = float(start.birth_year.get(name, np.nan))
    seeded = ~np.isnan(rating)
    return Seeds(rating, seeded, np.where(seeded, n_games, 0), k, birth)
