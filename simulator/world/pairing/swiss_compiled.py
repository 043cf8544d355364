"""The Swiss pairing of a batch's small events, as compiled loops (numba).

Steps 2, 3 and the first window of step 5 of
:func:`~simulator.world.pairing.swiss.pair_swiss_round`, as loops over the
events of a batch (:func:`_match_small_events`, called by
:mod:`~simulator.world.pairing.swiss_batch`): the same algorithm, step for
step, on one event at a time; a function ``f_at`` here is ``f`` of
:mod:`~simulator.world.pairing.swiss` (or of
:mod:`~simulator.world.pairing.swiss_rules`) as a loop. A day's events are
small (a few dozen players, a dozen score groups), so numpy's per-call
overhead, not the work, would set the time. Inside an event, vertices are
the event's positions (0 to n - 1, and n for the bye), as in ``mate`` of
``_match_swiss``; the per-player arrays (``allow_white``, ``pref``, ...) are
the event's entries of the ``_Context`` arrays of the same names. Who may
meet whom is tabled once per event (:func:`_legal_tables`): the loops ask
about pairs many times, and a look-up in a table is what keeps them fast.
:func:`_broken_matching` checks the batch's matchings against the contract
of ``pair_swiss_round``.

The constants of the matching (the colour codes, the transpositions tried,
the radii and largest sizes of the repair windows) are defined here, where
the compiled loops read them, and the Python path imports them from here:
numba checks a cached function against its own module's file only, so a
compiled loop reads its constants from its own module (see
:mod:`simulator._jit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from simulator._jit import jit, unliteral
from simulator._types import BoolArray, FloatArray, IntArray

if TYPE_CHECKING:
    from simulator.world.pairing.swiss_state import KeyArray

__all__ = ["BLACK", "WHITE"]


#: Colour codes of :attr:`SwissState.last_colour`.
WHITE = 1
BLACK = -1


# Transpositions (offsets into the bottom half) tried by the vectorised pass of
# a score group: first keeping both colour preferences, then any legal pairing.
_PREFERENCE_SHIFTS = (0, 1, -1, 2, -2, 3, -3)
_LEGAL_SHIFTS = (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8, -8)
# Radii (in places of the ranked list) of the augmenting-path windows.
_GROUP_RADII = (8, 32, 128)
_FINAL_RADII = (16, 64, 256, 1024, 4096)
# Largest window of the exact matcher (a dense boolean matrix of this side),
# and of the short repairs inside a bracket.
_MAX_WINDOW = 6_000
_MAX_LOCAL_WINDOW = 1_000


def _constant_array(values: tuple[int, ...]) -> IntArray:
    """``values`` as a read-only array, as it is to compiled code (a copy)."""
    array = np.array(values, dtype=np.intp)
    array.setflags(write=False)
    return array


# Constants as the compiled loops pass them: module-level arrays and numpy
# scalars, not tuples, ints and bools, which numba types by their values and
# so compiles a helper once per value passed (see simulator._jit). The
# compiled loops of a batch of events try the first final window alone.
_PREFERENCE_SHIFTS_AT = _constant_array(_PREFERENCE_SHIFTS)
_LEGAL_SHIFTS_AT = _constant_array(_LEGAL_SHIFTS)
_GROUP_RADII_AT = _constant_array(_GROUP_RADII)
_FIRST_FINAL_RADIUS_AT = _constant_array(_FINAL_RADII[:1])
_MAX_WINDOW_AT = unliteral(_MAX_WINDOW)
_MAX_LOCAL_WINDOW_AT = unliteral(_MAX_LOCAL_WINDOW)
_ZERO, _NOBODY, _FALSE = unliteral(0), unliteral(-1), unliteral(False)


# What :func:`_match_small_events` did with each event: paired it, found no
# player for the bye, or left players for the exact repairs of step 5.
_PAIRED, _NO_BYE, _SHORT = 0, 1, 2


@jit
def _legal_tables(
    allow_white: BoolArray,
    allow_black: BoolArray,
    pref: IntArray,
    had_bye: BoolArray,
    played: KeyArray,
) -> tuple[BoolArray, BoolArray]:
    """Who may meet whom in an event: :meth:`_Context.legal`, tabled.

    Parameters
    ----------
    allow_white, allow_black, pref, had_bye : ndarray of shape (n + 1,)
        The event's entries (the last one, the bye vertex's, unused).
    played : ndarray of shape (n_played,)
        The event's played keys (``i * n + j``).

    Returns
    -------
    strict, prefer : ndarray of shape (n + 1, n + 1)
        Legality at :data:`_STRICT` and at :data:`_PREFER`. ``strict`` is
        :meth:`_Context.adjacency` too: the bye vertex ``n`` may meet whoever
        has not had a bye.
    """
    n = pref.shape[0] - 1
    strict = np.zeros((n + 1, n + 1), dtype=np.bool_)
    prefer = np.zeros((n + 1, n + 1), dtype=np.bool_)
    for u in range(n):
        # Bitwise rather than short-circuit operators: without branches, the
        # inner loop can be vectorised.
        w, b, p = allow_white[u], allow_black[u], pref[u]
        for v in range(n):
            ok = (w & allow_black[v]) | (b & allow_white[v])
            strict[u, v] = ok
            prefer[u, v] = ok & ((p == 0) | (p != pref[v]))
        strict[u, u] = prefer[u, u] = False
        strict[u, n] = strict[n, u] = not had_bye[u]
    for key in played:
        u, v = divmod(key, n)
        strict[u, v] = strict[v, u] = prefer[u, v] = prefer[v, u] = False
    return strict, prefer


@jit
def _unpaired(players: IntArray, count: int, mate: IntArray) -> int:
    """Compact ``players[:count]`` to those still unpaired; their number."""
    k = 0
    for i in range(count):
        if mate[players[i]] < 0:
            players[k] = players[i]
            k += 1
    return k


@jit
def _pair_in_order_at(
    a: IntArray,
    n_a: int,
    b: IntArray,
    n_b: int,
    ok: BoolArray,
    shifts: IntArray,
    mate: IntArray,
) -> tuple[int, int]:
    """:func:`_pair_in_order` of ``a[:n_a]`` and ``b[:n_b]``, pairing in ``mate``.

    ``ok`` is the legality table of the level. Both lists are compacted in
    place to who is left; returns their lengths.
    """
    for shift in shifts:
        if n_a == 0 or n_b == 0:
            break
        hit = False
        # The pairs of one shift are disjoint and legality does not depend
        # on ``mate``: pairing them one by one pairs them all at once.
        for i in range(max(0, -shift), min(n_a, n_b - shift)):
            x, y = a[i], b[i + shift]
            if ok[x, y]:
                mate[x], mate[y] = y, x
                hit = True
        if hit:
            n_a = _unpaired(a, n_a, mate)
            n_b = _unpaired(b, n_b, mate)
    return n_a, n_b


@jit
def _preference_class(
    players: IntArray,
    count: int,
    colour: int,
    or_none: bool,
    pref: IntArray,
    strength: IntArray,
    out: IntArray,
) -> int:
    """Who of ``players[:count]`` wants ``colour`` (or none, if ``or_none``).

    Written to ``out``, absolute preferences first, then the others, each in
    the given order; returns their number.
    """
    k = 0
    for absolute in (True, False):
        for i in range(count):
            p = players[i]
            wants = pref[p] == colour or (or_none and pref[p] == 0)
            if wants and (strength[p] == 3) == absolute:
                out[k] = p
                k += 1
    return k


@jit
def _greedy_group_at(
    group: IntArray,
    mate: IntArray,
    strict: BoolArray,
    prefer: BoolArray,
    allow_white: BoolArray,
    allow_black: BoolArray,
    pref: IntArray,
    strength: IntArray,
) -> None:
    """:func:`_greedy_group`, pairing in ``mate`` (``group`` all unpaired).

    The top half ranks above the bottom half, and each keeps ranking order
    as it is compacted, so no step needs to sort by ranking place again.
    """
    m = group.shape[0]
    h = m // 2
    # The lists below, in one allocation: the halves, a colour class of
    # each, and the three classes of step 4.
    # (Rows taken by index, not by unpacking: numba types those as
    # contiguous, like the other callers' arrays, so the helpers compile once.)
    lists = np.empty((7, m), dtype=np.intp)
    s1, s2, c1, c2 = lists[0], lists[1], lists[2], lists[3]
    must_w, must_b, flex = lists[4], lists[5], lists[6]
    # Element by element: an array assigned to a slice takes seconds to
    # compile (see simulator._jit).
    for i in range(h):
        s1[i] = group[i]
    for i in range(m - h):
        s2[i] = group[h + i]
    n1, n2 = h, m - h
    # Step 1: opposite colour preferences (the top half's Black first, which
    # players without a preference join), absolute preferences first.
    for colour in (BLACK, WHITE):
        k1 = _preference_class(s1, n1, colour, colour == BLACK, pref, strength, c1)
        k2 = _preference_class(s2, n2, -colour, colour == BLACK, pref, strength, c2)
        _pair_in_order_at(c1, k1, c2, k2, strict, _PREFERENCE_SHIFTS_AT, mate)
        n1 = _unpaired(s1, n1, mate)
        n2 = _unpaired(s2, n2, mate)
    # Steps 2 and 3: compatible preferences, then any legal pairing.
    n1, n2 = _pair_in_order_at(s1, n1, s2, n2, prefer, _PREFERENCE_SHIFTS_AT, mate)
    n1, n2 = _pair_in_order_at(s1, n1, s2, n2, strict, _LEGAL_SHIFTS_AT, mate)
    # Step 4: whoever is left (in ranking order: the top half's, then the
    # bottom half's), by the colours they may take.
    # Not literal zeros: numba would compile _pair_in_order_at for a literal 0
    # too, typing the calls below before the increments.
    n_w = n_b = n_f = _ZERO
    for k in range(n1 + n2):
        p = s1[k] if k < n1 else s2[k - n1]
        if allow_white[p] and allow_black[p]:
            flex[n_f] = p
            n_f += 1
        elif allow_white[p]:
            must_w[n_w] = p
            n_w += 1
        elif allow_black[p]:
            must_b[n_b] = p
            n_b += 1
    shifts = _LEGAL_SHIFTS_AT
    n_w, n_b = _pair_in_order_at(must_w, n_w, must_b, n_b, strict, shifts, mate)
    n_w, n_f = _pair_in_order_at(must_w, n_w, flex, n_f, strict, shifts, mate)
    n_b, n_f = _pair_in_order_at(must_b, n_b, flex, n_f, strict, shifts, mate)
    # The two halves are compacted each within its own part of ``flex``.
    half = n_f // 2
    rest = n_f - half
    _pair_in_order_at(flex[:half], half, flex[half:n_f], rest, strict, shifts, mate)


@jit
def _nearest(
    v: int, window: IntArray, free: BoolArray, skip: int, adj: BoolArray
) -> int:
    """The free neighbour of ``v`` nearest in the window, but ``skip`` (-1: none).

    The lower place on a tie.
    """
    w = window.shape[0]
    for d in range(1, w):
        for c in (v - d, v + d):
            if 0 <= c < w and free[c] and c != skip and adj[window[v], window[c]]:
                return c
    return -1


@jit
def _nearest_swap(
    x: int,
    window: IntArray,
    local: IntArray,
    free: BoolArray,
    n_free_nb: IntArray,
    adj: BoolArray,
) -> int:
    """The matched neighbour of ``x`` nearest in the window, -1 if none.

    Only neighbours whose partner has a free neighbour besides ``x`` count;
    the lower place on a tie.
    """
    w = window.shape[0]
    for d in range(1, w):
        for a in (x - d, x + d):
            if 0 <= a < w and not free[a] and adj[window[x], window[a]]:
                b = local[a]
                if n_free_nb[b] - adj[window[b], window[x]] > 0:
                    return a
    return -1


@jit
def _quick_augment_at(
    window: IntArray, local: IntArray, target: int, adj: BoolArray
) -> None:
    """:func:`_quick_augment` over ``window``'s vertices, in place."""
    w = window.shape[0]
    free = local < 0
    n_free = 0  # Counted by hand: np.count_nonzero is slow to compile.
    for x in range(w):
        n_free += free[x]
    # A free x takes the nearest free neighbour (the lower on a tie).
    for x in range(w):
        if n_free <= target:
            return
        if not free[x]:
            continue
        y = _nearest(x, window, free, _NOBODY, adj)
        if y >= 0:
            local[x], local[y] = y, x
            free[x] = free[y] = False
            n_free -= 2
    if n_free <= target:
        return
    # A free x takes the nearest matched neighbour a whose partner b has
    # another free neighbour y: (x, a), (b, y) replace (a, b).
    n_free_nb = np.zeros(w, dtype=np.intp)
    for v in range(w):
        for u in range(w):
            n_free_nb[v] += free[u] and adj[window[v], window[u]]
    for x in range(w):
        if n_free <= target:
            return
        if not free[x]:
            continue
        a = _nearest_swap(x, window, local, free, n_free_nb, adj)
        if a < 0:
            continue
        b = local[a]
        y = _nearest(b, window, free, x, adj)
        local[x], local[a], local[b], local[y] = a, x, y, b
        free[x] = free[y] = False
        n_free -= 2
        for v in range(w):
            n_free_nb[v] -= adj[window[v], window[x]] + adj[window[v], window[y]]


