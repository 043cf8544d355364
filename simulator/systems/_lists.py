"""The rating-list machinery shared by the FIDE rules and the old-style rules.

Both rate in periods that end with a published list: every game of an event
uses the list in force on the event's start day, the period change is
``K * sum(score - PD)`` rounded half away from zero, unrated players pool
results against rated opponents until an initial rating is published, and a
rating below the floor is removed from the list. What differs between the two
(K factors, cap, expectation, initial-rating formula, 700 rule) is supplied by
the system through :class:`ListRules`; the rules themselves live in
``fide.py`` and ``classic.py`` where RULES.md names them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    check_players_count,
    list_day_after,
    list_day_on,
    player_sum,
    round_half_away,
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
    "new_list_state",
    "period_k",
    "rate_list_period",
    "rules_expected",
]

BoolArray = np.ndarray[tuple[int], np.dtype[np.bool_]]

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
    return np.where(np.isnan(rating), 0, k).astype(np.intp)


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


def rate_list_period(
    rules: ListRules, state: ListState, games: Games, day: float | None
) -> ListState:
    """Rate one period and publish the next list (RULES.md sections 1 and 2).

    Parameters
    ----------
    rules : ListRules
        The system's rules.
    state : ListState
        The state with the list in force.
    games : Games
        Every game of the events rated in this period.
    day : float or None
        Date of the new list; by default the next list date of the calendar.
    """
    n_players = state.n_games.shape[0]
    games.check_players(n_players)
    current_day = int(state.list_day[-1])
    new_day = list_day_after(current_day, rules.months) if day is None else int(day)
    if new_day <= current_day:
        raise ValueError(
            f"The new list's day ({new_day}) must come after the current list's "
            f"({current_day})."
        )
    n_games = games.n_games

    # Which list each game uses: the one in force on its event's start day.
    if games.event_start is None:
        which = np.full(n_games, state.list_day.size - 1, dtype=np.intp)
        event = np.full(n_games, -1 - state.period, dtype=np.intp)
        event_start = np.full(n_games, float(current_day))
    else:
        which = np.searchsorted(state.list_day, games.event_start, side="right") - 1
        if n_games and which.min() < 0:
            raise ValueError(
                f"{rules.owner} keeps the last {rules.n_lists_kept} lists; an event "
                f"starting on day {games.event_start[which.argmin()]:g} is older."
            )
        event = np.asarray(games.event)
        event_start = np.asarray(games.event_start)
        too_late = event_start >= new_day
        if too_late.any():
            raise ValueError(
                f"An event starting on day {event_start[too_late][0]:g} cannot be "
                f"rated on a list dated {new_day}."
            )

    # Each game seen from both sides.
    player = np.concatenate([games.white, games.black])
    opp = np.concatenate([games.black, games.white])
    score = np.concatenate([games.score, 1.0 - games.score])
    which2 = np.concatenate([which, which])
    own_r = state.list_rating[which2, player]
    opp_r = state.list_rating[which2, opp]
    own_k = state.list_k[which2, player]
    side_event = np.concatenate([event, event])
    side_start = np.concatenate([event_start, event_start])

    # Rated games: both players rated on the list the event uses.
    rated = ~np.isnan(own_r) & ~np.isnan(opp_r)
    p_r = player[rated]
    n_rated = np.bincount(p_r, minlength=n_players)
    k = own_k[rated]
    if rules.rule_700:
        k = apply_700_rule(k, n_rated[p_r])
    pd = rules_expected(rules, own_r[rated], opp_r[rated])
    # In hundredths: with the table every term is an integer, so the sum is exact.
    term = k * (100.0 * score[rated] - pd)
    if rules.rounding == "period":
        change = round_half_away(player_sum(p_r, term, n_players) / 100.0)
    else:
        # Each (player, event) change is rounded on its own, then summed.
        pairs = np.stack([p_r.astype(np.int64), side_event[rated].astype(np.int64)])
        _, inv = np.unique(pairs, axis=1, return_inverse=True)
        inv = inv.ravel()
        per_event = np.bincount(inv, weights=term)
        owner = np.zeros(per_event.size, dtype=np.intp)
        owner[inv] = p_r
        change = player_sum(owner, round_half_away(per_event / 100.0), n_players)

    old = state.rating
    new = old + change  # NaN stays NaN: a player unrated now gains nothing.
    g = state.n_games + n_rated

    # Unrated players' results against rated opponents enter their pool.
    unrated_now = np.isnan(old)
    to_pool = np.isnan(own_r) & ~np.isnan(opp_r) & unrated_now[player]
    new_rows = Pool(
        player[to_pool],
        opp[to_pool],
        opp_r[to_pool],
        score[to_pool],
        np.full(int(to_pool.sum()), state.period, dtype=np.intp),
    )
    keep_new = _filter_events(
        rules,
        new_rows,
        side_event[to_pool],
        side_start[to_pool],
        state.first_event_done,
    )
    first_done = state.first_event_done.copy()
    first_done[new_rows.player] = True
    new_rows = new_rows.take(keep_new)

    pool = state.pool.concat(new_rows)
    # Results older than the window drop out.
    pool = pool.take(pool.period > state.period - rules.pool_periods)

    # Initial ratings, recomputed for every player unrated now who has games in
    # this period (even against unrated opponents only: old results may have
    # left the window).
    candidates = np.zeros(n_players, dtype=bool)
    candidates[player[unrated_now[player]]] = True
    in_pool = candidates[pool.player]
    n_pool = np.bincount(pool.player[in_pool], minlength=n_players).astype(np.float64)
    points = player_sum(pool.player[in_pool], pool.score[in_pool], n_players)
    opp_sum = player_sum(pool.player[in_pool], pool.opp_rating[in_pool], n_players)
    ru = np.full(n_players, np.nan)
    idx = np.flatnonzero(candidates)
    ru[idx] = rules.initial(opp_sum[idx], n_pool[idx], points[idx])
    with np.errstate(invalid="ignore"):
        published = ~np.isnan(ru) & (ru >= rules.floor)
    new = np.where(published, ru, new)
    g = g + np.where(published, n_pool, 0).astype(np.intp)
    pool = pool.take(~published[pool.player])

    # The floor: a rating below it leaves the list; the next spell starts afresh.
    with np.errstate(invalid="ignore"):
        dropped = new < rules.floor
    new = np.where(dropped, np.nan, new)
    first_done = np.where(dropped | published, False, first_done)

    with np.errstate(invalid="ignore"):
        ever_2400 = state.ever_2400 | (new >= 2400)
        ever_2300 = state.ever_2300 | (new >= 2300)

    keep = max(rules.n_lists_kept - 1, 0)
    list_day = np.append(state.list_day[state.list_day.size - keep :], new_day)
    interim = state._replace(
        list_day=list_day,
        n_games=g.astype(np.intp),
        ever_2400=ever_2400,
        ever_2300=ever_2300,
    )
    k_new = period_k(rules, new, interim)
    return interim._replace(
        list_rating=np.vstack([state.list_rating[state.list_day.size - keep :], new]),
        list_k=np.vstack([state.list_k[state.list_day.size - keep :], k_new]),
        first_event_done=first_done,
        period=state.period + 1,
        pool=pool,
    )


def _filter_events(
    rules: ListRules,
    rows: Pool,
    event: IntArray,
    event_start: FloatArray,
    first_event_done: BoolArray,
) -> BoolArray:
    """Which new pool rows survive the system's per-event rules."""
    if rows.player.size == 0:
        return np.ones(0, dtype=bool)
    # One key per (player, event).
    pairs = np.stack([rows.player.astype(np.int64), event.astype(np.int64)])
    uniq, inv = np.unique(pairs, axis=1, return_inverse=True)
    inv = inv.ravel()
    n_events = uniq.shape[1]
    ev_player = uniq[0].astype(np.intp)
    ev_points = np.asarray(
        np.bincount(inv, weights=rows.score, minlength=n_events), dtype=np.float64
    )
    # Distinct rated opponents met in each (player, event), not games: a double
    # round against two players is two opponents.
    met = np.unique(np.stack([inv.astype(np.int64), rows.opp.astype(np.int64)]), axis=1)
    ev_opponents = np.bincount(met[0], minlength=n_events)
    ev_start = np.full(n_events, np.inf)
    np.minimum.at(ev_start, inv, event_start)
    # The first event of a spell: the earliest (then lowest id) event of a
    # player who has not had one yet.
    order = np.lexsort((uniq[1], ev_start, ev_player))
    first_of_player = np.zeros(n_events, dtype=bool)
    sorted_players = ev_player[order]
    starts = np.r_[True, sorted_players[1:] != sorted_players[:-1]]
    first_of_player[order[starts]] = True
    is_first = first_of_player & ~first_event_done[ev_player]
    keep_event = rules.pool_filter(is_first, ev_opponents, ev_points)
    return np.asarray(keep_event[inv])
