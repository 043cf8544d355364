"""The Swiss pairing of one event, Dutch-style: :func:`pair_swiss_round`.

Sources: the FIDE Handbook C.04.3 (FIDE (Dutch) System, rules of 2017) for
the spirit of the pairing and its colour rules.

In short (see :func:`pair_swiss_round` for what it guarantees and where it
differs from the Dutch system):

1. Rank the present players by points, then by their starting rank (the
   designated rating at the start, unrated last).
2. If their number is odd, the lowest-ranked player without a previous bye
   gets the bye.
3. Go down the score groups. Each group, headed by the players who floated
   down into it, pairs its top half against its bottom half (vectorised):
   first top-half players who want one colour with bottom-half players who
   want the other, each in ranking order, then the rest in order; a pairing
   that would repeat a game or break an absolute colour rule is replaced by
   shifting the bottom half a few places. The few players left over are
   re-paired inside the group by augmenting paths (Edmonds' blossom
   algorithm on a small window); who is still left floats down.
4. At the bottom of the list, in a large field, the last brackets collapse
   into one (then the last two, and so on) until everyone is paired.
5. Anyone still left is paired by exact augmenting paths over a window that
   grows until it spans the whole field, moving earlier pairs and the bye
   where needed; the colour rules are relaxed only if no pairing satisfies
   them; if no pairing without a repeat exists, ``ValueError``. Every round
   is checked against the rules before it is returned.

This is the reference path, vectorised with numpy, and the one for large
fields; :mod:`~simulator.world.pairing.swiss_compiled` runs steps 2, 3 and
the first window of step 5 as compiled loops for the small events of a batch
(the functions ending in ``_at`` there mirror those here), and the tests hold
the two to the same rounds.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import BoolArray, IntArray
from simulator.world.pairing.rounds import Round, _as_players, _check_rng
from simulator.world.pairing.swiss_compiled import (
    _FINAL_RADII,
    _GROUP_RADII,
    _LEGAL_SHIFTS,
    _MAX_LOCAL_WINDOW,
    _MAX_WINDOW,
    _PREFERENCE_SHIFTS,
    BLACK,
    WHITE,
)
from simulator.world.pairing.swiss_rules import (
    _LOOSE,
    _PREFER,
    _STRICT,
    _allocate_colours,
    _Context,
    _draw_lot,
)
from simulator.world.pairing.swiss_state import SwissState, _positions

__all__ = ["pair_swiss_round"]


def _pair_in_order(
    s1: IntArray,
    s2: IntArray,
    ctx: _Context,
    level: int,
    shifts: tuple[int, ...],
    tops: list[IntArray],
    bottoms: list[IntArray],
) -> BoolArray:
    """Pair ``s1[i]`` with ``s2[i + shift]`` for each shift in turn, vectorised.

    Each shift pairs the players still unpaired (both lists compacted) where
    the pairing is legal at ``level``; pairs are appended to ``tops`` and
    ``bottoms``.

    Returns
    -------
    ndarray of shape (len(s1) + len(s2),)
        Which of ``s1`` then ``s2`` are still unpaired.
    """
    left1 = np.flatnonzero(np.ones(s1.shape[0], dtype=bool))
    left2 = np.flatnonzero(np.ones(s2.shape[0], dtype=bool))
    for shift in shifts:
        i = np.arange(max(0, -shift), min(left1.shape[0], left2.shape[0] - shift))
        if i.size == 0:
            continue
        a, b = s1[left1[i]], s2[left2[i + shift]]
        ok = ctx.legal(a, b, level)
        if not ok.any():
            continue
        tops.append(a[ok])
        bottoms.append(b[ok])
        keep1 = np.ones(left1.shape[0], dtype=bool)
        keep1[i[ok]] = False
        keep2 = np.ones(left2.shape[0], dtype=bool)
        keep2[i[ok] + shift] = False
        left1, left2 = left1[keep1], left2[keep2]
    free = np.zeros(s1.shape[0] + s2.shape[0], dtype=bool)
    free[left1] = True
    free[s1.shape[0] + left2] = True
    return free


def _greedy_group(group: IntArray, ctx: _Context) -> tuple[IntArray, IntArray]:
    """Pair a score group's top half against its bottom half, vectorised.

    First, top-half players who want one colour meet, in order, bottom-half
    players who want the other (the transposition the Dutch system makes to
    grant colour preferences; absolute preferences first, and players without
    a preference join the first such class); then any two whose preferences
    agree; then any legal pairs. Each step tries ``s1[i]`` against
    ``s2[i + shift]`` for small shifts, so repeated games are avoided by
    nearby transpositions.

    Parameters
    ----------
    group : ndarray of shape (m,)
        Entrants in ranking order (floaters first). The top half has
        ``m // 2`` players; in an odd group the bottom half has one more, and
        whoever of it is left over floats down.
    ctx : _Context
        The round's arrays.

    Returns
    -------
    top, bottom : ndarray of shape (n_pairs,)
        Pairs made (``top`` from the top half).
    """
    h = group.shape[0] // 2
    s1, s2 = group[:h], group[h:]
    tops: list[IntArray] = []
    bottoms: list[IntArray] = []
    # Step 1: opposite colour preferences, each class in ranking order;
    # players without a preference join the first class.
    for colour in (BLACK, WHITE):
        want1 = ctx.pref[s1] == colour
        want2 = ctx.pref[s2] == -colour
        if colour == BLACK:
            want1 |= ctx.pref[s1] == 0
            want2 |= ctx.pref[s2] == 0
        # Absolute preferences first, so they find partners in the class.
        c1, c2 = s1[want1], s2[want2]
        c1 = c1[np.argsort(ctx.strength[c1] < 3, kind="stable")]
        c2 = c2[np.argsort(ctx.strength[c2] < 3, kind="stable")]
        free = _pair_in_order(c1, c2, ctx, _STRICT, _PREFERENCE_SHIFTS, tops, bottoms)
        n1 = int(np.count_nonzero(want1))
        s1 = np.concatenate([s1[~want1], c1[free[:n1]]])
        s2 = np.concatenate([s2[~want2], c2[free[n1:]]])
        s1 = s1[np.argsort(ctx.pos[s1], kind="stable")]
        s2 = s2[np.argsort(ctx.pos[s2], kind="stable")]
    # Steps 2 and 3: compatible preferences, then any legal pairing.
    for level, shifts in ((_PREFER, _PREFERENCE_SHIFTS), (_STRICT, _LEGAL_SHIFTS)):
        free = _pair_in_order(s1, s2, ctx, level, shifts, tops, bottoms)
        s1, s2 = s1[free[: s1.shape[0]]], s2[free[s1.shape[0] :]]
    # Step 4: whoever is left, by the colours they may take: those who must
    # have White meet those who must have Black, then either meets anyone.
    rest = np.concatenate([s1, s2])
    rest = rest[np.argsort(ctx.pos[rest], kind="stable")]
    w_ok, b_ok = ctx.allow_white[rest], ctx.allow_black[rest]
    classes = [rest[w_ok & ~b_ok], rest[b_ok & ~w_ok], rest[w_ok & b_ok]]
    for i, j in ((0, 1), (0, 2), (1, 2)):
        a, b = classes[i], classes[j]
        free = _pair_in_order(a, b, ctx, _STRICT, _LEGAL_SHIFTS, tops, bottoms)
        classes[i], classes[j] = a[free[: a.shape[0]]], b[free[a.shape[0] :]]
    flex = classes[2]
    half = flex.shape[0] // 2
    _pair_in_order(flex[:half], flex[half:], ctx, _STRICT, _LEGAL_SHIFTS, tops, bottoms)
    empty = np.empty(0, dtype=np.intp)
    top = np.concatenate(tops) if tops else empty
    bottom = np.concatenate(bottoms) if bottoms else empty
    return top, bottom


def _find_augmenting_path(
    root: int, neighbours: list[list[int]], mate: list[int]
) -> tuple[int, list[int]]:
    """Edmonds' blossom search for an augmenting path from a free ``root``.

    Returns the free vertex at the other end (-1 if none) and the parent
    links along which to augment.
    """
    n = len(neighbours)
    used = [False] * n
    parent = [-1] * n
    base = list(range(n))
    used[root] = True
    queue = [root]

    def common_base(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark_path(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in neighbours[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                # An odd cycle: contract the blossom onto its base.
                b = common_base(v, to)
                blossom = [False] * n
                mark_path(v, b, to, blossom)
                mark_path(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


def _quick_augment(adj: BoolArray, local: IntArray, target: int) -> None:
    """Short augmenting paths, vectorised per free vertex, in place.

    A free ``x`` first takes the nearest free neighbour; failing that, the
    nearest matched neighbour ``a`` whose partner ``b`` has another free
    neighbour ``y``: pairs ``(x, a), (b, y)`` replace ``(a, b)``. In the dense
    graphs of a pairing this leaves only the rare hard cases to the blossom
    search.
    """
    free = local < 0
    n_free = int(np.count_nonzero(free))
    for x in np.flatnonzero(free).tolist():
        if n_free <= target:
            return
        if not free[x]:
            continue
        ys = np.flatnonzero(adj[x] & free)
        if ys.size:
            y = int(ys[np.argmin(np.abs(ys - x))])
            local[x], local[y] = y, x
            free[x] = free[y] = False
            n_free -= 2
    if n_free <= target:
        return
    # Free neighbours of every vertex, kept up to date below.
    n_free_nb = adj[:, free].sum(axis=1)
    for x in np.flatnonzero(free).tolist():
        if n_free <= target:
            return
        if not free[x]:
            continue
        a_all = np.flatnonzero(adj[x] & ~free)
        b_all = local[a_all]
        ok = (b_all >= 0) & (n_free_nb[np.maximum(b_all, 0)] - adj[b_all, x] > 0)
        if not ok.any():
            continue
        a_all, b_all = a_all[ok], b_all[ok]
        k = int(np.argmin(np.abs(a_all - x)))
        a, b = int(a_all[k]), int(b_all[k])
        ys = np.flatnonzero(adj[b] & free)
        ys = ys[ys != x]
        y = int(ys[np.argmin(np.abs(ys - b))])
        local[x], local[a], local[b], local[y] = a, x, y, b
        free[x] = free[y] = False
        n_free -= 2
        n_free_nb -= adj[:, x].astype(np.intp) + adj[:, y]


def _augment(
    window: IntArray,
    mate: IntArray,
    ctx: _Context,
    level: int,
    target: int,
    *,
    exact: bool,
) -> None:
    """Grow the matching inside ``window``, in place, by augmenting paths.

    ``window`` holds vertices (entrants, perhaps the bye) in ranking order,
    closed under ``mate``; pairs outside it are untouched. Stops once at most
    ``target`` vertices are free. Short paths come first
    (:func:`_quick_augment`); if ``exact``, Edmonds' blossom search then makes
    the matching maximum within the window. Neighbours are tried nearest in
    rank first, so paths stay short and local.
    """
    w = window.shape[0]
    adj = ctx.adjacency(window, level)
    slot = np.full(mate.shape[0], -1, dtype=np.intp)
    slot[window] = np.arange(w)
    m = mate[window]
    lm = np.where(m >= 0, slot[np.maximum(m, 0)], -1)
    _quick_augment(adj, lm, target)
    n_free = int(np.count_nonzero(lm < 0))
    if exact and n_free > target:
        here = np.arange(w)
        neighbours: list[list[int]] = []
        for v in range(w):
            nb = here[adj[v]]
            neighbours.append(nb[np.argsort(np.abs(nb - v), kind="stable")].tolist())
        local = lm.tolist()
        for root in range(w):
            if n_free <= target:
                break
            if local[root] != -1:
                continue
            end, parent = _find_augmenting_path(root, neighbours, local)
            if end == -1:
                continue
            n_free -= 2
            while end != -1:
                p = parent[end]
                nxt = local[p]
                local[end], local[p] = p, end
                end = nxt
        lm = np.asarray(local, dtype=np.intp)
    mate[window] = np.where(lm >= 0, window[np.maximum(lm, 0)], -1)


def _window(seq: IntArray, mate: IntArray, radius: int, extra: IntArray) -> IntArray:
    """Vertices of ``seq`` within ``radius`` places of a free one, plus ``extra``.

    The result is closed under ``mate`` and keeps the order of ``seq``.
    """
    m = seq.shape[0]
    centres = np.flatnonzero(mate[seq] < 0)
    cover = np.zeros(m + 1, dtype=np.intp)
    np.add.at(cover, np.maximum(centres - radius, 0), 1)
    np.add.at(cover, np.minimum(centres + radius + 1, m), -1)
    inside = np.cumsum(cover[:m]) > 0
    nodes = np.concatenate([seq[inside], extra])
    mates = mate[nodes]
    nodes = np.unique(np.concatenate([nodes, mates[mates >= 0]]))
    where = np.zeros(mate.shape[0], dtype=bool)
    where[nodes] = True
    return seq[where[seq]]


def _repair(
    seq: IntArray,
    mate: IntArray,
    ctx: _Context,
    level: int,
    radii: tuple[int, ...],
    extra: IntArray,
    target: int,
    *,
    exact: bool,
    max_window: int,
) -> None:
    """Augment in growing windows of ``seq`` until at most ``target`` are free.

    Windows larger than ``max_window`` vertices are not tried.
    """
    for radius in radii:
        if int(np.count_nonzero(mate[seq] < 0)) <= target:
            return
        window = _window(seq, mate, radius, extra)
        if window.shape[0] > max_window:
            return
        _augment(window, mate, ctx, level, target, exact=exact)
        if window.shape[0] == seq.shape[0]:
            return


def _pair_bracket(bracket: IntArray, mate: IntArray, ctx: _Context) -> None:
    """Pair a bracket of free players in place: vectorised, then short repairs."""
    top, bottom = _greedy_group(bracket, ctx)
    mate[top], mate[bottom] = bottom, top
    # Those who must have White can only meet those who may have Black (and
    # vice versa): past that bound, leftovers float and repairs are in vain.
    m = bracket.shape[0]
    w_ok, b_ok = ctx.allow_white[bracket], ctx.allow_black[bracket]
    n_need_w = int(np.count_nonzero(w_ok & ~b_ok))
    n_need_b = int(np.count_nonzero(b_ok & ~w_ok))
    forced = max(2 * n_need_w - m, 2 * n_need_b - m, m % 2)
    if int(np.count_nonzero(mate[bracket] < 0)) <= forced:
        return
    _repair(
        bracket,
        mate,
        ctx,
        _STRICT,
        _GROUP_RADII,
        np.empty(0, dtype=np.intp),
        bracket.shape[0] % 2,
        exact=False,
        max_window=_MAX_LOCAL_WINDOW,
    )


def pair_swiss_round(
    state: SwissState,
    rng: np.random.Generator,
    *,
    absent: ArrayLike | None = None,
) -> Round:
    """Pair the next round of a Swiss event, Dutch-style.

    Parameters
    ----------
    state : SwissState
        The event so far (:func:`swiss_start`, :func:`record_swiss_round`).
    rng : numpy.random.Generator
        Draws the colour lot where neither player has a colour preference.
    absent : array_like of int, optional
        Entrants who do not play this round: they get neither a game nor the
        bye (and score nothing when the round is recorded).

    Returns
    -------
    Round
        Games best board first (in the order of the higher-ranked player) and
        the bye (at most one player).

    Raises
    ------
    ValueError
        If no pairing without a repeated game exists (too many rounds for too
        few players), or every present player of an odd field has had a bye.

    Notes
    -----
    Guaranteed: nobody plays twice in the round; no pair meets twice in the
    event; every present player has a game or the bye; no player gets a
    second bye; whenever some pairing keeps every colour difference within
    +-2 and gives nobody the same colour three times in a row, the round
    does so (C.04.1 f, g); and a pairing is found whenever one exists at
    all. The last two hold exactly for fields up to 6,000 present players
    (the exact matcher works on a dense matrix); larger fields are repaired
    in windows of that size, which in practice always suffices. Each pair's
    colours follow C.04.3 E.

    In the spirit of the Dutch system, not its letter: score groups pair
    top half against bottom half, colour preferences are granted by
    transposing the bottom half, and odd groups float a player down; but the
    candidate pairings are not searched in the Dutch order under its full
    list of quality criteria (fewest floaters and smallest score differences
    first, no floating twice in a row, the exact minimum of preferences
    denied, strong before mild preferences), so individual pairings differ;
    a player who floats into a group is paired like one of its members, not
    first against its top; absolute colour rules are not relaxed for
    topscorers in the last round; rule E.3 (alternate to the last round with
    different colours) is skipped; the initial colour of E.5 is drawn every
    round rather than once; and the bye goes to the lowest-ranked player
    without one.

    Examples
    --------
    >>> from simulator.world.pairing import swiss_start
    >>> rng = np.random.default_rng(1)
    >>> state = swiss_start(np.arange(6), [2000, 1900, 1800, 1700, 1600, 1500])
    >>> rd = pair_swiss_round(state, rng)
    >>> sorted(zip(np.minimum(rd.white, rd.black).tolist(),
    ...            np.maximum(rd.white, rd.black).tolist()))
    [(0, 3), (1, 4), (2, 5)]
    """
    _check_rng("pair_swiss_round", rng)
    order, mate, ctx = _match_swiss(state, absent)
    return _swiss_round(state, order, mate, ctx, _draw_lot(rng))


def _match_swiss(
    state: SwissState, absent: ArrayLike | None
) -> tuple[IntArray, IntArray, _Context]:
    """Steps 1-5 of :func:`pair_swiss_round`: the round's matching, no colours.

    Returns
    -------
    order : ndarray of shape (n_present,)
        Present entrants (positions) in ranking order.
    mate : ndarray of shape (n_entrants + 1,)
        Each entrant's partner (position; ``n_entrants`` is the bye; -1 for
        the absent), and the bye's player.
    ctx : _Context
        The round's arrays.
    """
    n = state.n_entrants
    present = np.ones(n, dtype=bool)
    if absent is not None:
        away = _as_players("pair_swiss_round", absent, "absent")
        present[_positions("pair_swiss_round", state, away)] = False
    eligible = np.flatnonzero(present)
    order = eligible[np.lexsort((state.rank[eligible], -state.points[eligible]))]
    ctx = _Context(state, order)
    bye_vertex = n
    mate = np.full(n + 1, -1, dtype=np.intp)
    empty = np.empty(0, dtype=np.intp)

    # Step 2: the bye, to the lowest-ranked player who has not had one.
    seq = order
    extra = empty
    if order.shape[0] % 2 == 1:
        candidates = order[~state.had_bye[order]]
        if candidates.size == 0:
            raise ValueError(
                f"Round {state.n_rounds + 1} cannot be paired: all "
                f"{order.shape[0]} present players have had a bye."
            )
        bye = candidates[-1]
        mate[bye], mate[bye_vertex] = bye_vertex, bye
        seq = np.append(order, bye_vertex)
        extra = np.array([bye_vertex], dtype=np.intp)
    to_pair = order[mate[order] < 0]

    # Step 3: score groups, top down; leftovers float down.
    points = state.points[to_pair]
    starts = np.flatnonzero(np.concatenate([[True], points[1:] != points[:-1]]))
    floaters = empty
    for members in np.split(to_pair, starts[1:]):
        group = np.concatenate([floaters, members])
        _pair_bracket(group, mate, ctx)
        floaters = group[mate[group] < 0]

    # Step 4: leftovers at the bottom. In a small field, exact augmenting
    # paths (step 5) change the fewest pairs. In a large one, the last
    # brackets collapse into one, then the last two, and so on (vectorised),
    # until everyone is paired.
    if seq.shape[0] > _MAX_LOCAL_WINDOW:
        for start in starts[-2::-1]:
            if not np.any(mate[to_pair] < 0):
                break
            inside = np.zeros(n + 1, dtype=bool)
            inside[to_pair[start:]] = True
            inside[to_pair[mate[to_pair] < 0]] = True
            inside[n] = False
            within = inside & inside[np.maximum(mate, 0)] & (mate >= 0)
            mate[within] = -1
            bracket = to_pair[inside[to_pair]]
            _pair_bracket(bracket[mate[bracket] < 0], mate, ctx)

    # Step 5: exact augmenting paths over windows growing to the whole field
    # (moving the bye if need be); colours are relaxed only if nothing else
    # works.
    _final_repair(state, order, seq, extra, mate, ctx)
    return order, mate, ctx


def _final_repair(
    state: SwissState,
    order: IntArray,
    seq: IntArray,
    extra: IntArray,
    mate: IntArray,
    ctx: _Context,
) -> None:
    """Step 5 of :func:`pair_swiss_round`, in place; ``ValueError`` if stuck."""
    for level in (_STRICT, _LOOSE):
        _repair(
            seq,
            mate,
            ctx,
            level,
            (*_FINAL_RADII, seq.shape[0]),
            extra,
            0,
            exact=True,
            max_window=_MAX_WINDOW,
        )
    if np.any(mate[seq] < 0):
        if seq.shape[0] > _MAX_WINDOW:  # pragma: no cover - not seen in practice
            raise RuntimeError(
                f"Round {state.n_rounds + 1}: the repairs left players unpaired "
                f"and {order.shape[0]} players are too many for the exact search."
            )
        raise ValueError(
            f"Round {state.n_rounds + 1} cannot be paired: no pairing of the "
            f"{order.shape[0]} present players avoids a repeated game"
            + (
                " and gives the bye to a player without one"
                if order.shape[0] % 2
                else ""
            )
            + f" (after {state.n_rounds} rounds)."
        )


def _swiss_round(
    state: SwissState, order: IntArray, mate: IntArray, ctx: _Context, lot: int
) -> Round:
    """The checked :class:`Round` of a matching, colours by C.04.3 E."""
    bye_vertex = state.n_entrants
    partner = mate[order]
    # The contract, checked on every round: a pairing error never passes.
    bye_players = order[partner == bye_vertex]
    games = partner != bye_vertex
    if (
        np.any(partner < 0)
        or np.any(mate[partner] != order)
        or np.any(ctx.met(order[games], partner[games]))
        or bye_players.shape[0] != order.shape[0] % 2
        or np.any(state.had_bye[bye_players])
    ):  # pragma: no cover - would be a bug in this module
        raise RuntimeError(f"Internal error pairing round {state.n_rounds + 1}.")
    is_high = (partner != bye_vertex) & (ctx.pos[order] < ctx.pos[partner])
    high = order[is_high]
    low = partner[is_high]
    white, black = _allocate_colours(high, low, ctx, lot)
    return Round(state.players[white], state.players[black], state.players[bye_players])
