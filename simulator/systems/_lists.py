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
from numpy.typing import ArrayLike, NDArray

from simulator._types import BoolArray
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
    "ListSystem",
    "Pool",
    "PoolFilter",
    "apply_700_rule",
    "expected_hundredths",
    "new_list_state",
    "period_k",
    "rate_list_period",
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


def _sides_expected(
    rules: ListRules, r_white: FloatArray, r_black: FloatArray
) -> FloatArray:
    """:func:`rules_expected` of both sides of games, White's sides then Black's.

    The same values as ``rules_expected(rules, [r_white, r_black], [r_black,
    r_white])``. With the table, Black's PD is read from White's difference:
    ``b - a == -(a - b)`` exactly in floating point, the cap's clip is
    symmetric, and so is the table (``PD(-D) = 100 - PD(D)``, rint included),
    so only the exemption is looked up per side.
    """
    n = r_white.shape[0]
    if rules.expectation != "table":
        return rules_expected(
            rules,
            np.concatenate([r_white, r_black]),
            np.concatenate([r_black, r_white]),
        )
    d = r_white - r_black
    pd = pd_hundredths(d if rules.cap is None else np.clip(d, -rules.cap, rules.cap))
    out = np.empty(2 * n)
    out[:n] = pd
    np.subtract(100, pd, out=out[n:], casting="unsafe")
    if rules.cap is not None and rules.exempt_from is not None:
        # An exempt side uses the real D (the same PD when D is within the
        # cap); games with an exempt player are few.
        top = np.flatnonzero(np.maximum(r_white, r_black) >= rules.exempt_from)
        if top.size:
            for own, first in ((r_white, 0), (r_black, n)):
                at = top[own[top] >= rules.exempt_from]
                real = pd_hundredths(d[at])
                out[first + at] = real if first == 0 else 100 - real
    return out


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
    # Most games use the list in force: they are read from its row (1-D
    # gathers); ``older`` lists the games on an older list, patched in.
    last = state.list_day.size - 1
    which = np.empty(0, dtype=np.intp)
    older = np.empty(0, dtype=np.intp)
    if games.event_start is None:
        event = np.full(n_games, -1 - state.period, dtype=np.intp)
        event_start = np.full(n_games, float(current_day))
    else:
        event = np.asarray(games.event)
        event_start = np.asarray(games.event_start)
        # (A NaN start fails the test and takes the search.)
        if n_games and not event_start.min() >= state.list_day[last]:
            which = np.searchsorted(state.list_day, event_start, side="right") - 1
            if which.min() < 0:
                raise ValueError(
                    f"{rules.owner} keeps the last {rules.n_lists_kept} lists; an "
                    f"event starting on day {event_start[which.argmin()]:g} is "
                    "older."
                )
            older = np.flatnonzero(which != last)
        too_late = event_start >= new_day
        if too_late.any():
            raise ValueError(
                f"An event starting on day {event_start[too_late][0]:g} cannot be "
                f"rated on a list dated {new_day}."
            )

    # Each game seen from both sides. The sides are kept per game (White's,
    # Black's) and only the filtered ones are joined, White's sides first,
    # then Black's: the order of every per-player sum below.
    white, black, score = games.white, games.black, games.score
    r_w = state.rating[white]
    r_b = state.rating[black]
    if older.size:
        r_w[older] = state.list_rating[which[older], white[older]]
        r_b[older] = state.list_rating[which[older], black[older]]
    nan_w, nan_b = np.isnan(r_w), np.isnan(r_b)
    # Unrated now, per side: unrated on the list the game uses, except on an
    # older list.
    unrated_now = np.isnan(state.rating)
    now_w, now_b = nan_w, nan_b
    if older.size:
        now_w, now_b = nan_w.copy(), nan_b.copy()
        now_w[older] = unrated_now[white[older]]
        now_b[older] = unrated_now[black[older]]

    # Rated games: both players rated on the list the event uses. (Positions,
    # not masks, select them: several arrays are gathered with each.)
    rated = np.flatnonzero(~(nan_w | nan_b))
    w_r, b_r = white[rated], black[rated]
    rw_r, rb_r = r_w[rated], r_b[rated]
    p_r = np.concatenate([w_r, b_r])
    n_rated = np.bincount(p_r, minlength=n_players)
    if older.size == 0:
        # K and the 700 rule depend on the player only: once per player.
        k_player = state.k
        if rules.rule_700:
            k_player = apply_700_rule(k_player, n_rated)
        k = k_player[p_r]
    else:
        k = state.k[p_r]
        on_older = np.zeros(n_games, dtype=bool)
        on_older[older] = True
        at = np.flatnonzero(on_older[rated])  # rated games on an older list
        which_at = which[rated[at]]
        k[at] = state.list_k[which_at, w_r[at]]
        k[rated.size + at] = state.list_k[which_at, b_r[at]]
        if rules.rule_700:
            k = apply_700_rule(k, n_rated[p_r])
    pd = _sides_expected(rules, rw_r, rb_r)
    s_r = score[rated]
    # In hundredths: with the table every term is an integer, so the sum is exact.
    term = k * (100.0 * np.concatenate([s_r, 1.0 - s_r]) - pd)
    if rules.rounding == "period":
        change = round_half_away(player_sum(p_r, term, n_players) / 100.0)
    else:
        # Each (player, event) change is rounded on its own, then summed.
        e_r = event[rated]
        inv, owner, _ = _pair_groups(p_r, np.concatenate([e_r, e_r]))
        per_event = np.bincount(inv, weights=term)
        change = player_sum(
            owner.astype(np.intp), round_half_away(per_event / 100.0), n_players
        )

    old = state.rating
    new = old + change  # NaN stays NaN: a player unrated now gains nothing.
    g = state.n_games + n_rated

    # Unrated players' results against rated opponents enter their pool
    # (unrated on the list the game uses and now).
    pool_w = nan_w & ~nan_b
    pool_b = nan_b & ~nan_w
    if older.size:
        pool_w &= now_w
        pool_b &= now_b
    to_w, to_b = np.flatnonzero(pool_w), np.flatnonzero(pool_b)
    new_rows = Pool(
        np.concatenate([white[to_w], black[to_b]]),
        np.concatenate([black[to_w], white[to_b]]),
        np.concatenate([r_b[to_w], r_w[to_b]]),
        np.concatenate([score[to_w], 1.0 - score[to_b]]),
        np.full(to_w.size + to_b.size, state.period, dtype=np.intp),
    )
    keep_new = _filter_events(
        rules,
        new_rows,
        np.concatenate([event[to_w], event[to_b]]),
        np.concatenate([event_start[to_w], event_start[to_b]]),
        state.first_event_done,
    )
    first_done = state.first_event_done.copy()
    first_done[new_rows.player] = True
    if not keep_new.all():
        new_rows = new_rows.take(keep_new)

    # Results older than the window drop out (this period's rows stay in a
    # window of at least one period).
    window = state.period - rules.pool_periods
    if rules.pool_periods >= 1:
        old_rows = state.pool
        if old_rows.period.size and old_rows.period.min() <= window:
            old_rows = old_rows.take(old_rows.period > window)
        pool = old_rows.concat(new_rows)
    else:
        pool = state.pool.concat(new_rows)
        pool = pool.take(pool.period > window)

    # Initial ratings, recomputed for every player unrated now who has games in
    # this period (even against unrated opponents only: old results may have
    # left the window).
    candidates = np.zeros(n_players, dtype=bool)
    candidates[white[now_w]] = True
    candidates[black[now_b]] = True
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


