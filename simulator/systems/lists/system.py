"""What the list-based systems (FIDE, old-style FIDE) share: :class:`ListSystem`.

A mixin that gives a system's frozen dataclass the methods of
:class:`~simulator.systems.RatingSystem` (``new_state``, ``next_close``,
``expected_score``, ``rate``, ``rating``) from its
:class:`~simulator.systems.lists.state.ListRules`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    list_day_after,
    read_only_view,
)
from simulator.systems.lists._by_table import _PD_BY_D, _expected_by_table
from simulator.systems.lists.new_players import stand_in_ratings
from simulator.systems.lists.period import rate_list_period
from simulator.systems.lists.state import (
    ListRules,
    ListState,
    grow_list_state,
    new_list_state,
    rules_expected,
)

__all__ = ["ListSystem"]


class ListSystem:
    """What the list-based systems (FIDE, old-style FIDE) share beyond the rules.

    A mixin for their frozen dataclasses, which supply ``_rules`` (built in
    ``__post_init__``), ``months``, ``unrated_prediction`` and
    ``new_player_prediction``.
    """

    _rules: ListRules
    months: int
    unrated_prediction: float
    new_player_prediction: str

    @property
    def rules(self) -> ListRules:
        """The rules handed to the shared list machinery."""
        return self._rules

    def new_state(
        self,
        n_players: int,
        *,
        day: float = 0.0,
        birth_year: ArrayLike | None = None,
        rating: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        **_: object,
    ) -> ListState:
        """A pool with the list in force on ``day``.

        Parameters
        ----------
        n_players : int
            Number of players.
        day : float
            A day number; the state's list is the one in force on it.
        birth_year : array of shape (n_players,), optional
            For FIDE's junior rule; NaN or absent means an adult.
        rating : array of shape (n_players,), optional
            Published ratings of an established pool (NaN = unrated);
            everyone is unrated by default.
        n_games : array of shape (n_players,), optional
            Games already in each rating (G); 0 by default.
        """
        return new_list_state(
            self.rules,
            n_players,
            day=day,
            birth_year=birth_year,
            rating=rating,
            n_games=n_games,
        )

    def grow(
        self,
        state: ListState,
        n_players: int,
        *,
        birth_year: ArrayLike | None = None,
        **_: object,
    ) -> ListState:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        Each holds what the last player holds (who must never have played);
        ``birth_year`` as in :meth:`new_state`, one entry per player of the
        grown state (:func:`~simulator.systems.lists.state.grow_list_state`).
        """
        rules = [self.rules] * state.list_day.size
        return grow_list_state(type(self).__name__, rules, state, n_players, birth_year)

    def next_close(self, day: float) -> int:
        """The date of the next list after ``day``: the current period's close."""
        return list_day_after(day, self.months)

    def expected_score(
        self, state: ListState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's PD on the list in force, with White's own cap.

        Unrated players count as rated by the system's
        ``new_player_prediction`` rule
        (:func:`~simulator.systems.lists.new_players.stand_in_ratings`),
        here only.
        """
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        pred = self.unrated_prediction
        rules = self.rules
        rating = self._prediction_ratings(state)
        if rules.expectation == "table" and w.ndim == 1 and b.shape == w.shape:
            return _expected_by_table(rating, w, b, pred, *rules.table_bounds, _PD_BY_D)
        # The games' players only, as a round is often far smaller than the
        # pool.
        r_w = rating[w]
        r_w = np.where(np.isnan(r_w), pred, r_w)
        r_b = rating[b]
        r_b = np.where(np.isnan(r_b), pred, r_b)
        return rules_expected(rules, r_w, r_b) / 100.0

    def _prediction_ratings(self, state: ListState) -> FloatArray:
        """The list, or the list with the stand-ins of unrated players.

        The constant needs no array (the kernels fill NaN with it). The other
        rules' stand-ins change only with a new list or pool, so they are
        computed once per list, not per round: the last result is kept with
        the arrays it was computed from (a state's arrays are never changed
        in place; a new list is new arrays).
        """
        if self.new_player_prediction == "constant":
            return state.rating
        cached = self.__dict__.get("_stand_in_cache")
        if (
            cached is not None
            and cached[0] is state.list_rating
            and cached[1] is state.pool
            and cached[2] is state.n_games
        ):
            ratings: FloatArray = cached[3]
            return ratings
        ratings = stand_in_ratings(
            state.rating,
            state.n_games,
            state.pool,
            rule=self.new_player_prediction,
            constant=self.unrated_prediction,
            performance=self.rules.performance,
        )
        # A cache, not a parameter: frozen dataclasses allow it this way.
        object.__setattr__(
            self,
            "_stand_in_cache",
            (state.list_rating, state.pool, state.n_games, ratings),
        )
        return ratings

    def rate(
        self,
        state: ListState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> ListState:
        """Rate one period (one list) of games and publish the next list.

        ``day`` is the new list's date (by default the next list of the
        calendar). Games carry their event and its start day; without them all
        of a player's games in the period form one event on the current list.
        ``overwrite_state`` is ignored: a new list is new arrays.
        """
        return rate_list_period(self.rules, state, games, day)

    def is_rated(self, state: ListState, players: ArrayLike) -> BoolArray:
        """Whether ``players`` are on the list in force (rated, not under the floor)."""
        return ~np.isnan(state.rating[np.asarray(players, dtype=np.intp)])

    def rating(self, state: ListState) -> FloatArray:
        """Published ratings on the list in force (NaN = unrated)."""
        return state.rating.copy()

    def rating_view(self, state: ListState) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return read_only_view(state.rating)
