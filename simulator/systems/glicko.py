"""Glicko-1, Glickman's original system: a rating and a rating deviation per player.

Source: M. E. Glickman, "The Glicko system" (glicko.net/glicko/glicko.pdf),
steps 1 and 2, and "Parameter estimation in large dynamic paired comparison
experiments", Applied Statistics 48 (1999) 377-394. docs/rules.md, section 5 is the
spec. Chess.com uses Glicko; its own constants are not public, so the defaults
here are Glickman's.

One rating period, every player rated against the opponents' values at the
onset of the period:

1. RD at the onset: ``RD = min(sqrt(RD^2 + c^2 t), 350)``, ``t`` periods since
   the last one (1 per period here);
2. ``g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)``, ``q = ln 10 / 400``;
   ``E = 1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))``;
   ``d^2 = 1 / (q^2 sum_j g(RD_j)^2 E_j (1 - E_j))``;
   ``r' = r + q / (1/RD^2 + 1/d^2) sum_j g(RD_j) (s_j - E_j)``;
   ``RD' = sqrt(1 / (1/RD^2 + 1/d^2))``.

The update is vectorised over players; its per-player sums over the games
are those of :mod:`simulator.systems.glicko2` (compiled loops).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._calendar import DAYS_PER_YEAR
from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    check_choice,
    check_interval,
    check_lengths,
    check_new_player,
    days_since_last,
    gather,
    grow_state,
    initial_values,
    predict_and_rate_games,
    rate_games,
    read_only_view,
    round_arrays,
    round_counts,
    scatter,
    seeded_last_day,
)
from simulator.systems.glicko2 import (
    PERIODS,
    _check_indices,
    _side_sums,
    period_close,
)

__all__ = [
    "DAYS_PER_YEAR",
    "RATING",
    "RD",
    "C",
    "Glicko",
    "GlickoState",
    "GlickoSums",
    "Q",
    "estimated_variance",
    "expected",
    "g",
    "grow_rd",
    "rate_period",
]

#: Glickman's scale constant ``q = ln 10 / 400``.
Q = float(np.log(10.0) / 400.0)
#: A new (unrated) player, and the ceiling of RD growth.
RATING = 1500.0
RD = 350.0
#: Default ``c``: RD grows from 50 back to 350 in exactly 100 idle periods,
#: ``c = sqrt((350^2 - 50^2) / 100) = sqrt(1200)``, about 34.64.
C = float(np.sqrt(1200.0))
#: Mean length in days of each calendar period of :data:`glicko2.PERIODS`.
_PERIOD_DAYS: dict[str, float] = {
    name: 7.0 if months == 0 else months * DAYS_PER_YEAR / 12.0
    for name, months in PERIODS.items()
}


class GlickoSums(NamedTuple):
    """Step 2's per-player sums over a period's games, each of shape (n_players,).

    Against the values at the onset of the period, which do not change during
    it: the sums of a period's parts, added (:meth:`Glicko.add_sums`), rate
    the period (:meth:`Glicko.rate_from_sums`) without its games.
    """

    #: ``sum g(RD_j)^2 E (1 - E)``: ``1 / (q^2 d^2)``.
    info: FloatArray
    #: ``sum g(RD_j) (s - E)``.
    gain: FloatArray
    #: Games played.
    n_games: IntArray
    #: The day of each player's last game (-inf: none, or no days given).
    latest: FloatArray


class GlickoState(NamedTuple):
    """State of a Glicko pool; every array has shape (n_players,).

    ``last_day`` is the day of the player's last game, NaN before the first
    (or when no days were given, in period mode where it is not needed).
    """

    rating: FloatArray
    rd: FloatArray
    n_games: IntArray
    last_day: FloatArray


def g(rd: ArrayLike) -> FloatArray:
    """Step 2: ``g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)``."""
    r = np.asarray(rd, dtype=np.float64)
    return np.asarray(1.0 / np.sqrt(1.0 + 3.0 * Q * Q * r * r / np.pi**2))


def expected(rating: ArrayLike, rating_j: ArrayLike, g_j: ArrayLike) -> FloatArray:
    """Step 2: ``E = 1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))``."""
    diff = np.asarray(rating, dtype=np.float64) - np.asarray(rating_j, dtype=np.float64)
    return np.asarray(1.0 / (1.0 + 10.0 ** (-np.asarray(g_j) * diff / 400.0)))


def grow_rd(
    rd: ArrayLike, periods: ArrayLike = 1.0, *, c: float = C, max_rd: float = RD
) -> FloatArray:
    """Step 1: ``min(sqrt(RD^2 + c^2 t), max_rd)`` after ``t`` idle periods.

    >>> round(float(grow_rd(50.0, 99)), 4), float(grow_rd(50.0, 100))
    (348.2815, 350.0)
    """
    r = np.asarray(rd, dtype=np.float64)
    t = np.asarray(periods, dtype=np.float64)
    return np.asarray(np.minimum(np.sqrt(r * r + c * c * t), max_rd))


def _sums(
    rating: FloatArray,
    rd: FloatArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    *,
    checked: bool = False,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per-player ``sum g^2 E (1 - E)``, ``sum g (s - E)`` and games played.

    Each game counts from both sides, White's sides first, then Black's, in
    game order. ``checked`` says the indices are known to lie in
    ``[0, n_players)``.
    """
    check_lengths("Glicko-1", white=white, black=black, score=score)
    check_lengths("Glicko-1", rating=rating, rd=rd)
    if not checked:
        _check_indices(white, black, rating.shape[0])
    # g once per player, then gathered.
    return _side_sums(rating, g(rd), white, black, score, base=10.0, scale=400.0)


