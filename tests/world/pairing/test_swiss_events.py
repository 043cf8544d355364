"""Tests of simulator.world.pairing.swiss_events: running Swiss events, joined.

SwissEvents must give the rounds, draws and states of pairing and recording
the events one by one, as events start (out of id order) and finish.
"""

from __future__ import annotations

import numpy as np
import pytest
from pairing_helpers import _assert_same_rounds, _assert_same_states, _results

from simulator.world.pairing import (
    Round,
    pair_swiss_rounds,
    record_swiss_rounds,
    swiss_start,
)
from simulator.world.pairing.swiss_events import SwissEvents


def test_swiss_events_equal_event_by_event(seed: int):
    """Starts out of id order, finishes, rounds and states: as the per-event path."""
    rng = np.random.default_rng(seed)
    sizes = {3: 9, 1: 6, 7: 5, 2: 12, 5: 4}
    first = 0
    made = {}
    for i, m in sizes.items():
        made[i] = swiss_start(np.arange(first, first + m), rng.normal(1800, 200, m))
        first += m + 3
    board = SwissEvents()
    states: dict[int, object] = {}
    pair_rng, ref_rng = (
        np.random.default_rng([seed, 1]),
        np.random.default_rng([seed, 1]),
    )
    for step, new in enumerate(([3, 1], [7], [], [2, 5], [])):
        board.start(new, [made[i] for i in new])
        states.update({i: made[i] for i in new})
        ids = sorted(states)
        assert board.ids == ids
        white, black, bye, n_games, n_byes = board.pair(pair_rng)
        want = pair_swiss_rounds([states[i] for i in ids], ref_rng)
        g, y = np.cumsum(n_games) - n_games, np.cumsum(n_byes) - n_byes
        got = [
            Round(white[a : a + c], black[a : a + c], bye[b : b + d])
            for a, c, b, d in zip(g, n_games, y, n_byes, strict=True)
        ]
        _assert_same_rounds(got, want)
        scores = [_results(rng, np.zeros(r.n_games), np.zeros(r.n_games)) for r in want]
        board.record(white, black, bye, n_games, n_byes, np.concatenate(scores))
        after = record_swiss_rounds([states[i] for i in ids], want, scores)
        states = dict(zip(ids, after, strict=True))
        _assert_same_states(board.states(), after)
        # Events finish after their third round.
        kept = [states[i].n_rounds < 3 for i in ids]
        board.keep(np.array(kept))
        states = {i: s for i, s, k in zip(ids, after, kept, strict=True) if k}
        assert board.ids == sorted(states), step


def test_swiss_events_reject_as_record_swiss_rounds():
    """A repeated pairing raises, and leaves the board as it was."""
    board = SwissEvents()
    board.start([0], [swiss_start(np.arange(4), [2000.0, 1900.0, 1800.0, 1700.0])])
    white, black, bye, n_games, n_byes = board.pair(np.random.default_rng(0))
    board.record(white, black, bye, n_games, n_byes, np.ones(2))
    before = board.states()
    with pytest.raises(ValueError, match="have met before"):
        board.record(white, black, bye, n_games, n_byes, np.ones(2))
    _assert_same_states(board.states(), before)
    with pytest.raises(ValueError, match="repeated event ids"):
        board.start([0], [swiss_start([9], [1.0])])
