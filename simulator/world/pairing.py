"""Who plays whom: Swiss events, round robins, the online pool, random pairings.

The engine drives an event round by round: it asks for a round's pairings,
samples the results, records them and asks for the next round. Every function
here works over numpy arrays of player indices, takes its randomness from an
explicit ``rng`` (a :class:`numpy.random.Generator`) and returns a
:class:`Round`, in which a player plays at most once.

Sources: the FIDE Handbook C.04.3 (FIDE (Dutch) System, rules of 2017) for the
spirit of the Swiss pairing and its colour rules; C.05 Annex 1 (Berger tables)
for round robins; lila's ``modules/pool/src/main/MatchMaking.scala`` for the
size of the online rating window.

Swiss pairing, in short (see :func:`pair_swiss_round` for what it guarantees
and where it differs from the Dutch system):

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

:func:`pair_swiss_rounds` and :func:`record_swiss_rounds` do the same for
many concurrent events at once (the engine's path: a day has thousands of
small events), with results identical to calling the single-event functions
event by event; the pairing of small events runs as compiled loops (numba).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._jit import jit, unliteral
from simulator._types import BoolArray, FloatArray, IntArray
from simulator._validate import check_interval

__all__ = [
    "BLACK",
    "BYE_SCORE",
    "JITTER",
    "WHITE",
    "WINDOW",
    "Round",
    "SwissState",
    "pair_online",
    "pair_random",
    "pair_swiss_round",
    "pair_swiss_rounds",
    "record_swiss_round",
    "record_swiss_rounds",
    "round_robin",
    "swiss_start",
]

KeyArray = NDArray[np.int64]

#: Colour codes of :attr:`SwissState.last_colour`.
WHITE = 1
BLACK = -1
#: Points for a pairing-allocated bye: a win's, unless the rules of the
#: tournament say otherwise (FIDE C.04.1 c).
BYE_SCORE = 1.0
#: Default widest rating difference of an online pairing. lila's pool
#: (``MatchMaking.scala``, ``ratingToMaxScore``) allows about 100 points between
#: 1000 and 1500 and rating/15 above (133 at 2000), widened by 12 points per
#: pairing wave a player waits; 150 sits in that range.
WINDOW = 150.0
#: Default standard deviation of the jitter added to ratings before sorting the
#: online pool, so that repeated calls do not always pair the same neighbours.
JITTER = 50.0

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
# Largest table of who has met whom in an event (booleans, entrants squared)
# that a batch of Swiss events makes; larger fields are paired event by event.
_MAX_TABLE = 1 << 24
# Player indices a look-up table of record_swiss_rounds covers beyond four
# per entrant (intp entries, mostly never touched).
_MAX_LOOKUP = 1 << 24
# Legality levels of a pairing.
_LOOSE, _STRICT, _PREFER = 0, 1, 2


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


class Round(NamedTuple):
    """One round: who has White, who has Black, and who has no game.

    Attributes
    ----------
    white, black : ndarray of shape (n_games,)
        Player indices, one game per entry, best board first.
    bye : ndarray of shape (n_byes,)
        Players in the round without a game: a Swiss event's bye, the player
        sitting out a round-robin round or left alone in the online pool.
    """

    white: IntArray
    black: IntArray
    bye: IntArray

    @property
    def n_games(self) -> int:
        """Number of games."""
        return int(self.white.shape[0])


class SwissState(NamedTuple):
    """One Swiss event so far. Arrays of shape (n_entrants,) follow ``players``.

    Attributes
    ----------
    players : ndarray of shape (n_entrants,)
        The entrants' player indices, in the order given to :func:`swiss_start`.
    rating : ndarray of shape (n_entrants,)
        The arena's designated rating at the start (NaN: unrated).
    rank : ndarray of shape (n_entrants,)
        Starting rank, 0 for the top seed: rating descending, unrated last,
        ties in the order of ``players``.
    points : ndarray of shape (n_entrants,)
        Points so far.
    colour_diff : ndarray of shape (n_entrants,)
        Games with White minus games with Black.
    last_colour : ndarray of shape (n_entrants,)
        Colour of the last game played (:data:`WHITE`, :data:`BLACK`, 0 if none).
    streak : ndarray of shape (n_entrants,)
        Games in a row, up to the last one, played with ``last_colour``.
    had_bye : ndarray of shape (n_entrants,)
        Whether the player has had a bye.
    played : ndarray of shape (n_played,)
        Sorted keys ``i * n_entrants + j`` (``i < j``, positions in ``players``)
        of the pairs that have met.
    n_rounds : int
        Rounds recorded.
    """

    players: IntArray
    rating: FloatArray
    rank: IntArray
    points: FloatArray
    colour_diff: IntArray
    last_colour: IntArray
    streak: IntArray
    had_bye: BoolArray
    played: KeyArray
    n_rounds: int

    @property
    def n_entrants(self) -> int:
        """Number of entrants."""
        return int(self.players.shape[0])


# --------------------------------------------------------------------------
# Validation


def _as_players(owner: str, players: ArrayLike, name: str = "players") -> IntArray:
    """Player indices as a fresh intp array; ``ValueError`` if not distinct."""
    a = np.asarray(players)
    if a.ndim != 1:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be one-dimensional. "
            f"Got shape {a.shape} instead."
        )
    # Plain integers first: this runs for every event, and the general test
    # costs more than the rest.
    if (
        a.size
        and a.dtype.kind not in "iu"
        and (
            a.dtype == np.bool_
            or not (
                np.issubdtype(a.dtype, np.integer)
                or np.issubdtype(a.dtype, np.floating)
            )
            or not np.all(np.equal(np.mod(a, 1), 0))
        )
    ):
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold integer player indices."
        )
    out = a.astype(np.intp)
    if out.size and out.min() < 0:
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold non-negative player "
            f"indices. Got {int(out.min())}."
        )
    s = np.sort(out)
    twice = s[1:][s[1:] == s[:-1]]
    if twice.size:
        raise ValueError(
            f"The {name!r} parameter of {owner} must hold distinct players. "
            f"Got player {int(twice[0])} more than once."
        )
    return out


def _as_rating(owner: str, rating: ArrayLike, n: int, *, allow_nan: bool) -> FloatArray:
    """Ratings aligned with the players, as a fresh float64 array."""
    r = np.array(rating, dtype=np.float64)
    if r.shape != (n,):
        raise ValueError(
            f"The 'rating' parameter of {owner} must have one entry per player "
            f"({n}), aligned with 'players'. Got shape {r.shape} instead."
        )
    bad = np.isinf(r) if allow_nan else ~np.isfinite(r)
    if bad.any():
        what = "finite or NaN (unrated)" if allow_nan else "finite"
        raise ValueError(
            f"The 'rating' parameter of {owner} must be {what}. "
            f"Got {float(r[bad][0])} at position {int(np.flatnonzero(bad)[0])}."
        )
    return r


def _check_rng(owner: str, rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"The 'rng' parameter of {owner} must be a numpy.random.Generator. "
            f"Got {type(rng).__name__} instead."
        )


def _positions(owner: str, state: SwissState, players: IntArray) -> IntArray:
    """Positions in ``state.players`` of ``players``; ``ValueError`` for strangers."""
    sorter = np.argsort(state.players, kind="stable")
    idx = np.searchsorted(state.players, players, sorter=sorter)
    idx = np.minimum(idx, max(state.n_entrants - 1, 0))
    pos = sorter[idx] if state.n_entrants else idx
    stranger = (
        np.ones(players.shape, dtype=bool)
        if state.n_entrants == 0
        else state.players[pos] != players
    )
    if stranger.any():
        raise ValueError(
            f"{owner}: player {int(players[stranger][0])} is not an entrant "
            "of this event."
        )
    return pos.astype(np.intp)


# --------------------------------------------------------------------------
# Swiss events


def swiss_start(players: ArrayLike, rating: ArrayLike) -> SwissState:
    """The state of a Swiss event before its first round.

    Parameters
    ----------
    players : array_like of int, shape (n_entrants,)
        Distinct player indices of the entrants.
    rating : array_like of float, shape (n_entrants,)
        The arena's designated rating of each entrant at the start, aligned
        with ``players``; NaN for unrated players. It fixes the starting
        rank: rating descending, unrated last, ties in the order of
        ``players`` (shuffle ``players`` first for ties broken by lot).

    Returns
    -------
    SwissState
        No points, no colours, no byes, no games.

    Raises
    ------
    ValueError
        For repeated or negative players or ratings of the wrong shape.

    Examples
    --------
    >>> state = swiss_start([7, 3, 5], [1800.0, np.nan, 2000.0])
    >>> state.rank.tolist()
    [1, 2, 0]
    """
    p = _as_players("swiss_start", players)
    n = p.shape[0]
    r = _as_rating("swiss_start", rating, n, allow_nan=True)
    key = np.where(np.isnan(r), np.inf, -r)
    rank = np.empty(n, dtype=np.intp)
    rank[np.argsort(key, kind="stable")] = np.arange(n)
    return SwissState(
        players=p,
        rating=r,
        rank=rank,
        points=np.zeros(n),
        colour_diff=np.zeros(n, dtype=np.intp),
        last_colour=np.zeros(n, dtype=np.intp),
        streak=np.zeros(n, dtype=np.intp),
        had_bye=np.zeros(n, dtype=bool),
        played=np.empty(0, dtype=np.int64),
        n_rounds=0,
    )


def _pair_keys(a: IntArray, b: IntArray, n: int) -> KeyArray:
    """Keys ``min * n + max`` of pairs of entrant positions."""
    return np.asarray(np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b))


def _contains(sorted_keys: KeyArray, keys: KeyArray) -> BoolArray:
    """Whether each of ``keys`` is in ``sorted_keys`` (binary search).

    Faster than ``np.isin`` here: the played keys are kept sorted.
    """
    if sorted_keys.size == 0:
        return np.zeros(keys.shape, dtype=bool)
    idx = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return np.asarray(sorted_keys[idx] == keys)


class _Context:
    """Per-round arrays of a Swiss pairing, over entrant positions.

    Position ``n`` (one past the last entrant) is the bye, a dummy vertex that
    can be paired with any present player who has not had a bye.

    A batch of events (:func:`pair_swiss_rounds`) uses one context over all
    of them for the colour rules and ranking places (:meth:`over`): positions
    are then slots of the concatenated events and ``pos`` the place in the
    concatenated ranking. Who has met whom it looks up event by event.
    """

    def __init__(self, state: SwissState, order: IntArray) -> None:
        n = state.n_entrants
        pos = np.full(n + 1, -1, dtype=np.intp)
        pos[order] = np.arange(order.shape[0])
        pos[n] = order.shape[0]
        self.n = n
        self.played = state.played
        self._setup(
            state.had_bye,
            state.rank,
            state.colour_diff,
            state.last_colour,
            state.streak,
            pos,
        )

    @classmethod
    def over(
        cls,
        had_bye: BoolArray,
        rank: IntArray,
        colour_diff: IntArray,
        last_colour: IntArray,
        streak: IntArray,
        pos: IntArray,
    ) -> Self:
        """The colour rules and ranking places over given arrays.

        Without who has met whom: no :meth:`met`, :meth:`legal` or
        :meth:`adjacency`.
        """
        ctx = cls.__new__(cls)
        ctx._setup(had_bye, rank, colour_diff, last_colour, streak, pos)
        return ctx

    def _setup(
        self,
        had_bye: BoolArray,
        rank: IntArray,
        cd: IntArray,
        last: IntArray,
        streak: IntArray,
        pos: IntArray,
    ) -> None:
        self.had_bye = had_bye
        self.rank = rank
        self.colour_diff = cd
        # Absolute colour rules (C.04.1 f, g): |colour_diff| stays <= 2 and no
        # colour three times in a row.
        self.allow_white = (cd <= 1) & ~((last == WHITE) & (streak >= 2))
        self.allow_black = (cd >= -1) & ~((last == BLACK) & (streak >= 2))
        # Colour preference (C.04.3 A.6): absolute 3, strong 2, mild 1, none 0.
        pref = np.zeros(cd.shape[0], dtype=np.intp)
        strength = np.zeros(cd.shape[0], dtype=np.intp)
        for mask, direction, level in (
            (last != 0, -last, 1),
            (cd != 0, -np.sign(cd), 2),
            (streak >= 2, -last, 3),
            (np.abs(cd) >= 2, -np.sign(cd), 3),
        ):
            pref = np.where(mask, direction, pref)
            strength = np.where(mask, level, strength)
        self.pref = pref
        self.strength = strength
        # Place of each entrant (and of the bye, last) in this round's ranking.
        self.pos = pos

    def met(self, a: IntArray, b: IntArray) -> BoolArray:
        """Whether each pair ``(a[k], b[k])`` of entrants has played."""
        return _contains(self.played, _pair_keys(a, b, self.n))

    def legal(self, a: IntArray, b: IntArray, level: int) -> BoolArray:
        """Whether entrants ``a`` and ``b`` may meet at a legality ``level``."""
        ok: BoolArray = np.asarray((a != b) & ~self.met(a, b))
        if level >= _STRICT:
            ok &= (self.allow_white[a] & self.allow_black[b]) | (
                self.allow_black[a] & self.allow_white[b]
            )
        if level >= _PREFER:
            pa = self.pref[a]
            ok &= (pa == 0) | (pa != self.pref[b])
        return ok

    def adjacency(self, window: IntArray, level: int) -> BoolArray:
        """Legal pairs among ``window`` (entrants and perhaps the bye), dense."""
        is_bye = window == self.n
        nodes = np.where(is_bye, 0, window)
        adj = self.legal(nodes[:, None], nodes[None, :], level)
        if is_bye.any():
            free = ~self.had_bye[nodes] & ~is_bye
            adj[is_bye, :] = free[None, :]
            adj[:, is_bye] = free[:, None]
        np.fill_diagonal(adj, False)
        return adj


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


def _draw_lot(rng: np.random.Generator) -> int:
    """The initial colour of C.04.3 E.5, drawn by lot (one draw per round)."""
    return WHITE if rng.integers(2) == 0 else BLACK


def _draw_lots(rng: np.random.Generator, count: int) -> IntArray:
    """``count`` lots of :func:`_draw_lot` in one call: the same draws.

    NumPy draws a scalar bounded integer as a fill of one element, each
    element of a fill taking its own 32-bit output of the bit generator,
    so one fill of ``count`` elements makes the same draws (and leaves the
    generator in the same state) as ``count`` scalar calls, in a fraction of
    the time. The tests compare the two.
    """
    return np.where(rng.integers(2, size=count) == 0, WHITE, BLACK).astype(np.intp)


def _allocate_colours(
    high: IntArray, low: IntArray, ctx: _Context, lot: int | IntArray
) -> tuple[IntArray, IntArray]:
    """White and Black of each pair (``high`` ranked above ``low``; board order).

    C.04.3 E.1, E.2, E.4: grant both preferences; else the stronger one; if
    both are absolute, the wider colour difference; else the higher-ranked
    player's. E.5, where neither player has a preference: the higher-ranked
    player gets the initial colour ``lot`` (drawn by lot, here once per round;
    one per pair in a batch of events) if their pairing number (starting rank
    + 1) is odd, the other colour if even.
    """
    pa, pb = ctx.pref[high], ctx.pref[low]
    sa, sb = ctx.strength[high], ctx.strength[low]
    wider = np.abs(ctx.colour_diff[high]) >= np.abs(ctx.colour_diff[low])
    high_wins = (sa > sb) | ((sa == sb) & ((sa < 3) | wider))
    colour = np.where(pa != 0, pa, -pb)
    conflict = (pa == pb) & (pa != 0)
    colour = np.where(conflict, np.where(high_wins, pa, -pb), colour)
    by_lot = np.where(ctx.rank[high] % 2 == 0, lot, np.negative(lot))
    colour = np.where((pa == 0) & (pb == 0), by_lot, colour)
    white = np.where(colour == WHITE, high, low)
    black = np.where(colour == WHITE, low, high)
    return white.astype(np.intp), black.astype(np.intp)


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


# --------------------------------------------------------------------------
# Swiss events in a batch: the compiled pairing of small events
#
# Steps 2, 3 and the first window of step 5 of :func:`pair_swiss_round`, as
# loops over the events of a batch: the same algorithm, step for step, on one
# event at a time. A day's events are small (a few dozen players, a dozen
# score groups), so numpy's per-call overhead, not the work, would set the
# time. Inside an event, vertices are the event's positions (0 to n - 1, and
# n for the bye), as in ``mate`` of :func:`_match_swiss`; the per-player
# arrays (``allow_white``, ``pref``, ...) are the event's entries of the
# :class:`_Context` arrays of the same names. Who may meet whom is tabled
# once per event (:func:`_legal_tables`): the loops ask about pairs many
# times, and a look-up in a table is what keeps them fast.

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


# --------------------------------------------------------------------------
# Swiss events in a batch


class _Fallback(Exception):
    """A batch the vectorised path does not pair: pair it event by event."""


# The dtypes :func:`swiss_start` gives a state's players, rank, points,
# colour_diff, last_colour, streak, had_bye and played.
_STANDARD_DTYPES = (
    np.dtype(np.intp),
    np.dtype(np.intp),
    np.dtype(np.float64),
    np.dtype(np.intp),
    np.dtype(np.intp),
    np.dtype(np.intp),
    np.dtype(np.bool_),
    np.dtype(np.int64),
)


_state_dtypes = attrgetter(
    "players.dtype",
    "rank.dtype",
    "points.dtype",
    "colour_diff.dtype",
    "last_colour.dtype",
    "streak.dtype",
    "had_bye.dtype",
    "played.dtype",
)


def _standard(state: SwissState) -> bool:
    """Whether a state has the dtypes :func:`swiss_start` gives it.

    The batched paths join the events' arrays, which would otherwise change
    the dtypes of what they return.
    """
    # One C-level attribute fetch and one tuple comparison (dtypes compare by
    # identity first): this runs for every event of every call.
    return bool(_state_dtypes(state) == _STANDARD_DTYPES)


def _cut(arrays: tuple[NDArray[Any], ...], sizes: IntArray) -> list[list[NDArray[Any]]]:
    """Each array cut into consecutive pieces of ``sizes`` (views)."""
    ends = np.cumsum(sizes).tolist()
    starts = [0, *ends][:-1]
    return [[a[i:j] for i, j in zip(starts, ends, strict=True)] for a in arrays]


def _ranking(ev: IntArray, points: FloatArray, rank: IntArray) -> IntArray:
    """The order of ``np.lexsort((rank, -points, ev))``, faster.

    The three keys are packed into one integer (points by their place among
    the distinct values), whose stable sort is about three times faster than
    lexsort's with a float key; lexsort itself where the packed key would
    overflow.
    """
    if ev.size == 0:
        return np.empty(0, dtype=np.intp)
    _, level = np.unique(-points, return_inverse=True)
    low = int(rank.min())
    span = int(rank.max()) - low + 1
    n_levels = int(level.max()) + 1
    if (int(ev.max()) + 1) * n_levels * span >= 1 << 62:
        return np.lexsort((rank, -points, ev))
    key = (ev.astype(np.int64) * n_levels + level) * span + (rank - low)
    return np.asarray(key.argsort(kind="stable"))


class _SwissBatch:
    """Today's round of many Swiss events, paired together.

    The events' entrants are laid out one event after another in *slots*:
    event ``e`` has slots ``base[e]`` to ``base[e] + n[e] - 1`` for its
    entrants and ``base[e] + n[e]`` for its bye vertex. ``mate`` holds, per
    slot, the partner's position *within the event* (as
    :func:`pair_swiss_round`'s ``mate``), so that ``mate[base[e] : base[e] +
    n[e] + 1]`` is a view equal to that event's own matching, which the
    compiled loops and the exact repairs of :func:`_repair` work on in place,
    event by event.
    """

    def __init__(
        self, states: list[SwissState], absents: list[ArrayLike | None]
    ) -> None:
        self.states = states
        self.absents = absents
        e_count = len(states)
        self.n_events = e_count
        # The states' fields, each a tuple over the events (one transposition
        # rather than a pass over the events per field).
        field = dict(zip(SwissState._fields, zip(*states, strict=True), strict=True))
        n = np.array([len(p) for p in field["players"]], dtype=np.intp)
        self.n = n
        width = n + 1
        n_slots = int(width.sum())
        self.base = base = np.cumsum(width) - width
        self.ev = ev = np.repeat(np.arange(e_count), width)
        entrant = np.ones(n_slots, dtype=bool)
        entrant[base + n] = False
        slots = np.flatnonzero(entrant)

        def gather(name: str, dtype: type, fill: object) -> NDArray[Any]:
            out: NDArray[Any] = np.full(n_slots, fill, dtype=dtype)
            out[slots] = np.concatenate(field[name])
            return out

        self.players: IntArray = gather("players", np.intp, -1)
        rank: IntArray = gather("rank", np.intp, 0)
        points: FloatArray = gather("points", np.float64, 0.0)
        had_bye: BoolArray = gather("had_bye", np.bool_, True)
        # Played pairs: each event's keys, one event after another.
        n_played = np.array([len(k) for k in field["played"]], dtype=np.intp)
        self.keys: KeyArray = np.concatenate(field["played"])
        self.key_start = np.concatenate([[0], np.cumsum(n_played)])

        present = entrant.copy()
        for e, away in enumerate(absents):
            if away is not None:
                who = _as_players("pair_swiss_round", away, "absent")
                present[base[e] + _positions("pair_swiss_round", states[e], who)] = (
                    False
                )
        eligible = np.flatnonzero(present)
        order = eligible[_ranking(ev[eligible], points[eligible], rank[eligible])]
        self.order = order
        self.ev_order = ev_order = ev[order]
        self.n_present = n_present = np.bincount(ev_order, minlength=e_count)
        self.first_place = first = np.cumsum(n_present) - n_present
        pos = np.full(n_slots, -1, dtype=np.intp)
        pos[order] = np.arange(order.shape[0])
        pos[base + n] = first + n_present
        # Large fields (more than a bracket repair's window) take the
        # per-event path, whose step 4 collapses the bottom brackets; so do
        # fields of too many entrants for a dense table of who has met whom.
        self.large = (n_present + n_present % 2 > _MAX_LOCAL_WINDOW) | (
            n * n > _MAX_TABLE
        )
        self.ctx = _Context.over(
            had_bye,
            rank,
            gather("colour_diff", np.intp, 0),
            gather("last_colour", np.intp, 0),
            gather("streak", np.intp, 0),
            pos,
        )
        self.mate = np.full(n_slots, -1, dtype=np.intp)
        self.points = points
        self._contexts: dict[int, _Context] = {}

    def local_order(self, e: int) -> IntArray:
        """Event ``e``'s present entrants (positions) in ranking order."""
        f = int(self.first_place[e])
        return np.asarray(self.order[f : f + int(self.n_present[e])] - self.base[e])

    def view(self, e: int) -> IntArray:
        """Event ``e``'s matching, a view of ``mate`` (positions in the event)."""
        b = int(self.base[e])
        return self.mate[b : b + int(self.n[e]) + 1]

    def context(self, e: int) -> _Context:
        """Event ``e``'s own context, as :func:`pair_swiss_round` builds it.

        Its arrays are views of the batch's (the same values).
        """
        ctx = self._contexts.get(e)
        if ctx is None:
            b, m = int(self.base[e]), int(self.n[e])
            whole = self.ctx
            ctx = _Context.__new__(_Context)
            ctx.n = m
            ctx.played = self.states[e].played
            for name in (
                "had_bye",
                "rank",
                "colour_diff",
                "allow_white",
                "allow_black",
                "pref",
                "strength",
            ):
                setattr(ctx, name, getattr(whole, name)[b : b + m])
            pos = whole.pos[b : b + m + 1]
            ctx.pos = np.where(pos >= 0, pos - self.first_place[e], -1)
            self._contexts[e] = ctx
        return ctx

    def match(self) -> None:
        """Steps 1-5 of :func:`pair_swiss_round` for every event."""
        for e in np.flatnonzero(self.large).tolist():
            try:
                _, local, _ = _match_swiss(self.states[e], self.absents[e])
            except ValueError:
                raise _Fallback from None
            self.view(e)[:] = local
        ctx = self.ctx
        status = _match_small_events(
            ~self.large,
            self.base,
            self.n,
            self.order,
            self.first_place,
            self.n_present,
            self.keys,
            self.key_start,
            self.points,
            ctx.allow_white,
            ctx.allow_black,
            ctx.pref,
            ctx.strength,
            ctx.had_bye,
            self.mate,
        )
        if np.any(status == _NO_BYE):
            raise _Fallback  # Some odd field has no player without a bye.
        # Step 5 for the events the first window left short: exactly as
        # pair_swiss_round repairs them (blossom search, wider windows,
        # relaxed colours).
        for e in np.flatnonzero(status == _SHORT).tolist():
            ranked = self.local_order(e)
            seq, extra = ranked, np.empty(0, dtype=np.intp)
            if ranked.shape[0] % 2 == 1:
                seq = np.append(ranked, self.n[e])
                extra = np.array([self.n[e]], dtype=np.intp)
            try:
                _final_repair(
                    self.states[e], ranked, seq, extra, self.view(e), self.context(e)
                )
            except ValueError:
                raise _Fallback from None
        self.check()

    def check(self) -> None:
        """The contract of :func:`pair_swiss_round`, checked on every event."""
        if _broken_matching(
            self.base,
            self.n,
            self.order,
            self.first_place,
            self.n_present,
            self.keys,
            self.key_start,
            self.ctx.had_bye,
            self.mate,
        ):
            # A bug in the compiled loops: the event-by-event path still pairs
            # the batch right, but say so, or the bug would only show as
            # slower runs.
            warnings.warn(
                "Internal error in the compiled pairing of a batch of Swiss "
                "events: a matching broke the pairing contract. The batch is "
                "paired event by event instead; please report this.",
                RuntimeWarning,
                # check <- match <- pair_swiss_rounds <- its caller.
                stacklevel=4,
            )
            raise _Fallback

    def rounds(self, lots: IntArray) -> list[Round]:
        """The events' rounds (``lots``: each event's initial colour)."""
        ctx, mate, order, ev_order = self.ctx, self.mate, self.order, self.ev_order
        partner = mate[order]
        at_bye = partner == self.n[ev_order]
        bye_slots = order[at_bye]
        games = ~at_bye
        partner_slot = self.base[ev_order] + partner
        n_byes = np.bincount(ev_order[at_bye], minlength=self.n_events)
        is_high = games & (ctx.pos[order] < ctx.pos[partner_slot])
        high = order[is_high]
        low = partner_slot[is_high]
        hev = ev_order[is_high]
        white, black = _allocate_colours(high, low, ctx, lots[hev])
        p = self.players
        return [
            Round(w, b, y)
            for w, b, y in zip(
                *_cut((p[white], p[black]), np.bincount(hev, minlength=self.n_events)),
                *_cut((p[bye_slots],), n_byes),
                strict=True,
            )
        ]