def estimated_variance(
    rating: ArrayLike, rd: ArrayLike, white: ArrayLike, black: ArrayLike
) -> FloatArray:
    """Step 2's ``d^2`` for every player (inf for a player without games).

    ``rd`` is the deviation at the onset of the period (after step 1).

    >>> d2 = estimated_variance(
    ...     [1500, 1400, 1550, 1700], [200, 30, 100, 300], [0, 0, 0], [1, 2, 3])
    >>> round(float(np.sqrt(d2[0])), 2)
    231.7
    """
    rating = np.asarray(rating, dtype=np.float64)
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    info, _, _ = _sums(
        rating,
        np.asarray(rd, dtype=np.float64),
        white,
        black,
        np.zeros(white.shape[0]),
    )
    with np.errstate(divide="ignore"):
        return np.asarray(1.0 / (Q * Q * info))


def rate_period(
    rating: ArrayLike,
    rd: ArrayLike,
    white: ArrayLike,
    black: ArrayLike,
    score: ArrayLike,
    *,
    c: float = C,
    max_rd: float = RD,
) -> tuple[FloatArray, FloatArray]:
    """Rate one Glicko-1 period for all players at once (steps 1 and 2).

    Parameters
    ----------
    rating, rd : array_like of shape (n_players,)
        Values at the end of the previous period.
    white, black : array_like of shape (n_games,)
        Player indices of each game.
    score : array_like of shape (n_games,)
        White's score (1, 0.5, 0).
    c : float
        RD growth per period (step 1); 0 gives no growth.
    max_rd : float
        Ceiling of the grown RD (Glickman: 350, an unrated player's RD).

    Returns
    -------
    rating, rd : ndarray of shape (n_players,)
        Post-period values. Every player's RD first grows by one period;
        players without games keep that grown RD and their rating.

    Examples
    --------
    Glickman's example (no growth):

    >>> r, rd = rate_period(
    ...     [1500, 1400, 1550, 1700], [200, 30, 100, 300],
    ...     [0, 0, 0], [1, 2, 3], [1, 0, 0], c=0)
    >>> round(float(r[0]), 3), round(float(rd[0]), 3)
    (1464.106, 151.399)
    """
    rating = np.asarray(rating, dtype=np.float64)
    # Step 1: RD at the onset of the period, for every player.
    rd = grow_rd(rd, 1.0, c=c, max_rd=max_rd)
    # Step 2: sums over each player's games against onset values.
    info, gain, _ = _sums(
        rating,
        rd,
        np.asarray(white, dtype=np.intp),
        np.asarray(black, dtype=np.intp),
        np.asarray(score, dtype=np.float64),
    )
    return _step2(rating, rd, info, gain)


