"""Tests of world.live: the players present on a day, read by the engine."""

from __future__ import annotations

import numpy as np
import pytest
from small_pools import arrays, pool

from simulator.world.live import LiveWorld
from simulator.world.population import Population, active


def drawn_in(order: str, rng: np.random.Generator) -> Population:
    """A pool of 300 over three years, as drawn or in a shuffled order."""
    pop = pool(rng, 300, n_days=3 * 365)
    if order == "shuffled":
        perm = rng.permutation(pop.n_players)
        fields = {name: a[perm] for name, a in arrays(pop).items()}
        pop = Population(config=pop.config, day=pop.day, **fields)
    return pop


@pytest.mark.parametrize("order", ["drawn", "shuffled"])
def test_world_reads_the_players_in_the_pool(order: str, seed: int) -> None:
    """The world's mask and list of players present are :func:`active`'s.

    Players drawn in order of arrival are read from a prefix; any other
    order from every player.
    """
    pop = drawn_in(order, np.random.default_rng(seed))
    world = LiveWorld(pop)
    assert world._by_arrival == (order == "drawn")
    start = int(pop.day)
    for offset in (0, 0, 1, 200, 201, 700, 1095, 2000):
        day = start + offset
        mask = world.active(day)
        np.testing.assert_array_equal(mask, active(pop, day))
        np.testing.assert_array_equal(world.present(day), np.flatnonzero(mask))
        assert not mask.flags.writeable
    assert active(pop, start + 1095).sum() != active(pop, start).sum()


@pytest.mark.parametrize("order", ["drawn", "shuffled"])
def test_arrived_takes_in_everyone_arrived_and_no_more(order: str, seed: int) -> None:
    """``arrived(day)``: one past the last player drawn of those arrived by ``day``.

    Every player arrived by the day lies below it and the player just
    below it has arrived (it is the fewest such); in order of arrival it is
    the number arrived.
    """
    pop = drawn_in(order, np.random.default_rng(seed))
    world = LiveWorld(pop)
    start = int(pop.day)
    for offset in (-5000, 0, 1, 200, 700, 1095, 2000):
        day = start + offset
        came = np.flatnonzero(pop.arrival_day <= day)
        expected = 0 if came.size == 0 else int(came.max()) + 1
        assert world.arrived(day) == expected
        if order == "drawn":
            assert world.arrived(day) == came.size