def pair_swiss_rounds(
    states: Sequence[SwissState],
    rng: np.random.Generator,
    *,
    absent: Sequence[ArrayLike | None] | None = None,
) -> list[Round]:
    """Pair the next round of many Swiss events at once.

    Equal to ``[pair_swiss_round(s, rng, absent=a) for s, a in zip(states,
    absent)]``: the same rounds, the same draws from ``rng`` in the same
    order (one colour lot per event), and the same exceptions; only faster
    when there are many events. The events' arrays are joined once, and the
    algorithm of :func:`pair_swiss_round` runs event by event in compiled
    loops (the bye, the score groups with their short repairs, and the first
    window of the final repair); the rare event that leaves players short
    gets the exact final repair of :func:`pair_swiss_round`, and fields of
    more than 1,000 present players are paired by it from the start.

    Parameters
    ----------
    states : sequence of SwissState
        The events so far.
    rng : numpy.random.Generator
        Draws each event's colour lot, in the order of ``states``.
    absent : sequence of array_like of int or None, optional
        Per event, the entrants who do not play this round (or None).

    Returns
    -------
    list of Round
        One round per event, as :func:`pair_swiss_round` returns it.

    Raises
    ------
    ValueError
        As :func:`pair_swiss_round`, for the first event that raises (the lots
        of the events before it are drawn).

    Examples
    --------
    >>> states = [swiss_start(np.arange(6), np.arange(6.0)),
    ...           swiss_start([7, 8, 9], [1500.0, 1600.0, np.nan])]
    >>> one = pair_swiss_rounds(states, np.random.default_rng(1))
    >>> rng = np.random.default_rng(1)
    >>> two = [pair_swiss_round(s, rng) for s in states]
    >>> all(np.array_equal(x, y) for a, b in zip(one, two) for x, y in zip(a, b))
    True
    """
    _check_rng("pair_swiss_rounds", rng)
    states = list(states)
    absents: list[ArrayLike | None] = (
        [None] * len(states) if absent is None else list(absent)
    )
    if len(absents) != len(states):
        raise ValueError(
            "The 'absent' parameter of pair_swiss_rounds must have one entry per "
            f"event ({len(states)}). Got {len(absents)}."
        )
    if not states:
        return []
    try:
        if not all(_standard(s) for s in states):
            raise _Fallback
        batch = _SwissBatch(states, absents)
        batch.match()
    except (_Fallback, ValueError):
        # Some event raises: pair event by event, which raises where
        # pair_swiss_round would, after the same draws.
        return [
            pair_swiss_round(s, rng, absent=a)
            for s, a in zip(states, absents, strict=True)
        ]
    return batch.rounds(_draw_lots(rng, len(states)))


