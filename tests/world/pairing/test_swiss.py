"""Tests of simulator.world.pairing.swiss: the Swiss pairing of one event.

Stochastic tests take the shared ``seed`` fixture (tests/conftest.py:
``RATINGSIM_SEEDS=all`` sweeps 100 seeds, ``RATINGSIM_SEEDS=17`` reproduces
one) and run STREAMS independent streams of it, ``default_rng([seed, stream])``,
so that even a default run covers several random draws.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pairing_helpers import (
    STREAMS,
    _colour_fields,
    _colour_ok,
    _colour_sequences,
    _play_event,
    _random_state,
    _results,
)

from simulator.world.pairing import (
    BLACK,
    WHITE,
    pair_swiss_round,
    record_swiss_round,
    swiss_start,
)

EVENTS = [(137, 7), (40, 9)]


# Legality must hold however lopsided the results: White winning nearly
# every game leaves many players needing the same colour.
STRESS = [(137, 7, 35.0), (40, 9, 35.0), (137, 7, 600.0), (40, 9, 600.0)]


# --------------------------------------------------------------------------
# Legality over whole events


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds", "edge"), STRESS)
def test_swiss_event_pairs_everyone_once_a_round(
    n: int, n_rounds: int, edge: float, seed: int, stream: int
):
    """Every round gives each entrant exactly one game or the bye, at most one bye."""
    rounds, _, players = _play_event(n, n_rounds, [seed, stream], edge)
    for rd in rounds:
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert np.array_equal(np.sort(everyone), np.sort(players))
        assert rd.bye.size == n % 2
        assert rd.white.dtype == rd.black.dtype == rd.bye.dtype == np.intp


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds", "edge"), STRESS)
def test_swiss_event_never_repeats_a_pairing(
    n: int, n_rounds: int, edge: float, seed: int, stream: int
):
    """No two entrants meet twice in an event."""
    rounds, _, _ = _play_event(n, n_rounds, [seed, stream], edge)
    pairs = [
        frozenset(g)
        for rd in rounds
        for g in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
    ]
    assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds"), [(137, 7), (41, 9)])
def test_swiss_byes_go_to_different_players(
    n: int, n_rounds: int, seed: int, stream: int
):
    """In an odd field each round has one bye, never twice the same player."""
    rounds, _, _ = _play_event(n, n_rounds, [seed, stream])
    byes = [int(p) for rd in rounds for p in rd.bye]
    assert len(byes) == n_rounds
    assert len(set(byes)) == n_rounds


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds"), EVENTS)
def test_swiss_colours_follow_absolute_rules(
    n: int, n_rounds: int, seed: int, stream: int
):
    """Colour differences stay within +-2 and nobody gets a colour thrice running."""
    rounds, states, players = _play_event(n, n_rounds, [seed, stream])
    seqs = _colour_sequences(rounds)
    assert all(_colour_ok(s) for s in seqs.values())
    # The state's colour bookkeeping agrees with the sequences.
    final = states[-1]
    for i, p in enumerate(players.tolist()):
        s = seqs.get(p, [])
        assert final.colour_diff[i] == sum(s)
        assert final.last_colour[i] == (s[-1] if s else 0)


# --------------------------------------------------------------------------
# The shape of the pairing


def test_swiss_round_one_pairs_top_half_against_bottom_half():
    """Round 1 pairs seed i with seed i + n/2, colours alternating by board."""
    rng = np.random.default_rng(3)
    rating = np.linspace(2200.0, 1500.0, 10)
    players = np.arange(100, 110)
    rd = pair_swiss_round(swiss_start(players, rating), rng)
    high = np.minimum(rd.white, rd.black)
    low = np.maximum(rd.white, rd.black)
    assert high.tolist() == [100, 101, 102, 103, 104]
    assert low.tolist() == [105, 106, 107, 108, 109]
    top_white = rd.white == high
    assert np.all(top_white[::2] == top_white[0])
    assert np.all(top_white[1::2] != top_white[0])


def test_swiss_odd_field_bye_to_lowest_ranked_without_bye():
    """The bye goes to the lowest-ranked player, then to the next who has none."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(7), np.arange(2000.0, 1300.0, -100.0))
    rd = pair_swiss_round(state, rng)
    assert rd.bye.tolist() == [6]
    # White wins everywhere and the bye scores nothing: player 6 is last on
    # points again, so the bye goes to the lowest-ranked loser instead.
    state = record_swiss_round(state, rd, np.ones(rd.n_games), bye_score=0.0)
    rd2 = pair_swiss_round(state, rng)
    assert rd2.bye.tolist() == [int(rd.black.max())]


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_round_two_winners_meet_winners(seed: int, stream: int):
    """In round 2 the winners of round 1 nearly all meet each other."""
    rng = np.random.default_rng([seed, stream])
    n = 137
    strength = rng.normal(1700.0, 250.0, n)
    state = swiss_start(np.arange(n), strength + rng.normal(0.0, 80.0, n))
    rd = pair_swiss_round(state, rng)
    scores = _results(rng, strength[rd.white], strength[rd.black])
    state = record_swiss_round(state, rd, scores)
    winners = np.zeros(n, dtype=bool)
    winners[rd.white[scores == 1.0]] = True
    winners[rd.black[scores == 0.0]] = True
    rd2 = pair_swiss_round(state, rng)
    ww = winners[rd2.white] & winners[rd2.black]
    any_winner = winners[rd2.white] | winners[rd2.black]
    assert ww.sum() / any_winner.sum() >= 0.9
    # Nearly every pair is inside one score group.
    gap = np.abs(state.points[rd2.white] - state.points[rd2.black])
    assert np.mean(gap == 0) >= 0.9