@jit
def _window_at(seq: IntArray, mate: IntArray, radius: int, with_bye: bool) -> IntArray:
    """:func:`_window`; ``with_bye``: the event's bye vertex is the ``extra``."""
    m = seq.shape[0]
    cover = np.zeros(m + 1, dtype=np.intp)
    for i in range(m):
        if mate[seq[i]] < 0:
            cover[max(i - radius, 0)] += 1
            cover[min(i + radius + 1, m)] -= 1
    chosen = np.zeros(mate.shape[0], dtype=np.bool_)
    inside = 0
    for i in range(m):
        inside += cover[i]
        if inside > 0:
            chosen[seq[i]] = True
    if with_bye:
        chosen[mate.shape[0] - 1] = True
    for v in np.flatnonzero(chosen):
        if mate[v] >= 0:
            chosen[mate[v]] = True
    out = np.empty(m, dtype=np.intp)
    k = 0
    for v in seq:
        if chosen[v]:
            out[k] = v
            k += 1
    return out[:k]


@jit
def _augment_at(window: IntArray, mate: IntArray, target: int, adj: BoolArray) -> None:
    """:func:`_augment` without the exact search, in place."""
    slot = np.full(mate.shape[0], -1, dtype=np.intp)
    for i, v in enumerate(window):
        slot[v] = i
    local = np.empty(window.shape[0], dtype=np.intp)
    for i, v in enumerate(window):
        local[i] = slot[mate[v]] if mate[v] >= 0 else -1
    _quick_augment_at(window, local, target, adj)
    for i, v in enumerate(window):
        mate[v] = window[local[i]] if local[i] >= 0 else -1


