"""A rating system as a run holds it: growth with the pool, full-size ratings."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.systems import Games, make_system
from simulator.systems._common import day_of
from simulator.systems.running import GROWTH, RunningSystem

START = day_of("2024-01-01")


def held(name: str, n_total: int, size: int) -> RunningSystem:
    """``name`` holding the first ``size`` of ``n_total`` new players."""
    system = make_system(name)
    state = system.new_state(size, day=START)
    return RunningSystem(
        name, system, state, system.next_close(START), 0, n_total, size
    )


def test_grow_keeps_one_player_yet_to_come_and_grows_by_a_share() -> None:
    """Nothing while a player beyond those arrived is held; else by an eighth."""
    rs = held("glicko2", n_total=1000, size=101)
    rs.grow(100)
    assert rs.size == 101
    rs.grow(101)  # the last held player has arrived: grow
    assert rs.size == 101 + int(101 * GROWTH)
    assert rs.system.rating(rs.state).shape == (rs.size,)
    rs.grow(500)  # more than a share at once: the arrived and one more
    assert rs.size == 501
    rs.grow(999)
    assert rs.size == 1000
    rs.grow(1000)  # everyone held: nothing more to do
    assert rs.size == 1000


@pytest.mark.parametrize(("name", "tail"), [("fide", np.nan), ("glicko2", 1500.0)])
def test_full_rating_pads_with_the_last_entry_and_follows_the_state(
    name: str, tail: float
) -> None:
    """Every drawn player's rating: the state's, then its last entry's."""
    rs = held(name, n_total=50, size=11)
    full = rs.full_rating()
    assert full.shape == (50,) and not full.flags.writeable
    np.testing.assert_array_equal(full[11:], np.full(39, tail))
    # A period among the first ten moves their ratings; the buffer follows.
    white, black = np.arange(0, 10, 2), np.arange(1, 10, 2)
    games = Games(white, black, np.ones(5), np.full(5, START + 3.0))
    rs.state = rs.system.rate(rs.state, games)
    full = rs.full_rating()
    np.testing.assert_array_equal(full[:11], rs.system.rating(rs.state))
    np.testing.assert_array_equal(full[11:], np.full(39, tail))
    rs.grow(30)
    np.testing.assert_array_equal(rs.full_rating()[:31], rs.system.rating(rs.state))


def test_full_rating_refills_the_tail_when_the_last_entry_moves() -> None:
    """A state whose last entry's rating changed pads with the new value."""
    rs = held("elo", n_total=20, size=5)
    assert rs.full_rating()[19] == 1500.0
    state = rs.state
    rating = state.rating.copy()
    rating[4] = 1234.0
    rs.state = state._replace(rating=rating)
    np.testing.assert_array_equal(rs.full_rating()[4:], np.full(16, 1234.0))


def test_a_full_size_state_is_read_as_it_is() -> None:
    """Held at full size, the ratings are the state's own view."""
    rs = held("fide", n_total=8, size=8)
    view = rs.full_rating()
    assert view.shape == (8,)
    assert np.shares_memory(view, rs.state.list_rating)
