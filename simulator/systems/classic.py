"""Old-style FIDE Elo: K 25/15/10, the 350-point cap, quarterly lists.

Sources: FIDE Handbook 2003, B0209 (K turnover), B0210 (table 8.1.2, unchanged
since), B0206 6.4 (unrated opponents); FIDE news of 13 July 2009 (the end of
the 350 cap and of quarterly lists); the Danish and German seed pages
(seeds 003 and 004, docs/rules.md). docs/rules.md, section 2 is the spec.

Preset name: ``classic``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from simulator._validate import check_choice, check_interval
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    average_and_dp,
    player_sum,
    round_half_up,
)
from simulator.systems.lists.new_players import NEW_PLAYER_PREDICTIONS
from simulator.systems.lists.period import rate_list_period
from simulator.systems.lists.state import ListRules, ListState, Pool
from simulator.systems.lists.system import ListSystem

__all__ = [
    "Classic",
    "initial_rating_international",
    "k_factor",
    "national_start_values",
]


def k_factor(n_games: ArrayLike, ever_2400: ArrayLike) -> IntArray:
    """K on a list under the old rules (2003 Handbook B0209).

    25 until 30 games; then 10 once any published rating reached 2400
    (permanent); else 15.

    >>> k_factor([10, 40, 40], [True, True, False]).tolist()
    [25, 10, 15]
    """
    g = np.asarray(n_games)
    k = np.where(np.asarray(ever_2400, dtype=bool), 10, 15)
    return np.where(g < 30, 25, k).astype(np.intp)


def initial_rating_international(
    opp_rating_sum: ArrayLike,
    n: ArrayLike,
    points: ArrayLike,
    *,
    min_games: int = 9,
) -> FloatArray:
    """Old international initial rating (2003 Handbook B0206).

    With ``Ra`` the plain average of the rated opponents: ``Ra + 25 (W - n/2)``
    if the player scored 50 % or more (12.5 per half point above 50 %), else
    ``Ra + dp(W/n)`` with W/n rounded to hundredths; rounded half up. NaN below
    ``min_games`` games.

    >>> initial_rating_international(9 * 2000, 9, 6.5).item()
    2050.0
    >>> initial_rating_international(9 * 2000, 9, 3).item()
    1875.0
    """
    n, w, ra, dp = average_and_dp(opp_rating_sum, n, points)
    ru = np.where(w >= n / 2, ra + 25.0 * (w - n / 2), ra + dp)
    return np.where(n >= min_games, round_half_up(ru), np.nan)


def national_start_values(
    n_players: int,
    player: IntArray,
    opp: IntArray,
    opp_rating: FloatArray,
    score: FloatArray,
    unrated: ArrayLike,
    *,
    tol: float = 1e-9,
    max_iterations: int = 10_000,
) -> FloatArray:
    """Start values of unrated players by the German national formula (seed 004).

    ``R_start = mean(R_opp) + 700 (points / n - 0.5) n / (n + 2)``; where unrated
    players met each other their start values enter each other's means, and
    the formula is iterated until all start values are constant.

    Parameters
    ----------
    n_players : int
        Number of players.
    player, opp : ndarray of shape (n_rows,)
        The unrated player of each result and the opponent.
    opp_rating : ndarray of shape (n_rows,)
        The opponent's rating where rated, NaN where the opponent was unrated.
    score : ndarray of shape (n_rows,)
        The unrated player's score.
    unrated : ndarray of shape (n_players,) of bool
        Players still unrated: unrated opponents' values come from the iteration.

    Returns
    -------
    ndarray of shape (n_players,)
        Start values; NaN for players without results or whose group of mutually
        connected unrated players never met a rated player (no anchor).

    Examples
    --------
    Two newcomers who drew each other and each beat a 1600:

    >>> national_start_values(4, np.array([0, 0, 1, 1]), np.array([1, 2, 0, 3]),
    ...     np.array([np.nan, 1600, np.nan, 1600]), np.array([.5, 1, .5, 1]),
    ...     np.array([True, True, False, False])).round(1).tolist()[:2]
    [1775.0, 1775.0]
    """
    # Imported here, not at the top: scipy.sparse takes 0.2 s to import,
    # which every process importing the systems would pay.
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    unrated = np.asarray(unrated, dtype=bool)
    n = np.bincount(player, minlength=n_players).astype(np.float64)
    points = player_sum(player, score, n_players)
    with np.errstate(invalid="ignore", divide="ignore"):
        bonus = 700.0 * (points / n - 0.5) * n / (n + 2)
    rated_opp = ~np.isnan(opp_rating)
    fixed_sum = player_sum(player[rated_opp], opp_rating[rated_opp], n_players)

    # Groups of unrated players linked by games; a group needs a rated opponent.
    link = ~rated_opp & unrated[opp]
    graph = coo_matrix(
        (np.ones(int(link.sum())), (player[link], opp[link])),
        shape=(n_players, n_players),
    )
    _, label = connected_components(graph, directed=False)
    anchored_label = np.zeros(label.max() + 1, dtype=bool)
    anchored_label[label[player[rated_opp]]] = True
    has = n > 0
    anchored = has & anchored_label[label]

    x = np.where(anchored, fixed_sum / np.where(has, n, 1.0), np.nan)
    for _ in range(max_iterations):
        val = np.where(np.isnan(x), 0.0, x)
        linked_sum = player_sum(player[link], val[opp[link]], n_players)
        with np.errstate(invalid="ignore", divide="ignore"):
            x_new = np.where(anchored, (fixed_sum + linked_sum) / n + bonus, np.nan)
        if np.nanmax(np.abs(x_new - x), initial=0.0) <= tol:
            return x_new
        x = x_new
    raise RuntimeError("National start values did not converge.")


@dataclass(frozen=True)
class Classic(ListSystem):
    """Old-style FIDE Elo (before July 2009): K 25/15/10, cap 350, quarterly lists.

    Parameters
    ----------
    cap : float or None, default 350
        A larger difference counts as ``cap`` (400 as an option).
        Unit: rating points.
    expectation : {"table", "formula"}, default "table"
        PD from table 8.1.2 (unchanged since 2003) or the logistic formula.
    months : int, default 3
        Months per list (quarterly lists on 1 Jan, 1 Apr, 1 Jul, 1 Oct).
        Unit: months.
    floor : float, default 1200
        The lowest published rating (1200 from July 2009; the 2003 Handbook's
        was 1801; the values in between are open).
        Unit: rating points.
    initial : {"international", "national"}, default "international"
        The initial-rating rule: FIDE's old one (9 games, events with at least 3
        rated opponents and more than half a point, pooled over 8 periods), or
        the German national formula (seed 004), under which rated players'
        games against newcomers *are* rated against the newcomer's start value.
    min_initial_games : int or None
        Games for a first rating: 9 (international) or 7 (national) by default.
        Unit: games.
    pool_periods : int, default 8
        Periods over which results pool: the same and the next 7 (a rolling
        window here; open).
        Unit: rating periods.
    rounding : {"period", "event"}, default "period"
        As for :class:`~simulator.systems.fide.Fide`.
    closing_days : int, default 0
        As for :class:`~simulator.systems.fide.Fide`.
        Unit: days.
    unrated_prediction : float, default 1550
        The rating :meth:`expected_score` assumes for an unrated player.
        Unit: rating points.
    new_player_prediction : {"constant", "performance", "newcomers"}, default "constant"
        As for :class:`~simulator.systems.fide.Fide`; ``"performance"`` uses
        the old international formula on the results so far.
    """

    cap: float | None = 350.0
    expectation: str = "table"
    months: int = 3
    floor: float = 1200.0
    initial: str = "international"
    min_initial_games: int | None = None
    pool_periods: int = 8
    rounding: str = "period"
    closing_days: int = 0
    unrated_prediction: float = 1550.0
    new_player_prediction: str = "constant"
    _rules: ListRules = field(init=False, repr=False, compare=False)

    name = "classic"
    per_game = False

    def __post_init__(self) -> None:
        owner = "Classic"
        if self.cap is not None:
            check_interval(owner, "cap", self.cap, 0, np.inf, closed="neither")
        check_choice(owner, "expectation", self.expectation, ("table", "formula"))
        check_interval(owner, "months", self.months, 1, 12, kind="an int")
        check_interval(owner, "floor", self.floor, 0, np.inf)
        check_choice(owner, "initial", self.initial, ("international", "national"))
        if self.min_initial_games is not None:
            check_interval(
                owner,
                "min_initial_games",
                self.min_initial_games,
                1,
                100,
                kind="an int",
            )
        check_interval(owner, "pool_periods", self.pool_periods, 1, 1000, kind="an int")
        check_choice(owner, "rounding", self.rounding, ("period", "event"))
        check_interval(owner, "closing_days", self.closing_days, 0, 80, kind="an int")
        check_interval(owner, "unrated_prediction", self.unrated_prediction, 0, 4000)
        check_choice(
            owner,
            "new_player_prediction",
            self.new_player_prediction,
            NEW_PLAYER_PREDICTIONS,
        )
        object.__setattr__(self, "_rules", self._make_rules())

    @property
    def min_games(self) -> int:
        """Games needed for a first rating."""
        if self.min_initial_games is not None:
            return self.min_initial_games
        return 9 if self.initial == "international" else 7

    def _make_rules(self) -> ListRules:
        min_games = self.min_games

        def k_rule(
            g: IntArray, e24: Any, e23: Any, rating: Any, junior: Any
        ) -> IntArray:
            return k_factor(g, e24)

        def pool_filter(is_first: Any, n_rated: IntArray, points: FloatArray) -> Any:
            # B0206: an event counts only with 3 rated opponents and > 1/2 point.
            return (n_rated >= 3) & (points > 0.5)

        def initial(opp_sum: FloatArray, n: FloatArray, points: FloatArray) -> Any:
            return initial_rating_international(opp_sum, n, points, min_games=min_games)

        def performance(opp_sum: FloatArray, n: FloatArray, points: FloatArray) -> Any:
            return initial_rating_international(opp_sum, n, points, min_games=1)

        return ListRules(
            owner="Classic",
            months=self.months,
            cap=self.cap,
            exempt_from=None,
            expectation=self.expectation,
            round_expectation=None,
            rule_700=False,
            rounding=self.rounding,
            floor=self.floor,
            k_rule=k_rule,
            pool_periods=self.pool_periods,
            pool_filter=pool_filter,
            initial=initial,
            performance=performance,
            # B0206 judges every event alike.
            pool_filter_reads_first=False,
        )

    def rate(
        self,
        state: ListState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> ListState:
        """Rate one period and publish the next list (``overwrite_state``: ignored)."""
        if self.initial == "international":
            return rate_list_period(self.rules, state, games, day)
        return self._rate_national(state, games, day)

    def _rate_national(
        self, state: ListState, games: Games, day: float | None
    ) -> ListState:
        """The national rule: newcomers get start values that rated players play.

        The period's games between a rated and an unrated player are rated for
        the rated player against the newcomer's start value; newcomers with
        ``min_games`` results are published at their start value (if at or above
        the floor). Results pool over ``pool_periods`` like the international
        rule's.
        """
        n_players = state.n_games.shape[0]
        games.check_players(n_players)
        unrated = np.isnan(state.rating)

        # This period's results of unrated players join their pool; an unrated
        # opponent's rating is NaN (filled by the iteration).
        player = np.concatenate([games.white, games.black])
        opp = np.concatenate([games.black, games.white])
        score = np.concatenate([games.score, 1.0 - games.score])
        mine = unrated[player]
        new_rows = Pool(
            player[mine],
            opp[mine],
            state.rating[opp[mine]],
            score[mine],
            np.full(int(mine.sum()), state.period, dtype=np.intp),
        )
        pool = state.pool.concat(new_rows)
        pool = pool.take(pool.period > state.period - self.pool_periods)
        # Opponents rated since a result: their rating on the list in force.
        pool = pool._replace(
            opp_rating=np.where(
                np.isnan(pool.opp_rating), state.rating[pool.opp], pool.opp_rating
            )
        )
        start = round_half_up(
            national_start_values(
                n_players, pool.player, pool.opp, pool.opp_rating, pool.score, unrated
            )
        )

        # Rate the period on lists where newcomers stand at their start values,
        # so rated players' games against them are rated (seed 004); on every
        # kept list, so events that began on an earlier list are rated too.
        at_start = np.isnan(state.list_rating) & unrated[None, :]
        temp = state._replace(
            list_rating=np.where(at_start, start[None, :], state.list_rating),
            pool=Pool.empty(),
        )
        plain = replace(self, initial="international")
        out = rate_list_period(plain.rules, temp, games, day)
        # The kept lists are the published ones, without the start values.
        kept = state.list_rating[state.list_day.size - (out.list_day.size - 1) :]

        # Newcomers: published at their start value once they have enough games.
        n_results = np.bincount(pool.player, minlength=n_players)
        publish = unrated & ~np.isnan(start) & (n_results >= self.min_games)
        with np.errstate(invalid="ignore"):
            publish &= start >= self.floor
        new = np.where(unrated, np.where(publish, start, np.nan), out.rating)
        # G is kept across a drop below the floor (docs/rules.md, section 1): the
        # pooled games are added to it, as under the international rule.
        g = np.where(
            unrated, state.n_games + np.where(publish, n_results, 0), out.n_games
        )
        with np.errstate(invalid="ignore"):
            ever_2400 = state.ever_2400 | (new >= 2400)
        k_list = np.where(np.isnan(new), 0, k_factor(g, ever_2400))
        return out._replace(
            list_rating=np.vstack([kept, new]),
            list_k=np.vstack([out.list_k[:-1], k_list.astype(np.intp)]),
            n_games=g.astype(np.intp),
            ever_2400=ever_2400,
            pool=pool.take(~publish[pool.player]),
        )
