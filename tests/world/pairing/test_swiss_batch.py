"""Tests of simulator.world.pairing.swiss_batch: many events at once equal one by one.

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
    _assert_same_rounds,
    _assert_same_states,
    _random_state,
    _results,
)

from simulator.world.pairing import (
    Round,
    SwissState,
    pair_swiss_round,
    pair_swiss_rounds,
    record_swiss_round,
    record_swiss_rounds,
    swiss_batch,
    swiss_start,
)


def _pair_both_ways(
    states: list[SwissState],
    rng: np.random.Generator,
    absent: list[list[int] | None] | None = None,
) -> list[Round] | None:
    """Pair with :func:`pair_swiss_rounds` and event by event; assert equal.

    Both must give the same rounds, or raise the same error, and leave the
    generator in the same state. Returns the rounds (None after an error);
    ``rng`` has advanced as the pairing advances it.
    """
    twin = np.random.default_rng()
    twin.bit_generator.state = rng.bit_generator.state
    got: list[Round] | Exception
    want: list[Round] | Exception
    try:
        got = pair_swiss_rounds(states, rng, absent=absent)
    except ValueError as error:
        got = error
    try:
        want = [
            pair_swiss_round(s, twin, absent=None if absent is None else absent[i])
            for i, s in enumerate(states)
        ]
    except ValueError as error:
        want = error
    assert rng.bit_generator.state == twin.bit_generator.state
    if isinstance(want, Exception):
        assert isinstance(got, ValueError)
        assert str(got) == str(want)
        return None
    assert not isinstance(got, Exception)
    _assert_same_rounds(got, want)
    return got


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_batch_equals_event_by_event_over_whole_events(seed: int, stream: int):
    """Concurrent events of all sizes, to the last round, pair as one by one."""
    rng = np.random.default_rng([seed, stream])
    sizes = [*rng.integers(4, 60, 16).tolist(), 4, 5, 7, 40, 41, 137]
    states, strength, n_rounds = [], [], []
    for i, n in enumerate(sizes):
        players = 1_000 * i + rng.permutation(3 * n)[:n]
        s = rng.normal(1700.0, 250.0, n)
        rating = s + rng.normal(0.0, 80.0, n)
        rating[rng.random(n) < 0.15] = np.nan
        states.append(swiss_start(players, rating))
        strength.append(dict(zip(players.tolist(), s.tolist(), strict=True)))
        n_rounds.append(min(int(rng.choice([5, 7, 9, 11])), n // 2))
    while True:
        live = [i for i, s in enumerate(states) if s.n_rounds < n_rounds[i]]
        if not live:
            break
        now = [states[i] for i in live]
        absent: list[list[int] | None] | None = None
        if rng.random() < 0.5:
            absent = [
                [p for p in s.players.tolist() if rng.random() < 0.08] or None
                for s in now
            ]
        rounds = _pair_both_ways(now, rng, absent)
        if rounds is None:  # Both raised alike: a field cannot spare its absentees.
            rounds = _pair_both_ways(now, rng)
        if rounds is None:
            break
        scores = [
            _results(
                rng,
                np.array([strength[i][p] for p in rd.white.tolist()]),
                np.array([strength[i][p] for p in rd.black.tolist()]),
                float(rng.choice([35.0, 600.0])),
            )
            for i, rd in zip(live, rounds, strict=True)
        ]
        after = record_swiss_rounds(now, rounds, scores)
        _assert_same_states(
            after,
            [
                record_swiss_round(s, rd, x)
                for s, rd, x in zip(now, rounds, scores, strict=True)
            ],
        )
        for i, s in zip(live, after, strict=True):
            states[i] = s


def _random_batch(
    rng: np.random.Generator, n_events: int
) -> tuple[list[SwissState], list[list[int] | None]]:
    """Random mid-event states (some dead ends among them) and absentees."""
    states, absent = [], []
    for _e in range(n_events):
        n = int(rng.integers(2, 50))
        state, _, _ = _random_state(
            rng, n, float(rng.choice([0.05, 0.3, 0.6])), int(rng.integers(2, 12))
        )
        states.append(state)
        away = [p for p in range(n) if rng.random() < 0.1]
        absent.append(away if away else None)
    return states, absent


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_batch_equals_event_by_event_on_random_histories(
    seed: int, stream: int, mixed: bool, monkeypatch: pytest.MonkeyPatch
):
    """Random mid-event states, odd fields, absentees and dead ends: as one by one."""
    if mixed:  # Fields over 30 entrants take the per-event path, in the same call.
        monkeypatch.setattr(swiss_batch, "_MAX_TABLE", 30 * 30)
    rng = np.random.default_rng([seed, stream])
    for _ in range(8):
        states, absent = _random_batch(rng, int(rng.integers(1, 16)))
        _pair_both_ways(states, rng, absent if rng.random() < 0.7 else None)


def test_swiss_batch_mixes_exact_repairs_and_dead_ends_with_the_compiled_path(
    monkeypatch: pytest.MonkeyPatch,
):
    """Events left to the exact final repair, and a field out of byes, in a batch."""
    exact: list[SwissState] = []
    final_repair = swiss_batch._final_repair

    def spy(state: SwissState, *args: object) -> None:
        exact.append(state)
        final_repair(state, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(swiss_batch, "_final_repair", spy)
    rng = np.random.default_rng(2)
    for _ in range(50):
        states, absent = _random_batch(rng, 12)
        twin = np.random.default_rng()
        twin.bit_generator.state = rng.bit_generator.state
        exact.clear()
        try:
            pair_swiss_rounds(states, twin, absent=absent)
        except ValueError:
            continue
        # Some events, not all, need the exact repair of step 5.
        if 0 < len(exact) < len(states):
            break
    else:
        pytest.fail("No batch with an event for the exact repairs.")
    assert _pair_both_ways(states, rng, absent) is not None
    # A field out of byes: the batch raises as one by one, after the same lots.
    stuck = swiss_start(np.arange(3), [2000.0, 1900.0, 1800.0])
    stuck = stuck._replace(had_bye=np.ones(3, dtype=bool))
    assert _pair_both_ways([*states, stuck, states[0]], rng, None) is None


def test_swiss_batch_broken_by_a_bug_warns_and_pairs_event_by_event(
    monkeypatch: pytest.MonkeyPatch,
):
    """A batch failing its contract check (a bug) warns, then pairs one by one."""
    rng = np.random.default_rng(6)
    states = [swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n)) for n in (5, 8)]
    twin = np.random.default_rng()
    twin.bit_generator.state = rng.bit_generator.state
    calls: list[object] = []

    def broken(*args: object) -> bool:
        calls.append(args)
        return True

    monkeypatch.setattr(swiss_batch, "_broken_matching", broken)
    with pytest.warns(RuntimeWarning, match="Internal error.*event by event"):
        got = pair_swiss_rounds(states, rng)
    assert len(calls) == 1
    _assert_same_rounds(got, [pair_swiss_round(s, twin) for s in states])
    assert rng.bit_generator.state == twin.bit_generator.state


def test_swiss_batch_handles_large_and_empty_fields():
    """Fields over the batched size, fields with everyone absent, and none at all."""
    rng = np.random.default_rng(5)
    assert pair_swiss_rounds([], rng) == []
    states = [
        swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n))
        for n in (1_500, 6, 2_500, 9)
    ]
    absent = [None, list(range(6)), list(range(0, 2_500, 3)), [8]]
    for _ in range(3):
        rounds = _pair_both_ways(states, rng, absent)
        assert rounds is not None
        states = record_swiss_rounds(
            states, rounds, [_results(rng, rd.white, rd.black) for rd in rounds]
        )
    with pytest.raises(ValueError, match="one entry per event"):
        pair_swiss_rounds(states, rng, absent=[None])


def test_swiss_batch_ranks_ties_and_nan_points_as_event_by_event():
    """Tied starting ranks and NaN points (hand-made states): as one by one.

    The batch ranks by points, then starting rank, then position in the
    event, as ``pair_swiss_round`` does; NaN points send it event by event.
    """
    rng = np.random.default_rng(8)
    for _ in range(20):
        states, absent = _random_batch(rng, 8)
        tied = [s._replace(rank=s.rank // 3) for s in states]
        _pair_both_ways(tied, rng, absent)
        odd = states[0]._replace(points=np.where(states[0].rank == 0, np.nan, 0.5))
        _pair_both_ways([*states[1:], odd], rng)
