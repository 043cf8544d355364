"""Tests of simulator.world.pairing.swiss_state: a Swiss event's state and its records.

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
    _assert_same_states,
    _play_event,
    _results,
)

from simulator.world.pairing import (
    Round,
    pair_swiss_round,
    pair_swiss_rounds,
    record_swiss_round,
    record_swiss_rounds,
    swiss_start,
)


def test_swiss_start_ranks_by_rating_unrated_last():
    """Starting rank: rating descending, NaN (unrated) last, ties in input order."""
    state = swiss_start([5, 6, 7, 8, 9], [1600, np.nan, 1800, 1600, np.nan])
    assert state.rank.tolist() == [1, 3, 0, 2, 4]


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_points_add_up(seed: int, stream: int):
    """Points equal the sum of each entrant's scores and byes."""
    rounds, states, _ = _play_event(41, 5, [seed, stream])
    final = states[-1]
    # Every game hands out one point; every bye one point.
    assert final.points.sum() == pytest.approx(sum(rd.n_games + 1 for rd in rounds))
    assert final.had_bye.sum() == 5
    assert final.n_rounds == 5
    assert final.played.size == sum(rd.n_games for rd in rounds)


def test_swiss_bye_score_is_a_parameter():
    """The bye scores ``bye_score`` points (default 1)."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(3), [1900.0, 1800.0, 1700.0])
    rd = pair_swiss_round(state, rng)
    half = record_swiss_round(state, rd, [0.5], bye_score=0.5)
    full = record_swiss_round(state, rd, [0.5])
    bye = int(rd.bye[0])
    assert half.points[bye] == 0.5
    assert full.points[bye] == 1.0
    assert half.had_bye[bye]


def test_swiss_record_does_not_modify_the_state():
    """Recording returns a new state and leaves the old one as it was."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(9), np.linspace(2000, 1500, 9))
    before = {k: np.copy(v) for k, v in state._asdict().items()}
    rd = pair_swiss_round(state, rng)
    new = record_swiss_round(state, rd, np.ones(rd.n_games))
    for k, v in state._asdict().items():
        assert np.array_equal(v, before[k])
    assert new.n_rounds == 1
    assert new.points.sum() == rd.n_games + 1


def test_record_rejects_bad_rounds():
    """Strangers, bad scores, a player twice and repeated pairings raise."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(4), [2000.0, 1900.0, 1800.0, 1700.0])
    rd = pair_swiss_round(state, rng)
    with pytest.raises(ValueError, match=r"must be 0, 0\.5 or 1"):
        record_swiss_round(state, rd, [1.0, 0.3])
    with pytest.raises(ValueError, match="equal lengths"):
        record_swiss_round(state, rd, [1.0])
    with pytest.raises(ValueError, match="'bye_score' parameter"):
        record_swiss_round(state, rd, [1.0, 0.0], bye_score=2.0)
    stranger = Round(np.array([0, 9]), np.array([1, 2]), np.empty(0, dtype=np.intp))
    with pytest.raises(ValueError, match="player 9 is not an entrant"):
        record_swiss_round(state, stranger, [1.0, 0.0])
    twice = Round(np.array([0, 1]), np.array([1, 2]), np.empty(0, dtype=np.intp))
    with pytest.raises(ValueError, match=r"distinct players\. Got player 1"):
        record_swiss_round(state, twice, [1.0, 0.0])
    state = record_swiss_round(state, rd, [1.0, 0.0])
    with pytest.raises(ValueError, match="have met before"):
        record_swiss_round(state, rd, [1.0, 0.0])


# --------------------------------------------------------------------------
# Many events at once equal event by event


def test_record_swiss_rounds_rejects_as_event_by_event():
    """Bad rounds in a batch raise what record_swiss_round raises for them."""
    rng = np.random.default_rng(0)
    states = [
        swiss_start(np.arange(k, k + 4), [2000.0, 1900.0, 1800.0, 1700.0])
        for k in (0, 10)
    ]
    rounds = pair_swiss_rounds(states, rng)
    good = [[1.0, 0.0], [0.5, 0.5]]
    empty = np.empty(0, dtype=np.intp)
    stranger = Round(np.array([10, 0]), np.array([11, 12]), empty)
    twice = Round(np.array([10, 11]), np.array([11, 12]), empty)
    cases = [
        ([rounds[0], stranger], good, "player 0 is not an entrant"),
        ([rounds[0]._replace(white=rounds[0].white + 99), rounds[1]], good, "is not"),
        ([rounds[0], twice], good, r"distinct players\. Got player 11"),
        (rounds, [[1.0, 0.0], [1.0, 0.3]], r"must be 0, 0\.5 or 1"),
        (rounds, [[1.0, 0.0], [1.0]], "equal lengths"),
    ]
    for rds, scores, message in cases:
        with pytest.raises(ValueError, match=message):
            record_swiss_rounds(states, rds, scores)
    with pytest.raises(ValueError, match="'bye_score' parameter"):
        record_swiss_rounds(states, rounds, good, bye_score=2.0)
    with pytest.raises(ValueError, match="equal lengths"):
        record_swiss_rounds(states, rounds[:1], good)
    after = record_swiss_rounds(states, rounds, good)
    with pytest.raises(ValueError, match="have met before"):
        record_swiss_rounds(after, rounds, good)
    assert record_swiss_rounds([], [], []) == []


def test_record_swiss_rounds_overlapping_events_and_huge_indices():
    """Events sharing a player, and huge player indices: as event by event."""
    rng = np.random.default_rng(3)
    for players in (
        [np.arange(6), np.arange(3, 9)],  # Players 3 to 5 in both events.
        [np.arange(6) * 10**12, np.arange(1, 7) * 10**12 + 1],
    ):
        states = [swiss_start(p, rng.normal(1800.0, 200.0, 6)) for p in players]
        for _ in range(3):
            rounds = [pair_swiss_round(s, rng) for s in states]
            even = [np.zeros(rd.n_games) for rd in rounds]
            scores = [_results(rng, x, x) for x in even]
            after = record_swiss_rounds(states, rounds, scores)
            _assert_same_states(
                after,
                [
                    record_swiss_round(s, rd, x)
                    for s, rd, x in zip(states, rounds, scores, strict=True)
                ],
            )
            states = after