def _pair_groups(
    first: IntArray, second: IntArray
) -> tuple[IntArray, NDArray[np.int64], NDArray[np.int64]]:
    """Group equal ``(first, second)`` pairs, numbered in lexicographic order.

    What ``np.unique(np.stack([first, second]), axis=1, return_inverse=True)``
    gives, through one 1-D int64 key (a sort of plain integers, not of
    structured rows): the group of every pair and each group's two values.
    """
    a = np.asarray(first, dtype=np.int64)
    b = np.asarray(second, dtype=np.int64)
    if a.size == 0:
        empty = np.empty(0, dtype=np.int64)
        return np.empty(0, dtype=np.intp), empty, empty
    a_low, b_low = int(a.min()), int(b.min())
    span = int(b.max()) - b_low + 1
    if (int(a.max()) - a_low + 1) * span >= 2**62:
        uniq2, inv2 = np.unique(np.stack([a, b]), axis=1, return_inverse=True)
        return inv2.ravel(), uniq2[0], uniq2[1]
    key = (a - a_low) * span + (b - b_low)
    uniq, inv = np.unique(key, return_inverse=True)
    return inv.ravel(), uniq // span + a_low, uniq % span + b_low


def _event_groups(
    player: IntArray, event: IntArray, opp: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Group pool rows by (player, event), in lexicographic order.

    Returns each row's group, each group's player and event, and the number
    of distinct opponents in each group. One sort of a 1-D int64 key
    ``(player, event, opponent)`` gives both groupings.
    """
    p = np.asarray(player, dtype=np.int64)
    e = np.asarray(event, dtype=np.int64)
    o = np.asarray(opp, dtype=np.int64)
    lows = [int(p.min()), int(e.min()), int(o.min())]
    e_span = int(e.max()) - lows[1] + 1
    o_span = int(o.max()) - lows[2] + 1
    if (int(p.max()) - lows[0] + 1) * e_span * o_span >= 2**62:
        inv, group_player, group_event = _pair_groups(p, e)
        _, met, _ = _pair_groups(inv, o)
        n_groups = group_player.size
        return (
            inv,
            group_player.astype(np.intp),
            group_event.astype(np.intp),
            np.bincount(met, minlength=n_groups),
        )
    key = ((p - lows[0]) * e_span + (e - lows[1])) * o_span + (o - lows[2])
    order = np.argsort(key)
    sorted_key = key[order]
    pair = sorted_key // o_span
    new_group = np.empty(key.size, dtype=bool)
    new_group[0] = True
    np.not_equal(pair[1:], pair[:-1], out=new_group[1:])
    group_sorted = np.cumsum(new_group) - 1
    inv = np.empty(key.size, dtype=np.intp)
    inv[order] = group_sorted
    group_key = pair[new_group]
    new_opp = np.empty(key.size, dtype=bool)
    new_opp[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new_opp[1:])
    return (
        inv,
        (group_key // e_span + lows[0]).astype(np.intp),
        (group_key % e_span + lows[1]).astype(np.intp),
        np.bincount(group_sorted[new_opp], minlength=group_key.size),
    )


def _first_events(ev_player: IntArray, ev_start: FloatArray) -> BoolArray:
    """Each player's earliest event, the lowest event id among equally early ones.

    ``ev_player`` is sorted, and within a player the events are in increasing
    id order (as :func:`_event_groups` numbers them), so among the events at
    a player's earliest start the first one is meant. NaN starts count last,
    as in a sort.
    """
    n = ev_player.size
    seg = np.flatnonzero(np.r_[True, ev_player[1:] != ev_player[:-1]])
    seg_len = np.diff(np.r_[seg, n])
    earliest = np.repeat(np.fmin.reduceat(ev_start, seg), seg_len)
    candidate = np.flatnonzero((ev_start == earliest) | np.isnan(earliest))
    seg_of = np.repeat(np.arange(seg.size), seg_len)[candidate]
    first = np.zeros(n, dtype=bool)
    first[candidate[np.r_[True, seg_of[1:] != seg_of[:-1]]]] = True
    return first


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
    # One group per (player, event); distinct rated opponents met in each,
    # not games: a double round against two players is two opponents.
    inv, ev_player, _, ev_opponents = _event_groups(rows.player, event, rows.opp)
    n_events = ev_player.size
    ev_points = np.asarray(
        np.bincount(inv, weights=rows.score, minlength=n_events), dtype=np.float64
    )
    ev_start = np.full(n_events, np.inf)
    np.minimum.at(ev_start, inv, event_start)
    # The first event of a spell: the earliest (then lowest id) event of a
    # player who has not had one yet.
    is_first = _first_events(ev_player, ev_start) & ~first_event_done[ev_player]
    keep_event = rules.pool_filter(is_first, ev_opponents, ev_points)
    return np.asarray(keep_event[inv])


class ListSystem:
    """What the list-based systems (FIDE, old-style FIDE) share beyond the rules.

    A mixin for their frozen dataclasses, which supply ``_rules`` (built in
    ``__post_init__``), ``months`` and ``unrated_prediction``.
    """

    _rules: ListRules
    months: int
    unrated_prediction: float

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

    def next_close(self, day: float) -> int:
        """The date of the next list after ``day``: the current period's close."""
        return list_day_after(day, self.months)

    def expected_score(
        self, state: ListState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's PD on the list in force, with White's own cap.

        Unrated players count as rated ``unrated_prediction`` here only.
        """
        r = np.where(np.isnan(state.rating), self.unrated_prediction, state.rating)
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        return rules_expected(self.rules, r[w], r[b]) / 100.0

    def rate(
        self, state: ListState, games: Games, *, day: float | None = None
    ) -> ListState:
        """Rate one period (one list) of games and publish the next list.

        ``day`` is the new list's date (by default the next list of the
        calendar). Games carry their event and its start day; without them all
        of a player's games in the period form one event on the current list.
        """
        return rate_list_period(self.rules, state, games, day)

    def rating(self, state: ListState) -> FloatArray:
        """Published ratings on the list in force (NaN = unrated)."""
        return state.rating.copy()
