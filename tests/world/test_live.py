"""Tests of world.live: the players present on a day, read by the engine."""

from __future__ import annotations

import numpy as np
import pytest
from small_pools import arrays, pool

from simulator.world.live import LiveWorld
from simulator.world.population import Population, active


@pytest.mark.parametrize("order", ["drawn", "shuffled"])
def test_world_reads_the_players_in_the_pool(order: str, seed: int) -> None:
    """The world's mask and list of players present are :func:`active`'s.

    Players drawn in order of arrival are read from a prefix; any other
    order from every player.
    """
    rng = np.random.default_rng(seed)
    pop = pool(rng, 300, n_days=3 * 365)
    if order == "shuffled":
        perm = rng.permutation(pop.n_players)
        fields = {name: a[perm] for name, a in arrays(pop).items()}
        pop = Population(config=pop.config, day=pop.day, **fields)
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
