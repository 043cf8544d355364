"""Tests of simulator.world.pairing.simple: round robins, the online pool, random.

Stochastic tests take the shared ``seed`` fixture (tests/conftest.py:
``RATINGSIM_SEEDS=all`` sweeps 100 seeds, ``RATINGSIM_SEEDS=17`` reproduces
one) and run STREAMS independent streams of it, ``default_rng([seed, stream])``,
so that even a default run covers several random draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from pairing_helpers import (
    STREAMS,
    _colour_sequences,
)

from simulator.world.pairing import (
    pair_online,
    pair_random,
    round_robin,
)

# --------------------------------------------------------------------------
# Round robin


# FIDE Handbook C.05 Annex 1, Berger table for 9 or 10 players (White first).
BERGER_10 = """
1-10 2-9 3-8 4-7 5-6
10-6 7-5 8-4 9-3 1-2
2-10 3-1 4-9 5-8 6-7
10-7 8-6 9-5 1-4 2-3
3-10 4-2 5-1 6-9 7-8
10-8 9-7 1-6 2-5 3-4
4-10 5-3 6-2 7-1 8-9
10-9 1-8 2-7 3-6 4-5
5-10 6-4 7-3 8-2 9-1
"""


def test_round_robin_matches_the_fide_berger_table():
    """Ten players reproduce FIDE's Berger table board by board."""
    rounds = round_robin(np.arange(1, 11))
    table = [
        [tuple(int(x) for x in g.split("-")) for g in line.split()]
        for line in BERGER_10.strip().splitlines()
    ]
    assert [
        list(zip(r.white.tolist(), r.black.tolist(), strict=True)) for r in rounds
    ] == table


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_every_pair_exactly_once(n: int):
    """Every pair meets exactly once; byes for odd n; colours balanced within 1."""
    players = np.arange(50, 50 + n)
    rounds = round_robin(players)
    assert len(rounds) == n - 1 + n % 2
    pairs = [
        frozenset(g)
        for r in rounds
        for g in zip(r.white.tolist(), r.black.tolist(), strict=True)
    ]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    byes = [int(p) for r in rounds for p in r.bye]
    assert sorted(byes) == (players.tolist() if n % 2 else [])
    for r in rounds:
        everyone = np.concatenate([r.white, r.black, r.bye])
        assert sorted(everyone.tolist()) == players.tolist()
    seqs = _colour_sequences(rounds)
    assert all(abs(sum(s)) <= 1 for s in seqs.values())


def test_round_robin_rejects_duplicates():
    """Duplicate players are a ValueError naming the player."""
    with pytest.raises(ValueError, match=r"distinct players\. Got player 3"):
        round_robin([1, 3, 2, 3])


# --------------------------------------------------------------------------
# Online pool


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("window", [0.0, 50.0, 150.0, 400.0])
def test_online_pairs_within_window_and_nobody_twice(
    seed: int, stream: int, window: float
):
    """Every online pairing is within the window; each player appears once."""
    rng = np.random.default_rng([seed, stream])
    n = 2001
    players = rng.permutation(10 * n)[:n]
    rating = np.round(rng.normal(1500.0, 300.0, n))
    rd = pair_online(players, rating, rng, window=window)
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert np.array_equal(np.sort(everyone), np.sort(players))
    r = dict(zip(players.tolist(), rating.tolist(), strict=True))
    diff = np.abs(
        [r[w] - r[b] for w, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True)]
    )
    assert np.all(diff <= window)


@pytest.mark.parametrize("stream", STREAMS)
def test_online_without_jitter_leaves_out_only_isolated_players(seed: int, stream: int):
    """Without jitter, no two players left alone could have played each other."""
    rng = np.random.default_rng([seed, stream])
    rating = rng.normal(1500.0, 300.0, 500)
    rd = pair_online(np.arange(500), rating, rng, window=20.0, jitter=0.0)
    alone = np.sort(rating[rd.bye])
    assert np.all(np.diff(alone) > 20.0)
    assert rd.n_games > 150


def test_online_odd_run_sits_out_a_random_end_or_inner_player():
    """In a run of three, the one who sits out is drawn: first or last, not middle."""
    rng = np.random.default_rng(4)
    out = set()
    for _ in range(40):
        rd = pair_online([7, 8, 9], [1500.0, 1510.0, 1520.0], rng, jitter=0.0)
        assert rd.n_games == 1
        out.add(int(rd.bye[0]))
    assert out == {7, 9}


def test_online_jitter_varies_the_neighbours():
    """Repeated calls pair different neighbours; colours are drawn at random."""
    rng = np.random.default_rng(5)
    rating = rng.normal(1500.0, 200.0, 400)
    first = pair_online(np.arange(400), rating, rng)
    second = pair_online(np.arange(400), rating, rng)
    a = {
        frozenset(g)
        for g in zip(first.white.tolist(), first.black.tolist(), strict=True)
    }
    b = {
        frozenset(g)
        for g in zip(second.white.tolist(), second.black.tolist(), strict=True)
    }
    assert len(a & b) < 0.5 * len(a)
    lower_white = rating[first.white] < rating[first.black]
    assert 0.3 < lower_white.mean() < 0.7


def test_online_rejects_bad_input():
    """Negative window, NaN ratings, misaligned ratings and duplicates raise."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="'window' parameter of pair_online"):
        pair_online([0, 1], [1500.0, 1500.0], rng, window=-1.0)
    with pytest.raises(ValueError, match="'jitter' parameter of pair_online"):
        pair_online([0, 1], [1500.0, 1500.0], rng, jitter=-1.0)
    with pytest.raises(ValueError, match="must be finite"):
        pair_online([0, 1], [1500.0, np.nan], rng)
    with pytest.raises(ValueError, match="one entry per player"):
        pair_online([0, 1], [1500.0], rng)
    with pytest.raises(ValueError, match="distinct players"):
        pair_online([0, 0], [1500.0, 1500.0], rng)


# --------------------------------------------------------------------------
# Random pairing


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_random_is_a_perfect_matching(seed: int, stream: int, n: int):
    """Everyone plays exactly once, except one bye when n is odd."""
    rng = np.random.default_rng([seed, stream])
    players = rng.permutation(3 * n)[:n]
    rd = pair_random(players, rng)
    assert rd.n_games == n // 2
    assert rd.bye.size == n % 2
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert np.array_equal(np.sort(everyone), np.sort(players))


def test_random_varies_opponents_and_colours():
    """Over many draws a player meets many opponents with both colours."""
    rng = np.random.default_rng(2)
    opponents, whites = set(), 0
    for _ in range(400):
        rd = pair_random(np.arange(10), rng)
        if 0 in rd.white:
            whites += 1
            opponents.add(int(rd.black[rd.white == 0][0]))
        else:
            opponents.add(int(rd.white[rd.black == 0][0]))
    assert opponents == set(range(1, 10))
    assert 140 < whites < 260
