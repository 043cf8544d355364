"""Tests of simulator.world.pairing.swiss_rules: colour allocation and the lot."""

from __future__ import annotations

import numpy as np
import pytest
from pairing_helpers import _colour_fields

from simulator.world.pairing import (
    BLACK,
    WHITE,
    pair_swiss_round,
    swiss_rules,
    swiss_start,
)

W, B = WHITE, BLACK


@pytest.mark.parametrize(
    ("top", "bottom", "white"),
    [
        ([W], [B], 1),  # Both preferences granted.
        ([], [W], 0),  # Only one player has a preference.
        ([W, B], [B], 1),  # Mild vs strong: the stronger preference wins.
        ([B], [W, B], 0),
        ([W, B], [W, B], 0),  # Equal preferences: the higher-ranked player.
        ([B], [B], 0),
        ([B, B], [W, B, B], 0),  # Both absolute: the wider colour difference.
        ([W, B, B], [B, B], 1),
    ],
)
def test_swiss_colours_follow_c043_rule_e(top: list[int], bottom: list[int], white):
    """Colour allocation follows FIDE C.04.3 E for the two players of a pair."""
    rng = np.random.default_rng(0)
    state = swiss_start([0, 1], [2000.0, 1900.0])
    seqs = [top, bottom]
    state = state._replace(**_colour_fields(seqs))
    rd = pair_swiss_round(state, rng)
    assert rd.white.tolist() == [white]


@pytest.mark.parametrize("skip", [0, 1, 2])
def test_colour_lots_drawn_together_as_one_by_one(skip: int):
    """One draw of many lots takes the same numbers as one draw per event."""
    for seed in range(20):
        one = np.random.default_rng(seed)
        for _ in range(skip):  # Leaves half of a 64-bit output buffered.
            one.integers(2)
        together = np.random.default_rng()
        together.bit_generator.state = one.bit_generator.state
        lots = [swiss_rules._draw_lot(one) for _ in range(seed)]
        assert swiss_rules._draw_lots(together, seed).tolist() == lots
        assert together.bit_generator.state == one.bit_generator.state