def record_swiss_round(
    state: SwissState,
    round: Round,
    scores: ArrayLike,
    *,
    bye_score: float = BYE_SCORE,
) -> SwissState:
    """The state after a round's results.

    Parameters
    ----------
    state : SwissState
        The event before the round.
    round : Round
        The round's pairings (player indices, as from :func:`pair_swiss_round`).
    scores : array_like of float, shape (n_games,)
        White's score of each game: 1, 0.5 or 0.
    bye_score : float, default 1
        Points for the bye.

    Returns
    -------
    SwissState
        A new state; ``state`` is not modified.

    Raises
    ------
    ValueError
        For strangers, a player in two places, a repeated pairing, or scores
        of the wrong shape or value.
    """
    owner = "record_swiss_round"
    check_interval(owner, "bye_score", bye_score, 0, 1)
    white = _as_players(owner, round.white, "round.white")
    black = _as_players(owner, round.black, "round.black")
    bye = _as_players(owner, round.bye, "round.bye")
    _as_players(owner, np.concatenate([white, black, bye]), "round")
    s = np.array(scores, dtype=np.float64)
    if s.shape != white.shape or black.shape != white.shape:
        raise ValueError(
            f"{owner}: 'scores', round.white and round.black must have equal "
            f"lengths. Got {s.shape[0] if s.ndim else 0}, {white.shape[0]}, "
            f"{black.shape[0]}."
        )
    bad = ~np.isin(s, (0.0, 0.5, 1.0))
    if bad.any():
        raise ValueError(
            f"{owner}: 'scores' must be 0, 0.5 or 1. Got {s[bad][0]!r} at game "
            f"{int(np.flatnonzero(bad)[0])}."
        )
    w = _positions(owner, state, white)
    b = _positions(owner, state, black)
    y = _positions(owner, state, bye)
    n = state.n_entrants
    keys = np.sort(_pair_keys(w, b, n))
    again = _contains(state.played, _pair_keys(w, b, n))
    if again.any():
        k = int(np.flatnonzero(again)[0])
        raise ValueError(
            f"{owner}: players {int(white[k])} and {int(black[k])} have met "
            "before in this event."
        )

    points = state.points.copy()
    points[w] += s
    points[b] += 1.0 - s
    points[y] += bye_score
    colour_diff = state.colour_diff.copy()
    colour_diff[w] += 1
    colour_diff[b] -= 1
    streak = state.streak.copy()
    last = state.last_colour.copy()
    for who, colour in ((w, WHITE), (b, BLACK)):
        streak[who] = np.where(last[who] == colour, streak[who] + 1, 1)
        last[who] = colour
    had_bye = state.had_bye.copy()
    had_bye[y] = True
    return SwissState(
        players=state.players,
        rating=state.rating,
        rank=state.rank,
        points=points,
        colour_diff=colour_diff,
        last_colour=last,
        streak=streak,
        had_bye=had_bye,
        played=np.insert(state.played, np.searchsorted(state.played, keys), keys),
        n_rounds=state.n_rounds + 1,
    )


