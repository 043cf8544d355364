"""FIDE Elo: the rating regulations of 1 March 2024 with the 1 October 2025 amendment.

Source: FIDE Handbook B.02, Rating Regulations effective from 1 March 2024
(handbook.fide.com/chapter/B022024), sections 7 and 8, with 8.3.1 as amended
from 1 October 2025 (FIDE press release of 30 September 2025).
docs/rules.md, section 1 is the spec; every rule it marks *open* is a parameter here.

Presets: ``fide`` (the 2025 rules) and ``fide-2024`` (the 400-point cap for
everyone, as before 1 October 2025).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from simulator._validate import check_choice, check_interval
from simulator.systems._common import (
    FloatArray,
    IntArray,
    average_and_dp,
    round_half_up,
)
from simulator.systems.lists.new_players import NEW_PLAYER_PREDICTIONS
from simulator.systems.lists.state import ListRules
from simulator.systems.lists.system import ListSystem
from simulator.systems.tables import dp_from_p

__all__ = [
    "FLOOR",
    "HYPOTHETICAL_OPPONENT",
    "INITIAL_MAX",
    "Fide",
    "fide_2024",
    "initial_rating",
    "initial_rating_2014",
    "k_factor",
]

#: 7.1.4: the lowest published rating.
FLOOR = 1400.0
#: 8.2.1: two hypothetical opponents rated 1800, both drawn.
HYPOTHETICAL_OPPONENT = 1800.0
#: 8.2.1: the highest initial rating.
INITIAL_MAX = 2200.0


def k_factor(
    n_games: ArrayLike,
    ever_2400: ArrayLike,
    ever_2300: ArrayLike,
    rating: ArrayLike,
    junior: ArrayLike,
    *,
    junior_2300: str = "ever",
) -> IntArray:
    """K on a list (FIDE 8.3.3), for rated players.

    Precedence (inferred from FIDE's published K values; the text states none):
    10 once any published rating reached 2400; else 40 for a junior (age <= 18
    in the list's year) whose rating never reached 2300 (``junior_2300="ever"``)
    or is below 2300 now (``"current"``); else 40 with fewer than 30 games;
    else 20.

    >>> k_factor([10, 50, 50, 50], [False, False, True, False],
    ...          [False, False, True, False], [1600, 1900, 2350, 2000],
    ...          [False, False, True, True]).tolist()
    [40, 20, 10, 40]
    """
    g = np.asarray(n_games)
    rating = np.asarray(rating, dtype=np.float64)
    if junior_2300 == "ever":
        young = np.asarray(junior) & ~np.asarray(ever_2300, dtype=bool)
    else:
        with np.errstate(invalid="ignore"):
            young = np.asarray(junior) & (rating < 2300)
    k = np.where(g < 30, 40, 20)
    k = np.where(young, 40, k)
    return np.where(np.asarray(ever_2400, dtype=bool), 10, k).astype(
        np.intp, copy=False
    )


def initial_rating(
    opp_rating_sum: ArrayLike,
    n: ArrayLike,
    points: ArrayLike,
    *,
    min_games: int = 5,
    max_rating: float = INITIAL_MAX,
) -> FloatArray:
    """The initial rating Ru of an unrated player (FIDE 8.2).

    ``Ra = (sum(R_opp) + 2 * 1800) / (n + 2)``, not rounded; ``p = (points + 1)
    / (n + 2)`` rounded to hundredths (.005 up, open); ``Ru = Ra + dp(p)``
    rounded to a whole number (.5 up, open), at most ``max_rating``. NaN below
    ``min_games`` games.

    FIDE's published first rating of a new player (docs/rules.md, section 1):

    >>> initial_rating(1902 + 1877 + 1884 + 2012 + 1832, 5, 3).item()
    1922.0
    """
    n = np.asarray(n, dtype=np.float64)
    ra = (np.asarray(opp_rating_sum, dtype=np.float64) + 2 * HYPOTHETICAL_OPPONENT) / (
        n + 2
    )
    p = round_half_up((np.asarray(points, dtype=np.float64) + 1.0) / (n + 2), 2)
    dp = dp_from_p(np.rint(p * 100).astype(np.int64))
    ru = np.minimum(round_half_up(ra + dp), max_rating)
    return np.where(n >= min_games, ru, np.nan)


def initial_rating_2014(
    opp_rating_sum: ArrayLike,
    n: ArrayLike,
    points: ArrayLike,
    *,
    min_games: int = 5,
    max_rating: float = INITIAL_MAX,
) -> FloatArray:
    """The initial rating under the rules before 1 March 2024 (an ablation).

    FIDE Handbook B.02 as in force 2014-2024, 7.1.4: ``Ra`` the plain average of
    the rated opponents; 50 % or more: ``Ru = Ra + 20`` per half point above
    50 %; below 50 %: ``Ru = Ra + dp(p)`` with ``p`` rounded to hundredths.
    No hypothetical opponents. Rounded half up (open) and, so that the ablation
    isolates the formula, at most ``max_rating`` like the 2024 rule (open).

    >>> initial_rating_2014(5 * 1900, 5, 3.5).item()  # two half points above 50 %
    1940.0
    >>> initial_rating_2014(5 * 1900, 5, 2).item()
    1828.0
    """
    n, w, ra, dp = average_and_dp(opp_rating_sum, n, points)
    above = ra + 40.0 * (w - n / 2)
    below = ra + dp
    ru = np.minimum(round_half_up(np.where(w >= n / 2, above, below)), max_rating)
    return np.where(n >= min_games, ru, np.nan)


@dataclass(frozen=True)
class Fide(ListSystem):
    """FIDE Elo, rules of 1 March 2024 with the 1 October 2025 amendment.

    Parameters
    ----------
    expectation : {"table", "formula"}, default "table"
        PD from table 8.1.2 (FIDE) or the logistic formula (the Bulgarian and
        Croatian seed pages).
    round_expectation : int or None, default None
        In formula mode, round E to this many decimals (2 reproduces the
        Croatian page's worked numbers).
        Unit: decimals.
    cap : float or None, default 400
        8.3.1: a larger difference counts as ``cap``; None switches it off.
        Unit: rating points.
    exempt_from : float or None, default 2650
        Since 1 October 2025 a player rated this much or more uses the real
        difference; None applies the cap to everyone (``fide-2024``).
        Unit: rating points.
    rule_700 : bool, default True
        8.3.3.1: K becomes ``700 // n`` if ``K * n > 700`` in a period.
    rounding : {"period", "event"}, default "period"
        Round the period's change once (default) or each event's change (open:
        FIDE's published calculations sometimes match the latter).
    floor : float, default 1400
        A rating below it leaves the list; the player is unrated again.
        Unit: rating points.
    junior_2300 : {"ever", "current"}, default "ever"
        The junior K 40 lasts while no published rating reached 2300 (what the
        lists show) or while the current rating is below 2300 (open).
    k_factor : int or None, default None
        A flat K for every rated player instead of the tiers (an ablation).
        Unit: rating points per point of score.
    months : int, default 1
        Months per list: 1 (monthly lists since 2012) or e.g. 3 (an ablation).
        Unit: months.
    closing_days : int, default 0
        An event ending within this many days before a list goes to the next
        period (FIDE's closing date is 3 days before the list). Read by the
        engine when it assigns events to periods.
        Unit: days.
    pool_periods : int, default 26
        Periods over which an unrated player's results pool (open).
        Unit: rating periods.
    min_initial_games : int, default 5
        Games against rated opponents needed for an initial rating (8.2.1).
        Unit: games.
    initial : {"2024", "2014"}, default "2024"
        The initial-rating formula: today's (two hypothetical 1800 draws,
        :func:`initial_rating`) or the one in force 2014-2024
        (:func:`initial_rating_2014`), an ablation.
    unrated_prediction : float, default 1550
        The rating :meth:`expected_score` assumes for an unrated player, near
        the median first rating of newcomers since 2024 (docs/world.md). It affects
        predictions only, never a rating.
        Unit: rating points.
    new_player_prediction : {"constant", "performance", "newcomers"}, default "constant"
        How :meth:`expected_score` rates a player FIDE has not rated yet: as
        ``unrated_prediction``, by the first-rating formula on their results
        so far, or as the mean of the list's recent newcomers
        (:mod:`~simulator.systems.lists.new_players`). Predictions only.
    """

    expectation: str = "table"
    round_expectation: int | None = None
    cap: float | None = 400.0
    exempt_from: float | None = 2650.0
    rule_700: bool = True
    rounding: str = "period"
    floor: float = FLOOR
    junior_2300: str = "ever"
    k_factor: int | None = None
    months: int = 1
    closing_days: int = 0
    pool_periods: int = 26
    min_initial_games: int = 5
    initial: str = "2024"
    unrated_prediction: float = 1550.0
    new_player_prediction: str = "constant"
    _rules: ListRules = field(init=False, repr=False, compare=False)

    name = "fide"
    per_game = False

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_choice(owner, "expectation", self.expectation, ("table", "formula"))
        if self.round_expectation is not None:
            check_interval(owner, "round_expectation", self.round_expectation, 0, 6)
        if self.cap is not None:
            check_interval(owner, "cap", self.cap, 0, np.inf, closed="neither")
        if self.exempt_from is not None:
            check_interval(owner, "exempt_from", self.exempt_from, 0, np.inf)
        check_choice(owner, "rule_700", self.rule_700, (True, False))
        check_choice(owner, "rounding", self.rounding, ("period", "event"))
        check_interval(owner, "floor", self.floor, 0, np.inf)
        check_choice(owner, "junior_2300", self.junior_2300, ("ever", "current"))
        if self.k_factor is not None:
            check_interval(owner, "k_factor", self.k_factor, 1, 1000, kind="an int")
        check_interval(owner, "months", self.months, 1, 12, kind="an int")
        check_interval(owner, "closing_days", self.closing_days, 0, 27, kind="an int")
        check_interval(owner, "pool_periods", self.pool_periods, 1, 1000, kind="an int")
        check_interval(
            owner, "min_initial_games", self.min_initial_games, 1, 100, kind="an int"
        )
        check_interval(owner, "unrated_prediction", self.unrated_prediction, 0, 4000)
        check_choice(
            owner,
            "new_player_prediction",
            self.new_player_prediction,
            NEW_PLAYER_PREDICTIONS,
        )
        check_choice(owner, "initial", self.initial, ("2024", "2014"))
        object.__setattr__(self, "_rules", self._make_rules())
        # The registry name: without the 2650 exemption this is the fide-2024
        # preset (not a field, so equality and repr are unchanged).
        if self.exempt_from is None:
            object.__setattr__(self, "name", "fide-2024")

    def _make_rules(self) -> ListRules:
        flat = self.k_factor
        junior_2300 = self.junior_2300

        def k_rule(
            g: IntArray, e24: Any, e23: Any, rating: FloatArray, junior: Any
        ) -> IntArray:
            if flat is not None:
                return np.full(g.shape, flat, dtype=np.intp)
            return k_factor(g, e24, e23, rating, junior, junior_2300=junior_2300)

        def pool_filter(is_first: Any, n_rated: IntArray, points: FloatArray) -> Any:
            # 8.2.2: a zero score in the first event removes its games for good.
            return ~(is_first & (points == 0))

        min_games = self.min_initial_games

        formula = initial_rating if self.initial == "2024" else initial_rating_2014

        def initial(opp_sum: FloatArray, n: FloatArray, points: FloatArray) -> Any:
            return formula(opp_sum, n, points, min_games=min_games)

        def performance(opp_sum: FloatArray, n: FloatArray, points: FloatArray) -> Any:
            return formula(opp_sum, n, points, min_games=1)

        return ListRules(
            owner=type(self).__name__,
            months=self.months,
            cap=self.cap,
            exempt_from=self.exempt_from,
            expectation=self.expectation,
            round_expectation=self.round_expectation,
            rule_700=self.rule_700,
            rounding=self.rounding,
            floor=self.floor,
            k_rule=k_rule,
            pool_periods=self.pool_periods,
            pool_filter=pool_filter,
            initial=initial,
            performance=performance,
            # 8.2.2 can drop a first event only.
            pool_filter_first_only=True,
        )


def fide_2024(**params: Any) -> Fide:
    """The ``fide-2024`` preset: the 400-point cap for everyone (no 2650 exemption)."""
    params.setdefault("exempt_from", None)
    return Fide(**params)
