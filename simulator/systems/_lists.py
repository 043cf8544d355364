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

from simulator._jit import jit
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
from simulator.systems.tables import PD_UPPER_BOUNDS, pd_hundredths

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
    #: Whether ``pool_filter`` keeps every event but a player's first: then
    #: only first events are grouped (the filter's verdict is the same).
    pool_filter_first_only: bool = False
    #: Whether ``pool_filter`` reads ``is_first``: if not, it gets all False
    #: (first events are not looked for).
    pool_filter_reads_first: bool = True

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
    if rules.expectation != "table":
        return rules_expected(
            rules,
            np.concatenate([r_white, r_black]),
            np.concatenate([r_black, r_white]),
        )
    return _sides_by_table(r_white, r_black, *rules.table_bounds, _PD_BY_D)


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

    Notes
    -----
    A period whose games all use the list in force, with table 8.1.2 and one
    rounding per period (the usual case), is rated through lookup tables
    (:func:`_rate_by_table`); any other through :func:`_rate_on_lists`.
    Both give the same ratings, to the last bit.
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
        # (A NaN start is never too late.)
        if n_games and np.fmax.reduce(event_start) >= new_day:
            too_late = event_start >= new_day
            raise ValueError(
                f"An event starting on day {event_start[too_late][0]:g} cannot be "
                f"rated on a list dated {new_day}."
            )

    white, black, score = games.white, games.black, games.score
    part = None
    if older.size == 0:
        part = _rate_by_table(rules, state, white, black, score)
    if part is None:
        part = _rate_on_lists(rules, state, games, event, which, older)

    old = state.rating
    # The new pool rows: unrated players' results against rated opponents
    # (unrated on the list the game uses and now), White's rows, then
    # Black's, that pass the system's per-event rules.
    rows = _NewRows(
        white, black, score, event, event_start, part.pool_white, part.pool_black
    )
    keep_rows, fields = _filter_events(rules, rows, state.first_event_done)
    # (Empty: the opponents' ratings on the list in force.)
    opp_rating = np.empty(0) if part.opp_rating is None else part.opp_rating

    # Results older than the window drop out (this period's rows stay in a
    # window of at least one period).
    window = state.period - rules.pool_periods
    old_rows = state.pool
    if old_rows.period.size and old_rows.period.min() <= window:
        old_rows = old_rows.take(old_rows.period > window)
    if not state.period > window:
        keep_rows = np.zeros(rows.size, dtype=bool)

    # Initial ratings, recomputed for every player unrated now who has games in
    # this period (even against unrated opponents only: old results may have
    # left the window), from the pool: the old rows, then the new, in one
    # pass (sums over other players' rows are not read).
    change, n_rated, candidates = part.change, part.n_rated, part.candidates
    del part
    # Each player's count, points and opponents' ratings side by side: the
    # rows add to them at random.
    sums = np.zeros((n_players, 3))
    _add_pool_rows(old_rows.player, old_rows.score, old_rows.opp_rating, sums)
    first_done = state.first_event_done.copy()
    if fields is None:
        _add_new_rows(
            rows.on_white,
            rows.on_black,
            keep_rows,
            white,
            black,
            score,
            opp_rating,
            old,
            sums,
            first_done,
        )
    else:
        # The filter gathered every row's fields: the kept rows are read from
        # them, not from the games again.
        player, opp, row_score = fields
        first_done[player] = True
        kept = np.flatnonzero(keep_rows)
        _add_rows_at(kept, player, opp, row_score, opp_rating, old, sums)
    idx = np.flatnonzero(candidates)
    ru = rules.initial(sums[idx, 2], sums[idx, 0], sums[idx, 1])
    new, g, published, ever_2400, ever_2300 = _new_list(
        old,
        change,
        state.n_games,
        n_rated,
        idx,
        ru,
        sums[:, 0],
        rules.floor,
        first_done,
        state.ever_2400,
        state.ever_2300,
    )
    # A published player's rows leave the pool.
    stay = ~published[old_rows.player]
    if not stay.all():
        old_rows = old_rows.take(stay)
    if fields is None:
        new_rows = Pool(
            *_pool_of_rows(
                rows.on_white,
                rows.on_black,
                keep_rows,
                published,
                white,
                black,
                score,
                opp_rating,
                old,
                state.period,
            )
        )
    else:
        at = kept[~published[player[kept]]]
        opp_at = opp[at]
        new_rows = Pool(
            player[at],
            opp_at,
            opp_rating[at] if opp_rating.size else old[opp_at],
            row_score[at],
            np.full(at.size, state.period, dtype=np.intp),
        )
    pool = old_rows.concat(new_rows) if old_rows.player.size else new_rows

    keep = max(rules.n_lists_kept - 1, 0)
    list_day = np.append(state.list_day[state.list_day.size - keep :], new_day)
    interim = state._replace(
        list_day=list_day,
        n_games=g.astype(np.intp, copy=False),
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


@jit
def _new_list(
    old: FloatArray,
    change: FloatArray,
    n_games: IntArray,
    n_rated: IntArray,
    candidates: IntArray,
    ru: FloatArray,
    n_pool: FloatArray,
    floor: float,
    first_event_done: BoolArray,
    ever_2400: BoolArray,
    ever_2300: BoolArray,
) -> tuple[FloatArray, IntArray, BoolArray, BoolArray, BoolArray]:
    """The new list's ratings and G, who is published, and the 2400 and 2300 flags.

    ``ru`` is the initial rating of the ``candidates``: those at the floor or
    above are published, with their pooled games. The others' ratings move
    by ``change`` (NaN stays NaN: a player unrated now gains nothing). A
    rating below the floor leaves the list; then, as on publication, the
    next unrated spell starts afresh (``first_event_done``, updated).
    """
    n = old.shape[0]
    new = np.empty(n)
    g = np.empty(n, dtype=np.intp)
    published = np.zeros(n, dtype=np.bool_)
    for i in range(candidates.shape[0]):
        if ru[i] >= floor:
            published[candidates[i]] = True
            new[candidates[i]] = ru[i]
    new_2400 = np.empty(n, dtype=np.bool_)
    new_2300 = np.empty(n, dtype=np.bool_)
    for p in range(n):
        g[p] = n_games[p] + n_rated[p]
        if published[p]:
            g[p] += int(n_pool[p])
        else:
            new[p] = old[p] + change[p]
        if new[p] < floor:
            new[p] = np.nan
            first_event_done[p] = False
        elif published[p]:
            first_event_done[p] = False
        new_2400[p] = ever_2400[p] or new[p] >= 2400
        new_2300[p] = ever_2300[p] or new[p] >= 2300
    return new, g, published, new_2400, new_2300


@jit
def _add_pool_rows(
    player: IntArray,
    score: FloatArray,
    opp_rating: FloatArray,
    sums: FloatArray,
) -> None:
    """Add pool rows to their players' count, points and opponents' ratings.

    ``sums`` holds the three in its columns.

    Row after row, as ``np.bincount`` (or ``np.add.at``) adds them.
    """
    for i in range(player.shape[0]):
        p = player[i]
        sums[p, 0] += 1
        sums[p, 1] += score[i]
        sums[p, 2] += opp_rating[i]


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


def _rate_on_lists(
    rules: ListRules,
    state: ListState,
    games: Games,
    event: IntArray,
    which: IntArray,
    older: IntArray,
) -> _PeriodGames:
    """The period's games, each side on the list its event uses.

    The general path: it handles events on older lists, the logistic
    expectation and the rounding per event. ``which`` is the list of every
    game and ``older`` the games on an older list (empty for none).
    """
    n_players = state.n_games.shape[0]
    n_games = games.n_games
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

    pool_w = nan_w & ~nan_b
    pool_b = nan_b & ~nan_w
    if older.size:
        pool_w &= now_w
        pool_b &= now_b
    to_w, to_b = np.flatnonzero(pool_w), np.flatnonzero(pool_b)
    candidates = np.zeros(n_players, dtype=bool)
    candidates[white[now_w]] = True
    candidates[black[now_b]] = True
    return _PeriodGames(
        change,
        n_rated,
        to_w,
        to_b,
        np.concatenate([r_b[to_w], r_w[to_b]]),
        candidates,
    )


#: Rated players further apart than this take the general path: the lookup
#: tables of :func:`_rate_by_table` grow with the spread.
_MAX_TABLE_SPREAD = 10_000


@jit
def _list_scan(
    rating: FloatArray, exempt_from: float
) -> tuple[float, float, bool, bool]:
    """The lowest and highest ratings, whether all are whole, whether any is exempt.

    NaN (unrated) is skipped; with no rated player, the lowest and highest
    are 0. A player is exempt from the cap if rated ``exempt_from`` or more.
    """
    low, high = np.inf, -np.inf
    whole = True
    any_exempt = False
    for r in rating:
        if np.isnan(r):
            continue
        low, high = min(low, r), max(high, r)
        # rint(r) - r is 0 for a whole rating (NaN for an infinite one).
        off = np.rint(r) - r
        whole &= not (off > 0 or off < 0)
        any_exempt |= r >= exempt_from
    if low > high:
        return 0.0, 0.0, whole, any_exempt
    return low, high, whole, any_exempt


@jit
def _player_codes(
    rating: FloatArray,
    low: float,
    half: int,
    block: int,
    exempt_from: float,
    exempt_width: float,
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Each player's codes as White and as Black (:func:`_rate_by_table`).

    An exempt player's codes move by ``exempt_width`` (White) and twice that
    (Black); an unrated player's are ``half + block`` and ``-2 * block``, in
    place of NaN. (int32, as they all fit: the games' loop reads them at
    random, and in half the bytes they stay in the CPU's cache.)
    """
    n = rating.shape[0]
    code_w = np.empty(n, dtype=np.int32)
    code_b = np.empty(n, dtype=np.int32)
    for p in range(n):
        r = rating[p]
        exempt = exempt_width if r >= exempt_from else 0.0
        w = r - low + half + exempt
        b = r - low - 2 * exempt
        code_w[p] = half + block if np.isnan(w) else min(w, half + block)
        code_b[p] = -2 * block if np.isnan(b) else max(b, -2 * block)
    return code_w, code_b


def _pd_by_difference(rules: ListRules, half: int) -> tuple[FloatArray, FloatArray]:
    """PD in hundredths (table 8.1.2) for ``D = -half .. half``, capped and real.

    Read as :func:`expected_hundredths` and :func:`_sides_expected` read it,
    value by value: a table by ``D + half`` gives their results.
    """
    d = np.arange(-half, half + 1, dtype=np.float64)
    real = pd_hundredths(d).astype(np.float64)
    capped = real
    if rules.cap is not None:
        capped = pd_hundredths(np.clip(d, -rules.cap, rules.cap)).astype(np.float64)
    return capped, real


#: Table 8.1.2 by whole difference ``D = -_D_LIMIT .. _D_LIMIT`` (index
#: ``D + _D_LIMIT``): beyond, PD is 1.00 or 0 as at the ends.
_D_LIMIT = int(PD_UPPER_BOUNDS[-1]) + 1
_PD_BY_D = pd_hundredths(np.arange(-_D_LIMIT, _D_LIMIT + 1))
#: Whole differences from here on (in size) are not int64s.
_INT64_END = 2.0**63


@jit
def _table_pd(d: float, pd_by_d: NDArray[np.int64]) -> int:
    """:func:`pd_hundredths` of one difference, looked up in ``pd_by_d``.

    The kernels take ``_PD_BY_D`` as an argument: as a global, numba would
    freeze it into its cache, which a change to ``tables.py`` does not renew.
    """
    d = np.rint(d)
    if not -_INT64_END < d < _INT64_END:
        # pd_hundredths gives PD .50 where D is not an int64 (NaN, inf).
        return 50
    half = pd_by_d.shape[0] // 2
    return int(pd_by_d[min(max(int(d), -half), half) + half])


@jit
def _capped(d: float, cap: float) -> float:
    """``np.clip(d, -cap, cap)`` (NaN stays NaN)."""
    if d > cap:
        return cap
    if d < -cap:
        return -cap
    return d


@jit
def _expected_by_table(
    rating: FloatArray,
    white: IntArray,
    black: IntArray,
    unrated: float,
    cap: float,
    exempt_from: float,
    pd_by_d: NDArray[np.int64],
) -> FloatArray:
    """White's PD (table 8.1.2) in the games, over 100, as :func:`rules_expected`.

    ``rating`` is the list (NaN, unrated, counts as ``unrated``); no cap is
    ``cap = inf`` and no exemption ``exempt_from = NaN``.
    """
    n = rating.shape[0]
    out = np.empty(white.shape[0])
    for j in range(white.shape[0]):
        if not (-n <= white[j] < n and -n <= black[j] < n):
            raise IndexError("a game's player index is out of bounds")
        own = rating[white[j]]
        opp = rating[black[j]]
        if np.isnan(own):
            own = unrated
        if np.isnan(opp):
            opp = unrated
        d = own - opp
        if not own >= exempt_from:
            d = _capped(d, cap)
        out[j] = _table_pd(d, pd_by_d) / 100.0
    return out


@jit
def _sides_by_table(
    r_white: FloatArray,
    r_black: FloatArray,
    cap: float,
    exempt_from: float,
    pd_by_d: NDArray[np.int64],
) -> FloatArray:
    """:func:`_sides_expected` with table 8.1.2 (no cap: ``inf``, no exemption: NaN).

    Black's PD is read from White's difference, as there.
    """
    n = r_white.shape[0]
    out = np.empty(2 * n)
    for j in range(n):
        d = r_white[j] - r_black[j]
        pd = _table_pd(_capped(d, cap), pd_by_d)
        # An exempt side uses the real D.
        out[j] = _table_pd(d, pd_by_d) if r_white[j] >= exempt_from else pd
        out[n + j] = 100 - (_table_pd(d, pd_by_d) if r_black[j] >= exempt_from else pd)
    return out


def _rate_by_table(
    rules: ListRules,
    state: ListState,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
) -> _PeriodGames | None:
    """The period's games through one table lookup per game and side.

    The fast path for every game on the list in force, PD from table 8.1.2
    and one rounding per period; None where it does not apply (then
    :func:`_rate_on_lists` gives the same result).

    Everything a game contributes depends only on its score, on which sides
    are rated, which are exempt from the cap and on the difference ``D`` of
    whole ratings. Each player gets one integer code per colour such that
    ``code_w[white] - code_b[black]`` numbers these cases, the score adds
    its own offset, and two small tables map the number to White's and
    Black's weight: no game array is compacted or sorted. A weight is
    ``unit + 100 * score - PD`` for a side of a rated game, ``unit`` for an
    unrated player's side and 0 for a rated player's side against an
    unrated one, so one addition per side sums both the terms and the
    games. ``unit`` is a power of two above ``200 * n_games`` and every term
    a whole number in [-100, 100]: every partial sum is a whole number below
    2**53, so the sums are exact in any order (the same as the general
    path's) and ``rint(sum / unit)`` splits them exactly into the games and
    ``sum(100 * score - PD)``.
    """
    if rules.expectation != "table" or rules.rounding != "period":
        return None
    rating = state.rating
    n_players = rating.shape[0]
    n_games = white.shape[0]
    unit = 2.0 ** (200 * n_games).bit_length()
    if (unit + 100.0) * n_games >= 2.0**53:
        return None
    # No exemption without a cap to be exempt from.
    exempt_from = np.nan if rules.cap is None else rules.table_bounds[1]
    low, high, whole, any_exempt = _list_scan(rating, exempt_from)
    # Rated players too far apart, or a rating not a whole number: no table
    # by difference.
    if not high - low <= _MAX_TABLE_SPREAD or not whole:
        return None
    half = int(high - low)

    # Cases of a game: status (0 both rated, 1 White alone unrated, 2 Black
    # alone unrated, 3 both unrated) * block + exemption (White exempt + 2 *
    # Black exempt, when anyone is) * width + D + half. The rated players'
    # codes are below half + block and above -2 * block.
    width = 2 * half + 1
    n_sub = 4 if any_exempt else 1
    block = n_sub * width
    code_w, code_b = _player_codes(
        rating, low, half, block, exempt_from, float(width) if any_exempt else 0.0
    )

    # PD of each side by D, as _sides_expected reads it: the capped
    # difference, or the real one for an exempt side.
    capped, real = _pd_by_difference(rules, half)
    pd_w = np.stack([capped, real, capped, real][:n_sub])
    pd_b = 100.0 - np.stack([capped, capped, real, real][:n_sub])
    s = np.array([0.0, 0.5, 1.0])[:, None, None]
    table_w = np.empty((3, 4, block))
    table_w[:, 0] = (unit + (100.0 * s - pd_w)).reshape(3, block)
    table_w[:, 1] = table_w[:, 3] = unit
    table_w[:, 2] = 0.0
    table_b = np.empty((3, 4, block))
    table_b[:, 0] = (unit + (100.0 * (1.0 - s) - pd_b)).reshape(3, block)
    table_b[:, 1] = 0.0
    table_b[:, 2] = table_b[:, 3] = unit

    sums = np.zeros(n_players)
    _add_by_table(
        code_w,
        code_b,
        white,
        black,
        score,
        block,
        table_w.ravel(),
        table_b.ravel(),
        sums,
    )
    unrated = np.isnan(rating)
    pool_white, pool_black = _pool_games(unrated, white, black)
    change, n_rated, candidates = _changes_by_sums(
        sums, unit, unrated, state.k, rules.rule_700
    )
    return _PeriodGames(change, n_rated, pool_white, pool_black, None, candidates)


@jit
def _changes_by_sums(
    sums: FloatArray, unit: float, unrated: BoolArray, k: IntArray, rule_700: bool
) -> tuple[FloatArray, IntArray, BoolArray]:
    """Changes, rated games and candidates from :func:`_rate_by_table`'s sums.

    What :func:`apply_700_rule` and ``round_half_away(K * total / 100)`` give
    per player, with ``total = sum(100 * score - PD)`` over rated games.
    """
    n = sums.shape[0]
    change = np.empty(n)
    n_rated = np.empty(n, dtype=np.intp)
    candidates = np.empty(n, dtype=np.bool_)
    for p in range(n):
        n_seen = np.rint(sums[p] / unit)
        total = sums[p] - n_seen * unit  # sum(100 * score - PD) over rated games
        n_rated[p] = 0 if unrated[p] else int(n_seen)
        k_p = k[p]
        if rule_700:
            k_p = min(k_p, 700 // max(n_rated[p], 1))
        # K * sum(...) is the sum of K * (...): whole numbers, exactly.
        change[p] = _round_half_away(k_p * total / 100.0)
        candidates[p] = unrated[p] and n_seen > 0
    return change, n_rated, candidates


@jit
def _round_half_away(x: float) -> float:
    """``round_half_away`` of one number, to the bit (the sign of 0 included)."""
    whole = float(np.trunc(x))
    half_or_more = abs(x - whole) >= 0.5
    # np.sign's: 0 for either zero, NaN for NaN.
    sign = 1.0 if x > 0 else -1.0 if x < 0 else 0.0 if x == 0 else x
    return whole + sign * half_or_more


@jit
def _add_by_table(
    code_w: NDArray[np.int32],
    code_b: NDArray[np.int32],
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    block: int,
    table_w: FloatArray,
    table_b: FloatArray,
    sums: FloatArray,
) -> None:
    """Add both sides' weights of the games (:func:`_rate_by_table`) to ``sums``.

    In one pass over the games: the sums are exact in any order.
    """
    for j in range(white.shape[0]):
        case = code_w[white[j]] - code_b[black[j]]
        # The score's tables: 0, 1 and 2 on (a score is 0, 0.5 or 1).
        at = int(score[j] * (8 * block)) + case
        sums[white[j]] += table_w[at]
        sums[black[j]] += table_b[at]


@jit
def _pool_games(
    unrated: BoolArray, white: IntArray, black: IntArray
) -> tuple[IntArray, IntArray]:
    """The games whose White alone is unrated, and those whose Black alone is."""
    n = white.shape[0]
    # Every position is written and the count alone says which are kept: a
    # branch would be mispredicted at random. (The buffers' untouched ends
    # cost nothing.)
    pool_white, pool_black = np.empty(n, np.intp), np.empty(n, np.intp)
    n_white = n_black = 0
    for j in range(n):
        w, b = unrated[white[j]], unrated[black[j]]
        pool_white[n_white] = j
        n_white += w and not b
        pool_black[n_black] = j
        n_black += b and not w
    return pool_white[:n_white], pool_black[:n_black]


class _NewRows(NamedTuple):
    """The period's new pool rows as sides of its games, White's rows first.

    A row is White's side of a game in ``on_white`` or Black's side of a game
    in ``on_black``: its player is that side, its opponent the other and its
    score White's or ``1 - score``. The rows' fields are not gathered up
    front: compiled passes read them from the game arrays, with a loop per
    side (a test per row is several times slower).
    """

    white: IntArray
    black: IntArray
    score: FloatArray
    event: IntArray
    event_start: FloatArray
    on_white: IntArray
    on_black: IntArray

    @property
    def size(self) -> int:
        """The number of rows."""
        return self.on_white.size + self.on_black.size

    def fields(
        self, with_start: bool
    ) -> tuple[IntArray, IntArray, FloatArray, IntArray, FloatArray]:
        """Each row's player, opponent, score, event and event start.

        The starts are left empty unless ``with_start``.
        """
        return _row_fields(
            self.on_white,
            self.on_black,
            self.white,
            self.black,
            self.score,
            self.event,
            self.event_start,
            with_start,
        )

    def take(self, at: IntArray) -> _NewRows:
        """The rows at the increasing positions ``at``."""
        split = int(np.searchsorted(at, self.on_white.size))
        return self._replace(
            on_white=self.on_white[at[:split]],
            on_black=self.on_black[at[split:] - self.on_white.size],
        )


@jit
def _row_fields(
    on_white: IntArray,
    on_black: IntArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    event: IntArray,
    event_start: FloatArray,
    with_start: bool,
) -> tuple[IntArray, IntArray, FloatArray, IntArray, FloatArray]:
    """:meth:`_NewRows.fields`, in one pass over the rows."""
    n = on_white.shape[0] + on_black.shape[0]
    player = np.empty(n, dtype=np.intp)
    opp = np.empty(n, dtype=np.intp)
    row_score = np.empty(n)
    row_event = np.empty(n, dtype=np.intp)
    row_start = np.empty(n if with_start else 0)
    row = 0
    for side in range(2):
        on, own, other = (
            (on_white, white, black) if side == 0 else (on_black, black, white)
        )
        for j in on:
            player[row], opp[row] = own[j], other[j]
            row_score[row] = score[j] if side == 0 else 1.0 - score[j]
            row_event[row] = event[j]
            if with_start:
                row_start[row] = event_start[j]
            row += 1
    return player, opp, row_score, row_event, row_start


@jit
def _add_new_rows(
    on_white: IntArray,
    on_black: IntArray,
    keep: BoolArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    opp_rating: FloatArray,
    rating: FloatArray,
    sums: FloatArray,
    first_event_done: BoolArray,
) -> None:
    """Add the kept new pool rows as :func:`_add_pool_rows` adds pool rows.

    ``opp_rating`` is per row, or empty for the opponents' ``rating``. Every
    row's player (kept or not) has had a first event: ``first_event_done``.
    """
    row = 0
    for side in range(2):
        on, own, other = (
            (on_white, white, black) if side == 0 else (on_black, black, white)
        )
        for j in on:
            p = own[j]
            first_event_done[p] = True
            if keep[row]:
                sums[p, 0] += 1
                sums[p, 1] += score[j] if side == 0 else 1.0 - score[j]
                sums[p, 2] += (
                    opp_rating[row] if opp_rating.shape[0] else rating[other[j]]
                )
            row += 1


@jit
def _add_rows_at(
    at: IntArray,
    player: IntArray,
    opp: IntArray,
    score: FloatArray,
    opp_rating: FloatArray,
    rating: FloatArray,
    sums: FloatArray,
) -> None:
    """Add the new rows at ``at`` as :func:`_add_pool_rows` adds pool rows.

    The rows are given by their fields; ``opp_rating`` as in
    :func:`_add_new_rows`.
    """
    for i in at:
        p = player[i]
        sums[p, 0] += 1
        sums[p, 1] += score[i]
        sums[p, 2] += opp_rating[i] if opp_rating.shape[0] else rating[opp[i]]


@jit
def _pool_of_rows(
    on_white: IntArray,
    on_black: IntArray,
    keep: BoolArray,
    published: BoolArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    opp_rating: FloatArray,
    rating: FloatArray,
    period: int,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
    """The kept new rows of players not published, as :class:`Pool`'s fields.

    ``opp_rating`` as in :func:`_add_new_rows`.
    """
    at = np.empty(keep.shape[0], dtype=np.intp)
    n = row = 0
    for on, own in ((on_white, white), (on_black, black)):
        for j in on:
            at[n] = row
            n += keep[row] and not published[own[j]]
            row += 1
    n_white = on_white.shape[0]
    player = np.empty(n, dtype=np.intp)
    opp = np.empty(n, dtype=np.intp)
    row_rating = np.empty(n)
    row_score = np.empty(n)
    for i in range(n):
        row = at[i]
        if row < n_white:
            j = on_white[row]
            player[i], opp[i], row_score[i] = white[j], black[j], score[j]
        else:
            j = on_black[row - n_white]
            player[i], opp[i], row_score[i] = black[j], white[j], 1.0 - score[j]
        row_rating[i] = opp_rating[row] if opp_rating.shape[0] else rating[opp[i]]
    return player, opp, row_rating, row_score, np.full(n, period, dtype=np.intp)


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
    n = p.size
    shift = n.bit_length()
    if (int(p.max()) - lows[0] + 1) * e_span * o_span << shift <= 2**63:
        # The row number in the low bits: a plain sort of the keys (several
        # times faster than an argsort) gives the order too. Every part of
        # the key is counted from its minimum, so keys are never negative,
        # and the check above keeps the shifted key below 2^63.
        key = _row_keys(p, e, o, lows[0], lows[1], lows[2], e_span, o_span, shift)
        key.sort()
        order = np.empty(0, dtype=np.intp)
    else:
        key = _row_keys(p, e, o, lows[0], lows[1], lows[2], e_span, o_span, 0)
        order = np.argsort(key)
        key = key[order]
        shift = 0
    inv, group_key, n_opponents = _sorted_groups(key, order, shift, o_span)
    group_player = group_key // e_span
    group_event = group_key - group_player * e_span + lows[1]
    group_player += lows[0]
    return inv, group_player, group_event, n_opponents


@jit
def _row_keys(
    player: NDArray[np.int64],
    event: NDArray[np.int64],
    opp: NDArray[np.int64],
    player_low: int,
    event_low: int,
    opp_low: int,
    event_span: int,
    opp_span: int,
    shift: int,
) -> NDArray[np.int64]:
    """Each row's key ``(player, event, opponent)``, shifted and numbered.

    With ``shift`` > 0, the key is shifted by ``shift`` bits and the row
    number put in the low ones.
    """
    key = np.empty(player.shape[0], dtype=np.int64)
    for i in range(player.shape[0]):
        k = ((player[i] - player_low) * event_span + event[i] - event_low) * opp_span
        k += opp[i] - opp_low
        key[i] = (k << shift) | i if shift else k
    return key


@jit
def _sorted_groups(
    key: NDArray[np.int64], order: IntArray, shift: int, opp_span: int
) -> tuple[IntArray, NDArray[np.int64], NDArray[np.int64]]:
    """Groups of the sorted row keys: each row's, and each group's key and opponents.

    ``key`` is sorted; with ``shift`` > 0 each key's low ``shift`` bits are
    its row, else ``order`` gives the rows. A group is a (player, event)
    pair, ``key // opp_span``; its opponents are its distinct keys.
    """
    n = key.shape[0]
    inv = np.empty(n, dtype=np.intp)
    group_key = np.empty(n, dtype=np.int64)
    n_opponents = np.empty(n, dtype=np.int64)
    mask = (1 << shift) - 1
    g = -1
    last = -1  # (keys are never negative)
    for i in range(n):
        k = key[i] >> shift
        pair = k // opp_span
        if g < 0 or pair != group_key[g]:
            g += 1
            group_key[g] = pair
            n_opponents[g] = 1
        elif k != last:
            n_opponents[g] += 1
        last = k
        inv[key[i] & mask if shift else order[i]] = g
    return inv, group_key[: g + 1], n_opponents[: g + 1]


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
    rules: ListRules, rows: _NewRows, first_event_done: BoolArray
) -> tuple[BoolArray, tuple[IntArray, IntArray, FloatArray] | None]:
    """Which new pool rows survive the system's per-event rules.

    Also every row's player, opponent and score where the rules grouped
    every row (None where they did not gather them).
    """
    if rows.size == 0:
        return np.ones(0, dtype=bool), None
    if rules.pool_filter_first_only:
        # Only the rows of a first event can go: group those alone.
        at, no_nan = _first_event_rows(
            rows.on_white,
            rows.on_black,
            rows.white,
            rows.black,
            rows.event,
            rows.event_start,
            first_event_done,
        )
        if no_nan:  # (NaN starts: by groups)
            keep = np.ones(rows.size, dtype=bool)
            if at.size:
                player, opp, score, event, _ = rows.take(at).fields(False)
                keep[at] = _filter_groups(rules, player, opp, score, event, None, None)
            return keep, None
    player, opp, score, event, start = rows.fields(rules.pool_filter_reads_first)
    keep = _filter_groups(
        rules,
        player,
        opp,
        score,
        event,
        start if rules.pool_filter_reads_first else None,
        first_event_done,
    )
    return keep, (player, opp, score)


def _filter_groups(
    rules: ListRules,
    player: IntArray,
    opp: IntArray,
    score: FloatArray,
    event: IntArray,
    event_start: FloatArray | None,
    first_event_done: BoolArray | None,
) -> BoolArray:
    """:func:`_filter_events` on every (player, event) group of some rows.

    ``first_event_done`` None means that every row is in its player's first
    event; ``event_start`` may be None where ``is_first`` is not computed.
    """
    # One group per (player, event); distinct rated opponents met in each,
    # not games: a double round against two players is two opponents.
    inv, ev_player, _, ev_opponents = _event_groups(player, event, opp)
    n_events = ev_player.size
    ev_points = np.asarray(
        np.bincount(inv, weights=score, minlength=n_events), dtype=np.float64
    )
    if first_event_done is None:
        is_first = np.ones(n_events, dtype=bool)
    elif event_start is None or not rules.pool_filter_reads_first:
        is_first = np.zeros(n_events, dtype=bool)
    else:
        ev_start = np.full(n_events, np.inf)
        np.minimum.at(ev_start, inv, event_start)
        # The first event of a spell: the earliest (then lowest id) event of a
        # player who has not had one yet.
        is_first = _first_events(ev_player, ev_start) & ~first_event_done[ev_player]
    keep_event = rules.pool_filter(is_first, ev_opponents, ev_points)
    return np.asarray(keep_event[inv])


@jit
def _first_event_rows(
    on_white: IntArray,
    on_black: IntArray,
    white: IntArray,
    black: IntArray,
    event: IntArray,
    event_start: FloatArray,
    first_event_done: BoolArray,
) -> tuple[IntArray, bool]:
    """New pool rows in a first event, as :func:`_first_events` picks it.

    The rows (increasing positions) of players without a first event yet,
    in the event :func:`_first_events` gives them, and True; no rows and
    False where a row's start is NaN.

    Without grouping: an event starts at the earliest start of its rows, so
    the player's earliest events are those with a row at the player's
    earliest start, and the first is the lowest id among them.
    """
    n_players = first_event_done.shape[0]
    earliest = np.full(n_players, np.inf)
    first = np.full(n_players, np.iinfo(np.intp).max)
    for on, own in ((on_white, white), (on_black, black)):
        for j in on:
            p, start = own[j], event_start[j]
            if np.isnan(start):
                return np.empty(0, dtype=np.intp), False
            # The lowest event at the earliest start seen so far.
            if start < earliest[p]:
                earliest[p], first[p] = start, event[j]
            elif start == earliest[p] and event[j] < first[p]:
                first[p] = event[j]
    at = np.empty(on_white.shape[0] + on_black.shape[0], dtype=np.intp)
    n_at = row = 0
    for on, own in ((on_white, white), (on_black, black)):
        for j in on:
            p = own[j]
            at[n_at] = row
            n_at += event[j] == first[p] and not first_event_done[p]
            row += 1
    return at[:n_at], True


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
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        pred = self.unrated_prediction
        rules = self.rules
        if rules.expectation == "table" and w.ndim == 1 and b.shape == w.shape:
            return _expected_by_table(
                state.rating, w, b, pred, *rules.table_bounds, _PD_BY_D
            )
        # The games' players only, as a round is often far smaller than the
        # pool.
        r_w = state.rating[w]
        r_w = np.where(np.isnan(r_w), pred, r_w)
        r_b = state.rating[b]
        r_b = np.where(np.isnan(r_b), pred, r_b)
        return rules_expected(rules, r_w, r_b) / 100.0

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

    def rating(self, state: ListState) -> FloatArray:
        """Published ratings on the list in force (NaN = unrated)."""
        return state.rating.copy()
