"""Plain logistic Elo with one constant K, updated after every game: the baseline.

Source: A. Elo, *The Rating of Chessplayers, Past and Present* (1978); the
logistic expectation ``E = 1 / (1 + 10^(-D/400))`` as the Bulgarian and
Croatian seed pages give it. No cap, no tiers, no rounding, no unrated
players: the simplest system against which the FIDE rules are measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    check_interval,
    grow_state,
    initial_values,
    read_only_view,
    reusable,
    split_rounds,
)

__all__ = ["Elo", "EloState", "logistic_expectation"]


def logistic_expectation(difference: ArrayLike) -> FloatArray:
    """``1 / (1 + 10^(-D/400))`` for ``D = own - opponent``.

    >>> round(float(logistic_expectation(500)), 3)
    0.947
    """
    d = np.asarray(difference, dtype=np.float64)
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


class EloState(NamedTuple):
    """Ratings and game counts; both arrays have shape (n_players,)."""

    rating: FloatArray
    n_games: IntArray


@dataclass(frozen=True)
class Elo:
    """Per-game Elo with a constant ``k_factor``.

    Parameters
    ----------
    k_factor : float, default 20
        Points at stake per game.
        Unit: rating points per point of score.
    initial_rating : float, default 1500
        Every player's starting rating.
        Unit: rating points.
    """

    k_factor: float = 20.0
    initial_rating: float = 1500.0

    name = "elo"
    per_game = True

    def __post_init__(self) -> None:
        check_interval("Elo", "k_factor", self.k_factor, 0, np.inf, closed="neither")
        check_interval(
            "Elo",
            "initial_rating",
            self.initial_rating,
            -np.inf,
            np.inf,
            closed="neither",  # finite: an infinite rating makes every E NaN
        )

    def next_close(self, day: float) -> None:
        """Per-game system: no periods."""
        return None

    def new_state(
        self,
        n_players: int,
        *,
        rating: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        **_: object,
    ) -> EloState:
        """A pool of ``n_players``; NaN ``rating`` entries start new."""
        return EloState(
            initial_values(n_players, rating, self.initial_rating, "rating"),
            initial_values(n_players, n_games, 0, "n_games").astype(np.intp),
        )

    def expected_score(
        self, state: EloState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's logistic expected score."""
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        return logistic_expectation(state.rating[w] - state.rating[b])

    def rate(
        self,
        state: EloState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> EloState:
        """Update after every game, in order, one round of disjoint games at a time.

        ``state`` is not modified, unless ``overwrite_state`` is True: then the
        new values may be written into its arrays.
        """
        return self._rate(state, games, overwrite_state, None)

    def predict_and_rate(
        self,
        state: EloState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> tuple[EloState, FloatArray]:
        """:meth:`rate`, with each game's expected score from before its round.

        The same as splitting ``games`` by :func:`~simulator.systems._common.
        split_rounds` and calling :meth:`expected_score`, then :meth:`rate`,
        round by round (bit for bit): each round's E is the one its update
        uses. The walk-forward replay's per-game path.

        Returns
        -------
        state : EloState
            The ratings after the games.
        expected : ndarray of shape (n_games,)
            White's expected score of each game before its round.
        """
        expected = np.empty(games.n_games)
        return self._rate(state, games, overwrite_state, expected), expected

    def _rate(
        self,
        state: EloState,
        games: Games,
        overwrite: bool,
        expected: FloatArray | None,
    ) -> EloState:
        """:meth:`rate`; each round's E also into ``expected`` if given.

        A round is two compiled passes around numpy's ``power`` (SIMD, and
        not the C library's, whose last bit differs for about 5 % of
        inputs): the same operations, in the same order, as
        :func:`logistic_expectation` and the fancy-indexed updates, without
        their temporary arrays.
        """
        games.check_players(state.rating.shape[0])
        rating = reusable(state.rating, overwrite)
        n_games = reusable(state.n_games, overwrite).astype(np.intp, copy=False)
        white, black, score = games.white, games.black, games.score
        k = float(self.k_factor)
        for idx in split_rounds(white, black):
            if idx.shape[0] < white.shape[0]:
                w, b, s = white[idx], black[idx], score[idx]
            else:  # one round: the games as they are
                w, b, s = white, black, score
            # 10^(-D/400), in place.
            power = _minus_d_over_400(rating, w, b, np.empty(w.shape[0]))
            np.power(10.0, power, out=power)
            e = _update(rating, n_games, w, b, s, power, k)
            if expected is not None:
                expected[idx] = e
        return EloState(rating, n_games)

    def is_rated(self, state: EloState, players: ArrayLike) -> BoolArray:
        """Whether ``players`` have a published rating: every player has one."""
        return ~np.isnan(state.rating[np.asarray(players, dtype=np.intp)])

    def rating(self, state: EloState) -> FloatArray:
        """Ratings as they stand."""
        return state.rating.copy()

    def rating_view(self, state: EloState) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return read_only_view(state.rating)

    def grow(self, state: EloState, n_players: int, **_: object) -> EloState:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        Each a copy of the last player, who must be one who never played.
        """
        return grow_state(state, n_players, "Elo")


@jit
def _minus_d_over_400(
    rating: FloatArray, white: IntArray, black: IntArray, out: FloatArray
) -> FloatArray:
    """``-(rating[white] - rating[black]) / 400`` into ``out``, unchecked.

    :func:`logistic_expectation`'s exponent, as numpy computes it: the
    difference, negated, divided by 400.
    """
    for j in range(white.shape[0]):
        out[j] = -(rating[white[j]] - rating[black[j]]) / 400.0
    return out


@jit
def _update(
    rating: FloatArray,
    n_games: IntArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    power: FloatArray,
    k: float,
) -> FloatArray:
    """One round of disjoint games, in place; returns White's E (in ``power``).

    ``power`` holds ``10^(-D/400)``: ``E = 1 / (1 + power)``, and
    ``K * (score - E)`` goes to White and from Black, one more game each.
    """
    for j in range(white.shape[0]):
        e = 1.0 / (1.0 + power[j])
        change = k * (score[j] - e)
        w, b = white[j], black[j]
        rating[w] = rating[w] + change
        rating[b] = rating[b] - change
        n_games[w] += 1
        n_games[b] += 1
        power[j] = e
    return power