def test_swiss_absent_players_get_no_game_and_no_bye():
    """Absent entrants are neither paired nor given the bye, and score nothing."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(10), np.linspace(2000, 1500, 10))
    rd = pair_swiss_round(state, rng, absent=[2, 9, 4])
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert sorted(everyone.tolist()) == [0, 1, 3, 5, 6, 7, 8]
    assert rd.bye.size == 1
    after = record_swiss_round(state, rd, np.full(rd.n_games, 0.5))
    assert after.points[[2, 4, 9]].tolist() == [0.0, 0.0, 0.0]


def test_swiss_backtracks_rather_than_repeat():
    """A bottom group whose natural pairings all repeat is repaired, not repeated."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(8), np.linspace(2000, 1300, 8))
    # Players 4..7 (the bottom score group) have all met each other already.
    bottom = [(4, 5), (4, 6), (4, 7), (5, 6), (5, 7), (6, 7)]
    keys = np.sort([a * 8 + b for a, b in bottom]).astype(np.int64)
    state = state._replace(
        points=np.array([3.0, 3.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]), played=keys
    )
    rd = pair_swiss_round(state, rng)
    pairs = {
        frozenset(g) for g in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
    }
    assert not pairs & {frozenset(p) for p in bottom}
    assert len(pairs) == 4
    # The only way out: every bottom player meets a top player.
    assert all(len(p & {0, 1, 2, 3}) == 1 for p in pairs)


def test_swiss_pairs_within_halves_when_the_halves_have_all_met():
    """When top and bottom halves have all met, each half pairs within itself."""
    rng = np.random.default_rng(0)
    n = 8
    state = swiss_start(np.arange(n), np.linspace(2000, 1300, n))
    # Histories: 0 and 4 must have White, 1 and 5 Black, the rest may have either.
    seqs = [[-1, -1], [1, 1], [-1], [-1], [-1, -1], [1, 1], [1], [1]]
    played = [a * n + b for a in range(4) for b in range(4, 8)]
    state = state._replace(
        **_colour_fields(seqs), played=np.array(played, dtype=np.int64)
    )
    rd = pair_swiss_round(state, rng)
    everyone = np.concatenate([rd.white, rd.black])
    assert sorted(everyone.tolist()) == list(range(n))
    assert np.all((rd.white < 4) == (rd.black < 4))
    for p, colour in [(0, WHITE), (4, WHITE), (1, BLACK), (5, BLACK)]:
        assert (p in rd.white) == (colour == WHITE)


def test_swiss_too_many_rounds_raise():
    """Pairing past the last possible round raises a clear ValueError."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(4), [2000.0, 1900.0, 1800.0, 1700.0])
    for _ in range(3):
        rd = pair_swiss_round(state, rng)
        state = record_swiss_round(state, rd, np.full(rd.n_games, 0.5))
    with pytest.raises(ValueError, match=r"Round 4 cannot be paired.*repeated game"):
        pair_swiss_round(state, rng)


def test_swiss_odd_field_out_of_byes_raises():
    """An odd field in which everyone has had the bye cannot be paired."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(3), [2000.0, 1900.0, 1800.0])
    state = state._replace(had_bye=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="have had a bye"):
        pair_swiss_round(state, rng)