def _step2(
    rating: FloatArray, rd: FloatArray, info: FloatArray, gain: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Step 2's new rating and RD from the onset values and the period's sums."""
    inv_d2 = Q * Q * info  # 1 / d^2; 0 for players without games.
    precision = 1.0 / (rd * rd) + inv_d2
    return rating + Q / precision * gain, np.sqrt(1.0 / precision)


@dataclass(frozen=True)
class Glicko:
    """Glickman's Glicko-1, with calendar rating periods or one period per game.

    Parameters
    ----------
    c : float, default sqrt(1200) (about 34.64)
        RD growth per idle period: RD 50 returns to 350 in 100 periods. 0 turns
        growth off.
        Unit: rating points per square root of a rating period.
    initial_rating, initial_rd : float, default 1500, 350
        A new player's values; ``initial_rd`` is also the ceiling of RD growth.
        Unit: rating points.
    period : {"week", "month", "quarter", "year"}, default "month"
        Length of a rating period on the calendar, as in
        :class:`~simulator.systems.glicko2.Glicko2`.
    per_game : bool, default False
        If True, every game is its own rating period, rated in order, and a
        player's RD grows before a game by ``rd_growth_per_day`` periods per
        day since their last game; a player who has never played does not grow.
    rd_growth_per_day : float, optional
        Rating periods per idle day in per-game mode. Default: one per mean
        length of ``period`` (month: 12 / 365.2425, about 0.0329), so both
        modes age an idle player alike.
        Unit: rating periods per day.

    Notes
    -----
    In period mode ``rate`` is one period: every rated player's RD grows by
    one period (step 1), then all games are rated together. A player who has
    never played stays at the new-player values.
    """

    c: float = C
    initial_rating: float = RATING
    initial_rd: float = RD
    period: str = "month"
    per_game: bool = False
    rd_growth_per_day: float | None = None

    name = "glicko"

    def __post_init__(self) -> None:
        own = "Glicko"
        check_interval(own, "c", self.c, 0, np.inf, closed="left")
        check_new_player(own, self.initial_rating, self.initial_rd)
        check_choice(own, "period", self.period, tuple(PERIODS))
        check_choice(own, "per_game", self.per_game, (True, False))
        if self.rd_growth_per_day is not None:
            check_interval(
                own,
                "rd_growth_per_day",
                self.rd_growth_per_day,
                0,
                np.inf,
                closed="left",
            )

    @property
    def periods_per_day(self) -> float:
        """Rating periods per idle day in per-game mode."""
        if self.rd_growth_per_day is not None:
            return float(self.rd_growth_per_day)
        return 1.0 / _PERIOD_DAYS[self.period]

    def next_close(self, day: float) -> int | None:
        """The day the period containing ``day`` closes; None in per-game mode."""
        if self.per_game:
            return None
        return period_close(day, self.period)

    def new_state(
        self,
        n_players: int,
        *,
        rating: ArrayLike | None = None,
        rd: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        day: float | None = None,
        **_: object,
    ) -> GlickoState:
        """A pool of ``n_players``; new players (NaN ``rating``) get the initial values.

        ``rating``, ``rd`` and ``n_games`` seed an established pool. A seeded
        player (a rating given, or ``n_games > 0``) counts as having last played
        on ``day`` (NaN without ``day``).
        """
        start = initial_values(n_players, rating, self.initial_rating, "rating")
        n = initial_values(n_players, n_games, 0, "n_games").astype(np.intp)
        last_day = seeded_last_day(n_players, rating, n, day)
        return GlickoState(
            start,
            initial_values(n_players, rd, self.initial_rd, "rd"),
            n,
            last_day,
        )

    def expected_score(
        self, state: GlickoState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's expected score: step 2's E with Black's deviation.

        In period mode the deviation is the one the next period will use, grown
        by step 1, so that a player who scores above this expectation never
        loses rating in that period.
        """
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        rd = state.rd[b]
        if not self.per_game:
            rd = grow_rd(rd, c=self.c, max_rd=self.initial_rd)
        return expected(state.rating[w], state.rating[b], g(rd))

    def rate(
        self,
        state: GlickoState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> GlickoState:
        """Rate one period of ``games``, or, in per-game mode, the games in order.

        Parameters
        ----------
        state : GlickoState
            The pool before; not modified unless ``overwrite_state``.
        games : Games
            The games. In per-game mode, in the order played, with their days
            in ``games.day`` or, for all of them, ``day``.
        day : float, optional
            The day of every game when ``games.day`` is None. Period mode needs
            no day; it only records it in ``last_day``.
        overwrite_state : bool, default False
            In per-game mode, let the new values be written into ``state``'s
            arrays (saves a copy of each per round; the engine drops the old
            state). Period mode builds new arrays.

        Raises
        ------
        ValueError
            In per-game mode, if there are games and no days, or a game is dated
            before a player's last game.
        """
        games.check_players(state.rating.shape[0])
        if self.per_game:
            return rate_games(
                state, games, day, "Glicko", self._rate_games_round, overwrite_state
            )
        return self._rate_period(state, games, day)

    def predict_and_rate(
        self,
        state: GlickoState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> tuple[GlickoState, FloatArray]:
        """:meth:`rate` in per-game mode, with each game's expected score first.

        The same as splitting ``games`` by :func:`~simulator.systems._common.
        split_rounds` and calling :meth:`expected_score`, then :meth:`rate`,
        round by round (bit for bit), without their per-call checks: the
        walk-forward replay's per-game path.

        Returns
        -------
        state : GlickoState
            The pool after the games.
        expected : ndarray of shape (n_games,)
            White's expected score of each game before its round.

        Raises
        ------
        ValueError
            In period mode, where the games of a period are rated together.
        """
        if not self.per_game:
            raise ValueError(
                "Glicko.predict_and_rate is for per-game mode (per_game=True)."
            )
        games.check_players(state.rating.shape[0])
        return predict_and_rate_games(
            state,
            games,
            day,
            "Glicko",
            self._rate_games_round,
            overwrite_state,
            self.expected_score,
        )

    def _rate_period(
        self, state: GlickoState, games: Games, day: float | None
    ) -> GlickoState:
        return self.rate_from_sums(state, self._game_sums(state, games), day=day)

    def period_sums(self, state: GlickoState, games: Games) -> GlickoSums:
        """Step 2's per-player sums of a period's ``games`` (or a part of them).

        Period mode only. Against the values at the onset of the period (RD
        grown by step 1); the parts of a period, summed with
        :meth:`add_sums`, rate it with :meth:`rate_from_sums` as :meth:`rate`
        rates its games in one call, but for the order of the sums (as
        Glicko-2's: :class:`~simulator.systems.glicko2.Glicko2Sums`).
        """
        if self.per_game:
            raise ValueError("Glicko.period_sums is for period mode (per_game=False).")
        games.check_players(state.rating.shape[0])
        return self._game_sums(state, games)

    def _game_sums(self, state: GlickoState, games: Games) -> GlickoSums:
        # Step 1: RD at the onset of the period, for every player.
        rd = grow_rd(state.rd, 1.0, c=self.c, max_rd=self.initial_rd)
        info, gain, counts = _sums(
            state.rating,
            rd,
            games.white,
            games.black,
            games.score,
            checked=True,  # Games indices are >= 0, and check_players bounds them
        )
        latest = np.full(state.rating.shape[0], -np.inf)
        if games.day is not None and games.n_games:
            _latest_days(latest, games.white, games.black, games.day)
        return GlickoSums(info, gain, counts, latest)

    def add_sums(self, a: GlickoSums, b: GlickoSums) -> GlickoSums:
        """The sums of two parts of a period (arrays of one length)."""
        check_lengths("Glicko-1 sums", a=a.info, b=b.info)
        return GlickoSums(
            a.info + b.info,
            a.gain + b.gain,
            a.n_games + b.n_games,
            np.maximum(a.latest, b.latest),
        )

    def rate_from_sums(
        self, state: GlickoState, sums: GlickoSums, *, day: float | None = None
    ) -> GlickoState:
        """Rate one period from its per-player sums (:meth:`period_sums`).

        ``day`` is the last day of a player who played only games without
        days (it is recorded in ``last_day``), as in :meth:`rate`.
        """
        info, gain, played, latest = sums
        check_lengths("Glicko-1", rating=state.rating, n_games=played)
        # Step 1: RD at the onset of the period, for every player.
        rd = grow_rd(state.rd, 1.0, c=self.c, max_rd=self.initial_rd)
        rating, rd = _step2(state.rating, rd, info, gain)
        n_games = (state.n_games + played).astype(np.intp)
        # Never-played players stay at the new-player values (no step-1 growth).
        fresh = n_games == 0
        rd = np.where(fresh, state.rd, rd)
        last_day = np.where(np.isfinite(latest), latest, state.last_day)
        if day is not None:
            # Players whose games had no days (a latest of -inf; NaN is a
            # game's NaN day, which keeps the last day as rate always has).
            last_day[(played > 0) & (latest == -np.inf)] = float(day)
        return GlickoState(rating, rd, n_games, last_day)

    def _rate_games_round(
        self,
        state: GlickoState,
        white: IntArray,
        black: IntArray,
        score: FloatArray,
        days: FloatArray,
        *,
        overwrite: bool,
    ) -> GlickoState:
        """Rate one round of games (every player in at most one) from ``state``.

        Returns a new state; ``state`` is not modified unless ``overwrite``.
        """
        player = np.concatenate([white, black])
        n = player.size
        # The sides' ratings, RDs and last days (gathered one array at a
        # time); the last days become E's exponent in place.
        rating, rd, e = (
            gather(a, player, np.empty(n))
            for a in (state.rating, state.rd, state.last_day)
        )
        g_opp = np.empty(n)
        # Step 1: growth by the periods since the last game, none before
        # the first. Step 2: the game as a one-game period (growth already
        # applied): rate_period with c = 0 over the round's sides.
        growth = (self.periods_per_day, self.c * self.c, self.initial_rd)
        if _before_game(days, growth, rating, rd, e, g_opp):
            # A game before a player's last one: the error of every system.
            days_since_last(days, state.last_day[player], player, "Glicko")
        # 10 ** e by numpy's power, as _side_sums computes it.
        np.power(np.full(n, 10.0), e, out=e)
        _after_game(rating, rd, e, g_opp, score)
        new_rating, new_rd = round_arrays((state.rating, state.rd), player, overwrite)
        scatter(rating, player, new_rating)
        scatter(rd, player, new_rd)
        n_games, last_day = round_counts(
            state.n_games, state.last_day, player, days, overwrite
        )
        return GlickoState(new_rating, new_rd, n_games, last_day)

    def is_rated(self, state: GlickoState, players: ArrayLike) -> BoolArray:
        """Whether ``players`` have a published rating: every player has one."""
        return ~np.isnan(state.rating[np.asarray(players, dtype=np.intp)])

    def rating(self, state: GlickoState) -> FloatArray:
        """Ratings as they stand: Glicko publishes every player's rating."""
        return state.rating.copy()

    def rating_view(self, state: GlickoState) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return read_only_view(state.rating)

    def grow(self, state: GlickoState, n_players: int, **_: object) -> GlickoState:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        Each a copy of the last player, who must be one who never played.
        """
        return grow_state(state, n_players, "Glicko")


@jit
def _latest_days(
    latest: FloatArray, white: IntArray, black: IntArray, day: FloatArray
) -> None:
    """``np.maximum.at(latest, side, day)`` for White's sides, then Black's.

    One loop instead of two ``np.maximum.at`` calls, several times slower.
    The maximum is numpy's: NaN wins, and of two equal values (0 and -0)
    the new one.
    """
    for side in (white, black):
        for j in range(side.shape[0]):
            p = side[j]
            old = latest[p]
            # (Always written: a select, not a branch, ~20% faster.)
            latest[p] = old if old > day[j] or np.isnan(old) else day[j]


#: pi^2, of g (step 2).
_PI2 = np.pi**2
#: 3 q^2, of g, as :func:`g` computes it (scalars first).
_G3 = 3.0 * Q * Q


# numpy's minimum of two numbers, for the compiled loop below. It lives
# here, not in _common, because numba checks a cached function against its
# own module's file only (see simulator._jit).


@jit
def _at_most(x: float, high: float) -> float:
    """``np.minimum`` of two numbers: NaN stays NaN."""
    return x if x <= high or math.isnan(x) else high


@jit
def _before_game(
    days: FloatArray,
    growth: tuple[float, float, float],
    rating: FloatArray,
    rd: FloatArray,
    e: FloatArray,
    g_opp: FloatArray,
) -> bool:
    """Steps 1-2 of a per-game round, up to E's exponent, in place.

    The sides are White's then Black's, with their ratings in ``rating``,
    RDs in ``rd`` and last days in ``e``. ``growth`` is (periods per day,
    c^2, max RD). Step 1: ``rd`` grows, :func:`grow_rd`'s ``min(sqrt(RD^2 +
    c^2 t), max_rd)`` (no growth before a first game), and then by the
    one-game period with c = 0, ``min(sqrt(RD^2), max_rd)``, as
    :func:`rate_period` does it. Step 2: each side's opponent's g goes into
    ``g_opp`` and E's exponent ``-g_opp (r_own - r_opp) / 400`` into ``e``
    (of 10). Returns whether a side's game is dated before its last game.
    """
    periods_per_day, c2, max_rd = growth
    k = days.shape[0]
    late = False
    # Each side: its growth, and its g, for its opponent.
    for i in range(2 * k):
        day = days[i] if i < k else days[i - k]
        elapsed = day - e[i]
        late |= elapsed < 0
        t = 0.0 if math.isnan(elapsed) else elapsed
        grown = _at_most(math.sqrt(rd[i] * rd[i] + t * periods_per_day * c2), max_rd)
        rd[i] = _at_most(math.sqrt(grown * grown), max_rd)
        g_opp[i + k if i < k else i - k] = 1.0 / math.sqrt(
            1.0 + _G3 * rd[i] * rd[i] / _PI2
        )
    # Each game: both sides' exponents (Black's difference is minus
    # White's, exactly).
    for w in range(k):
        b = w + k
        diff = rating[w] - rating[b]
        e[w] = -(diff * g_opp[w]) / 400.0
        e[b] = -(-diff * g_opp[b]) / 400.0
    return late


@jit
def _after_game(
    rating: FloatArray,
    rd: FloatArray,
    e: FloatArray,
    g_opp: FloatArray,
    score: FloatArray,
) -> None:
    """Step 2 of a per-game round from ``e`` = 10 ** E's exponent, in place.

    E, then ``g^2 E (1 - E)`` and ``g (s - E)`` (each plus 0.0, as the
    period's one-term sums: it turns -0.0 into 0.0), the precision ``1 /
    RD^2 + q^2 g^2 E (1 - E)``, and the new rating ``r + q / precision g (s
    - E)`` and RD ``sqrt(1 / precision)`` into ``rating`` and ``rd``.
    """
    k = score.shape[0]
    for i in range(2 * k):
        s = score[i] if i < k else 1.0 - score[i - k]
        g = g_opp[i]
        expected = 1.0 / (e[i] + 1.0)
        gain = (s - expected) * g + 0.0
        info = g * g * expected * (1.0 - expected) + 0.0
        precision = 1.0 / (rd[i] * rd[i]) + info * (Q * Q)
        rating[i] = rating[i] + Q / precision * gain
        rd[i] = math.sqrt(1.0 / precision)
