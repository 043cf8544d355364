"""The run's players as the engine reads them, day by day: :class:`LiveWorld`.

The engine asks, every day, who is in the pool and how strong some players
are, and at every checkpoint everyone's strength. A long run draws its
players up front (a 40-year run of the default world draws 345,000 for a
pool of 10,000 to 59,000), so what it asks is answered from the players in
the pool: the true strengths move in place (:class:`Strengths`, the players
in the pool only), and the day's mask and list of players present are kept
for the day and read from the players arrived so far.
"""

from __future__ import annotations

import numpy as np

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.world.population import Population, active
from simulator.world.strengths import Strengths

__all__ = ["LiveWorld"]


class LiveWorld:
    """The run's population, each player moved on only when their strength is read.

    A day's games involve a few of the players drawn for the whole horizon;
    moving just them (and everyone at a checkpoint) gives the same strengths,
    in distribution, as moving everyone every day (``population.advance``:
    the steps add up), for a fraction of the work. The strengths move in place
    (:class:`Strengths`); a :class:`Population` of them is made when asked for.

    Attributes
    ----------
    drawn : Population
        The players as drawn: every field but the true strengths (and their
        day) is theirs for the whole run, so a reader of those fields alone
        (activity, arrival, departure) reads them here, not from a
        :attr:`population` rebuilt after the strengths moved.
    """

    def __init__(self, population: Population) -> None:
        self.drawn = population
        self._strengths = Strengths(population)
        self._population: Population | None = population
        self._active: tuple[int, BoolArray] | None = None
        self._present: tuple[int, IntArray] | None = None
        # Drawn in order of arrival (the pool, then the newcomers), the
        # players present on a day are among a prefix, read alone.
        arrival = population.arrival_day
        self._by_arrival = bool(np.all(arrival[1:] >= arrival[:-1]))
        # In any order: the arrival days sorted, and how many players, in
        # the order drawn, take in the first k to arrive (probes are drawn
        # after the newcomers, whatever their arrival). The order is the
        # strengths' own, which admit the players in it.
        order, self._arrival_sorted = self._strengths.by_arrival
        self._reach = np.maximum.accumulate(order) + 1
        self._truth: FloatArray | None = None

    def active(self, day: int) -> BoolArray:
        """Mask of the players in the pool on ``day`` (:func:`active`), read-only.

        Kept for the day: the events, every arena's checkpoint and recent
        players read it on the same day.
        """
        if self._active is None or self._active[0] != day:
            if self._by_arrival:
                departure = self.drawn.departure_day
                arrived = self.arrived(day)
                mask = np.zeros(departure.shape[0], dtype=bool)
                np.less(day, departure[:arrived], out=mask[:arrived])
            else:
                mask = active(self.drawn, day)
            mask.flags.writeable = False
            self._active = (day, mask)
        return self._active[1]

    def arrived(self, day: float) -> int:
        """The fewest first players drawn that take in everyone arrived by ``day``.

        Drawn in order of arrival, exactly those arrived; otherwise up to the
        last one drawn of those arrived (a probe drawn after the newcomers
        but arrived early takes in every newcomer before it). The players
        beyond it are yet to arrive: the engine grows its period systems'
        states to it (docs/design.md, "Period states grow with the pool").
        """
        k = int(np.searchsorted(self._arrival_sorted, day, side="right"))
        return 0 if k == 0 else int(self._reach[k - 1])

    def present(self, day: int) -> IntArray:
        """The players in the pool on ``day``, in order (read-only)."""
        if self._present is None or self._present[0] != day:
            players = np.flatnonzero(self.active(day))
            players.flags.writeable = False
            self._present = (day, players)
        return self._present[1]

    @property
    def population(self) -> Population:
        """The players, with the true strengths as moved so far."""
        if self._population is None:
            self._population = self._strengths.population()
        return self._population

    @property
    def true_strength(self) -> FloatArray:
        """Everyone's true strength as moved so far (read-only)."""
        if self._population is not None:
            return self._population.true_strength
        if self._truth is None:
            self._truth = self._strengths.true_strength()
        return self._truth

    def strength(
        self, players: IntArray, day: int, rng: np.random.Generator
    ) -> FloatArray:
        """True strengths of ``players`` (distinct) on ``day``."""
        self._strengths.advance(day, rng, players=players)
        self._population = self._truth = None
        return self._strengths.read(players)

    def advance_all(self, day: int, rng: np.random.Generator) -> None:
        """Move everyone on to ``day``."""
        self._strengths.advance(day, rng)
        self._population = self._truth = None
