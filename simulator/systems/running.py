"""A rating system as a run holds it: :class:`RunningSystem`.

The engine keeps, for each system of an arena, its state, the day its
period closes and the period's games so far. A period system's state also
grows with the pool (docs/design.md, "Period states grow with the pool"): a
run draws its players for the whole horizon up front (a 40-year run of the
default world draws 345,000 for a pool of 10,000 to 59,000), and a close
costs every player its state holds, so the state holds the players arrived,
plus at least one yet to come, whose entry is what every newcomer's would
be (:meth:`RunningSystem.grow`, the system's ``grow``). The metrics read
every player's rating: :meth:`RunningSystem.full_rating` gives it at full
size, the players yet to come holding that entry's rating.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from simulator._types import FloatArray, read_only_view
from simulator.systems import GrowingSystem, RatingSystem
from simulator.systems.games import Games

__all__ = ["RunningSystem"]

#: A grown state holds this fraction more players than needed, so that a
#: state is copied a few dozen times in a run, not at every arrival.
GROWTH = 1 / 8


@dataclass
class RunningSystem:
    """A system in an arena with its state and its pending period games.

    Attributes
    ----------
    label : str
        The system's label in the arena.
    system : RatingSystem
        The system.
    state : object
        Its state, for the first :attr:`size` players drawn.
    close : int or None
        The day its current period closes (None: a per-game system).
    closing_days : int
        Days before a close after which games wait for the next period.
    n_total : int
        Players drawn for the run.
    size : int
        Players the state holds: :attr:`n_total`, or, for a state that
        grows, the players arrived and at least one more.
    pending : list of (int, Games)
        The period's games so far, with the last day of their event.
    """

    label: str
    system: RatingSystem
    _state: Any
    close: int | None
    closing_days: int
    n_total: int
    size: int
    pending: list[tuple[int, Games]] = field(default_factory=list)
    # Full-size ratings for a state that grows: the buffer, the version of
    # the state it was last filled from (a count of the states set, not the
    # state itself, which would keep an old state alive until the next
    # checkpoint), and where its tail of one value starts (the players yet
    # to come hold the state's last entry).
    _full: FloatArray | None = None
    _version: int = 0
    _full_version: int = -1
    _tail: tuple[int, float] = (0, np.nan)

    @property
    def state(self) -> Any:
        """The system's state (see the class docstring)."""
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        self._state = value
        self._version += 1

    def grow(self, arrived: int, **kwargs: Any) -> None:
        """Grow the state to hold the first ``arrived`` players and one more.

        By :data:`GROWTH` more at once, at most :attr:`n_total`. ``kwargs``
        are the system's ``grow`` keyword arrays, one entry per player drawn.
        Nothing to do while the state holds a player yet to come beyond
        ``arrived`` (or everyone).
        """
        if self.size > arrived or self.size == self.n_total:
            return
        target = min(
            self.n_total, max(arrived + 1, self.size + int(self.size * GROWTH))
        )
        system = cast(GrowingSystem, self.system)
        self.state = system.grow(
            self.state, target, **{k: v[:target] for k, v in kwargs.items()}
        )
        self.size = target

    def full_rating(self) -> FloatArray:
        """Every drawn player's published rating, read-only (``rating_view``'s).

        At full size, a view of the state; else a buffer, refilled when the
        state has changed since: the state's ratings, then the last entry's
        rating (a player yet to come) for the rest. Valid until the state
        next changes, as ``rating_view``.
        """
        view = self.system.rating_view(self.state)
        if self.size == self.n_total:
            return view
        if self._full is None:
            # All NaN: the tail's start (0) and value hold from the first.
            self._full = np.full(self.n_total, np.nan)
        if self._full_version != self._version:
            full, size = self._full, self.size
            full[:size] = view
            last = float(view[size - 1])
            start, value = self._tail
            # The tail already holds ``last`` from ``start`` on, unless the
            # last entry's rating changed: bit for bit (-0.0 is not 0.0; a
            # NaN matches the same NaN).
            same = np.float64(value).view(np.int64) == np.float64(last).view(np.int64)
            if not (start <= size and same):
                full[size:] = last
                self._tail = (size, last)
            self._full_version = self._version
        return read_only_view(self._full)
