"""Tests of simulator.world.pairing.rounds: the checks of the players given."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.world.pairing import (
    pair_random,
    pair_swiss_round,
    swiss_start,
)


def test_duplicate_players_raise_everywhere():
    """Every entry point rejects a player listed twice, naming the player."""
    rng = np.random.default_rng(0)
    msg = r"distinct players\. Got player 4 more than once"
    with pytest.raises(ValueError, match=msg):
        swiss_start([1, 4, 4], [1500.0, 1600.0, 1700.0])
    with pytest.raises(ValueError, match=msg):
        pair_random([4, 1, 4], rng)
    state = swiss_start([1, 4, 5], [1500.0, 1600.0, 1700.0])
    with pytest.raises(ValueError, match=msg):
        pair_swiss_round(state, rng, absent=[4, 4])


def test_bad_players_and_rng_raise():
    """Non-integer, negative or 2-D players and a non-Generator rng are rejected."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="integer player indices"):
        pair_random([0.5, 1.0], rng)
    with pytest.raises(ValueError, match="non-negative"):
        pair_random([-1, 2], rng)
    with pytest.raises(ValueError, match="one-dimensional"):
        pair_random([[0, 1]], rng)
    with pytest.raises(ValueError, match="one entry per player"):
        swiss_start([0, 1], [1500.0])
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        pair_random([0, 1], 42)  # type: ignore[arg-type]
