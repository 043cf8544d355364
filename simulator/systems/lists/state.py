"""The state of a rating list and the per-player rules read from it.

What the list machinery (:mod:`simulator.systems.lists`) passes around: the
rules a system supplies (:class:`ListRules`: K factors, cap, expectation,
initial-rating formula, 700 rule), unrated players' pooled results
(:class:`Pool`), the kept lists (:class:`ListState`) and what a period's games
give the rest of the period (:class:`_PeriodGames`). And the rules applied
player by player: K on a new list (:func:`period_k`), the expected score by
table 8.1.2 or the formula, with the 400-point cap of FIDE 8.3.1
(:func:`expected_hundredths`), and the 700 rule (:func:`apply_700_rule`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    IntArray,
    check_players_count,
    grown_size,
    list_day_on,
    with_copies_of_last,
    year_of,
)
from simulator.systems.elo import logistic_expectation
from simulator.systems.tables import pd_hundredths

__all__ = [
    "InitialRule",
    "KRule",
    "ListRules",
    "ListState",
    "Pool",
    "PoolFilter",
    "apply_700_rule",
    "expected_hundredths",
    "grow_list_state",
    "new_list_state",
    "period_k",
    "rules_expected",
]


#: ``k_rule(n_games, ever_2400, ever_2300, rating, junior) -> K`` for rated players.
KRule = Callable[[IntArray, BoolArray, BoolArray, FloatArray, BoolArray], IntArray]

#: ``pool_filter(is_first_event, n_rated_opponents, points) -> keep`` per event.
PoolFilter = Callable[[BoolArray, IntArray, FloatArray], BoolArray]

#: ``initial(sum_opponent_rating, n, points) -> Ru`` (NaN where no rating yet).
InitialRule = Callable[[FloatArray, FloatArray, FloatArray], FloatArray]


@dataclass(frozen=True)
class ListRules:
    """What distinguishes one list-based Elo system from another."""

    owner: str
    months: int
    cap: float | None
    exempt_from: float | None
    expectation: str
    round_expectation: int | None
    rule_700: bool
    rounding: str
    floor: float
    k_rule: KRule
    pool_periods: int
    pool_filter: PoolFilter
    initial: InitialRule
    n_lists_kept: int = 3
    #: Whether ``pool_filter`` keeps every event but a player's first: then
    #: only first events are grouped (the filter's verdict is the same).
    pool_filter_first_only: bool = False
    #: Whether ``pool_filter`` reads ``is_first``: if not, it gets all False
    #: (first events are not looked for).
    pool_filter_reads_first: bool = True
    #: ``performance(sum_opponent_rating, n, points)``: the first-rating
    #: formula without its minimum of games, for the ``"performance"``
    #: prediction of unrated players (:mod:`~simulator.systems.lists.new_players`).
    performance: InitialRule | None = None

    @property
    def table_bounds(self) -> tuple[float, float]:
        """``cap`` and ``exempt_from`` as the compiled table kernels take them.

        Floats, inf for no cap and NaN for no exemption: an int from a
        config would have numba compile the kernels again.
        """
        return (
            np.inf if self.cap is None else float(self.cap),
            np.nan if self.exempt_from is None else float(self.exempt_from),
        )


class Pool(NamedTuple):
    """Unrated players' results against rated opponents, one row per game."""

    player: IntArray
    opp: IntArray
    opp_rating: FloatArray
    score: FloatArray
    period: IntArray

    @staticmethod
    def empty() -> Pool:
        """A pool without rows."""
        i, f = np.empty(0, np.intp), np.empty(0)
        return Pool(i, i, f, f, i)

    def take(self, keep: ArrayLike) -> Pool:
        """The rows at ``keep``."""
        k = np.asarray(keep)
        if k.dtype == np.bool_:
            # Positions gather the five arrays faster than a mask selects them.
            k = np.flatnonzero(k)
        return Pool(*(a[k] for a in self))

    def concat(self, other: Pool) -> Pool:
        """Rows of both pools, ``self`` first."""
        return Pool(*(np.concatenate([a, b]) for a, b in zip(self, other, strict=True)))