@jit
def _n_unpaired(players: IntArray, mate: IntArray) -> int:
    """How many of ``players`` are unpaired."""
    count = 0
    for p in players:
        count += mate[p] < 0
    return count


@jit
def _repair_at(
    seq: IntArray,
    mate: IntArray,
    radii: IntArray,
    with_bye: bool,
    target: int,
    max_window: int,
    adj: BoolArray,
) -> None:
    """:func:`_repair` without the exact search (``adj``: the level's table)."""
    for radius in radii:
        if _n_unpaired(seq, mate) <= target:
            return
        window = _window_at(seq, mate, radius, with_bye)
        if window.shape[0] > max_window:
            return
        _augment_at(window, mate, target, adj)
        if window.shape[0] == seq.shape[0]:
            return


@jit
def _match_event(
    ranked: IntArray,
    points: FloatArray,
    had_bye: BoolArray,
    mate: IntArray,
    strict: BoolArray,
    prefer: BoolArray,
    allow_white: BoolArray,
    allow_black: BoolArray,
    pref: IntArray,
    strength: IntArray,
) -> int:
    """Steps 2, 3 and the first window of step 5 of :func:`_match_swiss`.

    ``ranked`` holds the present players in ranking order; ``mate`` (all -1)
    receives the matching. Returns :data:`_PAIRED`, :data:`_NO_BYE` (nobody
    may have the bye) or :data:`_SHORT` (players left, ``mate`` restored to
    its state before step 5, for the exact repairs).
    """
    bye_vertex = mate.shape[0] - 1
    m = ranked.shape[0]
    odd = m % 2 == 1
    # Step 2: the bye, to the lowest-ranked player who has not had one.
    if odd:
        bye = -1
        for p in ranked[::-1]:
            if not had_bye[p]:
                bye = p
                break
        if bye < 0:
            return _NO_BYE
        mate[bye], mate[bye_vertex] = bye_vertex, bye
    # Step 3: score groups, top down; leftovers float down. Each bracket is
    # paired as by _pair_bracket.
    bracket = np.empty(m, dtype=np.intp)
    n_floaters = 0
    i = 0
    while i < m:
        if mate[ranked[i]] >= 0:  # The bye.
            i += 1
            continue
        size = n_floaters
        group_points = points[ranked[i]]
        while i < m and points[ranked[i]] == group_points:
            if mate[ranked[i]] < 0:
                bracket[size] = ranked[i]
                size += 1
            i += 1
        group = bracket[:size]
        _greedy_group_at(
            group, mate, strict, prefer, allow_white, allow_black, pref, strength
        )
        # Those who must have White can only meet those who may have Black
        # (and vice versa): past that bound, repairs are in vain.
        n_need_w = n_need_b = 0
        for p in group:
            n_need_w += allow_white[p] and not allow_black[p]
            n_need_b += allow_black[p] and not allow_white[p]
        forced = max(2 * n_need_w - size, 2 * n_need_b - size, size % 2)
        if _n_unpaired(group, mate) > forced:
            _repair_at(
                group,
                mate,
                _GROUP_RADII_AT,
                _FALSE,
                size % 2,
                _MAX_LOCAL_WINDOW_AT,
                strict,
            )
        n_floaters = _unpaired(bracket, size, mate)
    # Step 5, its first window: short augmenting paths, which nearly always
    # pair everyone; the exact search is left to _final_repair.
    if n_floaters == 0:
        return _PAIRED
    seq = ranked
    if odd:  # The bye vertex last, by hand: np.append is slow to compile.
        seq = np.empty(m + 1, dtype=np.intp)
        for k in range(m):
            seq[k] = ranked[k]
        seq[m] = bye_vertex
    before = mate.copy()
    _repair_at(seq, mate, _FIRST_FINAL_RADIUS_AT, odd, _ZERO, _MAX_WINDOW_AT, strict)
    if _n_unpaired(seq, mate) == 0:
        return _PAIRED
    for v in range(mate.shape[0]):  # Not mate[:] = before (see simulator._jit).
        mate[v] = before[v]
    return _SHORT


