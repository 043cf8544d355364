"""Unrated players' pool: a period's new rows and the per-event rules.

An unrated player's results against rated opponents are pooled until an
initial rating is published. A period's new rows are sides of its games
(:class:`_NewRows`, not gathered up front); those that pass the system's
per-event rules (:func:`_filter_events`: rows grouped by player and event with
:func:`_event_groups`, a player's first event found by :func:`_first_events`,
or without grouping by :func:`_first_event_rows`) are added to each player's
count, points and opponents' ratings (:func:`_add_pool_rows`,
:func:`_add_new_rows`, :func:`_add_rows_at`), and those of players not
published stay in the pool (:func:`_pool_of_rows`). The compiled loops are
called from Python only, none from another.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    IntArray,
)
from simulator.systems.lists.state import ListRules


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