class ListState(NamedTuple):
    """The state of a list-based Elo pool.

    Attributes
    ----------
    list_day : ndarray of shape (n_lists,)
        Dates of the kept lists, oldest first; the last is in force now.
    list_rating : ndarray of shape (n_lists, n_players)
        Published ratings on each kept list (whole numbers, NaN = unrated).
    list_k : ndarray of shape (n_lists, n_players)
        K on each kept list before the 700 rule (0 for unrated players).
    n_games : ndarray of shape (n_players,)
        Games that entered the player's rating (G of the K rules).
    ever_2400, ever_2300 : ndarray of shape (n_players,)
        Whether any published rating reached 2400 / 2300.
    birth_year : ndarray of shape (n_players,)
        Birth years, NaN where unknown (treated as adults).
    first_event_done : ndarray of shape (n_players,)
        Whether the first event of the current unrated spell has been seen.
    period : int
        Number of periods closed so far (the index of the current list).
    pool : Pool
        Unrated players' pooled results.
    """

    list_day: IntArray
    list_rating: FloatArray
    list_k: IntArray
    n_games: IntArray
    ever_2400: BoolArray
    ever_2300: BoolArray
    birth_year: FloatArray
    first_event_done: BoolArray
    period: int
    pool: Pool

    @property
    def rating(self) -> FloatArray:
        """Ratings on the list in force (NaN = unrated)."""
        row: FloatArray = self.list_rating[-1]
        return row

    @property
    def k(self) -> IntArray:
        """K on the list in force, before the 700 rule."""
        row: IntArray = self.list_k[-1]
        return row


def _junior(birth_year: FloatArray, day: float) -> BoolArray:
    # Junior while (year of the list - birth year) <= 18; unknown years are adults.
    with np.errstate(invalid="ignore"):
        return np.asarray(year_of(day) - birth_year <= 18)


def period_k(rules: ListRules, rating: FloatArray, state_like: ListState) -> IntArray:
    """K on a new list for every player (0 for unrated players)."""
    k = rules.k_rule(
        state_like.n_games,
        state_like.ever_2400,
        state_like.ever_2300,
        rating,
        _junior(state_like.birth_year, float(state_like.list_day[-1])),
    )
    return (k * ~np.isnan(rating)).astype(np.intp, copy=False)


def new_list_state(
    rules: ListRules,
    n_players: int,
    *,
    day: float = 0.0,
    birth_year: ArrayLike | None = None,
    rating: ArrayLike | None = None,
    n_games: ArrayLike | None = None,
) -> ListState:
    """A pool whose list in force on ``day`` holds ``rating`` (NaN = unrated).

    ``n_games`` (G) defaults to 0 for everyone; pass it for an established pool.
    """
    check_players_count(n_players)
    r = (
        np.full(n_players, np.nan)
        if rating is None
        else np.array(rating, dtype=np.float64)
    )
    if r.shape != (n_players,):
        raise ValueError(f"'rating' must have one entry per player ({n_players}).")
    r = np.where(np.isnan(r), np.nan, np.rint(r))
    g = (
        np.zeros(n_players, dtype=np.intp)
        if n_games is None
        else np.array(n_games, dtype=np.intp)
    )
    by = (
        np.full(n_players, np.nan)
        if birth_year is None
        else np.array(birth_year, dtype=np.float64)
    )
    for name, a in (("n_games", g), ("birth_year", by)):
        if a.shape != (n_players,):
            raise ValueError(f"{name!r} must have one entry per player ({n_players}).")
    with np.errstate(invalid="ignore"):
        ever_2400 = r >= 2400
        ever_2300 = r >= 2300
    state = ListState(
        np.array([list_day_on(day, rules.months)], dtype=np.intp),
        r[None, :],
        np.zeros((1, n_players), dtype=np.intp),
        g,
        ever_2400,
        ever_2300,
        by,
        np.zeros(n_players, dtype=bool),
        0,
        Pool.empty(),
    )
    return state._replace(list_k=period_k(rules, r, state)[None, :])


