"""What a list system predicts for a player it has not rated yet.

A rating list has no rating for a newcomer until their first one is
published (FIDE 8.2: five games against rated opponents, and so on), yet the
simulator asks every system for a pre-game expected score of every game. The
rule that fills the gap is not in the regulations (they say nothing of
predictions); here it is a parameter of the system, ``new_player_prediction``.
It decides a large share of any comparison of predictions between a list
system and a system that rates everyone from the first game (Glicko's 1500
with a large RD):

``"constant"``
    Every unrated player counts as rated ``unrated_prediction`` (1550 by
    default, near the median first rating of newcomers since 2024,
    docs/world.md).
``"performance"``
    The system's own first-rating formula applied to the player's results
    pooled so far (the results on the lists published up to now), as if one
    game were enough: FIDE 8.2's ``Ra + dp`` with its two hypothetical 1800
    draws under the 2024 rules. A player with no pooled result counts as
    ``unrated_prediction``.
``"newcomers"``
    The mean published rating of the list's recent newcomers: the rated
    players with fewer than :data:`RECENT_GAMES` games in their rating (the
    span of FIDE's K 40 for new players, 8.3.3). ``unrated_prediction`` while
    the list has none.

The stand-ins are used for predictions only, never to rate a game.
"""

from __future__ import annotations

import numpy as np

from simulator._types import FloatArray, IntArray
from simulator.systems.lists.state import InitialRule, Pool

__all__ = ["NEW_PLAYER_PREDICTIONS", "RECENT_GAMES", "stand_in_ratings"]

#: The choices of ``new_player_prediction``.
NEW_PLAYER_PREDICTIONS = ("constant", "performance", "newcomers")

#: Rated players with fewer games than this are the list's recent newcomers.
RECENT_GAMES = 30


def stand_in_ratings(
    rating: FloatArray,
    n_games: IntArray,
    pool: Pool,
    *,
    rule: str,
    constant: float,
    performance: InitialRule | None = None,
) -> FloatArray:
    """The ratings a list system predicts with: its list, unrated players filled in.

    Parameters
    ----------
    rating : ndarray of shape (n_players,)
        The list in force (NaN = unrated).
    n_games : ndarray of shape (n_players,)
        Games in each rating (G).
    pool : Pool
        Unrated players' pooled results against rated opponents.
    rule : {"constant", "performance", "newcomers"}
        The rule (module docstring).
    constant : float
        ``unrated_prediction``: the constant, and the fallback of the others.
    performance : callable, optional
        ``performance(sum_opponent_rating, n, points)``: the first-rating
        formula without its minimum of games (needed for ``"performance"``).

    Returns
    -------
    ndarray of shape (n_players,)
        ``rating`` where rated, the stand-in elsewhere.

    Examples
    --------
    >>> rating = np.array([1600.0, 1800.0, np.nan])
    >>> stand_in_ratings(rating, np.array([10, 100, 0]), Pool.empty(),
    ...                  rule="newcomers", constant=1550.0).tolist()
    [1600.0, 1800.0, 1600.0]
    """
    out = np.array(rating, dtype=np.float64)
    unrated = np.isnan(out)
    if rule == "constant" or not unrated.any():
        out[unrated] = constant
    elif rule == "newcomers":
        recent = ~unrated & (n_games < RECENT_GAMES)
        out[unrated] = float(np.mean(out[recent])) if recent.any() else constant
    elif rule == "performance":
        if performance is None:
            raise ValueError("The 'performance' rule needs the performance formula.")
        n = out.shape[0]
        # Rows whose opponent had no rating yet (the old national rule) count
        # no opponent rating: they are left out.
        known = ~np.isnan(pool.opp_rating)
        player = pool.player[known]
        count = np.bincount(player, minlength=n).astype(np.float64)
        points: FloatArray = np.asarray(
            np.bincount(player, weights=pool.score[known], minlength=n), np.float64
        )
        opp_sum: FloatArray = np.asarray(
            np.bincount(player, weights=pool.opp_rating[known], minlength=n),
            np.float64,
        )
        idx = np.flatnonzero(unrated & (count > 0))
        perf = np.asarray(performance(opp_sum[idx], count[idx], points[idx]))
        out[unrated] = constant
        out[idx] = np.where(np.isnan(perf), constant, perf)
    else:
        raise ValueError(
            f"new_player_prediction must be one of {NEW_PLAYER_PREDICTIONS}. "
            f"Got {rule!r} instead."
        )
    return out
