"""Tests of simulator.world.pairing.swiss_compiled: the check of a batch's matchings.

The compiled pairing itself is held to the Python path in test_swiss_batch.py.
"""

from __future__ import annotations

import numpy as np

from simulator.world.pairing import (
    pair_swiss_rounds,
    record_swiss_rounds,
    swiss_batch,
    swiss_compiled,
    swiss_start,
)


def test_swiss_batch_check_catches_broken_matchings():
    """The batch's check of the contract rejects every kind of broken matching."""
    rng = np.random.default_rng(4)
    # Players 0..n-1: positions in an event are the players.
    states = [swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n)) for n in (5, 6)]
    first = pair_swiss_rounds(states, rng)
    states = record_swiss_rounds(states, first, [np.ones(r.n_games) for r in first])
    batch = swiss_batch._SwissBatch(states, [None, None])
    batch.match()
    good = batch.mate.copy()

    def broken(event: int, pairs: list[tuple[int, int]]) -> bool:
        """The check, with ``pairs`` (positions in ``event``) replacing the matching."""
        batch.mate[:] = good
        b = int(batch.base[event])
        for x, y in pairs:
            batch.mate[b + x] = y
            if y >= 0:
                batch.mate[b + y] = x
        return bool(
            swiss_compiled._broken_matching(
                batch.base,
                batch.n,
                batch.order,
                batch.first_place,
                batch.n_present,
                batch.keys,
                batch.key_start,
                batch.ctx.had_bye,
                batch.mate,
            )
        )

    (w1, w2), (b1, b2) = first[0].white.tolist(), first[0].black.tolist()
    had_bye = int(first[0].bye[0])
    (u1, u2, u3), (v1, v2, v3) = first[1].white.tolist(), first[1].black.tolist()
    assert not broken(0, [])
    # Other pairings of fresh pairs, the bye to someone without one: fine.
    assert not broken(0, [(w1, 5), (w2, b1), (b2, had_bye)])
    assert not broken(1, [(u1, v2), (u2, v3), (u3, v1)])
    assert broken(1, [(u1, -1), (v1, -1), (u2, v3), (u3, v2)])  # Two unpaired.
    assert broken(1, [(u1, v1), (v1, u2)])  # Partners disagree.
    assert broken(1, [(u1, u1), (v1, v1), (u2, v3), (u3, v2)])  # With themselves.
    assert broken(1, [(u1, v1), (u2, u3), (v2, v3)])  # A repeated game.
    assert broken(1, [(u1, 6), (v1, -1)])  # A bye in an even field.
    assert broken(0, [(had_bye, 5), (w1, w2), (b1, b2)])  # A second bye.
