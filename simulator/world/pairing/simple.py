"""Pairings without an event's history: round robins, the online pool, random.

Sources: the FIDE Handbook C.05 Annex 1 (Berger tables) for round robins;
lila's ``modules/pool/src/main/MatchMaking.scala`` for the size of the online
rating window.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from simulator._validate import check_interval
from simulator.world.pairing.rounds import Round, _as_players, _as_rating, _check_rng

__all__ = ["JITTER", "WINDOW", "pair_online", "pair_random", "round_robin"]


#: Default widest rating difference of an online pairing. lila's pool
#: (``MatchMaking.scala``, ``ratingToMaxScore``) allows about 100 points between
#: 1000 and 1500 and rating/15 above (133 at 2000), widened by 12 points per
#: pairing wave a player waits; 150 sits in that range.
WINDOW = 150.0
#: Default standard deviation of the jitter added to ratings before sorting the
#: online pool, so that repeated calls do not always pair the same neighbours.
JITTER = 50.0


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