def record_swiss_rounds(
    states: Sequence[SwissState],
    rounds: Sequence[Round],
    scores: Sequence[ArrayLike],
    *,
    bye_score: float = BYE_SCORE,
) -> list[SwissState]:
    """The states after a round's results, for many Swiss events at once.

    Equal to ``[record_swiss_round(s, r, x, bye_score=bye_score) for s, r, x
    in zip(states, rounds, scores)]`` (the same states, the same exceptions),
    with the updates done over all the events together.

    Parameters
    ----------
    states : sequence of SwissState
        The events before the round.
    rounds : sequence of Round
        Each event's pairings (as from :func:`pair_swiss_rounds`).
    scores : sequence of array_like of float
        Each event's White scores, one per game: 1, 0.5 or 0.
    bye_score : float, default 1
        Points for the bye.

    Returns
    -------
    list of SwissState
        New states; ``states`` are not modified.

    Raises
    ------
    ValueError
        As :func:`record_swiss_round`, for the first event that raises, or if
        the three sequences differ in length.
    """
    owner = "record_swiss_rounds"
    check_interval(owner, "bye_score", bye_score, 0, 1)
    states, rounds, scores = list(states), list(rounds), list(scores)
    if not len(states) == len(rounds) == len(scores):
        raise ValueError(
            f"{owner}: 'states', 'rounds' and 'scores' must have equal lengths. "
            f"Got {len(states)}, {len(rounds)}, {len(scores)}."
        )
    if not states:
        return []
    out = _record_batch(states, rounds, scores, float(bye_score))
    if out is None:
        # Something to reject (or an unusual input): event by event, which
        # raises where record_swiss_round would.
        return [
            record_swiss_round(s, r, x, bye_score=bye_score)
            for s, r, x in zip(states, rounds, scores, strict=True)
        ]
    return out


