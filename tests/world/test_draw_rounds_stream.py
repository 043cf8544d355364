"""``draw_rounds`` draws as ``Generator.choice`` with the weights did.

It forms choice's cumulative probabilities once per weights and draws one
uniform per event; a run's stream (and so every result) must not change.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.world.events import EventsConfig, draw_rounds, round_weights


@pytest.mark.parametrize(
    "weights", [None, (1.0, 1.0, 1.0), (0.2, 0.5, 0.3), (1e-3, 7.0, 2.0)]
)
def test_same_draws_and_stream_as_choice(weights: tuple[float, ...] | None) -> None:
    rounds = (5, 7, 9)
    events = EventsConfig(round_weights=weights)
    w = np.asarray(round_weights(rounds, events))
    assert w.size == 3  # the default rounds have default weights
    p = w / np.sum(w)
    for seed in range(50):
        ours = np.random.default_rng(seed)
        theirs = np.random.default_rng(seed)
        got = [draw_rounds(rounds, events, ours) for _ in range(40)]
        expected = [rounds[int(theirs.choice(3, p=p))] for _ in range(40)]
        assert got == expected
        assert ours.bit_generator.state == theirs.bit_generator.state
