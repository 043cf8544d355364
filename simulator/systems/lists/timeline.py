"""FIDE's real history as one system: the rules of each era, switched on their dates.

A real FIDE list is not what today's rules alone would make. Ratings published
in 2026 went through the 2014-2024 rules (floor 1000, the 2014 first-rating
formula, the 400-point cap for everyone), the one-off compression of
1 March 2024 (every rating below 2000 raised by ``0.4 x (2000 - R)``), the
2024 rules and, from 1 October 2025, the 2650 exemption from the cap.
:class:`FideHistory` runs that timeline inside any experiment: each period is
rated by the rules in force when its list is published, and the compression is
applied to the list published on its date.

Sources: FIDE Handbook B.02, Rating Regulations effective from 1 March 2024
(handbook.fide.com/chapter/B022024) and the October 2025 amendment of 8.3.1
(docs/rules.md, section 1); FIDE Qualification Commission, "New rating
regulations come into force", qc.fide.com, 1 March 2024 (the one-time increase
for ratings between 1000 and 2000, the new 1400 floor); FIDE Handbook B.02 as
in force 2014-2024 (the 1000 floor, the first-rating formula of
:func:`~simulator.systems.fide.initial_rating_2014`).

Open choices, each a parameter or stated here:

- the period that closes on the switch date (February 2024) is rated by the
  old rules, and the compression is applied to the list it publishes, the
  1 March 2024 list;
- the compression rounds half up to a whole rating (FIDE publishes whole
  numbers and states no rounding);
- the 2014-2024 rules allowed the 400-point cap to benefit a player only once
  per event; that limit is not modelled (the cap applies to every game);
- ``before = "classic"`` runs the old-style rules (K 25/15/10, the 350 cap,
  quarterly lists) up to the switch instead, for histories that start before
  July 2009; the eras between 2009 and 2014 are not modelled.

Preset name: ``fide-history``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import BoolArray
from simulator._validate import check_choice, check_interval
from simulator.systems._common import FloatArray, Games, day_of, round_half_up
from simulator.systems.classic import Classic
from simulator.systems.fide import FLOOR, Fide
from simulator.systems.lists.new_players import NEW_PLAYER_PREDICTIONS
from simulator.systems.lists.state import ListState, grow_list_state, period_k
from simulator.systems.lists.system import ListSystem

__all__ = ["COMPRESSION_TOP", "FideHistory", "compress_2024"]

#: The one-off increase of 1 March 2024 raised every rating below this.
COMPRESSION_TOP = 2000.0
#: ... by this share of its distance to :data:`COMPRESSION_TOP`.
COMPRESSION_SHARE = 0.4
#: The floor in force from July 2012 to February 2024.
FLOOR_2012 = 1000.0


def compress_2024(rating: ArrayLike) -> FloatArray:
    """The one-off increase of 1 March 2024: ``R + 0.4 (2000 - R)`` below 2000.

    Ratings of 2000 or more and unrated players (NaN) are unchanged; the
    result is rounded half up to a whole rating (open). A rating of 1000,
    the old floor, becomes 1400, the new one.

    >>> compress_2024([1000, 1500, 1800, 1999, 2000, 2500, np.nan]).tolist()
    [1400.0, 1700.0, 1880.0, 1999.0, 2000.0, 2500.0, nan]
    """
    r = np.asarray(rating, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        low = r < COMPRESSION_TOP
    raised = round_half_up(r + COMPRESSION_SHARE * (COMPRESSION_TOP - r))
    out: FloatArray = np.where(low, raised, r)
    return out


@dataclass(frozen=True)
class FideHistory:
    """FIDE Elo with its history: old rules, the 2024 compression, the 2024 rules.

    Parameters
    ----------
    rules_2024_from : str, default "2024-03-01"
        ISO date on which the 2024 rules take effect and the compression is
        applied to the list (FIDE: 1 March 2024). Must be the 1st of a month.
    amendment_from : str, default "2025-10-01"
        ISO date of the 2650 exemption from the 400-point cap (FIDE: 1 October
        2025); the first of a month, after ``rules_2024_from``.
    before : {"2014", "classic"}, default "2014"
        The rules before ``rules_2024_from``: those in force 2014-2024 (K
        40/20/10, the 400-point cap for everyone, floor 1000, the 2014
        first-rating formula, monthly lists) or the old-style rules
        (:class:`~simulator.systems.classic.Classic`).
    compression : bool, default True
        Apply the one-off increase (:func:`compress_2024`) to the list published
        on ``rules_2024_from``; False isolates the rule change from it.
    floor : float or None, default None
        Each era's own floor (1000 before the switch, or old-style FIDE's
        default with ``before = "classic"``; 1400 after) or this one in every
        era (0 switches the floor off, an ablation).
        Unit: rating points.
    unrated_prediction : float, default 1550
        As for :class:`~simulator.systems.fide.Fide`, in every era.
        Unit: rating points.
    new_player_prediction : {"constant", "performance", "newcomers"}, default "constant"
        As for :class:`~simulator.systems.fide.Fide`, in every era.

    Examples
    --------
    >>> s = FideHistory()
    >>> [type(e).__name__ for _, e in s.eras]
    ['Fide', 'Fide', 'Fide']
    >>> [e.floor for _, e in s.eras]
    [1000.0, 1400.0, 1400.0]
    >>> [float(e.floor) for _, e in FideHistory(floor=0).eras]
    [0.0, 0.0, 0.0]
    """

    rules_2024_from: str = "2024-03-01"
    amendment_from: str = "2025-10-01"
    before: str = "2014"
    compression: bool = True
    floor: float | None = None
    unrated_prediction: float = 1550.0
    new_player_prediction: str = "constant"
    _eras: tuple[tuple[int, ListSystem], ...] = field(
        init=False, repr=False, compare=False
    )

    name = "fide-history"
    per_game = False
    closing_days = 0

    def __post_init__(self) -> None:
        owner = type(self).__name__
        switch = _first_of_month(owner, "rules_2024_from", self.rules_2024_from)
        amendment = _first_of_month(owner, "amendment_from", self.amendment_from)
        if amendment <= switch:
            raise ValueError(
                f"The 'amendment_from' parameter of {owner} must come after "
                f"'rules_2024_from' ({self.rules_2024_from}). "
                f"Got {self.amendment_from!r} instead."
            )
        check_choice(owner, "before", self.before, ("2014", "classic"))
        check_choice(owner, "compression", self.compression, (True, False))
        if self.floor is not None:
            check_interval(owner, "floor", self.floor, 0, 4000)
        check_interval(owner, "unrated_prediction", self.unrated_prediction, 0, 4000)
        check_choice(
            owner,
            "new_player_prediction",
            self.new_player_prediction,
            NEW_PLAYER_PREDICTIONS,
        )
        pred = self.unrated_prediction
        rule = self.new_player_prediction
        floor_new = FLOOR if self.floor is None else self.floor
        old: ListSystem
        if self.before == "2014":
            old = Fide(
                initial="2014",
                floor=FLOOR_2012 if self.floor is None else self.floor,
                exempt_from=None,
                unrated_prediction=pred,
                new_player_prediction=rule,
            )
        elif self.floor is None:
            old = Classic(unrated_prediction=pred, new_player_prediction=rule)
        else:
            old = Classic(
                floor=self.floor, unrated_prediction=pred, new_player_prediction=rule
            )
        rules_2024 = Fide(
            exempt_from=None,
            floor=floor_new,
            unrated_prediction=pred,
            new_player_prediction=rule,
        )
        rules_2025 = Fide(
            floor=floor_new, unrated_prediction=pred, new_player_prediction=rule
        )
        eras: tuple[tuple[int, ListSystem], ...] = (
            (int(np.iinfo(np.int64).min), old),
            (switch, rules_2024),
            (amendment, rules_2025),
        )
        object.__setattr__(self, "_eras", eras)

    @property
    def eras(self) -> tuple[tuple[int, ListSystem], ...]:
        """``(first day, system)`` of each era, oldest first."""
        return self._eras

    def era(self, day: float) -> ListSystem:
        """The system whose rules are in force on ``day``."""
        current = self._eras[0][1]
        for start, system in self._eras:
            if day >= start:
                current = system
        return current

    def _next_switch(self, day: float) -> int | None:
        later = [start for start, _ in self._eras if start > day]
        return min(later) if later else None

    def new_state(
        self,
        n_players: int,
        *,
        day: float = 0.0,
        birth_year: ArrayLike | None = None,
        rating: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        **_: object,
    ) -> ListState:
        """A pool with the list in force on ``day``, under that day's rules.

        Seeded ratings below the floor of the era in force are unrated.
        """
        system = self.era(day)
        if rating is not None:
            r = np.asarray(rating, dtype=np.float64)
            with np.errstate(invalid="ignore"):
                rating = np.where(r < float(getattr(system, "floor", 0.0)), np.nan, r)
        return system.new_state(
            n_players, day=day, birth_year=birth_year, rating=rating, n_games=n_games
        )

    def grow(
        self,
        state: ListState,
        n_players: int,
        *,
        birth_year: ArrayLike | None = None,
        **_: object,
    ) -> ListState:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        As the lists' (:func:`~simulator.systems.lists.state.grow_list_state`),
        K on each kept list by the rules of the era that published it.
        """
        rules = [self.era(float(d)).rules for d in state.list_day]
        return grow_list_state(type(self).__name__, rules, state, n_players, birth_year)

    def next_close(self, day: float) -> int:
        """The next list after ``day``: its era's calendar, or the next switch."""
        close = self.era(day).next_close(day)
        switch = self._next_switch(day)
        return close if switch is None else min(close, switch)

    def expected_score(
        self, state: ListState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's PD under the rules of the list in force."""
        return self.era(float(state.list_day[-1])).expected_score(state, white, black)

    def rate(
        self,
        state: ListState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> ListState:
        """Rate one period by the rules in force during it; publish the next list.

        On a switch date the period is rated by the old rules and the new list
        is published under the new ones: K on it follows the new rules and, on
        ``rules_2024_from``, its ratings are compressed (:func:`compress_2024`).
        """
        last = float(state.list_day[-1])
        if day is None:
            day = self.next_close(last)
        new = self.era(last).rate(state, games, day=day)
        switch = self._next_switch(last)
        if switch is None or day < switch:
            return new
        rules = self.era(day).rules
        rating = new.list_rating[-1]
        if self.compression and switch == self._eras[1][0]:
            rating = compress_2024(rating)
        list_rating = new.list_rating.copy()
        list_rating[-1] = rating
        list_k = new.list_k.copy()
        list_k[-1] = period_k(rules, rating, new._replace(list_rating=list_rating))
        return new._replace(list_rating=list_rating, list_k=list_k)

    def is_rated(self, state: ListState, players: ArrayLike) -> BoolArray:
        """Whether ``players`` are on the list in force (as every era has it)."""
        return self.era(float(state.list_day[-1])).is_rated(state, players)

    def rating(self, state: ListState) -> FloatArray:
        """Published ratings on the list in force (NaN = unrated)."""
        return self.era(float(state.list_day[-1])).rating(state)

    def rating_view(self, state: ListState) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return self.era(float(state.list_day[-1])).rating_view(state)


def _first_of_month(owner: str, name: str, value: Any) -> int:
    """The day number of an ISO date that is the 1st of a month, or ValueError."""
    try:
        day = np.datetime64(str(value), "D")
        ok = str(day) == str(value) and str(day).endswith("-01")
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be an ISO date on the 1st "
            f"of a month (a list date), such as '2024-03-01'. Got {value!r} instead."
        )
    return day_of(str(value))