def _record_batch(
    states: list[SwissState],
    rounds: list[Round],
    scores: list[ArrayLike],
    bye_score: float,
) -> list[SwissState] | None:
    """:func:`record_swiss_rounds` vectorised; None for anything to reject."""
    e_count = len(states)
    if not all(_standard(s) for s in states):
        return None
    # The states' fields, each a tuple over the events (one transposition
    # rather than a pass over the events per field).
    (
        players,
        ratings,
        ranks,
        old_points,
        old_colour_diff,
        old_last,
        old_streak,
        old_had_bye,
        old_played,
        n_rounds,
    ) = zip(*states, strict=True)
    # Checked over the joined arrays rather than event by event: one-dimensional
    # arrays join into one (any other shape does not, or joins into more
    # dimensions), and each event's lengths are compared as lists.
    try:
        whites = [np.asarray(rd.white) for rd in rounds]
        blacks = [np.asarray(rd.black) for rd in rounds]
        byes = [np.asarray(rd.bye) for rd in rounds]
        values = [np.asarray(x) for x in scores]
        if not (
            {a.dtype.kind for a in (*whites, *blacks, *byes)} <= {"i", "u"}
            and {a.dtype.kind for a in values} <= {"i", "u", "f"}
        ):
            return None
        games = [w.shape for w in whites]
        if [b.shape for b in blacks] != games or [x.shape for x in values] != games:
            return None
        score = np.concatenate(values).astype(np.float64)
        named = np.concatenate([*whites, *blacks, *byes]).astype(np.intp)
    except ValueError:  # Zero-dimensional arrays, or of different dimensions.
        return None
    if score.ndim != 1 or named.ndim != 1:
        return None
    n_games = np.array([w.shape[0] for w in whites], dtype=np.intp)
    n_byes = np.array([y.shape[0] for y in byes], dtype=np.intp)
    if not np.all((score == 0.0) | (score == 0.5) | (score == 1.0)):
        return None
    if named.size and named.min() < 0:
        return None
    # Each named player's index among all the events' entrants, one event
    # after another, by a direct look-up table. It needs every entrant in one
    # event only (the engine's events do not overlap) and indices below
    # _MAX_LOOKUP or so; otherwise, event by event.
    n = np.array([len(p) for p in players], dtype=np.intp)
    offset = np.cumsum(n) - n
    entrants = np.concatenate(players)
    if named.size > entrants.size:
        return None  # A stranger, or a player in two places.
    width = int(max(entrants.max(initial=-1), named.max(initial=-1))) + 1
    if width > _MAX_LOOKUP + 4 * entrants.size:
        return None
    # Left uninitialised (only the pages written are touched): the entries
    # of strangers are garbage, caught by the round trip below.
    table = np.empty(width, dtype=np.intp)
    index = np.arange(entrants.size)
    table[entrants] = index
    if not np.array_equal(table[entrants], index):
        return None  # An entrant of two events.
    where = table[named]
    events = np.arange(e_count, dtype=np.intp)
    game_event = np.repeat(events, n_games)
    event = np.concatenate([game_event, game_event, np.repeat(events, n_byes)])
    known = (where >= 0) & (where < entrants.size)
    where = np.where(known, where, 0)
    if not np.all(
        known & (entrants[where] == named) & (np.repeat(events, n)[where] == event)
    ):
        return None  # A stranger.
    if np.bincount(where, minlength=entrants.size).max(initial=0) > 1:
        return None  # A player in two places.
    g = int(n_games.sum())
    w, b, y = where[:g], where[g : 2 * g], where[2 * g :]
    # Played pairs: each event's keys, shifted so that events do not overlap.
    shift = np.cumsum(n.astype(np.int64) ** 2) - n.astype(np.int64) ** 2
    n_played = np.array([len(k) for k in old_played], dtype=np.intp)
    old = np.concatenate(old_played) + np.repeat(shift, n_played)
    wl, bl = w - offset[game_event], b - offset[game_event]
    new = (
        np.minimum(wl, bl).astype(np.int64) * n[game_event]
        + np.maximum(wl, bl)
        + shift[game_event]
    )
    # Binary search for sorted keys is several times faster (and merging
    # two sorted lists faster than sorting their union).
    new = np.sort(new)
    at = old.searchsorted(new)
    if old.size and np.any(old[np.minimum(at, old.size - 1)] == new):
        return None  # A repeated pairing.

    points = np.concatenate(old_points)
    points[w] += score
    points[b] += 1.0 - score
    points[y] += bye_score
    colour_diff = np.concatenate(old_colour_diff)
    colour_diff[w] += 1
    colour_diff[b] -= 1
    streak = np.concatenate(old_streak)
    last = np.concatenate(old_last)
    for who, colour in ((w, WHITE), (b, BLACK)):
        streak[who] = np.where(last[who] == colour, streak[who] + 1, 1)
        last[who] = colour
    had_bye = np.concatenate(old_had_bye)
    had_bye[y] = True
    n_keys = n_played + n_games
    # The old and new keys merged: each new key goes before the old keys
    # above it (none is equal) and after the new keys below it.
    played = np.empty(old.size + new.size, dtype=np.int64)
    fresh = at + np.arange(new.size)
    is_old = np.ones(played.size, dtype=bool)
    is_old[fresh] = False
    played[fresh] = new
    played[is_old] = old
    played -= np.repeat(shift, n_keys)
    # Built by map, with positional arguments: keywords and a Python-level
    # loop would cost more than the rest of the update.
    return list(
        map(
            SwissState,
            players,
            ratings,
            ranks,
            *_cut((points, colour_diff, last, streak, had_bye), n),
            *_cut((played,), n_keys),
            [k + 1 for k in n_rounds],
        )
    )