@jit
def _match_small_events(
    small: BoolArray,
    base: IntArray,
    n: IntArray,
    order: IntArray,
    first_place: IntArray,
    n_present: IntArray,
    keys: KeyArray,
    key_start: IntArray,
    points: FloatArray,
    allow_white: BoolArray,
    allow_black: BoolArray,
    pref: IntArray,
    strength: IntArray,
    had_bye: BoolArray,
    mate: IntArray,
) -> IntArray:
    """:func:`_match_event` for each ``small`` event of a :class:`_SwissBatch`.

    The arguments are the batch's arrays (``keys``: the events' played keys
    one event after another, event ``e``'s from ``key_start[e]``). Returns
    each event's status (:data:`_PAIRED` for the others).
    """
    status = np.full(base.shape[0], _PAIRED, dtype=np.intp)
    for e in np.flatnonzero(small):
        b = base[e]
        at = slice(b, b + n[e] + 1)
        strict, prefer = _legal_tables(
            allow_white[at],
            allow_black[at],
            pref[at],
            had_bye[at],
            keys[key_start[e] : key_start[e + 1]],
        )
        f = first_place[e]
        status[e] = _match_event(
            order[f : f + n_present[e]] - b,
            points[at],
            had_bye[at],
            mate[at],
            strict,
            prefer,
            allow_white[at],
            allow_black[at],
            pref[at],
            strength[at],
        )
    return status


@jit
def _broken_matching(
    base: IntArray,
    n: IntArray,
    order: IntArray,
    first_place: IntArray,
    n_present: IntArray,
    keys: KeyArray,
    key_start: IntArray,
    had_bye: BoolArray,
    mate: IntArray,
) -> bool:
    """Whether some event's matching breaks the contract of :func:`pair_swiss_round`.

    Someone present unpaired, partners that disagree, a repeated game, a
    player paired with themself, a second bye, or a wrong number of byes.
    The arguments are the batch's arrays, as for :func:`_match_small_events`.
    """
    for e in range(base.shape[0]):
        b, m = base[e], n[e]
        played = keys[key_start[e] : key_start[e + 1]]
        n_byes = 0
        for slot in order[first_place[e] : first_place[e] + n_present[e]]:
            p = slot - b
            q = mate[slot]
            if q < 0 or q > m or mate[b + q] != p:
                return True
            if q == m:
                n_byes += 1
                if had_bye[slot]:
                    return True
                continue
            key = min(p, q) * m + max(p, q)
            i = np.searchsorted(played, key)
            if p == q or (i < played.shape[0] and played[i] == key):
                return True
        if n_byes != n_present[e] % 2:
            return True
    return False
