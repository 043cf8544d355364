"""The batched Swiss paths' bookkeeping, as compiled loops (numba).

A day's Swiss events are a few dozen small fields: in numpy, laying out a
batch of them, giving its games their colours and recording their results
took a hundred array calls a day, whose overhead, not the work, set the
time. Here each is one loop over the events' entrants:

- :func:`_lay_out` joins the events' states into the slots of a
  :class:`~simulator.world.pairing.swiss_batch._SwissBatch` (each event's
  entrants, then its bye vertex), with the colour rules of
  :class:`~simulator.world.pairing.swiss_rules._Context` and each event's
  ranking;
- :func:`_colours_at` turns the batch's matching into games with colours
  (:func:`~simulator.world.pairing.swiss_rules._allocate_colours`) and byes;
- :func:`_record_at` checks and adds a round's results to the joined states
  (:func:`~simulator.world.pairing.swiss_state.record_swiss_rounds`).

Each does what the numpy code it replaced did, element by element (the
tests hold the batched paths to the event-by-event ones). The colour codes
come in as arguments: a compiled loop reads constants from its own module
only (see :mod:`simulator._jit`), and the codes are
:mod:`~simulator.world.pairing.swiss_compiled`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simulator._jit import jit
from simulator._types import BoolArray, FloatArray, IntArray

if TYPE_CHECKING:
    from simulator.world.pairing.swiss_state import KeyArray

__all__: list[str] = []


@jit
def _ranks_above(points: FloatArray, rank: IntArray, i: int, j: int) -> bool:
    """Whether slot ``i`` ranks above slot ``j``: points, starting rank, slot."""
    if points[i] != points[j]:
        return bool(points[i] > points[j])
    if rank[i] != rank[j]:
        return bool(rank[i] < rank[j])
    return i < j


@jit
def _sort_ranked(
    slots: IntArray, tmp: IntArray, points: FloatArray, rank: IntArray
) -> None:
    """Sort ``slots`` in ranking order, in place (a bottom-up merge sort).

    The order is total (the slot breaks ties), so it is the order of
    ``np.lexsort((rank, -points))`` over slots in ascending order.
    """
    m = slots.shape[0]
    width = 1
    src, dst = slots, tmp
    swapped = False
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _ranks_above(points, rank, src[j], src[i]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        for k in range(m):
            slots[k] = src[k]


@jit
def _lay_out(
    n: IntArray,
    players_in: IntArray,
    rank_in: IntArray,
    points_in: FloatArray,
    colour_diff_in: IntArray,
    last_in: IntArray,
    streak_in: IntArray,
    had_bye_in: BoolArray,
    present_in: BoolArray,
    n_played: IntArray,
    white: int,
    black: int,
    max_local_window: int,
    max_table: int,
) -> tuple[
    IntArray,
    IntArray,
    FloatArray,
    BoolArray,
    IntArray,
    BoolArray,
    BoolArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    BoolArray,
    IntArray,
    IntArray,
    bool,
]:
    """A batch's slot arrays from its events' joined states.

    Parameters
    ----------
    n : ndarray of shape (n_events,)
        Each event's entrants.
    players_in, rank_in, points_in, colour_diff_in, last_in, streak_in, \