# --------------------------------------------------------------------------
# Round robins


def round_robin(players: ArrayLike) -> list[Round]:
    """All rounds of a round robin by the FIDE Berger tables.

    Parameters
    ----------
    players : array_like of int, shape (n,)
        Distinct players; the order gives the pairing numbers 1..n (shuffle
        first for numbers drawn by lot).

    Returns
    -------
    list of Round
        ``n - 1`` rounds for even ``n``; ``n`` rounds for odd ``n``, in each
        of which one player (the one drawn against number ``n + 1``) has the
        bye. Every pair meets exactly once; every player's Whites and Blacks
        differ by at most one.

    Notes
    -----
    FIDE Handbook C.05 Annex 1: round 1 pairs 1-n, 2-(n-1), ...; each next
    round adds n/2 to every number but n (modulo n - 1, in 1..n-1), and
    number n alternates Black (odd rounds) and White (even rounds) on board 1.

    Examples
    --------
    >>> [(r.white.tolist(), r.black.tolist()) for r in round_robin([1, 2, 3, 4])]
    [([1, 2], [4, 3]), ([4, 1], [3, 2]), ([2, 3], [4, 1])]
    """
    p = _as_players("round_robin", players)
    n = p.shape[0]
    if n == 0:
        return []
    m = n + n % 2
    half = m // 2
    # Berger numbers (1-based) of every round at once (a row per round),
    # White first, board 1 holding m: round r + 1 adds r * m/2 to every
    # number of round 1 but m (modulo m - 1, in 1..m-1).
    r = np.arange(m - 1)[:, None]
    white = (np.arange(half) + r * half) % (m - 1) + 1
    black = np.arange(m, half, -1)
    black = np.where(black == m, m, (black - 1 + r * half) % (m - 1) + 1)
    # Even rounds: number m has White on board 1.
    even = np.flatnonzero(r[:, 0] % 2 == 1)
    white[even, 0], black[even, 0] = m, white[even, 0]
    # Players by number; number n + 1 (odd n) is the bye, always on board 1.
    by_number = np.append(p, -1)
    pw, pb = by_number[white - 1], by_number[black - 1]
    if n % 2 == 0:
        empty = p[:0]
        return [Round(pw[i], pb[i], empty) for i in range(m - 1)]
    bye = np.where(white[:, :1] == m, pb[:, :1], pw[:, :1])
    return [Round(pw[i, 1:], pb[i, 1:], bye[i]) for i in range(m - 1)]


