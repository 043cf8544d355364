"""Rating one period on the lists in force and publishing the next list.

docs/rules.md, sections 1 and 2. Every game of an event uses the list in force on
the event's start day; the period change is ``K * sum(score - PD)`` rounded
half away from zero; unrated players' results against rated opponents enter
the pool (:mod:`simulator.systems.lists._pool`) until an initial rating is
published; a rating below the floor leaves the list. :func:`rate_list_period`
does it all. A period's games are rated through lookup tables where they can
be (:mod:`simulator.systems.lists._by_table`), else on the lists they use by
:func:`_rate_on_lists`: the same ratings, to the last bit. :func:`_new_list`
turns the changes and initial ratings into the new list.
"""

from __future__ import annotations

import numpy as np

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    list_day_after,
    player_sum,
    round_half_away,
)
from simulator.systems.lists._by_table import _rate_by_table, _sides_expected
from simulator.systems.lists._pool import (
    _add_new_rows,
    _add_pool_rows,
    _add_rows_at,
    _filter_events,
    _NewRows,
    _pair_groups,
    _pool_of_rows,
)
from simulator.systems.lists.state import (
    ListRules,
    ListState,
    Pool,
    _PeriodGames,
    apply_700_rule,
    period_k,
)

__all__ = ["rate_list_period"]


def rate_list_period(
    rules: ListRules, state: ListState, games: Games, day: float | None
) -> ListState:
    """Rate one period and publish the next list (docs/rules.md, sections 1 and 2).

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
        change = player_sum(p_r, term, n_players) / 100.0
        # Rounded where a player played (elsewhere 0, which rounds to 0).
        played = np.flatnonzero(n_rated)
        change[played] = round_half_away(change[played])
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