had_bye_in : ndarray of shape (n.sum(),)
        The states' fields, one event after another.
    present_in : ndarray of shape (n.sum(),) or (0,)
        Who plays this round; empty: everyone.
    n_played : ndarray of shape (n_events,)
        Each event's played keys.
    white, black : int
        The colour codes of ``last_in``.
    max_local_window, max_table : int
        Events of more present players (rounded up to even) or of more than
        this many pairs of entrants are *large*: not for the compiled pairing.

    Returns
    -------
    tuple
        Over slots (``n.sum() + n_events``): ``players`` (-1 at the bye
        vertices), ``rank``, ``points``, ``had_bye`` (True at the bye
        vertices), ``colour_diff``, ``allow_white``, ``allow_black``,
        ``pref``, ``strength`` (:class:`_Context`'s) and ``pos`` (place in
        the joined ranking; the bye vertex one past its event's players).
        Over the events: ``base``, ``first_place``, ``n_present``,
        ``key_start`` (``n_events + 1`` entries), ``small``. Then ``order``
        (the present slots, event by event in ranking order), ``mate`` (-1
        over the slots, for the matching) and whether the points were all
        comparable (no NaN): if not, ``order`` is unsorted and ``pos`` unset.
    """
    e_count = n.shape[0]
    n_slots = e_count
    for e in range(e_count):
        n_slots += n[e]
    players = np.full(n_slots, -1, dtype=np.intp)
    rank = np.zeros(n_slots, dtype=np.intp)
    points = np.zeros(n_slots, dtype=np.float64)
    had_bye = np.ones(n_slots, dtype=np.bool_)
    colour_diff = np.zeros(n_slots, dtype=np.intp)
    allow_white = np.ones(n_slots, dtype=np.bool_)
    allow_black = np.ones(n_slots, dtype=np.bool_)
    pref = np.zeros(n_slots, dtype=np.intp)
    strength = np.zeros(n_slots, dtype=np.intp)
    pos = np.full(n_slots, -1, dtype=np.intp)
    base = np.empty(e_count, dtype=np.intp)
    first_place = np.empty(e_count, dtype=np.intp)
    n_present = np.empty(e_count, dtype=np.intp)
    key_start = np.zeros(e_count + 1, dtype=np.intp)
    small = np.empty(e_count, dtype=np.bool_)
    order = np.empty(n_slots, dtype=np.intp)
    tmp = np.empty(n_slots, dtype=np.intp)
    mate = np.full(n_slots, -1, dtype=np.intp)
    everyone = present_in.shape[0] == 0
    comparable = True
    src = 0
    slot = 0
    place = 0
    for e in range(e_count):
        base[e] = slot
        first_place[e] = place
        key_start[e + 1] = key_start[e] + n_played[e]
        for _ in range(n[e]):
            cd, last, streak = colour_diff_in[src], last_in[src], streak_in[src]
            players[slot] = players_in[src]
            rank[slot] = rank_in[src]
            points[slot] = points_in[src]
            comparable &= points_in[src] == points_in[src]
            had_bye[slot] = had_bye_in[src]
            colour_diff[slot] = cd
            # _Context's absolute colour rules and preferences, element-wise.
            allow_white[slot] = cd <= 1 and not (last == white and streak >= 2)
            allow_black[slot] = cd >= -1 and not (last == black and streak >= 2)
            p = s = 0
            if last != 0:
                p, s = -last, 1
            if cd != 0:
                p, s = -np.sign(cd), 2
            if streak >= 2:
                p, s = -last, 3
            if abs(cd) >= 2:
                p, s = -np.sign(cd), 3
            pref[slot], strength[slot] = p, s
            if everyone or present_in[src]:
                order[place] = slot
                place += 1
            src += 1
            slot += 1
        count = place - first_place[e]
        n_present[e] = count
        small[e] = count + count % 2 <= max_local_window and n[e] * n[e] <= max_table
        slot += 1  # The bye vertex, with the fills above.
    if comparable:
        for e in range(e_count):
            f, count = first_place[e], n_present[e]
            _sort_ranked(order[f : f + count], tmp[f : f + count], points, rank)
            for k in range(f, f + count):
                pos[order[k]] = k
            pos[base[e] + n[e]] = f + count
    return (
        players,
        rank,
        points,
        had_bye,
        colour_diff,
        allow_white,
        allow_black,
        pref,
        strength,
        pos,
        base,
        first_place,
        n_present,
        key_start,
        small,
        order[:place],
        mate,
        comparable,
    )


@jit
def _colours_at(
    base: IntArray,
    n: IntArray,
    order: IntArray,
    first_place: IntArray,
    n_present: IntArray,
    mate: IntArray,
    players: IntArray,
    rank: IntArray,
    colour_diff: IntArray,
    pref: IntArray,
    strength: IntArray,
    pos: IntArray,
    lots: IntArray,
    white: int,
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """A batch's games with their colours, and its byes.

    Each event's games in ranking order of their higher-ranked player, the
    colours as :func:`_allocate_colours` gives them (``lots``: each event's
    initial colour); the byes in ranking order.

    Returns
    -------
    white, black : ndarray of shape (n_games,)
        Player indices.
    bye : ndarray of shape (n_byes,)
        Player indices.
    game_end, bye_end : ndarray of shape (n_events,)
        Where each event's games and byes end.
    """
    e_count = base.shape[0]
    total = order.shape[0]
    whites = np.empty(total // 2, dtype=np.intp)
    blacks = np.empty(total // 2, dtype=np.intp)
    byes = np.empty(e_count, dtype=np.intp)
    game_end = np.empty(e_count, dtype=np.intp)
    bye_end = np.empty(e_count, dtype=np.intp)
    g = y = 0
    for e in range(e_count):
        b = base[e]
        for k in range(first_place[e], first_place[e] + n_present[e]):
            high = order[k]
            q = mate[high]
            if q == n[e]:
                byes[y] = players[high]
                y += 1
                continue
            low = b + q
            if pos[high] > pos[low]:
                continue  # Met as the partner of a higher-ranked player.
            # C.04.3 E.1, E.2, E.4 and E.5, as _allocate_colours.
            pa, pb = pref[high], pref[low]
            sa, sb = strength[high], strength[low]
            wider = abs(colour_diff[high]) >= abs(colour_diff[low])
            high_wins = sa > sb or (sa == sb and (sa < 3 or wider))
            colour = pa if pa != 0 else -pb
            if pa == pb and pa != 0:
                colour = pa if high_wins else -pb
            if pa == 0 and pb == 0:
                colour = lots[e] if rank[high] % 2 == 0 else -lots[e]
            if colour == white:
                whites[g], blacks[g] = players[high], players[low]
            else:
                whites[g], blacks[g] = players[low], players[high]
            g += 1
        game_end[e] = g
        bye_end[e] = y
    return whites[:g], blacks[:g], byes[:y], game_end, bye_end


@jit
def _insertion_sort(keys: KeyArray) -> None:
    """Sort a few keys in place."""
    for i in range(1, keys.shape[0]):
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = k


@jit
def _record_at(
    n: IntArray,
    entrants: IntArray,
    named: IntArray,
    n_games: IntArray,
    n_byes: IntArray,
    score: FloatArray,
    old_keys: KeyArray,
    n_played: IntArray,
    points: FloatArray,
    colour_diff: IntArray,
    last: IntArray,
    streak: IntArray,
    had_bye: BoolArray,
    bye_score: float,
    max_lookup: int,
    white: int,
    black: int,
) -> tuple[bool, KeyArray]:
    """A round's results added to many events' joined states, in place.

    ``named`` holds the players of the games' White, then of their Black
    (``n_games`` per event, aligned with ``score``), then the byes
    (``n_byes`` per event); the other arrays are the states' fields, one
    event after another (fresh copies: updated in place). Returns whether
    the round was accepted and the events' played keys with the new ones,
    each event's sorted (``n_played + n_games`` per event). A round is
    refused (nothing returned is meaningful) for a score not 0, 0.5 or 1, a
    stranger, a player in two places, a repeated pairing, or players that
    do not suit a direct look-up table (an entrant of two events, a negative
    index or indices far beyond ``max_lookup``): the caller then records
    event by event, which raises where it should.
    """
    e_count = n.shape[0]
    total = entrants.shape[0]
    nothing = np.empty(0, dtype=np.int64)
    for s in score:
        if not (s == 0.0 or s == 0.5 or s == 1.0):
            return False, nothing
    if named.shape[0] > total:
        return False, nothing  # A stranger, or a player in two places.
    width = 0
    for x in entrants:
        if x < 0:
            return False, nothing
        width = max(width, x + 1)
    for x in named:
        if x < 0:
            return False, nothing
        width = max(width, x + 1)
    if width > max_lookup + 4 * total:
        return False, nothing
    # Each entrant's index among all, by a direct look-up table, left
    # uninitialised: the entries of strangers are garbage, caught by the
    # round trip.
    table = np.empty(width, dtype=np.intp)
    event_of = np.empty(total, dtype=np.intp)
    i = 0
    for e in range(e_count):
        for _ in range(n[e]):
            table[entrants[i]] = i
            event_of[i] = e
            i += 1
    for i in range(total):
        if table[entrants[i]] != i:
            return False, nothing  # An entrant of two events.
    g = 0
    for e in range(e_count):
        g += n_games[e]
    where = np.empty(named.shape[0], dtype=np.intp)
    seen = np.zeros(total, dtype=np.bool_)
    k = 0
    for part in range(3):
        counts = n_byes if part == 2 else n_games
        for e in range(e_count):
            for _ in range(counts[e]):
                at = table[named[k]]
                if not (0 <= at < total) or entrants[at] != named[k]:
                    return False, nothing  # A stranger.
                if event_of[at] != e:
                    return False, nothing  # A stranger.
                if seen[at]:
                    return False, nothing  # A player in two places.
                seen[at] = True
                where[k] = at
                k += 1
    # The new keys merged into each event's (sorted) old keys.
    played = np.empty(old_keys.shape[0] + g, dtype=np.int64)
    new = np.empty(g, dtype=np.int64)
    offset = old = out = game = 0
    for e in range(e_count):
        m = n[e]
        count = n_games[e]
        for j in range(count):
            a, b = where[game + j] - offset, where[g + game + j] - offset
            new[j] = np.int64(min(a, b)) * m + max(a, b)
        fresh = new[:count]
        _insertion_sort(fresh)
        i, j = old, 0
        while i < old + n_played[e] or j < count:
            if j == count or (i < old + n_played[e] and old_keys[i] < fresh[j]):
                played[out] = old_keys[i]
                i += 1
            else:
                if i < old + n_played[e] and old_keys[i] == fresh[j]:
                    return False, nothing  # A repeated pairing.
                played[out] = fresh[j]
                j += 1
            out += 1
        offset += m
        old += n_played[e]
        game += count
    for j in range(g):
        w, b, s = where[j], where[g + j], score[j]
        points[w] += s
        points[b] += 1.0 - s
        colour_diff[w] += 1
        colour_diff[b] -= 1
        streak[w] = streak[w] + 1 if last[w] == white else 1
        last[w] = white
        streak[b] = streak[b] + 1 if last[b] == black else 1
        last[b] = black
    for j in range(2 * g, named.shape[0]):
        y = where[j]
        points[y] += bye_score
        had_bye[y] = True
    return True, played