# --------------------------------------------------------------------------
# Online pool and random pairing


def pair_online(
    players: ArrayLike,
    rating: ArrayLike,
    rng: np.random.Generator,
    *,
    window: float = WINDOW,
    jitter: float = JITTER,
) -> Round:
    """Pair an online pool by rating: neighbours within ``window`` play.

    Parameters
    ----------
    players : array_like of int, shape (n,)
        Distinct players looking for a game.
    rating : array_like of float, shape (n,)
        The arena's designated rating of each player (finite), aligned with
        ``players``.
    rng : numpy.random.Generator
        Draws the jitter, who of an odd run sits out, and the colours.
    window : float, default :data:`WINDOW`
        Largest rating difference of a pairing.
    jitter : float, default :data:`JITTER`
        Standard deviation of normal noise added to the ratings before
        sorting, so that repeated calls pair different neighbours.

    Returns
    -------
    Round
        Games with random colours; ``bye`` holds those left alone.

    Notes
    -----
    Players are sorted by jittered rating; neighbours whose (unjittered)
    ratings differ by at most ``window`` are linked, and every run of linked
    players is paired off along the run, as many pairs as the run allows; in
    a run of odd length a random one of the players who can be left out sits
    out.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rd = pair_online([0, 1, 2, 3], [1500, 1510, 2400, 2410], rng, jitter=0)
    >>> sorted(sorted(g) for g in zip(rd.white.tolist(), rd.black.tolist()))
    [[0, 1], [2, 3]]
    """
    owner = "pair_online"
    _check_rng(owner, rng)
    check_interval(owner, "window", window, 0, np.inf)
    check_interval(owner, "jitter", jitter, 0, np.inf)
    p = _as_players(owner, players)
    n = p.shape[0]
    r = _as_rating(owner, rating, n, allow_nan=False)
    empty = np.empty(0, dtype=np.intp)
    if n == 0:
        return Round(empty, empty, empty)
    key = r + float(jitter) * rng.standard_normal(n)
    order = np.argsort(key, kind="stable")
    ps, rs = p[order], r[order]
    linked = np.abs(np.diff(rs)) <= window  # Between sorted i and i + 1.
    starts = np.flatnonzero(np.concatenate([[True], ~linked]))
    lengths = np.diff(np.append(starts, n))
    run = np.repeat(np.arange(starts.shape[0]), lengths)
    place = np.arange(n) - starts[run]
    # Who sits out of each run: an even place of an odd run; nobody otherwise.
    out = 2 * rng.integers(0, (lengths + 1) // 2)
    out = np.where(lengths % 2 == 1, out, lengths)[run]
    first = ((place < out) & (place % 2 == 0)) | (
        (place > out) & ((place - out) % 2 == 1)
    )
    i = np.flatnonzero(first)
    a, b = ps[i], ps[i + 1]
    swap = rng.random(i.shape[0]) < 0.5
    paired = np.zeros(n, dtype=bool)
    paired[i] = paired[i + 1] = True
    return Round(
        np.where(swap, b, a).astype(np.intp),
        np.where(swap, a, b).astype(np.intp),
        ps[~paired],
    )


def pair_random(players: ArrayLike, rng: np.random.Generator) -> Round:
    """A uniformly random pairing: everyone plays, but one if their number is odd.

    Parameters
    ----------
    players : array_like of int, shape (n,)
        Distinct players.
    rng : numpy.random.Generator
        Draws the matching and the colours.

    Returns
    -------
    Round
        ``n // 2`` games with random colours and ``n % 2`` byes.

    Examples
    --------
    >>> rd = pair_random(np.arange(5), np.random.default_rng(0))
    >>> rd.n_games, rd.bye.shape
    (2, (1,))
    """
    _check_rng("pair_random", rng)
    p = _as_players("pair_random", players)
    shuffled = rng.permutation(p)
    k = p.shape[0] // 2
    return Round(shuffled[0 : 2 * k : 2], shuffled[1 : 2 * k : 2], shuffled[2 * k :])