# --------------------------------------------------------------------------
# Random histories, and a large field


def _matchings(nodes: list[int], ok) -> Iterator[list[tuple[int, int]]]:
    """Every perfect matching of ``nodes`` whose pairs satisfy ``ok`` (brute force)."""
    if not nodes:
        yield []
        return
    a = nodes[0]
    for j in range(1, len(nodes)):
        if ok(a, nodes[j]):
            rest = nodes[1:j] + nodes[j + 1 :]
            for m in _matchings(rest, ok):
                yield [(a, nodes[j]), *m]


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_finds_a_pairing_whenever_one_exists(seed: int, stream: int):
    """Brute force on small fields: legal if possible, colour-clean if possible."""
    rng = np.random.default_rng([seed, stream])
    for _ in range(60):
        n = int(rng.integers(2, 12))
        state, seqs, played = _random_state(
            rng, n, float(rng.choice([0.3, 0.6, 0.85])), 7
        )
        had_bye = state.had_bye
        absent = [p for p in range(n) if rng.random() < 0.1]
        here = [p for p in range(n) if p not in absent]

        def legal(a: int, b: int, had_bye=had_bye, played=played) -> bool:
            if b == -1:
                return not had_bye[a]
            return (min(a, b), max(a, b)) not in played

        def clean(a: int, b: int, seqs=seqs, legal=legal) -> bool:
            if b == -1:
                return legal(a, b)
            return legal(a, b) and (
                (_colour_ok([*seqs[a], WHITE]) and _colour_ok([*seqs[b], BLACK]))
                or (_colour_ok([*seqs[a], BLACK]) and _colour_ok([*seqs[b], WHITE]))
            )

        nodes = here + ([-1] if len(here) % 2 else [])
        possible = next(_matchings(nodes, legal), None) is not None
        clean_possible = next(_matchings(nodes, clean), None) is not None
        if not possible:
            with pytest.raises(ValueError, match="cannot be paired"):
                pair_swiss_round(state, rng, absent=absent)
            continue
        rd = pair_swiss_round(state, rng, absent=absent)
        everyone = np.concatenate([rd.white, rd.black, rd.bye]).tolist()
        assert sorted(everyone) == here
        assert all(
            legal(a, b)
            for a, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
        )
        assert all(not had_bye[p] for p in rd.bye.tolist())
        if clean_possible:
            for w, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True):
                assert _colour_ok([*seqs[w], WHITE])
                assert _colour_ok([*seqs[b], BLACK])


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_random_histories_are_paired_legally(seed: int, stream: int):
    """Mid-size fields with random histories and many forced colours pair legally."""
    rng = np.random.default_rng([seed, stream])
    for _ in range(20):
        n = int(rng.integers(16, 120))
        state, _, played = _random_state(rng, n, 0.3 * rng.random(), 5)
        rd = pair_swiss_round(state, rng)
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert sorted(everyone.tolist()) == list(range(n))
        assert rd.bye.size == n % 2
        assert not state.had_bye[rd.bye].any()
        pairs = zip(rd.white.tolist(), rd.black.tolist(), strict=True)
        assert not any((min(a, b), max(a, b)) in played for a, b in pairs)


def test_swiss_large_field_round_is_legal():
    """A 100,000-player event pairs two rounds legally (vectorised path)."""
    rng = np.random.default_rng(11)
    n = 100_000
    strength = rng.normal(1700.0, 250.0, n)
    state = swiss_start(np.arange(n), strength + rng.normal(0.0, 80.0, n))
    keys_before = np.empty(0, dtype=np.int64)
    for _ in range(2):
        rd = pair_swiss_round(state, rng)
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert everyone.size == n
        assert np.unique(everyone).size == n
        keys = np.minimum(rd.white, rd.black) * n + np.maximum(rd.white, rd.black)
        assert not np.isin(keys, keys_before).any()
        keys_before = np.concatenate([keys_before, keys])
        state = record_swiss_round(
            state, rd, _results(rng, strength[rd.white], strength[rd.black])
        )
    assert np.all(np.abs(state.colour_diff) <= 2)
