"""A Swiss event's state, and recording a round's results into it.

:func:`swiss_start` makes an event's :class:`SwissState` before its first
round: the entrants, their starting rank, and no points, colours, byes or
games. :func:`record_swiss_round` adds a round's results (points, colours,
the bye, who has met whom) and returns a new state; :func:`record_swiss_rounds`
does the same for many events at once, with the checks and updates done in
one compiled pass over all the events together
(:func:`~simulator.world.pairing.swiss_batch_compiled._record_at`) and the
same states (and errors) as event by event. The
pairings (:mod:`~simulator.world.pairing.swiss`,
:mod:`~simulator.world.pairing.swiss_batch`) read the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._types import BoolArray, FloatArray, IntArray
from simulator._validate import check_interval
from simulator.world.pairing.rounds import Round, _as_players, _as_rating
from simulator.world.pairing.swiss_batch_compiled import _record_at
from simulator.world.pairing.swiss_compiled import BLACK, WHITE

__all__ = [
    "BYE_SCORE",
    "SwissState",
    "record_swiss_round",
    "record_swiss_rounds",
    "swiss_start",
]

#: Keys ``i * n_entrants + j`` of pairs of entrants (:attr:`SwissState.played`).
KeyArray = NDArray[np.int64]


#: Points for a pairing-allocated bye: a win's, unless the rules of the
#: tournament say otherwise (FIDE C.04.1 c).
BYE_SCORE = 1.0


# Player indices a look-up table of record_swiss_rounds covers beyond four
# per entrant (intp entries, mostly never touched).
_MAX_LOOKUP = 1 << 24


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


def _pair_keys(a: IntArray, b: IntArray, n: int | IntArray) -> KeyArray:
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


def _add_results(
    points: FloatArray,
    colour_diff: IntArray,
    last: IntArray,
    streak: IntArray,
    had_bye: BoolArray,
    who: tuple[IntArray, IntArray, IntArray],
    score: FloatArray,
    bye_score: float,
) -> None:
    """Add a round's results to a state's arrays (fresh copies), in place.

    ``who`` holds the positions of White, of Black (one per game, aligned
    with White's ``score``) and of the byes.
    """
    w, b, y = who
    points[w] += score
    points[b] += 1.0 - score
    points[y] += bye_score
    colour_diff[w] += 1
    colour_diff[b] -= 1
    for players, colour in ((w, WHITE), (b, BLACK)):
        streak[players] = np.where(last[players] == colour, streak[players] + 1, 1)
        last[players] = colour
    had_bye[y] = True


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
    colour_diff = state.colour_diff.copy()
    last = state.last_colour.copy()
    streak = state.streak.copy()
    had_bye = state.had_bye.copy()
    _add_results(points, colour_diff, last, streak, had_bye, (w, b, y), s, bye_score)
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
    if not all(_standard(s) for s in states):
        return None
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
    return _record_joined(states, named, n_games, n_byes, score, bye_score)


def _record_joined(
    states: list[SwissState],
    named: IntArray,
    n_games: IntArray,
    n_byes: IntArray,
    score: FloatArray,
    bye_score: float,
) -> list[SwissState] | None:
    """:func:`_record_batch` from the round already joined; None to reject.

    ``named`` holds the players of every event's White, then of every
    event's Black (``n_games`` per event, aligned with ``score``), then the
    byes (``n_byes`` per event); the states are standard.
    """
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
    ) = zip(*states, strict=True)  # Each field a tuple over the events.
    n = np.array(list(map(len, players)), dtype=np.intp)
    n_played = np.array(list(map(len, old_played)), dtype=np.intp)
    join = np.concatenate
    # Fresh copies, which the compiled pass updates in place.
    points = join(old_points)
    colour_diff = join(old_colour_diff)
    last = join(old_last)
    streak = join(old_streak)
    had_bye = join(old_had_bye)
    ok, played = _record_at(
        n,
        join(players),
        named,
        n_games,
        n_byes,
        score,
        join(old_played),
        n_played,
        points,
        colour_diff,
        last,
        streak,
        had_bye,
        bye_score,
        _MAX_LOOKUP,
        WHITE,
        BLACK,
    )
    if not ok:
        return None  # Something to reject, or players unfit for a table.
    n_keys = n_played + n_games
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