def grow_list_state(
    owner: str,
    rules: Sequence[ListRules],
    state: ListState,
    n_players: int,
    birth_year: ArrayLike | None = None,
) -> ListState:
    """``state`` with players appended up to ``n_players``: the lists' ``grow``.

    Each new player holds what the state's last player holds on every kept
    list (rating, G, the 2400 and 2300 flags, the first event of the
    unrated spell), which is what any player who never played holds; the
    last player must be one. The new players' birth years are
    ``birth_year[size:]`` (one entry per player of the grown state; NaN, an
    adult, if absent), and their K on each kept list is :func:`period_k`
    by that list's ``rules`` (one per kept list, oldest first), as its close
    computed it (0 when unrated, as a newcomer is). The pool is unchanged:
    it holds no row of a player who never played; it and ``list_day`` are
    ``state``'s own arrays (a state's arrays are never changed in place).
    ``owner`` names the system in the errors.
    """
    size = state.n_games.shape[0]
    if len(rules) != state.list_day.size:
        raise ValueError(
            f"{owner}.grow: one ListRules per kept list ({state.list_day.size}); "
            f"got {len(rules)}."
        )
    n = grown_size(owner, size, n_players)
    by = np.full(n, np.nan)
    by[:size] = state.birth_year
    if birth_year is not None:
        given = np.asarray(birth_year, dtype=np.float64)
        if given.shape != (n,):
            raise ValueError(
                f"{owner}.grow: 'birth_year' must have one entry per player "
                f"({n}); got shape {given.shape}."
            )
        by[size:] = given[size:]
    grown = state._replace(
        list_rating=with_copies_of_last(state.list_rating, n),
        n_games=with_copies_of_last(state.n_games, n),
        ever_2400=with_copies_of_last(state.ever_2400, n),
        ever_2300=with_copies_of_last(state.ever_2300, n),
        birth_year=by,
        first_event_done=with_copies_of_last(state.first_event_done, n),
    )
    list_k = with_copies_of_last(state.list_k, n)
    new = slice(size, n)
    for j in range(state.list_day.size):
        # K on list j, for the new players alone, as that list's close
        # computed it (their G and flags never changed).
        like = grown._replace(
            list_day=state.list_day[: j + 1],
            n_games=grown.n_games[new],
            ever_2400=grown.ever_2400[new],
            ever_2300=grown.ever_2300[new],
            birth_year=by[new],
        )
        list_k[j, new] = period_k(rules[j], grown.list_rating[j, new], like)
    return grown._replace(list_k=list_k)


def expected_hundredths(
    own: ArrayLike,
    opp: ArrayLike,
    *,
    cap: float | None,
    exempt_from: float | None,
    expectation: str,
    round_expectation: int | None = None,
) -> FloatArray:
    """PD of ``own`` against ``opp``, in hundredths, after the cap.

    The cap applies per player: a player rated ``exempt_from`` or more uses the
    real difference (FIDE 8.3.1 as amended from 1 October 2025). With the table
    (8.1.2) the result is a whole number of hundredths.

    >>> expected_hundredths([1500, 2700], [1000, 2200], cap=400, exempt_from=2650,
    ...                     expectation="table").tolist()
    [92.0, 96.0]
    """
    own = np.asarray(own, dtype=np.float64)
    d = own - np.asarray(opp, dtype=np.float64)
    if cap is not None:
        capped = np.clip(d, -cap, cap)
        d = capped if exempt_from is None else np.where(own >= exempt_from, d, capped)
    if expectation == "table":
        return pd_hundredths(d).astype(np.float64)
    e = logistic_expectation(d)
    if round_expectation is not None:
        scale = 10.0**round_expectation
        e = np.floor(e * scale + 0.5) / scale
    return 100.0 * e


def rules_expected(rules: ListRules, own: ArrayLike, opp: ArrayLike) -> FloatArray:
    """:func:`expected_hundredths` with a system's rules."""
    return expected_hundredths(
        own,
        opp,
        cap=rules.cap,
        exempt_from=rules.exempt_from,
        expectation=rules.expectation,
        round_expectation=rules.round_expectation,
    )


def apply_700_rule(k: ArrayLike, n_games: ArrayLike) -> IntArray:
    """The 700 rule: if ``K * n > 700``, K becomes ``700 // n`` for the period.

    >>> apply_700_rule([40, 20, 20, 40], [20, 40, 39, 17]).tolist()
    [35, 17, 17, 40]
    """
    n = np.maximum(np.asarray(n_games, dtype=np.intp), 1)
    out: IntArray = np.minimum(np.asarray(k, dtype=np.intp), 700 // n)
    return out


class _PeriodGames(NamedTuple):
    """What the rest of a period needs from its games.

    Attributes
    ----------
    change : ndarray of shape (n_players,)
        Rating change, rounded (0 for players unrated now).
    n_rated : ndarray of shape (n_players,)
        Rated games (G grows by these).
    pool_white, pool_black : ndarray of shape (n_pool_white,), (n_pool_black,)
        Games whose White (Black) alone is unrated, on the list the game uses
        and now: their results enter the pool.
    opp_rating : ndarray of shape (n_pool_white + n_pool_black,) or None
        The rated opponent's rating in those games, White's games first;
        None when it is their rating on the list in force.
    candidates : ndarray of shape (n_players,)
        Players unrated now with games in the period.
    """

    change: FloatArray
    n_rated: IntArray
    pool_white: IntArray
    pool_black: IntArray
    opp_rating: FloatArray | None
    candidates: BoolArray
