"""Who plays whom: Swiss events, round robins, the online pool, random pairings.

The engine drives an event round by round: it asks for a round's pairings,
samples the results, records them and asks for the next round. Every function
here works over numpy arrays of player indices, takes its randomness from an
explicit ``rng`` (a :class:`numpy.random.Generator`) and returns a
:class:`Round`, in which a player plays at most once.

- :mod:`~simulator.world.pairing.rounds`: :class:`Round`, and the checks of
  the players every pairing takes;
- :mod:`~simulator.world.pairing.swiss_state`: a Swiss event's state
  (:func:`swiss_start`) and recording a round's results into it, one event
  or many at once (:func:`record_swiss_round`, :func:`record_swiss_rounds`);
- :mod:`~simulator.world.pairing.swiss_rules`: who may meet, colour
  preferences and the allocation of colours (FIDE C.04.1, C.04.3);
- :mod:`~simulator.world.pairing.swiss`: the Swiss pairing of one event,
  Dutch-style (:func:`pair_swiss_round`);
- :mod:`~simulator.world.pairing.swiss_compiled`: the same pairing as
  compiled loops (numba), for the small events of a batch, and the
  constants both read;
- :mod:`~simulator.world.pairing.swiss_batch`: the next round of many
  events at once (:func:`pair_swiss_rounds`);
- :mod:`~simulator.world.pairing.swiss_batch_compiled`: the bookkeeping of
  the batched paths as compiled loops (laying a batch out, its colours,
  recording its results), so that a day costs a few array calls, not a
  hundred;
- :mod:`~simulator.world.pairing.simple`: round robins, the online pool and
  random pairing.

:func:`pair_swiss_rounds` and :func:`record_swiss_rounds` do for many
concurrent events at once (the engine's path: a day has thousands of small
events) what the single-event functions do, with results identical to calling
those event by event; the pairing of small events runs as compiled loops.

Imports: the base modules (``simulator._jit``, ``_types``, ``_validate``) and
its own modules only, as the rest of :mod:`simulator.world`.
"""

from simulator.world.pairing.rounds import Round
from simulator.world.pairing.simple import (
    JITTER,
    WINDOW,
    pair_online,
    pair_random,
    round_robin,
)
from simulator.world.pairing.swiss import pair_swiss_round
from simulator.world.pairing.swiss_batch import pair_swiss_rounds
from simulator.world.pairing.swiss_compiled import BLACK, WHITE
from simulator.world.pairing.swiss_state import (
    BYE_SCORE,
    SwissState,
    record_swiss_round,
    record_swiss_rounds,
    swiss_start,
)

__all__ = [
    "BLACK",
    "BYE_SCORE",
    "JITTER",
    "WHITE",
    "WINDOW",
    "Round",
    "SwissState",
    "pair_online",
    "pair_random",
    "pair_swiss_round",
    "pair_swiss_rounds",
    "record_swiss_round",
    "record_swiss_rounds",
    "round_robin",
    "swiss_start",
]
